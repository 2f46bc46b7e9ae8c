"""The shared text model of docs/spec/catalog.md §1.5–§1.10, one module per concern.

Pure functions over a ``str``; offsets are code-point offsets.  Everything is
O(len(text)); the only module state is precompiled patterns and caches.
Standard library plus the third-party ``regex`` module only.

========== ===============================================================
module     holds
========== ===============================================================
chars      ``WHITESPACE``, ``HSPACE``, ``is_word_char``
tokens     clusters (§1.5), word tokens, bound and free tokens (§1.6)
lines      line bounds, newline style, fenced code blocks, line classes
spans      protected spans (§1.8) and the ``Spans`` look-up structure
case       case classes, ``match_case``, apostrophe style (§1.6, §1.7)
units      sentences, lines and code blocks as units (§1.9)
body       answer cue, body, append / prepend of material (§1.9)
numbers    numeric literals (§1.10)
splice     rebuilding a text from ``(start, end, replacement)`` edits (``splice_at``: unchecked)
========== ===============================================================

>>> [t.text for t in word_tokens('"Don\\'t," she said.')]
["Don't", 'she', 'said']
"""

from __future__ import annotations

from .body import Body, answer_cue, append_material, prepend_material, split_body
from .case import apostrophe_style, apply_apostrophe, case_class, is_cased_letter, match_case
from .chars import BINDERS, HSPACE, JOINERS, WHITESPACE, ascii_words, is_mark, is_word_char, non_ascii
from .lines import Line, closes_fence, fence_opening, lines, newline_style
from .numbers import Number, numeric_literals
from .spans import Spans, protected_spans, view_spans
from .splice import splice, splice_at
from .tokens import (
    Token,
    cluster_spans,
    clusters,
    free_tokens,
    is_bound,
    single_clusters,
    token_at,
    word_tokens,
)
from .units import (
    Unit,
    plain_paragraphs,
    sentence_end_matches,
    sentences,
    split_sentences,
    trailing_run,
    units,
)

__all__ = [
    "WHITESPACE",
    "HSPACE",
    "BINDERS",
    "JOINERS",
    "is_mark",
    "ascii_words",
    "non_ascii",
    "is_word_char",
    "clusters",
    "cluster_spans",
    "single_clusters",
    "Token",
    "token_at",
    "word_tokens",
    "is_bound",
    "free_tokens",
    "protected_spans",
    "view_spans",
    "Spans",
    "is_cased_letter",
    "case_class",
    "match_case",
    "apostrophe_style",
    "apply_apostrophe",
    "newline_style",
    "Line",
    "lines",
    "fence_opening",
    "closes_fence",
    "Unit",
    "units",
    "sentences",
    "plain_paragraphs",
    "sentence_end_matches",
    "split_sentences",
    "trailing_run",
    "answer_cue",
    "Body",
    "split_body",
    "append_material",
    "prepend_material",
    "Number",
    "numeric_literals",
    "splice",
    "splice_at",
]
