"""word_level, part A: typos and table-driven word edits (CATALOG.md §5.1–§5.4, §5.6–§5.9).

Entries: ``realistic_typos``, ``typos``, ``confusable_words``, ``repeated_chars`` (seeded) and
``contractions``, ``apostrophe_drop``, ``spelling_uk``, ``number_format`` (not seeded).

Positions inside a token are its clusters.  The typo entries check each option against the
*typo option filter* of §5 locally, from runs of equal letters that are found lazily and
memoised, so a chosen token costs O(its length) and a whole call O(len(text)).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate
from typing import Any

import regex

from ... import text as tm
from ...data import load_table, unit_symbols
from ...registry import Outcome, count, perturbation, rate, unchanged
from ...rng import Draws, select

# --------------------------------------------------------------------------------------------
# Tables (cached on first use; iteration follows the printed order)
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _misspellings() -> tuple[dict, int]:
    """Table A1 as a dict, and the length of its longest key."""
    table = {a: b for a, b in load_table("a01_misspellings")["pairs"]}
    return table, max(map(len, table))


def _ascii_ci(literal: str) -> str:
    return "".join(f"[{c}{c.upper()}]" for c in literal)


@lru_cache(maxsize=1)
def _phonetic_rules() -> tuple:
    """``(pattern, replacement)`` per Table A2 rule, in table order, searched in the original
    token with ASCII-only case-insensitive matching (so ``K`` KELVIN SIGN never matches ``k``).
    A match never ends before a combining mark, so whole clusters are replaced.  A None
    replacement means "keep the first letter of the doubled consonant"."""
    cons = load_table("a03_qwerty_neighbours")["consonants"]
    out = []
    for rule in load_table("a02_phonetic_rules")["rules"]:
        if rule["kind"] == "doubled_consonant":
            pattern = "(?:" + "|".join(_ascii_ci(c + c) for c in cons) + r")(?!\p{M})"
            out.append((regex.compile(pattern), None))
        elif rule["where"] == "final":
            out.append((regex.compile(_ascii_ci(rule["from"]) + r"\Z"), rule["to"]))
        else:
            out.append((regex.compile(_ascii_ci(rule["from"]) + r"(?!\p{M})"), rule["to"]))
    # One search that finds whether any rule can apply at all.
    any_rule = regex.compile("|".join(p.pattern for p, _ in out))
    return any_rule, tuple(out)


@lru_cache(maxsize=1)
def _qwerty() -> tuple[dict, frozenset]:
    table = load_table("a03_qwerty_neighbours")
    return dict(table["neighbours"]), frozenset(table["consonants"])


@lru_cache(maxsize=1)
def _confusables() -> dict:
    return {a: b for a, b in load_table("a04_confusables")["pairs"]}


@lru_cache(maxsize=1)
def _contractions() -> tuple[dict, dict]:
    """Two-word phrases keyed by ``(w1, w2)`` and one-word phrases keyed by ``w``, each mapped
    to ``(contraction, aux, ends_in_not)``."""
    two, one = {}, {}
    for row in load_table("a05_contractions")["phrases"]:
        words = row["phrase"].split()
        value = (row["contraction"], row["aux"], row["phrase"].endswith("not"))
        if len(words) == 2:
            two[(words[0], words[1])] = value
        else:
            one[words[0]] = value
    return two, one


@lru_cache(maxsize=1)
def _uk() -> tuple[dict, frozenset]:
    table = load_table("a07_us_uk_spellings")
    pairs = {a: b for group in table["groups"] for a, b in group["pairs"]}
    return pairs, frozenset(table["number_required"])


# --------------------------------------------------------------------------------------------
# Token helpers
# --------------------------------------------------------------------------------------------

_HAS_NUMBER = regex.compile(r"\p{N}")
_LETTER = regex.compile(r"\p{L}")
_HAS_MARK = regex.compile(r"\p{M}")
_RUN3 = regex.compile(r"(.)\1{2,}", regex.S)
_LEAD_RUN = regex.compile(r"(.)\1*", regex.S)
_VOWELS = "aeiou"
_VOWEL_SET = frozenset(_VOWELS)
_ZWJ = "\u200d"


def _alpha_letters(word: str) -> int:
    """Number of letters of an alpha token, or -1 when the token holds a number (N*)."""
    if word.isalpha():
        return len(word)
    if word.isascii():  # the other characters are digits or the joiners ' and -
        bare = word.replace("'", "").replace("-", "")
        return len(bare) if bare.isalpha() else -1
    if _HAS_NUMBER.search(word):
        return -1
    return len(_LETTER.findall(word))


def _lower_or_title(word: str) -> bool:
    """Case class ``lower`` or ``title`` (§1.6) of a token that starts with a letter."""
    if word.isascii():
        return word.islower() or (word[0].isupper() and word[1:].islower())
    cls = tm.case_class(word)
    return cls == "lower" or cls == "title"


def _glued(text: str, tok: tm.Token) -> bool:
    """True when a token edge falls inside a cluster (§1.5): the token follows a ZWJ, or is
    followed by a ZWJ, an emoji modifier or a tag character.  Such tokens are never edited,
    so that no edit can split a cluster."""
    if tok.start > 0 and text[tok.start - 1] == _ZWJ:
        return True
    if tok.end < len(text):
        c = text[tok.end]
        return c == _ZWJ or "\U0001f3fb" <= c <= "\U0001f3ff" or "\U000e0020" <= c <= "\U000e007f"
    return False


def _typo_candidates(text: str, free: Sequence[tm.Token], min_letters: int) -> list[int]:
    """Indices into ``free`` of the alpha tokens with enough letters, class lower or title."""
    out = []
    for i, tok in enumerate(free):
        word = tok.text
        if (len(word) >= min_letters and _alpha_letters(word) >= min_letters
                and _lower_or_title(word) and not _glued(text, tok)):
            out.append(i)
    return out


def _typo_sites(text: str, min_letters: int) -> tuple[Sequence[tm.Token], Sequence[int]]:
    """The free tokens of ``text`` and the indices of the typo candidates among them
    (memoised for short texts, like the text model's tokens)."""
    if len(text) <= _SITES_MEMO_MAX_CHARS:
        return _typo_sites_memo(text, min_letters)
    free = tm.free_tokens(text)
    return free, _typo_candidates(text, free, min_letters)


_SITES_MEMO_MAX_CHARS = 4096


@lru_cache(maxsize=256)
def _typo_sites_memo(text: str, min_letters: int) -> tuple[tuple[tm.Token, ...], tuple[int, ...]]:
    free = tuple(tm.free_tokens(text))
    return free, tuple(_typo_candidates(text, free, min_letters))


def _split(word: str) -> list[str]:
    """Clusters (§1.5) of a token's text."""
    if word.isascii() or not _HAS_MARK.search(word):
        return list(word)
    return [word[s:e] for s, e in tm.cluster_spans(word)]


def _key(cluster: str) -> str | None:
    """Case-insensitive identity of a letter cluster; None for a non-letter (a joiner)."""
    return cluster.lower() if cluster[0].isalpha() else None


def _simple(word: str, low: str) -> bool:
    """One code point per cluster, and lower-casing maps each code point to one code point."""
    return len(low) == len(word) and (word.isascii() or not _HAS_MARK.search(word))


def _run_profile(word: str) -> tuple[str | None, int, int]:
    """(key of the first letter, length of the leading run, longest run) of a token."""
    low = word.lower()
    if _simple(word, low):
        lead_run = _LEAD_RUN.match(low)
        assert lead_run is not None  # a simple word starts with a letter
        lead = lead_run.end()
        longest = max((m.end() - m.start() for m in _RUN3.finditer(low)), default=1)
        return low[0], lead, max(longest, lead)
    keys = [_key(c) for c in _split(word)]
    lead = 1
    while lead < len(keys) and keys[lead] == keys[0]:
        lead += 1
    return keys[0], lead, _longest_run(keys)


def _longest_run(keys: list) -> int:
    best = cur = 0
    prev = None
    for k in keys:
        cur = cur + 1 if (k is not None and k == prev) else (1 if k is not None else 0)
        prev = k
        if cur > best:
            best = cur
    return best


def _with_case(letter: str, source: str) -> str:
    return letter.upper() if source.isupper() else letter


def _shift(letter: str, d: int) -> str:
    return chr((ord(letter) - 97 + d) % 26 + 97)


class _Word:
    """A chosen token as clusters, with the typo option filter of §5 as local run checks.

    ``keys[i]`` is the lower-cased cluster for a letter and None for a joiner.  Runs of equal
    keys are found on demand and memoised.  ``ext`` is ``(key, length, limit)`` of the letter
    run the previous token brings in when ``missed_space`` deleted the space before this token.
    """

    __slots__ = ("tok", "texts", "keys", "n", "offs", "_rs", "_re", "letters", "limit",
                 "ext_key", "ext_len", "first", "last")

    def __init__(self, tok: tm.Token, ext: tuple | None = None) -> None:
        self.tok = tok
        word = tok.text
        low = word.lower()
        if _simple(word, low):
            n = len(word)
            self.texts: str | list[str] = word
            joiners = (word.count("'") + word.count("-") if word.isascii()
                       else sum(word.count(j) for j in tm.JOINERS))
            self.keys: list[str | None] = ([None if c in tm.JOINERS else c for c in low] if joiners
                                           else list(low))
            self.offs = None
            self.letters = n - joiners
            self.first, self.last = 0, n - 1
            best = max((m.end() - m.start() for m in _RUN3.finditer(low)), default=0)
        else:
            texts = self.texts = _split(word)
            n = len(texts)
            keys = self.keys = [_key(c) for c in texts]
            self.offs = list(accumulate(map(len, texts), initial=tok.start))
            letter_idx = [i for i, k in enumerate(keys) if k is not None]
            self.letters = len(letter_idx)
            self.first, self.last = letter_idx[0], letter_idx[-1]
            best = _longest_run(keys)
        self.n = n
        self._rs: list[int] | None = None
        self._re: list[int] | None = None
        if ext is None:
            self.ext_key, self.ext_len = None, 0
            self.limit = max(2, best)
        else:
            self.ext_key, self.ext_len = ext[0], ext[1]
            self.limit = max(2, best, ext[2])

    def off(self, i: int) -> int:
        """Text offset of the start of cluster ``i`` (``i == n``: the token end)."""
        return self.tok.start + i if self.offs is None else self.offs[i]

    def index(self, pos: int) -> int:
        """Cluster index starting at token-relative code-point offset ``pos``."""
        return pos if self.offs is None else bisect_left(self.offs, self.tok.start + pos)

    def _bounds(self, i: int) -> tuple[int, int]:
        """First and last cluster of the run of equal letters through ``i``."""
        rs, re_ = self._rs, self._re
        if rs is None or re_ is None:
            rs = self._rs = [-1] * self.n
            re_ = self._re = [-1] * self.n
        s = rs[i]
        if s >= 0:
            return s, re_[i]
        keys, k = self.keys, self.keys[i]
        a = i
        while a > 0 and keys[a - 1] == k:
            a -= 1
        b = i
        last = self.n - 1
        while b < last and keys[b + 1] == k:
            b += 1
        rs[a:b + 1] = [a] * (b - a + 1)
        re_[a:b + 1] = [b] * (b - a + 1)
        return a, b

    def left(self, i: int, c: str) -> int:
        """Length of the run of letter ``c`` ending at cluster ``i`` (inclusive)."""
        if i < 0:
            return self.ext_len if c == self.ext_key else 0
        if self.keys[i] != c:
            return 0
        s = self._bounds(i)[0]
        r = i - s + 1
        if s == 0 and c == self.ext_key:
            r += self.ext_len
        return r

    def right(self, i: int, c: str) -> int:
        """Length of the run of letter ``c`` starting at cluster ``i``."""
        if i >= self.n or self.keys[i] != c:
            return 0
        return self._bounds(i)[1] - i + 1

    def before(self, i: int):
        """Key of the letter before cluster ``i`` (the inherited run at the token start)."""
        return self.keys[i - 1] if i > 0 else self.ext_key

    def ok(self, i: int, j: int, new: list) -> bool:
        """The run part of the typo option filter: replacing clusters ``[i, j)`` by clusters
        with keys ``new`` creates no run of 3+ equal letters longer than the longest run
        already there (and never a run of 3 where there was none)."""
        lim = self.limit
        if not new:
            a = self.before(i)
            if a is None or j >= self.n or self.keys[j] != a:
                return True
            return self.left(i - 1, a) + self.right(j, a) <= lim
        m = len(new)
        k = 0
        while k < m:
            c = new[k]
            e = k
            while e + 1 < m and new[e + 1] == c:
                e += 1
            if c is not None:
                r = e - k + 1
                if k == 0:
                    r += self.left(i - 1, c)
                if e == m - 1:
                    r += self.right(j, c)
                if r > lim:
                    return False
            k = e + 1
        return True

    def whole(self, out: str, min_letters: int) -> bool:
        """The typo option filter for a whole-token replacement ``out`` (a short word)."""
        keys = [_key(c) for c in _split(out)]
        return sum(k is not None for k in keys) >= min_letters and self.ok(0, self.n, keys)

    def is_ascii_letter(self, i: int) -> bool:
        c = self.texts[i]
        return len(c) == 1 and c < "\x80" and c.isalpha()

    # Options at one position, in table order, that pass the filter.
    def sub_options(self, i: int, letters) -> list[str]:
        return [c for c in letters if self.ok(i, i + 1, [c])]

    def insert_options(self, i: int, letters) -> list[str]:
        return [c for c in letters if self.ok(i, i, [c])]

    def shift_options(self, i: int) -> list[int]:
        k = self.keys[i]
        return [d for d in (-1, 1) if self.ok(i, i + 1, [_shift(k, d)])]  # type: ignore[arg-type]  # a letter: key set


# Position producers shared by realistic_typos and typos.  Each yields, left to right, the
# positions that keep at least one option after the filter; the first item alone decides
# whether the mechanism applies.  A substitution or insertion of ``c`` can only be filtered
# when ``c`` equals a neighbouring letter, so positions with more options than neighbours are
# yielded without checking each option.

def _swaps(w: _Word, min_letters: int):
    keys, n = w.keys, w.n
    for i in range(n - 1):
        a, b = keys[i], keys[i + 1]
        if a is None or b is None or a == b:
            continue
        # A run of 3 needs two equal letters next to the moved one.
        if ((w.before(i) == b and (i < 2 or keys[i - 2] == b))
                or (i + 3 < n and keys[i + 2] == a and keys[i + 3] == a)):
            if not w.ok(i, i + 2, [b, a]):
                continue
        yield i


def _doubles(w: _Word, min_letters: int):
    keys, n = w.keys, w.n
    for i in range(n):
        k = keys[i]
        if k is None or (i > 0 and keys[i - 1] == k) or (i + 1 < n and keys[i + 1] == k):
            continue
        if i == 0 and w.ext_key == k and not w.ok(1, 1, [k]):
            continue
        yield i


def _drops(w: _Word, min_letters: int):
    if w.letters - 1 < min_letters:
        return
    keys, n = w.keys, w.n
    for i in range(w.first + 1, n):
        k = keys[i]
        if k is None:
            continue
        a = keys[i - 1]
        if (a is not None and a != k and i + 1 < n and keys[i + 1] == a
                and ((i >= 2 and keys[i - 2] == a) or i == 1 or (i + 2 < n and keys[i + 2] == a))
                and not w.ok(i, i + 1, [])):
            continue
        yield i


def _blockers(w: _Word, i: int, j: int) -> tuple:
    return (w.before(i), w.keys[j] if j < w.n else None)


def _key_subs(w: _Word, min_letters: int):
    nb = _qwerty()[0]
    for i in range(w.n):
        if w.is_ascii_letter(i):
            opts = nb[w.keys[i]]
            if len(opts) > 2 or w.sub_options(i, opts):
                yield i


def _key_inserts(w: _Word, min_letters: int):
    nb = _qwerty()[0]
    for i in range(w.n):
        if w.is_ascii_letter(i):
            opts = nb[w.keys[i]]
            if len(opts) > 2 or w.insert_options(i, opts):
                yield i


def _caps_slips(w: _Word, min_letters: int):
    # Flipping a cased letter (§6: one-code-point, reversible swapcase) keeps its key, so the
    # filter never removes it.
    texts, keys, cased = w.texts, w.keys, tm.is_cased_letter
    for i in range(w.n):
        if keys[i] is not None and cased(texts[i][0]):
            yield i


def _vowel_swaps(w: _Word, min_letters: int):
    keys = w.keys
    for i in range(w.first + 1, w.last):
        if keys[i] in _VOWEL_SET and w.is_ascii_letter(i):
            yield i  # four other vowels, at most two of them can be filtered


def _consonant_doubles(w: _Word, min_letters: int):
    cons = _qwerty()[1]
    keys, n = w.keys, w.n
    for i in range(w.first + 1, n):
        k = keys[i]
        if (k in cons and keys[i - 1] != k and (i + 1 >= n or keys[i + 1] != k)
                and w.is_ascii_letter(i)):
            yield i


def _substitutes(w: _Word, min_letters: int):
    for i in range(w.n):
        if w.is_ascii_letter(i):
            k = w.keys[i]
            nbrs = _blockers(w, i, i + 1)
            if (_shift(k, -1) not in nbrs and _shift(k, 1) not in nbrs) or w.shift_options(i):  # type: ignore[arg-type]
                yield i


# Edits (absolute ``(start, end, replacement)``) for the positional mechanisms.

def _edit_sub(w: _Word, i: int, letter: str) -> tuple:
    return (w.off(i), w.off(i + 1), _with_case(letter, w.texts[i]))


def _edit_insert(w: _Word, i: int, letter: str) -> tuple:
    return (w.off(i), w.off(i), _with_case(letter, w.texts[i]))


def _edit_swap(w: _Word, i: int) -> tuple:
    return (w.off(i), w.off(i + 2), w.texts[i + 1] + w.texts[i])


def _edit_double(w: _Word, i: int) -> tuple:
    return (w.off(i + 1), w.off(i + 1), w.texts[i])


def _edit_drop(w: _Word, i: int) -> tuple:
    return (w.off(i), w.off(i + 1), "")


def _edit_caps(w: _Word, i: int) -> tuple:
    c = w.texts[i]
    return (w.off(i), w.off(i + 1), c[0].swapcase() + c[1:])


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


@perturbation("realistic_typos", family="word_level", seed_sensitive=True,
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


@perturbation("typos", family="word_level", seed_sensitive=True,
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


@perturbation("repeated_chars", family="word_level", seed_sensitive=True,
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
