"""Numeric literals (§1.10)."""

from __future__ import annotations

import re as _re
from collections.abc import Container, Iterable
from typing import NamedTuple

import regex

from ..memo import per_text
from .chars import new_tuple
from .spans import Spans, as_spans

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


# The §1.10 pattern from its first digit, the optional "-" before it checked afterwards (the
# same literals; a digit lead is a fast scan):
# ``(?:(?<![\p{L}\p{N}])-)?(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)``
_NUM = _re.compile(r"[0-9](?:[0-9]{0,2}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]*(?:\.[0-9]+)?)")
_IDENT_BEFORE = regex.compile(r"(?<=[#+]|(?<![\p{L}\p{N}\p{M}])(?:No\.|no\.|ID|id) ?)")
_MARKER = regex.compile(r"(?<![^\r\n \t][ \t]*)[0-9]{1,3}[.)][ \t]")
_PHONE_SEP = _re.compile(r"(?:[ \-.()]{1,2})\Z")
_ANY_DIGIT = _re.compile(r"[0-9]")
_DIGITS_ONLY = _re.compile(r"[^0-9]")
_CURRENCY = frozenset("$€£¥₹")
_CONNECT = frozenset("-/:.")


def _identifier_before(text: str, s: int) -> bool:
    """Exclusion 4: ``#`` or ``+`` directly before offset ``s``, or ``No.``, ``no.``, ``ID`` or
    ``id`` with at most one space between (only then is the pattern tried).

    >>> _identifier_before("No. 5", 4), _identifier_before("so 5", 3), _identifier_before("#5", 1)
    (True, False, True)
    """
    c = text[s - 1]
    if c == " " and s > 1:
        c = text[s - 2]
    return c in "#+.Dd" and _IDENT_BEFORE.match(text, s) is not None


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def numeric_literals(
    text: str, spans: Spans | Iterable[tuple[int, int]] | None = None, ends: Container[int] | None = None
) -> list[Number]:
    """Numeric literals of §1.10 with the nine exclusions applied (``ends``: only those that end
    at one of these offsets, their exclusions found among all the literals).

    >>> [(n.text, n.quantity, n.excluded) for n in numeric_literals("Pay $1,500.50 by 2026-01-15, call 555-0100")]
    [('1,500.50', True, None), ('2026', False, 'connected'), ('01', False, 'connected'), ('15', False, 'connected'), ('555', False, 'connected'), ('0100', False, 'connected')]
    >>> [n.text for n in numeric_literals("5 km, 7 kg and 8", (), ends={7})]
    ['7']
    """
    if _ANY_DIGIT.search(text) is None:
        return []
    if spans is None and ends is None:
        return list(_numeric_literals_of(text))
    return _numeric_literals(text, as_spans(text, spans), ends)


@per_text
def _numeric_literals_of(text: str) -> tuple[Number, ...]:
    """The numeric literals of ``text`` (with its own protected spans), memoised like its tokens."""
    return tuple(_numeric_literals(text, as_spans(text, None)))


def _numeric_literals(text: str, sp: Spans, ends_at: Container[int] | None = None) -> list[Number]:
    n = len(text)
    # First pass keeps only ints (cheap for the garbage collector on huge inputs).
    starts: list[int] = []
    ends: list[int] = []
    for m in _NUM.finditer(text):
        s, e = m.span()
        if s > 0 and text[s - 1] == "-" and not (s > 1 and text[s - 2].isalnum()):
            s -= 1
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
                digits += len(_DIGITS_ONLY.sub("", text[starts[k] : ends[k]]))
                if digits >= 7:
                    phone[i : j + 1] = b"\x01" * (j + 1 - i)
                    break
        i = j + 1
    out = []
    for k in range(count):
        s = starts[k]
        e = ends[k]
        if ends_at is not None and e not in ends_at:
            continue
        t = text[s:e]
        neg = t[0] == "-"
        ip, _, fp = (t[1:] if neg else t).partition(".")
        grouped = "," in ip
        idig = len(ip) - ip.count(",") if grouped else len(ip)
        fdig = len(fp)
        ex = None
        if (s > 1 and text[s - 1] in _CONNECT and _digit(text[s - 2])) or (
            e + 1 < n and text[e] in _CONNECT and _digit(text[e + 1])
        ):
            ex = "connected"
        elif idig >= 2 and ip[0] == "0":
            ex = "leading_zero"
        elif (s > 0 and text[s - 1].isalpha()) or (e < n and text[e].isalpha()):
            ex = "glued"
        elif s > 0 and _identifier_before(text, s):
            ex = "identifier"
        elif phone[k]:
            ex = "phone"
        elif (
            idig == 4
            and not fdig
            and not grouped
            and not neg
            and "1000" <= ip <= "2099"
            and not (s > 0 and text[s - 1] in _CURRENCY)
        ):
            ex = "year"
        elif (
            not neg
            and e + 1 < n
            and text[e] in ".)"
            and _MARKER.match(text, s)
            and not (sp and sp.contains(s))
        ):
            ex = "list_marker"  # a marker: 1-3 digits, "." or ")" and a space or tab
        elif sp and sp.overlaps(s, e):
            ex = "protected"
        elif idig + fdig > 15:
            ex = "too_long"
        out.append(new_tuple(Number, (s, e, t, neg, grouped, idig, fdig, ex is None, ex)))
    return out
