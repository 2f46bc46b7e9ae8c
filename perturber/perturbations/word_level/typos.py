"""word_level, part A: typos and table-driven word edits (CATALOG.md §5.1–§5.4, §5.6–§5.9).

Entries: ``realistic_typos``, ``typos``, ``confusable_words``, ``repeated_chars`` (seeded) and
``contractions``, ``apostrophe_drop``, ``spelling_uk``, ``number_format`` (not seeded).

Positions inside a token are its clusters.  The typo entries check each option against the
*typo option filter* of §5 locally, from runs of equal letters that are found lazily and
memoised, so a chosen token costs O(its length) and a whole call O(len(text)).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import regex

from ... import text as tm
from ...data import unit_symbols
from ...registry import Outcome, count, perturbation, rate, unchanged
from ...rng import Draws, select
from .typo_mechanics import (
    _VOWELS,
    _alpha_letters,
    _caps_slips,
    _consonant_doubles,
    _doubles,
    _drops,
    _edit_caps,
    _edit_double,
    _edit_drop,
    _edit_insert,
    _edit_sub,
    _edit_swap,
    _glued,
    _key_inserts,
    _key_subs,
    _lower_or_title,
    _run_profile,
    _shift,
    _substitutes,
    _swaps,
    _typo_sites,
    _vowel_swaps,
    _Word,
)
from .typo_tables import _confusables, _contractions, _misspellings, _phonetic_rules, _qwerty, _uk

# --------------------------------------------------------------------------------------------
# 5.1 realistic_typos
# --------------------------------------------------------------------------------------------

_RT_MIN = 3


def _first_cased(word: str) -> int:
    for i, c in enumerate(word):
        if tm.is_cased_letter(c):
            return i
    return -1


def _phonetic_options(w: _Word) -> list[tuple]:
    """The Table A2 rules that apply and pass the filter, as edits, in table order.

    Each rule rewrites its first occurrence; the result equals ``match_case(token, rule applied
    to the lower-cased token)``: a title token whose first letter is rewritten keeps it upper.
    """
    word = w.tok.text
    any_rule, rules = _phonetic_rules()
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


def _missed_space(text: str, w: _Word, free: Sequence[tm.Token], idx: int) -> tuple | None:
    """``missed_space`` (§5.1 mechanism 11): the gap after the token is exactly one U+0020 and
    the next token is a free alpha token, and joining the two creates no run of 3+ equal
    letters longer than the longest in the two tokens.  Returns the run ``(key, length,
    limit)`` the joined next token inherits, or None when the mechanism does not apply."""
    tok = w.tok
    if idx + 1 >= len(free) or tok.end >= len(text) or text[tok.end] != " ":
        return None
    nxt = free[idx + 1]
    if nxt.start != tok.end + 1 or _alpha_letters(nxt.text) < 1:
        return None
    first, lead, longest = _run_profile(nxt.text)
    limit = max(w.limit, longest)
    a = w.keys[-1]
    tail = w.left(w.n - 1, a)  # type: ignore[arg-type]  # the last cluster is a letter
    if a == first and tail + lead > limit:
        return None
    return (a, tail, limit)


_RT_PRODUCERS = (
    ("key_sub", _key_subs), ("key_insert", _key_inserts), ("transpose", _swaps),
    ("double", _doubles), ("drop", _drops), ("caps_slip", _caps_slips),
    ("vowel_swap", _vowel_swaps), ("consonant_double", _consonant_doubles),
)


def _realise(w: _Word, mech: str, rng: Draws) -> tuple:
    """Draw the position (and option) of a positional mechanism and return its edit."""
    producer = dict(_RT_PRODUCERS)[mech]
    i = rng.choice(list(producer(w, _RT_MIN)))
    if mech == "key_sub":
        return _edit_sub(w, i, rng.choice(w.sub_options(i, _qwerty()[0][w.keys[i]])))
    if mech == "key_insert":
        return _edit_insert(w, i, rng.choice(w.insert_options(i, _qwerty()[0][w.keys[i]])))
    if mech == "vowel_swap":
        others = [v for v in _VOWELS if v != w.keys[i]]
        return _edit_sub(w, i, rng.choice(w.sub_options(i, others)))
    if mech == "transpose":
        return _edit_swap(w, i)
    if mech == "drop":
        return _edit_drop(w, i)
    if mech == "caps_slip":
        return _edit_caps(w, i)
    return _edit_double(w, i)  # double, consonant_double


def _rt_applicable(w: _Word) -> tuple[str, ...]:
    """The positional mechanisms of ``realistic_typos`` that have an option left for ``w``."""
    return tuple(name for name, producer in _RT_PRODUCERS
                 if next(producer(w, _RT_MIN), None) is not None)


@lru_cache(maxsize=4096)
def _rt_applicable_memo(word: str) -> tuple[str, ...]:
    """:func:`_rt_applicable` of a token with no run carried in: a pure function of its text."""
    return _rt_applicable(_Word(tm.Token(0, len(word), word)))


@perturbation("realistic_typos", version=2, family="word_level", seed_sensitive=True,
              params=[count(3, description="number of tokens to mistype")],
              description="Mistype words the way people do: common misspellings, phonetic "
                          "spellings, keyboard slips, swapped, doubled or dropped letters.")
def realistic_typos(text: str, rng: Draws, *, count: int) -> Outcome:
    """One human-like typo in each of ``count`` words (§5.1).

    >>> from perturber.rng import Draws
    >>> out = realistic_typos("Please receive the parcel today.", Draws(0), count=2)
    >>> out.edits, out.text != "Please receive the parcel today."
    (2, True)
    """
    free, cands = _typo_sites(text, _RT_MIN)
    if not cands:
        return unchanged(text, "no_candidates")
    misspell, longest = _misspellings()
    edits: list[tuple] = []
    inherit_at, inherit = -1, None   # a missed space joins free[inherit_at] to its predecessor
    for idx in select(cands, rng, count=count):
        tok = free[idx]
        w = _Word(tok, inherit if idx == inherit_at else None)
        mechs = []
        rep = misspell.get(tok.text.lower()) if len(tok.text) <= longest else None
        if rep is not None:
            rep = tm.match_case(tok.text, rep)
            if w.whole(rep, _RT_MIN):
                mechs.append("misspell")
        phonetic = _phonetic_options(w)
        if phonetic:
            mechs.append("phonetic")
        mechs += (_rt_applicable(w) if idx == inherit_at else _rt_applicable_memo(tok.text))
        joined = _missed_space(text, w, free, idx)
        if joined is not None:
            mechs.append("missed_space")
        mech = rng.choice(mechs)
        if mech == "misspell":
            edits.append((tok.start, tok.end, rep))
        elif mech == "phonetic":
            edits.append(rng.choice(phonetic))
        elif mech == "missed_space":
            edits.append((tok.end, tok.end + 1, ""))
            inherit_at, inherit = idx + 1, joined
        else:
            edits.append(_realise(w, mech, rng))
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.2 typos
# --------------------------------------------------------------------------------------------

_TY_MIN_CAND = 4
_TY_MIN = 3
_TY_OPS = (("swap", _swaps), ("delete", _drops), ("duplicate", _doubles),
           ("substitute", _substitutes))


@lru_cache(maxsize=4096)
def _typo_options(word: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The ops of ``typos`` that apply to ``word``, each with its cluster positions, in
    ``_TY_OPS`` order (after the option filter). A pure function of the word's text, so it is
    memoised: words recur across texts and seeds."""
    w = _Word(tm.Token(0, len(word), word))
    found = ((op, tuple(producer(w, _TY_MIN))) for op, producer in _TY_OPS)
    return tuple((op, positions) for op, positions in found if positions)


@perturbation("typos", version=2, family="word_level", seed_sensitive=True,
              params=[count(5, description="number of tokens to mistype")],
              description="One mechanical typo (swap, delete, duplicate or shift a letter) in "
                          "each of count words.")
def typos(text: str, rng: Draws, *, count: int) -> Outcome:
    """One swap, deletion, duplication or substitution in each of ``count`` words (§5.2).

    >>> from perturber.rng import Draws
    >>> out = typos("The weather tomorrow looks pleasant.", Draws(0), count=2)
    >>> out.edits, out.text.split()[0]
    (2, 'The')
    """
    free, cands = _typo_sites(text, _TY_MIN_CAND)
    if not cands:
        return unchanged(text, "no_candidates")
    edits = []
    for idx in select(cands, rng, count=count):
        w = _Word(free[idx])
        op, positions = rng.choice(_typo_options(w.tok.text))
        i = rng.choice(positions)
        if op == "swap":
            edits.append(_edit_swap(w, i))
        elif op == "delete":
            edits.append(_edit_drop(w, i))
        elif op == "duplicate":
            edits.append(_edit_double(w, i))
        else:  # substitute: shift the letter one step along a-z, wrapping
            edits.append(_edit_sub(w, i, _shift(w.keys[i], rng.choice(w.shift_options(i)))))
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.3 confusable_words
# --------------------------------------------------------------------------------------------

@perturbation("confusable_words", family="word_level", seed_sensitive=True,
              params=[rate(0.5)],
              description="Swap words for their common real-word confusions "
                          "(their/there, its/it's, then/than).")
def confusable_words(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Replace a fraction of the Table A4 words by their confusion (§5.3).

    >>> from perturber.rng import Draws
    >>> confusable_words("Their cat.", Draws(0), rate=1.0).text
    'There cat.'
    """
    table = _confusables()
    cands = []
    for tok in tm.free_tokens(text):
        key = tok.text.lower().replace("’", "'")
        rep = table.get(key)
        if rep is not None:
            cands.append((tok, rep))
    if not cands:
        return unchanged(text, "no_candidates")
    chosen = select(cands, rng, rate=rate)
    edits = []
    for tok, rep in chosen:
        out = tm.match_case(tok.text, rep)
        if "'" in out:
            out = tm.apply_apostrophe(out, tm.apostrophe_style(text, tok.text))
        edits.append((tok.start, tok.end, out))
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.4 repeated_chars
# --------------------------------------------------------------------------------------------



def _terminal_runs(text: str) -> list[tuple[int, int]]:
    """Terminal runs (§1.9) of the sentences that consist of 1-3 ``!``/``?`` only."""
    if "!" not in text and "?" not in text:
        return []
    out = []
    for u in tm.sentences(text):
        s, e = tm.trailing_run(text, u)
        if 1 <= e - s <= 3 and all(c == "!" or c == "?" for c in text[s:e]):
            out.append((s, e))
    return out


def _last_cluster(text: str, tok: tm.Token) -> str:
    j = tok.end
    while j > tok.start + 1 and tm.is_mark(text[j - 1]):
        j -= 1
    return text[j - 1:tok.end]


@perturbation("repeated_chars", version=2, family="word_level", seed_sensitive=True,
              params=[rate(0.3)],
              description="Stretch words and final !/? runs by repeating their last character.")
def repeated_chars(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Append 2-3 copies of the last cluster of chosen words and !/? runs (§5.4).

    >>> from perturber.rng import Draws
    >>> repeated_chars("Why?", Draws(0), rate=1.0).text in ("Whyyy???", "Whyyy????",
    ...     "Whyyyy???", "Whyyyy????")
    True
    """
    units = unit_symbols()
    spans = tm.Spans(tm.protected_spans(text))
    cands: list[tuple[int, Any]] = []
    for tok in tm.free_tokens(text, spans=spans):
        word = tok.text
        if (len(word) >= 2 and _alpha_letters(word) >= 2 and word not in units
                and _lower_or_title(word) and not _glued(text, tok)):
            cands.append((tok.start, tok))
    runs = [(s, e) for s, e in _terminal_runs(text) if not spans.overlaps(s, e)]
    if runs:
        cands.extend((s, (s, e)) for s, e in runs)
        cands.sort(key=lambda c: c[0])
    if not cands:
        return unchanged(text, "no_candidates")
    edits = []
    for _, c in select(cands, rng, rate=rate):
        k = rng.randint(2, 3)
        if isinstance(c, tm.Token):
            edits.append((c.end, c.end, _last_cluster(text, c) * k))
        else:
            edits.append((c[1], c[1], text[c[1] - 1] * k))
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.6 contractions
# --------------------------------------------------------------------------------------------

_HSPACE_RUN = regex.compile("[" + "".join(tm.HSPACE) + "]+")


def _next_is_word_char(text: str, pos: int) -> bool:
    m = _HSPACE_RUN.match(text, pos)
    if m is not None:
        pos = m.end()
    return pos < len(text) and text[pos].isalnum()


@perturbation("contractions", family="word_level",
              description="Contract phrases such as 'do not' and 'I am' (Table A5).")
def contractions(text: str, rng: Draws) -> Outcome:
    """Contract Table A5 phrases in one left-to-right scan (§5.6).

    >>> contractions("I am sure it is not ready.", None).text
    "I'm sure it's not ready."
    """
    two, one = _contractions()
    tokens = tm.word_tokens(text)
    free = tm.free_tokens(text, tokens)
    if not free:
        return unchanged(text, "no_candidates")
    free_starts = {t.start for t in free}
    lows = [t.text.lower() for t in tokens]
    style = None
    edits = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.start not in free_starts:
            i += 1
            continue
        hit = None
        if i + 1 < n:
            value = two.get((lows[i], lows[i + 1]))
            if value is not None:
                nxt = tokens[i + 1]
                if (nxt.start in free_starts and nxt.start > tok.end
                        and _HSPACE_RUN.fullmatch(text, tok.end, nxt.start) is not None):
                    hit = (value, i + 1)
        if hit is None:
            value = one.get(lows[i])
            if value is not None:
                hit = (value, i)
        if hit is None:
            i += 1
            continue
        (contraction, aux, negation), last = hit
        end = tokens[last].end
        if aux and not _next_is_word_char(text, end):
            i += 1
            continue
        if negation and last + 1 < n and lows[last + 1] == "only":
            i += 1
            continue
        source = tokens[i + 1].text if (lows[i] == "i" and last > i) else tok.text
        out = tm.match_case(source, contraction)
        if style is None:
            style = tm.apostrophe_style(text)
        edits.append((tok.start, end, tm.apply_apostrophe(out, style)))
        i = last + 1
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.7 apostrophe_drop
# --------------------------------------------------------------------------------------------

_SUFFIXES = frozenset(("s", "t", "re", "ve", "ll", "d", "m"))


@perturbation("apostrophe_drop", family="word_level",
              description="Drop the apostrophe of contractions and possessives (don't -> dont).")
def apostrophe_drop(text: str, rng: Draws) -> Outcome:
    """Delete the apostrophe before a final s, t, re, ve, ll, d or m (§5.7).

    >>> apostrophe_drop("Don't forget it's Sam's turn.", None).text
    'Dont forget its Sams turn.'
    """
    if "'" not in text and "’" not in text:
        return unchanged(text, "no_candidates")
    edits = []
    for tok in tm.free_tokens(text):
        word = tok.text
        j = max(word.rfind("'"), word.rfind("’"))
        if j <= 0 or word[j + 1:].lower() not in _SUFFIXES:
            continue
        k = j - 1
        while k > 0 and tm.is_mark(word[k]):
            k -= 1
        if word[k].isalpha():
            edits.append((tok.start + j, tok.start + j + 1, ""))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.8 spelling_uk
# --------------------------------------------------------------------------------------------

@perturbation("spelling_uk", family="word_level",
              description="Respell US word forms the British way (Table A7).")
def spelling_uk(text: str, rng: Draws) -> Outcome:
    """Replace Table A7 US spellings by their UK forms (§5.8).

    >>> spelling_uk("My favorite color is gray; the theater is 5 meters away.", None).text
    'My favourite colour is grey; the theatre is 5 metres away.'
    """
    table, after_number = _uk()
    spans = None
    number_ends = None
    edits = []
    for tok in tm.free_tokens(text):
        low = tok.text.lower()
        rep = table.get(low)
        if rep is None:
            continue
        if low in after_number:
            s = tok.start
            if s < 2 or text[s - 1] != " " or not ("0" <= text[s - 2] <= "9"):
                continue
            if number_ends is None:
                if spans is None:
                    spans = tm.Spans(tm.protected_spans(text))
                number_ends = {n.end for n in tm.numeric_literals(text, spans)
                               if n.excluded not in ("glued", "protected")}
            if s - 1 not in number_ends:
                continue
        edits.append((tok.start, tok.end, tm.match_case(tok.text, rep)))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 5.9 number_format
# --------------------------------------------------------------------------------------------

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


@perturbation("number_format", family="word_level",
              description="Group the digits of large numbers with commas (1250000 -> 1,250,000).")
def number_format(text: str, rng: Draws) -> Outcome:
    """Insert thousands separators into ungrouped quantities of 4+ integer digits (§5.9).

    >>> number_format("In 1850 it had 1250000 residents and 4500.75 acres; call 555-0100 "
    ...               "or pay $1500.", None).text
    'In 1850 it had 1,250,000 residents and 4,500.75 acres; call 555-0100 or pay $1,500.'
    """
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
