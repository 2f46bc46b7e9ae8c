"""eval/: the corpus, the JSON-region check, statistics, judge, embedding, stages and run_all."""

import json
import pathlib
import subprocess
import sys

import pytest

import perturber
from evalkit import paths, report, sections
from evalkit.corpus import load_corpus
from fidelity import catalog, groups, judge, regions, stage, stats
from fidelity.synonym_yield import synonym_yield
from perturber import registry

ROOT = pathlib.Path(__file__).resolve().parent.parent

KINDS = {
    "questions",
    "instructions",
    "word_problems",
    "json_schemas_tools",
    "markdown",
    "numbers_units",
    "contractions",
    "chat_emoticons",
    "nonlatin",
}


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "OUT", tmp_path)
    return tmp_path


def test_corpus_covers_every_kind_with_unique_ids():
    items = load_corpus()
    assert {i["kind"] for i in items} == KINDS
    assert len({i["id"] for i in items}) == len(items) >= 70
    assert all(i["text"] == i["text"].strip("\n") and "%%" not in i["text"] for i in items)
    json_texts = [i for i in items if i["kind"] == "json_schemas_tools"]
    assert all(regions.json_values(i["text"]) for i in json_texts[:3])


def test_load_corpus_splits_on_the_separator_line(tmp_path):
    (tmp_path / "b.txt").write_text("one\n%%\ntwo\nlines\n%%\n\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("first", encoding="utf-8")
    assert load_corpus(tmp_path) == [
        {"id": "a#0", "kind": "a", "text": "first"},
        {"id": "b#0", "kind": "b", "text": "one"},
        {"id": "b#1", "kind": "b", "text": "two\nlines"},
    ]


@pytest.mark.parametrize(
    "text, count",
    [
        ('{"a": 1}', 1),
        ('  [1, "x"]\n', 1),
        ('Reply as {"name": "x", "age": 3} or [1, 2] and {"k": [true]} then {bad', 2),
        ("No JSON {here} [at all]", 0),
        ("[1, 2, 3]", 1),  # the whole text: always a region
        ("Sizes [1, 2, 3] only", 0),  # embedded without a member name or string: not a region
    ],
)
def test_json_values_finds_regions(text, count):
    assert len(regions.json_values(text)) == count


@pytest.mark.parametrize(
    "before, after, ok",
    [
        ('{"d": "A long description."}', '{"d": "A LONG descrption!"}', True),  # prose interior
        ('{"type": "string"}', '{"type": "twine"}', False),  # type keyword
        ('{"answer": "x y"}', '{"respond": "x y"}', False),  # member name
        ('{"a": 1, "b": 2}', '{"b": 2, "a": 1}', False),  # member order
        ('{"a": 1, "a": 2}', '{"a": 1, "a": 2}', True),  # duplicates kept
        ('{"n": 1}', '{"n": 1.0}', False),
        ('{"xs": ["new", "paid"]}', '{"xs": ["new", "PAID"]}', False),  # enum values
        ('{"s": "two words"}', '{"s": 2}', False),
    ],
)
def test_json_equivalent_allows_edits_only_inside_prose_values(before, after, ok):
    assert regions.json_equivalent(regions.json_values(before)[0], regions.json_values(after)[0]) is ok


def test_json_preserved():
    text = 'Use {"type": "object", "required": ["answer"]} please.'
    assert regions.json_preserved("no json here", "whatever") is None
    assert regions.json_preserved(text, text.replace("please", "PLEASE")) is True
    assert regions.json_preserved(text, text.replace('"answer"', '"respond"')) is False
    assert regions.json_preserved(text, text.replace('"type":', '"type"\n:').replace("{", "{ ", 1)) is True
    assert regions.json_preserved(text, text.replace('"object"', '"obj\nect"')) is False


def test_statistics():
    assert stats.spearman([1, 2, 2, 3], [1, 3, 3, 4]) == 1.0
    assert stats.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert stats.spearman([1, 1, 1], [1, 2, 3]) is None and stats.spearman([1, 2], [1, 2]) is None
    assert stats.spearman([1, None, 2, 3], [2, 5, 3, 1]) == -0.5
    assert stats.median([3, None, 1, 2]) == 2 and stats.median([None]) is None
    assert stats.quantile([5, 1, 4, 2, 3], 0.9) == 5 and stats.quantile([5, 1, 4, 2, 3], 0.1) == 1
    assert stats.rate([True, False, None, True]) == 2 / 3 and stats.rate([None]) is None


class FakeCompletion:
    def __init__(self, text):
        self.text = text


class FakeEndpoint:
    def __init__(self, replies):
        self.replies, self.requests = list(replies), []

    def chat_many(self, requests, on_done=None):
        self.requests += requests
        return [r if isinstance(r, Exception) else FakeCompletion(r) for r in self.replies[: len(requests)]]


def test_judge_takes_the_majority_of_three_samples_at_temperature_zero():
    endpoint = FakeEndpoint(["YES", "no", "Yes.", "NO", "NO", RuntimeError("boom"), "maybe", "YES", "NO"])
    verdicts = judge.Judge(endpoint, "m").verdicts([("a", "b"), ("c", "d"), ("e", "f")])
    assert verdicts == [True, False, None]
    assert len(endpoint.requests) == 9
    assert {r["temperature"] for r in endpoint.requests} == {0.0}
    assert "Prompt A:\nc\n\nPrompt B:\nd" in endpoint.requests[3]["messages"][1]["content"]


def test_judge_is_skipped_with_a_note_when_the_client_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "perturber.llm", None)
    found, note = judge.load()
    assert found is None and "not available" in note


def test_control_group_and_json_exemptions_follow_the_catalog():
    specs = {s.name: s for s in registry.entries()}
    assert groups.control_group(specs["insert_negation"])  # directional
    assert groups.control_group(specs["context_load"])  # out of scope
    assert not groups.control_group(specs["typos"])
    assert groups.json_exempt(specs["reorder_properties"]) and groups.json_exempt(specs["full_width"])
    assert not groups.json_exempt(specs["typos"])


def test_json_gate_counts_only_non_exempt_failures():
    specs = {s.name: s for s in registry.entries()}
    rows = [
        {"entry": "typos", "json_preserved": False},
        {"entry": "typos", "json_preserved": False},
        {"entry": "full_width", "json_preserved": False},
        {"entry": "upper_case", "json_preserved": True},
        {"entry": "lower_case", "json_preserved": None},
    ]
    assert groups.failures_of_json(rows, specs) == {"typos": 2}


def test_synonym_yield_v2_is_a_subset_of_v1():
    pytest.importorskip("nltk")
    from perturber.resources import nltk_data

    try:
        nltk_data.find_nltk_data()
    except perturber.ResourceUnavailable:
        pytest.skip("NLTK data missing")
    corpus = [{"text": "What is the capital of France? Pick a number. The movie was long."}]
    y = synonym_yield(corpus)
    assert y["tokens"] == 13  # word tokens, no punctuation
    assert (y["v1_candidates"], y["v2_candidates"]) == (3, 1)  # capital, number, movie vs movie


def test_fidelity_fast_run_writes_json_and_section(out, monkeypatch, tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    (corpus / "mixed.txt").write_text(
        'Reply with {"answer": "a short sentence", "n": 3} for three apples.\n%%\nHello there world.',
        encoding="utf-8",
    )
    monkeypatch.setattr(paths, "CORPUS_DIR", corpus)
    assert stage.main(["--fast", "--entries", "leetspeak"]) == 0
    leet = json.loads((out / "fidelity.json").read_text(encoding="utf-8"))["entries"]["leetspeak"]
    # leetspeak writes digits for letters: numbers appear that the original did not state
    assert leet["applied"] >= 1 and leet["numbers_preserved_rate"] == 0.0
    code = stage.main(["--fast", "--strict-json", "--entries", "full_width", "baseline", "insert_negation"])
    assert code == 0  # full_width changes JSON by design: exempt, so strict mode passes
    data = json.loads((out / "fidelity.json").read_text(encoding="utf-8"))
    assert set(data["entries"]) == {"full_width", "baseline", "insert_negation"}
    fw = data["entries"]["full_width"]
    assert (fw["samples"], fw["applied_rate"], fw["json_preserved_rate"]) == (2, 1.0, 0.0)
    assert data["entries"]["baseline"]["applied_rate"] == 0.0
    assert data["json_failures"] == {} and data["figure"] is None
    assert data["entries"]["insert_negation"]["group"] == "control"
    section = (out / "sections" / "fidelity.md").read_text(encoding="utf-8")
    assert section.startswith("## Fidelity") and "embedding similarity not measured" in section
    lines = (out / "fidelity_samples.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 * 3  # 2 texts x 3 entries, one seed
    assert "numbers preserved: perturber.number_words" in section
    before = section
    assert stage.main(["--report-only"]) == 0
    assert (out / "sections" / "fidelity.md").read_text(encoding="utf-8") == before


def test_catalog_stage_counts_every_entry(out):
    assert catalog.main([]) == 0
    data = json.loads((out / "catalog.json").read_text(encoding="utf-8"))
    assert data["catalog_digest"] == perturber.catalog_digest()
    n = len(perturber.list_perturbations())
    assert all(sum(v.values()) == n for v in data["counts"].values())
    assert data["counts"]["expectation"]["directional"] >= 3


def test_report_collects_sections_in_order_under_the_claims_table(out):
    sections.write_outputs("peers", {}, "## Peers\n\np")
    sections.write_outputs("catalog", {}, "## Catalog\n\nc")
    sections.write_outputs("brittlebench", {}, "## Brittlebench\n\nb")
    text = report.build(out).read_text(encoding="utf-8")
    assert (
        text.index("## Claims")
        < text.index("## Catalog")
        < text.index("## Peers")
        < text.index("## Brittlebench")
    )
    assert "[Fidelity](#fidelity)" in text


def test_run_all_rejects_unknown_stages():
    r = subprocess.run(
        [sys.executable, "eval/run_all.py", "--stage", "nope"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 2 and "unknown stage(s) nope" in r.stderr and "fidelity" in r.stderr


def test_run_all_fast_subset_is_catalog_determinism_transport_fidelity():
    import run_all

    names = [n for n, _ in run_all.fast_steps(False)]
    assert names == ["catalog", "determinism", "transport", "fidelity"]
    assert "--strict-json" in run_all.fast_steps(True)[-1][1]
    assert "--fast" in run_all.fast_steps(False)[-1][1]


def test_embedding_similarity_is_offline_and_ranks_paraphrases_first(monkeypatch):
    pytest.importorskip("onnxruntime")
    import socket

    from fidelity import embedding

    def refuse(*args, **kwargs):
        raise AssertionError("network attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    model, note = embedding.load()
    if model is None:
        pytest.skip(note)
    assert embedding.MODEL_SHA256 in note
    same = model.cosine("The movie was long.", "The film was long.")
    other = model.cosine("The movie was long.", "Das Wetter ist heute kalt und nass.")
    assert 0.9 < same < 1.0 and other < 0.5
    assert model.cosine("x y", "x y") == 1.0
    assert model.embed("The movie was long.") is model.embed("The movie was long.")
    assert abs(float((model.embed("Hello") ** 2).sum()) - 1.0) < 1e-5


def test_peers_stage_writes_ratios(out):
    pytest.importorskip("glitchlings")
    from fidelity import peers

    assert peers.main(["--calls", "2", "--repeats", "1"]) == 0
    data = json.loads((out / "peers.json").read_text(encoding="utf-8"))
    typos = data["rows"][0]
    assert typos["operation"] == "keyboard typos" and typos["glitchlings"]["ratio"] > 0
    assert len(data["sentence"].split()) == 20
    assert "no equivalent" in (out / "sections" / "peers.md").read_text(encoding="utf-8")


def test_judge_without_an_endpoint_is_skipped_with_a_note(monkeypatch):
    import types

    class Settings:
        base_url, default_model, model = None, None, None

        @classmethod
        def from_env(cls):
            return cls()

    fake = types.SimpleNamespace(LLMSettings=Settings, Endpoint=None)
    monkeypatch.setitem(sys.modules, "perturber.llm", fake)
    monkeypatch.setattr(perturber, "llm", fake, raising=False)
    found, note = judge.load()
    assert found is None and "PERTURBER_LLM_BASE_URL" in note


def test_judge_with_a_configured_endpoint_uses_the_effective_model(monkeypatch):
    import types

    class Settings:
        base_url, default_model, model = "http://127.0.0.1:9/v1", None, "m-first"

        @classmethod
        def from_env(cls):
            return cls()

    class Endpoint:
        @classmethod
        def from_settings(cls, settings):
            return FakeEndpoint(["YES"] * 3)

    fake = types.SimpleNamespace(LLMSettings=Settings, Endpoint=Endpoint)
    monkeypatch.setitem(sys.modules, "perturber.llm", fake)
    monkeypatch.setattr(perturber, "llm", fake, raising=False)
    found, note = judge.load()
    assert found.model == "m-first" and "m-first" in note
    assert found.verdicts([("a", "b")]) == [True]
    assert found.endpoint.requests[0]["model"] == "m-first"


def test_run_all_summary_keeps_rows_of_steps_not_rerun(tmp_path):
    import run_all

    path = tmp_path / "summary.md"
    path.write_text(
        "| step | status | time | output |\n|---|---|---|---|\n"
        "| catalog | ok | 1 s | c |\n| peers | FAILED (exit 1) | 9 s | p |\n",
        encoding="utf-8",
    )
    assert run_all.merge_summary(path, ["| peers | ok | 8 s | p |"]) == [
        "| catalog | ok | 1 s | c |",
        "| peers | ok | 8 s | p |",
    ]
    assert run_all.merge_summary(tmp_path / "none.md", ["| x | ok | 1 s | x |"]) == ["| x | ok | 1 s | x |"]
