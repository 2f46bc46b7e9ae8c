"""directional: one minimal edit that moves the expected answer in a stated direction.

docs/spec/catalog.md §16.

All three entries are out of scope; their expectation is **directional**, so they build
directional tests rather than invariance tests.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from bisect import bisect_right
from decimal import Context, Decimal

import regex

from .. import text as tm
from ..data import load_table
from ..memo import loaded_once, per_text
from ..registry import Outcome, Param, choice, count, perturbation, unchanged
from ..rng import Draws, select
from .word_level.batch import token_indices

_HS = "".join("\\" + c if c in "\\]^-[" else c for c in tm.HSPACE)
_HS_RUN = regex.compile("[" + _HS + "]+")

# --------------------------------------------------------------------------------------------
# insert_negation (§16.1)
# --------------------------------------------------------------------------------------------

_NEGATORS_AFTER = frozenset(("not", "never", "no"))
_NEGATORS_BEFORE = frozenset(("not", "never"))
# A sentence or unit holding one of these words (or an n't contraction) is already negative:
# it is never negated again ("Is it not open?", and a second call on the entry's own output).
_NEGATIVE_WORDS = ("not", "never", "no", "cannot", "nobody", "nothing", "none", "nowhere", "neither", "nor")
_JOIN = "['’\\-‐‑]"
_WS = "".join("\\" + c if c in "\\]^-[" else c for c in tm.WHITESPACE)
# Lookarounds that make a match a whole word token of §1.6 (not part of a longer token).
_TOKEN_START = r"(?<![\p{L}\p{N}]\p{M}*)(?<![\p{L}\p{N}]\p{M}*" + _JOIN + ")"
_TOKEN_END = r"(?![\p{L}\p{N}\p{M}])(?!" + _JOIN + r"[\p{L}\p{N}])"


def _ascii_nocase(word: str) -> str:
    """A pattern matching ``word`` in any ASCII letter case; ``-`` also matches U+2010, U+2011."""
    return "".join(
        f"[{c.lower()}{c.upper()}]" if c.isalpha() else "[\\-‐‑]" if c == "-" else regex.escape(c)
        for c in word
    )


# A whole word token equal to one of those words (ASCII case-insensitive), or ending in n't.
_NEGATIVE = regex.compile(
    "(?:"
    + _TOKEN_START
    + "(?:"
    + "|".join(_ascii_nocase(w) for w in _NEGATIVE_WORDS)
    + ")"
    + "|[nN]['’][tT])"
    + _TOKEN_END
)


class _Aux:
    """Table A17, prepared once."""

    def __init__(self) -> None:
        table = load_table("a17_auxiliaries")
        self.negative = {a: n for a, n in table["question_negatives"]}
        self.declaratives_only = frozenset(table["declaratives_only"])
        self.questions_only = frozenset(table["questions_only"])
        self.all = frozenset(self.negative) | self.declaratives_only
        self.replace = {a: r for a, r in table["declarative_replacements"]}
        self.insert = table["declarative_insert"]
        self.determiners = frozenset(table["determiners"])
        # Auxiliaries other than do/does/did: a word directly followed by one of these is the
        # subject of a clause ("Will is here", "May was warm"), not an auxiliary itself.
        self.finite = self.all - self.questions_only
        words = sorted(self.all, key=lambda w: (-len(w), w))
        self.hint = regex.compile(
            _TOKEN_START + "(?:" + "|".join(map(_ascii_nocase, words)) + ")" + _TOKEN_END
        )


@loaded_once
def _aux() -> _Aux:
    return _Aux()


def _capitalised(word: str) -> bool:
    """First cased letter upper case, but not an all-upper word (``Will``, ``May``, ``CAN`` no)."""
    cls = tm.case_class(word)
    if cls in ("none", "lower", "upper"):
        return False
    return next(c for c in word if tm.is_cased_letter(c)).isupper()


def _negation_candidates(text: str, aux: _Aux) -> list[tuple[tm.Token, int, bool]]:
    """(token, unit index, unit is a question) of every candidate, in text order."""
    toks = tm.word_tokens(text)
    idx = token_indices(toks, aux.all)
    if not idx:
        return []
    spans = tm.Spans(tm.protected_spans(text))
    free = {t.start for t in tm.free_tokens(text, [toks[i] for i in idx], spans)}
    us = tm.units(text)
    starts = [u.start for u in us]
    n = len(toks)
    negative: dict[int, bool] = {}
    out = []
    for i in idx:
        tok = toks[i]
        if tok.start not in free or (tok.start > 0 and text[tok.start - 1] == "\u200d"):
            continue  # protected, bound, or joined by a ZWJ into the cluster before it
        k = bisect_right(starts, tok.start) - 1
        if k < 0:
            continue
        unit = us[k]
        if tok.end > unit.end or i + 1 >= n:
            continue
        nxt = toks[i + 1]
        # followed, after horizontal whitespace only, by a word token of the same unit
        if nxt.start > unit.end or _HS_RUN.fullmatch(text, tok.end, nxt.start) is None:
            continue
        low = tok.text.lower()
        nlow = nxt.text.lower()
        if nlow in _NEGATORS_AFTER:
            continue
        if nlow in aux.finite and not _capitalised(nxt.text):
            continue  # "Will is here": the capitalised word is a name (must not touch nouns)
        prev = toks[i - 1] if i > 0 and toks[i - 1].start >= unit.start else None
        if prev is not None:
            plow = prev.text.lower()
            if plow in _NEGATORS_BEFORE or plow in aux.determiners:
                continue
            if _capitalised(tok.text) and _HS_RUN.fullmatch(text, prev.end, tok.start):
                continue  # "I met Will today", "in May we": a capitalised word mid-phrase is a name
        if unit.is_question:
            if low in aux.declaratives_only:
                continue
        elif low in aux.questions_only:
            continue
        if k not in negative:
            negative[k] = _NEGATIVE.search(text, unit.start, unit.end) is not None
        if negative[k]:
            continue
        out.append((tok, k, unit.is_question))
    return out


@perturbation(
    "insert_negation",
    family="directional",
    in_scope=False,
    expectation="directional",
    params=[choice("target", "last", ("last", "first"), "the sentence to negate")],
    description="Negate one auxiliary (isn't / is not / cannot) in the last or first sentence that has one.",
    version=2,
    reasons=("no_candidates",),
    fix_at="prompt",
)
def insert_negation(text: str, rng: Draws, *, target: str) -> Outcome:
    """Negate the first auxiliary of the last (or first) sentence or unit that has one.

    >>> insert_negation("Which of these animals is a mammal?", None, target="last").text
    "Which of these animals isn't a mammal?"
    >>> insert_negation("The bridge is open today.", None, target="last").text
    'The bridge is not open today.'
    """
    got = _negated(text, target)
    if got is None:
        return unchanged(text, "no_candidates")
    out, word, offset = got
    return Outcome(out, 1, None, {"negated": {"token": word, "offset": offset}})


@per_text
def _negated(text: str, target: str) -> tuple[str, str, int] | None:
    """``(output, negated token, its offset)`` of ``insert_negation``, or None without a
    candidate: a pure function of the text and target (memoised for short texts)."""
    aux = _aux()
    if aux.hint.search(text) is None:
        return None
    cands = _negation_candidates(text, aux)
    if not cands:
        return None
    if target == "first":
        tok, _, question = cands[0]
    else:
        unit = cands[-1][1]
        j = len(cands) - 1
        while j > 0 and cands[j - 1][1] == unit:
            j -= 1
        tok, _, question = cands[j]
    low = tok.text.lower()
    if question:
        neg = tm.match_case(tok.text, aux.negative[low])
        edit = (tok.start, tok.end, tm.apply_apostrophe(neg, tm.apostrophe_style(text, tok.text)))
    elif low in aux.replace:
        edit = (tok.start, tok.end, tm.match_case(tok.text, aux.replace[low]))
    else:
        word = aux.insert.upper() if tm.case_class(tok.text) == "upper" else aux.insert
        edit = (tok.end, tok.end, " " + word)
    return tm.splice(text, [edit]), tok.text, tok.start


# --------------------------------------------------------------------------------------------
# scale_quantity (§16.2)
# --------------------------------------------------------------------------------------------

_DECIMAL = Context(prec=60)  # exact for every literal (at most 15 digits) and every exponent
_NONZERO = frozenset("123456789")
_TIME_AFTER = regex.compile(
    "[" + _HS + r"]?(?:[aApP]\.?[mM]\.?|[oO]['’][cC][lL][oO][cC][kK])(?![\p{L}\p{N}\p{M}])"
)


def _extends(c: str) -> bool:
    """True for a §1.5 cluster extender (or ZWJ): a code point that joins the one before it."""
    return (
        c == "\u200d"
        or "\ufe00" <= c <= "\ufe0f"
        or "\U0001f3fb" <= c <= "\U0001f3ff"
        or "\U000e0020" <= c <= "\U000e007f"
        or "\U000e0100" <= c <= "\U000e01ef"
        or unicodedata.category(c)[0] == "M"
    )


@loaded_once
def _date_day() -> tuple[regex.Pattern, regex.Pattern]:
    """A day of a written date: after ``March``/``Mar.`` or before ``March``/``Mar`` (A19)."""
    months = load_table("a19_months")
    words = sorted(months["months"] + months["abbreviations"], key=lambda w: (-len(w), w))
    alt = "(?:" + "|".join(map(_ascii_nocase, words)) + r")\.?"
    before = regex.compile(r"(?<=" + _TOKEN_START + alt + "[" + _HS + "]+)")
    after = regex.compile("[" + _HS + "]+" + alt + r"(?![\p{L}\p{N}\p{M}])")
    return before, after


def _date_or_time(text: str, n: tm.Number) -> bool:
    """Dates and times that §1.10 lets through: the day of ``March 3, 2026`` or ``3 March``,
    ``5 p.m.``, ``5 o'clock``; and a literal that is part of a larger cluster (keycap ``1️⃣``)."""
    s, e = n.start, n.end
    if (e < len(text) and _extends(text[e])) or (s > 0 and text[s - 1] == "\u200d"):
        return True
    if _TIME_AFTER.match(text, e):
        return True
    if n.int_digits <= 2 and not (n.frac_digits or n.negative or n.grouped) and 1 <= int(n.text) <= 31:
        before, after = _date_day()
        return before.match(text, s) is not None or after.match(text, e) is not None
    return False


def _scaled(literal: str, exponent: int, grouped: bool) -> str:
    """``literal`` × 10^exponent in plain notation (§16.2).

    >>> _scaled("3.50", -1, False), _scaled("1,500", 1, True), _scaled("-0.5", -3, False)
    ('0.35', '15,000', '-0.0005')
    """
    value = Decimal(literal.replace(",", "")).scaleb(exponent, _DECIMAL)
    out = format(value, "f")
    if "." in out:
        out = out.rstrip("0").rstrip(".")
    if grouped:
        sign = "-" if out.startswith("-") else ""
        ip, dot, fp = out.lstrip("-").partition(".")
        out = sign + f"{int(ip):,}" + dot + fp
    return out


@perturbation(
    "scale_quantity",
    version=2,
    family="directional",
    in_scope=False,
    expectation="directional",
    seed_sensitive=True,
    params=[
        count(1, 10, "number of quantities to scale"),
        Param("exponent", int, 1, "scale factor 10^exponent", -3, 3, forbidden=(0,)),
    ],
    description="Scale numeric quantities by a power of ten, exactly (Decimal).",
    reasons=("no_candidates",),
    direction_param="exponent",
)
def scale_quantity(text: str, rng: Draws, *, count: int, exponent: int) -> Outcome:
    """Scale ``count`` non-zero quantities (§1.10) by ``10 ** exponent``.

    >>> from perturber.rng import Draws
    >>> scale_quantity("It costs $3.50.", Draws(0), count=1, exponent=-1).text
    'It costs $0.35.'
    """
    cands = [
        n
        for n in tm.numeric_literals(text)
        if n.quantity and not _NONZERO.isdisjoint(n.text) and not _date_or_time(text, n)
    ]
    if not cands:
        return unchanged(text, "no_candidates")
    edits = []
    pairs = []
    for n in select(cands, rng, count=count):
        new = _scaled(n.text, exponent, n.grouped)
        edits.append((n.start, n.end, new))
        pairs.append([n.text, new])
    return Outcome(tm.splice(text, edits), len(edits), None, {"scaled": pairs})


# --------------------------------------------------------------------------------------------
# deadline_passed (§16.3)
# --------------------------------------------------------------------------------------------


class _Dates:
    """Tables A18 and A19 and the date pattern, prepared once."""

    def __init__(self) -> None:
        months = load_table("a19_months")
        self.full = tuple(months["months"])
        abbrs = tuple(months["abbreviations"])
        self.month_of = {m.lower(): k + 1 for k, m in enumerate(self.full)}
        for a in abbrs:
            self.month_of.setdefault(
                a.lower(), next(k + 1 for k, m in enumerate(self.full) if m.lower().startswith(a.lower()))
            )
        # The three-letter abbreviation of each month (``Sept`` is only kept, never produced).
        self.short = tuple(
            next(a for a in abbrs if len(a) == 3 and self.month_of[a.lower()] == k) for k in range(1, 13)
        )
        full_alt = "|".join(_ascii_nocase(w) for w in sorted(self.full, key=lambda w: (-len(w), w)))
        abbr_alt = "|".join(_ascii_nocase(w) for w in sorted(abbrs, key=lambda w: (-len(w), w)))
        hs = "[" + _HS + "]+"
        months1 = "".join(sorted({c for w in self.full for c in (w[0].lower(), w[0].upper())}))
        self.pattern = regex.compile(
            r"(?=[0-9" + months1 + r"])"  # a fast first-character test
            r"(?<![\p{L}\p{N}\p{M}_])(?<![0-9][\-/.:])(?:"
            r"(?P<iy>[0-9]{4})-(?P<im>[0-9]{2})-(?P<id>[0-9]{2})"
            r"|(?:(?P<mf>"
            + full_alt
            + r")|(?P<ma>"
            + abbr_alt
            + r")(?P<dot>\.)?)"
            + hs
            + r"(?P<md>[0-9]{1,2}),"
            + hs
            + r"(?P<my>[0-9]{4})"
            r"|(?P<dd>[0-9]{1,2})" + hs + r"(?P<dm>" + full_alt + r")" + hs + r"(?P<dy>[0-9]{4})"
            r")(?![\p{L}\p{N}\p{M}_])(?![\-/.:][\p{L}\p{N}])"
        )
        self.lower_full = tuple(w.lower() for w in self.full)
        kw = load_table("a18_date_keywords")
        self.deadline = _keyword_pattern(kw["deadline"])
        self.current = _keyword_pattern(kw["current"])


_YEAR = re.compile(r"[0-9]{4}")
_NUMERIC_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9],[^\S\r\n]+[0-9]{4}")


def _may_hold_date(text: str, tables: _Dates) -> bool:
    """False only when ``tables.pattern`` cannot match: every date holds a 4-digit year and
    either "yyyy-mm-dd", "d, yyyy" or a full month name (lower-casing only adds matches)."""
    if not any(c in text for c in "0123456789"):  # str.find per digit: faster than a scan
        return False
    if _YEAR.search(text) is None:
        return False
    if _NUMERIC_DATE.search(text) is not None:
        return True
    low = text.lower()
    return any(m in low for m in tables.lower_full)


def _keyword_pattern(words) -> regex.Pattern:
    """Whole word tokens (or whitespace-separated token sequences) of ``words``, ASCII
    case-insensitive; a ``-`` of the table also matches U+2010 and U+2011."""
    alts = []
    for w in words:
        parts = [_ascii_nocase(p) for p in w.split(" ")]
        alts.append(("[" + _WS + "]+").join(parts))
    return regex.compile(_TOKEN_START + "(?:" + "|".join(alts) + ")" + _TOKEN_END)


@loaded_once
def _dates() -> _Dates:
    return _Dates()


def _in_unit(pattern: regex.Pattern, text: str, start: int, end: int, spans: tm.Spans | None) -> bool:
    """True if ``pattern`` matches inside ``text[start:end]`` outside the protected spans."""
    for m in pattern.finditer(text, start, end):
        if spans is None or not spans.overlaps(m.start(), m.end()):
            return True
    return False


def _match_month_case(source: str, word: str) -> str:
    cls = tm.case_class(source)
    if cls == "upper":
        return word.upper()
    if cls == "lower":
        return word.lower()
    return word


def _find_dates(text: str, tables) -> tuple[list, tm.Spans | None]:
    """The valid dates outside protected spans and clusters, as ``(match, date)``; the spans."""
    found = []
    spans = None
    for m in tables.pattern.finditer(text):
        if m.group("iy") is not None:
            y, mo, d = int(m.group("iy")), int(m.group("im")), int(m.group("id"))
        elif m.group("my") is not None:
            mon = m.group("mf") or m.group("ma")
            y, mo, d = int(m.group("my")), tables.month_of[mon.lower()], int(m.group("md"))
        else:
            mon = m.group("dm")
            y, mo, d = int(m.group("dy")), tables.month_of[mon.lower()], int(m.group("dd"))
        try:
            value = datetime.date(y, mo, d)
        except ValueError:
            continue
        s, e = m.span()
        if (e < len(text) and _extends(text[e])) or (s > 0 and text[s - 1] == "\u200d"):
            continue  # part of a larger cluster
        if spans is None:
            spans = tm.Spans(tm.protected_spans(text))
        if spans.overlaps(s, e):
            continue
        found.append((m, value))
    return found, spans


def _date_roles(text: str, found: list, spans: tm.Spans | None, tables) -> tuple[int, int | None]:
    """Indices into ``found`` of the deadline and of the reference date (None: no reference),
    from the keywords of each date's unit, else from the dates' order."""
    us = tm.units(text)
    ustarts = [u.start for u in us]
    flags: dict[int, tuple[bool, bool]] = {}
    unit_of = []
    for m, _ in found:
        k = bisect_right(ustarts, m.start()) - 1
        unit_of.append(k)
        if k not in flags:
            s, e = (us[k].start, us[k].end) if k >= 0 else (0, 0)
            flags[k] = (
                _in_unit(tables.deadline, text, s, e, spans),
                _in_unit(tables.current, text, s, e, spans),
            )
    n = len(found)
    dl = next((j for j in range(n) if flags[unit_of[j]][0]), None)
    if dl is None:
        dl = 0
        for j in range(1, n):
            if found[j][1] > found[dl][1]:
                dl = j
    ref = next((j for j in range(n) if j != dl and flags[unit_of[j]][1]), None)
    if ref is None:
        for j in range(n):
            if j != dl and (ref is None or found[j][1] < found[ref][1]):
                ref = j
    return dl, ref


def _date_edits(m, new: datetime.date, tables) -> list[tuple[int, int, str]]:
    """The edits that write ``new`` over the date ``m`` in its own format."""
    year = f"{new.year:04d}"
    if m.group("iy") is not None:
        return [(m.start(), m.end(), f"{year}-{new.month:02d}-{new.day:02d}")]
    if m.group("my") is not None:
        day_g, year_g = "md", "my"
        month_g = "mf" if m.group("mf") is not None else "ma"
    else:
        day_g, month_g, year_g = "dd", "dm", "dy"
    src_month = m.group(month_g)
    if month_g == "ma":  # an abbreviation (a bare "May" is read as the full name)
        word = "Sept" if new.month == 9 and src_month.lower() == "sept" else tables.short[new.month - 1]
    else:
        word = tables.full[new.month - 1]
    src_day = m.group(day_g)
    day = f"{new.day:02d}" if len(src_day) == 2 and src_day[0] == "0" else str(new.day)
    return sorted(
        [
            (m.start(month_g), m.end(month_g), _match_month_case(src_month, word)),
            (m.start(day_g), m.end(day_g), day),
            (m.start(year_g), m.end(year_g), year),
        ]
    )


@perturbation(
    "deadline_passed",
    family="directional",
    in_scope=False,
    expectation="directional",
    intensity="days",
    params=[Param("days", int, 30, "how many days before the reference date the deadline moves", 1, 3650)],
    description="Move the deadline date to before the reference date, keeping its format.",
    version=2,
    reasons=("no_candidates", "already_passed"),
)
def deadline_passed(text: str, rng: Draws, *, days: int) -> Outcome:
    """Rewrite the deadline so that it lies ``days`` before the reference (or its old value).

    >>> deadline_passed("The offer is valid until March 15, 2026.", None, days=30).text
    'The offer is valid until February 13, 2026.'
    """
    tables = _dates()
    if not _may_hold_date(text, tables):
        return unchanged(text, "no_candidates")
    found, spans = _find_dates(text, tables)
    if not found:
        return unchanged(text, "no_candidates")
    dl, ref = _date_roles(text, found, spans, tables)
    old = found[dl][1]
    reference = found[ref][1] if ref is not None else None
    try:
        new = (reference if reference is not None else old) - datetime.timedelta(days=days)
    except OverflowError:
        return unchanged(text, "no_candidates")
    if reference is not None and old < reference:
        return Outcome(
            text, 0, "already_passed", {"deadline_old": old.isoformat(), "reference": reference.isoformat()}
        )
    details = {
        "deadline_old": old.isoformat(),
        "deadline_new": new.isoformat(),
        "reference": reference.isoformat() if reference is not None else None,
    }
    return Outcome(tm.splice(text, _date_edits(found[dl][0], new, tables)), 1, None, details)
