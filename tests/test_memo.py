"""The memo registry: every memo skips long keys, stays within its budget, and clear_caches empties
them all; tables loaded once load once."""

from __future__ import annotations

import pathlib
import re
import threading

import pytest

import perturber
from perturber import memo

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_a_memo_evicts_its_oldest_keys_past_its_budget():
    @memo.per_word
    def upper(word):
        return word.upper()

    store = upper.memo
    words = [f"{i:04d}" + "x" * 36 for i in range(store.budget // 40 + 50)]  # 40 characters each
    for w in words:
        assert upper(w) == w.upper()
    assert store.size == sum(map(len, store.data)) <= store.budget
    assert words[0] not in store.data and words[-1] in store.data
    assert list(store.data) == words[-len(store.data) :]  # the newest, in insertion order


def test_keys_above_the_limit_are_computed_every_time_and_never_kept():
    calls = []

    @memo.per_word
    def length(word, times):
        calls.append(word)
        return len(word) * times

    long_word = "y" * (memo.WORD_MAX_CHARS + 1)
    assert length(long_word, 2) == length(long_word, 2) == 2 * len(long_word)
    assert calls == [long_word, long_word] and not length.memo.data
    assert length("ab", 3) == length("ab", 3) == 6 and calls[2:] == ["ab"]
    assert length.memo.size == 2  # a (word, argument) key counts its word


def test_per_value_counts_entries():
    @memo.per_value(3)
    def square(n):
        return n * n

    for n in range(10):
        square(n)
    assert list(square.memo.data) == [7, 8, 9] and square.memo.size == 3


def test_clear_caches_empties_every_memo_the_entries_filled():
    text = "Dr. Smith's 3 cats weren't hungry at 5 p.m.; they ate 1,200 grams of food, didn't they?"
    for spec in perturber.list_perturbations(category="native", model_backed=False):
        if spec["name"] != "synonym":
            perturber.perturb(text, spec["name"], seed=3)
    filled = {name for name, (entries, _, _) in memo.memo_usage().items() if entries}
    assert {"perturber.text.tokens.word_tokens", "perturber.rng.first_batches"} <= filled
    assert len(filled) > 20
    perturber.clear_caches()
    assert all(entries == size == 0 for entries, size, _ in memo.memo_usage().values())
    assert perturber.perturb(text, "typos", seed=3) == perturber.perturb(text, "typos", seed=3)


# A long text with sites for every entry: hundreds of draws, past a seed's cached first words.
LONG = " ".join(
    f"Dr. Lee's {i} cats weren't hungry at 5 p.m.; they ate {i * 40} grams, didn't they? Wow!! "
    "The quick brown fox jumps over the lazy dog, and “quotes” stay put."
    for i in range(12)
)


@pytest.mark.parametrize("evict_first_words", [False, True])
def test_outputs_do_not_depend_on_what_the_seed_caches_hold(evict_first_words):
    """Every seeded entry gives the bytes of a fresh process whatever the draw caches hold: a
    seed whose first words, the words after them (from shorter texts) and first samples are
    kept, also after its first words were evicted (as 512 other seeds would)."""
    from perturber import rng

    names = [
        spec["name"]
        for spec in perturber.list_perturbations(category="native", model_backed=False)
        if spec["seed_sensitive"] and spec["name"] != "synonym"
    ]
    shorter = [LONG[: len(LONG) // 3], LONG[: len(LONG) // 2]]
    perturber.clear_caches()
    fresh = {
        (name, text): perturber.perturb(text, name, seed=5) for name in names for text in [*shorter, LONG]
    }
    perturber.clear_caches()
    for text in shorter:  # seed 5 recurs on shorter texts: fewer words kept than LONG draws
        for name in names:
            assert perturber.perturb(text, name, seed=5) == fresh[name, text]
    assert rng._TAILS.data and rng._FIRST_SAMPLES.data
    if evict_first_words:
        rng._FIRST_BATCHES.clear()
    for _ in range(2):  # drawing past the kept words, then replaying what that kept
        assert {name: perturber.perturb(LONG, name, seed=5) for name in names} == {
            name: fresh[name, LONG] for name in names
        }


def test_concurrent_writers_keep_the_size_exact():
    @memo.per_text
    def echo(text):
        return text

    def fill(k):
        for i in range(3000):
            echo(f"{k}-{i}-" + "z" * (i % 50))

    threads = [threading.Thread(target=fill, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store = echo.memo
    assert store.size == sum(map(len, store.data)) <= store.budget


def test_a_table_loads_once_when_threads_race_for_it():
    loads = []
    barrier = threading.Barrier(8)

    def load():
        loads.append(1)
        return object()

    table = memo.loaded_once(load)
    got = []

    def call():
        barrier.wait()
        got.append(table())

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1 and len({id(x) for x in got}) == 1


def test_no_cache_outside_the_registry_is_keyed_by_text():
    # functools caches are left only where the key is a table name, a configuration or nothing:
    # every lru_cache with more than one slot, and every unbounded cache, is on this list.
    allowed = {
        "perturber/data/__init__.py": 2,  # load_table(name), unit_symbols()
        "perturber/perturbations/character.py": 4,  # table loaders (_pairs by table name)
        "perturber/service/params_model.py": 1,  # per entry and configured model list
        "perturber/brittlebench/behaviours.py": 2,  # stop_set(list name), typo_augmenter(params)
    }
    found = {}
    for path in sorted((ROOT / "perturber").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        hits = re.findall(r"^@(?:functools\.)?(?:cache|lru_cache\(maxsize=(?!1\))\w+\))$", source, re.M)
        if hits:
            found[str(path.relative_to(ROOT))] = len(hits)
    assert found == allowed


MEMOISED_OUTCOMES = {spec.name for spec in perturber.registry.entries() if spec.memoise_outcome}


def test_entries_that_memoise_their_outcome_are_seedless_and_declared():
    assert len(MEMOISED_OUTCOMES) == 15
    for name in MEMOISED_OUTCOMES:
        spec = perturber.registry.get(name)
        assert not spec.seed_sensitive and not spec.model_backed
    with pytest.raises(ValueError, match="bad declaration"):
        perturber.registry.perturbation(
            "x", family="typos", description="x", seed_sensitive=True, memoise_outcome=True
        )


@pytest.mark.parametrize("name", sorted(MEMOISED_OUTCOMES))
def test_a_memoised_outcome_is_the_entry_function_kept_by_text(name):
    spec = perturber.registry.get(name)
    text = "Dr. Smith's **3 cats** weren't  hungry at 5 p.m. on 10/12/2024; they ate 12000 grams, FYI."
    perturber.clear_caches()
    first = perturber.apply(text, name, seed=1)
    store = memo.memo_usage()[f"{spec.function.__module__}.{spec.function.__qualname__}"]
    assert store[:2] == (1, len(text))
    again = perturber.apply(text, name, seed=2)  # another seed: the same kept outcome
    direct = spec.function(text, None, **spec.defaults)
    assert (first.text, first.edits, first.reason) == (again.text, again.edits, again.reason)
    assert first.text == direct.text and first.edits == (direct.edits if first.applied else 0)


def test_a_memoised_outcome_is_kept_by_text_and_params():
    text = "The quick brown fox jumps over the lazy dog and runs far away into the woods."
    perturber.clear_caches()
    wraps = [perturber.perturb(text, "line_wrap", {"width": w}) for w in (20, 30, 20)]
    assert wraps[0] == wraps[2] != wraps[1]
    assert memo.memo_usage()["perturber.perturbations.formatting.line_wrap"][0] == 2


def test_no_entry_keeps_its_outcome_in_a_memo_of_its_own():
    # an entry's whole outcome is kept by the declaration (memoise_outcome), never by a per_text
    # function of its module returning an Outcome
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "perturber").rglob("*.py"))
    assert re.findall(r"@per_text\ndef \w+\([^)]*\) -> Outcome:", source) == []
