"""Add bytecode to a Lambda zip: ``python3.12 infra/sls/compile_zip.py ARTIFACT.zip [--python-version 3.12]
[--native _native.abi3.so]`` (``--native``: perturber._native built for the function, added to it).

Run by the local osls plugin ``infra/sls/bytecode.js`` after serverless-python-requirements has
put the requirements into the package (``--skip``: serverless.yml ``custom.bytecodeSkip``). Every ``.py`` in the zip gets its
``__pycache__/<name>.cpython-312.pyc`` compiled with ``--invalidation-mode unchecked-hash`` (used
whatever the file times; /var/task is read-only, so Lambda could never cache them itself). The
interpreter running this script must be the runtime's version (checked). Entries already in the
zip keep their order, bytes and attributes; the new ones follow, deterministically.
"""

from __future__ import annotations

import argparse
import compileall
import os
import pathlib
import py_compile
import re
import sys
import tempfile
import zipfile

NATIVE = "perturber/_native.abi3.so"


def add_bytecode(artifact: pathlib.Path, skip: str | None = None, native: pathlib.Path | None = None) -> int:
    """Rewrite ``artifact`` with .pyc for every .py entry (but paths matching the regular
    expression ``skip``), and ``native`` (perturber._native built for the function) as
    ``perturber/_native.abi3.so``; the number of .pyc added."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "tree"
        with zipfile.ZipFile(artifact) as zf:
            infos = zf.infolist()
            wanted = re.compile(skip) if skip else None
            zf.extractall(
                tree,
                [
                    i
                    for i in infos
                    if i.filename.endswith(".py") and not (wanted and wanted.search(i.filename))
                ],
            )
            if not compileall.compile_dir(
                str(tree), quiet=2, workers=0, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
            ):
                raise SystemExit(f"{artifact}: some modules do not compile with Python {sys.version}")
            names = {i.filename for i in infos}
            stamps = {i.filename: i.date_time for i in infos}
            added = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.pyc"))
            added = [name for name in added if name not in names]
            out = pathlib.Path(tmp) / "out.zip"
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
                for info in infos:
                    dst.writestr(info, zf.read(info), compress_type=info.compress_type)
                for name in added:
                    pyc = pathlib.PurePosixPath(name)
                    source = (pyc.parent.parent / f"{pyc.name.split('.', 1)[0]}.py").as_posix()
                    entry = zipfile.ZipInfo(name, stamps.get(source, (1980, 1, 1, 0, 0, 0)))
                    entry.external_attr = 0o100644 << 16
                    dst.writestr(entry, (tree / name).read_bytes(), zipfile.ZIP_DEFLATED)
                if native is not None and NATIVE not in names:
                    entry = zipfile.ZipInfo(NATIVE, (1980, 1, 1, 0, 0, 0))
                    entry.external_attr = 0o100755 << 16
                    dst.writestr(entry, native.read_bytes(), zipfile.ZIP_DEFLATED)
        os.replace(out, artifact)
    return len(added)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("artifacts", nargs="+", type=pathlib.Path)
    parser.add_argument("--python-version", default="3.12")
    parser.add_argument("--skip", help="regular expression: zip paths not to compile")
    parser.add_argument("--native", type=pathlib.Path, help=f"the compiled module to add as {NATIVE}")
    args = parser.parse_args(argv)
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if running != args.python_version:
        raise SystemExit(
            f"compile_zip.py runs on Python {running}; the function needs "
            f"{args.python_version} bytecode (use python{args.python_version})"
        )
    for artifact in args.artifacts:
        print(
            f"bytecode: {artifact}: {add_bytecode(artifact, args.skip, args.native)} .pyc added (unchecked-hash, "
            f"Python {running})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
