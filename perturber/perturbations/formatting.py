"""formatting: whitespace, line wrapping and Markdown surface changes (docs/spec/catalog.md §7).

Six entries: ``extra_whitespace`` (seeded), ``tabs_for_spaces``, ``line_wrap``,
``markdown_wrap``, ``strip_markdown`` and ``bullet_reformat``.  Every edit is computed on the
original text and assembled with ``text.splice`` (G1); nothing is re-scanned (G2).  Insertions,
deletions and replacements only happen at cluster boundaries (§1.5): a space glued into a
cluster (after a ZWJ, or carrying a combining mark) is never a site.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .. import native
from .. import text as tm
from ..memo import per_text
from ..registry import Outcome, Param, choice, perturbation, rate, unchanged
from ..rng import Draws, select
from .markdown_inline import BACKTICK_RUN, WHITESPACE_SET, match_end, strip_inline

# In ``re`` str patterns ``\\s`` is exactly ``str.isspace()`` (§1.5 whitespace; the tests check
# every code point), and it is much faster than an explicit class.  Horizontal whitespace is
# ``[^\\S\\r\\n]``.


# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------


def _cluster_starts(text: str) -> list[int] | None:
    """Cluster start offsets, or None when every code point is its own cluster (the common
    case, and every ASCII text as far as these entries are concerned: they never edit
    between ``\\r`` and ``\\n``)."""
    if text.isascii() or tm.single_clusters(text):
        return None
    return tm.clusters(text)


def _glue_mask(starts: list[int] | None, n: int) -> bytearray | None:
    """``mask[p] == 1`` when offset ``p`` is *not* a cluster boundary (None: all are)."""
    if starts is None:
        return None
    mask = bytearray(b"\x01") * (n + 1)
    for p in starts:
        mask[p] = 0
    mask[n] = 0
    return mask


def _protected(text: str) -> tm.Spans:
    return tm.Spans(tm.protected_spans(text))


# --------------------------------------------------------------------------------------------
# 7.1 extra_whitespace
# --------------------------------------------------------------------------------------------

_SINGLE_SPACE = re.compile(r"(?<=\S) (?=\S)")


@perturbation(
    "extra_whitespace",
    version=2,
    family="formatting",
    seed_sensitive=True,
    params=[rate(0.3)],
    description="Double a fraction of the single spaces between words.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
)
def extra_whitespace(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Candidates are single U+0020 characters with a non-whitespace character on both sides,
    outside protected spans; each chosen one becomes a double space.

    >>> extra_whitespace("a b c", Draws(0), rate=1.0).text
    'a  b  c'
    """
    sites = _extra_space_sites(text)
    if not sites:
        return unchanged(text, "no_candidates")
    chosen = select(sites, rng, rate=rate)
    # a space inserted before the code point at each chosen offset
    return Outcome(tm.splice_at(text, chosen, chosen, [" "] * len(chosen)), len(chosen))


@per_text
def _extra_space_sites(text: str) -> tuple[int, ...]:
    """Per candidate space (in text order), the offset where its extra space is inserted."""
    cands = [m.start() for m in _SINGLE_SPACE.finditer(text)]
    if not cands:
        return ()
    spans = _protected(text)
    if spans:
        cands = [i for i in cands if not spans.contains(i)]
    glue = _glue_mask(_cluster_starts(text), len(text))
    if glue is not None:
        # The extra space goes after the chosen one or, if that is inside a cluster (a
        # combining mark follows), before it; the result is the same string.
        cands = [i for i in cands if not (glue[i] and glue[i + 1])]
    if glue is None:
        return tuple(i + 1 for i in cands)
    return tuple(i if glue[i + 1] else i + 1 for i in cands)


# --------------------------------------------------------------------------------------------
# 7.2 tabs_for_spaces
# --------------------------------------------------------------------------------------------

# Group 1: a line-leading run of at least 4 spaces on a line that holds non-whitespace.
# Group 2: a run of spaces between two non-whitespace characters.
_SPACE_SITES = re.compile(r"(?<![^\r\n])( {4,})(?! )(?=[^\S\r\n]*\S)|(?<=\S)( +)(?=\S)")
_INNER_RUN = re.compile(r" (?<=\S.) *(?=\S)")  # group 2 alone, led by its first space (a fast scan)


@perturbation(
    "tabs_for_spaces",
    version=2,
    family="formatting",
    description="Replace runs of spaces between words, and indentation in groups of 4, with tabs.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    memoise_outcome=True,
)
def tabs_for_spaces(text: str, rng: Draws) -> Outcome:
    """Inner runs of spaces become one tab; leading indentation becomes one tab per complete
    group of 4 spaces, the remainder kept.  Code and trailing spaces are untouched.

    >>> tabs_for_spaces("a  b c\\n      indented text", None).text
    'a\\tb\\tc\\n\\t  indented\\ttext'
    """
    if " " not in text:
        return unchanged(text, "no_candidates")
    if (
        _cluster_starts(text) is None
        and not (
            text.startswith("    ")
            or ("\n" in text and "\n    " in text)
            or ("\r" in text and "\r    " in text)
        )
        and not _protected(text)
    ):
        # Common prose: every offset is a cluster boundary, nothing is protected and no line
        # starts with 4 spaces (so group 1 never matches): a plain substitution in C.
        out, n = _INNER_RUN.subn("\t", text)
        return Outcome(out, n) if n else unchanged(text, "no_candidates")
    edits = _tab_edits(text)
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))


def _tab_edits(text: str) -> list[tuple[int, int, str]]:
    """The edits of ``tabs_for_spaces`` for any text: each run of indentation or inner spaces
    outside protected spans and clusters.

    >>> _tab_edits("a  b\\n     c")
    [(1, 3, '\\t'), (5, 9, '\\t')]
    """
    spans = None
    glue = None
    glue_done = False
    edits = []
    for m in _SPACE_SITES.finditer(text):
        if spans is None:
            spans = _protected(text)
        if m.group(1) is not None:
            s = m.start()
            k = (m.end() - s) // 4
            e = s + 4 * k
            rep = "\t" * k
        else:
            s, e = m.span()
            rep = "\t"
        if spans and spans.overlaps(s, e):
            continue
        if not glue_done:
            glue = _glue_mask(_cluster_starts(text), len(text))
            glue_done = True
        if glue is not None and (glue[s] or glue[e]):
            continue
        edits.append((s, e, rep))
    return edits


# --------------------------------------------------------------------------------------------
# 7.3 line_wrap
# --------------------------------------------------------------------------------------------

_WRAPPED = frozenset(("plain", "bullet", "ordered", "option", "quote"))
_MARKER = {
    "bullet": re.compile(r"([ \t]*)([\-*+•])"),
    "ordered": re.compile(r"([ \t]*)([0-9]{1,3}[.)])"),
    "option": re.compile(r"( {0,3})(\(?[A-Za-z][.)])"),
}
_QUOTE_PREFIX = re.compile(r"[ \t>]*")
_HS_RUN0 = re.compile(r"[^\S\r\n]*")
_HS_RUN = re.compile(r"[^\S\r\n]+")
_NON_WS = re.compile(r"\S")


@perturbation(
    "line_wrap",
    version=2,
    family="formatting",
    intensity="width",
    params=[Param("width", int, 40, "wrap column in clusters (smaller = stronger)", 10, 1000)],
    description="Hard-wrap long prose, list and quote lines at a column width.",
    reasons=("no_candidates",),
    fix_at="input_normalisation",
    memoise_outcome=True,
)
def line_wrap(text: str, rng: Draws, *, width: int) -> Outcome:
    """Greedy packing at whitespace runs; continuation lines keep the indentation, a hanging
    indent under list markers, or the quote prefix.

    >>> line_wrap("The quick brown fox jumps over the lazy dog.", None, width=20).text
    'The quick brown fox\\njumps over the lazy\\ndog.'
    """
    if len(text) <= width:
        return unchanged(text, "no_candidates")
    starts = _cluster_starts(text)
    glue = _glue_mask(starts, len(text))
    if starts is None:

        def ncl(a: int, b: int) -> int:
            return b - a
    else:

        def ncl(a: int, b: int) -> int:
            return bisect_left(starts, b) - bisect_left(starts, a)

    nl = tm.newline_style(text)
    spans = None
    spaces_only = None  # nothing protected, one code point per cluster, no other horizontal space
    found = False
    edits: list[tuple[int, int, str]] = []
    for s, e, _, cls in tm.lines(text):
        if cls not in _WRAPPED:
            continue
        if e - s <= width or ncl(s, e) <= width:
            continue
        if cls == "plain":
            body = match_end(_HS_RUN0, text, s, e)
            pw = ncl(s, body)
            prefix = text[s:body]
        elif cls == "quote":
            body = match_end(_QUOTE_PREFIX, text, s, e)
            pw = ncl(s, body)
            prefix = text[s:body]
        else:
            m = _MARKER[cls].match(text, s, e)
            if m is None:  # defensive: the class regex of text.py guarantees a match
                continue
            body = match_end(_HS_RUN0, text, m.end(2), e)
            hang = ncl(m.start(2), body)
            pw = ncl(s, m.end(1)) + hang
            prefix = m.group(1) + " " * hang
        first = _NON_WS.search(text, body, e)
        if first is None:
            continue
        last = e
        while last > s and text[last - 1] in WHITESPACE_SET:
            last -= 1
        if 2 * pw >= width:
            prefix, pw = "", 0
        if spaces_only is None:
            spaces_only = starts is None and not _protected(text) and _hspace_is_space(text)
            c = native.c  # its twin of _jump_breaks takes an ASCII text's bytes
            wrap = c.wrap_breaks if spaces_only and c is not None and text.isascii() else None
            ascii_bytes = text.encode("ascii") if wrap is not None else b""
        if spaces_only:
            if _HS_RUN.search(text, first.end(), last) is None:
                continue
            if wrap is not None:
                breaks = wrap(ascii_bytes, s, first.end(), last, width, pw)
            else:
                breaks = _jump_breaks(text, s, first.end(), last, width, pw)
        else:
            if spans is None:
                spans = _protected(text)
            runs = _runs(text, first.end(), e, spans, glue)
            if not runs:
                continue
            breaks = _scan_breaks(runs, starts, s, last, width, pw)
        found = True
        brk = nl + prefix
        edits += [(rs, re_, brk) for rs, re_ in breaks]
    if not found:
        return unchanged(text, "no_candidates")
    if not edits:
        return unchanged(text, "no_change")
    if spaces_only:  # nothing is protected, so no JSON string holds a break: applied unchecked
        return Outcome(tm.splice_at(text, *zip(*edits)), len(edits))
    return Outcome(tm.splice(text, edits), len(edits))


def _runs(text: str, start: int, e: int, spans: tm.Spans, glue: bytearray | None) -> list[tuple[int, int]]:
    """The runs of horizontal whitespace of a line after ``start``, where it may break: not its
    trailing whitespace, none inside a protected span or a cluster."""
    runs = [r.span() for r in _HS_RUN.finditer(text, start, e)]
    if runs and runs[-1][1] == e:
        runs.pop()  # trailing whitespace: no chunk follows
    if spans:
        runs = [r for r in runs if not spans.overlaps(r[0], r[1])]
    if glue is not None:
        runs = [r for r in runs if not (glue[r[0]] or glue[r[1]])]
    return runs


def _scan_breaks(
    runs: list[tuple[int, int]], starts: list[int] | None, s: int, last: int, width: int, pw: int
) -> list[tuple[int, int]]:
    """The ``runs`` at which greedy packing breaks the line that starts at ``s`` and whose
    content ends at ``last`` (columns count clusters, ``starts``; a continuation line starts at
    column ``pw``), one run at a time."""
    # Columns count clusters: with one code point per cluster, offsets are columns.
    if starts is None:
        cols = runs
        col = runs[0][0] - s
        last_col = last
    else:
        cols = [(bisect_left(starts, rs), bisect_left(starts, re_)) for rs, re_ in runs]
        col = cols[0][0] - bisect_left(starts, s)
        last_col = bisect_left(starts, last)
    ends = [rs for rs, _ in cols[1:]]
    ends.append(last_col)
    breaks = []
    for k, (rs, re_) in enumerate(cols):
        end_col = col + ends[k] - rs  # the run and the chunk after it
        if end_col > width:
            breaks.append(runs[k])
            col = pw + ends[k] - re_
        else:
            col = end_col
    return breaks


def _jump_breaks(text: str, s: int, start: int, last: int, width: int, pw: int) -> list[tuple[int, int]]:
    """:func:`_scan_breaks` of a line whose runs are U+0020 only, in a text with one code point
    per cluster and nothing protected: from each line's origin, the break is the run before the
    first run that starts past the width (or the last run, when only the final chunk passes it),
    found by one search forward and one back.

    >>> t = "The quick brown fox jumps over the lazy dog."
    >>> _jump_breaks(t, 0, 1, len(t), 20, 0) == _scan_breaks(_runs(t, 1, len(t), tm.Spans(), None), None, 0, len(t), 20, 0)
    True
    """
    first = _HS_RUN.search(text, start, last)
    if first is None:
        return []
    cur = first.start()  # the start of the first run the line can still break at
    origin, col = s, 0  # the current line's first offset and its column
    breaks = []
    while cur >= 0:
        lim = origin + width - col  # a chunk may end here
        if last <= lim:
            break
        after = _RUN_START.search(text, (lim if lim > cur else cur) + 1, last)  # the first run past the limit
        q = text.rfind(" ", cur, last if after is None else after.start())  # its run before
        rs = q
        while text[rs - 1] == " ":
            rs -= 1
        breaks.append((rs, q + 1))
        origin, col = q + 1, pw
        cur = -1 if after is None else after.start()
    return breaks


def _hspace_is_space(text: str) -> bool:
    """True when U+0020 is the only horizontal whitespace of ``text``.

    >>> _hspace_is_space("a b\\nc"), _hspace_is_space("a\\tb"), _hspace_is_space("a\\u00a0b")
    (True, False, False)
    """
    if any(c in text for c in "\t\x0b\x0c\x1c\x1d\x1e\x1f"):
        return False
    return text.isascii() or not any(c in tm.HSPACE for c in tm.non_ascii(text))


_RUN_START = re.compile(r"(?<=\S)[^\S\r\n]")  # the first character of a run of horizontal space


# --------------------------------------------------------------------------------------------
# 7.4 markdown_wrap
# --------------------------------------------------------------------------------------------


@perturbation(
    "markdown_wrap",
    family="formatting",
    description="Wrap the whole text in a Markdown code fence longer than any backtick run inside it.",
)
def markdown_wrap(text: str, rng: Draws) -> Outcome:
    """Fence the text with more backticks than its longest backtick run (at least 3).

    >>> markdown_wrap("print(1)", None).text
    '```\\nprint(1)\\n```'
    """
    longest = max(map(len, BACKTICK_RUN.findall(text)), default=0) if "`" in text else 0
    fence = "`" * max(3, longest + 1)
    nl = tm.newline_style(text)
    tail = "" if text.endswith(("\n", "\r")) else nl
    return Outcome(fence + nl + text + tail + fence, 1)


# --------------------------------------------------------------------------------------------
# 7.5 strip_markdown
# --------------------------------------------------------------------------------------------

_MD_HINT = re.compile(r"[#=\-*_>+`~\\\[<]|[0-9][.)]")
_HEAD_OPEN = re.compile(r" {0,3}(#{1,6})[ \t]")
_HEAD_CLOSE = re.compile(r"[ \t]#+(?=[ \t]*\Z)")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*\Z")
_THEMATIC = re.compile(r" {0,3}([\-*_])(?:[ \t]*\1){2,}[ \t]*\Z")
_QUOTE = re.compile(r" {0,3}((?:>[ \t]?)+)")
_LIST = re.compile(r"[ \t]*([\-*+]|[0-9]{1,9}[.)])[ \t]")
_TASK = re.compile(r"\[[ x]\][ \t]")


@perturbation(
    "strip_markdown",
    family="formatting",
    description="Remove Markdown markup (headings, lists, quotes, emphasis, links, "
    "code delimiters), keeping the inner text.",
    reasons=("no_candidates",),
    memoise_outcome=True,
)
def strip_markdown(text: str, rng: Draws) -> Outcome:
    """Line rules (fences, headings, setext underlines, thematic breaks, quote and list
    markers) first, then one inline scan per line (escapes, code, links, emphasis).

    >>> strip_markdown("## Setup\\n\\n1. Install **my_tool** via `pip`.", None).text
    'Setup\\n\\nInstall my_tool via pip.'
    """
    if _MD_HINT.search(text) is None:
        return unchanged(text, "no_candidates")
    lines = tm.lines(text)
    stripper = _MarkdownLines(text, len(lines))
    for i, ln in enumerate(lines):
        stripper.strip(i, ln)
    if not stripper.edits:
        return unchanged(text, "no_candidates")
    dels = stripper.dels + _removed_lines(lines, stripper.removed)
    dels.sort()
    return Outcome(tm.splice(text, dels), stripper.edits)


class _MarkdownLines:
    """The line rules of ``strip_markdown`` applied one line at a time, top to bottom: the
    deletions inside lines (``dels``), the whole lines to remove (``removed``: fence lines and
    setext underlines) and the number of occurrences removed (``edits``).

    >>> t = "# Title #\\n> **quoted**"
    >>> stripper = _MarkdownLines(t, 2)
    >>> for i, ln in enumerate(tm.lines(t)):
    ...     stripper.strip(i, ln)
    >>> tm.splice(t, sorted(stripper.dels)), stripper.edits
    ('Title\\nquoted', 4)
    """

    __slots__ = ("text", "urls", "url_starts", "glue", "dels", "removed", "edits", "fence", "prev_plain")

    def __init__(self, text: str, n_lines: int) -> None:
        self.text = text
        self.urls = [(s, e) for s, e in tm.protected_spans(text, json=False) if text[s] not in " `~"]
        self.url_starts = [s for s, _ in self.urls]
        self.glue = _glue_mask(_cluster_starts(text), len(text))
        self.dels: list[tuple[int, int, str]] = []
        self.removed = bytearray(n_lines)
        self.edits = 0
        self.fence: str | None = None  # the run of the open fenced block
        self.prev_plain = False  # the line before is plain (a setext underline may follow)

    def ok(self, *pos: int) -> bool:
        """True when every offset is a cluster boundary."""
        glue = self.glue
        return glue is None or not any(glue[p] for p in pos)

    def delete(self, start: int, end: int, occurrences: int = 1) -> None:
        """Delete ``text[start:end]``, which removes ``occurrences`` of markup."""
        self.dels.append((start, end, ""))
        self.edits += occurrences

    def strip(self, i: int, ln: tm.Line) -> None:
        """Apply the rules to line ``i``."""
        text, s, e, cls = self.text, ln.start, ln.end, ln.cls
        if cls == "code":
            self.prev_plain = False
            self._fence_line(i, s, e)
            return
        self.fence = None
        was_plain, self.prev_plain = self.prev_plain, False
        if cls == "blank":
            return
        if cls == "heading":
            self._heading(s, e)
        elif was_plain and _SETEXT.match(text, s, e) is not None:
            self.removed[i] = 1
            self.edits += 1
        elif _THEMATIC.match(text, s, e) is not None:
            self.delete(s, e)
        else:
            self.inline(self._markers(s, e), e)
            self.prev_plain = cls == "plain"

    def _fence_line(self, i: int, s: int, e: int) -> None:
        """A line of a fenced block: its opening and closing fence lines are removed."""
        text = self.text
        if self.fence is None:
            self.fence = tm.fence_opening(text, s, e)
            if self.fence is not None:
                self.removed[i] = 1
                self.edits += 1
        elif tm.closes_fence(text, s, e, self.fence):
            self.removed[i] = 1
            self.edits += 1
            self.fence = None

    def _heading(self, s: int, e: int) -> None:
        """An ATX heading: its opening and closing ``#`` runs, then the inline rules."""
        text = self.text
        m = _HEAD_OPEN.match(text, s, e)
        if m is not None and self.ok(m.start(1), m.end()):
            self.delete(m.start(1), m.end())
            s = m.end()
            c = _HEAD_CLOSE.search(text, s, e)
            if c is not None and self.ok(c.start(), c.end()):
                self.delete(c.start(), c.end())
                e = c.start()
        self.inline(s, e)

    def _markers(self, s: int, e: int) -> int:
        """Remove the quote markers, then a list marker and its task box; return where the
        line's content starts."""
        text = self.text
        m = _QUOTE.match(text, s, e)
        if m is not None and self.ok(m.start(1), m.end(1)):
            self.delete(m.start(1), m.end(1), m.group(1).count(">"))
            s = m.end()
        m = _LIST.match(text, s, e)
        if m is not None and self.ok(m.start(1), m.end()):
            self.delete(m.start(1), m.end())
            s = m.end()
            t = _TASK.match(text, s, e)
            if t is not None and self.ok(t.end()):
                self.delete(s, t.end())
                s = t.end()
        return s

    def inline(self, s: int, e: int) -> None:
        """The inline rules on ``text[s:e]``."""
        self.edits += strip_inline(self.text, s, e, self.urls, self.url_starts, self.glue, self.dels)


def _removed_lines(lines: list[tm.Line], removed: bytearray) -> list[tuple[int, int, str]]:
    """The deletions of the removed lines, each with its line break (the last line, which has
    none, with the break before it).

    >>> lines = tm.lines("a\\n```\\nb\\n```")
    >>> _removed_lines(lines, bytearray([0, 1, 0, 1]))
    [(2, 6, ''), (8, 11, ''), (7, 8, '')]
    """
    dels = []
    last_kept = -1
    for i, ln in enumerate(lines):
        if not removed[i]:
            last_kept = i
            continue
        if ln.next > ln.end:
            dels.append((ln.start, ln.next, ""))
        else:  # the last line, without a break: it goes with the break before it
            dels.append((ln.start, ln.end, ""))
            if last_kept >= 0:
                k = lines[last_kept]
                if k.next > k.end:
                    dels.append((k.end, k.next, ""))
    return dels


# --------------------------------------------------------------------------------------------
# 7.6 bullet_reformat
# --------------------------------------------------------------------------------------------

_ORDERED_HINT = re.compile(r"[0-9][.)][ \t]")
_ORDERED = re.compile(r"([ \t]*)([0-9]{1,3}[.)])[ \t]")


@perturbation(
    "bullet_reformat",
    family="formatting",
    params=[choice("marker", "-", ("-", "*", "+"), "bullet marker that replaces the number")],
    description="Turn numbered list items into bullets when at least two share an indentation.",
    reasons=("no_candidates",),
)
def bullet_reformat(text: str, rng: Draws, *, marker: str) -> Outcome:
    """Replace the number of ordered items that share an indentation with ``marker``.

    >>> bullet_reformat("Steps:\\n1. Mix\\n2) Bake\\n\\nA. Option", None, marker="-").text
    'Steps:\\n- Mix\\n- Bake\\n\\nA. Option'
    """
    if _ORDERED_HINT.search(text) is None:
        return unchanged(text, "no_candidates")
    found = []
    per_indent: dict[str, int] = {}
    for ln in tm.lines(text):
        if ln.cls != "ordered":
            continue
        m = _ORDERED.match(text, ln.start, ln.end)
        if m is None:  # defensive: the class guarantees a match
            continue
        ind = m.group(1)
        per_indent[ind] = per_indent.get(ind, 0) + 1
        found.append((ind, m.start(2), m.end(2)))
    edits = [(s, e, marker) for ind, s, e in found if per_indent[ind] >= 2]
    if not edits:
        return unchanged(text, "no_candidates")
    return Outcome(tm.splice(text, edits), len(edits))
