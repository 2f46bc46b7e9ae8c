"""The brittlebench tier (docs/spec/catalog.md §17) against every row of the engine's reference vectors,
its call protocol (global random state, the tier-only lock), its errors and its transports."""

import hashlib
import io
import json
import random
import re
import subprocess
import sys
import threading

import pytest
from conftest import shared_file, write_brittlebench_stimuli

import perturber
from perturber import cli, registry
from perturber.brittlebench import behaviours, runtime
from perturber.errors import InvalidParams, ResourceUnavailable

VECTORS = "vectors/brittlebench"  # under ../shared, outside the repository
FILES = (
    "sequence_spaces",
    "punctuation_spaces",
    "drop_stop_words",
    "typos",
    "quotes",
    "spaces",
    "new_lines",
    "emotion_prompt",
    "word_merge",
    "word_split",
)
PAD_NAMES = {'"': "quotes", " ": "spaces", "\n": "new_lines"}
TEN = (
    "sequence_spaces",
    "punctuation_spaces",
    "drop_stop_words",
    "typos",
    "word_merge",
    "word_split",
    "quotes",
    "spaces",
    "new_lines",
    "emotion_prompt",
)


def recorded_sums() -> dict:
    readme = shared_file(f"{VECTORS}/README.md").read_text(encoding="utf-8")
    return {name: digest for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+\.jsonl)$", readme, re.M)}


def rows(stem: str) -> list[dict]:
    text = shared_file(f"{VECTORS}/{stem}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def mapped(stem: str, row: dict) -> tuple[str, dict]:
    """The §17.5 mapping from a vectors row to (name, params)."""
    params = dict(row["params"])
    if row["perturbation"] == "TypoCountPerturbation":
        return "typos", {"mode": "count", **params}
    if row["perturbation"] == "TypoPerturbation":
        return "typos", {"mode": "proportional", **params}
    if row["perturbation"] == "PaddingPerturbation":
        return PAD_NAMES[params["char"]], {"char_count": params["char_count"]}
    if row["perturbation"] == "WordManipulation":
        return {"merge": "word_merge", "split": "word_split"}[params["manipulation_type"]], {}
    return stem, params


@pytest.fixture
def stimuli(tmp_path, monkeypatch):
    path = write_brittlebench_stimuli(tmp_path / "emotion_prompts.json")
    monkeypatch.setenv(runtime.EMOTION_ENV, str(path))
    return str(path)


def test_vectors_match_their_recorded_checksums():
    sums = recorded_sums()
    assert sorted(sums) == sorted(f"{stem}.jsonl" for stem in FILES)
    for name, digest in sums.items():
        assert hashlib.sha256(shared_file(f"{VECTORS}/{name}").read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("stem", FILES)
def test_every_vectors_row_byte_for_byte(stem, stimuli):
    raw = shared_file(f"{VECTORS}/{stem}.jsonl").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == recorded_sums()[f"{stem}.jsonl"], "vectors changed"
    failures = []
    for row in rows(stem):
        name, params = mapped(stem, row)
        out = perturber.perturb(row["input"], name, params, seed=row["seed"], category="brittlebench")
        if out.encode("utf-8") != row["output"].encode("utf-8"):
            failures.append((row["seed"], params, row["input"], row["output"], out))
    assert failures == [], f"{len(failures)} rows differ; first: {failures[0]}"


def test_the_suite_covers_3859_rows():
    assert sum(len(rows(stem)) for stem in FILES) == 3859


def test_ten_entries_declared_in_the_tier():
    tier = [s for s in registry.entries() if s.category == "brittlebench"]
    assert [s.name for s in tier] == list(TEN)
    assert {s.name for s in tier if s.seed_sensitive} == {
        "sequence_spaces",
        "typos",
        "word_merge",
        "word_split",
    }
    assert all(s.kind == "deterministic" and s.expectation == "invariant" and s.in_scope for s in tier)
    # A bare name is the native entry.
    assert perturber.perturb("Hi", "quotes", {"n": 1}) == '" Hi "'
    assert perturber.describe("quotes")["category"] == "native"


def test_native_padding_coincides_with_the_tier_for_nonempty_input():
    for row in rows("quotes") + rows("spaces") + rows("new_lines"):
        name, params = mapped("", row)
        if row["input"] and params["char_count"] >= 1:
            assert perturber.perturb(row["input"], name, {"n": params["char_count"]}) == row["output"]


def test_results_fields_and_data_version(stimuli):
    r = perturber.apply("", "quotes", {"char_count": 1}, category="brittlebench")
    assert (r.text, r.applied, r.edits, r.reason) == ('"  "', True, 1, None)
    r = perturber.apply("", "typos", category="brittlebench")
    assert (r.text, r.applied, r.edits, r.reason) == ("", False, 0, "empty_input")
    r = perturber.apply("123 456", "typos", category="brittlebench")
    assert (r.applied, r.reason) == (False, "no_change")
    version = r.details["data_version"]
    assert version["engine_commit"] == "fc86103c275e3b6aab767003f7c46b98a815dcd7"
    assert {k: version[k] for k in ("augly", "nlpaug", "wordfreq")} == runtime.PINS
    assert version["misspelling_sha256"] == runtime.MISSPELLING_SHA256
    r = perturber.apply("a b", "drop_stop_words", category="brittlebench")
    assert r.details["data_version"]["stopword_list"] == "nltk-2025"
    r = perturber.apply("Hi", "emotion_prompt", {"stimuli_code": "EA22"}, category="brittlebench")
    hello = next(
        row["output"]
        for row in rows("emotion_prompt")
        if row["input"] == "Hello" and row["params"]["stimuli_code"] == "EA22"
    )
    assert r.text == hello.removesuffix("\nHello") + "\nHi"  # EA22 is a prefix (never committed: CC BY-NC)
    assert r.details["data_version"]["stimulus_table_sha256"] == runtime.EMOTION_SHA256


def test_older_stop_list_keeps_the_2025_contractions():
    text = "I'm sure they're right, but we've never checked?"
    assert perturber.perturb(text, "drop_stop_words", category="brittlebench") == "sure right, never checked?"
    assert (
        perturber.perturb(text, "drop_stop_words", {"stopword_list": "nltk-2023"}, category="brittlebench")
        == "I'm sure they're right, we've never checked?"
    )
    assert len(behaviours.stop_set("nltk-2025")) == 162


def test_unit_table_holds_the_required_everyday_units():
    units = behaviours.units()
    required = (
        "s sec second min minute hr hour day week month year m cm mm km meter metre "
        "centimeter kilometer inch foot feet ft yard mile g mg kg gram pound lb lbs ounce oz "
        "ton ml mL l L liter litre gallon cup degree deg °C °F kelvin acre percent mph"
    ).split()
    assert [u for u in required if u not in units] == []
    plural = (
        "seconds minutes hours days weeks months years meters metres centimeters kilometers "
        "inches yards miles grams pounds ounces tons liters litres gallons cups degrees acres"
    ).split()
    assert [u for u in plural if u not in units] == []
    # Tokens that must stay natural words (the engine does not treat them as units).
    for word in ("C", "B", "a", "at", "in", "am", "I", "x", "y"):
        assert word not in units and word.lower() not in units, word
    assert not behaviours.is_natural_word("Second", 0.0) and not behaviours.is_natural_word("km", 0.0)
    assert behaviours.is_natural_word("capital", 0.0) and not behaviours.is_natural_word("NASA", 0.0)


def test_cached_typo_augmenter_equals_augly_simulate_typos():
    simulate = runtime.deps()["simulate_typos"]
    for typo_type in ("all", "charmix", "keyboard", "misspelling"):
        for seed in range(12):
            for token in ("France?", "important", "Hello", "the"):
                random.seed(seed)
                expected = simulate(
                    [token],
                    typo_type=typo_type,
                    aug_word_p=1.0,
                    aug_char_p=0.5,
                    aug_word_min=1,
                    aug_word_max=1,
                )[0]
                random.seed(seed)
                got = behaviours.typo_augmenter(typo_type, 0.5).augment([token], 1)[0]
                assert got == expected, (typo_type, seed, token)


@pytest.mark.parametrize(
    "name,params",
    [
        ("sequence_spaces", {"prob": 0.5}),
        ("typos", {}),
        ("word_merge", {}),
        ("word_split", {}),
        ("punctuation_spaces", {}),
        ("quotes", {}),
    ],
)
def test_caller_global_random_state_is_restored(name, params):
    import numpy

    random.seed(1234)
    numpy.random.seed(99)
    before, before_np = random.getstate(), numpy.random.get_state()
    perturber.perturb(
        "The quick brown fox jumps over the lazy dog.", name, params, seed=7, category="brittlebench"
    )
    assert random.getstate() == before
    after_np = numpy.random.get_state()
    assert (
        after_np[0] == before_np[0] and (after_np[1] == before_np[1]).all() and after_np[2:] == before_np[2:]
    )


def test_global_state_is_restored_when_the_call_raises(monkeypatch):
    random.seed(42)
    before = random.getstate()

    def explode(*args, **kwargs):
        random.random()
        raise RuntimeError("boom")

    monkeypatch.setattr(behaviours, "sequence_spaces", explode)
    with pytest.raises(RuntimeError, match="boom"):
        perturber.perturb("abc", "sequence_spaces", seed=3, category="brittlebench")
    assert random.getstate() == before
    assert not runtime.TIER_LOCK._is_owned()


def test_seed_reaches_the_engine_draws():
    outs = {
        perturber.perturb(
            "one two three four five", "sequence_spaces", {"prob": 0.5}, seed=s, category="brittlebench"
        )
        for s in range(6)
    }
    assert len(outs) > 1
    random.seed(5)
    expected = behaviours.sequence_spaces("one two", 0.5, 1, 3)
    assert (
        perturber.perturb(
            "one two", "sequence_spaces", {"prob": 0.5, "max_spaces": 3}, seed=5, category="brittlebench"
        )
        == expected
    )


def test_native_call_completes_while_a_tier_call_holds_the_lock(monkeypatch):
    entered, release = threading.Event(), threading.Event()
    real = behaviours.sequence_spaces

    def slow(*args):
        entered.set()
        release.wait(10)
        return real(*args)

    monkeypatch.setattr(behaviours, "sequence_spaces", slow)
    tier_result = []
    tier = threading.Thread(
        target=lambda: tier_result.append(
            perturber.perturb(
                "ab", "sequence_spaces", {"prob": 1.0, "max_spaces": 1}, category="brittlebench"
            )
        )
    )
    tier.start()
    try:
        assert entered.wait(10)
        assert runtime.TIER_LOCK.acquire(blocking=False) is False  # held by the tier thread
        native_result = []
        native = threading.Thread(
            target=lambda: native_result.append(perturber.perturb("one two", "quotes", {"n": 2}))
        )
        native.start()
        native.join(10)
        assert not native.is_alive() and native_result == ['"" one two ""']
        assert tier.is_alive()  # the tier call is still inside the lock
        # A second tier call waits for the first one.
        second = threading.Thread(
            target=perturber.perturb, args=("x", "quotes"), kwargs={"category": "brittlebench"}
        )
        second.start()
        second.join(0.2)
    finally:
        release.set()
        tier.join(10)
    assert tier_result == ["a b "]


@pytest.mark.parametrize(
    "name,params,field",
    [
        ("sequence_spaces", {"min_spaces": 5, "max_spaces": 2}, "min_spaces"),
        ("sequence_spaces", {"prob": 1.5}, "prob"),
        ("typos", {"mode": "count", "aug_word_p": 0.2}, "aug_word_p"),
        ("typos", {"typos_count": 3}, "typos_count"),
        ("typos", {"mode": "count", "typos_count": -1}, "typos_count"),
        ("typos", {"typo_type": "ocr"}, "typo_type"),
        ("quotes", {"char_count": 1001}, "char_count"),
        ("emotion_prompt", {"stimuli_code": "EP21"}, "stimuli_code"),
        ("drop_stop_words", {"stopword_list": "nltk-2019"}, "stopword_list"),
    ],
)
def test_invalid_params_are_validation_errors(name, params, field):
    with pytest.raises(InvalidParams) as err:
        perturber.perturb("Some text here.", name, params, category="brittlebench")
    assert err.value.code == "validation_error" and err.value.details["field"] == field


def test_emotion_prompt_without_a_table_is_tier_unavailable(monkeypatch):
    monkeypatch.delenv(runtime.EMOTION_ENV, raising=False)
    monkeypatch.setattr(runtime, "_engine_stimulus_file", lambda: None)
    with pytest.raises(ResourceUnavailable) as err:
        perturber.perturb("Hi", "emotion_prompt", category="brittlebench")
    assert (err.value.code, err.value.http_status, err.value.exit_code) == ("tier_unavailable", 503, 3)
    assert runtime.EMOTION_ENV in err.value.message
    assert perturber.describe("emotion_prompt", "brittlebench")["available"] is False


def test_emotion_table_with_another_digest_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "other.json"
    path.write_text('{"EP01": {"type": "suffix", "text": "Be sure."}}')
    monkeypatch.setenv(runtime.EMOTION_ENV, str(path))
    with pytest.raises(ResourceUnavailable) as err:
        perturber.perturb("Hi", "emotion_prompt", category="brittlebench")
    assert err.value.code == "tier_unavailable"
    assert runtime.EMOTION_SHA256 in err.value.message
    assert hashlib.sha256(path.read_bytes()).hexdigest() in err.value.message


def test_missing_extra_is_tier_unavailable_naming_the_extra():
    code = (
        "import sys; sys.modules['augly'] = None; import perturber\n"
        "from perturber.errors import ResourceUnavailable\n"
        "print([e['available'] for e in perturber.list_perturbations(category='brittlebench')])\n"
        "print(perturber.perturb('Hi', 'quotes', {'n': 1}))\n"
        "try:\n    perturber.perturb('Hi', 'quotes', category='brittlebench')\n"
        "except ResourceUnavailable as err:\n    print(err.code, err.http_status, err.details['extra'])\n"
        "    print(err.message)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[1] == '" Hi "'
    assert lines[2] == "tier_unavailable 503 brittlebench"
    assert "pip install 'perturber[brittlebench]'" in lines[3]


def test_catalog_lists_the_tier_as_available():
    listed = perturber.list_perturbations(category="brittlebench")
    assert [e["name"] for e in listed] == list(TEN)
    assert all(e["available"] for e in listed if e["name"] != "emotion_prompt")
    assert "available" not in perturber.describe("quotes")


# ---- transports: a sample of rows through the typed and generic routes, the CLI and Lambda ----


def sample_rows():
    out = []
    for stem in FILES:
        picked = [r for r in rows(stem) if r["input"]][::23][:3]
        out += [(stem, r) for r in picked]
    return out


def run_cli(args) -> tuple[int, str, str]:
    saved_out, saved_err = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stderr = io.StringIO()
    try:
        code = cli.main(args)
        sys.stdout.flush()
        return code, sys.stdout.buffer.getvalue().decode("utf-8"), sys.stderr.getvalue()
    finally:
        sys.stdout, sys.stderr = saved_out, saved_err


def test_sample_rows_over_every_transport(stimuli):
    from fastapi.testclient import TestClient

    from functions.api.events import LocalContext, http_api_event, response_body
    from functions.api.handler import handler as lambda_handler
    from perturber.service import Settings, create_app

    checked = 0
    with TestClient(create_app(Settings())) as client:
        for stem, row in sample_rows():
            name, params = mapped(stem, row)
            seed, expected = row["seed"], row["output"]
            typed = client.post(
                f"/perturb/brittlebench/{name}", json={"texts": [row["input"]], "seed": seed, **params}
            )
            assert typed.status_code == 200, typed.text
            assert typed.json()["results"][0]["text"] == expected
            generic = client.post(
                "/perturb",
                json={
                    "text": row["input"],
                    "name": name,
                    "seed": seed,
                    "category": "brittlebench",
                    "params": params,
                },
            )
            assert generic.json()["results"][0]["text"] == expected
            ev = http_api_event(
                "POST",
                f"/perturb/brittlebench/{name}",
                headers={"content-type": "application/json"},
                body=json.dumps({"texts": [row["input"]], "seed": seed, **params}).encode(),
            )
            response = lambda_handler(ev, LocalContext())
            assert response["statusCode"] == 200
            assert json.loads(response_body(response))["results"][0]["text"] == expected
            args = [name, "--text", row["input"], "--seed", str(seed), "--category", "brittlebench"]
            for key, value in params.items():
                args += [f"--{key}", str(value)]
            code, out, err = run_cli(args)
            assert (code, out) == (0, expected), err
            checked += 1
    assert checked >= 25


def test_unavailable_tier_over_http_and_cli(monkeypatch):
    from fastapi.testclient import TestClient

    from perturber.service import Settings, create_app

    monkeypatch.delenv(runtime.EMOTION_ENV, raising=False)
    monkeypatch.setattr(runtime, "_engine_stimulus_file", lambda: None)
    with TestClient(create_app(Settings())) as client:
        r = client.post("/perturb/brittlebench/emotion_prompt", json={"texts": ["Hi"]})
        assert r.status_code == 503 and r.json()["error"]["code"] == "tier_unavailable"
        r = client.get("/perturbations", params={"category": "brittlebench"})
        assert r.status_code == 200
    code, out, err = run_cli(["emotion_prompt", "--text", "Hi", "--category", "brittlebench"])
    assert (code, out) == (3, "") and "tier_unavailable" in err


def test_lambda_without_the_extra_answers_503(monkeypatch):
    """What the deployed function (built without the extra, see README) answers for the tier."""
    from functions.api.events import LocalContext, http_api_event, response_body
    from functions.api.handler import handler as lambda_handler

    for module in [m for m in sys.modules if m == "augly" or m.startswith("augly.")] + ["augly"]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setattr(runtime, "_DEPS", None)
    ev = http_api_event(
        "POST",
        "/perturb/brittlebench/typos",
        headers={"content-type": "application/json"},
        body=json.dumps({"texts": ["Hello world"]}).encode(),
    )
    response = lambda_handler(ev, LocalContext())
    error = json.loads(response_body(response))["error"]
    assert response["statusCode"] == 503
    assert error["code"] == "tier_unavailable" and error["extra"] == "brittlebench"
    ev = http_api_event(
        "POST",
        "/perturb/native/typos",
        headers={"content-type": "application/json"},
        body=json.dumps({"texts": ["Hello world"]}).encode(),
    )
    assert lambda_handler(ev, LocalContext())["statusCode"] == 200
