"""numbers_in / numbers_preserved: digits and spelled-out numbers, the gate of the harness."""

import builtins

import pytest

import perturber
from perturber.errors import ResourceUnavailable
from perturber.number_words import numbers_in, numbers_preserved

pytest.importorskip("text_to_num")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Sam has four apples and buys 1,200 more.", ("4", "1200")),
        ("She bought one apple and two pears.", ("1", "2")),
        ("Twenty-one cows and one hundred and five sheep", ("21", "105")),
        ("a dozen eggs, half of them brown, twice a day", ("12", "0.5", "2")),
        ("It costs 2.50 dollars, then 3.0", ("2.5", "3")),
        ("five point two kilograms", ("5.2",)),
        ("In 1850 it had 1250000 residents", ("1850", "1250000")),
        ("ＦＯＵＲ boxes of １２", ("4", "12")),  # full-width folded
        ("fo\u200bur bo\u200bxes", ("4",)),  # zero-width removed
        ("fo\u0308ur", ("4",)),  # combining marks removed
        ("no numbers at all", ()),
        ("", ()),
    ],
)
def test_numbers_in(text, expected):
    assert numbers_in(text) == expected


@pytest.mark.parametrize(
    "original, perturbed, kept",
    [
        ("She walks with four dogs.", "She walks wth fr dogs.", False),  # disemvowel
        ("She walks with four dogs.", "She walks with fuor dogs.", False),  # typo in a number word
        ("She walks with four dogs.", "She wlaks with four dgos.", True),  # typos elsewhere
        ("It costs 1500 dollars", "It costs 1,500 dollars", True),  # number_format
        ("three cats and 2 dogs", "3 cats and two dogs", True),
        ("three cats and 2 dogs", "2 dogs and three cats", False),  # order is part of it
        ("Buy 12 eggs", "Buy 120 eggs", False),
        ("Buy 12 eggs", "BUY 12 EGGS", True),
        ("half a pie", "hlf a pie", False),
    ],
)
def test_numbers_preserved(original, perturbed, kept):
    assert numbers_preserved(original, perturbed) is kept


def test_real_perturbations_are_judged_by_their_numbers():
    text = "Tom has four boxes with 12 pens each."
    assert numbers_preserved(text, perturbed := perturber.perturb(text, "upper_case"))
    assert perturbed != text
    assert not numbers_preserved(text, "Tom has fr boxes with 12 pens each.")


def test_missing_text2num_names_the_extra(monkeypatch):
    import perturber.number_words as nw

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "text_to_num":
            raise ImportError("No module named 'text_to_num'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(nw, "_alpha2digit", None)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ResourceUnavailable, match=r"perturber\[robustness\]") as info:
        numbers_in("four")
    assert info.value.details == {"extra": "robustness"}
