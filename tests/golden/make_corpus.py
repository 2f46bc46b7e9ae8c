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
}

if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("corpus.json")
    out.write_text(json.dumps(CORPUS, ensure_ascii=True, indent=1) + "\n")
    print(f"wrote {out} ({len(CORPUS)} texts)")
