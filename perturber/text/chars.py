"""Character classes of §1.5–§1.6 (whitespace, word characters)."""

from __future__ import annotations

import unicodedata

# --------------------------------------------------------------------------------------------
# Character classes
# --------------------------------------------------------------------------------------------

#: Every code point with ``str.isspace()`` true (checked against Python in the tests).
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
#: Horizontal whitespace (§1.5): every whitespace character except ``\r`` and ``\n``.
HSPACE = WHITESPACE.replace("\r", "").replace("\n", "")


def _cls(chars: str) -> str:
    return "".join("\\" + c if c in "\\]^-[" else c for c in chars)


WHITESPACE_CLASS = _cls(WHITESPACE)
HSPACE_CLASS = _cls(HSPACE)


#: Characters that join two parts of one word (apostrophes, hyphens) in §1.6 tokens.
JOINERS = "'’-‐‑"
#: Characters that bind a token next to them (§1.6): it is then no free token.
BINDERS = "_/\\@#$%&=+<>|^~[]{}"


def is_mark(ch: str) -> bool:
    """True for a combining mark (category M*).

    >>> is_mark("\u0301"), is_mark("e")
    (True, False)
    """
    return ch >= "\u0300" and unicodedata.category(ch)[0] == "M"


def is_word_char(ch: str) -> bool:
    """True for a code point of category L* or N* (§1.6).

    >>> is_word_char("é"), is_word_char("_"), is_word_char("3")
    (True, False, True)
    """
    return ch.isalnum()  # equals category L*/N* for every code point (checked in the tests)


_ASCII = bytes(range(0x80))


def non_ascii(text: str) -> set[str]:
    """The distinct non-ASCII code points of ``text``, in C-level passes.

    >>> sorted(non_ascii("café ×2 é"))
    ['×', 'é']
    """
    return set(text.encode("utf-8", "surrogatepass").translate(None, _ASCII).decode("utf-8", "surrogatepass"))


def ascii_words(text: str) -> bool:
    """True when every word character and combining mark of ``text`` is ASCII (``[A-Za-z0-9]``
    are then its only word characters, and it has no mark): the common case, where scans can
    use ASCII classes.

    >>> ascii_words("It’s 5 €."), ascii_words("naïve"), ascii_words("x\u0301")
    (True, False, False)
    """
    return text.isascii() or not any(c.isalnum() or is_mark(c) for c in non_ascii(text))


#: Fast NamedTuple construction: ``new_tuple(Token, (s, e, t))`` skips ``__new__``'s argument parsing.
new_tuple = tuple.__new__
