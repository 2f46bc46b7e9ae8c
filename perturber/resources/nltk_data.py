"""Offline NLTK data: locate the tree built by ``infra/layers/nltk/build.sh`` and load it once.

Nothing here downloads: ``nltk.download`` is never called, and importing this module does not
import nltk (each loader imports it on first use).

Search order of :func:`find_nltk_data` (first directory holding
``corpora/wordnet/index.noun`` wins):

1. each entry of ``$NLTK_DATA`` (``os.pathsep``-separated), in order;
2. ``/opt/nltk_data`` (where the Lambda layer lands);
3. ``<repo root>/build/nltk_data`` (the default output of the build script).

>>> from perturber.resources import nltk_data
>>> wn = nltk_data.wordnet()                        # doctest: +SKIP
>>> wn.synset("dog.n.01").offset()                  # doctest: +SKIP
2084071
>>> nltk_data.data_version()["content_sha256"]     # doctest: +SKIP
'4048efeb...'
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ResourceUnavailable

if TYPE_CHECKING:  # pragma: no cover
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.tag.perceptron import PerceptronTagger

__all__ = ["BUILD_HINT", "clear_cache", "data_version", "find_nltk_data", "tagger", "wordnet"]

BUILD_HINT = "bash infra/layers/nltk/build.sh build --with-tagger"
LAMBDA_DIR = Path("/opt/nltk_data")
REPO_BUILD_DIR = Path(__file__).resolve().parents[2] / "build" / "nltk_data"

_WORDNET_MARKER = ("corpora", "wordnet", "index.noun")
_WORDNET_SUBDIR = ("corpora", "wordnet")
_TAGGER_SUBDIR = ("taggers", "averaged_perceptron_tagger_eng")
_TAGGER_FILES = tuple(f"averaged_perceptron_tagger_eng.{a}.json" for a in ("weights", "tagdict", "classes"))
_INFO_NAME = "BUILD_INFO.json"

_lock = threading.Lock()
_wordnet: WordNetCorpusReader | None = None
_tagger: PerceptronTagger | None = None


def _candidates() -> list[Path]:
    dirs = [Path(p).expanduser() for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    return dirs + [LAMBDA_DIR, REPO_BUILD_DIR]


def find_nltk_data() -> Path:
    """The first NLTK data directory (resolved) that holds WordNet; see the module docstring.

    :raises ResourceUnavailable: none of the candidates holds ``corpora/wordnet/index.noun``.
    """
    candidates = _candidates()
    for cand in candidates:
        if cand.joinpath(*_WORDNET_MARKER).is_file():
            return cand.resolve()
    searched = ", ".join(str(c) for c in candidates)
    raise ResourceUnavailable(
        f"NLTK data (WordNet) not found; searched: {searched}. "
        f"Build it offline with: {BUILD_HINT} (then set NLTK_DATA=<repo>/build/nltk_data "
        f"or leave it unset to use build/nltk_data), or attach the nltk_data layer "
        f"(/opt/nltk_data) on Lambda.",
        searched=[str(c) for c in candidates],
        hint=BUILD_HINT,
    )


def _authorize(root: Path) -> None:
    """Allow NLTK (>= 3.10) to read under ``root``.

    nltk 3.10's path sandbox (``nltk.pathsec``, enforced by default) refuses to open files
    outside ``nltk.data.path`` / ``$NLTK_DATA``, so a tree found at /opt/nltk_data or
    build/nltk_data has to be listed there. It is appended, so NLTK's own search order for
    code that calls ``nltk.data.find`` itself is unchanged; our loaders pass explicit paths.
    """
    import nltk.data

    known = set()
    for p in nltk.data.path:
        try:
            known.add(Path(str(getattr(p, "path", p))).expanduser().resolve())
        except (OSError, RuntimeError, ValueError):
            continue
    if root not in known:
        nltk.data.path.append(str(root))


def _reader_class() -> type:
    """A WordNetCorpusReader subclass: no OMW remapping at load, thread-safe file access."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class OfflineWordNetReader(WordNetCorpusReader):
        """English WordNet 3.0 reader for a fixed directory.

        ``map_wn``: in nltk 3.8 - 3.10.x (checked on the pinned 3.10.4),
        ``WordNetCorpusReader.__init__`` runs ``self.map30 = self.map_wn()`` to map "WordNet
        3.0" synset ids (the ones OMW, the multilingual data, is keyed by) to the loaded
        version. It compares ``get_version()`` ("3.0") with the *corpus name* "wordnet", which
        never match, so it opens "wordnet" a second time through ``LazyCorpusLoader`` (via
        ``nltk.data.path``, i.e. possibly another copy, or LookupError if this directory is not
        listed there) and parses ``index.sense`` twice, about half of the load time, only to
        build a 3.0 -> 3.0 identity map. The corpus loaded here *is* 3.0, so we return None,
        which is what upstream returns when the versions match (OMW lookups then use the
        offsets as they are). Other versions fall back to upstream.

        Locks: the reader keeps one open handle per data file and does ``seek`` + ``readline``
        on it, so two threads looking up uncached synsets at once can read each other's line.
        The methods that touch those shared handles are serialised by one re-entrant lock
        (synsets are cached after the first read, so contention is low).
        """

        _io_lock = threading.RLock()

        def map_wn(self, version: str = "wordnet"):
            if version == "wordnet" and self.get_version() == "3.0":
                return None
            return super().map_wn(version)

        def synset_from_pos_and_offset(self, pos, offset):
            with self._io_lock:
                return super().synset_from_pos_and_offset(pos, offset)

        def lemma_from_key(self, key):
            with self._io_lock:
                return super().lemma_from_key(key)

        _counts: dict | None = None

        def lemma_count(self, lemma):
            """SemCor count of a sense from ``cntlist.rev``, read into a table once (upstream
            binary-searches the file with seeks on every call, ~0.4 ms; same values)."""
            if lemma._lang != "eng":
                return 0
            counts = self._counts
            if counts is None:
                with self._io_lock:
                    if self._counts is None:
                        stream = self.open("cntlist.rev")
                        try:
                            lines = stream.read().splitlines()
                        finally:
                            stream.close()
                        self._counts = {
                            line.split(" ", 1)[0]: int(line.rsplit(" ", 1)[-1])
                            for line in lines
                            if line.strip()
                        }
                    counts = self._counts
            return counts.get(lemma._key, 0)

        def get_version(self):
            with self._io_lock:
                return super().get_version()

    return OfflineWordNetReader


def wordnet() -> WordNetCorpusReader:
    """The English WordNet 3.0 reader, built once per process on :func:`find_nltk_data`.

    :raises ResourceUnavailable: no data tree, or nltk (the ``perturber[nltk]`` extra) missing.
    """
    global _wordnet
    reader = _wordnet
    if reader is not None:
        return reader
    with _lock:
        if _wordnet is None:
            root = find_nltk_data()
            _require_nltk()
            _authorize(root)
            cls = _reader_class()
            with warnings.catch_warnings():
                # omw_reader=None: English only; NLTK warns that multilingual lookups are off.
                warnings.filterwarnings("ignore", message="The multilingual functions")
                _wordnet = cls(str(root.joinpath(*_WORDNET_SUBDIR)), None)
        return _wordnet


def tagger() -> PerceptronTagger:
    """NLTK's averaged-perceptron POS tagger with the model from the found tree, loaded once.

    :raises ResourceUnavailable: no data tree, a tree built without ``--with-tagger``, or no nltk.
    """
    global _tagger
    tg = _tagger
    if tg is not None:
        return tg
    with _lock:
        if _tagger is None:
            root = find_nltk_data()
            tdir = root.joinpath(*_TAGGER_SUBDIR)
            missing = [f for f in _TAGGER_FILES if not (tdir / f).is_file()]
            if missing:
                raise ResourceUnavailable(
                    f"POS tagger model missing in {tdir} ({', '.join(missing)}); "
                    f"rebuild with the tagger: {BUILD_HINT}",
                    searched=[str(tdir)],
                    hint=BUILD_HINT,
                )
            _require_nltk()
            _authorize(root)
            from nltk.data import FileSystemPathPointer
            from nltk.tag.perceptron import PerceptronTagger

            _tagger = PerceptronTagger(load=True, lang="eng", loc=FileSystemPathPointer(str(tdir)))
        return _tagger


def data_version() -> dict[str, Any]:
    """Identity of the data tree in use, from its ``BUILD_INFO.json``.

    ``content_sha256`` depends only on the files' names and contents (not on paths, dates or
    the machine), so it is what perturbations report as their data version.

    :raises ResourceUnavailable: no tree, or a tree without a readable BUILD_INFO.json.
    """
    root = find_nltk_data()
    path = root / _INFO_NAME
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return {
            "id": info["id"],
            "content_sha256": info["content_sha256"],
            "nltk_version": info["nltk_version"],
            "with_tagger": bool(info.get("build_key", {}).get("with_tagger")),
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ResourceUnavailable(
            f"{path} missing or unreadable ({exc}); rebuild with: {BUILD_HINT}",
            hint=BUILD_HINT,
        ) from exc


def clear_cache() -> None:
    """Forget the loaded reader and tagger (tests; or after swapping the data tree)."""
    global _wordnet, _tagger
    with _lock:
        _wordnet = None
        _tagger = None


def _require_nltk() -> None:
    try:
        import nltk  # noqa: F401
    except ImportError as exc:
        raise ResourceUnavailable(
            "nltk is not installed; install the extra: pip install 'perturber[nltk]'",
            hint="pip install 'perturber[nltk]'",
        ) from exc
