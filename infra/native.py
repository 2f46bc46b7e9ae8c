#!/usr/bin/env python3
"""Builds of perturber._native (perturber/_native.c) for the platforms the project ships, and the
test of its aarch64 build under emulation. No Docker and no network beyond PyPI and Debian.

    python -m infra.native compile --arch aarch64 --out fn/perturber/_native.abi3.so
    python -m infra.native wheels --outdir dist/
    python -m infra.native check-arm64 dist/ [--nltk-data build/nltk_data]

``compile`` cross-compiles the module with zig (the ``ziglang`` package of the dev extra) for
Linux ``x86_64`` or ``aarch64`` against glibc 2.17, so it loads on every manylinux2014 system and
on AWS Lambda (infra/Makefile puts the aarch64 build into the function). One stable-ABI module
serves Python 3.11 and later, so the host's own headers build it.

``wheels`` writes the sdist and, from setuptools' wheel of this machine, a pure wheel
(``py3-none-any``, without the module: every other platform runs the pure-Python paths) and one
``cp311-abi3-manylinux_2_17`` wheel each for x86_64 and aarch64 (with the module that ``compile``
builds for it); ``auditwheel show`` must find each compiled wheel consistent with its tag.

``check-arm64`` runs an aarch64 CPython 3.11 (Debian's, unpacked from its packages) under
``qemu-aarch64-static`` with the aarch64 wheel and its dependencies installed for that platform,
and checks there that the module loads and that every golden file of the deterministic tier
holds. It installs ``qemu-user-static`` and adds Debian's arm64 architecture through apt (root,
or sudo). Errors are one line on stderr, exit status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "perturber" / "_native.c"
MODULE = "perturber/_native.abi3.so"
GLIBC = "2.17"  # manylinux2014
ARCHES = {"x86_64": 0x3E, "aarch64": 0xB7}  # the ELF e_machine of each
PLATFORM_TAG = "manylinux_2_17_{arch}.manylinux2014_{arch}"
FLAGS = ["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-DPy_LIMITED_API=0x030B0000", "-s"]
# The arm64 CPython 3.11 of Debian 12 and the libraries it loads (python3.11-minimal's own
# dependencies, and those of the extension modules a perturber run imports).
ARM64_PACKAGES = (
    "python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libc6 libgcc-s1 zlib1g libexpat1 "
    "libffi8 libssl3 libbz2-1.0 liblzma5 libsqlite3-0 libuuid1 libncursesw6 libtinfo6 libreadline8 "
    "libcrypt1 libdb5.3 libnsl2 libtirpc3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 "
    "libcom-err2 libkeyutils1 libzstd1"
).split()


class Failure(Exception):
    """A step that failed: its one-line reason."""


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """``cmd``, its output captured; a non-zero exit is a :class:`Failure` with its last lines."""
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-5:]
        raise Failure(f"{' '.join(map(str, cmd[:4]))} ...: exit {out.returncode}: {' | '.join(tail)}")
    return out


def elf_machine(path: Path) -> int:
    """The ELF ``e_machine`` of a shared object."""
    head = path.read_bytes()[:20]
    if head[:4] != b"\x7fELF":
        raise Failure(f"{path} is not an ELF file")
    return int.from_bytes(head[18:20], "little")


def compile_module(arch: str, out: Path) -> Path:
    """perturber/_native.c built for Linux ``arch`` (glibc 2.17) at ``out``."""
    try:
        import ziglang  # noqa: F401  (only its presence: it runs as `python -m ziglang`)
    except ImportError:
        raise Failure("zig is missing: pip install -e '.[dev]' (the ziglang package)") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    include = sysconfig.get_paths()["include"]
    cache = Path(tempfile.gettempdir()) / "perturber-zig-cache"
    env = {**os.environ, "ZIG_GLOBAL_CACHE_DIR": str(cache), "ZIG_LOCAL_CACHE_DIR": str(cache)}
    target = f"{arch}-linux-gnu.{GLIBC}"
    run(
        [
            sys.executable,
            "-m",
            "ziglang",
            "cc",
            "-target",
            target,
            *FLAGS,
            f"-I{include}",
            str(SOURCE),
            "-o",
            str(out),
        ],
        env=env,
    )
    if elf_machine(out) != ARCHES[arch]:
        raise Failure(f"{out}: not an {arch} build")
    return out


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def rewheel(built: Path, outdir: Path, tags: list[str], module: Path | None) -> Path:
    """The wheel ``built`` (setuptools', for this machine) with its compiled module replaced by
    ``module`` (none: the pure wheel), tagged ``tags`` (``python-abi-platform`` each)."""
    name, version = built.name.split("-")[:2]
    python, abi = tags[0].split("-")[:2]
    platforms = ".".join(t.split("-", 2)[2] for t in tags)
    target = outdir / f"{name}-{version}-{python}-{abi}-{platforms}.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(built) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        records = []
        for item in src.infolist():
            if item.filename in (f"{info}/RECORD", f"{info}/WHEEL") or item.filename.endswith(".so"):
                continue
            data = src.read(item)
            dst.writestr(item, data)
            records.append(_record_line(item.filename, data))
        wheel = re.sub(r"^(Tag|Root-Is-Purelib): .*\n", "", src.read(f"{info}/WHEEL").decode(), flags=re.M)
        wheel = wheel.rstrip("\n") + "\n"  # headers only: a blank line would end them
        wheel += f"Root-Is-Purelib: {'false' if module else 'true'}\n" + "".join(f"Tag: {t}\n" for t in tags)
        added = [(MODULE, module.read_bytes())] if module else []
        for path, data in [*added, (f"{info}/WHEEL", wheel.encode())]:
            dst.writestr(zipfile.ZipInfo(path, (2026, 1, 1, 0, 0, 0)), data)
            records.append(_record_line(path, data))
        dst.writestr(f"{info}/RECORD", "\n".join([*records, f"{info}/RECORD,,"]) + "\n")
    return target


def check_manylinux(wheel: Path, arch: str) -> None:
    """``auditwheel show`` finds ``wheel`` consistent with manylinux_2_17 on ``arch``."""
    shown = run([sys.executable, "-m", "auditwheel", "show", str(wheel)]).stdout
    if f"manylinux_2_17_{arch}" not in " ".join(shown.split()):
        raise Failure(f"auditwheel: {wheel.name} is not manylinux_2_17_{arch}: {' '.join(shown.split())}")


def build_wheels(outdir: Path) -> list[Path]:
    """The sdist, the pure wheel and a wheel for each of ``ARCHES``, in ``outdir``."""
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        run([sys.executable, "-m", "build", "--sdist", "--outdir", str(outdir), str(ROOT)])
        run([sys.executable, "-m", "build", "--wheel", "--outdir", str(work), str(ROOT)])
        built = next(work.glob("*.whl"))
        made = [
            *outdir.glob(built.name.split("-cp")[0] + ".tar.gz"),
            rewheel(built, outdir, ["py3-none-any"], None),
        ]
        for arch in ARCHES:
            module = compile_module(arch, work / arch / "_native.abi3.so")
            tags = [f"cp311-abi3-{platform}" for platform in PLATFORM_TAG.format(arch=arch).split(".")]
            made.append(rewheel(built, outdir, tags, module))
            check_manylinux(made[-1], arch)
    return made


def _sudo() -> list[str]:
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo"]
    raise Failure("installing qemu and arm64 packages needs root or sudo")


def arm64_python(home: Path) -> list[str]:
    """The command that runs Debian's aarch64 CPython 3.11 under qemu (set up in ``home``)."""
    sudo = _sudo()
    if not shutil.which("qemu-aarch64-static"):
        run([*sudo, "apt-get", "update", "-qq"])
        run([*sudo, "apt-get", "install", "-y", "-qq", "--no-install-recommends", "qemu-user-static"])
    root = home / "sysroot"
    python = root / "usr" / "bin" / "python3.11"
    if not python.exists():
        if "arm64" not in run(["dpkg", "--print-foreign-architectures"]).stdout.split():
            run([*sudo, "dpkg", "--add-architecture", "arm64"])
            run([*sudo, "apt-get", "update", "-qq"])
        debs = home / "debs"
        debs.mkdir(parents=True, exist_ok=True)
        run(
            [
                "apt-get",
                "download",
                "-qq",
                "-o",
                "APT::Sandbox::User=root",
                *(f"{p}:arm64" for p in ARM64_PACKAGES),
            ],
            cwd=debs,
        )
        for deb in sorted(debs.glob("*.deb")):
            run(["dpkg", "-x", str(deb), str(root)])
    return ["qemu-aarch64-static", "-L", str(root), str(python)]


# What runs on aarch64: the module loads, then the golden-file check (tests/golden/harness.py).
_ON_ARM64 = """
import platform, runpy, sys
import perturber.native
assert platform.machine() == "aarch64", platform.machine()
assert perturber.native.c is not None, "perturber._native did not load"
print("aarch64: perturber._native loaded from", perturber.native.c.__file__)
sys.argv = ["harness.py"]
runpy.run_path(sys.argv.pop(), run_name="__main__")
"""


def check_arm64(dist: Path, nltk_data: Path | None) -> None:
    """The aarch64 wheel of ``dist`` under emulation: the module loads and the golden files hold."""
    wheels = sorted(dist.glob("*-manylinux_2_17_aarch64*.whl"))
    if not wheels:
        raise Failure(f"no aarch64 wheel in {dist}: run `python -m infra.native wheels --outdir {dist}`")
    home = ROOT / "build" / "arm64"
    python = arm64_python(home)
    site = home / "site"
    shutil.rmtree(site, ignore_errors=True)
    platform = ["--platform", "manylinux2014_aarch64", "--python-version", "3.11", "--implementation", "cp"]
    run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", str(site),
         *platform, "--only-binary=:all:", f"{wheels[-1]}[nltk]"])  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(site)
    if nltk_data is not None:
        env["NLTK_DATA"] = str(nltk_data.resolve())
    harness = ROOT / "tests" / "golden" / "harness.py"
    code = _ON_ARM64.replace("sys.argv.pop()", repr(str(harness)))
    out = subprocess.run([*python, "-c", code], capture_output=True, text=True, env=env, cwd=home)
    print(out.stdout, end="")
    if out.returncode != 0:
        raise Failure("golden files on aarch64: " + " | ".join(out.stderr.strip().splitlines()[-8:]))
    print("aarch64: every golden file holds")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.native", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compile", help="build perturber/_native.c for one Linux architecture")
    p.add_argument("--arch", choices=sorted(ARCHES), required=True)
    p.add_argument("--out", type=Path, required=True, help="where the shared object goes")
    p = sub.add_parser("wheels", help="sdist, pure wheel and manylinux wheels for x86_64 and aarch64")
    p.add_argument("--outdir", type=Path, default=ROOT / "dist")
    p = sub.add_parser("check-arm64", help="the aarch64 wheel under qemu: module loads, golden files hold")
    p.add_argument("dist", type=Path, help="folder with the wheels of `wheels`")
    p.add_argument("--nltk-data", type=Path, default=ROOT / "build" / "nltk_data")
    args = parser.parse_args(argv)
    try:
        if args.command == "compile":
            print(compile_module(args.arch, args.out))
        elif args.command == "wheels":
            for path in build_wheels(args.outdir):
                print(path)
        else:
            check_arm64(args.dist, args.nltk_data if args.nltk_data.is_dir() else None)
    except Failure as exc:
        print(f"infra.native: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
