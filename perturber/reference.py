"""The perturbation reference (``docs/perturbations.md``), generated from the registry.

Every entry gets its declaration (family, scope, expectation, kind, seed-sensitivity, version,
parameters), a paragraph taken from its function's docstring, the reason codes it can report,
and worked examples computed by the library at generation time on fixed inputs. An entry that
needs something beyond the base install (``requires``: NLTK data, an optional tier, a data file
the package does not ship, a model) is documented with that requirement and no computed example,
so the reference is the same bytes in every environment and configuration. Invisible characters
are shown with the markers of :mod:`perturber.visible` (the playground's too)::

    perturber docs --out docs/perturbations.md     # write it
    perturber docs --check docs/perturbations.md   # exit 1 if the file is stale

>>> visible("a\\u200bb\\tc \\U000E0048\\U000E0069")
'a⟨ZWSP⟩b⟨TAB⟩c ⟨TAG Hi⟩'
>>> print(entry_section(registry.get("quotes")).splitlines()[0])
### `quotes`
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable

from . import core, registry
from .errors import PerturberError
from .visible import marker

# The fixed inputs of the worked examples (changing them changes the whole reference).
SEED = 7
QUESTION = (
    'On March 3, 2026, Dr. Alice Brown can\'t find the "quick" 12.5 km route to the '
    "theater that she emailed to bob@example.com - it's on https://example.com/map :) "
    "Which route is shortest? Don't guess."
)
MARKDOWN = (
    "Which item is still missing?\n\n# Trip notes\n\n"
    "We leave on Friday at 9 a.m. and drive 120 miles.\n\n"
    "- pack the tent\n- buy 2 litres of water\n- check the tyres\n\n"
    "Steps:\n1. Load the car\n2. Lock the door\n3. Drive **slowly**"
)
JSON_SCHEMA = (
    '{"type": "object", "$defs": {"unit": {"enum": ["km", "mi", "m"]}}, '
    '"properties": {"name": {"type": "string"}, '
    '"age": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}, '
    '"tags": {"type": ["array", "null"]}, "unit": {"$ref": "#/$defs/unit"}}, '
    '"required": ["name", "age"]}'
)
EVERYDAY = (
    "I do not think the caf\u00e9\u2019s \u201cna\u00efve\u201d logo will change \U0001f600 "
    "\u2014 it is 1000000 metres from the centre :smile: ;) Is the logo blue?"
)
INPUTS = {"question": QUESTION, "Markdown": MARKDOWN, "JSON Schema": JSON_SCHEMA, "everyday text": EVERYDAY}
# Families whose behaviour depends on document structure: they also get the Markdown example.
STRUCTURED = ("formatting", "structure")


def visible(text: str) -> str:
    """``text`` with invisible characters as ``⟨NAME⟩`` markers (``perturber.visible``; a run of tag
    characters is one ``⟨TAG text⟩``), ``⏎`` at each line end and ``·`` for a space there."""
    out: list[str] = []
    for ch in text:
        mark = marker(ch)
        if mark is None:
            out.append(ch)
        elif mark.startswith("TAG ") and out and out[-1].startswith("⟨TAG "):
            out[-1] = out[-1][:-1] + mark[4:] + "⟩"  # a run of tag characters is one marker
        else:
            out.append(f"⟨{mark}⟩")
    # Spaces at a line end and an empty last line would vanish in the rendered page.
    lines = "".join(out).split("\n")
    kept = [line[: len(line.rstrip(" "))] + "·" * (len(line) - len(line.rstrip(" "))) for line in lines]
    return "⏎\n".join(kept)


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    tick = "`" * max(3, longest + 1)
    return f"{tick}text\n{text}\n{tick}"


def _prose(docstring: str | None) -> str:
    """The docstring's paragraphs before its first doctest, with RST literals as Markdown."""
    text = inspect.cleandoc(docstring or "")
    kept = []
    for line in text.splitlines():
        if line.lstrip().startswith(">>>"):
            break
        kept.append(line)
    paragraphs = [" ".join(p.split()) for p in "\n".join(kept).split("\n\n") if p.strip()]
    return "\n\n".join(re.sub(r"``(.+?)``", r"`\1`", p) for p in paragraphs)


def _param_row(p: registry.Param) -> str:
    return f"| `{p.name}` | {registry.TYPE_NAMES[p.type]} | {p.documented_range()} | `{p.default!r}` | {p.description} |"


def _try(spec: registry.Perturbation, label: str) -> tuple:
    try:
        return (label, INPUTS[label], core.apply(INPUTS[label], spec.name, None, SEED, spec.category), None)
    except PerturberError as err:
        return (label, INPUTS[label], None, f"{err.code}: {err.message}")


def examples(spec: registry.Perturbation) -> list[tuple[str, str, core.Result | None, str | None]]:
    """``(label, input, result, error)`` of the worked examples of ``spec``: the applied ones of
    its own inputs (a question, or a JSON Schema for the schema family, plus a Markdown document
    for structure-sensitive families), else the first other input where it applies, else the
    unapplied first one. None for an entry that needs more than the base install (``requires``)."""
    if spec.requires:
        return []
    labels = ["JSON Schema"] if spec.family == "schema" else ["question"]
    if spec.family in STRUCTURED:
        labels.append("Markdown")
    tried = [_try(spec, label) for label in labels]
    shown = [ex for ex in tried if ex[2] is not None and ex[2].applied]
    if shown:
        return shown
    for label in INPUTS:
        if label not in labels:
            ex = _try(spec, label)
            if ex[2] is not None and ex[2].applied:
                return [ex]
    return tried[:1]


def _example_block(label: str, text: str, result: core.Result | None, error: str | None) -> str:
    head = f"*{label} input, default parameters, seed {SEED}*"
    if error is not None:
        return f"{head}: not computed ({error})."
    assert result is not None  # no error: there is a result
    if result.applied:
        mag = "n/a" if result.magnitude is None else f"{result.magnitude:.4f}"
        status = f"applied, {result.edits} edit(s), magnitude {mag}"
    else:
        status = f"not applied: `{result.reason}`"
    return f"{head} — {status}\n\n{_fence(visible(text))}\n\n→\n\n{_fence(visible(result.text))}"


def entry_section(spec: registry.Perturbation) -> str:
    """The Markdown section of one entry."""
    scope = "in scope" if spec.in_scope else "**out of scope** (changes content or task)"
    seeded = "seed-sensitive" if spec.seed_sensitive else "not seed-sensitive (same output for every seed)"
    lines = [
        f"### `{spec.name}`",
        "",
        spec.description,
        "",
        f"`{spec.key}` · family `{spec.family}` · {scope} · expectation `{spec.expectation}` · "
        f"{spec.kind} · {seeded} · version {spec.version}"
        + (f" · intensity `{spec.intensity}`" if spec.intensity else ""),
        "",
    ]
    prose = _prose(spec.function.__doc__)
    if prose:
        lines += [prose, ""]
    if spec.params:
        lines += ["| parameter | type | allowed | default | meaning |", "|---|---|---|---|---|"]
        lines += [_param_row(p) for p in spec.params] + [""]
    else:
        lines += ["No parameters.", ""]
    codes = spec.reason_codes()
    lines += ["Not applied when: " + "; ".join(f"`{c}` ({registry.REASONS[c]})" for c in codes) + ".", ""]
    if spec.requires:
        needs = "; ".join(registry.REQUIREMENTS[r] for r in spec.requires)
        lines += [
            f"Needs: {needs}.",
            "",
            "No worked example: what it needs is not part of the base install, so nothing is "
            "computed when this reference is generated (it reads the same in every environment).",
            "",
        ]
    for ex in examples(spec):
        lines += [_example_block(*ex), ""]
    return "\n".join(lines)


def _ordered(specs: Iterable[registry.Perturbation]) -> list[registry.Perturbation]:
    """Catalog order: categories as declared, families in catalog order, then declaration order."""
    specs = list(specs)
    cats = list(registry.CATEGORIES) + sorted({s.category for s in specs} - set(registry.CATEGORIES))
    fams = list(registry.FAMILIES) + sorted({s.family for s in specs} - set(registry.FAMILIES))
    return sorted(specs, key=lambda s: (cats.index(s.category), fams.index(s.family)))


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 _-]", "", title.lower()).replace(" ", "-")


def generate() -> str:
    """The whole reference as Markdown (deterministic: same registry, same bytes)."""
    specs = _ordered(registry.entries())
    groups: dict[tuple[str, str], list] = {}
    for s in specs:
        groups.setdefault((s.category, s.family), []).append(s)
    out = [
        "# Perturbation reference",
        "",
        "<!-- Generated by `perturber docs --out docs/perturbations.md` from the "
        "registry. Do not edit by hand: tests/test_docs.py fails when this file is stale. -->",
        "",
        f"{len(specs)} entries, catalog digest `{registry.catalog_digest()}`. For each entry: "
        "what it does, its declaration, its parameters, the reason codes it reports when it "
        "leaves the text unchanged, and worked examples **computed by the library** when this "
        f"file was generated (default parameters, seed {SEED}); an entry that needs more than the "
        "base install says what it needs and has no computed example. Invisible characters are shown "
        "with the playground's names: `⟨ZWSP⟩`, `⟨NBSP⟩`, `⟨TAB⟩`, `⟨RLO⟩`, ...; a run of tag "
        "characters is one `⟨TAG text⟩`; "
        "`⏎` ends a line and `·` is a space at the end of a line.",
        "",
        "Fields: *in scope* means a natural, meaning-preserving surface change a real user could "
        "make (out-of-scope entries add or remove content, inject instructions or change the "
        "task; they stay callable). *Expectation* is what a correct model does: `invariant` "
        "(same answer), `directional` (the answer should move as the entry says) or `refusal`. "
        "*Seed-sensitive* entries draw from a generator seeded with `seed`; the others give the "
        "same output for every seed. *Version* is bumped whenever an entry's output changes "
        "(see CHANGELOG.md).",
        "",
        "## Contents",
        "",
    ]
    for (category, family), members in groups.items():
        title = f"{category} / {family}"
        names = ", ".join(f"[`{s.name}`](#{_anchor(s.name)})" for s in members)
        out.append(f"* [{title}](#{_anchor(title)}): {names}")
    out.append("")
    for (category, family), members in groups.items():
        out += [f"## {category} / {family}", ""]
        out += [entry_section(s) for s in members]
    return "\n".join(out).rstrip("\n") + "\n"
