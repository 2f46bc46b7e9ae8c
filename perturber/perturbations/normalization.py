"""normalization: canonical surface forms a real user might type instead (docs/spec/catalog.md §9).

Every entry here is deterministic and seed-insensitive (no draws), leaves protected spans alone
(except ``url_email_mask``, which masks URLs and e-mail addresses by design), and assembles its
output from untouched slices of the input plus replacements (G1).  Tables: A9 (units), A14, A15,
A16, A19; ``emoji_shortcode``/``shortcode_emoji`` use the pinned ``emoji`` package, imported
lazily on first use.
"""

from __future__ import annotations

import calendar
import re
from typing import Any

import regex

from .. import jsontext
from .. import text as tm
from ..data import load_table
from ..memo import loaded_once
from ..registry import Outcome, perturbation, unchanged
from ..rng import Draws

_FAMILY = "normalization"


def _spans(text: str) -> tm.Spans:
    return tm.Spans(tm.protected_spans(text))


# --------------------------------------------------------------------------------------------
# 9.1 quote_style
# --------------------------------------------------------------------------------------------

_STRAIGHT = re.compile(r"['\"]")
_OPEN_CONTEXT = frozenset("([{<—–-/“‘")


def _letter_before(text: str, i: int) -> bool:
    """The cluster before offset ``i`` has a letter as its base (marks are skipped)."""
    j = i - 1
    if j < 0:
        return False
    if text[j].isalpha():  # str.isalpha is exactly category L*
        return True
    while j >= 0 and tm.is_mark(text[j]):
        j -= 1
    return j >= 0 and j < i - 1 and text[j].isalpha()


@perturbation(
    "quote_style",
    family=_FAMILY,
    description="Curl straight quotes, each decided from its own context.",
    version=2,
    reasons=("structured_input", "no_candidates"),
    fix_at="input_normalisation",
)
def quote_style(text: str, rng: Draws) -> Outcome:
    """Straight quotes become typographic ones, decided locally (never by alternation).

    >>> quote_style('She said "it\\'s fine" and left \\'early\\'. He is 6\\'2".', None).text
    'She said “it’s fine” and left ‘early’. He is 6\\'2".'
    """
    if jsontext.is_container(text):
        return unchanged(text, "structured_input")
    if "'" not in text and '"' not in text:
        return unchanged(text, "no_candidates")
    spans = _spans(text)
    contains = spans.contains if spans else None
    n = len(text)
    edits = []
    last_open = -2  # offset of the last straight quote turned into an opening quote
    for m in _STRAIGHT.finditer(text):
        i = m.start()
        if contains is not None and contains(i):
            continue
        prev = text[i - 1] if i else " "  # the start of the text acts like whitespace
        if prev.isdecimal():
            continue  # feet, inches, primes: 6'2"
        nxt = text[i + 1] if i + 1 < n else " "  # the end of the text counts as whitespace
        opening = prev.isspace() or prev in _OPEN_CONTEXT or last_open == i - 1
        if text[i] == '"':
            rep = "“" if opening and not nxt.isspace() else "”"
        elif nxt.isalpha() and _letter_before(text, i):
            rep = "’"  # apostrophe between two letters
        elif opening and nxt.isdecimal():
            rep = "’"  # '90s
        elif opening and nxt.isalpha():
            rep = "‘"
        else:
            rep = "’"
        if rep == "“" or rep == "‘":
            last_open = i
        edits.append((i, i + 1, rep))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 9.2 smart_to_ascii
# --------------------------------------------------------------------------------------------

_A14: dict | None = None
_A14_RE: re.Pattern | None = None


def _a14() -> tuple[dict, re.Pattern]:
    global _A14, _A14_RE
    if _A14 is None or _A14_RE is None:
        _A14 = {src: dst for src, dst in load_table("a14_smart_ascii")["map"]}
        _A14_RE = re.compile("[" + "".join(_A14) + "]")
    return _A14, _A14_RE


@perturbation(
    "smart_to_ascii",
    family=_FAMILY,
    description="Replace typographic quotes, dashes, ellipses and NBSPs with ASCII.",
    version=2,
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def smart_to_ascii(text: str, rng: Draws) -> Outcome:
    """One pass of Table A14 outside protected spans.

    >>> smart_to_ascii("“Yes” — it’s… fine", None).text
    '"Yes" -- it\\'s... fine'
    """
    table, pattern = _a14()
    matches = [m.start() for m in pattern.finditer(text)]
    if not matches:
        return unchanged(text, "no_candidates")
    spans = _spans(text)
    edits = [(i, i + 1, table[text[i]]) for i in matches if not (spans and spans.contains(i))]
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 9.3 abbreviations
# --------------------------------------------------------------------------------------------

_BINDING = frozenset("_/\\@#$%&=+<>|^~[]{}")
_WS_FWD = re.compile(r"\s")
_WS_BACK = regex.compile(r"(?r)\s")


class _AbbrTables:
    def __init__(self) -> None:
        rows = load_table("a15_abbreviations")["rows"]
        self.dotted: dict[str, list] = {}  # lower-case form -> rows, in table order
        self.words: dict[str, Any] = {}  # lower-case word form -> row
        for row in rows:
            for form in row["forms"]:
                key = form.lower()
                if form.endswith("."):
                    self.dotted.setdefault(key, []).append(row)
                else:
                    self.words[key] = row
        # Every dotted form ends with its period and none is a suffix of another, so at most one
        # form ends at each period: the form lengths, longest first.
        self.lengths = sorted({len(f) for f in self.dotted}, reverse=True)
        self.word_forms = tuple(self.words)


# etc., min., hr(s)., yr(s)., dept., govt.: a period is also kept before a title/upper token
_PERIOD_BEFORE_CAPITAL = frozenset(["etc.", "min.", "hr.", "hrs.", "yr.", "yrs.", "dept.", "govt."])


_abbr_tables = loaded_once(_AbbrTables)


def _wordish(ch: str) -> bool:
    """A word character (L*, N*) or a combining mark."""
    return ch.isalnum() or (not ch.isascii() and tm.is_mark(ch))


def _dotted_ok(text: str, s: int, e: int) -> bool:
    """A dotted form ``text[s:e]`` starts a word and its final period ends one.

    Not after a word character or mark, a joiner or ``.``/``:`` that follows one (so never inside
    a longer word, ``x-etc.``, ``a.e.g.``), or a binding character of §1.6 (``/etc.``); and the
    final period is not glued to a word character (``e.g.x``, ``No.5``, ``min.js``).
    """
    if s > 0:
        c = text[s - 1]
        if _wordish(c) or c in _BINDING:
            return False
        if (c in tm.JOINERS or c == "." or c == ":") and s > 1 and _wordish(text[s - 2]):
            return False
    return not (e < len(text) and _wordish(text[e]))


_PERIOD = re.compile(r"\.")


def _dotted_forms(text: str, tables: _AbbrTables) -> list[tuple[int, int]]:
    """Spans of the dotted forms (ASCII case-insensitive) in one left-to-right scan, skipping a
    form that overlaps an earlier one, and keeping those that pass ``_dotted_ok``."""
    out: list[tuple[int, int]] = []
    last = 0
    dotted = tables.dotted
    for m in _PERIOD.finditer(text):
        e = m.end()
        for length in tables.lengths:
            s = e - length
            if s < last:
                continue
            chunk = text[s:e]
            if chunk.isascii() and chunk.lower() in dotted:
                if _dotted_ok(text, s, e):
                    out.append((s, e))
                last = e
                break
    return out


def _skip_hspace_fwd(text: str, p: int) -> int:
    n = len(text)
    while p < n and text[p].isspace() and text[p] not in "\r\n":
        p += 1
    return p


def _skip_hspace_back(text: str, p: int) -> int:
    while p > 0 and text[p - 1].isspace() and text[p - 1] not in "\r\n":
        p -= 1
    return p


class _Context:
    """The word token or numeric literal adjacent to a position, across horizontal whitespace
    only (§9.3 "followed by" / "preceded by"), outside protected spans.

    Tokens and literals never contain whitespace, so each look-up tokenizes only the
    whitespace-delimited run next to the position (the same tokens as in the whole text).
    """

    def __init__(self, text: str, spans: tm.Spans) -> None:
        self.text = text
        self.spans = spans
        self._after: dict[int, object] = {}

    def _run_after(self, q: int) -> tuple[int, int] | None:
        text = self.text
        if q >= len(text) or text[q].isspace():
            return None
        m = _WS_FWD.search(text, q)
        return q, (m.start() if m is not None else len(text))

    def _run_before(self, p: int) -> tuple[int, int] | None:
        text = self.text
        if p == 0 or not _wordish(text[p - 1]):
            return None
        m = _WS_BACK.search(text, 0, p)
        return (m.end() if m is not None else 0), p

    def _free(self, s: int, e: int) -> bool:
        return not (self.spans and self.spans.overlaps(s, e))

    def token_at(self, q: int):
        """The word token that starts at ``q`` (``q`` follows whitespace or starts the text)."""
        run = self._run_after(q)
        if run is None:
            return None
        a, b = run
        toks = tm.word_tokens(self.text[a:b])
        if toks and toks[0].start == 0 and self._free(a, a + toks[0].end):
            return toks[0]
        return None

    def token_after(self, e: int):
        if e not in self._after:
            self._after[e] = self.token_at(_skip_hspace_fwd(self.text, e))
        return self._after[e]

    def token_before(self, s: int):
        run = self._run_before(_skip_hspace_back(self.text, s))
        if run is None:
            return None
        a, b = run
        toks = tm.word_tokens(self.text[a:b])
        if toks and toks[-1].end == b - a and self._free(a + toks[-1].start, b):
            return toks[-1]
        return None

    def number_after(self, e: int):
        run = self._run_after(_skip_hspace_fwd(self.text, e))
        if run is None:
            return None
        a, b = run
        nums = tm.numeric_literals(self.text[a:b], ())
        if nums and nums[0].start == 0 and self._free(a, a + nums[0].end):
            return nums[0]
        return None

    def number_before(self, s: int):
        """A numeric literal ending at ``s`` (after horizontal whitespace), not glued to a letter
        on its left (``A4`` is not a number)."""
        run = self._run_before(_skip_hspace_back(self.text, s))
        if run is None:
            return None
        a, b = run
        nums = tm.numeric_literals(self.text[a:b], ())
        if not nums:
            return None
        x = nums[-1]
        start = a + x.start
        if x.end != b - a or (start > 0 and self.text[start - 1].isalpha()):
            return None
        return x if self._free(start, b) else None


def _title(tok) -> bool:
    return tok is not None and tm.case_class(tok.text) == "title"


def _dotted_expansion(text: str, s: int, e: int, rows, ctx: _Context) -> str | None:
    """The expansion of the dotted form ``text[s:e]`` whose rows are ``rows``, or None."""
    for row in rows:
        cond = row["condition"]
        exp = row["expansion"]
        if cond == "none":
            return exp
        if cond == "title_follows":
            if _title(ctx.token_after(e)):
                return exp
        elif cond == "saint":
            if _title(ctx.token_after(e)) and not _title(ctx.token_before(s)):
                return exp
        elif cond == "street":
            if (_title(ctx.token_before(s)) or ctx.number_before(s) is not None) and not _title(
                ctx.token_after(e)
            ):
                return exp
        elif cond == "number_precedes":
            num = ctx.number_before(s)
            if num is not None:
                return exp[1] if num.text == "1" else exp[0]
        elif cond == "number_follows":
            if ctx.number_after(e) is not None:
                return exp
    return None


def _final_period(text: str, e: int, key: str, ctx: _Context) -> bool:
    """Whether the expansion of a dotted form ending at ``e`` keeps a sentence-final ``.``."""
    p = _skip_hspace_fwd(text, e)
    if p == len(text) or text[p] in "\r\n":
        return True
    if key in _PERIOD_BEFORE_CAPITAL and text[e].isspace():
        q = e
        while q < len(text) and text[q].isspace():
            q += 1
        tok = ctx.token_at(q)
        return tok is not None and tm.case_class(tok.text) in ("title", "upper")
    return False


def _line_start_or_sentence_end(text: str, s: int) -> bool:
    """Nothing but whitespace precedes ``s`` on its line, or the nearest character is . ! ?"""
    p = _skip_hspace_back(text, s)
    return p == 0 or text[p - 1] in "\r\n.!?"


@perturbation(
    "abbreviations",
    family=_FAMILY,
    description="Expand common abbreviations (Table A15) in context.",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def abbreviations(text: str, rng: Draws) -> Outcome:
    """Expand e.g., etc., Dr., St., min., info, FYI, … where their context allows.

    >>> abbreviations("Ask Dr. Lee, e.g. on Main St. in St. Louis etc. FYI it takes 1 min.", None).text
    'Ask Doctor Lee, for example on Main Street in Saint Louis and so on. For your information it takes 1 minute.'
    """
    tables = _abbr_tables()
    dotted = _dotted_forms(text, tables) if "." in text else []
    lowered = text.lower()
    words = any(w in lowered for w in tables.word_forms)
    if not dotted and not words:
        return unchanged(text, "no_candidates")
    spans = _spans(text)
    ctx = _Context(text, spans)
    sites: list[tuple[int, int, str]] = []
    for s, e in dotted:
        if spans and spans.overlaps(s, e):
            continue
        form = text[s:e]
        key = form.lower()
        exp = _dotted_expansion(text, s, e, tables.dotted[key], ctx)
        if exp is None:
            continue
        letters = "".join(c for c in form if c.isalpha())
        rep = tm.match_case(letters, exp)
        if _final_period(text, e, key, ctx):
            rep += "."
        sites.append((s, e, rep))
    if words:
        for tok in tm.free_tokens(text, None, spans):
            row = tables.words.get(tok.text.lower())
            if row is None:
                continue
            exp = row["expansion"]
            if tm.case_class(tok.text) == "upper":
                rep = exp
                if _line_start_or_sentence_end(text, tok.start):
                    rep = exp[0].upper() + exp[1:]
            else:
                rep = tm.match_case(tok.text, exp)
            sites.append((tok.start, tok.end, rep))
        sites.sort()
        kept: list[tuple[int, int, str]] = []
        for site in sites:
            if not kept or site[0] >= kept[-1][1]:
                kept.append(site)
        sites = kept
    if not sites:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, sites), len(sites))


# --------------------------------------------------------------------------------------------
# 9.4 date_unit
# --------------------------------------------------------------------------------------------

_DATE = regex.compile(r"(?<![\p{L}\p{N}\p{M}_])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![\p{L}\p{N}\p{M}_])")
_CONNECTORS = frozenset("-/:.")
_CURRENCY = frozenset("$€£¥₹")
_UNIT_STOP = frozenset("/²³^")
_ANY_DIGIT = re.compile(r"[0-9]")


class _UnitTables:
    def __init__(self) -> None:
        rows = load_table("a09_units")["rows"]
        entries = []
        for row in rows:
            for sym in row["symbols"]:
                entries.append((sym, row["singular"], row["plural"]))
        entries.sort(key=lambda x: len(x[0]), reverse=True)  # stable: table order among ties
        # by first character, each list in that order: the symbols that can start at a position
        self.by_first: dict[str, list[tuple[str, str, str]]] = {}
        for entry in entries:
            self.by_first.setdefault(entry[0][0], []).append(entry)
        self.first_chars = frozenset(self.by_first)
        # a digit, at most one space or NBSP, then a character that can start a symbol
        self.hint = re.compile(
            "[0-9][ \u00a0]?[" + "".join(sorted(re.escape(c) for c in self.first_chars)) + "]"
        )
        self.months = tuple(load_table("a19_months")["months"])


_unit_tables = loaded_once(_UnitTables)


def _unit_at(text: str, p: int, tables: _UnitTables):
    """The longest A9 symbol at ``p`` not followed by a word character, ``/``, ``²``, ``³``, ``^``."""
    n = len(text)
    if p >= n or text[p] not in tables.first_chars:
        return None
    for sym, singular, plural in tables.by_first[text[p]]:
        if text.startswith(sym, p):
            q = p + len(sym)
            if q < n:
                c = text[q]
                if c.isalnum() or c in _UNIT_STOP or tm.is_mark(c):
                    continue
            return q, singular, plural
    return None


def _unit_numbers(text: str, spans: tm.Spans, tables: _UnitTables) -> list:
    """Literals eligible as unit quantities: §1.10 rules 1, 2, 4, 5, 7-9; rule 3 on the left;
    only those a unit symbol may follow (a space or NBSP at most, then a symbol's first letter)."""
    ends = {m.start() + 1 for m in tables.hint.finditer(text)}
    nums = tm.numeric_literals(text, spans, ends)
    out = []
    right_glued = []
    for x in nums:
        if x.excluded is None or x.excluded == "year":  # rule 6 does not apply here
            out.append(x)
        elif x.excluded == "glued" and not (x.start > 0 and text[x.start - 1].isalpha()):
            right_glued.append(x)
    if right_glued:
        # Re-evaluate the later rules with the gluing letter masked (a NUL is neither a letter,
        # a connector nor a phone separator, so nothing else about the literal changes).
        masked_text = tm.splice(text, [(x.end, x.end + 1, "\x00") for x in right_glued])
        masked = {(y.start, y.end): y for y in tm.numeric_literals(masked_text, spans, ends)}
        for x in right_glued:
            y = masked.get((x.start, x.end))
            if y is not None and (y.excluded is None or y.excluded == "year"):
                out.append(x)
        out.sort()
    return out


@perturbation(
    "date_unit",
    family=_FAMILY,
    description="Spell out ISO dates and unit symbols (Table A9).",
    version=2,
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def date_unit(text: str, rng: Draws) -> Outcome:
    """``YYYY-MM-DD`` → ``Month D, YYYY``; ``N km`` → ``N kilometers``.

    >>> date_unit("Due 2024-02-29: ship 1 kg and 2.5 km by 2023-02-30.", None).text
    'Due February 29, 2024: ship 1 kilogram and 2.5 kilometers by 2023-02-30.'
    """
    if _ANY_DIGIT.search(text) is None:
        return unchanged(text, "no_candidates")
    tables = _unit_tables()
    dates = [m for m in _DATE.finditer(text)] if "-" in text else []
    if not dates and tables.hint.search(text) is None:
        return unchanged(text, "no_candidates")
    spans = _spans(text)
    n = len(text)
    sites: list[tuple[int, int, str]] = []
    for m in dates:
        s, e = m.span()
        if s > 1 and text[s - 1] in _CONNECTORS and "0" <= text[s - 2] <= "9":
            continue
        if e + 1 < n and text[e] in _CONNECTORS and "0" <= text[e + 1] <= "9":
            continue
        if spans and spans.overlaps(s, e):
            continue
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if year < 1 or not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
            continue  # not a real calendar date (leap years honoured)
        sites.append((s, e, f"{tables.months[month - 1]} {day}, {m.group(1)}"))
    for x in _unit_numbers(text, spans, tables):
        if x.start > 0 and text[x.start - 1] in _CURRENCY:
            continue  # $5m is five million
        p = x.end
        if p < n and text[p] in " \u00a0":
            p += 1
        unit = _unit_at(text, p, tables)
        if unit is None:
            continue
        end, singular, plural = unit
        if spans and spans.overlaps(x.start, end):
            continue
        sites.append((x.start, end, f"{x.text} {singular if x.text == '1' else plural}"))
    if not sites:
        return unchanged(text, "no_candidates")
    sites.sort()
    kept: list[tuple[int, int, str]] = []
    for site in sites:
        if not kept or site[0] >= kept[-1][1]:
            kept.append(site)
    return Outcome(tm.splice(text, kept), len(kept))


# --------------------------------------------------------------------------------------------
# 9.5 emoji and 9.6 emoticon
# --------------------------------------------------------------------------------------------


class _EmoticonTables:
    def __init__(self) -> None:
        table = load_table("a16_emoticons")
        forward = []  # (emoticon, emoji) in table order
        reverse: dict[str, str] = {}  # bare emoji (no U+FE0F) -> first emoticon of its row
        for row in table["rows"]:
            for emoticon in row["emoticons"]:
                forward.append((emoticon, row["emoji"]))
            reverse.setdefault(row["emoji"].rstrip("\ufe0f"), row["emoticons"][0])
        for row in table["reverse_only"]:
            reverse.setdefault(row["emoji"].rstrip("\ufe0f"), row["emoticon"])
        self.to_emoji = dict(forward)
        ordered = sorted((e for e, _ in forward), key=len, reverse=True)
        self.emoticon_re = re.compile(
            r"(?<![^\s(\[\"])(?:" + "|".join(re.escape(e) for e in ordered) + r")"
            r"(?![^\s.,!?;:)\]\"])"
        )
        self.emoticon_hint = re.compile(r"[:;<]")
        self.to_emoticon = reverse
        # A listed emoji (plus one optional U+FE0F) that is a whole cluster (§1.5): not after a
        # ZWJ, and not followed by any extender or ZWJ.
        self.emoji_re = regex.compile(
            r"(?<!\u200d)[" + "".join(reverse) + r"]\ufe0f?"
            r"(?![\p{M}\uFE00-\uFE0F\U000E0100-\U000E01EF\U0001F3FB-\U0001F3FF"
            r"\U000E0020-\U000E007F\u200d])"
        )
        self.emoji_hint = re.compile("[" + "".join(reverse) + "]")


_emoticon_tables = loaded_once(_EmoticonTables)


@perturbation(
    "emoji",
    family=_FAMILY,
    description="Replace standalone emoticons with emoji (Table A16).",
    version=2,
    reasons=("no_candidates",),
)
def emoji(text: str, rng: Draws) -> Outcome:
    """Standalone emoticons become emoji; ``<3`` never before a digit.

    >>> emoji("Thanks :) see you <3 but x<3 and 2<30", None).text
    'Thanks 🙂 see you ❤️ but x<3 and 2<30'
    """
    tables = _emoticon_tables()
    if tables.emoticon_hint.search(text) is None:
        return unchanged(text, "no_candidates")
    matches = [m for m in tables.emoticon_re.finditer(text)]
    if not matches:
        return unchanged(text, "no_candidates")
    spans = _spans(text)
    edits = [
        (m.start(), m.end(), tables.to_emoji[m.group()])
        for m in matches
        if not (spans and spans.overlaps(m.start(), m.end()))
    ]
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


@perturbation(
    "emoticon",
    family=_FAMILY,
    description="Replace emoji with emoticons (Table A16, reverse).",
    version=2,
    reasons=("no_candidates",),
)
def emoticon(text: str, rng: Draws) -> Outcome:
    """Listed emoji that are whole clusters become their first emoticon.

    >>> emoticon("Great 🙂 ❤ 😀", None).text
    'Great :) <3 :D'
    """
    if text.isascii():
        return unchanged(text, "no_candidates")
    tables = _emoticon_tables()
    if tables.emoji_hint.search(text) is None:
        return unchanged(text, "no_candidates")
    matches = [m for m in tables.emoji_re.finditer(text)]
    if not matches:
        return unchanged(text, "no_candidates")
    spans = _spans(text)
    edits = [
        (m.start(), m.end(), tables.to_emoticon[m.group()[0]])
        for m in matches
        if not (spans and spans.overlaps(m.start(), m.end()))
    ]
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 9.7 url_email_mask
# --------------------------------------------------------------------------------------------

_URL_PREFIX = re.compile(r"(?i)https?://|ftp://|www\.")
_MASK_HINT = re.compile(r"(?i)://|www\.|@")


@perturbation(
    "url_email_mask",
    family=_FAMILY,
    in_scope=False,
    description="Mask URLs as <URL> and e-mail addresses as <EMAIL>.",
    reasons=("no_candidates",),
)
def url_email_mask(text: str, rng: Draws) -> Outcome:
    """URLs and e-mail addresses (§1.8, trimmed) outside code are masked.

    >>> url_email_mask("See (https://ex.com/a), or mail bob@ex.com.", None).text
    'See (<URL>), or mail <EMAIL>.'
    """
    if _MASK_HINT.search(text) is None:
        return unchanged(text, "no_candidates")
    edits = []
    for s, e in tm.protected_spans(text, json=False):
        first = text[s]
        if first in " `~":
            continue  # fenced or inline code
        if _URL_PREFIX.match(text, s):
            edits.append((s, e, "<URL>"))
        elif "@" in text[s:e]:
            edits.append((s, e, "<EMAIL>"))
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


# --------------------------------------------------------------------------------------------
# 9.8 emoji_shortcode and 9.9 shortcode_emoji (pinned ``emoji`` package, lazy)
# --------------------------------------------------------------------------------------------


class _EmojiPackage:
    """The ``emoji`` module and what this family derives from it, built once."""

    def __init__(self) -> None:
        import emoji as package  # heavy: imported on first use only

        self.package = package
        self.version = f"emoji=={package.__version__}"
        names: list[str] = []
        code_points: list[str] = []
        for seq, data in package.EMOJI_DATA.items():
            names.append(data["en"])
            names.extend(data.get("alias", ()))
            code_points.extend(seq)
        self.names = frozenset(names)
        self.ascii_bases = frozenset(c for c in code_points if c.isascii())
        # The window pre-filter is exact only if every non-ASCII code point of the data lies in
        # _EMOJI_BLOCKS; otherwise (another package release) the whole text is one window.
        self.windowed = all(_EMOJI_BLOCK.match(c) for c in code_points if not c.isascii())
        # warm the package's own lazy structures (search tree, name maps) while holding the lock
        package.emoji_list("\U0001f44d")
        package.demojize("\U0001f44d", delimiters=(":", ":"))
        package.emojize(":thumbs_up:", language="alias")


# A coarse superset of the non-ASCII code points of every emoji sequence of the pinned package.
_EMOJI_BLOCKS = "\u00a9-\u00ae\u200d-\u2b55\u3030-\u3299\ufe0f\U0001f004-\U0001fafa\U000e0062-\U000e007f"
_EMOJI_BLOCK = re.compile("[" + _EMOJI_BLOCKS + "]")
# A window starts at such a code point, runs over them and keycap bases (``#``, ``*``, digits),
# and absorbs further runs fewer than 64 characters away.
_EMOJI_WINDOWS = re.compile(
    "[" + _EMOJI_BLOCKS + "][#*0-9" + _EMOJI_BLOCKS + "]*"
    "(?:[^" + _EMOJI_BLOCKS + "]{1,63}[" + _EMOJI_BLOCKS + "][#*0-9" + _EMOJI_BLOCKS + "]*)*"
)


_emoji_package = loaded_once(_EmojiPackage)


def _emoji_windows(text: str, pkg: _EmojiPackage) -> list[tuple[int, int]]:
    """Disjoint windows of ``text`` that hold every emoji sequence ``emoji_list`` reports.

    No match can include a character outside the runs that ``_EMOJI_WINDOWS`` covers (plus the
    ASCII keycap base just before one), so ``emoji_list`` over the windows finds the same
    matches as over the whole text, while plain text stays off its slow tokenizer.
    """
    if not pkg.windowed:
        return [(0, len(text))]
    out = []
    for m in _EMOJI_WINDOWS.finditer(text):
        s, e = m.span()
        if s > 0 and text[s - 1] in pkg.ascii_bases:
            s -= 1
        out.append((s, e))
    return out


_EXTENDER = regex.compile(
    r"[\p{M}\uFE00-\uFE0F\U000E0100-\U000E01EF\U0001F3FB-\U0001F3FF\U000E0020-\U000E007F\u200d]"
)


def _clearly_boundary(text: str, p: int) -> bool:
    """True when ``p`` is certainly a cluster boundary (§1.5): neither side can join the other.
    False means "ask ``tm.clusters``" (an extender, a ZWJ, a regional-indicator pair or CRLF)."""
    if p == 0 or p >= len(text):
        return True
    c, b = text[p], text[p - 1]
    if b == "\u200d" or _EXTENDER.match(c) is not None:
        return False
    if "\U0001f1e6" <= c <= "\U0001f1ff" and "\U0001f1e6" <= b <= "\U0001f1ff":
        return False
    return not (b == "\r" and c == "\n")


def _vs_end(text: str, e: int) -> int:
    """Extend ``e`` over variation selectors U+FE0E/U+FE0F directly after it."""
    n = len(text)
    while e < n and text[e] in "\ufe0e\ufe0f":
        e += 1
    return e


@perturbation(
    "emoji_shortcode",
    family=_FAMILY,
    description="Write each emoji as its English :short_name: (emoji package).",
    version=2,
    reasons=("no_candidates",),
)
def emoji_shortcode(text: str, rng: Draws) -> Outcome:
    """Each emoji sequence (a whole cluster) becomes its ``:short_name:``.

    >>> emoji_shortcode("Great job 👍 team 🇫🇷!", None).text
    'Great job :thumbs_up: team :France:!'
    """
    pkg = _emoji_package()
    details = {"data_version": pkg.version}
    if text.isascii():
        return Outcome(text, 0, "no_candidates", details)
    found = []
    for base, end in _emoji_windows(text, pkg):
        for item in pkg.package.emoji_list(text[base:end]):
            found.append((base + item["match_start"], base + item["match_end"], item["emoji"]))
    if not found:
        return Outcome(text, 0, "no_candidates", details)
    starts: set[int] | None = None

    def boundary(p: int) -> bool:
        nonlocal starts
        if _clearly_boundary(text, p):
            return True
        if starts is None:
            starts = set(tm.clusters(text))  # membership only; never iterated
        return p in starts

    spans = _spans(text)
    demojize = pkg.package.demojize
    n = len(text)
    names: dict[str, str | None] = {}
    edits = []
    for s, e, seq in found:
        if e < n and text[e] in "\ufe0e\ufe0f":
            e = _vs_end(text, e)  # a selector after the sequence goes with it (no stray U+FE0F)
        # A site is whole clusters: never part of a longer ZWJ sequence, never a modifier that
        # belongs to a preceding letter, never followed by a mark it would orphan.
        if not (boundary(s) and boundary(e)):
            continue
        if spans and spans.overlaps(s, e):
            continue
        if seq in names:
            name = names[seq]
        else:
            name = demojize(seq, delimiters=(":", ":"))
            if name.count(":") != 2 or name[0] != ":" or name[-1] != ":":
                name = None  # not one short name: leave the sequence alone
            names[seq] = name
        if name is not None:
            edits.append((s, e, name))
    if not edits:
        return Outcome(text, 0, "no_candidates", details)
    return Outcome(tm.splice(text, edits), len(edits), None, details)


_SHORTCODE = re.compile(r"(?<![^\s(\[\"])(?=(:[^\s:]+:)(?![^\s.,!?;:)\]\"]))")


@perturbation(
    "shortcode_emoji",
    family=_FAMILY,
    description="Render standalone :short_name: codes as emoji (emoji package).",
    version=2,
    reasons=("no_candidates",),
)
def shortcode_emoji(text: str, rng: Draws) -> Outcome:
    """Standalone known ``:short_name:`` codes become the emoji.

    >>> shortcode_emoji("ship it :rocket: at 10:30:45 :notanemoji:", None).text
    'ship it 🚀 at 10:30:45 :notanemoji:'
    """
    pkg = _emoji_package()
    details = {"data_version": pkg.version}
    if text.count(":") < 2:
        return Outcome(text, 0, "no_candidates", details)
    spans = None
    edits = []
    last_end = 0
    for m in _SHORTCODE.finditer(text):
        s = m.start()
        if s < last_end:
            continue
        span = m.group(1)
        if span not in pkg.names or not any(c.isalpha() for c in span):
            continue
        e = s + len(span)
        if spans is None:
            spans = _spans(text)
        if spans and spans.overlaps(s, e):
            continue
        rendered = pkg.package.emojize(span, language="alias")
        if rendered == span:
            continue
        edits.append((s, e, rendered))
        last_end = e
    if not edits:
        return Outcome(text, 0, "no_candidates", details)
    return Outcome(tm.splice(text, edits), len(edits), None, details)
