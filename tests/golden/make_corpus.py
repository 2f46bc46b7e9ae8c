"""Writes tests/golden/corpus.json: the fixed inputs every golden file is computed on.

Run once; the corpus is versioned with the catalog (changing it regenerates every golden file).
"""

import json
import pathlib

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "status": {"enum": ["new", "paid", "shipped", "cancelled"]},
        "customer": {"$ref": "#/$defs/customer"},
        "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 1},
        "note": {"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]},
        "tags": {"type": ["array", "null"], "items": {"type": "string"}},
    },
    "required": ["id", "status", "items"],
    "$defs": {
        "customer": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}},
            "required": ["name"],
        },
        "item": {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "qty": {"type": "integer", "minimum": 1},
                "unit": {"enum": ["kg", "g", "piece"]},
            },
            "required": ["sku", "qty"],
        },
    },
}

CORPUS = {
    "empty": "",
    "question": "What is the capital of France?",
    "mcq": "Which gas do plants absorb from the air?\nA) Oxygen\nB) Carbon dioxide\nC) Nitrogen\nD) Helium\nAnswer:",
    "numbers": "In 1850 the town had 1250000 residents and 4500.75 acres; on 2026-01-15 at 10:30 they paid $1500 for 3 km of road, call 555-0100.",
    "contractions": "I am sure it is not ready, and we do not know whether they will arrive. Don't worry, it's Sam's turn.",
    "chat": "hey!! can u help me w/ this :) i'm totally lost... thx 😊 👍",
    "contact": "Write to jane.doe@example.com or see https://example.com/docs/Setup_(v2)?x=1. Also www.Example.org, then reply.",
    "markdown": '# Shopping list\n\n- Apples and pears\n- Fresh bread\n- Eggs\n- Cheese\n* Milk (2 litres)\n\n1. Go to the shop.\n2. Pay at the counter.\n\nUse `cart.add()` to add items, **not** the *old* API.\n\n```python\nprint("Hello, World")\n```\n',
    "schema": json.dumps(SCHEMA, indent=2),
    "schema_compact": json.dumps(
        {
            "type": "object",
            "properties": {
                "b": {"type": ["string", "integer"]},
                "a": {"enum": [3, 1, 2]},
                "c": {"oneOf": [{"type": "boolean"}, {"const": 0}, {"type": "null"}, {"enum": ["x", "y"]}]},
            },
        },
        separators=(",", ":"),
    ),
    "multiline": "Dear team,\r\n\tThe meeting moved to Friday.\r\n  Please bring the report; it is due on March 3, 2026.\r\n\r\nThanks,\r\nAnna\r\n",
    "tabs": "name\tage\tcity\nBob\t42\tParis\n\nThe  quick   brown fox\tjumps over the lazy dog.",
    "story": "Dr. Smith arrived at 5 p.m. with Mr. Jones, e.g. for the review. The colour of the theatre was grey! Was it O'Neil's idea? They'd been there since 3.14 o'clock, believe me.",
    "nonlatin": "Привет, как дела? 東京は日本の首都です。 مرحبا بالعالم. Γειά σου κόσμε! नमस्ते दुनिया",
    "emoji": "Family: 👨‍👩‍👧‍👦, flag: 🇫🇷🇩🇪, thumbs: 👍🏽, heart: ❤️ and keycap 1️⃣ done.",
    "combining": "Cafe\u0301 na\u0308ive re\u0301sume\u0301 — Zoë, Ångström, crème brûlée, São Paulo.",
    "long": "Photosynthesis is the process by which green plants and some other organisms use sunlight to synthesize foods from carbon dioxide and water. It generally involves the green pigment chlorophyll and generates oxygen as a byproduct. Please explain briefly why leaves are green and what would happen without light?\nAnswer:",
    "control_bidi": "Pay \u202eevil\u202c now\u200b ok\u00a0yes\x07 \ufeffend",
    # The protected-span kinds of docs/spec/catalog.md §1.8 that the texts above do not cover.
    "json_prose": 'Answer in JSON like {"answer": "yes", "reason": "It rains in the north, and the sun shines in the south."} and nothing else.',
    "json_array_prose": 'Return a list such as [{"name": "Ann", "note": "arrives at 9 a.m. on Monday"}, {"name": "Bo", "note": "leaves early"}] with one item per guest, then stop.',
    "json_document": json.dumps(
        {
            "question": "What is the capital of France?",
            "choices": ["Paris", "Lyon", "Marseille"],
            "hint": 'It\'s on the "Seine" river.\nThink about it!',
            "points": 2,
            "strict": True,
            "meta": None,
            "path": "C:\\data\\answers",
        },
        indent=2,
    ),
    "code_prose": 'Run `pip install perturber` first, then call ``a `nested` span`` with:\n\n~~~json\n{"text": "Hello there, my friend", "n": 3}\n~~~\n\n    indented code stays too\n\nDon\'t edit the fence, it\'s fine.',
    "markdown_table": "| Item | Qty | Price |\n|---|---:|---:|\n| Apples | 3 | $1.20 |\n| Fresh bread | 1 | $2.50 |\n\nWhich item costs the most? Please answer in one word.",
    # JSON whose member names and identifier values hold what the word, normalization, context and
    # structure entries edit in prose (they must stay byte-identical there).
    "json_triggers": 'Dr. Mary said: don\'t use {"do not": "color", "Mary": ":)", "café": "it\'s", "e.g.": "2026-01-05", "count": 1000000, "mood": ":smile:", "face": "😊", "ok": "John", "note": "Mary can\'t stop at 5 km, it is 1000000 metres on 2026-01-05 :) e.g. the café is gray"} and reply by Friday, 2026-01-05, with 10 km. What is the gray color? It is done :) 😊',
    "json_sentences": 'Read the record. {"summary": "The order is late. It is not paid. Can you check it?", "status": "late", "id": "A-17"} Then answer: why is it late? Do not guess.\n\nIs the order paid?',
    "json_keys": json.dumps(
        {
            "Anna": None,
            "The sky is blue. Is the grass green?": "?!",
            "\u2014": "\u201cquoted\u201d",
            "note": "Tom said the sky is blue. Why?",
        },
        indent=2,
        ensure_ascii=False,
    ),
    "json_form": 'Fill in:\n{\n  "Q: why?": "??"\n}',
    "urls_emails": 'Email support@example.co.uk (or J.Smith+tag@mail.example.org) and open https://example.com/a_(b)?q=x&y=1), www.test.org/path. or ftp://files.example.net/data.csv; "https://quoted.example/x" thanks!',
}

if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("corpus.json")
    out.write_text(json.dumps(CORPUS, ensure_ascii=True, indent=1) + "\n")
    print(f"wrote {out} ({len(CORPUS)} texts)")
