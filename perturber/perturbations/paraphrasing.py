"""paraphrasing: the 10 model-backed rewrite entries of docs/spec/catalog.md §12 (one intent each).

The prompts, requests, post-processing and errors are shared (:mod:`perturber.model_tier`);
each entry only states its intent. Empty input never reaches the model:

>>> from perturber import apply
>>> apply("", "lexical_paraphrasing").reason
'empty_input'
"""

from __future__ import annotations

from ..model_tier import model_entry
from ..registry import choice

_FAMILY = "paraphrasing"
LANGUAGES = ("French", "German", "Spanish", "Japanese", "Chinese", "Arabic")
REGISTERS = {
    "formal": "a formal register (polite, complete sentences, no slang or contractions)",
    "casual": "a casual, conversational register (as in a quick chat message)",
    "academic": "an academic register (precise, impersonal, as in a scholarly paper)",
    "legal": "a legal register (as in a contract or statute)",
    "child": "the register of a young child (very simple words and short sentences)",
}

model_entry(
    "lexical_paraphrasing",
    family=_FAMILY,
    description="Replace words and short phrases with synonyms, keeping structure and facts.",
    intent="Task: replace individual words and short phrases of the text with synonyms or "
    "equivalent expressions, keeping the sentence structure and every fact, number and name.",
    moves_text=True,
)

model_entry(
    "syntactic_paraphrasing",
    family=_FAMILY,
    description="Change the grammatical structure while keeping the wording close.",
    intent="Task: change the grammatical structure of the text (clause order, active or passive "
    "voice, splitting or joining sentences) while keeping the wording as close to the "
    "original as possible.",
    fix_at="prompt",
    moves_text=True,
)

model_entry(
    "rule_free_paraphrasing",
    family=_FAMILY,
    description="Rephrase freely, keeping the exact meaning.",
    intent="Task: rephrase the text freely in natural English, keeping its exact meaning and every "
    "fact, number and constraint.",
    moves_text=True,
)

model_entry(
    "simplification",
    family=_FAMILY,
    description="Rewrite in plain language a 12-year-old can read.",
    length_ratio=(0.2, 3.0),
    intent="Task: rewrite the text in plain language, with short sentences and common words, "
    "readable by a 12-year-old, without dropping or adding any information.",
    moves_text=True,
)

model_entry(
    "register_shift",
    family=_FAMILY,
    description="Rewrite in the chosen register, keeping the content.",
    params=[choice("target_register", "formal", tuple(REGISTERS), "register of the rewrite")],
    tables={"target_register": REGISTERS},
    intent="Task: rewrite the text in {target_register}, keeping its content.",
    moves_text=True,
)

model_entry(
    "verbose_expansion",
    family=_FAMILY,
    expand=True,
    length_ratio=(0.5, 6.0),
    description="Make the text wordier and more roundabout without adding information.",
    intent="Task: make the text wordier and more roundabout (filler phrases, circumlocution) "
    "while adding no new information and keeping every fact.",
    moves_text=True,
)

model_entry(
    "translate_roundtrip",
    family=_FAMILY,
    description="Translate into the chosen language, then (fresh request) back into English.",
    params=[choice("language", "French", LANGUAGES, "pivot language")],
    tables={"language": {lang: lang for lang in LANGUAGES}},
    details=lambda params: {"language": params["language"]},
    intent=(
        "Task: translate the text faithfully into {language}.",
        "Task: translate the text faithfully into English.",
    ),
    moves_text=True,
)

model_entry(
    "typo_paraphrase",
    family=_FAMILY,
    graded_family="Input Quality",
    description="Reproduce the text as a hurried typist would, with a few natural typos.",
    intent="Task: reproduce the text as a hurried person would type it: the same words with a few "
    "natural typos (slips, missing or swapped letters), with numbers, names and symbols "
    "left intact.",
    moves_text=True,
)

model_entry(
    "persona_paraphrase",
    family=_FAMILY,
    description="Rewrite the text as one plausible person would ask it.",
    intent="Task: rewrite the text as one plausible person of your choosing (for example a busy "
    "nurse or a curious student) would ask it, keeping the request and every fact, and "
    "adding no constraint or information.",
    moves_text=True,
)

model_entry(
    "code_switch",
    family=_FAMILY,
    in_scope=False,
    description="Mix English with the chosen language (some words and short phrases switched).",
    params=[choice("language", "Spanish", LANGUAGES, "language mixed in")],
    tables={"language": {lang: lang for lang in LANGUAGES}},
    details=lambda params: {"language": params["language"]},
    intent="Task: mix English with {language}: switch some words and short phrases into "
    "{language}, keep most of the text in English, and leave numbers, names and technical "
    "terms unchanged.",
    moves_text=True,
)
