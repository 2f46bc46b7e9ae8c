"""Lines, newline style and fenced code blocks (§1.5, §1.8 rule 1, §1.9)."""

from __future__ import annotations

import re as _re
from typing import NamedTuple

from ..memo import per_text
from .chars import HSPACE_CLASS, WHITESPACE_CLASS, new_tuple

# --------------------------------------------------------------------------------------------
# Lines and fenced blocks (§1.5, §1.8 rule 1, §1.9)
# --------------------------------------------------------------------------------------------

_LB = _re.compile(r"\r\n|\r|\n")
_FENCE_OPEN = _re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_CLOSE = {
    "`": _re.compile(r" {0,3}(`{3,})[" + HSPACE_CLASS + r"]*\Z"),
    "~": _re.compile(r" {0,3}(~{3,})[" + HSPACE_CLASS + r"]*\Z"),
}


def line_bounds(text: str) -> list[tuple[int, int, int]]:
    """(start, end of content, start of next line); a final line break opens no new line.

    >>> line_bounds("a\\nbc\\r\\n"), line_bounds("a\\n\\nb"), line_bounds("")
    ([(0, 1, 2), (2, 4, 6)], [(0, 1, 2), (2, 2, 3), (3, 4, 4)], [])
    """
    return _break_bounds(text) if "\r" in text else _newline_bounds(text)


def _break_bounds(text: str) -> list[tuple[int, int, int]]:
    """:func:`line_bounds` of any text, one line break at a time."""
    out = []
    pos = 0
    for m in _LB.finditer(text):
        s, e = m.span()
        out.append((pos, s, e))
        pos = e
    if pos < len(text):
        out.append((pos, len(text), len(text)))
    return out


def _newline_bounds(text: str) -> list[tuple[int, int, int]]:
    """:func:`line_bounds` of a text without ``\\r``, from ``str.split`` (the common case)."""
    out = []
    pos = 0
    for part in text.split("\n")[:-1]:
        end = pos + len(part)
        out.append((pos, end, end + 1))
        pos = end + 1
    if pos < len(text):
        out.append((pos, len(text), len(text)))
    return out


def fence_opening(text: str, s: int, e: int) -> str | None:
    """The backtick or tilde run when the line ``text[s:e]`` opens a fenced block, else None.

    >>> fence_opening("  ````py", 0, 8), fence_opening("    ```", 0, 7)
    ('````', None)
    """
    m = _FENCE_OPEN.match(text, s, e)
    return None if m is None else m.group(1)


def closes_fence(text: str, s: int, e: int, run: str) -> bool:
    """True when the line ``text[s:e]`` closes a block opened by ``run`` (same character, at
    least as long, nothing but horizontal whitespace after it).

    >>> closes_fence("````  ", 0, 6, "```"), closes_fence("~~~", 0, 3, "```")
    (True, False)
    """
    m = _FENCE_CLOSE[run[0]].match(text, s, e)
    return m is not None and len(m.group(1)) >= len(run)


def may_fence(text: str) -> bool:
    """False when ``text`` holds no run of three backticks or tildes, so no fenced block (a
    one-character test first: a memchr, where a three-character needle is a slower search).

    >>> may_fence("a ``b`` c"), may_fence("~~~")
    (False, True)
    """
    return ("`" in text and "```" in text) or ("~" in text and "~~~" in text)


def fenced_blocks(text: str, lb: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Fenced blocks as (first line index, last line index, span start, span end)."""
    if not may_fence(text):
        return []
    out = []
    i, n = 0, len(lb)
    while i < n:
        s, e, _ = lb[i]
        run = fence_opening(text, s, e)
        if run is None:
            i += 1
            continue
        j = i + 1
        while j < n and not closes_fence(text, lb[j][0], lb[j][1], run):
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
    if "\r" not in text:  # a C-level find: only a text with a CR can have CRLF first
        return "\n"
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
    r"|(?P<table> {0,3}\|)"
)
_BLANK = _re.compile(r"[" + HSPACE_CLASS + r"]*\Z")
_CUE = _re.compile(
    r"[" + HSPACE_CLASS + r"]*(?:[aA][nN][sS][wW][eE][rR]|[fF][iI][nN][aA][lL][" + HSPACE_CLASS + r"]+"
    r"[aA][nN][sS][wW][eE][rR]|[aA]|[rR][eE][sS][pP][oO][nN][sS][eE]|[oO][uU][tT][pP][uU][tT]"
    r"|[sS][oO][lL][uU][tT][iI][oO][nN])[" + HSPACE_CLASS + r"]*:[" + HSPACE_CLASS + r"]*\Z"
)
NON_WHITESPACE = _re.compile(r"[^" + WHITESPACE_CLASS + r"]")


def cue_line(text: str, lb, fences) -> int | None:
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
    if NON_WHITESPACE.search(text, 0, s) is None:  # no other non-blank line
        return None
    return last


def classify_lines(text: str, lb, fences) -> list[str]:
    code = bytearray(len(lb))
    for a, b, _, _ in fences:
        code[a : b + 1] = b"\x01" * (b + 1 - a)
    cue = cue_line(text, lb, fences)
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
            out.append((m.lastgroup or "plain") if m is not None else "plain")
    return out


def is_plain_line(text: str) -> bool:
    """True when ``text``, one line without a line break, is classed ``plain`` (§1.9): it is
    not blank, opens no fence and starts with no line marker; it is never the answer cue, which
    needs another non-blank line before it. :func:`classify_lines` is the reference.

    >>> is_plain_line("Why?"), is_plain_line("- item"), is_plain_line("```py"), is_plain_line(" ")
    (True, False, False, False)
    """
    n = len(text)
    return (
        _BLANK.match(text) is None
        and (not may_fence(text) or fence_opening(text, 0, n) is None)
        and _LINE_CLS.match(text) is None
    )


def lines(text: str) -> list[Line]:
    """The lines of ``text`` with their §1.9 class (a final line break opens no new line); the
    scan of a short text is memoised like its tokens (each call gets its own list).

    >>> [(l.start, l.end, l.next, l.cls) for l in lines("# T\\n\\n- a\\nQ?\\nAnswer:")]
    [(0, 3, 4, 'heading'), (4, 4, 5, 'blank'), (5, 8, 9, 'bullet'), (9, 11, 12, 'plain'), (12, 19, 19, 'cue')]
    """
    return list(_lines(text))


@per_text
def _lines(text: str) -> tuple[Line, ...]:
    lb = line_bounds(text)
    cls = classify_lines(text, lb, fenced_blocks(text, lb))
    return tuple([new_tuple(Line, (s, e, nx, c)) for (s, e, nx), c in zip(lb, cls)])
