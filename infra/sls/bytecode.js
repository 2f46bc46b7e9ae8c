'use strict';
// Local osls plugin (serverless.yml `plugins: - ./infra/sls/bytecode`): after the package step
// (and after serverless-python-requirements has injected the requirements), compile every .py of
// the function zip to unchecked-hash bytecode for the runtime's Python with infra/sls/compile_zip.py.
// /var/task is read-only on Lambda, so without shipped .pyc every cold start recompiles everything.
// It also adds perturber._native cross-compiled for aarch64 (python -m infra.native compile, with
// zig from the repository's .venv): the package patterns leave out the host's own build.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

class PerturberBytecode {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:package:createDeploymentArtifacts': () => this.compile() };
  }

  compile() {
    const service = this.serverless.service;
    const dir = this.serverless.serviceDir;
    const artifacts = new Set();
    if (service.package && service.package.artifact) artifacts.add(path.resolve(dir, service.package.artifact));
    for (const fn of Object.values(service.functions || {})) {
      if (fn.package && fn.package.artifact) artifacts.add(path.resolve(dir, fn.package.artifact));
    }
    if (artifacts.size === 0) throw new Error('bytecode plugin: no function artifact to compile');
    const runtime = service.provider.runtime || 'python3.12';
    const version = runtime.replace(/^python/, '');
    const reqs = (service.custom && service.custom.pythonRequirements) || {};
    const python = reqs.pythonBin || `python${version}`;
    const skip = (service.custom && service.custom.bytecodeSkip) ? ['--skip', service.custom.bytecodeSkip] : [];
    const venv = path.join(dir, '.venv', 'bin', 'python');
    const native = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'perturber-native-')), '_native.abi3.so');
    execFileSync(fs.existsSync(venv) ? venv : 'python3', ['-m', 'infra.native', 'compile', '--arch', 'aarch64',
      '--out', native], { cwd: dir, stdio: 'inherit' });
    execFileSync(python, [path.join(dir, 'infra', 'sls', 'compile_zip.py'), '--python-version', version,
      ...skip, '--native', native, ...artifacts], { stdio: 'inherit' });
  }
}

module.exports = PerturberBytecode;
