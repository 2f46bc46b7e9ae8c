"""The shared text model of CATALOG.md §1.5–§1.10.

Pure functions over a ``str``; offsets are code-point offsets.  Everything is
O(len(text)); the only module state is precompiled patterns and caches.
Standard library plus the third-party ``regex`` module only.

>>> [t.text for t in word_tokens('"Don\\'t," she said.')]
["Don't", 'she', 'said']
"""

from __future__ import annotations

import re as _re
import unicodedata
from bisect import bisect_left, bisect_right
from functools import lru_cache
from itertools import compress
from typing import Iterable, NamedTuple, Sequence

import regex

__all__ = [
    "WHITESPACE", "HSPACE", "is_word_char",
    "clusters", "cluster_spans",
    "Token", "word_tokens", "is_bound", "free_tokens",
    "protected_spans", "Spans",
    "is_cased_letter", "case_class", "match_case", "apostrophe_style", "apply_apostrophe",
    "newline_style", "Line", "lines",
    "Unit", "units", "sentences",
    "answer_cue", "Body", "split_body", "append_material", "prepend_material",
    "Number", "numeric_literals",
    "splice",
]

# --------------------------------------------------------------------------------------------
# Character classes
# --------------------------------------------------------------------------------------------

#: Every code point with ``str.isspace()`` true (checked against Python in the tests).
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
              "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
#: Horizontal whitespace (§1.5): every whitespace character except ``\r`` and ``\n``.
HSPACE = WHITESPACE.replace("\r", "").replace("\n", "")


def _cls(chars: str) -> str:
    return "".join("\\" + c if c in "\\]^-[" else c for c in chars)


_WS_C = _cls(WHITESPACE)
_HS_C = _cls(HSPACE)


def is_word_char(ch: str) -> bool:
    """True for a code point of category L* or N* (§1.6).

    >>> is_word_char("é"), is_word_char("_"), is_word_char("3")
    (True, False, True)
    """
    return ch.isalnum()  # equals category L*/N* for every code point (checked in the tests)


# --------------------------------------------------------------------------------------------
# Clusters (§1.5)
# --------------------------------------------------------------------------------------------

_EXT = r"[\p{Mn}\p{Mc}\p{Me}\uFE00-\uFE0F\U000E0100-\U000E01EF\U0001F3FB-\U0001F3FF\U000E0020-\U000E007F]"
_RI = r"[\U0001F1E6-\U0001F1FF]"
# Anything that can make a cluster longer than one code point.
_NEEDS_FULL = regex.compile(_EXT[:-1] + r"\u200d\U0001F1E6-\U0001F1FF\r]")
# Only the multi-code-point clusters; every position not inside one is a one-code-point cluster.
_MULTI = regex.compile(
    r"(?:" + _RI + r"{2}|[^\r\n])(?:" + _EXT + r"|\u200d[^\r\n]?)+|" + _RI + r"{2}|\r\n")


def clusters(text: str) -> list[int]:
    """Start offsets of the clusters of ``text`` (§1.5).

    >>> clusters("cafe\\u0301!")
    [0, 1, 2, 3, 5]
    """
    n = len(text)
    if not _NEEDS_FULL.search(text):
        return list(range(n))
    mask = bytearray(b"\x01") * n
    for m in _MULTI.finditer(text):
        s, e = m.span()
        mask[s + 1:e] = bytes(e - s - 1)
    return list(compress(range(n), mask))


def cluster_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each cluster that starts in ``[start, end)``.

    ``start`` is taken as a cluster boundary; the last cluster may reach past ``end`` when
    ``end`` falls inside it.

    >>> cluster_spans("a\\r\\nb\\u0301")
    [(0, 1), (1, 3), (3, 5)]
    """
    n = len(text)
    if end is None or end > n:
        end = n
    if start >= end:
        return []
    if not _NEEDS_FULL.search(text, start, min(n, end + 1)):
        return [(i, i + 1) for i in range(start, end)]
    out: list[tuple[int, int]] = []
    pos = start
    for m in _MULTI.finditer(text, start):
        s, e = m.span()
        if s >= end:
            break
        if pos < s:
            out.extend([(i, i + 1) for i in range(pos, s)])
        out.append((s, e))
        pos = e
    if pos < end:
        out.extend([(i, i + 1) for i in range(pos, end)])
    return out


# --------------------------------------------------------------------------------------------
# Word tokens (§1.6)
# --------------------------------------------------------------------------------------------

_WORD_RE = regex.compile(
    r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:['’\-‐‑][\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*")


class Token(NamedTuple):
    """A word token: ``text[start:end] == text``."""
    start: int
    end: int
    text: str


_new_token = tuple.__new__


def word_tokens(text: str) -> Sequence[Token]:
    """All word tokens of ``text`` in order (normative regex of §1.6), as a read-only sequence.

    Short texts are memoised (studies apply many perturbations and seeds to the same text).

    >>> [t.text for t in word_tokens('"hello," my_var 3rd-grade')]
    ['hello', 'my', 'var', '3rd-grade']
    """
    if len(text) <= _MEMO_MAX_CHARS:
        return _word_tokens_memo(text)
    return _scan_tokens(text)


_MEMO_MAX_CHARS = 4096


def _scan_tokens(text: str) -> tuple[Token, ...]:
    return tuple([_new_token(Token, (m.start(), m.end(), m.group())) for m in _WORD_RE.finditer(text)])


_word_tokens_memo = lru_cache(maxsize=256)(_scan_tokens)


_BINDERS = frozenset("_/\\@#$%&=+<>|^~[]{}")
# A superset of what can make a token bound: a binder, or "." / ":" followed by a non-space.
_MAYBE_BOUND = _re.compile(r"[_/\\@#$%&=+<>|^~\[\]{}]|[.:]\S")


def _bound(text: str, s: int, e: int) -> bool:
    if s > 0:
        c = text[s - 1]
        if c in _BINDERS or ((c == "." or c == ":") and s > 1 and text[s - 2].isalnum()):
            return True
    if e < len(text):
        c = text[e]
        if c in _BINDERS or ((c == "." or c == ":") and e + 1 < len(text) and text[e + 1].isalnum()):
            return True
    return False


def is_bound(text: str, token: Token | tuple[int, int]) -> bool:
    """§1.6 bound rule: the token touches ``_ / \\ @ # $ % & = + < > | ^ ~ [ ] { }``, or a ``.``
    or ``:`` that touches another word character on its far side.

    >>> [is_bound("file.txt end.", t) for t in word_tokens("file.txt end.")]
    [True, True, False]
    """
    return _bound(text, token[0], token[1])


def free_tokens(text: str, tokens: Sequence[Token] | None = None,
                spans: "Spans | Iterable[tuple[int, int]] | None" = None) -> list[Token]:
    """The tokens that are neither bound nor overlapping a protected span.

    >>> [t.text for t in free_tokens("see a.b and `code` now")]
    ['see', 'and', 'now']
    """
    if tokens is None:
        if spans is None and len(text) <= _MEMO_MAX_CHARS:   # memoised like the tokens
            return list(_free_tokens_memo(text))
        tokens = word_tokens(text)
    sp = _as_spans(text, spans)
    if not _MAYBE_BOUND.search(text):  # common prose: no binder, no "x.y"/"x:y" anywhere
        return [t for t in tokens if not sp.overlaps(t[0], t[1])] if sp else list(tokens)
    if sp:
        return [t for t in tokens if not _bound(text, t[0], t[1]) and not sp.overlaps(t[0], t[1])]
    return [t for t in tokens if not _bound(text, t[0], t[1])]


@lru_cache(maxsize=256)
def _free_tokens_memo(text: str) -> tuple[Token, ...]:
    return tuple(free_tokens(text, word_tokens(text)))


# --------------------------------------------------------------------------------------------
# Lines and fenced blocks (§1.5, §1.8 rule 1, §1.9)
# --------------------------------------------------------------------------------------------

_LB = _re.compile(r"\r\n|\r|\n")
_FENCE_OPEN = _re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_CLOSE = {
    "`": _re.compile(r" {0,3}(`{3,})[" + _HS_C + r"]*\Z"),
    "~": _re.compile(r" {0,3}(~{3,})[" + _HS_C + r"]*\Z"),
}


def _line_bounds(text: str) -> list[tuple[int, int, int]]:
    """(start, end of content, start of next line); a final line break opens no new line."""
    out = []
    pos = 0
    for m in _LB.finditer(text):
        s, e = m.span()
        out.append((pos, s, e))
        pos = e
    if pos < len(text):
        out.append((pos, len(text), len(text)))
    return out


def _fences(text: str, lb: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Fenced blocks as (first line index, last line index, span start, span end)."""
    if "```" not in text and "~~~" not in text:
        return []
    out = []
    i, n = 0, len(lb)
    while i < n:
        s, e, _ = lb[i]
        m = _FENCE_OPEN.match(text, s, e)
        if m is None:
            i += 1
            continue
        run = m.group(1)
        close = _FENCE_CLOSE[run[0]]
        j = i + 1
        while j < n:
            s2, e2, _ = lb[j]
            m2 = close.match(text, s2, e2)
            if m2 is not None and len(m2.group(1)) >= len(run):
                break
            j += 1
        if j < n:
            out.append((i, j, s, lb[j][1]))
            i = j + 1
        else:
            out.append((i, n - 1, s, len(text)))
            i = n
    return out


def newline_style(text: str) -> str:
    """``NL`` of §1.5: ``"\\r\\n"`` if the first line break is CRLF, else ``"\\n"``.

    >>> newline_style("a\\r\\nb\\n"), newline_style("a\\rb\\r\\n"), newline_style("a")
    ('\\r\\n', '\\n', '\\n')
    """
    m = _LB.search(text)
    return "\r\n" if m is not None and m.end() - m.start() == 2 else "\n"


class Line(NamedTuple):
    """A line: content ``text[start:end]``, the next line starts at ``next``."""
    start: int
    end: int
    next: int
    cls: str


_LINE_CLS = _re.compile(
    r"(?P<heading> {0,3}#{1,6}[ \t])"
    r"|(?P<bullet>[ \t]*[\-*+•][ \t])"
    r"|(?P<ordered>[ \t]*[0-9]{1,3}[.)][ \t])"
    r"|(?P<option> {0,3}\(?[A-Za-z][.)][ \t])"
    r"|(?P<quote> {0,3}>)"
    r"|(?P<table> {0,3}\|)")
_BLANK = _re.compile(r"[" + _HS_C + r"]*\Z")
_CUE = _re.compile(
    r"[" + _HS_C + r"]*(?:[aA][nN][sS][wW][eE][rR]|[fF][iI][nN][aA][lL][" + _HS_C + r"]+"
    r"[aA][nN][sS][wW][eE][rR]|[aA]|[rR][eE][sS][pP][oO][nN][sS][eE]|[oO][uU][tT][pP][uU][tT]"
    r"|[sS][oO][lL][uU][tT][iI][oO][nN])[" + _HS_C + r"]*:[" + _HS_C + r"]*\Z")
_NON_WS = _re.compile(r"[^" + _WS_C + r"]")


def _cue_line(text: str, lb, fences) -> int | None:
    """Index of the answer-cue line in ``lb``, or None."""
    last = None
    for i in range(len(lb) - 1, -1, -1):
        s, e, _ = lb[i]
        if not _BLANK.match(text, s, e):
            last = i
            break
    if last is None:
        return None
    s, e, _ = lb[last]
    if not _CUE.match(text, s, e):
        return None
    for f in fences:
        if f[0] <= last <= f[1]:
            return None
    if _NON_WS.search(text, 0, s) is None:  # no other non-blank line
        return None
    return last


def _classify(text: str, lb, fences) -> list[str]:
    code = bytearray(len(lb))
    for a, b, _, _ in fences:
        code[a:b + 1] = b"\x01" * (b + 1 - a)
    cue = _cue_line(text, lb, fences)
    out = []
    blank, match = _BLANK.match, _LINE_CLS.match
    for i, (s, e, _) in enumerate(lb):
        if blank(text, s, e):
            out.append("blank")
        elif code[i]:
            out.append("code")
        elif i == cue:
            out.append("cue")
        else:
            m = match(text, s, e)
            out.append(m.lastgroup if m is not None else "plain")
    return out


def lines(text: str) -> list[Line]:
    """The lines of ``text`` with their §1.9 class (a final line break opens no new line); the
    scan of a short text is memoised like its tokens (each call gets its own list).

    >>> [(l.start, l.end, l.next, l.cls) for l in lines("# T\\n\\n- a\\nQ?\\nAnswer:")]
    [(0, 3, 4, 'heading'), (4, 4, 5, 'blank'), (5, 8, 9, 'bullet'), (9, 11, 12, 'plain'), (12, 19, 19, 'cue')]
    """
    return list(_lines_memo(text) if len(text) <= _MEMO_MAX_CHARS else _lines(text))


def _lines(text: str) -> tuple[Line, ...]:
    lb = _line_bounds(text)
    cls = _classify(text, lb, _fences(text, lb))
    return tuple([_new_token(Line, (s, e, nx, c)) for (s, e, nx), c in zip(lb, cls)])


_lines_memo = lru_cache(maxsize=256)(_lines)


# --------------------------------------------------------------------------------------------
# Protected spans (§1.8)
# --------------------------------------------------------------------------------------------

class Spans:
    """Sorted, non-overlapping ``(start, end)`` spans with bisect look-ups.

    >>> sp = Spans([(2, 4), (8, 10)])
    >>> sp.overlaps(3, 5), sp.overlaps(4, 8), sp.contains(9), sp.gaps(0, 12)
    (True, False, True, [(0, 2), (4, 8), (10, 12)])
    """

    __slots__ = ("spans", "starts", "ends")

    def __init__(self, spans: Iterable[tuple[int, int]] = ()):
        self.spans = [(s, e) for s, e in spans]
        self.starts = [s for s, _ in self.spans]
        self.ends = [e for _, e in self.spans]

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self):
        return iter(self.spans)

    def __bool__(self) -> bool:
        return bool(self.spans)

    def __repr__(self) -> str:
        return f"Spans({self.spans!r})"

    def overlaps(self, start: int, end: int) -> bool:
        """True if some span (a, b) has ``a < end`` and ``start < b``.  For an empty range
        (an insertion point p) this means ``a < p < b``: strictly inside a span."""
        i = bisect_right(self.ends, start)
        return i < len(self.starts) and self.starts[i] < end

    def contains(self, pos: int) -> bool:
        """True if ``a <= pos < b`` for some span."""
        i = bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.ends[i]

    def gaps(self, start: int, end: int) -> list[tuple[int, int]]:
        """The non-empty sub-ranges of ``[start, end)`` outside every span."""
        out = []
        pos = start
        i = bisect_right(self.ends, start)
        while i < len(self.starts) and self.starts[i] < end:
            if self.starts[i] > pos:
                out.append((pos, self.starts[i]))
            pos = max(pos, self.ends[i])
            i += 1
        if pos < end:
            out.append((pos, end))
        return out


def _as_spans(text: str, spans) -> Spans:
    if spans is None:
        return Spans(protected_spans(text))
    if isinstance(spans, Spans):
        return spans
    return Spans(spans)


_BT_RUN = _re.compile(r"`+")
_URL = regex.compile(
    r"(?<![\p{L}\p{N}])(?:[hH][tT][tT][pP][sS]?://|[fF][tT][pP]://|[wW][wW][wW]\.)[^" + _WS_C + r"]*")
_URL_HINT = _re.compile(r"(?i)://|www\.")
_URL_TRIM = frozenset(".,;:!?'\"’”")
_URL_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
_LOCAL_REV = regex.compile(r"(?r)[A-Za-z0-9._%+\-]+")
_LOCAL_PUNCT = _re.compile(r"[._%+\-]")
_DOMAIN = _re.compile(r"[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")


def _inline_code(text: str, gaps, lb) -> list[tuple[int, int]]:
    runs = [m.span() for gs, ge in gaps for m in _BT_RUN.finditer(text, gs, ge)]
    if len(runs) < 2:
        return []
    ends = [e for _, e, _ in lb]
    by_key: dict[tuple[int, int], list[int]] = {}
    keys = []
    for i, (s, e) in enumerate(runs):
        k = (bisect_left(ends, s), e - s)
        keys.append(k)
        by_key.setdefault(k, []).append(i)
    out = []
    pos = -1
    for i, (s, e) in enumerate(runs):
        if s < pos:
            continue
        lst = by_key[keys[i]]
        j = bisect_right(lst, i)
        if j < len(lst):
            close_end = runs[lst[j]][1]
            out.append((s, close_end))
            pos = close_end
    return out


def _urls(text: str, gaps) -> list[tuple[int, int]]:
    out = []
    for gs, ge in gaps:
        for m in _URL.finditer(text, gs, ge):
            s, e = m.span()
            url = m.group()
            prefix = 4 if url[3] == "." else url.index("://") + 3
            counts: dict[str, int] = {}
            while e > s:
                c = text[e - 1]
                if c in _URL_TRIM:
                    e -= 1
                    continue
                op = _URL_PAIRS.get(c)
                if op is None:
                    break
                if c not in counts:
                    counts[c] = url.count(c)
                    counts[op] = url.count(op)
                if counts[c] > counts[op]:
                    counts[c] -= 1
                    e -= 1
                    continue
                break
            if e - s > prefix:
                out.append((s, e))
    return out


def _emails(text: str, gaps) -> list[tuple[int, int]]:
    out = []
    for gs, ge in gaps:
        lo = gs
        p = text.find("@", gs, ge)
        prev_at = -1
        while p != -1:
            found = False
            if p > lo:
                # local parts hold no "@": never scan back past the previous one
                m = _LOCAL_REV.match(text, max(lo, prev_at + 1), p)
                if m is not None:
                    rs = m.start()
                    q = -1
                    if rs == 0 or not text[rs - 1].isalnum():
                        q = rs
                    else:
                        pm = _LOCAL_PUNCT.search(text, rs, p - 1)
                        if pm is not None:
                            q = pm.end()
                    if q != -1:
                        d = _DOMAIN.match(text, p + 1, ge)
                        if d is not None:
                            out.append((q, d.end()))
                            lo = d.end()
                            found = True
            prev_at = p
            p = text.find("@", lo if found else p + 1, ge)
    return out


def _merge(*lists: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = [sp for lst in lists for sp in lst]
    out.sort()
    return out


def _protected(text: str, lb=None, fences=None) -> list[tuple[int, int]]:
    n = len(text)
    if fences is None:
        if "```" in text or "~~~" in text:
            lb = _line_bounds(text) if lb is None else lb
            fences = _fences(text, lb)
        else:
            fences = []
    spans = [(f[2], f[3]) for f in fences]
    has_bt = "`" in text
    has_url = _URL_HINT.search(text) is not None
    has_at = "@" in text
    if not (has_bt or has_url or has_at):
        return spans
    gaps = Spans(spans).gaps(0, n) if spans else [(0, n)]
    if has_bt and text.count("`") >= 2:
        lb = _line_bounds(text) if lb is None else lb
        code = _inline_code(text, gaps, lb)
        if code:
            spans = _merge(spans, code)
            gaps = Spans(spans).gaps(0, n)
    if has_url:
        u = _urls(text, gaps)
        if u:
            spans = _merge(spans, u)
            gaps = Spans(spans).gaps(0, n)
    if has_at:
        em = _emails(text, gaps)
        if em:
            spans = _merge(spans, em)
    return spans


def protected_spans(text: str) -> Sequence[tuple[int, int]]:
    """Protected spans of §1.8 (fenced code, inline code, URLs, e-mail addresses), sorted and
    non-overlapping, as a read-only sequence (memoised for short texts, like the tokens).

    >>> t = "(see https://ex.com/a_(b)) or `x` or a@b.co."
    >>> [t[s:e] for s, e in protected_spans(t)]
    ['https://ex.com/a_(b)', '`x`', 'a@b.co']
    """
    if len(text) <= _MEMO_MAX_CHARS:
        return _protected_memo(text)
    return tuple(_protected(text))


@lru_cache(maxsize=256)
def _protected_memo(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(_protected(text))


# --------------------------------------------------------------------------------------------
# Case (§1.6, §1.7, §6)
# --------------------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _cased_nonascii(c: str) -> bool:
    s = c.swapcase()
    return s != c and len(s) == 1 and s.swapcase() == c and c.isalpha()


def is_cased_letter(ch: str) -> bool:
    """§6: a letter ``c`` with ``c != c.swapcase()``, one-code-point swapcase, and
    ``c.swapcase().swapcase() == c`` (so not ``ß``, ``ŉ``, ``İ`` or ligatures).

    >>> is_cased_letter("a"), is_cased_letter("ß"), is_cased_letter("İ"), is_cased_letter("1")
    (True, False, False, False)
    """
    if len(ch) != 1:
        return False
    if ch < "\x80":
        return ch.isalpha()
    return _cased_nonascii(ch)


def _cased(word: str) -> str:
    if word.isascii():
        return "".join([c for c in word if c.isalpha()])
    return "".join([c for c in word if is_cased_letter(c)])


def case_class(word: str) -> str:
    """§1.6 case class: ``none``, ``lower``, ``title``, ``upper``, ``single`` or ``mixed``.

    >>> [case_class(w) for w in ["東京", "dog", "Dog", "NASA", "I", "iPhone"]]
    ['none', 'lower', 'title', 'upper', 'single', 'mixed']
    """
    s = _cased(word)
    if not s:
        return "none"
    if s.islower():
        return "lower"
    if len(s) == 1:
        return "single"
    if s.isupper():
        return "upper"
    if s[0].isupper() and s[1:].islower():
        return "title"
    return "mixed"


# A standalone pronoun "i" (also "i'm", "i've"); not "i.e." or part of a word.
_PRONOUN_I = regex.compile(r"(?<![\p{L}\p{N}\p{M}.'’\-‐‑])i(?![\p{L}\p{N}\p{M}.\-‐‑])")


def match_case(source: str, replacement: str) -> str:
    """§1.7 leading-case matching of a lower-case table ``replacement`` to ``source``.
    The pronoun ``I`` always stays upper case.

    >>> match_case("NASA", "space agency"), match_case("Dont", "do not"), match_case("dont", "i'm")
    ('SPACE AGENCY', 'Do not', "I'm")
    """
    cls = case_class(source)
    if cls == "upper":
        out = replacement.upper()
    else:
        out = replacement
        if cls != "none" and cls != "lower":
            first = next(c for c in source if is_cased_letter(c))
            if first.isupper():
                for i, c in enumerate(out):
                    if is_cased_letter(c):
                        u = c.upper()
                        if len(u) == 1:
                            out = out[:i] + u + out[i + 1:]
                        break
    if "i" in out:
        out = _PRONOUN_I.sub("I", out)
    return out


_APOS_CURLY = regex.compile(r"\p{L}\p{M}*’\p{L}")
_APOS_STRAIGHT = regex.compile(r"\p{L}\p{M}*'\p{L}")


def apostrophe_style(text: str, source: str | None = None) -> str:
    """§1.7 apostrophe style: that of ``source`` (the replaced token) if it holds one; else
    ``’`` if ``text`` has a ``’`` between two letters and no ``'`` between two letters; else ``'``.

    >>> apostrophe_style("it’s ok"), apostrophe_style("it’s, isn't"), apostrophe_style("x", "don’t")
    ('’', "'", '’')
    """
    if source:
        if "’" in source:
            return "’"
        if "'" in source:
            return "'"
    if "’" in text and _APOS_CURLY.search(text) and not _APOS_STRAIGHT.search(text):
        return "’"
    return "'"


def apply_apostrophe(replacement: str, style: str) -> str:
    """Write every apostrophe of a table ``replacement`` in ``style``.

    >>> apply_apostrophe("don't", "’")
    'don’t'
    """
    if style == "’":
        return replacement.replace("'", "’")
    return replacement.replace("’", "'")


# --------------------------------------------------------------------------------------------
# Units: sentences, lines, code blocks (§1.9)
# --------------------------------------------------------------------------------------------

class Unit(NamedTuple):
    """A unit span from its first to its last non-whitespace character."""
    start: int
    end: int
    kind: str           # "sentence", "line" or "code"
    is_question: bool


_TERM = _re.compile(r"[.!?…]+([\"'”’)\]}»]*)")
_CLOSERS = "\"'”’)]}»"


_JOINERS = "'’-‐‑"
_DIGIT_AFTER = _re.compile(r" ?[0-9]")


def _is_mark(c: str) -> bool:
    return c >= "\u0300" and unicodedata.category(c)[0] == "M"


@lru_cache(maxsize=1)
def _abbr() -> tuple[frozenset, frozenset, tuple]:
    """(plain abbreviations, those needing a following digit, dotted ones) of Table A13."""
    from .data import load_table
    table = load_table("a13_abbreviations")
    digit = frozenset(table["digit_must_follow"])
    plain = frozenset(a for a in table["abbreviations"] if a not in digit and "." not in a)
    dotted = tuple(a for a in table["abbreviations"] if "." in a)
    return plain, digit, dotted


def _no_end_before(text: str, p: int) -> bool:
    """True when the "." at ``p`` directly follows a Table A13 abbreviation or a one-letter
    word token (§1.9), so that it does not end a sentence."""
    j = p
    while j > 0:
        c = text[j - 1]
        if c.isalnum() or _is_mark(c):
            j -= 1
        else:
            break
    if j == p:
        return False
    if j > 1 and text[j - 1] in _JOINERS and (text[j - 2].isalnum() or _is_mark(text[j - 2])) \
            and text[j].isalnum():
        return False  # the token goes on to the left: not an abbreviation, not one letter
    while j < p and _is_mark(text[j]):
        j += 1
    if j == p:
        return False
    seg = text[j:p]
    if seg[0].isalpha() and (len(seg) == 1 or all(_is_mark(c) for c in seg[1:])):
        return True
    plain, digit, dotted = _abbr()
    if seg.isascii():
        low = seg.lower()
        if low in plain:
            return True
        if low in digit:
            return _DIGIT_AFTER.match(text, p + 1) is not None
    for d in dotted:
        k = p - len(d)
        if k >= 0 and text[k:p].lower() == d and (k == 0 or not (
                text[k - 1].isalnum() or _is_mark(text[k - 1]))):
            return True
    return False


def _rstrip_end(text: str, s: int, e: int) -> int:
    """End of ``text[s:e]`` without trailing whitespace."""
    while e > s and text[e - 1].isspace():
        e -= 1
    return e


def _lstrip_start(text: str, s: int, e: int) -> int:
    m = _NON_WS.search(text, s, e)
    return m.start() if m is not None else e


def _sentences(text: str, ps: int, pe: int, sp: Spans, out: list) -> None:
    cur = ps
    for m in _TERM.finditer(text, ps, pe):
        ce = m.end()
        if ce < pe and not text[ce].isspace():
            continue
        rs = m.start()
        re_ = m.start(1)
        if re_ - rs == 1 and text[rs] == "." and _no_end_before(text, rs) and not (
                sp and sp.contains(rs - 1)):
            continue
        if rs > 0 and text[rs - 1].isdigit() and ce < pe and text[ce].isdigit():
            continue
        if sp and sp.contains(rs):
            continue
        st = _lstrip_start(text, cur, rs)
        out.append(_new_token(Unit, (st, ce, "sentence", "?" in text[rs:re_])))
        cur = ce
    st = _lstrip_start(text, cur, pe)
    if st < pe:
        out.append(_new_token(Unit, (st, _rstrip_end(text, st, pe), "sentence", False)))


def trailing_run(text: str, unit: Unit) -> tuple[int, int]:
    """The run of ``. ! ? …`` that ends ``unit`` before its closers, as ``(start, end)``;
    empty (``start == end``) when the unit does not end in one. A sentence's run is its
    terminal run unless the splitter rejected it (a final sentence may end in ``Dr.``).

    >>> t = 'He said "stop!?" Then he left. Bye'
    >>> [t[slice(*trailing_run(t, u))] for u in sentences(t)]
    ['!?', '.', '']
    """
    e = unit.end
    while e > unit.start and text[e - 1] in _CLOSERS:
        e -= 1
    s = e
    while s > unit.start and text[s - 1] in ".!?…":
        s -= 1
    return s, e


def _line_question(text: str, s: int, e: int) -> bool:
    e = _rstrip_end(text, s, e)
    while e > s and text[e - 1] in _CLOSERS:
        e -= 1
    return e > s and text[e - 1] == "?"


def _units(text: str, kinds: str = "all") -> list[Unit]:
    lb = _line_bounds(text)
    fences = _fences(text, lb)
    cls = _classify(text, lb, fences)
    sp = Spans(_protected(text, lb, fences))
    fence_at = {f[0]: f for f in fences}
    out: list[Unit] = []
    i, n = 0, len(lb)
    while i < n:
        c = cls[i]
        if i in fence_at:
            _, last, s, e = fence_at[i]
            if kinds == "all":
                s = _lstrip_start(text, s, e)
                out.append(_new_token(Unit, (s, _rstrip_end(text, s, e), "code", False)))
            i = last + 1
        elif c == "plain":
            j = i
            while j + 1 < n and cls[j + 1] == "plain":
                j += 1
            _sentences(text, lb[i][0], lb[j][1], sp, out)
            i = j + 1
        elif c == "blank":
            i += 1
        else:
            if kinds == "all":
                s, e, _ = lb[i]
                s = _lstrip_start(text, s, e)
                e = _rstrip_end(text, s, e)
                out.append(_new_token(Unit, (s, e, "line", _line_question(text, s, e))))
            i += 1
    return out


def units(text: str) -> Sequence[Unit]:
    """The units of §1.9 in text order: sentences of plain paragraphs, every other non-blank
    line, and each whole fenced code block.  Each unit runs from its first to its last
    non-whitespace character, so the gaps between units are pure whitespace.

    >>> t = "Dr. Li left at 5 p.m. today. Why?\\n\\n- item"
    >>> [(t[u.start:u.end], u.kind, u.is_question) for u in units(t)]
    [('Dr. Li left at 5 p.m. today.', 'sentence', False), ('Why?', 'sentence', True), ('- item', 'line', False)]
    """
    return _units_memo(text, "all") if len(text) <= _MEMO_MAX_CHARS else tuple(_units(text))


def sentences(text: str) -> Sequence[Unit]:
    """Only the sentences of the plain paragraphs (the ``sentence`` units).

    >>> [u[:2] for u in sentences("It is 3.14. Yes…  ok")]
    [(0, 11), (12, 16), (18, 20)]
    """
    if len(text) <= _MEMO_MAX_CHARS:
        return _units_memo(text, "sentences")
    return tuple(_units(text, "sentences"))


@lru_cache(maxsize=256)
def _units_memo(text: str, kinds: str) -> tuple[Unit, ...]:
    """Read-only memo of :func:`units` / :func:`sentences` for short texts."""
    return tuple(_units(text, kinds))


# --------------------------------------------------------------------------------------------
# Answer cue, body, append / prepend (§1.9)
# --------------------------------------------------------------------------------------------

def answer_cue(text: str) -> tuple[int, int] | None:
    """Span of the answer cue (stripped of surrounding whitespace), or None.

    >>> t = "What is 2+2?\\nAnswer:\\n"
    >>> answer_cue(t), answer_cue("Answer:")
    ((13, 20), None)
    """
    if ":" not in text:
        return None
    lb = _line_bounds(text)
    i = _cue_line(text, lb, _fences(text, lb))
    if i is None:
        return None
    s, e, _ = lb[i]
    s = _lstrip_start(text, s, e)
    return s, _rstrip_end(text, s, e)


class Body(NamedTuple):
    """``text == lead + body + cue_gap + cue + trail`` (L, body, W, cue, T of §1.9)."""
    lead: str
    body: str
    cue_gap: str
    cue: str
    trail: str
    sep: str


def split_body(text: str) -> Body:
    """Split ``text`` into L, body, W, cue, T and the separator ``sep`` of §1.9.
    A whitespace-only text is all ``lead``.

    >>> split_body("\\nQ?\\r\\n\\r\\nAnswer: \\n")
    Body(lead='\\n', body='Q?', cue_gap='\\r\\n\\r\\n', cue='Answer:', trail=' \\n', sep=' ')
    """
    stripped_end = len(text.rstrip())
    if stripped_end == 0:
        return Body(text, "", "", "", "", " ")
    ls = len(text) - len(text.lstrip())
    cue = answer_cue(text)
    if cue is None:
        body = text[ls:stripped_end]
        gap = cue_text = ""
    else:
        be = _rstrip_end(text, ls, cue[0])
        body = text[ls:be]
        gap = text[be:cue[0]]
        cue_text = text[cue[0]:cue[1]]
    nl = newline_style(text)
    sep = nl + nl if ("\n" in body or "\r" in body) else " "
    return Body(text[:ls], body, gap, cue_text, text[stripped_end:], sep)


def append_material(text: str, material: str, sep: str | None = None) -> str:
    """Append rule of §1.9: ``L + body + sep + material + (W + cue) + T``; ``sep`` may be forced.

    >>> append_material("What is 7 × 8?\\nAnswer:", "Thanks.")
    'What is 7 × 8? Thanks.\\nAnswer:'
    """
    b = split_body(text)
    if not b.body:
        return material + text
    return b.lead + b.body + (b.sep if sep is None else sep) + material + b.cue_gap + b.cue + b.trail


def prepend_material(text: str, material: str, sep: str | None = None) -> str:
    """Prepend rule of §1.9: ``L + material + sep + rest``; ``sep`` may be forced.

    >>> prepend_material("  Hi there.\\n", "Hello!")
    '  Hello! Hi there.\\n'
    """
    b = split_body(text)
    if not b.body:
        return material + text
    return b.lead + material + (b.sep if sep is None else sep) + text[len(b.lead):]


# --------------------------------------------------------------------------------------------
# Numbers (§1.10)
# --------------------------------------------------------------------------------------------

class Number(NamedTuple):
    """A numeric literal; ``text`` includes a leading ``-``.  ``quantity`` is False when one of
    the nine exclusions applies; ``excluded`` names the first that does."""
    start: int
    end: int
    text: str
    negative: bool
    grouped: bool
    int_digits: int
    frac_digits: int
    quantity: bool
    excluded: str | None


# The §1.10 pattern with the optional "-" checked afterwards (same matches, much faster scan):
# ``(?:(?<![\p{L}\p{N}])-)?(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)``
_NUM = _re.compile(r"-?[0-9](?:[0-9]{0,2}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]*(?:\.[0-9]+)?)")
_IDENT_BEFORE = regex.compile(r"(?<=[#+]|(?<![\p{L}\p{N}\p{M}])(?:No\.|no\.|ID|id) ?)")
_MARKER = regex.compile(r"(?<![^\r\n \t][ \t]*)[0-9]{1,3}[.)][ \t]")
_PHONE_SEP = _re.compile(r"(?:[ \-.()]{1,2})\Z")
_ANY_DIGIT = _re.compile(r"[0-9]")
_DIGITS_ONLY = _re.compile(r"[^0-9]")
_CURRENCY = frozenset("$€£¥₹")
_CONNECT = frozenset("-/:.")


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def numeric_literals(text: str, spans: "Spans | Iterable[tuple[int, int]] | None" = None) -> list[Number]:
    """Numeric literals of §1.10 with the nine exclusions applied.

    >>> [(n.text, n.quantity, n.excluded) for n in numeric_literals("Pay $1,500.50 by 2026-01-15, call 555-0100")]
    [('1,500.50', True, None), ('2026', False, 'connected'), ('01', False, 'connected'), ('15', False, 'connected'), ('555', False, 'connected'), ('0100', False, 'connected')]
    """
    if _ANY_DIGIT.search(text) is None:
        return []
    if spans is None and len(text) <= _MEMO_MAX_CHARS:   # memoised like the tokens
        return list(_numeric_literals_memo(text))
    return _numeric_literals(text, _as_spans(text, spans))


@lru_cache(maxsize=256)
def _numeric_literals_memo(text: str) -> tuple[Number, ...]:
    return tuple(_numeric_literals(text, _as_spans(text, None)))


def _numeric_literals(text: str, sp: Spans) -> list[Number]:
    n = len(text)
    # First pass keeps only ints (cheap for the garbage collector on huge inputs).
    starts: list[int] = []
    ends: list[int] = []
    for m in _NUM.finditer(text):
        s, e = m.span()
        if text[s] == "-" and s > 0 and text[s - 1].isalnum():
            s += 1
        starts.append(s)
        ends.append(e)
    count = len(starts)
    # Exclusion 5: chains of literals separated by 1-2 of " -.()" (at most one space).
    phone = bytearray(count)
    i = 0
    while i < count:
        j = i
        while j + 1 < count:
            gs, ge = ends[j], starts[j + 1]
            if 1 <= ge - gs <= 2 and _PHONE_SEP.match(text, gs, ge) and text.count(" ", gs, ge) <= 1:
                j += 1
            else:
                break
        if j > i:
            digits = 0
            for k in range(i, j + 1):
                digits += len(_DIGITS_ONLY.sub("", text[starts[k]:ends[k]]))
                if digits >= 7:
                    phone[i:j + 1] = b"\x01" * (j + 1 - i)
                    break
        i = j + 1
    out = []
    for k in range(count):
        s = starts[k]
        e = ends[k]
        t = text[s:e]
        neg = t[0] == "-"
        ip, _, fp = (t[1:] if neg else t).partition(".")
        grouped = "," in ip
        idig = len(ip) - ip.count(",") if grouped else len(ip)
        fdig = len(fp)
        ex = None
        if (s > 1 and text[s - 1] in _CONNECT and _digit(text[s - 2])) or (
                e + 1 < n and text[e] in _CONNECT and _digit(text[e + 1])):
            ex = "connected"
        elif idig >= 2 and ip[0] == "0":
            ex = "leading_zero"
        elif (s > 0 and text[s - 1].isalpha()) or (e < n and text[e].isalpha()):
            ex = "glued"
        elif s > 0 and _IDENT_BEFORE.match(text, s):
            ex = "identifier"
        elif phone[k]:
            ex = "phone"
        elif (idig == 4 and not fdig and not grouped and not neg and "1000" <= ip <= "2099"
              and not (s > 0 and text[s - 1] in _CURRENCY)):
            ex = "year"
        elif not neg and _MARKER.match(text, s) and not (sp and sp.contains(s)):
            ex = "list_marker"
        elif sp and sp.overlaps(s, e):
            ex = "protected"
        elif idig + fdig > 15:
            ex = "too_long"
        out.append(_new_token(Number, (s, e, t, neg, grouped, idig, fdig, ex is None, ex)))
    return out


# --------------------------------------------------------------------------------------------
# Assembly (G1)
# --------------------------------------------------------------------------------------------

def splice(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """Rebuild ``text`` from untouched slices plus replacements.  ``edits`` are
    ``(start, end, replacement)``, ascending and non-overlapping (insertions have
    ``start == end``); a violation raises ``ValueError``.

    >>> splice("hello world", [(0, 1, "H"), (5, 5, ","), (6, 11, "there")])
    'Hello, there'
    """
    parts = []
    pos = 0
    for s, e, r in edits:
        if s < pos or e < s or e > len(text):
            raise ValueError(f"edit ({s}, {e}) out of order, overlapping or out of range")
        parts.append(text[pos:s])
        parts.append(r)
        pos = e
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)
