"""Offline NLTK data: the build script (infra/layers/nltk) and perturber.resources.nltk_data.

Tests that need the built tree skip when it is absent; build it with
``bash infra/layers/nltk/build.sh build --with-tagger`` (``make nltk-data``; CI always does).
"""

from __future__ import annotations

import collections
import concurrent.futures
import hashlib
import importlib.util
import io
import json
import os
import pickle
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from perturber.errors import ResourceUnavailable
from perturber.resources import nltk_data as nd

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
SCRIPT = ROOT / "infra" / "layers" / "nltk" / "build_nltk_data.py"
BUILD_SH = ROOT / "infra" / "layers" / "nltk" / "build.sh"
NEED_BUILD = f"NLTK data not built; run: {nd.BUILD_HINT}"


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_nltk_data", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_nltk_data", mod)
    spec.loader.exec_module(mod)
    return mod


bnd = _load_builder()


def _data_root() -> Path:
    try:
        return nd.find_nltk_data()
    except ResourceUnavailable:
        pytest.skip(NEED_BUILD)


@pytest.fixture
def fresh(monkeypatch):
    """Empty loader caches for this test; the previous ones come back afterwards."""
    monkeypatch.setattr(nd, "_wordnet", None)
    monkeypatch.setattr(nd, "_tagger", None)


@pytest.fixture
def offline(monkeypatch):
    """Any network connection or nltk download attempt fails the test."""

    def refuse(*_a, **_k):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    import nltk
    import nltk.downloader

    def no_download(*_a, **_k):
        raise AssertionError("nltk.download called")

    monkeypatch.setattr(nltk, "download", no_download)
    monkeypatch.setattr(nltk.downloader, "download", no_download)
    monkeypatch.setattr(nltk.downloader.Downloader, "download", no_download)


def _fake_tree(path: Path) -> Path:
    (path / "corpora" / "wordnet").mkdir(parents=True)
    (path / "corpora" / "wordnet" / "index.noun").write_text("")
    return path


# ----------------------------------------------------------------- locating / errors (no data)


def test_import_does_not_import_nltk():
    code = (
        "import sys, perturber; before = 'nltk' in sys.modules; "
        "import perturber.resources.nltk_data; "
        "sys.exit(1 if 'nltk' in sys.modules and not before else 0)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr or "importing the module imported nltk"


def test_search_order(tmp_path, monkeypatch):
    a, b = _fake_tree(tmp_path / "a"), _fake_tree(tmp_path / "b")
    plain = tmp_path / "plain"  # exists but has no WordNet: skipped
    plain.mkdir()
    monkeypatch.setattr(nd, "LAMBDA_DIR", tmp_path / "no-opt")
    monkeypatch.setattr(nd, "REPO_BUILD_DIR", b)
    monkeypatch.setenv("NLTK_DATA", os.pathsep.join(["", str(plain), str(a)]))
    assert nd.find_nltk_data() == a.resolve()
    monkeypatch.setenv("NLTK_DATA", str(plain))
    assert nd.find_nltk_data() == b.resolve()
    monkeypatch.setattr(nd, "LAMBDA_DIR", a)
    assert nd.find_nltk_data() == a.resolve()


def test_missing_data_raises_with_build_hint(tmp_path, monkeypatch, fresh):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setattr(nd, "LAMBDA_DIR", tmp_path / "no-opt")
    monkeypatch.setattr(nd, "REPO_BUILD_DIR", tmp_path / "no-build")
    for fn in (nd.find_nltk_data, nd.wordnet, nd.tagger, nd.data_version):
        with pytest.raises(ResourceUnavailable) as exc:
            fn()
        assert exc.value.code == "data_unavailable"
        assert "bash infra/layers/nltk/build.sh build --with-tagger" in str(exc.value)
        assert str(tmp_path) in str(exc.value)


def test_tree_without_tagger_raises(tmp_path, monkeypatch, fresh):
    monkeypatch.setenv("NLTK_DATA", str(_fake_tree(tmp_path)))
    with pytest.raises(ResourceUnavailable, match="--with-tagger"):
        nd.tagger()
    with pytest.raises(ResourceUnavailable, match="BUILD_INFO.json"):
        nd.data_version()


# ----------------------------------------------------------------- build script units (no data)


def test_unpickler_refuses_every_global_but_set():
    evil = b"cos\nsystem\n(S'echo pwned'\ntR."  # protocol 0: os.system('echo pwned')
    with pytest.raises(pickle.UnpicklingError, match="refused global os.system"):
        bnd.SetOnlyUnpickler(io.BytesIO(evil)).load()
    for proto in (0, 2, 5):
        data = pickle.dumps(({"a": 1}, collections.OrderedDict()), protocol=proto)
        with pytest.raises(pickle.UnpicklingError, match="collections.OrderedDict"):
            bnd.SetOnlyUnpickler(io.BytesIO(data)).load()
    py2_set = b"\x80\x02c__builtin__\nset\n]U\x02NNa\x85R."  # how the model pickle names set
    assert bnd.SetOnlyUnpickler(io.BytesIO(py2_set), encoding="bytes").load() == {b"NN"}


def test_crlf_stripping():
    assert bnd.crlf_to_lf("f", b"a b\r\nc\r\n") == b"a b\nc\n"
    with pytest.raises(bnd.BuildError, match="stray carriage return"):
        bnd.crlf_to_lf("f", b"a\rb\n")


def test_zip_is_deterministic_and_content_digest_ignores_metadata(tmp_path):
    trees = []
    for i, mode in enumerate((0o600, 0o755)):
        tree = tmp_path / f"t{i}" / "nltk_data"
        (tree / "corpora" / "wordnet").mkdir(parents=True)
        (tree / "taggers").mkdir()
        (tree / "corpora" / "wordnet" / "data.noun").write_bytes(b"x" * 1000)
        (tree / "taggers" / "m.json").write_bytes(b"{}")
        (tree / "BUILD_INFO.json").write_text("{}")
        for p in tree.rglob("*"):
            if p.is_file():
                p.chmod(mode)
                os.utime(p, (1_000_000 * (i + 1),) * 2)
        trees.append(tree)
    zips = [bnd.write_zip(t, t.parent / "layer.zip") for t in trees]
    assert zips[0] == zips[1]
    with zipfile.ZipFile(trees[0].parent / "layer.zip") as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        assert names == sorted(names) and all(n.startswith("nltk_data/") for n in names)
        assert "nltk_data/BUILD_INFO.json" in names
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in infos if not i.is_dir()} == {0o100644}
    files = [bnd.file_manifest(t) for t in trees]
    assert "BUILD_INFO.json" not in files[0]
    assert bnd.content_digest(files[0]) == bnd.content_digest(files[1])
    # Same definition as `sha256sum` over the sorted files, piped into sha256sum.
    lines = "".join(
        f"{hashlib.sha256((trees[0] / r).read_bytes()).hexdigest()}  {r}\n" for r in sorted(files[0])
    )
    assert bnd.content_digest(files[0]) == hashlib.sha256(lines.encode()).hexdigest()


# ----------------------------------------------------------------- built data


def test_wordnet_offsets_and_no_network(fresh, offline):
    _data_root()
    wn = nd.wordnet()
    assert wn is nd.wordnet()  # built once
    assert wn.get_version() == "3.0"
    assert wn.synset("dog.n.01").offset() == 2084071
    assert wn.synset("run.v.01").offset() == 1926311
    assert [s.name() for s in wn.synsets("dog")[:3]] == ["dog.n.01", "frump.n.01", "dog.n.03"]
    assert wn.synset("dog.n.01").lemma_names() == ["dog", "domestic_dog", "Canis_familiaris"]
    assert wn.map30 is None  # the OMW 3.0->3.0 remap is skipped (see OfflineWordNetReader)
    # SemCor counts from cntlist.rev (synonym v2's "attested" filter)
    assert wn.lemma("dog.n.01.dog").count() == 42 and wn.lemma("movie.n.01.pic").count() == 0
    tags = nd.tagger().tag("The striped bats are hanging on their feet for best .".split())
    assert [t for _, t in tags] == "DT VBN NNS VBP VBG IN PRP$ NNS IN RB .".split()


@pytest.mark.slow
def test_wordnet_synset_count(offline):
    _data_root()
    assert sum(1 for _ in nd.wordnet().all_synsets()) == 117659


def test_tagger_loads_from_tree(fresh, offline):
    _data_root()
    tagger = nd.tagger()
    assert tagger is nd.tagger()
    assert len(tagger.classes) == 45
    tags = tagger.tag(["The", "dog", "runs", "."])
    assert tags == [("The", "DT"), ("dog", "NN"), ("runs", "VBZ"), (".", ".")]


def test_plain_nltk_pos_tag_with_nltk_data():
    """nltk's own entry point (PerceptronTagger(load=True) via NLTK_DATA) finds the model."""
    root = _data_root()
    code = (
        "import nltk; from nltk.tag.perceptron import PerceptronTagger; "
        "t = PerceptronTagger(load=True); print(t.tag(['The', 'dog', 'runs'])); "
        "print(nltk.pos_tag(['The', 'dog', 'runs']))"
    )
    env = dict(os.environ, NLTK_DATA=str(root))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    first, second = res.stdout.splitlines()
    assert first == second and first.startswith("[('The', 'DT'), ('dog', 'NN'), ('runs', ")


def test_concurrent_first_use_is_safe(fresh):
    """Threads share one reader, and uncached lookups do not interleave their file reads.

    Without OfflineWordNetReader's lock, this workload gave ~1/3 wrong or failing lookups
    (nltk 3.10.4): the reader seeks and reads one shared handle per data file.
    """
    _data_root()
    with pytest.warns(UserWarning, match="multilingual"):
        reference = nd._reader_class()(str(nd.find_nltk_data() / "corpora" / "wordnet"), None)
    words = list(reference.all_lemma_names())[:2400:4]
    expected = {w: [s.name() for s in reference.synsets(w)] for w in words}

    def work(i):
        wn = nd.wordnet()
        return wn, {w: [s.name() for s in wn.synsets(w)] for w in words[i::8]}

    with _no_warnings():
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(work, range(8)))
    assert len({id(wn) for wn, _ in results}) == 1
    for _, got in results:
        assert got == {w: expected[w] for w in got}


class _no_warnings:
    """Fail on NLTK's 'No WordNet synset found' warning (a sign of interleaved reads)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self._log = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        bad = [str(w.message) for w in self._log if "No WordNet synset" in str(w.message)]
        assert not bad, bad[:3]


def test_data_version_matches_files():
    root = _data_root()
    info = json.loads((root / "BUILD_INFO.json").read_text())
    ver = nd.data_version()
    assert ver["content_sha256"] == info["content_sha256"]
    assert ver["id"] == info["id"] and ver["id"].startswith("nltk_data-")
    assert ver["nltk_version"] == info["nltk_version"]
    files = bnd.file_manifest(root)
    assert files == info["files"]
    assert bnd.content_digest(files) == ver["content_sha256"]
    # licences of every source are in the tree
    assert (root / "corpora" / "wordnet" / "LICENSE").read_text().startswith("WordNet Release 3.0")
    if ver["with_tagger"]:
        mit = (root / "taggers" / "averaged_perceptron_tagger_eng" / "LICENSE").read_text()
        assert "Matthew Honnibal" in mit and "Permission is hereby granted" in mit


def _cached_sdists() -> Path | None:
    for cand in (
        os.environ.get("PERTURBER_BUILD_CACHE"),
        BUILD / ".cache",
        Path.home() / ".cache" / "perturber-build",
    ):
        if not cand:
            continue
        cand = Path(cand)
        have = {bnd.sha256_file(p) for p in cand.glob("*.tar.gz")} if cand.is_dir() else set()
        if {bnd.WORDNET.sha256, bnd.TAGGER.sha256} <= have:
            return cand
    return None


@pytest.mark.slow
def test_rebuild_is_byte_identical(tmp_path):
    """A rebuild from the cached sdists (no network) gives the same zip as build/."""
    ref_zip = BUILD / bnd.ZIP_NAME
    info = bnd.read_info(BUILD / "nltk_data")
    if not ref_zip.is_file() or info is None:
        pytest.skip(NEED_BUILD)
    cache = _cached_sdists()
    if cache is None:
        pytest.skip("no download cache with both pinned sdists (build/.cache)")
    flags = ["--with-tagger"] if info["build_key"]["with_tagger"] else []
    cmd = [
        sys.executable,
        str(SCRIPT),
        str(tmp_path / "out"),
        "--no-download",
        "--cache-dir",
        str(cache),
        *flags,
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    new_info = bnd.read_info(tmp_path / "out" / "nltk_data")
    assert new_info["content_sha256"] == info["content_sha256"]
    if new_info == info:  # same nltk version too: the zip must be byte-identical
        assert (tmp_path / "out" / bnd.ZIP_NAME).read_bytes() == ref_zip.read_bytes()
    else:  # build/ was checked with another nltk; content still identical (asserted above)
        assert new_info["nltk_version"] != info["nltk_version"]
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0 and "up to date" in again.stdout, again.stdout + again.stderr


def test_build_sh_usage():
    res = subprocess.run(["bash", str(BUILD_SH)], capture_output=True, text=True)
    assert res.returncode == 2 and "usage" in res.stderr
