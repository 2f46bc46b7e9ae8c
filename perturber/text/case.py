"""Case classes, case matching and apostrophe style (§1.6, §1.7, §6)."""

from __future__ import annotations

import regex

from ..memo import per_value

# --------------------------------------------------------------------------------------------
# Case (§1.6, §1.7, §6)
# --------------------------------------------------------------------------------------------


@per_value(4096)
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
    if word.islower() and word.isascii():  # the common case: its letters are its cased letters
        return "lower"
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
                            out = out[:i] + u + out[i + 1 :]
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
