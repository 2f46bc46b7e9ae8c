"""JSON as text: one O(n) scanner, the lexeme-tree parser and its re-emitter.

* ``scan(text, start)`` checks the RFC 8259 container (object or array) that starts at
  ``text[start]``, iteratively (any depth, never ``RecursionError``), and reports every string
  on the way (member name or value).  Everything else here is built on it and on ``TOKEN``:
* ``is_container(text)``: the whole text, outer whitespace aside, is one object or array
  (``quote_style`` leaves such inputs alone);
* ``regions(text)``: the JSON regions of a text (docs/spec/catalog.md §1.8 kind 5), each with its parsed
  value and its strings, prose string values flagged;
* ``parse_object`` / ``parse_tokens``: the *lexeme tree* of a JSON object (the schema family), and
  ``Style`` / ``dump`` to write a tree back in the input's own layout.

>>> is_container(' {"a": [1, {"b": null}]}\\n'), is_container('[NaN]')
(True, False)
>>> [(r.start, r.end, r.value) for r in regions('Send {"name": "Ada"} or [1, 2].')]
[(5, 20, {'name': 'Ada'})]
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any, NamedTuple

__all__ = [
    "TOKEN",
    "StringSpan",
    "Scan",
    "Region",
    "scan",
    "is_container",
    "regions",
    "Obj",
    "Copy",
    "decode_string",
    "is_string",
    "string_value",
    "key_lexeme",
    "parse_object",
    "parse_tokens",
    "Style",
    "detect_style",
    "dump",
]

# --------------------------------------------------------------------------------------------
# The scanner
# --------------------------------------------------------------------------------------------

#: One JSON token after optional whitespace; ``m.lastindex`` is the kind (``OPEN`` ... ``JUNK``).
TOKEN = re.compile(
    r"[ \t\n\r]*(?:"
    r"([{\[])"  # 1 open
    r"|([}\]])"  # 2 close
    r"|(,)"  # 3
    r"|(:)"  # 4
    r'|("[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*")'  # 5 string
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)"  # 6 scalar
    r"|(.))",  # 7 junk
    re.S,
)
OPEN, CLOSE, COMMA, COLON, STRING, SCALAR, JUNK = range(1, 8)

# What the grammar expects next.
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE, _END = range(7)


class StringSpan(NamedTuple):
    """A string inside a container: ``text[start:end]`` is its interior (quotes excluded)."""

    start: int
    end: int
    name: bool  #: a member name (else a value)


class Scan(NamedTuple):
    """What ``scan`` found from one opening bracket."""

    end: int | None  #: offset just after the container; None when none starts there
    stop: int  #: where scanning stopped: ``end``, or the offset of the offending token
    strings: list[StringSpan]  #: every string token met, in order
    open_starts: list[int]  #: starts of the containers still open at ``stop`` (none are valid)


def scan(text: str, start: int = 0) -> Scan:
    """Check the container starting at ``text[start]`` (``{`` or ``[``); O(its length).

    Duplicate member names are allowed (RFC 8259 does not forbid them); ``NaN``/``Infinity``
    are not JSON.

    >>> s = scan('x {"a": ["b c"]} y', 2)
    >>> s.end, [(x.start, x.end, x.name) for x in s.strings]
    (16, [(4, 5, True), (10, 13, False)])
    >>> scan('{"a" 1}').end is None, scan('[1, 2').end is None
    (True, True)
    """
    strings: list[StringSpan] = []
    stack: list[int] = []  # start offsets of the open containers
    objects: list[bool] = []  # whether each open container is an object
    expect = _VALUE
    pos, n = start, len(text)
    match = TOKEN.match
    tok = n
    while pos < n:
        m = match(text, pos)
        if m is None:  # only whitespace is left
            tok = n
            break
        kind = m.lastindex or JUNK
        tok = m.start(kind)
        if kind == JUNK:
            break
        if kind == STRING:
            if expect == _KEY or expect == _KEY_OR_CLOSE:
                strings.append(StringSpan(tok + 1, m.end() - 1, True))
                expect = _COLON
            elif (expect == _VALUE or expect == _VALUE_OR_CLOSE) and stack:
                strings.append(StringSpan(tok + 1, m.end() - 1, False))
                expect = _COMMA_OR_CLOSE
            else:
                break
        elif kind == SCALAR:
            if (expect != _VALUE and expect != _VALUE_OR_CLOSE) or not stack:
                break
            expect = _COMMA_OR_CLOSE
        elif kind == OPEN:
            if expect != _VALUE and expect != _VALUE_OR_CLOSE:
                break
            is_object = text[tok] == "{"
            stack.append(tok)
            objects.append(is_object)
            expect = _KEY_OR_CLOSE if is_object else _VALUE_OR_CLOSE
        elif kind == CLOSE:
            if not stack:
                break
            if text[tok] == "}":
                if not objects[-1] or (expect != _KEY_OR_CLOSE and expect != _COMMA_OR_CLOSE):
                    break
            elif objects[-1] or (expect != _VALUE_OR_CLOSE and expect != _COMMA_OR_CLOSE):
                break
            stack.pop()
            objects.pop()
            if not stack:
                return Scan(m.end(), m.end(), strings, [])
            expect = _COMMA_OR_CLOSE
        elif kind == COMMA:
            if expect != _COMMA_OR_CLOSE:
                break
            expect = _KEY if objects[-1] else _VALUE
        else:  # COLON
            if expect != _COLON:
                break
            expect = _VALUE
        pos = m.end()
    else:
        tok = n
    return Scan(None, tok, strings, stack)


def is_container(text: str) -> bool:
    """True if ``text`` without outer whitespace is one RFC 8259 object or array.

    >>> is_container('[1, "a"]'), is_container('{"a": 1} {}'), is_container('{}x')
    (True, False, False)
    """
    body = text.strip()
    return len(body) >= 2 and body[0] in "{[" and scan(body).end == len(body)


# --------------------------------------------------------------------------------------------
# JSON regions in a text (§1.8 kind 5)
# --------------------------------------------------------------------------------------------

_WS_RE = re.compile(r"\s")
_LETTER_RE = re.compile(r"[^\W\d_]")
_OPENER = re.compile(r"[{\[]")


class Region(NamedTuple):
    """A JSON region: ``text[start:end]`` parses to ``value``; ``strings`` are its string tokens,
    ``prose`` those whose interior is ordinary text (the rest of the region is protected)."""

    start: int
    end: int
    value: Any
    strings: tuple[StringSpan, ...]
    prose: tuple[StringSpan, ...]


def _is_prose(text: str, s: StringSpan) -> bool:
    """A string value whose decoded content holds a whitespace character and a letter."""
    if s.name:
        return False
    inner = text[s.start : s.end]
    if "\\" in inner:
        inner = json.loads('"' + inner + '"')
    return _WS_RE.search(inner) is not None and _LETTER_RE.search(inner) is not None


def _region(text: str, start: int, end: int, strings: list[StringSpan]) -> Region:
    try:
        value = json.loads(text[start:end])
    except RecursionError:  # deeper than the interpreter's recursion limit
        value = None
    return Region(start, end, value, tuple(strings), tuple(s for s in strings if _is_prose(text, s)))


def regions(text: str, skip=None) -> list[Region]:
    """The JSON regions of ``text``, left to right (docs/spec/catalog.md §1.8 kind 5).

    The whole text when, outer whitespace aside, it is one object or array; otherwise every
    maximal segment that starts at ``{`` or ``[``, parses as an object or array and holds at least
    one string, never starting inside a segment already found (nor at an offset for which
    ``skip(offset)`` is true: the earlier protected kinds).  A failed scan marks the
    containers it left open as invalid, so they are not scanned again (a scan from one of them
    would read the same tokens and fail at the same place); openers hidden inside the string
    tokens of a failed scan are scanned afresh.  That stays O(n) in total (G6): a string holds no
    unescaped ``"`` and an escape is junk outside a string, so a scan from inside a string reads
    the text in the *other* quote phase, where the first scan's structure is string content and
    its string content is structure.  Two scans in the same phase never overlap except through a
    container that closed inside the first (scanned once more, then skipped whole), so every
    character is read a bounded number of times (``tests/test_json_regions.py`` measures it).

    >>> [r.prose for r in regions('{"note": "two words", "id": "x_1"}')]
    [(StringSpan(start=10, end=19, name=False),)]
    >>> [(r.start, r.end) for r in regions('a [1, 2] b {"k": [1} c ["x"]')]
    [(23, 28)]
    """
    body = text.strip()
    if len(body) >= 2 and body[0] in "{[":
        lead = len(text) - len(text.lstrip())
        whole = scan(text, lead)
        if whole.end == lead + len(body):
            return [_region(text, lead, whole.end, whole.strings)]
        invalid = set(whole.open_starts)
    else:
        invalid = set()
    found: list[Region] = []
    pos = 0
    while True:
        m = _OPENER.search(text, pos)
        if m is None:
            return found
        start = m.start()
        if start in invalid or (skip is not None and skip(start)):
            pos = start + 1
            continue
        result = scan(text, start)
        if result.end is None:
            invalid.update(result.open_starts)
            pos = start + 1
        elif result.strings:
            found.append(_region(text, start, result.end, result.strings))
            pos = result.end
        else:  # valid but without strings: nothing inside it can hold one either
            pos = result.end


# --------------------------------------------------------------------------------------------
# Lexeme tree
# --------------------------------------------------------------------------------------------


class Obj:
    """A JSON object: ``members`` are ``(key, key_lexeme, value)`` in document order.

    ``index`` maps each decoded key to its value (lookup only; never iterated). A value is a
    lexeme ``str`` (number, string with its quotes, ``true``/``false``/``null``), a ``list``
    (array), an ``Obj``, or a ``Copy`` (``inline_defs`` only).
    """

    __slots__ = ("members", "index")

    def __init__(self, members=None) -> None:
        if members is None:
            self.members, self.index = [], {}
        else:
            self.members = list(members)
            self.index = {m[0]: m[2] for m in self.members}

    def get(self, key, default=None):
        return self.index.get(key, default)


class Copy:
    """An inlined definition: ``node`` is emitted in place, once per occurrence (``inline_defs``)."""

    __slots__ = ("key", "node")

    def __init__(self, key, node) -> None:
        self.key, self.node = key, node


def decode_string(lexeme: str) -> str:
    """Decoded value of a string lexeme (with its quotes)."""
    return lexeme[1:-1] if "\\" not in lexeme else json.loads(lexeme)


def is_string(value) -> bool:
    """``value`` is a string lexeme (with its quotes)."""
    return type(value) is str and value[:1] == '"'


def string_value(value):
    """The decoded string if ``value`` is a string lexeme, else None."""
    return decode_string(value) if type(value) is str and value[:1] == '"' else None


def key_lexeme(name: str) -> str:
    """Lexeme of a new key (shortest JSON form, ``ensure_ascii=False``)."""
    return json.dumps(name, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Parsing (RFC 8259, no NaN/Infinity, no duplicate keys, at most ``MAX_NESTING`` levels)
# --------------------------------------------------------------------------------------------

MAX_NESTING = 1000  # containers, the root object being level 1 (§8 Parsing)


def parse_object(body: str, max_nesting: int = MAX_NESTING):
    """The lexeme tree of ``body`` (no surrounding whitespace), or None if it is not a JSON object.

    The stdlib ``json`` decoder (C scanner) does the validation and the structure, with hooks
    that keep number lexemes and build ``Obj`` nodes; string lexemes are restored from a table of
    the escaped spellings. Inputs it cannot represent exactly (one value spelled two ways) or that
    exhaust the interpreter's recursion limit go through ``parse_tokens``, the iterative parser.

    >>> parse_object('{"a": [1e5, "\\\\u00e9"]}').members
    [('a', '"a"', ['1e5', '"\\\\u00e9"'])]
    >>> parse_object('{"a": 1, "a": 2}') is None, parse_object('[1]') is None, parse_object('{"a": NaN}') is None
    (True, True, True)
    """
    if body[:1] != "{":
        return None
    try:
        return _parse_fast(body, max_nesting)
    except _Invalid:
        return None
    except (_Fallback, RecursionError):
        return parse_tokens(body, max_nesting)


class _Invalid(Exception):
    """The input is not a JSON object under §8's rules."""


class _Fallback(Exception):
    """The fast parser cannot keep every lexeme exactly; use the token parser."""


class _Num(str):
    """A number lexeme while the decoder runs (``parse_int``/``parse_float``)."""

    __slots__ = ()


def _reject_constant(name):
    raise _Invalid(name)


_LITERALS = {True: "true", False: "false", None: "null"}
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NON_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"{": 1, "[": 1, "}": -1, "]": -1}


def _parse_fast(body: str, max_nesting: int):
    if body.count("{") + body.count("[") > max_nesting:  # only then can nesting pass the limit
        brackets = _NON_BRACKET.sub("", _STRING.sub("", body))
        if brackets and max(accumulate(map(_DEPTH_STEP.__getitem__, brackets))) > max_nesting:
            raise _Invalid("too deep")
    spelled: dict = {}  # decoded value -> its escaped lexeme
    if "\\" in body:
        lexemes = _STRING.findall(body)
        for lexeme in lexemes:
            if "\\" in lexeme:
                try:
                    value = json.loads(lexeme)
                except ValueError:
                    raise _Invalid("bad string") from None
                if spelled.setdefault(value, lexeme) != lexeme:
                    raise _Fallback
        if spelled:
            plain = set(lx for lx in lexemes if "\\" not in lx)
            if any('"' + value + '"' in plain for value in spelled):
                raise _Fallback

    if spelled:

        def quote(value: str) -> str:
            return spelled.get(value) or '"' + value + '"'
    else:

        def quote(value: str) -> str:
            return '"' + value + '"'

    def lexeme_list(items: list) -> None:
        stack = [items]
        while stack:
            current = stack.pop()
            for i, x in enumerate(current):
                t = type(x)
                if t is str:
                    current[i] = quote(x)
                elif t is _Num:
                    current[i] = str(x)
                elif t is list:
                    stack.append(x)
                elif t is not Obj:
                    current[i] = _LITERALS[x]

    def build(pairs: list) -> Obj:
        members: list[tuple[str, str, Any]] = []
        append = members.append
        for k, v in pairs:
            t = type(v)
            if t is str:
                v = quote(v)
            elif t is _Num:
                v = str(v)
            elif t is list:
                lexeme_list(v)
            elif t is not Obj:
                v = _LITERALS[v]
            append((k, quote(k), v))
        index = {m[0]: m[2] for m in members}
        if len(index) != len(members):
            raise _Invalid("duplicate key")
        node = Obj.__new__(Obj)
        node.members, node.index = members, index
        return node

    decoder = json.JSONDecoder(
        object_pairs_hook=build, parse_int=_Num, parse_float=_Num, parse_constant=_reject_constant
    )
    try:
        root = decoder.decode(body)
    except json.JSONDecodeError:
        raise _Invalid("not JSON") from None
    if type(root) is not Obj:
        raise _Invalid("not an object")
    return root


def parse_tokens(body: str, max_nesting: int = MAX_NESTING):
    """Iterative validating parser over ``TOKEN`` (any nesting up to ``max_nesting``; no duplicate
    member names), the lexeme tree of the object ``body`` or None.

    >>> parse_tokens('{"a": "\\\\u00e9", "b": "é"}').members[0][1:]
    ('"a"', '"\\\\u00e9"')
    """
    if body[:1] != "{":
        return None
    root = None
    stack: list = []
    expect = _VALUE
    pending = ("", "")  # (key, key_lexeme) of the member whose value comes next
    for m in TOKEN.finditer(body):
        kind = m.lastindex
        if kind == STRING:
            lexeme = m.group(STRING)
            if expect == _KEY or expect == _KEY_OR_CLOSE:
                key = lexeme[1:-1] if "\\" not in lexeme else json.loads(lexeme)
                if key in stack[-1].index:
                    return None
                pending = (key, lexeme)
                expect = _COLON
                continue
            value = lexeme
        elif kind == SCALAR:
            value = m.group(SCALAR)
        elif kind == OPEN:
            if expect != _VALUE and expect != _VALUE_OR_CLOSE:
                return None
            if m.group(OPEN) == "{":
                value, nxt = Obj(), _KEY_OR_CLOSE
            else:
                value, nxt = [], _VALUE_OR_CLOSE
            if stack:
                _attach(stack[-1], pending, value)
            elif root is None and type(value) is Obj:
                root = value
            else:
                return None
            stack.append(value)
            if len(stack) > max_nesting:
                return None
            expect = nxt
            continue
        elif kind == CLOSE:
            if not stack:
                return None
            top = stack[-1]
            if m.group(CLOSE) == "}":
                if type(top) is not Obj or (expect != _KEY_OR_CLOSE and expect != _COMMA_OR_CLOSE):
                    return None
            elif type(top) is not list or (expect != _VALUE_OR_CLOSE and expect != _COMMA_OR_CLOSE):
                return None
            stack.pop()
            expect = _COMMA_OR_CLOSE if stack else _END
            continue
        elif kind == COMMA:
            if expect != _COMMA_OR_CLOSE:
                return None
            expect = _KEY if type(stack[-1]) is Obj else _VALUE
            continue
        elif kind == COLON:
            if expect != _COLON:
                return None
            expect = _VALUE
            continue
        else:
            return None
        # A scalar value.
        if (expect != _VALUE and expect != _VALUE_OR_CLOSE) or not stack:
            return None
        _attach(stack[-1], pending, value)
        expect = _COMMA_OR_CLOSE
    return root if expect == _END else None


def _attach(top: Obj | list, pending: tuple[str, str], value: Any) -> None:
    """Add ``value`` to the open container ``top`` (as member ``pending`` of an object)."""
    if isinstance(top, list):
        top.append(value)
    else:
        top.members.append((pending[0], pending[1], value))
        top.index[pending[0]] = value


# --------------------------------------------------------------------------------------------
# Re-emission in the input's style
# --------------------------------------------------------------------------------------------

_SEPARATOR = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|([,:])([ \t\n\r]*)', re.S)
_INDENTED = re.compile(r"[\r\n]([ \t]+)(?=[^ \t\r\n])")


class Style:
    """The layout of a JSON text: pretty or compact, separators, indentation unit, newline."""

    __slots__ = ("pretty", "item", "key", "unit", "nl")
    pretty: bool
    item: str
    key: str
    unit: str
    nl: str


def detect_style(body: str, nl: str) -> Style:
    """The ``Style`` of ``body`` (a JSON text without outer whitespace); ``nl`` is its newline.

    >>> st = detect_style('{\\n  "a": 1,\\n  "b": 2\\n}', "\\n")
    >>> (st.pretty, st.item, st.key, st.unit)
    (True, ',\\n  ', ': ', '  ')
    """
    st = Style()
    st.pretty = "\n" in body or "\r" in body
    item = key = None
    for m in _SEPARATOR.finditer(body):
        sep = m.group(1)
        if sep is None:
            continue
        if sep == "," and item is None:
            item = "," + m.group(2)
        elif sep == ":" and key is None:
            key = ":" + m.group(2)
        if item is not None and key is not None:
            break
    if st.pretty:
        # The value stays on the key's line: only the horizontal part of the separator is kept.
        key = re.split(r"[\r\n]", key, maxsplit=1)[0] if key is not None else ":"
        ind = _INDENTED.search(body)
        if ind is None:
            st.unit = ""
        else:
            ws = ind.group(1)
            st.unit = "\t" if ws[0] == "\t" else ws[: len(ws) - len(ws.lstrip(" "))]
        st.nl = nl
    else:
        st.unit, st.nl = "", ""
    st.item = item if item is not None else ","
    st.key = key if key is not None else ":"
    return st


def dump(root, st: Style, budget: int):
    """``(text, copies)``: the serialisation of ``root`` and the number of ``Copy`` nodes expanded,
    or None as soon as the text would pass ``budget`` code points. Iterative, O(output)."""
    out: list[str] = []
    append = out.append
    total = 0
    copies = 0
    pretty, item, key, unit = st.pretty, st.item, st.key, st.unit
    indents = [st.nl]
    stack: list[list] = []  # frames: [iterator, is_object, depth, prefix of the next element]
    v = root
    while True:
        # Emit `v`, the value of the current element: a lexeme or an opening bracket.
        while type(v) is Copy:
            copies += 1
            v = v.node
        t = type(v)
        if t is str:
            append(v)
            total += len(v)
        elif v.members if t is Obj else v:
            depth = len(stack) + 1
            if pretty:
                while len(indents) <= depth:
                    indents.append(indents[-1] + unit)
                first = indents[depth]
            else:
                first = ""
            append("{" if t is Obj else "[")
            total += 1
            stack.append([iter(v.members if t is Obj else v), t is Obj, depth, first])
        else:
            append("{}" if t is Obj else "[]")
            total += 2
        if total > budget:
            return None
        # Advance to the next container or Copy value, writing scalar elements on the way.
        while stack:
            frame = stack[-1]
            is_object, depth, prefix = frame[1], frame[2], frame[3]
            following = ("," + indents[depth]) if pretty else item
            for element in frame[0]:
                if is_object:
                    piece = prefix + element[1] + key
                    v = element[2]
                else:
                    piece = prefix
                    v = element
                prefix = following
                if type(v) is str:
                    piece += v
                    append(piece)
                    total += len(piece)
                    if total > budget:
                        return None
                    continue
                append(piece)
                total += len(piece)
                frame[3] = prefix
                break
            else:
                stack.pop()
                piece = "}" if is_object else "]"
                if pretty:
                    piece = indents[depth - 1] + piece
                append(piece)
                total += len(piece)
                if total > budget:
                    return None
                continue
            break
        else:
            return "".join(out), copies
