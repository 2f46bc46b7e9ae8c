"""Generate GSM8K-style word problems with gold answers (deterministic for a given seed).

    python examples/make_word_problems.py -n 300 -o problems.jsonl

The problems use the number forms the harness's gates must protect: digits, spelled-out cardinals
(``four trays``), fractions (``two-thirds``, ``three-fifths``, ``one-fourth``), compounds
(``an eight-hour day``) and quantity words (``a dozen``, ``half``, ``pairs``, ``twice``,
``percent``). ``examples/gsm8k_style.jsonl`` is ``-n 300`` with the default seed.

>>> rows = problems(3)
>>> [sorted(r) for r in rows][0], all(isinstance(r["answer"], int) for r in rows)
(['answer', 'id', 'question'], True)
"""

from __future__ import annotations

import argparse
import json
import random

NAMES = ("Mia", "Tom", "Sara", "Ben", "Lena", "Omar", "Ivy", "Noah", "Ana", "Raj", "Zoe", "Leo")
WORDS = "zero one two three four five six seven eight nine ten".split()


def _spell(n: int) -> str:
    return WORDS[n] if n < len(WORDS) else str(n)


def _t_gives(r: random.Random, name: str):
    a, b = r.randint(12, 90), r.randint(2, 11)
    return (
        f"{name} has {a} apples. {name} gives {_spell(b)} apples to a friend. How many apples are left?",
        a - b,
    )


def _t_trays(r: random.Random, name: str):
    a, b = r.randint(2, 9), r.randint(6, 24)
    return (
        f"A baker makes {_spell(a)} trays of muffins with {b} muffins on each tray. How many muffins is that?",
        a * b,
    )


def _t_dozen(r: random.Random, name: str):
    a = r.randint(2, 60)
    return f"A box holds a dozen eggs. How many eggs are in {a} boxes?", 12 * a


def _t_half(r: random.Random, name: str):
    a = 2 * r.randint(10, 80)
    return f"{name} had {a} dollars and spent half of it on a book. How many dollars are left?", a // 2


def _t_thirds(r: random.Random, name: str):
    a = 3 * r.randint(6, 70)
    return f"A class has {a} students. Two-thirds of them walk to school. How many students walk?", 2 * a // 3


def _t_shift(r: random.Random, name: str):
    a, d = r.randint(9, 30), r.randint(2, 6)
    return (
        f"{name} earns {a} dollars an hour and works an eight-hour day. How much is earned in {_spell(d)} days?",
        a * 8 * d,
    )


def _t_fifths(r: random.Random, name: str):
    a = 5 * r.randint(4, 80)
    return (
        f"A pipe is {a} feet long. A plumber cuts off three-fifths of it. How many feet of pipe are left?",
        2 * a // 5,
    )


def _t_pairs(r: random.Random, name: str):
    a = r.randint(3, 60)
    return f"{name} buys {a} pairs of socks. How many socks is that?", 2 * a


def _t_wheels(r: random.Random, name: str):
    a, b = r.randint(15, 60), r.randint(2, 12)
    return (
        f"There are {a} cars in a lot and each car has four wheels. Then {b} cars leave. How many wheels are left?",
        4 * (a - b),
    )


def _t_twice(r: random.Random, name: str):
    a = r.randint(2, 40)
    return f"{name} runs twice as far as Carl, who runs {a} km. How far do they run together?", 3 * a


def _t_farm(r: random.Random, name: str):
    a, b = r.randint(5, 40), r.randint(2, 6)
    return (
        f"A farmer has {a} cows and {_spell(b)} times as many sheep. How many animals are there?",
        a + a * b,
    )


def _t_fourth(r: random.Random, name: str):
    a = 4 * r.randint(2, 60)
    return f"A cake needs one-fourth of a cup of sugar. How many cups of sugar do {a} cakes need?", a // 4


def _t_percent(r: random.Random, name: str):
    a, b = 4 * r.randint(3, 25), r.randint(2, 10)
    return (
        f"{name} saves {a} dollars a week for {b} weeks and spends 25 percent of it. How many dollars are left?",
        3 * a * b // 4,
    )


def _t_train(r: random.Random, name: str):
    a, b, c, d = r.randint(30, 90), r.randint(2, 5), r.randint(30, 90), r.randint(2, 5)
    return (
        f"A train goes {a} miles per hour for {b} hours, then {c} miles per hour for {d} hours. How far does it go?",
        a * b + c * d,
    )


def _t_change(r: random.Random, name: str):
    a, b, c = r.randint(15, 60), r.randint(2, 9), r.randint(5, 10)
    return (
        f"Pencils cost {a} cents each. {name} buys {b} pencils and pays {c} dollars. How many cents of change are due?",
        100 * c - a * b,
    )


TEMPLATES = (
    _t_gives, _t_trays, _t_dozen, _t_half, _t_thirds, _t_shift, _t_fifths, _t_pairs,
    _t_wheels, _t_twice, _t_farm, _t_fourth, _t_percent, _t_train, _t_change,
)  # fmt: skip


def problems(n: int, seed: int = 7) -> list[dict]:
    """``n`` problems ``{"id", "question", "answer"}``, the templates in turn (at most 600: the
    templates hold about 40 distinct problems each)."""
    if not 0 < n <= 600:
        raise SystemExit("-n must be in 1..600")
    r = random.Random(seed)
    rows, seen = [], set()
    while len(rows) < n:
        template = TEMPLATES[len(rows) % len(TEMPLATES)]
        question, answer = template(r, r.choice(NAMES))
        if question not in seen:
            seen.add(question)
            rows.append({"id": f"p{len(rows) + 1:04d}", "question": question, "answer": answer})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=300, help="how many problems (default 300)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    with open(args.output, "w", encoding="utf-8") as fh:
        for row in problems(args.n, args.seed):
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
