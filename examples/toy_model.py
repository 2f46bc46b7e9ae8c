"""A deterministic toy "model" for the README walkthrough and the tests.

It knows the answers of ``word_problems.jsonl`` by heart, recognises a question through typos,
casing and spacing changes (closest match of the letters and digits), and has two planted
weaknesses: it answers wrongly when the input holds a zero-width character or is padded with
spaces. ``answer(text)`` returns ``"#### <number>"`` like a GSM8K-style model.

>>> answer("A CINEMA HAS 12 ROWS OF 15 SEATS. HOW MANY SEATS DOES IT HAVE?")
'#### 180'
>>> answer("A cinema has 12 rows of 15 seats.\u200b How many seats does it have?")
'#### 361'
"""

from __future__ import annotations

import difflib
import json
import pathlib
import re
import unicodedata

_HERE = pathlib.Path(__file__).resolve().parent
_KEY = re.compile(r"[^a-z0-9]+")


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return _KEY.sub("", unicodedata.normalize("NFKC", text).casefold())


_ANSWERS = {}
for line in (_HERE / "word_problems.jsonl").read_text(encoding="utf-8").splitlines():
    record = json.loads(line)
    _ANSWERS[_key(record["question"])] = record["answer"]


def answer(text: str) -> str:
    """The toy model: ``#### <answer>``, wrong on zero-width characters or space padding."""
    key = _key(text)
    best = max(_ANSWERS, key=lambda k: difflib.SequenceMatcher(None, key, k).ratio())
    value = _ANSWERS[best]
    if difflib.SequenceMatcher(None, key, best).ratio() < 0.6:
        return "I am not sure what you are asking."
    if "\u200b" in text or text.startswith(" ") or text.endswith(" "):
        value = value * 2 + 1
    return f"#### {value}"
