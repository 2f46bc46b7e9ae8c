"""word_level, part A: typos and table-driven word edits (docs/spec/catalog.md §5.1–§5.4, §5.6–§5.9).

Entries: ``realistic_typos``, ``typos``, ``confusable_words``, ``repeated_chars`` (seeded) and
``contractions``, ``apostrophe_drop``, ``spelling_uk``, ``number_format`` (not seeded).

Positions inside a token are its clusters.  The typo entries check each option against the
*typo option filter* of §5 locally, from runs of equal letters that are found lazily and
memoised, so a chosen token costs O(its length) and a whole call O(len(text)).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import add, mul
from typing import NamedTuple

import regex

from ... import native
from ... import text as tm
from ...data import unit_symbols
from ...memo import loaded_once, per_text, per_word
from ...registry import Outcome, count, perturbation, rate, unchanged
from ...rng import Draws, below_many, chosen, draw_natively, pick, quota, select
from ...text.bits import (
    Bits,
    WordTable,
    bits,
    case_lanes,
    char_lanes,
    fill_left,
    free_lanes,
    free_word_spans,
    may_protect,
    positions,
    token_end,
    view,
    word_spans,
    word_table,
)
from ...text.byte_lanes import Flags, byte_tokens, class_table, free_starts
from .batch import token_indices
from .typo_mechanics import (
    VOWEL_SET,
    VOWELS,
    Tokens,
    Word,
    alpha_letters,
    caps_slips,
    consonant_doubles,
    doubles,
    drops,
    edit_caps,
    edit_double,
    edit_drop,
    edit_insert,
    edit_sub,
    edit_swap,
    glued,
    key_inserts,
    key_subs,
    lower_or_title,
    run_profile,
    shift_letter,
    substitutes,
    swaps,
    typo_lanes,
    typo_starts,
    unfiltered,
    vowel_swaps,
)
from .typo_tables import (
    confusable_table,
    contraction_first_words,
    contraction_table,
    misspelling_table,
    phonetic_literals,
    phonetic_rule_table,
    qwerty_table,
    uk_table,
)

# --------------------------------------------------------------------------------------------
# 5.1 realistic_typos
# --------------------------------------------------------------------------------------------

_RT_MIN = 3


def _first_cased(word: str) -> int:
    for i, c in enumerate(word):
        if tm.is_cased_letter(c):
            return i
    return -1


def _phonetic_options(w: Word) -> list[tuple]:
    """The Table A2 rules that apply and pass the filter, as edits, in table order.

    Each rule rewrites its first occurrence; the result equals ``match_case(token, rule applied
    to the lower-cased token)``: a title token whose first letter is rewritten keeps it upper.
    """
    word = w.tok.text
    any_rule, rules = phonetic_rule_table()
    if any_rule.search(word) is None:
        return []
    out = []
    title = None
    for pattern, repl in rules:
        m = pattern.search(word)
        if m is None:
            continue
        s, e = m.span()
        if repl is None:  # the first doubled consonant becomes one consonant
            repl = word[s].lower()
        ci, cj = w.index(s), w.index(e)
        if w.letters - (cj - ci) + len(repl) < _RT_MIN or not w.ok(ci, cj, list(repl)):
            continue
        if title is None:
            title = (not word.islower()) if word.isascii() else tm.case_class(word) == "title"
        if title and s <= _first_cased(word) < e:
            repl = repl[0].upper() + repl[1:]
        out.append((w.off(ci), w.off(cj), repl))
    return out


def _missed_space(tokens: Tokens, w: Word) -> tuple | None:
    """``missed_space`` (§5.1 mechanism 11): the gap after the token is exactly one U+0020 and
    the next token is a free alpha token, and joining the two creates no run of 3+ equal
    letters longer than the longest in the two tokens.  Returns the run ``(key, length,
    limit)`` the joined next token inherits, or None when the mechanism does not apply."""
    a = w.keys[-1]
    tail = (a, w.left(w.n - 1, a), w.limit)  # type: ignore[arg-type]  # the last cluster is a letter
    nxt = _next_to_join(tokens, w.tok, tail)
    return None if nxt is None else _joined_run(nxt, tail)


def _picked(starts: Sequence[int], indices: Sequence[int]) -> Sequence[int]:
    """The candidate starts at the ascending ``indices`` (located in the lanes of a plain text's
    :class:`Flags`)."""
    return starts.pick(indices) if type(starts) is Flags else pick(starts, indices)


def _next_to_join(tokens: Tokens, tok: tm.Token, tail: tuple) -> str | None:
    """The text of the next token when :func:`_missed_space` applies to ``tok`` (``tail``:
    the key of its last letter, the length of the letter run it ends with, its run limit),
    else None. The runs of the next token matter only when it starts with that letter: a key
    of one character and a next token that starts with another one join without them."""
    v = tokens.view
    if v is not None:  # a plain text: one match finds a space and an alpha token after it
        m = _SPACE_ALPHA_TOKEN.match(v, tok.end)
        if m is None or not tokens.is_free(tok.end + 1):
            return None
        nxt = tokens.text[tok.end + 1 : m.end()]
    else:
        found = tokens.next_free(tok)
        if found is None or alpha_letters(found.text) < 1:
            return None
        nxt = found.text
    a = tail[0]
    if len(a) == 1 and nxt[0].lower() != a or _joined_run(nxt, tail) is not None:
        return nxt
    return None


# In the view of a plain text, one U+0020 and a whole token of letters and joiners.
_SPACE_ALPHA_TOKEN = re.compile(rb" [A-Za-z]+(?:['\-][A-Za-z]+)*(?![A-Za-z0-9]|['\-][A-Za-z0-9])")


def _joined_run(nxt: str, tail: tuple) -> tuple | None:
    """The run ``(key, length, limit)`` the next token ``nxt`` (a free alpha token) inherits
    when the token of ``tail`` joins it, or None when joining them makes a run too long."""
    first, lead, longest = _run_profile_memo(nxt)
    a, run, limit = tail
    limit = max(limit, longest)
    if a == first and run + lead > limit:
        return None
    return (a, run, limit)


@per_word
def _run_profile_memo(word: str) -> tuple[str | None, int, int]:
    """:func:`run_profile`, memoised (a pure function of the token's text)."""
    return run_profile(word)


_RT_PRODUCERS = (
    ("key_sub", key_subs),
    ("key_insert", key_inserts),
    ("transpose", swaps),
    ("double", doubles),
    ("drop", drops),
    ("caps_slip", caps_slips),
    ("vowel_swap", vowel_swaps),
    ("consonant_double", consonant_doubles),
)


def _realise(w: Word, mech: str, rng: Draws, positions: Sequence[int] | None = None) -> tuple:
    """Draw the position (and option) of a positional mechanism and return its edit
    (``positions``: the mechanism's positions in ``w`` when already known)."""
    if positions is None:
        positions = list(dict(_RT_PRODUCERS)[mech](w, _RT_MIN))
    i = rng.choice(positions)
    if mech == "key_sub":
        return edit_sub(w, i, rng.choice(w.sub_options(i, qwerty_table()[0][w.keys[i]])))
    if mech == "key_insert":
        return edit_insert(w, i, rng.choice(w.insert_options(i, qwerty_table()[0][w.keys[i]])))
    if mech == "vowel_swap":
        others = [v for v in VOWELS if v != w.keys[i]]
        return edit_sub(w, i, rng.choice(w.sub_options(i, others)))
    return _RT_EDITS[mech](w, i)


# The mechanisms whose position alone determines the edit.
_RT_EDITS = {
    "transpose": edit_swap,
    "drop": edit_drop,
    "caps_slip": edit_caps,
    "double": edit_double,
    "consonant_double": edit_double,
}


def _rt_applicable(w: Word) -> tuple[str, ...]:
    """The positional mechanisms of ``realistic_typos`` that have an option left for ``w``."""
    return tuple(name for name, producer in _RT_PRODUCERS if next(producer(w, _RT_MIN), None) is not None)


def _rt_applicable_unfiltered(word: str) -> tuple[str, ...]:
    """:func:`_rt_applicable` of a token of ``unfiltered`` letters with no run carried in: the
    filter removes nothing, so a mechanism applies where it has a position at all (every letter
    has keyboard neighbours and a case; a drop needs 4 letters, a vowel swap an inner vowel, a
    consonant double a Table A3 consonant after the first letter).

    >>> _rt_applicable_unfiltered("cat")
    ('key_sub', 'key_insert', 'transpose', 'double', 'caps_slip', 'vowel_swap', 'consonant_double')
    """
    low = word.lower()
    return _UNFILTERED_MECHS[
        len(low) > _RT_MIN, not VOWEL_SET.isdisjoint(low[1:-1]), not qwerty_table()[1].isdisjoint(low[1:])
    ]


def _rt_applicable_letters(w: Word) -> tuple[str, ...]:
    """:func:`_rt_applicable` of a token of ASCII letters with no run carried in. Every letter
    has a case, and a keyboard slip always applies: a letter with more than two neighbours
    keeps one, and a token of p and q only holds none of their neighbours (l, o, a, w). A vowel
    swap needs an inner vowel (at most two of its four vowels can be filtered); the other
    mechanisms ask their producers.

    >>> _rt_applicable_letters(Word(tm.Token(0, 5, "Sells")))
    ('key_sub', 'key_insert', 'transpose', 'double', 'drop', 'caps_slip', 'vowel_swap', 'consonant_double')
    """
    found = (
        True,
        True,
        next(swaps(w, _RT_MIN), None) is not None,
        next(doubles(w, _RT_MIN), None) is not None,
        next(drops(w, _RT_MIN), None) is not None,
        True,
        not VOWEL_SET.isdisjoint(w.tok.text[1:-1].lower()),
        next(consonant_doubles(w, _RT_MIN), None) is not None,
    )
    return tuple(name for (name, _), ok in zip(_RT_PRODUCERS, found) if ok)


# The mechanisms of an unfiltered word by (it has 4+ letters, an inner vowel, a Table A3
# consonant after its first letter): drop, vowel_swap and consonant_double need these.
_UNFILTERED_MECHS = {
    (drop, vowel, consonant): ("key_sub", "key_insert", "transpose", "double")
    + ("drop",) * drop
    + ("caps_slip",)
    + ("vowel_swap",) * vowel
    + ("consonant_double",) * consonant
    for drop in (False, True)
    for vowel in (False, True)
    for consonant in (False, True)
}


class _RtPlan(NamedTuple):
    """What ``realistic_typos`` needs of a token with no run carried in, token-relative."""

    word: Word  # the token at offset 0
    mechs: tuple[str, ...]  # applicable mechanisms except missed_space, in §5.1 order
    misspelling: str | None  # the Table A1 replacement (case matched), when it applies
    phonetic: tuple[tuple, ...]  # the Table A2 edits that apply
    tail: tuple  # (last key, its run length, run limit), for missed_space


@per_word
def _rt_plan(word: str) -> _RtPlan:
    """The per-token part of ``realistic_typos`` for a token with no run carried in: a pure
    function of its text, memoised (words recur across texts and seeds).

    >>> plan = _rt_plan("Photograph")
    >>> plan.mechs[:2], plan.misspelling, plan.phonetic, plan.tail
    (('phonetic', 'key_sub'), None, ((0, 2, 'F'),), ('h', 1, 2))
    """
    w = Word(tm.Token(0, len(word), word))
    mechs: list[str] = []
    misspell, longest = misspelling_table()
    rep = misspell.get(word.lower()) if len(word) <= longest else None
    if rep is not None:
        rep = tm.match_case(word, rep)
        if w.whole(rep, _RT_MIN):
            mechs.append("misspell")
        else:
            rep = None
    phonetic = tuple(_phonetic_options(w))
    if phonetic:
        mechs.append("phonetic")
    if not (word.isascii() and word.isalpha()):
        mechs += _rt_applicable(w)
    elif unfiltered(word):
        mechs += _rt_applicable_unfiltered(word)
    else:
        mechs += _rt_applicable_letters(w)
    a = w.keys[-1]
    return _RtPlan(w, tuple(mechs), rep, phonetic, (a, w.left(w.n - 1, a), w.limit))  # type: ignore[arg-type]


@perturbation(
    "realistic_typos",
    version=2,
    family="word_level",
    graded_family="Input Quality",
    seed_sensitive=True,
    params=[count(3, description="number of tokens to mistype")],
    description="Mistype words the way people do: common misspellings, phonetic "
    "spellings, keyboard slips, swapped, doubled or dropped letters.",
    reasons=("no_candidates",),
)
def realistic_typos(text: str, rng: Draws, *, count: int) -> Outcome:
    """One human-like typo in each of ``count`` words (§5.1).

    >>> from perturber.rng import Draws
    >>> out = realistic_typos("Please receive the parcel today.", Draws(0), count=2)
    >>> out.edits, out.text != "Please receive the parcel today."
    (2, True)
    """
    starts = typo_starts(text, _RT_MIN)
    if not starts:
        return unchanged(text, "no_candidates")
    tokens = Tokens(text)
    edits: list[tuple] = []
    inherit_at, inherit = -1, None  # a missed space joins the token at inherit_at to the one before
    for start in _picked(starts, sorted(chosen(len(starts), rng, count=count))):
        tok = tokens.at(start)
        if start == inherit_at:
            edit, joined = _rt_inherited(tokens, tok, inherit, rng)
        elif _rt_unfiltered(tok.text):
            edit, joined = _rt_unfiltered_edit(tokens, tok, rng)
        else:
            edit, joined = _rt_planned(tokens, tok, rng)
        edits.append(edit)
        if joined is not None:
            inherit_at, inherit = tok.end + 1, joined
    # letters, case changes, Table A1/A2 words and deletions: nothing JSON-unsafe to filter
    edit_starts, edit_ends, outs = zip(*edits)
    return Outcome(tm.splice_at(text, edit_starts, edit_ends, outs), len(edits))


def _rt_planned(tokens: Tokens, tok: tm.Token, rng: Draws) -> tuple[tuple, tuple | None]:
    """The draws and edit of ``realistic_typos`` for a token with no run carried in, from its
    memoised plan, and the run it passes on when it draws ``missed_space``."""
    plan = _rt_plan(tok.text)
    nxt = _next_to_join(tokens, tok, plan.tail)
    mech = rng.choice(plan.mechs + ("missed_space",) if nxt is not None else plan.mechs)
    if mech == "missed_space":
        assert nxt is not None  # it joins
        return (tok.end, tok.end + 1, ""), _joined_run(nxt, plan.tail)
    if mech == "misspell":
        return (tok.start, tok.end, plan.misspelling), None
    s, e, out = (
        rng.choice(plan.phonetic)
        if mech == "phonetic"
        else _realise(plan.word, mech, rng, _rt_positions(tok.text, mech))
    )
    return (tok.start + s, tok.start + e, out), None


def _rt_unfiltered(word: str) -> bool:
    """An :func:`unfiltered` word that is neither a Table A1 key nor matched by a Table A2
    rule: only the positional mechanisms and ``missed_space`` apply, and the filter keeps
    every option of a positional one (ASCII letters, then one search for both of the rest)."""
    if not (word.isascii() and word.isalpha()) or _plan_needed().search(word) is not None:
        return False
    misspell, longest = misspelling_table()
    return len(word) > longest or word.lower() not in misspell


@loaded_once
def _plan_needed() -> re.Pattern[str]:
    """What in a word of ASCII letters calls for a plan: a letter equal (ignoring case) to
    either of the next two (:func:`unfiltered` fails), or a Table A2 rule's match (the
    doubled-consonant rule needs a doubled letter, and no mark can follow a match)."""
    rules = (re.escape(letters) + (r"\Z" if final else "") for letters, final in phonetic_literals())
    return re.compile("|".join((r"(.).?\1", *rules)), re.IGNORECASE | re.ASCII)


def _rt_unfiltered_edit(tokens: Tokens, tok: tm.Token, rng: Draws) -> tuple[tuple, tuple | None]:
    """:func:`_rt_planned` of an :func:`_rt_unfiltered` token, without a plan: its mechanisms
    follow from its letters, and each draws among every position and option its definition
    gives."""
    word = tok.text
    tail = (word[-1].lower(), 1, 2)  # no run of 2 letters: the limit is 2
    nxt = _next_to_join(tokens, tok, tail)
    mechs = _rt_applicable_unfiltered(word)
    mech = rng.choice(mechs + ("missed_space",) if nxt is not None else mechs)
    if mech == "missed_space":
        assert nxt is not None  # it joins
        return (tok.end, tok.end + 1, ""), _joined_run(nxt, tail)
    s, e, out = _unfiltered_realise(word, mech, rng)
    return (tok.start + s, tok.start + e, out), None


def _unfiltered_realise(word: str, mech: str, rng: Draws) -> tuple[int, int, str]:
    """:func:`_realise` on an :func:`unfiltered` word with no run carried in, token-relative:
    the positions of ``mech`` are those of its definition, and every option is kept.

    >>> [_unfiltered_realise("Cats", mech, Draws(1)) for mech in ("key_sub", "drop", "caps_slip")]
    [(1, 2, 'q'), (1, 2, ''), (1, 2, 'A')]
    """
    n = len(word)
    below = rng.below
    if mech == "transpose":
        i = below(n - 1)
        return i, i + 2, word[i + 1] + word[i]
    if mech == "drop":
        i = below(n - 1) + 1
        return i, i + 1, ""
    if mech == "double":
        i = below(n)
        return i + 1, i + 1, word[i]
    if mech == "caps_slip":
        i = below(n)
        return i, i + 1, word[i].swapcase()
    low = word.lower()
    if mech == "key_sub" or mech == "key_insert":
        i = below(n)
        letter = rng.choice(qwerty_table()[0][low[i]])
        letter = letter.upper() if word[i].isupper() else letter
        return (i, i + 1, letter) if mech == "key_sub" else (i, i, letter)
    if mech == "vowel_swap":
        i = rng.choice([i for i in range(1, n - 1) if low[i] in VOWEL_SET])
        letter = rng.choice(_OTHER_VOWELS[low[i]])
        return i, i + 1, letter.upper() if word[i].isupper() else letter
    consonants = qwerty_table()[1]  # consonant_double: a Table A3 consonant after the first letter
    i = rng.choice([i for i in range(1, n) if low[i] in consonants])
    return i + 1, i + 1, word[i]


# The four vowels a vowel swap may put in place of each vowel, in ``VOWELS`` order.
_OTHER_VOWELS = {v: [o for o in VOWELS if o != v] for v in VOWELS}


@per_word
def _rt_positions(word: str, mech: str) -> tuple[int, ...]:
    """The positions of a positional ``mech`` in a token with no run carried in (a pure function
    of the token's text, memoised).

    >>> _rt_positions("cat", "transpose")
    (0, 1)
    """
    return tuple(dict(_RT_PRODUCERS)[mech](_rt_plan(word).word, _RT_MIN))


def _rt_inherited(
    tokens: Tokens, tok: tm.Token, inherit: tuple | None, rng: Draws
) -> tuple[tuple, tuple | None]:
    """The draw and edit of ``realistic_typos`` for a token that a missed space joined to its
    predecessor (it inherits that letter run), and the run it passes on when it draws
    ``missed_space`` itself."""
    w = Word(tok, inherit)
    mechs = []
    misspell, longest = misspelling_table()
    rep = misspell.get(tok.text.lower()) if len(tok.text) <= longest else None
    if rep is not None:
        rep = tm.match_case(tok.text, rep)
        if w.whole(rep, _RT_MIN):
            mechs.append("misspell")
    phonetic = _phonetic_options(w)
    if phonetic:
        mechs.append("phonetic")
    mechs += _rt_applicable(w)
    joined = _missed_space(tokens, w)
    if joined is not None:
        mechs.append("missed_space")
    mech = rng.choice(mechs)
    if mech == "misspell":
        return (tok.start, tok.end, rep), None
    if mech == "phonetic":
        return rng.choice(phonetic), None
    if mech == "missed_space":
        return (tok.end, tok.end + 1, ""), joined
    return _realise(w, mech, rng), None


# --------------------------------------------------------------------------------------------
# 5.2 typos
# --------------------------------------------------------------------------------------------

_TY_MIN_CAND = 4
_TY_MIN = 3
_TY_OPS = (("swap", swaps), ("delete", drops), ("duplicate", doubles), ("substitute", substitutes))


@per_word
def _typo_plan(word: str) -> tuple[tuple[str, Sequence[int], tuple | None], ...]:
    """The ops of ``typos`` that apply to ``word``, in ``_TY_OPS`` order (after the option
    filter), each with its cluster positions and, for ``substitute`` on an ASCII word, the
    shifts the filter keeps at each position (None for other words: found at the edit). A
    pure function of the word's text, so it is memoised: words recur across texts and seeds
    (``typos`` draws on a word that :func:`_keeps_every_typo` without one).

    >>> [op for op, _, _ in _typo_plan("cats")], _typo_plan("cat")[0]
    (['swap', 'delete', 'duplicate', 'substitute'], ('swap', (0, 1), None))
    """
    if _SIMPLE_WORD.fullmatch(word):
        return _simple_plan(word)
    w = Word(tm.Token(0, len(word), word))
    found = ((op, tuple(producer(w, _TY_MIN))) for op, producer in _TY_OPS)
    return tuple((op, positions, None) for op, positions in found if positions)


# A token whose clusters are single code points: ASCII letters and joiners.
_SIMPLE_WORD = re.compile(r"[A-Za-z'’\-‐‑]+")


def _simple_plan(word: str) -> tuple[tuple[str, Sequence[int], tuple | None], ...]:
    """:func:`_typo_plan` of a token of ASCII letters and joiners, from the runs of equal
    letters around each position (a joiner breaks a run): an option is kept when the run it
    makes or joins is no longer than the word's longest run (at least 2), and a deletion when 3
    letters remain. (tests/test_perf_word.py compares it with the position producers.)

    >>> _simple_plan("Eeel")[0], _simple_plan("Eeel")[3]
    (('swap', (2,), None), ('substitute', (0, 1, 2, 3), ((-1, 1), (-1, 1), (-1, 1), (-1, 1))))
    >>> [(op, list(positions)) for op, positions, _ in _simple_plan("it's")]
    [('swap', [0]), ('duplicate', [0, 1, 3]), ('substitute', [0, 1, 3])]
    """
    low = word.lower()
    n = len(low)
    left = _run_lengths(low)  # the run of equal letters ending at each position
    right = _run_lengths(low[::-1])[::-1]  # ... starting at each position
    limit = max(2, max(left))
    letters = n - sum(map(low.count, tm.JOINERS))
    swaps_, deletes, duplicates, subs, kept = [], [], [], [], []
    for i, c in enumerate(low):
        if c in tm.JOINERS:
            continue
        before = low[i - 1] if i else ""
        after = low[i + 1] if i + 1 < n else ""
        if after and after != c and after not in tm.JOINERS:  # a swap: the runs each moved letter joins
            joined_left = left[i - 1] if before == after else 0
            joined_right = right[i + 2] if i + 2 < n and low[i + 2] == c else 0
            if joined_left < limit and joined_right < limit:
                swaps_.append(i)
        if i and not (before == after and before not in tm.JOINERS and left[i - 1] + right[i + 1] > limit):
            deletes.append(i)  # a deletion joins the runs on both sides when they match
        if before != c and after != c:
            duplicates.append(i)
        down, up = _SHIFTED[c]
        if down in (before, after) or up in (before, after):  # count the run it would join
            shifts = tuple(
                d for d, new in ((-1, down), (1, up)) if _run_with(low, left, right, i, new) <= limit
            )
            if shifts:
                subs.append(i)
                kept.append(shifts)
        else:
            subs.append(i)
            kept.append(_BOTH_SHIFTS)
    found = (
        ("swap", tuple(swaps_), None),
        ("delete", tuple(deletes) if letters - 1 >= _TY_MIN else (), None),
        ("duplicate", tuple(duplicates), None),
        ("substitute", tuple(subs), tuple(kept)),
    )
    return tuple(op for op in found if op[1])


def _run_with(low: str, left: list[int], right: list[int], i: int, letter: str) -> int:
    """The run of equal letters through position ``i`` of ``low`` once it holds ``letter``
    (``left``/``right``: the runs ending and starting at each position)."""
    n = len(low)
    before = left[i - 1] if i > 0 and low[i - 1] == letter else 0
    return before + 1 + (right[i + 1] if i + 1 < n and low[i + 1] == letter else 0)


def _run_lengths(word: str) -> list[int]:
    """The length of the run of equal characters that ends at each position.

    >>> _run_lengths("aabaaa")
    [1, 2, 1, 1, 2, 3]
    """
    out = []
    prev, run = "", 0
    for c in word:
        run = run + 1 if c == prev else 1
        out.append(run)
        prev = c
    return out


def _typo_edit(word: str, op: str, i: int, shifts: tuple | None, rng: Draws) -> tuple:
    """The token-relative edit of ``op`` at cluster ``i`` of ``word``; a substitution draws its
    shift among ``shifts`` (those the option filter keeps, from the plan of an ASCII word;
    found here for any other).

    >>> _typo_edit("cat", "swap", 1, None, Draws(0)), _typo_edit("cat", "delete", 2, None, Draws(0))
    ((1, 3, 'ta'), (2, 3, ''))
    """
    if not _SIMPLE_WORD.fullmatch(word):  # clusters are not code points, or not ASCII
        w = Word(tm.Token(0, len(word), word))
        if op == "swap":
            return edit_swap(w, i)
        if op == "delete":
            return edit_drop(w, i)
        if op == "duplicate":
            return edit_double(w, i)
        found = w.shift_options(i)
        return edit_sub(w, i, shift_letter(w.keys[i], found[rng.below(len(found))]))  # type: ignore[arg-type]
    if op == "swap":
        return (i, i + 2, word[i + 1] + word[i])
    if op == "delete":
        return (i, i + 1, "")
    if op == "duplicate":
        return (i + 1, i + 1, word[i])
    assert shifts is not None  # the plan of an ASCII word lists the shifts it keeps
    letter = shift_letter(word[i].lower(), shifts[rng.below(len(shifts))])
    return (i, i + 1, letter.upper() if word[i].isupper() else letter)


_BOTH_SHIFTS = (-1, 1)
# each lower-case ASCII letter's shifts by -1 and +1 (wrapping within a-z)
_SHIFTED = {c: (shift_letter(c, -1), shift_letter(c, 1)) for c in "abcdefghijklmnopqrstuvwxyz"}


@perturbation(
    "typos",
    version=2,
    family="word_level",
    graded_family="Input Quality",
    seed_sensitive=True,
    params=[count(5, description="number of tokens to mistype")],
    description="One mechanical typo (swap, delete, duplicate or shift a letter) in each of count words.",
    reasons=("no_candidates",),
)
def typos(text: str, rng: Draws, *, count: int) -> Outcome:
    """One swap, deletion, duplication or substitution in each of ``count`` words (§5.2).

    >>> from perturber.rng import Draws
    >>> out = typos("The weather tomorrow looks pleasant.", Draws(0), count=2)
    >>> out.edits, out.text.split()[0]
    (2, 'The')
    """
    starts = typo_starts(text, _TY_MIN_CAND)
    if not starts:
        return unchanged(text, "no_candidates")
    # Per chosen token: rng.choice of the ops that apply, of the op's positions, and for a
    # substitution of the shifts left. The edits replace letters by letters and token clusters,
    # which splice never skips (nothing JSON-unsafe), so they are applied unchecked.
    picked = _picked(starts, sorted(chosen(len(starts), rng, count=count)))
    if native.c is not None and (v := view(text)) is not None:
        out = draw_natively(rng, native.c.typos_apply, text, v, picked)
        if out is not None:
            return Outcome(out, len(picked))
    below = rng.below
    edit_starts, edit_ends, outs = [], [], []
    lanes = typo_lanes(text)
    v = None if lanes is None else lanes.view
    for start in picked:
        # in a plain text, one match finds most tokens the filter leaves alone, and their end
        whole = None if v is None else _UNFILTERED_TOKEN.match(v, start)
        if whole is not None:
            word = text[start : whole.end()]
        elif v is not None:
            word = text[start : token_end(v, start)]
        else:
            word = tm.token_at(text, start).text
        if whole is not None or _keeps_every_typo(word):
            s, e, out = _unfiltered_typo(word, below)
        else:
            plan = _typo_plan(word)
            op, positions, kept = plan[below(len(plan))]
            j = below(len(positions))
            s, e, out = _typo_edit(word, op, positions[j], None if kept is None else kept[j], rng)
        edit_starts.append(start + s)
        edit_ends.append(start + e)
        outs.append(out)
    return Outcome(tm.splice_at(text, edit_starts, edit_ends, outs), len(picked))


# In the view of a plain text, a whole token of ASCII letters none of which equals (ignoring
# case) either of the next two: an unfiltered token.
_UNFILTERED_TOKEN = re.compile(
    rb"(?:([A-Za-z])(?!\1|[A-Za-z]\1))+(?![A-Za-z0-9]|['\-][A-Za-z0-9])", re.IGNORECASE
)


def _keeps_every_typo(word: str) -> bool:
    """The typo option filter keeps every option of ``typos`` on ``word``: ASCII letters, no
    two equal ones in a row and no letter between two copies of a letter next to it in the
    alphabet (ignoring case), so no option makes a run of three. Every :func:`unfiltered` word
    qualifies.

    >>> _keeps_every_typo("every"), _keeps_every_typo("eggs"), _keeps_every_typo("ede")
    (True, False, False)
    """
    if not (word.isascii() and word.isalpha()):
        return False
    low = word.lower()
    if _DOUBLE.search(low) is not None:
        return False
    return all(low[m.start()] not in _SHIFTED[low[m.start() + 1]] for m in _SANDWICH.finditer(low))


# In a lower-cased word: two equal letters in a row; a letter between two copies of one letter
# (the lookahead finds overlapping ones).
_DOUBLE = re.compile(r"([a-z])\1")
_SANDWICH = re.compile(r"(?=([a-z])[a-z]\1)")


def _unfiltered_typo(word: str, below: Callable[[int], int]) -> tuple[int, int, str]:
    """The draws and token-relative edit of ``typos`` on a word of 4+ letters that
    :func:`_keeps_every_typo`, without a plan: all four ops apply, at every position their
    definition gives, and a substitution may shift either way.

    >>> [_unfiltered_typo("Cats", Draws(seed).below) for seed in (0, 2)]
    [(3, 4, 'r'), (0, 2, 'aC')]
    """
    n = len(word)
    op = below(4)
    if op == 0:  # swap the letters i and i + 1
        i = below(n - 1)
        return i, i + 2, word[i + 1] + word[i]
    if op == 1:  # delete any letter but the first
        i = below(n - 1) + 1
        return i, i + 1, ""
    if op == 2:  # duplicate
        i = below(n)
        return i + 1, i + 1, word[i]
    i = below(n)  # substitute: shift by -1 or +1
    c = word[i]
    letter = _SHIFTED[c.lower()][below(2)]
    return i, i + 1, letter.upper() if c.isupper() else letter


# --------------------------------------------------------------------------------------------
# 5.3 confusable_words
# --------------------------------------------------------------------------------------------


@perturbation(
    "confusable_words",
    family="word_level",
    graded_family="Input Quality",
    seed_sensitive=True,
    params=[rate(0.5)],
    description="Swap words for their common real-word confusions (their/there, its/it's, then/than).",
    version=2,
    reasons=("no_candidates",),
)
def confusable_words(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Replace a fraction of the Table A4 words by their confusion (§5.3).

    >>> from perturber.rng import Draws
    >>> confusable_words("Their cat.", Draws(0), rate=1.0).text
    'There cat.'
    """
    hits = _confusable_sites(text)
    if not hits:
        return unchanged(text, "no_candidates")
    # table words in a token's place, ascending: nothing JSON-unsafe, so applied unchecked
    edits = _confusable_edits(text, select(hits, rng, rate=rate))
    starts, ends, words = zip(*edits) if edits else ((), (), ())
    return Outcome(tm.splice_at(text, starts, ends, words), len(edits))


def _confusable_edits(text: str, hits: Sequence[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The edits of Table A4 ``hits`` ``(start, end, table word)``: the table word in the case
    of the token, its apostrophes in the token's style or else the text's (§1.7).

    >>> _confusable_edits("Its their cat.", [(0, 3, "it's"), (4, 9, "there")])
    [(0, 3, "It's"), (4, 9, 'there')]
    """
    style = ""  # the text's apostrophe style, found on first use
    out = []
    for start, end, rep in hits:
        source = text[start:end]
        word = tm.match_case(source, rep)
        if "'" in word:
            if "’" in source or "'" in source:
                word = tm.apply_apostrophe(word, tm.apostrophe_style(text, source))
            else:
                style = style or tm.apostrophe_style(text)
                word = tm.apply_apostrophe(word, style)
        out.append((start, end, word))
    return out


def _confusable_hits_general(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, table word)`` of each free Table A4 token, one free token at a time."""
    table = confusable_table()
    curly = "’" in text
    out = []
    for tok in tm.free_tokens(text):
        key = tok.text.lower()
        rep = table.get(key.replace("’", "'") if curly else key)
        if rep is not None:
            out.append((tok.start, tok.end, rep))
    return out


def _confusable_hits_plain(text: str, v: bytes) -> list[tuple[int, int, str]]:
    """:func:`_confusable_hits_general` of a plain text (``v``: its view): the free tokens whose
    lower-cased view is a Table A4 word, found by the table's pattern in the view alone when no
    protected span may bind a token (the token masks are then not needed), else by
    :func:`word_spans`."""
    table, wt = confusable_table(), _confusable_words()
    if wt.finder is not None and not may_protect(v):
        spans = free_word_spans(v, wt.finder)
    else:
        b = bits(text)
        assert b is not None  # the text has a view
        spans = word_spans(b, wt, b.free_start)
    low = v.lower()
    return [(s, e, table[low[s:e].decode("ascii")]) for s, e in spans]


@loaded_once
def _confusable_words() -> WordTable:
    """The Table A4 words as a folded :class:`WordTable` (for the view of a plain text)."""
    return word_table(set(confusable_table()), folded=True)


@per_text
def _confusable_sites(text: str) -> tuple[tuple[int, int, str], ...]:
    """``(start, end, table word)`` of each free Table A4 token of ``text`` (memoised for short
    texts).

    >>> _confusable_sites("Its their cat.")
    ((0, 3, "it's"), (4, 9, 'there'))
    """
    v = view(text)
    return tuple(_confusable_hits_general(text) if v is None else _confusable_hits_plain(text, v))


# --------------------------------------------------------------------------------------------
# 5.4 repeated_chars
# --------------------------------------------------------------------------------------------


def _terminal_runs(text: str, spans: Sequence[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Terminal runs (§1.9) of the sentences that consist of 1-3 ``!``/``?`` only, outside
    protected spans (``spans``, when the caller has them)."""
    if "!" not in text and "?" not in text:
        return []
    if spans is None:
        spans = tm.protected_spans(text)
    if not spans and tm.ascii_words(text):
        return _simple_terminal_runs(text)
    return _checked_terminal_runs(text, tm.Spans(spans))


def _checked_terminal_runs(text: str, spans: tm.Spans) -> list[tuple[int, int]]:
    """:func:`_terminal_runs` of any text, one sentence at a time."""
    out = []
    for u in tm.sentences(text):
        s, e = tm.trailing_run(text, u)
        if 1 <= e - s <= 3 and all(c == "!" or c == "?" for c in text[s:e]) and not spans.overlaps(s, e):
            out.append((s, e))
    return out


def _simple_terminal_runs(text: str) -> list[tuple[int, int]]:
    """:func:`_terminal_runs` of a text whose word characters are ASCII and that holds no
    protected span: in its plain paragraphs, each whole run of 1-3 ``!``/``?`` followed by
    closers and whitespace or the paragraph's end (such a run always ends a sentence: only a
    single ``.`` may not), found from its first character (a literal: a fast scan).

    >>> _simple_terminal_runs("Why? No!! Dr. Li?! Ok... fine!?!? (Yes?)")
    [(3, 4), (7, 9), (16, 18), (38, 39)]
    """
    out = []
    leads = [p for c, p in (("!", _BANG_RUN), ("?", _QUESTION_RUN)) if c in text]
    for ps, pe in tm.plain_paragraphs(text):
        for pattern in leads:
            out += [m.span() for m in pattern.finditer(text, ps, pe)]
    if len(leads) > 1:
        out.sort()
    return out


def _bang_run(lead: str) -> re.Pattern[str]:
    """A whole terminal run of 1-3 ``!``/``?`` that starts with ``lead``."""
    closers = "[" + re.escape("\"'”’)]}»") + "]*"
    return re.compile(rf"{re.escape(lead)}(?<![.!?…].)[!?]{{0,2}}(?![.!?…])(?={closers}(?:\s|\Z))")


_BANG_RUN, _QUESTION_RUN = _bang_run("!"), _bang_run("?")


def _last_cluster(text: str, tok: tm.Token) -> str:
    j = tok.end
    while j > tok.start + 1 and tm.is_mark(text[j - 1]):
        j -= 1
    return text[j - 1 : tok.end]


@perturbation(
    "repeated_chars",
    version=2,
    family="word_level",
    graded_family="Input Quality",
    seed_sensitive=True,
    params=[rate(0.3)],
    description="Stretch words and final !/? runs by repeating their last character.",
    reasons=("no_candidates",),
)
def repeated_chars(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Append 2-3 copies of the last cluster of chosen words and !/? runs (§5.4).

    >>> from perturber.rng import Draws
    >>> repeated_chars("Why?", Draws(0), rate=1.0).text in ("Whyyy???", "Whyyy????",
    ...     "Whyyyy???", "Whyyyy????")
    True
    """
    sites, units = _stretch_sites(text)
    if not sites:
        return unchanged(text, "no_candidates")
    if not units and native.c is not None:  # a plain text: the choice, counts and splice in C
        k = quota(len(sites), rate=rate)
        out = draw_natively(rng, native.c.stretch_apply, text, sites, k)
        if out is not None:
            return Outcome(out, k)
    idx = chosen(len(sites), rng, rate=rate)
    if type(idx) is not range:
        idx = sorted(idx)
    # one draw of rng.randint(2, 3) == 2 + rng.below(2) per chosen site, in order; the repeated
    # units are letters, marks, "!" and "?", which splice never skips (nothing JSON-unsafe)
    if not units:  # a plain text: each chosen code point and 2-3 copies of it
        last = _picked(sites, idx)
        repeats = map(add, below_many(rng, 2, len(last)), repeat(3))
        return Outcome(tm.splice_at(text, last, None, map(mul, pick(text, last), repeats)), len(last))
    at = list(pick(sites, idx))  # insertion offsets and the unit repeated at each
    repeats = map(add, below_many(rng, 2, len(at)), repeat(2))
    return Outcome(tm.splice_at(text, at, at, map(mul, pick(units, idx), repeats)), len(at))


@per_text
def _stretch_sites(text: str) -> tuple[Sequence[int], tuple[str, ...]]:
    """The candidates of ``repeated_chars`` in text order (memoised for short texts): in a plain
    text, the code point each would repeat (the last of a word, the last ``!``/``?`` of a run),
    as a list (the C scan) or :class:`Flags` (a draw finds only the few it picks), and no units;
    in any other text,
    their insertion offsets and the unit to repeat at each (the last cluster of a word, the
    last character of a ``!``/``?`` run).

    >>> list(_stretch_sites("Why so? No!")[0]), _stretch_sites("Café, no!")
    ([2, 5, 6, 9, 10], ((4, 8, 9), ('é', 'o', '!')))
    """
    v = view(text)
    if v is not None:
        spans = tm.view_spans(text, v)
        runs = _terminal_runs(text, spans)
        if native.c is not None:
            return native.c.stretch_sites(v, spans, runs, _stretch_units()), ()
        return Flags.of_bytes(_stretch_ends(v, spans, runs)), ()
    runs = _terminal_runs(text)
    free = tm.free_tokens(text)
    cands = _ascii_word_sites(free) if text.isascii() else _word_sites(text, free)
    if runs:
        cands.extend((s, e, text[e - 1]) for s, e in runs)
        cands.sort()
    return tuple(e for _, e, _ in cands), tuple(u for _, _, u in cands)


def _stretch_ends(v: bytes, spans: Sequence[tuple[int, int]], runs: list[tuple[int, int]]) -> bytes:
    """The code points ``repeated_chars`` may repeat in a plain text (its view ``v``, protected
    spans ``spans`` and terminal runs ``runs``), a byte each (1 or 0, :class:`Flags`): the last
    of each free token of at least two letters, no digit, no upper-case letter after the first,
    not a unit symbol (each of its code points is a cluster, and none is glued), and the last
    of each run. The masks are those of the reversed view, where a token's start lane is its
    last code point: one carry finds the tokens that hold a flag from there (the token rules
    of §1.6 read the same both ways)."""
    n = len(v)
    table, units = _stretch_classes()
    back = v[::-1]
    t = byte_tokens(back, table, [(n - e, n - s) for s, e in spans])
    x, start, link = t.x, t.start, t.link
    word = x & t.ones
    upper = x >> 1 & word
    # A token of two or more code points has two or more letters: a joiner has a word character
    # on both sides, so the token's first and last code points are letters.
    bad = start & t.end | x >> 2 & word | upper ^ upper & t.end  # one code point, a digit, a late capital
    # A unit's letters, each at its place (a letter after a token's start lane is in the token):
    # lane s's bit 3 and lane s + 1's bit 4 (two letters), or bits 5, 6, 7 of lanes s to s + 2.
    two = start & x >> 3 & x << 4
    three = start & x >> 5 & x << 2 & x << 9
    fits = two ^ two & link << 16 | three ^ three & link << 24  # of exactly that length
    if fits:
        for s in Flags(fits, n):
            if back[s : s + (3 if back[s + 2 : s + 3].isalpha() else 2)] in units:  # the token
                bad |= 1 << 8 * (n - 1 - s)
    lanes = free_starts(t, bad).to_bytes(n, "little")  # back to the text's order
    if not runs:
        return lanes
    with_runs = bytearray(lanes)
    for _, end in runs:
        with_runs[end - 1] = 1
    return bytes(with_runs)


@loaded_once
def _stretch_classes() -> tuple[bytes, frozenset[bytes]]:
    """The class table of a reversed view for :func:`_stretch_ends` (on a letter: 2 upper case,
    8 and 16 the first and second letter of a reversed unit symbol of two, 32, 64 and 128 of
    one of three; 4 a digit) and the reversed unit symbols a stretchable word could be (ASCII
    letters, lower or title case, two or three)."""
    units = {
        u[::-1] for u in unit_symbols() if u.isascii() and u.isalpha() and len(u) >= 2 and lower_or_title(u)
    }
    extra = dict.fromkeys(string.ascii_uppercase, 2) | dict.fromkeys(string.digits, 4)
    for u in units:
        assert len(u) in (2, 3)  # the lengths _stretch_ends looks for
        for k, c in enumerate(u):
            extra[c] = extra.get(c, 0) | (8 if len(u) == 2 else 32) << k
    return class_table(extra), frozenset(u.encode("ascii") for u in units)


@loaded_once
def _stretch_units() -> frozenset[bytes]:
    """The unit symbols a stretchable word could be, as ASCII bytes (for ``native.c.stretch_sites``).

    >>> b"km" in _stretch_units()
    True
    """
    return frozenset(u[::-1] for u in _stretch_classes()[1])


def _word_sites(text: str, free: Sequence[tm.Token]) -> list[tuple[int, int, str]]:
    """``(start, end, last cluster)`` of the free tokens ``repeated_chars`` may stretch: at
    least two letters, no number, not a unit symbol, case lower or title, not glued."""
    units = unit_symbols()
    return [
        (tok.start, tok.end, _last_cluster(text, tok))
        for tok in free
        if len(tok.text) >= 2
        and alpha_letters(tok.text) >= 2
        and tok.text not in units
        and lower_or_title(tok.text)
        and not glued(text, tok)
    ]


def _ascii_word_sites(free: Sequence[tm.Token]) -> list[tuple[int, int, str]]:
    """:func:`_word_sites` of an ASCII text, inline: no cluster is longer than a character
    and nothing can glue a token (ZWJ, emoji modifiers and tags are not ASCII)."""
    units = unit_symbols()
    return [
        (s, e, w[-1])
        for s, e, w in free
        if len(w) >= 2
        and (w.isalpha() or alpha_letters(w) >= 2)
        and w not in units
        and (w.islower() or (w[0].isupper() and w[1:].islower()))
    ]


# --------------------------------------------------------------------------------------------
# 5.6 contractions
# --------------------------------------------------------------------------------------------

_HSPACE_RUN = regex.compile("[" + "".join(tm.HSPACE) + "]+")


def _next_is_word_char(text: str, pos: int) -> bool:
    m = _HSPACE_RUN.match(text, pos)
    if m is not None:
        pos = m.end()
    return pos < len(text) and text[pos].isalnum()


@perturbation(
    "contractions",
    family="word_level",
    description="Contract phrases such as 'do not' and 'I am' (Table A5).",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def contractions(text: str, rng: Draws) -> Outcome:
    """Contract Table A5 phrases in one left-to-right scan (§5.6).

    >>> contractions("I am sure it is not ready.", None).text
    "I'm sure it's not ready."
    """
    two, one = contraction_table()
    firsts = contraction_first_words()
    tokens = tm.word_tokens(text)
    # Only a token that starts a Table A5 phrase can start a contraction: scan those alone.
    starts = token_indices(tokens, firsts)
    if not starts:
        return unchanged(text, "no_candidates")
    free = tm.free_tokens(text, tokens)
    if not free:
        return unchanged(text, "no_candidates")
    free_starts = {t.start for t in free}
    style = None
    edits = []
    n = len(tokens)
    resume = 0
    for i in starts:
        tok = tokens[i]
        if i < resume or tok.start not in free_starts:
            continue
        low = tok.text.lower()
        hit = None
        if i + 1 < n:
            nxt = tokens[i + 1]
            value = two.get((low, nxt.text.lower()))
            if value is not None:
                if (
                    nxt.start in free_starts
                    and nxt.start > tok.end
                    and _HSPACE_RUN.fullmatch(text, tok.end, nxt.start) is not None
                ):
                    hit = (value, i + 1)
        if hit is None:
            value = one.get(low)
            if value is not None:
                hit = (value, i)
        if hit is None:
            continue
        (contraction, aux, negation), last = hit
        end = tokens[last].end
        if aux and not _next_is_word_char(text, end):
            continue
        if negation and last + 1 < n and tokens[last + 1].text.lower() == "only":
            continue
        source = tokens[i + 1].text if (low == "i" and last > i) else tok.text
        out = tm.match_case(source, contraction)
        if style is None:
            style = tm.apostrophe_style(text)
        edits.append((tok.start, end, tm.apply_apostrophe(out, style)))
        resume = last + 1
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.7 apostrophe_drop
# --------------------------------------------------------------------------------------------

_SUFFIXES = frozenset(("s", "t", "re", "ve", "ll", "d", "m"))


@perturbation(
    "apostrophe_drop",
    family="word_level",
    description="Drop the apostrophe of contractions and possessives (don't -> dont).",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def apostrophe_drop(text: str, rng: Draws) -> Outcome:
    """Delete the apostrophe before a final s, t, re, ve, ll, d or m (§5.7).

    >>> apostrophe_drop("Don't forget it's Sam's turn.", None).text
    'Dont forget its Sams turn.'
    """
    if "'" not in text and "’" not in text:
        return unchanged(text, "no_candidates")
    b = bits(text)
    drops = _apostrophes_general(text) if b is None else positions(_apostrophe_lanes(b), b.n)
    if not drops:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice_at(text, drops, None, [""] * len(drops)), len(drops))


def _apostrophes_general(text: str) -> list[int]:
    """The apostrophes ``apostrophe_drop`` deletes, one free token at a time (any text)."""
    drops = []
    for tok in tm.free_tokens(text):
        word = tok.text
        j = max(word.rfind("'"), word.rfind("’"))
        if j <= 0 or word[j + 1 :].lower() not in _SUFFIXES:
            continue
        k = j - 1
        while k > 0 and tm.is_mark(word[k]):
            k -= 1
        if word[k].isalpha():
            drops.append(tok.start + j)
    return drops


# The one- and two-letter suffixes of §5.7 by letter: bit 0 s/t/d/m, bit 1 r/v (before "e"),
# bit 2 l (of "ll"), bit 3 e.
_SUFFIX_LETTERS = bytes(
    ord("0123456789abcdef"[(c in "stdmSTDM") | (c in "rvRV") << 1 | (c in "lL") << 2 | (c in "eE") << 3])
    for c in map(chr, range(256))
)


def _apostrophe_lanes(b: Bits) -> int:
    """The apostrophes ``apostrophe_drop`` deletes in a plain text, as a mask: the last
    apostrophe inside a free token, after a letter, followed by the token's last one or two
    letters when they are s, t, d, m or re, ve, ll (any case)."""
    lower, upper, _digit, apostrophe = case_lanes(b)
    apostrophe &= b.link  # inside a token: word characters on both sides
    last = apostrophe & ~fill_left(apostrophe << 4 & b.tok, b)  # no later one in the token
    x = char_lanes(b, _SUFFIX_LETTERS)
    ones = b.ones
    one = b.end << 4 & (x & ones) << 4  # p+1 ends the token and is s, t, d or m
    pair = b.end << 8 & (
        (x >> 1 & ones) << 4 & (x >> 3 & ones) << 8 | (x >> 2 & ones) << 4 & (x >> 2 & ones) << 8
    )  # p+2 ends the token, p+1 and p+2 are "re", "ve" or "ll"
    return last & (one | pair) & (lower | upper) >> 4 & free_lanes(b)


# --------------------------------------------------------------------------------------------
# 5.8 spelling_uk
# --------------------------------------------------------------------------------------------


@perturbation(
    "spelling_uk",
    family="word_level",
    description="Respell US word forms the British way (Table A7).",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def spelling_uk(text: str, rng: Draws) -> Outcome:
    """Replace Table A7 US spellings by their UK forms (§5.8).

    >>> spelling_uk("My favorite color is gray; the theater is 5 meters away.", None).text
    'My favourite colour is grey; the theatre is 5 metres away.'
    """
    table, after_number = uk_table()
    number_ends = None
    edits = []
    for start, end in _uk_tokens(text):
        word = text[start:end]
        low = word.lower()
        if low in after_number:
            if start < 2 or text[start - 1] != " " or not ("0" <= text[start - 2] <= "9"):
                continue
            if number_ends is None:
                number_ends = {
                    n.end for n in tm.numeric_literals(text) if n.excluded not in ("glued", "protected")
                }
            if start - 1 not in number_ends:
                continue
        edits.append((start, end, tm.match_case(word, table[low])))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


def _uk_tokens(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the free tokens whose lower-cased form is a Table A7 key: in a plain
    text, found by ``word_spans``; else one free token at a time.

    >>> _uk_tokens("The color of 2 meters of gray metal.")
    [(4, 9), (15, 21), (25, 29)]
    """
    b = bits(text)
    if b is not None:
        return word_spans(b, _uk_words(), b.free_start)
    table = uk_table()[0]
    return [(t.start, t.end) for t in tm.free_tokens(text) if t.text.lower() in table]


@loaded_once
def _uk_words() -> WordTable:
    """The Table A7 keys as a folded :class:`WordTable`."""
    return word_table(set(uk_table()[0]), folded=True)


# --------------------------------------------------------------------------------------------
# 5.9 number_format
# --------------------------------------------------------------------------------------------


_FOUR_DIGITS = re.compile("[0-9]{4}")


def _zip_code(text: str, num) -> bool:
    """A 5-digit integer right after a two-letter upper-case token and one space."""
    s = num.start
    if num.int_digits != 5 or num.frac_digits or num.negative or s < 3 or text[s - 1] != " ":
        return False
    a, b = text[s - 3], text[s - 2]
    if not (tm.is_cased_letter(a) and tm.is_cased_letter(b) and a.isupper() and b.isupper()):
        return False
    if s == 3:
        return True
    c = text[s - 4]
    if c.isalnum() or tm.is_mark(c):
        return False
    # A joiner between word characters would make the token longer than two letters.
    return not (c in tm.JOINERS and s >= 5 and (text[s - 5].isalnum() or tm.is_mark(text[s - 5])))


@perturbation(
    "number_format",
    family="word_level",
    description="Group the digits of large numbers with commas (1250000 -> 1,250,000).",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def number_format(text: str, rng: Draws) -> Outcome:
    """Insert thousands separators into ungrouped quantities of 4+ integer digits (§5.9).

    >>> number_format("In 1850 it had 1250000 residents and 4500.75 acres; call 555-0100 "
    ...               "or pay $1500.", None).text
    'In 1850 it had 1,250,000 residents and 4,500.75 acres; call 555-0100 or pay $1,500.'
    """
    if _FOUR_DIGITS.search(text) is None:  # no integer part of 4 digits without grouping
        return unchanged(text, "no_candidates")
    edits = []
    for num in tm.numeric_literals(text):
        if not num.quantity or num.grouped or num.int_digits < 4 or _zip_code(text, num):
            continue
        body = num.text[1:] if num.negative else num.text
        ip, dot, fp = body.partition(".")
        out = ("-" if num.negative else "") + f"{int(ip):,}" + dot + fp
        edits.append((num.start, num.end, out))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))
