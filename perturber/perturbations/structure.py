"""structure: edits of the prompt's layout that keep every word of the task (docs/spec/catalog.md §15).

Six entries: ``reorder_bullets`` (seeded), ``question_to_end``, ``markdown_structure``,
``irrelevant_preamble`` and ``irrelevant_trailer`` (seeded, banks B3/B4), and
``key_sentence_to_middle`` (bank B2).  Lines, units, sentences, the answer cue and the
prepend/append rules all come from the shared text model (§1.9, ``perturber.text``).  Output is
assembled from slices of the original plus the inserted material (G1).

>>> from perturber.rng import Draws
>>> question_to_end("What is the total cost? Apples cost $2 each.", Draws(0)).text
'Apples cost $2 each. What is the total cost?'
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .. import text as tm
from ..data import filler_run, load_table
from ..registry import Outcome, Param, choice, count, perturbation, rate, unchanged
from ..rng import Draws, permutation, select

__all__ = [
    "reorder_bullets",
    "question_to_end",
    "markdown_structure",
    "irrelevant_preamble",
    "irrelevant_trailer",
    "key_sentence_to_middle",
]

_FAMILY = "structure"


def _bank(name: str) -> tuple:
    return load_table(name)["sentences"]


# --------------------------------------------------------------------------------------------
# 15.1 reorder_bullets
# --------------------------------------------------------------------------------------------

# Cheap pre-check: some line starts with a bullet marker followed by a space or a tab.
_BULLET_HINT = re.compile(r"(?:^|[\r\n])[ \t]*[\-*+•][ \t]")
# The prefix of a ``bullet`` line: indentation, marker, and the whitespace after the marker.
_BULLET_PREFIX = re.compile(r"([ \t]*)([\-*+•])[ \t][^\S\r\n]*")
_INDENT = re.compile(r"[ \t]*")


def _width(indent: str) -> int:
    """Column width of an indentation of spaces and tabs (tab stops every 4 columns)."""
    if "\t" not in indent:
        return len(indent)
    w = 0
    for c in indent:
        w = (w // 4 + 1) * 4 if c == "\t" else w + 1
    return w


def _unclosed_fence(text: str, s: int, e: int) -> bool:
    """True when the protected span ``(s, e)`` is a fenced block without its closing line
    (it runs to the end of the text, so moving it would swallow what follows)."""
    run = tm.fence_opening(text, s, e)
    if run is None or (s > 0 and text[s - 1] not in "\r\n"):
        return False
    last = max(text.rfind("\n", s, e), text.rfind("\r", s, e)) + 1
    return last <= s or not tm.closes_fence(text, last, e, run)


def _bullet_lists(text: str) -> list[list[tuple[int, int, int]]]:
    """Eligible lists in document order; each a list of items ``(line start, body start,
    body end)``.  An item is its marker line plus the following lines that are blank or
    indented deeper than the marker, without trailing blank lines (an answer-cue line always
    ends it).  Lists whose item boundaries fall inside a protected span (a fenced block that
    starts inside an item and ends outside it), or whose last item holds an unclosed fence,
    are not eligible: moving them would change what the code block contains."""
    ls = tm.lines(text)
    n = len(ls)
    prefix: dict[int, tuple[str, str, int]] = {}
    for i, ln in enumerate(ls):
        if ln.cls == "bullet":
            m = _BULLET_PREFIX.match(text, ln.start, ln.end)
            if m is not None:  # the class guarantees a match
                prefix[i] = (m.group(1), m.group(2), m.end())
    if len(prefix) < 2:
        return []
    # Item ends: for each bullet line, the last non-blank line before the first later non-blank
    # line that is not indented deeper (or is the answer cue): a monotonic stack, O(lines).
    last_line: dict[int, int] = {}
    next_nonblank = [n] * (n + 1)
    stack: list[tuple[int, int]] = []  # (width, bullet line index), widths strictly increasing
    prev = -1
    for j in range(n - 1, -1, -1):
        next_nonblank[j] = j if ls[j].cls != "blank" else next_nonblank[j + 1]
    for j, ln in enumerate(ls):
        if ln.cls == "blank":
            continue
        if ln.cls == "cue":
            w = -1
        elif j in prefix:
            w = _width(prefix[j][0])
        else:
            indent = _INDENT.match(text, ln.start, ln.end)  # always matches (possibly empty)
            w = _width(indent.group() if indent is not None else "")
        while stack and w <= stack[-1][0]:
            last_line[stack.pop()[1]] = prev
        if j in prefix:
            stack.append((w, j))
        prev = j
    while stack:
        last_line[stack.pop()[1]] = prev
    spans = tm.Spans(tm.protected_spans(text))
    # An unclosed fence (only the last span can be one) may not move out of the last slot.
    tail = spans.spans[-1] if spans else None
    if tail is not None and not (tail[1] == len(text) and _unclosed_fence(text, *tail)):
        tail = None
    out = []
    seen: set[int] = set()
    for i in sorted(prefix):
        if i in seen:
            continue
        key = prefix[i][:2]
        chain = [i]
        cur = i
        while True:
            k = next_nonblank[last_line[cur] + 1]
            if k < n and k in prefix and prefix[k][:2] == key:
                chain.append(k)
                seen.add(k)
                cur = k
            else:
                break
        if len(chain) < 2:
            continue
        items = [(ls[k].start, prefix[k][2], ls[last_line[k]].end) for k in chain]
        if spans and any(spans.overlaps(p, p) for item in items for p in item):
            continue
        if tail is not None and items[-1][1] <= tail[0] < items[-1][2]:
            continue
        out.append(items)
    return out


def _render_lists(text: str, chosen: list, perms: list) -> str:
    """Assemble the output: each chosen list's bodies permuted, innermost lists first (a nested
    list is reordered inside its parent's body, which then moves as a whole).  Iterative, so
    deep nesting cannot exhaust the recursion limit."""
    starts = [items[0][0] for items in chosen]
    ends = [items[-1][2] for items in chosen]
    total = len(chosen)
    # next_sibling[k]: the first chosen list after k that is not nested inside k.
    next_sibling = [total] * total
    open_: list[int] = []
    for k in range(total):
        while open_ and ends[open_[-1]] <= starts[k]:
            next_sibling[open_.pop()] = k
        open_.append(k)
    parts: list[str] = []
    tasks: list[tuple] = [("range", 0, len(text))]
    while tasks:
        task = tasks.pop()
        kind = task[0]
        if kind == "copy":
            if task[1] < task[2]:
                parts.append(text[task[1] : task[2]])
        elif kind == "range":
            a, b = task[1], task[2]
            seq: list[tuple] = []
            pos = a
            k = bisect_left(starts, a)
            while k < total and starts[k] < b:
                seq.append(("copy", pos, starts[k]))
                seq.append(("list", k))
                pos = ends[k]
                k = next_sibling[k]
            seq.append(("copy", pos, b))
            tasks.extend(reversed(seq))
        else:
            items = chosen[task[1]]
            perm = perms[task[1]]
            seq = []
            last = len(items) - 1
            for i, (line_start, body_start, body_end) in enumerate(items):
                src = items[perm[i]]
                seq.append(("copy", line_start, body_start))
                seq.append(("range", src[1], src[2]))
                if i < last:
                    seq.append(("copy", body_end, items[i + 1][0]))
            tasks.extend(reversed(seq))
    return "".join(parts)


@perturbation(
    "reorder_bullets",
    family=_FAMILY,
    seed_sensitive=True,
    params=[rate(1.0, "fraction of eligible bullet lists to reorder")],
    description="Reorder the items of bullet lists (never numbered lists or options).",
    reasons=("no_candidates",),
    fix_at="prompt",
    moves_text=True,
)
def reorder_bullets(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Permute the items of a fraction of the bullet lists; markers, indentation and
    separators stay in place, item bodies (with their sub-items) move.

    >>> reorder_bullets("Facts:\\n- A\\n- B\\nWhich?", Draws(0), rate=1.0).text
    'Facts:\\n- B\\n- A\\nWhich?'
    """
    if _BULLET_HINT.search(text) is None:
        return unchanged(text, "no_candidates")
    lists = _bullet_lists(text)
    if not lists:
        return unchanged(text, "no_candidates")
    chosen = select(lists, rng, rate=rate)
    perms = [permutation(len(items), rng) for items in chosen]
    realised = 0
    for items, perm in zip(chosen, perms):
        for i, j in enumerate(perm):
            if i != j and text[items[i][1] : items[i][2]] != text[items[j][1] : items[j][2]]:
                realised += 1
                break
    if not realised:
        return unchanged(text, "no_change")
    return Outcome(_render_lists(text, chosen, perms), realised)


# --------------------------------------------------------------------------------------------
# 15.2 question_to_end
# --------------------------------------------------------------------------------------------


@perturbation(
    "question_to_end",
    family=_FAMILY,
    description="Move a question that opens the prompt to its end (before an answer cue).",
    version=2,
    reasons=("no_candidates",),
    fix_at="prompt",
    moves_text=True,
)
def question_to_end(text: str, rng: Draws) -> Outcome:
    """``L + R + G + Q + (W + C) + T`` for a leading question ``Q`` with gap ``G``.

    >>> question_to_end("Which planet is largest?\\n\\nA. Mars\\nB. Jupiter\\nAnswer:", None).text
    'A. Mars\\nB. Jupiter\\n\\nWhich planet is largest?\\nAnswer:'
    """
    us = tm.units(text)
    if len(us) < 2 or us[0].kind != "sentence" or not us[0].is_question:
        return unchanged(text, "no_candidates")
    b = tm.split_body(text)
    q = us[0]
    body_end = len(b.lead) + len(b.body)
    rest = us[1].start
    if rest >= body_end:  # only the answer cue follows
        return unchanged(text, "no_candidates")
    out = text[: q.start] + text[rest:body_end] + text[q.end : rest] + text[q.start : q.end] + text[body_end:]
    return Outcome(out, 1)


# --------------------------------------------------------------------------------------------
# 15.3 markdown_structure
# --------------------------------------------------------------------------------------------


def _paragraphs(ls: list) -> list[tuple[int, int]]:
    """(start, end) of each plain paragraph: a maximal run of consecutive plain lines."""
    out = []
    i, n = 0, len(ls)
    while i < n:
        if ls[i].cls != "plain":
            i += 1
            continue
        j = i
        while j + 1 < n and ls[j + 1].cls == "plain":
            j += 1
        out.append((ls[i].start, ls[j].end))
        i = j + 1
    return out


@perturbation(
    "markdown_structure",
    family=_FAMILY,
    params=[
        choice(
            "style",
            "bullets",
            ("bullets", "numbered", "quote", "bold_question"),
            "the Markdown form given to plain paragraphs",
        )
    ],
    description="Give plain paragraphs Markdown structure (bullets, numbers, quote, bold).",
    version=2,
    reasons=("no_candidates",),
)
def markdown_structure(text: str, rng: Draws, *, style: str) -> Outcome:
    """Restructure plain paragraphs only; existing Markdown and the answer cue are untouched.

    >>> markdown_structure("Sam has 3 apples. He buys 2 more. How many does he have?", None,
    ...                    style="numbered").text
    '1. Sam has 3 apples.\\n2. He buys 2 more.\\n3. How many does he have?'
    """
    if style == "quote":
        edits = [(ln.start, ln.start, "> ") for ln in tm.lines(text) if ln.cls == "plain"]
        if not edits:
            return unchanged(text, "no_candidates")
        return Outcome(tm.splice(text, edits), len(edits))
    sents = tm.sentences(text)
    if style == "bold_question":
        edits = []
        for s in sents:
            if s.is_question:
                edits.append((s.start, s.start, "**"))
                edits.append((s.end, s.end, "**"))
        if not edits:
            return unchanged(text, "no_candidates")
        return Outcome(tm.splice(text, edits), len(edits) // 2)
    if not sents:
        return unchanged(text, "no_candidates")
    nl = tm.newline_style(text)
    paras = _paragraphs(tm.lines(text))
    edits = []
    p = 0
    para = -1  # paragraph of the previous sentence
    prev_end = 0
    number = 0
    for s in sents:
        while paras[p][1] < s.start:
            p += 1
        if p != para:  # the first sentence of its paragraph: only the marker
            para = p
            number = 1
            edits.append((s.start, s.start, "- " if style == "bullets" else "1. "))
        else:  # the gap from the previous sentence becomes NL, then the marker
            number += 1
            marker = "- " if style == "bullets" else f"{number}. "
            edits.append((prev_end, s.start, nl + marker))
        prev_end = s.end
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 15.4 irrelevant_preamble, 15.5 irrelevant_trailer
# --------------------------------------------------------------------------------------------


@perturbation(
    "irrelevant_preamble",
    family=_FAMILY,
    seed_sensitive=True,
    params=[count(1, 3, "number of preamble sentences (bank B3)")],
    description="Prepend a courtesy preamble of 1-3 sentences from bank B3.",
)
def irrelevant_preamble(text: str, rng: Draws, *, count: int) -> Outcome:
    """Prepend rule (§1.9) with ``count`` distinct B3 sentences in draw order.

    >>> irrelevant_preamble("What is 7 × 8?", Draws(0), count=1).text.endswith(" What is 7 × 8?")
    True
    """
    bank = _bank("b03_preambles")
    ids = rng.sample(range(len(bank)), count)
    return Outcome(tm.prepend_material(text, " ".join(bank[i] for i in ids)), count)


@perturbation(
    "irrelevant_trailer",
    family=_FAMILY,
    seed_sensitive=True,
    params=[count(1, 3, "number of trailer sentences (bank B4)")],
    description="Append a courtesy trailer of 1-3 sentences from bank B4 (before an answer cue).",
)
def irrelevant_trailer(text: str, rng: Draws, *, count: int) -> Outcome:
    """Append rule (§1.9) with ``count`` distinct B4 sentences in draw order.

    >>> irrelevant_trailer("What is 7 × 8?\\nAnswer:", Draws(0), count=1).text.endswith("\\nAnswer:")
    True
    """
    bank = _bank("b04_trailers")
    ids = rng.sample(range(len(bank)), count)
    return Outcome(tm.append_material(text, " ".join(bank[i] for i in ids)), count)


# --------------------------------------------------------------------------------------------
# 15.6 key_sentence_to_middle
# --------------------------------------------------------------------------------------------


@perturbation(
    "key_sentence_to_middle",
    family=_FAMILY,
    in_scope=False,
    params=[
        count(40, 500, "number of filler sentences (bank B2)"),
        Param(
            "depth",
            float,
            0.5,
            "relative position of the key inside the filler (0 top, 1 bottom)",
            0.0,
            1.0,
            step=0.01,
        ),
    ],
    description="Bury the first unit (the key fact) at a relative depth inside filler.",
    version=2,
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    moves_text=True,
)
def key_sentence_to_middle(text: str, rng: Draws, *, count: int, depth: float) -> Outcome:
    """``L + block + (NL NL + R) + T``, the key at filler position ``b``.

    >>> key_sentence_to_middle("The code is 7341. What is it?", None, count=1, depth=0.0).text
    'The code is 7341. This passage contains general background material.\\n\\nWhat is it?'
    """
    us = tm.units(text)
    if not us:
        return unchanged(text, "no_candidates")
    key = us[0]
    if key.kind == "code":
        # Joined into one line with the filler, the fence lines would no longer start their
        # lines: the block would stop being code and could swallow what follows (alters the key).
        return unchanged(text, "no_candidates")
    end = len(text.rstrip())
    rest = text[us[1].start : end] if len(us) > 1 else ""
    b = (count * round(depth * 100) + 50) // 100
    filler = filler_run(count)
    block = " ".join((*filler[:b], text[key.start : key.end], *filler[b:]))
    nl = tm.newline_style(text)
    out = text[: key.start] + block + (nl + nl + rest if rest else "") + text[end:]
    return Outcome(out, count, None, {"key_position": b})
