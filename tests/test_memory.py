"""Hostile input cannot grow a process's memory without bound: every native deterministic entry on
many distinct long texts and long words, in a fresh interpreter, stays within a stated RSS growth
(docs/performance.md, "What is cached")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Growth of the resident set size over the run, after the warm-up. Measured here: about 22 MB for
# these 36 texts (memos filling up to their budgets, and the allocator's high-water mark after
# 20,000-letter words); without budgets it was about 270 MB, 7 MB more per 20,000-letter word.
MAX_GROWTH_MB = 64
# Growth over the second half of the run (measured: about 10 MB; without budgets about 140 MB).
MAX_LATE_GROWTH_MB = 24

DRIVE = r"""
import json, random, sys
import perturber
from perturber.resources import nltk_data

def rss():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) / 1024 for l in fh if l.startswith("VmRSS:"))

try:
    nltk_data.tagger(); nltk_data.wordnet(); skip = set()
except perturber.PerturberError:
    skip = {"synonym"}
names = [e["name"] for e in perturber.list_perturbations(category="native", model_backed=False)
         if e["name"] not in skip]
rnd = random.Random(19)
letters = "abcdefghijklmnopqrstuvwxyz"
def text(i):
    if i % 3 == 0:  # one 20,000-letter word
        return "Please " + "".join(rnd.choices(letters, k=20000)) + " now."
    if i % 3 == 1:  # 100 distinct words just short of the per-word limit
        return " ".join("".join(rnd.choices(letters, k=39)) for _ in range(100)) + "."
    # a short text dense in tokens, numbers and punctuation (the largest per-text memo values)
    return " ".join(rnd.choice(["a", "I", "x,", "y.", "7", "2?", "it's"]) for _ in range(1300))[:4000]

for name in names:
    perturber.perturb("Warm up: it's 3 p.m., isn't it?", name, seed=0)
start = rss()
samples = []
for i in range(36):
    t = text(i)
    for name in names:
        perturber.perturb(t, name, seed=i)
    samples.append(rss())
print(json.dumps({"start": start, "samples": samples}))
"""


@pytest.mark.slow
def test_hostile_texts_leave_memory_bounded():
    out = subprocess.run([sys.executable, "-c", DRIVE], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    start, samples = got["start"], got["samples"]
    assert samples[-1] - start < MAX_GROWTH_MB, samples
    assert samples[-1] - samples[len(samples) // 2] < MAX_LATE_GROWTH_MB, samples
