"""The tables of the typo entries (A01–A05, A07), loaded on first use and cached; iteration
follows the printed order."""

from __future__ import annotations

import regex

from ...data import load_table
from ...memo import loaded_once

# --------------------------------------------------------------------------------------------
# Tables (cached on first use; iteration follows the printed order)
# --------------------------------------------------------------------------------------------


@loaded_once
def misspelling_table() -> tuple[dict, int]:
    """Table A1 as a dict, and the length of its longest key."""
    table = {a: b for a, b in load_table("a01_misspellings")["pairs"]}
    return table, max(map(len, table))


def _ascii_ci(literal: str) -> str:
    return "".join(f"[{c}{c.upper()}]" for c in literal)


@loaded_once
def phonetic_rule_table() -> tuple:
    """``(pattern, replacement)`` per Table A2 rule, in table order, searched in the original
    token with ASCII-only case-insensitive matching (so ``K`` KELVIN SIGN never matches ``k``).
    A match never ends before a combining mark, so whole clusters are replaced.  A None
    replacement means "keep the first letter of the doubled consonant"."""
    cons = load_table("a03_qwerty_neighbours")["consonants"]
    out = []
    for rule in load_table("a02_phonetic_rules")["rules"]:
        if rule["kind"] == "doubled_consonant":
            pattern = "(?:" + "|".join(_ascii_ci(c + c) for c in cons) + r")(?!\p{M})"
            out.append((regex.compile(pattern), None))
        elif rule["where"] == "final":
            out.append((regex.compile(_ascii_ci(rule["from"]) + r"\Z"), rule["to"]))
        else:
            out.append((regex.compile(_ascii_ci(rule["from"]) + r"(?!\p{M})"), rule["to"]))
    # One search that finds whether any rule can apply at all.
    any_rule = regex.compile("|".join(p.pattern for p, _ in out))
    return any_rule, tuple(out)


@loaded_once
def phonetic_literals() -> tuple[tuple[str, bool], ...]:
    """The Table A2 rules other than the doubled consonant, in table order: the letters each
    rewrites and whether they must end the word."""
    rules = load_table("a02_phonetic_rules")["rules"]
    return tuple((r["from"], r["where"] == "final") for r in rules if r["kind"] != "doubled_consonant")


@loaded_once
def qwerty_table() -> tuple[dict, frozenset]:
    table = load_table("a03_qwerty_neighbours")
    return dict(table["neighbours"]), frozenset(table["consonants"])


@loaded_once
def confusable_table() -> dict:
    return {a: b for a, b in load_table("a04_confusables")["pairs"]}


@loaded_once
def contraction_table() -> tuple[dict, dict]:
    """Two-word phrases keyed by ``(w1, w2)`` and one-word phrases keyed by ``w``, each mapped
    to ``(contraction, aux, ends_in_not)``."""
    two, one = {}, {}
    for row in load_table("a05_contractions")["phrases"]:
        words = row["phrase"].split()
        value = (row["contraction"], row["aux"], row["phrase"].endswith("not"))
        if len(words) == 2:
            two[(words[0], words[1])] = value
        else:
            one[words[0]] = value
    return two, one


@loaded_once
def contraction_first_words() -> frozenset:
    """The lower-cased words that start a Table A5 phrase."""
    two, one = contraction_table()
    return frozenset(a for a, _ in two) | frozenset(one)


@loaded_once
def uk_table() -> tuple[dict, frozenset]:
    table = load_table("a07_us_uk_spellings")
    pairs = {a: b for group in table["groups"] for a, b in group["pairs"]}
    return pairs, frozenset(table["number_required"])
