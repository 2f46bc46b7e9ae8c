"""Units: sentences, lines and code blocks (§1.9)."""

from __future__ import annotations

import re as _re
import string
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ..memo import loaded_once, per_text
from .chars import JOINERS as _JOINERS
from .chars import ascii_words, new_tuple
from .chars import is_mark as _is_mark
from .lines import NON_WHITESPACE, classify_lines, fenced_blocks, is_plain_line, line_bounds
from .spans import Spans, find_protected

# --------------------------------------------------------------------------------------------
# Units: sentences, lines, code blocks (§1.9)
# --------------------------------------------------------------------------------------------


class Unit(NamedTuple):
    """A unit span from its first to its last non-whitespace character."""

    start: int
    end: int
    kind: str  # "sentence", "line" or "code"
    is_question: bool


_TERM = _re.compile(r"[.!?…]+([\"'”’)\]}»]*)")
_CLOSERS = "\"'”’)]}»"


_DIGIT_AFTER = _re.compile(r" ?[0-9]")


@loaded_once
def _abbr() -> tuple[frozenset, frozenset, tuple, frozenset]:
    """(plain abbreviations, those needing a following digit, dotted ones, the last part of each
    dotted one) of Table A13."""
    from ..data import load_table

    table = load_table("a13_abbreviations")
    digit = frozenset(table["digit_must_follow"])
    plain = frozenset(a for a in table["abbreviations"] if a not in digit and "." not in a)
    dotted = tuple(a for a in table["abbreviations"] if "." in a)
    return plain, digit, dotted, frozenset(d.rsplit(".", 1)[1] for d in dotted)


_ASCII_ALNUM = string.ascii_letters + string.digits


def _run_start(text: str, p: int) -> int:
    """The start of the run of word characters (``str.isalnum``) and marks that ends at ``p``:
    an ASCII run through ``str.rstrip`` of a short window, the rest one code point at a time.

    >>> _run_start("at 5 p.m", 8), _run_start("cafe\u0301s", 6), _run_start(". x", 1)
    (7, 0, 1)
    """
    window = text[max(0, p - 32) : p]
    rest = window.rstrip(_ASCII_ALNUM)
    j = p - (len(window) - len(rest))
    if rest and rest[-1] < "\x80":  # stopped by an ASCII character that is no word character
        return j
    while j > 0:
        c = text[j - 1]
        if c.isalnum() or _is_mark(c):
            j -= 1
        else:
            break
    return j


def _no_end_before(text: str, p: int) -> bool:
    """True when the "." at ``p`` directly follows a Table A13 abbreviation or a one-letter
    word token (§1.9), so that it does not end a sentence."""
    j = _run_start(text, p)
    if j == p:
        return False
    if (
        j > 1
        and text[j - 1] in _JOINERS
        and (text[j - 2].isalnum() or _is_mark(text[j - 2]))
        and text[j].isalnum()
    ):
        return False  # the token goes on to the left: not an abbreviation, not one letter
    while j < p and _is_mark(text[j]):
        j += 1
    if j == p:
        return False
    seg = text[j:p]
    ascii_seg = seg.isascii()  # no marks
    if seg[0].isalpha() and (len(seg) == 1 or (not ascii_seg and all(_is_mark(c) for c in seg[1:]))):
        return True
    plain, digit, dotted, dotted_last = _abbr()
    low = seg.lower()
    if ascii_seg:
        if low in plain:
            return True
        if low in digit:
            return _DIGIT_AFTER.match(text, p + 1) is not None
    if low not in dotted_last:  # no dotted abbreviation ends here
        return False
    for d in dotted:
        k = p - len(d)
        if (
            k >= 0
            and text[k:p].lower() == d
            and (k == 0 or not (text[k - 1].isalnum() or _is_mark(text[k - 1])))
        ):
            return True
    return False


def rstrip_end(text: str, s: int, e: int) -> int:
    """End of ``text[s:e]`` without trailing whitespace."""
    while e > s and text[e - 1].isspace():
        e -= 1
    return e


def lstrip_start(text: str, s: int, e: int) -> int:
    m = NON_WHITESPACE.search(text, s, e)
    return m.start() if m is not None else e


def _sentences(text: str, ps: int, pe: int, sp: Spans, out: list) -> None:
    """Append the sentences of the plain paragraph ``text[ps:pe]`` to ``out``: found by
    :func:`_sentence_ends` when the paragraph has ASCII word characters only and no protected
    span, else one terminal run at a time."""
    if ascii_words(text[ps:pe]) and not (sp and sp.overlaps(max(ps - 1, 0), pe)):
        _simple_sentences(text, ps, pe, out)
    else:
        _checked_sentences(text, ps, pe, sp, out)


def _simple_sentences(text: str, ps: int, pe: int, out: list) -> None:
    """:func:`_checked_sentences` of a paragraph without protected spans whose word characters
    are ASCII: each match of :func:`_sentence_ends` ends a sentence, and the whitespace it
    takes leads to the next one.

    >>> out = []
    >>> _simple_sentences("Dr. Li paid $1.50 at 5 p.m. today!  Ok?)  No. 5 is", 0, 50, out)
    >>> [(u.start, u.end, u.is_question) for u in out]
    [(0, 34, False), (36, 40, True), (42, 50, False)]
    """
    st = lstrip_start(text, ps, pe)
    for m in sentence_end_matches(text, st, pe):
        rs, re_ = m.span(1)
        out.append(new_tuple(Unit, (st, m.end(2), "sentence", "?" in text[rs:re_])))
        st = m.end()
    if st < pe:
        out.append(new_tuple(Unit, (st, rstrip_end(text, st, pe), "sentence", False)))


@loaded_once
def _sentence_ends() -> _re.Pattern[str]:
    """The §1.9 sentence ends of a paragraph whose word characters are ASCII and that holds no
    protected span, as one pattern: a terminal run (group 1), its closers (group 2) and the
    whitespace after them (group 3; empty at the paragraph's end). A run that is a single ``.`` is no end
    after a one-letter token or a Table A13 abbreviation (``no`` only before `` ?[0-9]``): the
    token and its start (no word character, and no joiner after one, before it) are
    look-behinds on the ``.``. :func:`_checked_sentences` is the reference (the tests compare
    them)."""
    plain, digit, _dotted, dotted_last = _abbr()
    # A dotted abbreviation (e.g, i.e) ends in one letter, which the one-letter rule keeps.
    assert all(len(last) == 1 for last in dotted_last)
    word = "A-Za-z0-9"
    starts = rf"(?<![{word}])(?<![{word}][{_re.escape(_JOINERS)}])"  # a token starts here
    by_length: dict[int, list[str]] = {}
    for a in sorted(plain):
        by_length.setdefault(len(a), []).append(_ascii_ci(a))
    after = [rf"(?<!{starts}[A-Za-z]\.)"]  # one letter
    after += [rf"(?<!{starts}(?:{'|'.join(words)})\.)" for _, words in sorted(by_length.items())]
    after += [rf"(?!(?<={starts}{_ascii_ci(d)}\.) ?[0-9])" for d in sorted(digit)]
    closers = "[" + _re.escape(_CLOSERS) + "]*"
    single = rf"(?={closers}(?:\s|\Z))" + "".join(after)
    # led by the class of the run's first character, which the engine scans for in C
    return _re.compile(rf"([.!?…](?:[.!?…]+|(?<=[!?…])|{single}))({closers})(\s+|\Z)")


def _ascii_ci(word: str) -> str:
    """``word`` as a pattern that matches it in any ASCII case (never ``(?i)``: it also folds
    non-ASCII letters onto ASCII ones).

    >>> print(_ascii_ci("e.g"))
    [eE]\\.[gG]
    """
    return "".join(f"[{c}{c.upper()}]" if c.isalpha() else _re.escape(c) for c in word)


def _checked_sentences(text: str, ps: int, pe: int, sp: Spans, out: list) -> None:
    """:func:`_sentences` of any paragraph: each terminal run checked in turn (abbreviations,
    one-letter tokens, protected spans)."""
    cur = ps
    has_sp = bool(sp)
    for m in _TERM.finditer(text, ps, pe):
        ce = m.end()
        if ce < pe and not text[ce].isspace():
            continue
        rs = m.start()
        re_ = m.start(1)
        if (
            re_ - rs == 1
            and text[rs] == "."
            and _no_end_before(text, rs)
            and not (has_sp and sp.contains(rs - 1))
        ):
            continue
        if has_sp and sp.contains(rs):
            continue
        st = lstrip_start(text, cur, rs)
        out.append(new_tuple(Unit, (st, ce, "sentence", "?" in text[rs:re_])))
        cur = ce
    st = lstrip_start(text, cur, pe)
    if st < pe:
        out.append(new_tuple(Unit, (st, rstrip_end(text, st, pe), "sentence", False)))


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
    e = rstrip_end(text, s, e)
    while e > s and text[e - 1] in _CLOSERS:
        e -= 1
    return e > s and text[e - 1] == "?"


def _units(text: str, kinds: str = "all") -> list[Unit]:
    lb = line_bounds(text)
    fences = fenced_blocks(text, lb)
    sp = Spans(find_protected(text, lb, fences))
    out: list[Unit] = []
    for kind, i, j in _blocks(text, lb, fences):
        if kind == "plain":
            _sentences(text, lb[i][0], lb[j][1], sp, out)
        elif kinds == "all":
            s, e = lb[i][0], lb[j][1]
            s = lstrip_start(text, s, e)
            e = rstrip_end(text, s, e)
            out.append(new_tuple(Unit, (s, e, kind, kind == "line" and _line_question(text, s, e))))
    return out


def _blocks(text: str, lb: list[tuple[int, int, int]], fences: list) -> Iterator[tuple[str, int, int]]:
    """``(kind, first line, last line)`` of each non-blank block in text order: a fenced
    ``code`` block, a ``plain`` paragraph, or one other ``line``."""
    cls = classify_lines(text, lb, fences)
    fence_at = {f[0]: f[1] for f in fences}
    i, n = 0, len(lb)
    while i < n:
        c = cls[i]
        if i in fence_at:
            yield "code", i, fence_at[i]
            i = fence_at[i] + 1
        elif c == "plain":
            j = i
            while j + 1 < n and cls[j + 1] == "plain":
                j += 1
            yield "plain", i, j
            i = j + 1
        else:
            if c != "blank":
                yield "line", i, i
            i += 1


def plain_paragraphs(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each plain paragraph (§1.9): its first line's start, its last line's
    end of content.

    >>> plain_paragraphs("One.\\nTwo.\\n\\n- item\\nThree")
    [(0, 9), (18, 23)]
    """
    if "\n" not in text and "\r" not in text:  # one line (a prompt, often): classify it alone
        return [(0, len(text))] if text and is_plain_line(text) else []
    lb = line_bounds(text)
    return [
        (lb[i][0], lb[j][1]) for kind, i, j in _blocks(text, lb, fenced_blocks(text, lb)) if kind == "plain"
    ]


def split_sentences(paragraph: str) -> list[str]:
    """A plain paragraph whose word characters are ASCII and that holds no protected span,
    from its first non-whitespace character, split at its sentence ends: ``[body, run, closers,
    whitespace, body, ..., body]`` (each sentence is a body, its terminal run and closers; the
    last body is the final sentence without an end, maybe empty).

    >>> split_sentences('Hi. "Yes!" she said')
    ['Hi', '.', '', ' ', '"Yes', '!', '"', ' ', 'she said']
    """
    return _sentence_ends().split(paragraph)


def sentence_end_matches(text: str, start: int, end: int) -> Iterator[_re.Match[str]]:
    """The sentence ends of the plain paragraph ``text[start:end]`` when its word characters
    are ASCII and it holds no protected span (:func:`_sentence_ends`): each match's group 1 is
    a terminal run, group 2 its closers, and its end the start of the next sentence.

    >>> [m.group(1) for m in sentence_end_matches("Dr. Li? Yes!! At 5 p.m. ok.", 0, 27)]
    ['?', '!!', '.']
    """
    return _sentence_ends().finditer(text, start, end)


def units(text: str) -> Sequence[Unit]:
    """The units of §1.9 in text order: sentences of plain paragraphs, every other non-blank
    line, and each whole fenced code block.  Each unit runs from its first to its last
    non-whitespace character, so the gaps between units are pure whitespace.

    >>> t = "Dr. Li left at 5 p.m. today. Why?\\n\\n- item"
    >>> [(t[u.start:u.end], u.kind, u.is_question) for u in units(t)]
    [('Dr. Li left at 5 p.m. today.', 'sentence', False), ('Why?', 'sentence', True), ('- item', 'line', False)]
    """
    return _units_of(text, "all")


def sentences(text: str) -> Sequence[Unit]:
    """Only the sentences of the plain paragraphs (the ``sentence`` units).

    >>> [u[:2] for u in sentences("It is 3.14. Yes…  ok")]
    [(0, 11), (12, 16), (18, 20)]
    """
    return _units_of(text, "sentences")


@per_text
def _units_of(text: str, kinds: str) -> tuple[Unit, ...]:
    """:func:`_units` as a tuple, memoised like the tokens (:func:`units`, :func:`sentences`)."""
    return tuple(_units(text, kinds))
