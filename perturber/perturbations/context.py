"""context: deterministic entries that add irrelevant content around the task (docs/spec/catalog.md §11).

``irrelevant_context`` (§11.3, seeded, bank B1) inserts distractor sentences before sentences of
plain paragraphs; ``context_load`` (§11.4, bank B2) pads the text with neutral filler up to a
length ratio.  The model-backed entries of §11.1-11.2 (``emotion_prompt``, ``elaborate_then_ask``)
compose: the model writes the piece and the prepend rule places it (:mod:`perturber.model_tier`).
The original text is always kept byte-identical around the inserted material.

>>> from perturber.rng import Draws
>>> context_load("Tom has 4 pens. How many pens does Tom have?", None, ratio=2.0,
...              position="before").text
'This passage contains general background material.\\n\\nTom has 4 pens. How many pens does Tom have?'
"""

from __future__ import annotations

from .. import text as tm
from ..data import filler_run, load_table
from ..memo import loaded_once
from ..model_tier import model_entry
from ..registry import Outcome, Param, choice, count, perturbation, unchanged
from ..rng import Draws

__all__ = ["irrelevant_context", "context_load"]

_FAMILY = "context"

# 11.1 / 11.2: model-backed, compose mode (prepend rule)
model_entry(
    "emotion_prompt",
    family=_FAMILY,
    mode="compose",
    first_person=True,
    description="Prepend one short first-person sentence of emotional urgency (model-written).",
    intent="Task: write one short first-person sentence that conveys emotional urgency or personal "
    "importance about getting this right, without restating, answering or hinting at the task.",
)

model_entry(
    "elaborate_then_ask",
    family=_FAMILY,
    mode="compose",
    in_scope=False,
    description="Prepend one or two sentences of accurate, relevant background (model-written).",
    intent="Task: write one or two sentences of accurate, relevant background about the subject "
    "of the text that neither state nor hint at the answer.",
)


def _bank(name: str) -> tuple:
    return load_table(name)["sentences"]


# --------------------------------------------------------------------------------------------
# 11.3 irrelevant_context
# --------------------------------------------------------------------------------------------


@perturbation(
    "irrelevant_context",
    family=_FAMILY,
    graded_family="Context Interference",
    in_scope=False,
    seed_sensitive=True,
    params=[count(1, 10, "number of distractor sentences (bank B1)")],
    description="Insert topic-neutral distractor sentences before sentences of the text.",
    version=2,
)
def irrelevant_context(text: str, rng: Draws, *, count: int) -> Outcome:
    """Each distractor goes directly before a randomly drawn sentence of a plain paragraph;
    with no such sentence, all of them are prepended as a separate paragraph.

    >>> irrelevant_context("- a\\n- b", Draws(0), count=1).text.endswith(".\\n\\n- a\\n- b")
    True
    """
    bank = _bank("b01_distractors")
    slots = [s.start for s in tm.sentences(text)]
    ids = rng.sample(range(len(bank)), count)
    at = [rng.randrange(len(slots) or 1) for _ in ids]
    details = {"inserted": ids}
    if not slots:
        nl = tm.newline_style(text)
        out = tm.prepend_material(text, " ".join(bank[i] for i in ids), sep=nl + nl)
        return Outcome(out, count, None, details)
    per_slot: dict[int, list[str]] = {}
    for i, slot in zip(ids, at):
        per_slot.setdefault(slot, []).append(bank[i] + " ")
    edits = [(slots[k], slots[k], "".join(per_slot[k])) for k in sorted(per_slot)]
    return Outcome(tm.splice(text, edits), count, None, details)


# --------------------------------------------------------------------------------------------
# 11.4 context_load
# --------------------------------------------------------------------------------------------


@loaded_once
def _filler() -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Bank B2, each sentence's length, the running total of those lengths (``cum[k]`` for the
    first k sentences) and each sentence's word-token count."""
    bank = _bank("b02_filler")
    lengths = tuple(len(s) for s in bank)
    cum = [0]
    for n in lengths:
        cum.append(cum[-1] + n)
    return bank, lengths, tuple(cum), tuple(len(tm.word_tokens(s)) for s in bank)


@perturbation(
    "context_load",
    family=_FAMILY,
    graded_family="Context Load",
    in_scope=False,
    intensity="ratio",
    params=[
        Param("ratio", float, 2.0, "target ratio of output to input length", 1.0, 8.0, step=0.01),
        choice(
            "position",
            "before",
            ("before", "after", "split"),
            "where the filler goes: before the text, after it, or both",
        ),
    ],
    description="Pad the text with neutral filler sentences up to a length ratio.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    level_rule="ratio",
)
def context_load(text: str, rng: Draws, *, ratio: float, position: str) -> Outcome:
    """Filler from bank B2, cyclically from index 0, until the output reaches the target.

    >>> r = context_load("Tom has 4 pens.\\nAnswer:", None, ratio=1.5, position="after")
    >>> r.text, r.details["achieved_ratio"]
    ('Tom has 4 pens.\\n\\nThis passage contains general background material.\\nAnswer:', 3.2609)
    """
    words = len(tm.word_tokens(text))
    if not words:
        return unchanged(text, "no_candidates")
    bank, lengths, cum, counts = _filler()
    size = len(bank)
    n = len(text)
    target = (n * round(ratio * 100) + 99) // 100
    nl = tm.newline_style(text)
    sep = len(nl) * 2
    cycle = cum[size]

    def total(k: int) -> int:
        """Total length of the first k filler sentences (cyclic), without the spaces."""
        q, r = divmod(k, size)
        return q * cycle + cum[r]

    m = 0
    filled = 0  # total(m), maintained incrementally
    out_len = n
    while out_len < target:
        filled += lengths[m % size]
        m += 1
        if position == "split":
            head = (m + 1) // 2
            first = total(head)
            out_len = n + first + (head - 1) + sep
            if m > head:
                out_len += (filled - first) + (m - head - 1) + sep
        else:
            out_len = n + filled + (m - 1) + sep
    sentences = filler_run(m)
    if position == "before":
        out = tm.prepend_material(text, " ".join(sentences), sep=nl + nl)
    elif position == "after":
        out = tm.append_material(text, " ".join(sentences), sep=nl + nl)
    else:
        head = (m + 1) // 2
        out = text
        if m > head:
            out = tm.append_material(out, " ".join(sentences[head:]), sep=nl + nl)
        out = tm.prepend_material(out, " ".join(sentences[:head]), sep=nl + nl)
    q, r = divmod(m, size)
    added = q * sum(counts) + sum(counts[:r])
    details = {"achieved_ratio": round(len(out) / n, 4), "word_ratio": round((words + added) / words, 4)}
    return Outcome(out, m, None, details)
