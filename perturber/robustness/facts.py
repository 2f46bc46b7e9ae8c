"""What the harness knows about individual catalog entries, in one table behind one function.

These are facts about an entry that the catalog does not declare (yet): where a failure it causes is
best fixed, how a directional entry states its direction, how its severity level is read, which
number gate applies to it and how a refusal entry's rewrite is checked. Every other harness module
asks :func:`entry_facts`; no other module names an entry.

>>> entry_facts("zero_width").fix_at
'input_normalisation'
>>> entry_facts("scale_quantity").direction({"exponent": -2})
'down'
>>> entry_facts("context_load").level_rule, entry_facts("syntactic_paraphrasing", "paraphrasing").numbers
('ratio', 'multiset')
>>> entry_facts("no_such_entry")
EntryFacts(fix_at=None, direction_param=None, level_rule=None, numbers='position', gate=None)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

INPUT_NORMALISATION = "input_normalisation"
PROMPT = "prompt"


@dataclass(frozen=True)
class EntryFacts:
    """``fix_at``: where a failure is best fixed (``input_normalisation``, ``prompt`` or None);
    ``direction_param``: a directional entry's parameter whose sign says up (> 0) or down;
    ``level_rule``: how its level is read (``ratio``: achieved expansion ratio; ``param:NAME``:
    the parameter's value; ``choice:NAME``: the index of the choice; None: magnitude bands);
    ``numbers``: the number gate of an invariant entry (``position``: every number survives where
    it stood; ``multiset``: text may move, every number keeps its value); ``gate``: a rule of its
    own replacing the number gates (``boundary``: a knowledge-boundary rewrite)."""

    fix_at: str | None = None
    direction_param: str | None = None
    level_rule: str | None = None
    numbers: str = "position"
    gate: str | None = None

    def direction(self, params: dict) -> str | None:
        """``up``/``down`` for a directional entry with a stated direction, else None."""
        if self.direction_param is None:
            return None
        value = (params or {}).get(self.direction_param, 1)
        return "up" if value > 0 else "down"


_NORMALISE = EntryFacts(fix_at=INPUT_NORMALISATION)
_PROMPT = EntryFacts(fix_at=PROMPT)
_PROMPT_MOVES_TEXT = EntryFacts(fix_at=PROMPT, numbers="multiset")

_FACTS: dict[str, EntryFacts] = {
    **dict.fromkeys(
        (
            "extra_whitespace",
            "tabs_for_spaces",
            "line_wrap",
            "spaces",
            "new_lines",
            "trailing_newline",
            "sequence_spaces",
            "punctuation_spaces",
            "quotes",
            "zero_width",
            "bidi_override",
            "invisible_instructions",
            "unicode_tag_smuggle",
            "homoglyph",
            "full_width",
            "diacritics_add",
            "diacritics_strip",
            "smart_to_ascii",
            "quote_style",
            "upper_case",
            "lower_case",
            "title_case",
            "random_case",
            "leetspeak",
            "ocr_noise",
        ),
        _NORMALISE,
    ),
    "context_load": EntryFacts(fix_at=INPUT_NORMALISATION, level_rule="ratio"),
    "key_sentence_to_middle": EntryFacts(fix_at=INPUT_NORMALISATION, numbers="multiset"),
    **dict.fromkeys(("negation_paraphrase", "reasoning_restructure", "question_to_end"), _PROMPT_MOVES_TEXT),
    "reorder_bullets": _PROMPT_MOVES_TEXT,
    "syntactic_paraphrasing": _PROMPT_MOVES_TEXT,
    **dict.fromkeys(("insert_negation", "drop_stop_words"), _PROMPT),
    "conflicting_instruction": EntryFacts(fix_at=PROMPT, level_rule="param:tier"),
    "scale_quantity": EntryFacts(direction_param="exponent"),
    "knowledge_boundary": EntryFacts(level_rule="choice:boundary", gate="boundary"),
}
# Families whose entries rewrite freely (sentences may move): numbers are checked as a multiset.
_MOVING_FAMILIES = ("paraphrasing",)


def entry_facts(name: str, family: str | None = None) -> EntryFacts:
    """The harness's facts about entry ``name`` (of catalog ``family``, when known)."""
    facts = _FACTS.get(name, EntryFacts())
    if family in _MOVING_FAMILIES and facts.numbers == "position":
        facts = replace(facts, numbers="multiset")
    return facts
