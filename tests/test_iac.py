"""infra/template.yaml (AWS SAM) and serverless.yml (osls / Serverless v3) describe the same stack.

Both files are parsed offline: a PyYAML loader that turns CloudFormation short tags (``!Ref``,
``!Sub``, ``!GetAtt``, ``!If``, ...) into their long forms, SAM ``Globals`` merged into the
function, ``!Ref Parameter`` resolved to the parameter default, and the Serverless variables the
file uses (``${self:...}``, ``${env:X, default}``, ``${opt:x, default}``, ``${sls:stage}``)
resolved to their defaults. When ``.venv-tools`` (aws-sam-cli) is present, the SAM template is also
translated to plain CloudFormation with samtranslator in that virtualenv (it pins a pydantic the
project cannot use) and the generated resources are checked.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAM_PATH = ROOT / "infra" / "template.yaml"
SLS_PATH = ROOT / "serverless.yml"
TOOLS_PYTHON = ROOT / ".venv-tools" / "bin" / "python"

# The deployment facts the README states; both IaC files must match them.
CLAIMS = {
    "runtime": "python3.12",
    "architecture": "arm64",
    "handler": "functions.api.handler.handler",
    "memory": 512,
    "timeout": 29,  # just below the HTTP API's 30 s integration timeout
    "layer_dir": "build/nltk_data",  # SAM: the tree (sam build puts it under nltk_data/)
    "layer_zip": "build/nltk_data_layer.zip",  # serverless.yml: the same tree, zipped
    "nltk_data": "/opt/nltk_data",
    "routes": {("ANY", "/{proxy+}"), ("ANY", "/")},
    "throttling": {"burst": 100, "rate": 50},
    "reserved_concurrency": 50,  # 50 rps x 29 s would otherwise reach ~1,450 executions
    "log_retention_days": 14,
    "requirements": "functions/api/requirements.txt",
    "lock": "functions/api/requirements.lock",  # what both builds install (infra/lock.sh)
}
SERVICE_ENV = {  # every variable the function reads, with the value the stack sets
    "NLTK_DATA",
    "PERTURBER_API_BASE_PATH",
    "PERTURBER_MAX_TEXT_CHARS",
    "PERTURBER_MAX_TEXTS",
    "PERTURBER_MAX_BODY_BYTES",
    "PERTURBER_MAGNITUDE_MAX_CHARS",
    "PERTURBER_WARM_SYNONYM",
    "PERTURBER_LLM_API_KEY_SECRET_ID",
    "PERTURBER_LLM_API_KEY_PARAMETER",
    "PERTURBER_LLM_BASE_URL",
    "PERTURBER_LLM_DEFAULT_MODEL",
    "PERTURBER_LLM_MODELS",
    "PERTURBER_LLM_ALLOWED_HOSTS",
    "PERTURBER_LLM_BEARER_SHA256",
    "PERTURBER_LLM_ALLOW_CALLER_KEYS",
    "PERTURBER_LLM_TIMEOUT",
    "PERTURBER_LLM_MAX_RETRIES",
    "PERTURBER_LLM_CONCURRENCY",
}
MODEL_PARAMETERS = {  # SAM parameter -> environment variable (serverless.yml: the same names)
    "LlmBaseUrl": "PERTURBER_LLM_BASE_URL",
    "LlmDefaultModel": "PERTURBER_LLM_DEFAULT_MODEL",
    "LlmModels": "PERTURBER_LLM_MODELS",
    "LlmAllowedHosts": "PERTURBER_LLM_ALLOWED_HOSTS",
    "LlmBearerSha256": "PERTURBER_LLM_BEARER_SHA256",
}


# -- loading ---------------------------------------------------------------------------------


class CfnLoader(yaml.SafeLoader):
    """SafeLoader + CloudFormation short-form intrinsic functions."""


def _cfn_constructor(loader: yaml.Loader, tag_suffix: str, node: yaml.Node):
    name = "Ref" if tag_suffix == "Ref" else f"Fn::{tag_suffix}"
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
        if tag_suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {name: value}


CfnLoader.add_multi_constructor("!", _cfn_constructor)


def load_sam() -> dict:
    return yaml.load(SAM_PATH.read_text(encoding="utf-8"), Loader=CfnLoader)


_VAR = re.compile(r"\$\{([^{}]+)\}")


def _resolve_sls(value, config: dict, stage: str = "dev"):
    """Resolve the Serverless variables used in serverless.yml to their default values."""
    if isinstance(value, dict):
        return {k: _resolve_sls(v, config, stage) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_sls(v, config, stage) for v in value]
    if not isinstance(value, str):
        return value

    def lookup(expr: str):
        sources = [s.strip() for s in _split_top(expr)]
        for source in sources:
            if source.startswith("self:"):
                node = config
                for part in source[5:].split("."):
                    node = node[part]
                return _resolve_sls(node, config, stage)
            if source == "sls:stage":
                return stage
            if source.startswith(("env:", "opt:")):
                continue  # not set in the test: fall through to the default
            if source[:1] in "\"'":
                return source[1:-1]
            if re.fullmatch(r"-?\d+", source):
                return int(source)
            if source in ("true", "false"):
                return source == "true"
            raise AssertionError(f"unsupported variable source {source!r} in serverless.yml")
        raise AssertionError(f"no default for ${{{expr}}}")

    whole = _VAR.fullmatch(value)
    if whole and not whole.group(1).startswith("AWS::") and ":" in whole.group(1):
        return lookup(whole.group(1))
    return _VAR.sub(
        lambda m: (
            str(lookup(m.group(1)))
            if ":" in m.group(1) and not m.group(1).startswith("AWS::")
            else m.group(0)
        ),
        value,
    )


def _split_top(expr: str) -> list[str]:
    return [p for p in re.split(r",(?=(?:[^\"']*[\"'][^\"']*[\"'])*[^\"']*$)", expr)]


def load_sls() -> dict:
    raw = yaml.load(SLS_PATH.read_text(encoding="utf-8"), Loader=CfnLoader)
    return _resolve_sls(raw, raw)


@pytest.fixture(scope="module")
def sam():
    return load_sam()


@pytest.fixture(scope="module")
def sls():
    return load_sls()


# -- normalising both files into one shape ----------------------------------------------------


def _sam_ref(value, template: dict):
    """Resolve ``{"Ref": Parameter}`` to the parameter default (numbers as in the template)."""
    if isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in template.get("Parameters", {}):
        return template["Parameters"][value["Ref"]]["Default"]
    return value


def _cfn_param_default(value, params: dict):
    if isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in params:
        return params[value["Ref"]]["Default"]
    return value


def sam_function(template: dict) -> dict:
    fn = dict(template.get("Globals", {}).get("Function", {}))
    fn.update(template["Resources"]["ApiFunction"]["Properties"])
    return fn


def summarize_sam(template: dict) -> dict:
    fn = sam_function(template)
    resources = template["Resources"]
    layer_refs = [r["Ref"] for r in fn["Layers"]]
    assert len(layer_refs) == 1
    layer = resources[layer_refs[0]]
    assert layer["Type"] == "AWS::Serverless::LayerVersion"
    routes = set()
    assert "Events" not in fn  # explicit routes, so that their authorization follows ApiAuthType
    for route in (r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Route"):
        assert route["Properties"]["ApiId"] == {"Ref": "HttpApi"}
        assert route["Properties"]["AuthorizationType"] == {"Ref": "ApiAuthType"}
        method, path = route["Properties"]["RouteKey"].split(" ", 1)
        routes.add((method, path))
    api = resources["HttpApi"]
    assert api["Type"] == "AWS::ApiGatewayV2::Api" and api["Properties"]["ProtocolType"] == "HTTP"
    stage = resources["HttpApiStage"]
    assert stage["Type"] == "AWS::ApiGatewayV2::Stage" and stage["Properties"]["ApiId"] == {"Ref": "HttpApi"}
    assert stage["Properties"]["StageName"] == "$default" and stage["Properties"]["AutoDeploy"] is True
    throttle = stage["Properties"]["DefaultRouteSettings"]
    access = stage["Properties"]["AccessLogSettings"]
    assert access["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    reserved = fn["ReservedConcurrentExecutions"]["Fn::If"]
    assert reserved[0] == "HasReservedConcurrency" and reserved[2] == {"Ref": "AWS::NoValue"}
    return {
        "runtime": fn["Runtime"],
        "architectures": fn["Architectures"],
        "handler": fn["Handler"],
        "memory": int(_sam_ref(fn["MemorySize"], template)),
        "timeout": int(_sam_ref(fn["Timeout"], template)),
        "environment": {k: str(_sam_ref(v, template)) for k, v in fn["Environment"]["Variables"].items()},
        "layer": {
            "content": os.path.normpath(os.path.join("infra", layer["Properties"]["ContentUri"])),
            "runtimes": layer["Properties"]["CompatibleRuntimes"],
            "architectures": layer["Properties"]["CompatibleArchitectures"],
        },
        "routes": routes,
        "throttling": {
            "burst": int(_sam_ref(throttle["ThrottlingBurstLimit"], template)),
            "rate": int(_sam_ref(throttle["ThrottlingRateLimit"], template)),
        },
        "log_retention_days": int(
            _sam_ref(resources["ApiFunctionLogGroup"]["Properties"]["RetentionInDays"], template)
        ),
        "access_log": {
            "format": access["Format"].strip(),
            "retention": int(
                _sam_ref(resources["ApiAccessLogGroup"]["Properties"]["RetentionInDays"], template)
            ),
        },
        "reserved_concurrency": int(_sam_ref(reserved[1], template)),
        "outputs": set(template["Outputs"]),
        "snap_start": _sam_ref(fn["SnapStart"]["ApplyOn"], template) == "PublishedVersions",
    }


def summarize_sls(config: dict) -> dict:
    provider = config["provider"]
    fn = config["functions"]["api"]
    params = config["resources"].get("Parameters", {})
    ((layer_name, layer),) = config["layers"].items()
    layer_ref = "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_]", layer_name)) + "LambdaLayer"
    assert fn["layers"] == [{"Ref": layer_ref}], "the function must use the stack's own layer"
    routes = set()
    for event in fn["events"]:
        method = event["httpApi"]["method"]
        routes.add(("ANY" if method == "*" else method.upper(), event["httpApi"]["path"]))
    extensions = config["resources"]["extensions"]
    stage = extensions["HttpApiStage"]["Properties"]["DefaultRouteSettings"]
    access = extensions["HttpApiStage"]["Properties"]["AccessLogSettings"]
    assert access["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    reserved = extensions["ApiLambdaFunction"]["Properties"]["ReservedConcurrentExecutions"]["Fn::If"]
    assert reserved[0] == "HasReservedConcurrency" and reserved[2] == {"Ref": "AWS::NoValue"}
    access_group = config["resources"]["Resources"]["ApiAccessLogGroup"]["Properties"]
    env = {**provider.get("environment", {}), **fn.get("environment", {})}
    return {
        "runtime": fn.get("runtime", provider["runtime"]),
        "architectures": [fn.get("architecture", provider["architecture"])],
        "handler": fn["handler"],
        "memory": int(fn.get("memorySize", provider["memorySize"])),
        "timeout": int(fn.get("timeout", provider["timeout"])),
        "environment": {k: str(_cfn_param_default(v, params)) for k, v in env.items()},
        "layer": {
            "content": os.path.normpath(layer["package"]["artifact"]),
            "runtimes": layer["compatibleRuntimes"],
            "architectures": layer["compatibleArchitectures"],
        },
        "routes": routes,
        "throttling": {
            "burst": int(stage["ThrottlingBurstLimit"]),
            "rate": int(stage["ThrottlingRateLimit"]),
        },
        "log_retention_days": int(provider["logRetentionInDays"]),
        "access_log": {"format": access["Format"].strip(), "retention": int(access_group["RetentionInDays"])},
        "reserved_concurrency": int(_cfn_param_default(reserved[1], params)),
        "outputs": set(config["resources"]["Outputs"]),
        "snap_start": fn.get("snapStart") is True,
    }


# -- agreement ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "runtime",
        "architectures",
        "handler",
        "memory",
        "timeout",
        "environment",
        "routes",
        "throttling",
        "log_retention_days",
        "snap_start",
        "access_log",
        "reserved_concurrency",
    ],
)
def test_sam_and_serverless_agree(sam, sls, key):
    assert summarize_sam(sam)[key] == summarize_sls(sls)[key]


def test_both_ship_the_same_layer(sam, sls):
    sam_layer, sls_layer = summarize_sam(sam)["layer"], summarize_sls(sls)["layer"]
    assert sam_layer["runtimes"] == sls_layer["runtimes"]
    assert sam_layer["architectures"] == sls_layer["architectures"]
    # SAM builds the layer from the tree, osls uploads the build script's zip of that same tree
    assert sam_layer["content"] == CLAIMS["layer_dir"] and sls_layer["content"] == CLAIMS["layer_zip"]
    layer = sam["Resources"]["NltkDataLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    makefile = (SAM_PATH.parent / "Makefile").read_text()
    assert "build-NltkDataLayer:" in makefile and "$(ARTIFACTS_DIR)/nltk_data" in makefile
    tree, archive = ROOT / CLAIMS["layer_dir"], ROOT / CLAIMS["layer_zip"]
    if not (tree.is_dir() and archive.is_file()):
        pytest.skip("NLTK data not built (bash infra/layers/nltk/build.sh build --with-tagger)")
    import zipfile

    with zipfile.ZipFile(archive) as zf:
        zipped = {n for n in zf.namelist() if not n.endswith("/")}
    files = {"nltk_data/" + p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}
    assert zipped == files, "the zip and the tree differ: rebuild the layer"


def test_both_match_the_documented_deployment(sam, sls):
    for summary in (summarize_sam(sam), summarize_sls(sls)):
        assert summary["runtime"] == CLAIMS["runtime"]
        assert summary["architectures"] == [CLAIMS["architecture"]]
        assert summary["handler"] == CLAIMS["handler"]
        assert summary["memory"] == CLAIMS["memory"]
        assert summary["timeout"] == CLAIMS["timeout"]
        assert summary["routes"] == CLAIMS["routes"]
        assert summary["throttling"] == CLAIMS["throttling"]
        assert summary["log_retention_days"] == CLAIMS["log_retention_days"]
        assert summary["reserved_concurrency"] == CLAIMS["reserved_concurrency"]
        assert summary["access_log"]["retention"] == CLAIMS["log_retention_days"]
        assert summary["layer"]["runtimes"] == [CLAIMS["runtime"]]
        assert summary["layer"]["architectures"] == [CLAIMS["architecture"]]
        assert set(summary["environment"]) == SERVICE_ENV
        assert summary["environment"]["NLTK_DATA"] == CLAIMS["nltk_data"]
        # $default stage: no stage prefix in rawPath, nothing for Mangum to strip
        assert summary["environment"]["PERTURBER_API_BASE_PATH"] == "/"
        assert {"ApiUrl", "FunctionName"} <= summary["outputs"]


def test_environment_limits_equal_the_service_defaults(sam):
    from perturber.service.settings import Settings

    env = summarize_sam(sam)["environment"]
    settings = Settings.from_env(env)
    assert settings == Settings(), "the stack should not silently diverge from the documented defaults"


def test_handler_module_exists_and_exports_handler():
    module, attr = CLAIMS["handler"].rsplit(".", 1)
    path = ROOT / (module.replace(".", "/") + ".py")
    assert path.is_file()
    assert re.search(rf"^{attr}\s*=", path.read_text(encoding="utf-8"), re.M)


def test_sam_parameters_and_build(sam):
    params = sam["Parameters"]
    assert params["MemorySize"]["Type"] == "Number" and params["MemorySize"]["Default"] == 512
    assert params["Timeout"]["Type"] == "Number"
    assert {"ThrottlingBurstLimit", "ThrottlingRateLimit"} <= set(params)
    fn = sam["Resources"]["ApiFunction"]
    assert fn["Metadata"]["BuildMethod"] == "makefile"
    makefile = (SAM_PATH.parent / fn["Metadata"].get("ContextPath", ".") / "Makefile").read_text()
    assert "build-ApiFunction:" in makefile
    for needle in (
        "manylinux2014_aarch64",
        "--only-binary=:all:",
        "--python-version 3.12",
        CLAIMS["lock"],
        "--require-hashes",
        "perturber functions",
        "--exclude='*.so'",  # the host's own perturber._native stays out ...
        "-m infra.native compile --arch $(NATIVE_ARCH)",  # ... and the function's is cross-compiled
        "NATIVE_ARCH ?= aarch64",
    ):
        assert needle in makefile, needle
    code_uri = (SAM_PATH.parent / fn["Properties"]["CodeUri"]).resolve()
    assert code_uri.is_dir() and (code_uri / "requirements.txt").is_file()
    # the Output URL is the $default stage of this template's HTTP API
    assert "${HttpApi}" in sam["Outputs"]["ApiUrl"]["Value"]["Fn::Sub"]


def test_serverless_packaging(sls):
    assert sls["configValidationMode"] == "error"
    assert "serverless-python-requirements" in sls["plugins"]
    req = sls["custom"]["pythonRequirements"]
    assert req["fileName"] == CLAIMS["lock"]
    assert req["dockerizePip"] is False
    extra = " ".join(req["pipCmdExtraArgs"])
    for needle in (
        "--platform manylinux2014_aarch64",
        "--only-binary=:all:",
        "--python-version 3.12",
        "--implementation cp",
        "--require-hashes",
    ):
        assert needle in extra, needle
    patterns = sls["package"]["patterns"]
    assert patterns[0] == "!**" and {"perturber/**", "functions/**", "!**/*.so"} <= set(patterns)
    plugin = (ROOT / "infra" / "sls" / "bytecode.js").read_text(encoding="utf-8")
    assert "'infra.native', 'compile', '--arch', 'aarch64'" in plugin and "'--native', native" in plugin
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for name in ("osls", "serverless-python-requirements"):
        pinned = package["devDependencies"][name]
        assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), f"{name} must be pinned exactly"
        assert lock["packages"][f"node_modules/{name}"]["version"] == pinned


def test_snapstart_is_an_option_of_both_off_by_default(sam, sls):
    param = sam["Parameters"]["SnapStart"]
    assert param["Default"] == "None" and set(param["AllowedValues"]) == {"None", "PublishedVersions"}
    fn = sam["Resources"]["ApiFunction"]["Properties"]
    assert fn["SnapStart"] == {"ApplyOn": {"Ref": "SnapStart"}}
    assert fn["AutoPublishAlias"]  # SnapStart snapshots published versions only
    assert fn["Environment"]["Variables"]["PERTURBER_WARM_SYNONYM"] == {"Ref": "WarmSynonym"}
    assert sam["Parameters"]["WarmSynonym"]["AllowedValues"] == ["0", "1"]
    raw = yaml.load(SLS_PATH.read_text(encoding="utf-8"), Loader=CfnLoader)
    assert raw["custom"]["snapStart"] == "${env:PERTURBER_SNAPSTART, false}"
    assert raw["functions"]["api"]["snapStart"] == "${self:custom.snapStart}"
    assert raw["custom"]["warmSynonym"] == '${env:PERTURBER_WARM_SYNONYM, "0"}'
    assert not summarize_sam(sam)["snap_start"] and not summarize_sls(sls)["snap_start"]


def test_both_recipes_ship_unchecked_hash_bytecode_for_python312(sls):
    makefile = (SAM_PATH.parent / "Makefile").read_text()
    assert "TARGET_PYTHON ?= python3.12" in makefile
    assert re.search(
        r"\$\(TARGET_PYTHON\) -m compileall .*-x '\$\(BYTECODE_SKIP\)' "
        r"--invalidation-mode unchecked-hash",
        makefile,
    )
    skip = re.search(r"^BYTECODE_SKIP := (.+)$", makefile, re.M).group(1)
    assert sls["custom"]["bytecodeSkip"] == skip
    assert re.search(skip, "nltk/corpus/__init__.py") and not re.search(skip, "perturber/core.py")
    plugins = sls["plugins"]
    assert plugins.index("./infra/sls/bytecode") > plugins.index("serverless-python-requirements")
    plugin = (ROOT / "infra" / "sls" / "bytecode.js").read_text()
    assert "after:package:createDeploymentArtifacts" in plugin and "compile_zip.py" in plugin
    assert sls["custom"]["pythonRequirements"]["pythonBin"] == "python3.12"


def test_runtime_requirements_are_runtime_only():
    lines = [
        ln.split("==")[0].strip().lower()
        for ln in (ROOT / CLAIMS["requirements"]).read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    import tomllib

    base = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    base_names = {re.split(r"[<>=!~ ]", dep, maxsplit=1)[0].lower() for dep in base}
    assert base_names | {"fastapi", "mangum", "nltk", "openai"} == set(lines)


def test_model_tier_parameters_agree(sam, sls):
    sls_params = sls["resources"]["Parameters"]
    for name, variable in MODEL_PARAMETERS.items():
        assert sam["Parameters"][name]["Default"] == "" == sls_params[name]["Default"]
        assert sam_function(sam)["Environment"]["Variables"][variable] == {"Ref": name}
        assert sls["provider"]["environment"][variable] == {"Ref": name}
    for params in (sam["Parameters"], sls_params):
        assert params["ApiAuthType"]["AllowedValues"] == ["NONE", "AWS_IAM"]
        assert params["ApiAuthType"]["Default"] == "NONE" and params["LlmBearerSha256"]["NoEcho"] is True
    for route in ("HttpApiRouteAnyProxyVar", "HttpApiRouteAny"):
        assert sls["resources"]["extensions"][route]["Properties"]["AuthorizationType"] == {
            "Ref": "ApiAuthType"
        }
    res = sam["Resources"]
    # the API invokes the "live" alias (published on every deploy; SnapStart restores from it)
    assert res["ApiIntegration"]["Properties"]["IntegrationUri"] == {"Ref": "ApiFunction.Alias"}
    assert res["ApiInvokePermission"]["Properties"]["FunctionName"] == {"Ref": "ApiFunction.Alias"}
    assert res["ApiIntegration"]["Properties"]["PayloadFormatVersion"] == "2.0"
    assert res["ApiInvokePermission"]["Properties"]["Principal"] == "apigateway.amazonaws.com"
    # the model timeout and one retry fit the function timeout (29 s)
    env = summarize_sam(sam)["environment"]
    timeout, retries = float(env["PERTURBER_LLM_TIMEOUT"]), int(env["PERTURBER_LLM_MAX_RETRIES"])
    assert (retries + 1) * timeout + 2 < CLAIMS["timeout"]
    from perturber.llm import LLMSettings

    LLMSettings.from_env(env)  # the stack's values are valid configuration


def test_cfn_tag_loader_handles_short_forms():
    doc = yaml.load(
        "a: !Ref X\nb: !GetAtt R.Arn\nc: !Sub 'x-${Y}'\nd: !If [C, 1, 2]\ne: !Not [!Equals [!Ref P, '']]\n",
        Loader=CfnLoader,
    )
    assert doc == {
        "a": {"Ref": "X"},
        "b": {"Fn::GetAtt": ["R", "Arn"]},
        "c": {"Fn::Sub": "x-${Y}"},
        "d": {"Fn::If": ["C", 1, 2]},
        "e": {"Fn::Not": [{"Fn::Equals": [{"Ref": "P"}, ""]}]},
    }


# -- SAM translation (optional: needs .venv-tools) --------------------------------------------

_TRANSLATE = r"""
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

class NoManagedPolicies:
    def load(self):
        return {}

template = yaml_parse(open(sys.argv[1]).read())
for res in template["Resources"].values():  # local paths -> S3 URIs, as `sam package` would do
    for key in ("CodeUri", "ContentUri"):
        if key in res.get("Properties", {}):
            res["Properties"][key] = "s3://bucket/" + key.lower() + ".zip"
print(json.dumps(transform(template, {}, NoManagedPolicies()), default=str))
"""


@pytest.fixture(scope="module")
def translated():
    if not TOOLS_PYTHON.exists():
        pytest.skip(".venv-tools (aws-sam-cli) not installed; infra/ci-checks.sh installs it")
    env = {
        **os.environ,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    proc = subprocess.run(
        [str(TOOLS_PYTHON), "-c", _TRANSLATE, str(SAM_PATH)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    if proc.returncode != 0 and "No module named" in proc.stderr:
        pytest.skip("samtranslator not importable in .venv-tools")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_translated_template_resources(translated):
    resources = translated["Resources"]
    by_type: dict[str, list[str]] = {}
    for name, res in resources.items():
        by_type.setdefault(res["Type"], []).append(name)
    fn = resources["ApiFunction"]["Properties"]
    assert fn["Runtime"] == CLAIMS["runtime"] and fn["Architectures"] == [CLAIMS["architecture"]]
    assert fn["Handler"] == CLAIMS["handler"]
    assert fn["MemorySize"] == {"Ref": "MemorySize"} and fn["Timeout"] == {"Ref": "Timeout"}
    assert fn["Environment"]["Variables"]["NLTK_DATA"] == CLAIMS["nltk_data"]
    (layer_name,) = by_type["AWS::Lambda::LayerVersion"]
    assert fn["Layers"] == [{"Ref": layer_name}]
    layer = resources[layer_name]["Properties"]
    assert layer["CompatibleArchitectures"] == [CLAIMS["architecture"]]
    assert layer["CompatibleRuntimes"] == [CLAIMS["runtime"]]
    (api_name,) = by_type["AWS::ApiGatewayV2::Api"]
    assert "Body" not in resources[api_name]["Properties"]  # routes are resources, never overwritten
    routes = [resources[n]["Properties"] for n in by_type["AWS::ApiGatewayV2::Route"]]
    assert {r["RouteKey"] for r in routes} == {"ANY /{proxy+}", "ANY /"}
    assert all(r["AuthorizationType"] == {"Ref": "ApiAuthType"} for r in routes)
    (integration_name,) = by_type["AWS::ApiGatewayV2::Integration"]
    assert resources[integration_name]["Properties"]["PayloadFormatVersion"] == "2.0"
    (stage_name,) = by_type["AWS::ApiGatewayV2::Stage"]
    stage = resources[stage_name]["Properties"]
    assert stage["StageName"] == "$default"
    assert stage["DefaultRouteSettings"] == {
        "ThrottlingBurstLimit": {"Ref": "ThrottlingBurstLimit"},
        "ThrottlingRateLimit": {"Ref": "ThrottlingRateLimit"},
    }
    assert len(by_type["AWS::Lambda::Permission"]) == 1  # one for the API (both routes)


def test_access_log_is_json_with_the_caller_and_never_a_header(sam):
    fields = json.loads(summarize_sam(sam)["access_log"]["format"])
    assert {"requestId", "ip", "user", "routeKey", "status", "integrationLatency"} <= set(fields)
    assert all(v.startswith("$context.") and "header" not in v.lower() for v in fields.values())


def test_reserved_concurrency_bounds_executions_below_the_default_account_limit(sam, sls):
    for params in (sam["Parameters"], sls["resources"]["Parameters"]):
        assert params["ReservedConcurrency"]["MinValue"] == -1  # -1: none (small accounts)
    rate = CLAIMS["throttling"]["rate"]
    assert CLAIMS["reserved_concurrency"] < 1000 < rate * CLAIMS["timeout"]


def test_public_http_api_statement_and_caller_keys_off(sam, sls):
    """The HTTP API cannot limit per client: both files say it must stay behind IAM for that, and
    callers' own keys (an open relay otherwise) are off unless asked for."""
    for params in (sam["Parameters"], sls["resources"]["Parameters"]):
        assert (
            "per-client" in params["ApiAuthType"]["Description"]
            and "AWS_IAM" in params["ApiAuthType"]["Description"]
        )
        assert params["LlmAllowCallerKeys"]["Default"] == "false"
    for summary in (summarize_sam(sam), summarize_sls(sls)):
        assert summary["environment"]["PERTURBER_LLM_ALLOW_CALLER_KEYS"] == "false"
