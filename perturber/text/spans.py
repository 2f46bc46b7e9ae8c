"""Protected spans (§1.8): fenced blocks, inline code, URLs, e-mail addresses, JSON regions."""

from __future__ import annotations

import re as _re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

import regex

from .. import jsontext
from ..memo import per_text
from .chars import WHITESPACE_CLASS
from .lines import fenced_blocks, line_bounds, may_fence

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


def as_spans(text: str, spans) -> Spans:
    if spans is None:
        return Spans(protected_spans(text))
    if isinstance(spans, Spans):
        return spans
    return Spans(spans)


_BT_RUN = _re.compile(r"`+")
_URL = regex.compile(
    r"(?<![\p{L}\p{N}])(?:[hH][tT][tT][pP][sS]?://|[fF][tT][pP]://|[wW][wW][wW]\.)[^"
    + WHITESPACE_CLASS
    + r"]*"
)
# A case-insensitive "www.", found from its "." (a literal lead is a fast scan; a class such as
# [wW], or ``(?i)``, scans several times slower). "://" is tested with ``in``, after ":" alone.
_WWW = _re.compile(r"\.(?<=[wW][wW][wW]\.)")
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
    for i, (s, _e) in enumerate(runs):
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


#: An escape sequence inside a JSON string (a protected token of a prose interior).
_JSON_ESCAPE = _re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)", _re.S)


def _json_spans(text: str, earlier: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Kind 5: the protected parts of every JSON region whose start lies outside ``earlier``:
    the region minus the interiors of its prose string values, plus their escape sequences."""
    sp = Spans(earlier)
    out: list[tuple[int, int]] = []
    for r in jsontext.regions(text, skip=sp.contains if earlier else None):
        pos = r.start
        for s in r.prose:
            out.append((pos, s.start))
            if "\\" in text[s.start : s.end]:
                out.extend(m.span() for m in _JSON_ESCAPE.finditer(text, s.start, s.end))
            pos = s.end
        out.append((pos, r.end))
    return [(s, e) for s, e in out if e > s]


def _union(spans: list[tuple[int, int]], more: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted union of two span lists; overlapping spans are coalesced (adjacent ones are kept)."""
    out: list[list[int]] = []
    for s, e in sorted(spans + more):
        if out and s < out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def prose_interiors(text: str) -> list[tuple[int, int]]:
    """The editable interiors of the prose string values of the JSON regions (§1.8 kind 5).

    >>> t = 'Use {"id": "x", "note": "two words"}.'
    >>> [t[s:e] for s, e in prose_interiors(t)]
    ['two words']
    """
    if ("{" not in text and "[" not in text) or '"' not in text:
        return []
    earlier = find_protected(text, json=False)
    sp = Spans(earlier)
    return [
        (s.start, s.end)
        for r in jsontext.regions(text, skip=sp.contains if earlier else None)
        for s in r.prose
    ]


def find_protected(text: str, lb=None, fences=None, json: bool = True) -> list[tuple[int, int]]:
    n = len(text)
    if fences is None:
        if may_fence(text):
            lb = line_bounds(text) if lb is None else lb
            fences = fenced_blocks(text, lb)
        else:
            fences = []
    spans = [(f[2], f[3]) for f in fences]
    has_bt = "`" in text
    has_url = (":" in text and "://" in text) or _WWW.search(text) is not None
    has_at = "@" in text
    has_json = json and ("{" in text or "[" in text)
    if not (has_bt or has_url or has_at):
        return _union(spans, _json_spans(text, spans)) if has_json else spans
    gaps = Spans(spans).gaps(0, n) if spans else [(0, n)]
    if has_bt and text.count("`") >= 2:
        lb = line_bounds(text) if lb is None else lb
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
    if has_json:
        spans = _union(spans, _json_spans(text, spans))
    return spans


def protected_spans(text: str, json: bool = True) -> Sequence[tuple[int, int]]:
    """Protected spans of §1.8 (fenced code, inline code, URLs, e-mail addresses, and the
    protected parts of JSON regions), sorted and non-overlapping, as a read-only sequence
    (memoised for short texts, like the tokens).

    >>> t = "(see https://ex.com/a_(b)) or `x` or a@b.co."
    >>> [t[s:e] for s, e in protected_spans(t)]
    ['https://ex.com/a_(b)', '`x`', 'a@b.co']

    ``json=False`` gives kinds 1-4 only (``url_email_mask`` and ``strip_markdown``, which are
    exempt from kind 5).
    """
    if not may_protect(text.encode("utf-8", "surrogatepass")):  # none: nothing to memoise
        return ()
    return _protected_of(text, json)


def may_protect(v: bytes) -> bool:
    r"""False when the bytes ``v`` (a text's view, or its UTF-8, whose other code points hold no
    ASCII byte) hold none of the characters a protected span (§1.8) needs: a
    backtick or ``~~~`` (code), ``@``, ``{`` or ``[`` (JSON, e-mail), ``://`` or ``www.``
    (URLs). The bytes `` ` @ { [ ~ : `` are kept in one C-level pass (``bytes.translate``),
    and the longer needles are searched only when their first byte is there; ``www.`` is found
    from its last byte by the pattern ``\.(?<=[wW][wW][wW]\.)``.

    >>> may_protect(b"at 3:15, a-b"), may_protect(b"a ~~~"), may_protect(b"see WWW.x"), may_protect(b": [")
    (False, True, True, True)
    """
    leads = v.translate(None, _NOT_PROTECT_LEADS)
    if leads and (
        leads.strip(b"~:")  # one of ` @ { [
        or (b"~~~" in leads and b"~~~" in v)
        or (b":" in leads and b"://" in v)
    ):
        return True
    return _W_DOT.search(v) is not None


def view_spans(text: str, v: bytes) -> Sequence[tuple[int, int]]:
    """The protected spans of ``text`` (:func:`protected_spans`), or none without a search when
    its view ``v`` holds no character one needs (:func:`may_protect`).

    >>> view_spans("see `x` now", b"see `x` now"), view_spans("plain", b"plain")
    (((4, 7),), ())
    """
    return protected_spans(text) if may_protect(v) else ()


_NOT_PROTECT_LEADS = bytes(byte for byte in range(256) if byte not in b"`@{[~:")
_W_DOT = _re.compile(rb"\.(?<=[wW][wW][wW]\.)")


@per_text
def _protected_of(text: str, json: bool) -> tuple[tuple[int, int], ...]:
    """:func:`find_protected` as a tuple, memoised like the tokens."""
    return tuple(find_protected(text, json=json))
