"""docs/perturbations.md: generated from the registry, never stale, the same in every environment,
examples computed by the library."""

import dataclasses
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import perturber
from perturber import cli, reference, registry

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "perturbations.md"


@pytest.fixture(scope="module")
def generated():
    return reference.generate()


def test_committed_reference_is_what_the_generator_produces(generated):
    assert REFERENCE.read_text(encoding="utf-8") == generated, (
        "docs/perturbations.md is stale: run `perturber docs --out docs/perturbations.md`"
    )


# Run in a fresh interpreter: no NLTK, no brittlebench extra, no stimulus table, a model allow-list.
BARE = """
import sys
for name in ("nltk", "augly", "nlpaug", "wordfreq", "openai"):
    sys.modules[name] = None
from perturber.cli import main
sys.exit(main(["docs", "--check", sys.argv[1]]))
"""


def test_the_reference_is_the_same_whatever_is_installed_or_configured(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PERTURBER_", "NLTK_DATA"))}
    env |= {
        "NLTK_DATA": str(tmp_path),
        "PERTURBER_LLM_MODELS": "model-a,model-b",
        "PERTURBER_LLM_DEFAULT_MODEL": "model-a",
        "PERTURBER_LLM_BASE_URL": "http://127.0.0.1:9/v1",
    }
    done = subprocess.run(
        [sys.executable, "-c", BARE, str(REFERENCE)], env=env, capture_output=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr.decode()


def test_entries_needing_more_than_the_base_install_have_no_computed_example():
    needy = [s for s in registry.entries() if s.requires]
    assert {s.key for s in needy} >= {
        "native/synonym",
        "brittlebench/emotion_prompt",
        "native/lexical_paraphrasing",
    }
    for spec in needy:
        section = reference.entry_section(spec)
        assert "No worked example" in section and "```" not in section, spec.key
        assert all(registry.REQUIREMENTS[r] in section for r in spec.requires), spec.key
    assert registry.get("emotion_prompt", "brittlebench").requires == (
        "brittlebench_extra",
        "emotion_stimuli",
    )
    assert perturber.describe("synonym")["requires"] == ["nltk_data"]
    assert perturber.describe("quotes")["requires"] == []


def test_no_stimulus_sentence_is_in_the_repository():
    """The engine's emotion stimulus table is CC BY-NC: none of its sentences may be committed."""
    from conftest import shared_file

    rows = shared_file("vectors/brittlebench/emotion_prompt.jsonl").read_text(encoding="utf-8").splitlines()
    sentences = {
        line
        for row in map(json.loads, rows)
        if row["input"] == "Hello"
        for line in row["output"].split("\n")
        if line != "Hello"
    }
    assert len(sentences) > 10
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    found = []
    for name in tracked:
        try:
            body = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        found += [(name, s) for s in sentences if s in body]
    assert found == []


def test_every_entry_has_a_section_in_catalog_order(generated):
    found = []  # (category, name) in document order
    for part in re.split(r"^## (?=\w+ / \w+$)", generated, flags=re.M)[1:]:
        category = part.split(" / ", 1)[0]
        found += [(category, n) for n in re.findall(r"^### `(\w+)`$", part, re.M)]
    specs = registry.entries()
    assert sorted(found) == sorted((s.category, s.name) for s in specs) and len(found) == len(specs)
    for category in registry.CATEGORIES:
        families = [registry.get(n, c).family for c, n in found if c == category]
        assert families == sorted(families, key=registry.FAMILIES.index), category


def test_examples_are_computed_by_the_library():
    section = reference.entry_section(registry.get("zero_width"))
    expected = perturber.perturb(reference.QUESTION, "zero_width", None, reference.SEED)
    assert "\u200b" in expected and reference.visible(expected) in section
    assert "\u200b" not in section and "⟨ZWSP⟩" in section
    trail = reference.entry_section(registry.get("trailing_newline"))
    assert reference.visible(reference.QUESTION + "\n") in trail and "⏎\n\n```" in trail


def test_schema_entries_use_the_json_input_and_list_their_reasons():
    section = reference.entry_section(registry.get("reorder_properties"))
    assert "*JSON Schema input" in section and "*question input" not in section
    assert registry.get("reorder_properties").reason_codes() == [
        "empty_input",
        "not_json_schema",
        "zero_intensity",
        "no_candidates",
        "size_limit",
        "no_change",
    ]
    assert registry.get("baseline").reason_codes() == ["control"]
    # no intensity parameter: zero_intensity cannot happen even if a shared helper knows the code
    assert "zero_intensity" not in registry.get("expand_type_shorthand").reason_codes()
    assert "already_passed" in registry.get("deadline_passed").reason_codes()
    assert "structured_input" in registry.get("quote_style").reason_codes()


def test_structure_entries_show_the_markdown_example():
    section = reference.entry_section(registry.get("reorder_bullets"))
    assert "*Markdown input" in section and "not applied" not in section


def test_one_marker_table_for_the_reference_and_the_playground():
    from fastapi.testclient import TestClient

    from perturber.service import create_app
    from perturber.visible import MARKERS, script

    served = TestClient(create_app()).get("/static/markers.js")
    assert served.status_code == 200 and served.text == script()
    assert json.loads(served.text.split("const INVISIBLE = ", 1)[1].rstrip(";\n")) == MARKERS
    js = (ROOT / "perturber" / "service" / "static" / "playground.js").read_text(encoding="utf-8")
    assert "const INVISIBLE" not in js and "ZWSP" not in js  # the playground has no copy of it
    assert reference.visible("a \n\u202eb\U000e0041\U000e0042\u2028") == "a·⏎\n⟨RLO⟩b⟨TAG AB⟩⟨U+2028⟩"


def test_model_backed_and_other_categories_are_generic():
    base = registry.get("quotes")
    fake = dataclasses.replace(
        base,
        name="rewrite",
        category="brittlebench",
        family="paraphrasing",
        model_backed=True,
        seed_sensitive=True,
        requires=("model_endpoint",),
    )
    section = reference.entry_section(fake)
    assert "No worked example" in section and "```" not in section
    assert "`model_returned_input`" in section and "model-backed" in section
    ordered = reference._ordered([fake, base, dataclasses.replace(base, family="zzz_new")])
    assert [(s.category, s.family) for s in ordered] == [
        ("native", "padding"),
        ("native", "zzz_new"),
        ("brittlebench", "paraphrasing"),
    ]


def test_fences_outgrow_backticks_in_the_text():
    assert reference._fence("a ```` b").startswith("`````text\n")


def test_cli_check_and_module_entry_point(tmp_path, generated):
    stale = tmp_path / "ref.md"
    stale.write_text("old\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "perturber", "docs", "--check", str(stale)]
    out = subprocess.run(cmd, capture_output=True)
    assert out.returncode == 1 and b"stale" in out.stderr
    assert cli.main(["docs", "--out", str(stale)]) == 0
    assert cli.main(["docs", "--out", str(tmp_path / "missing" / "ref.md")]) == 2
    assert stale.read_text(encoding="utf-8") == generated
    assert cli.main(["docs", "--check", str(stale)]) == 0
    assert cli.main(["docs", "--check", str(tmp_path / "absent.md")]) == 2


def test_python_m_perturber_is_the_perturber_command():
    for args in (
        ["--version"],
        ["quotes", "--text", "Hi", "--n", "2"],
        ["list", "--family", "control"],
        ["nope"],
    ):
        module = subprocess.run([sys.executable, "-m", "perturber", *args], capture_output=True, cwd=ROOT)
        script = subprocess.run(
            [str(pathlib.Path(sys.executable).with_name("perturber")), *args], capture_output=True
        )
        assert (module.returncode, module.stdout, module.stderr) == (
            script.returncode,
            script.stdout,
            script.stderr,
        )
    assert module.returncode == 2 and b"unknown_perturbation" in module.stderr


def test_readme_links_into_the_reference_not_outside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/perturbations.md" in readme
    assert "../shared" not in readme
