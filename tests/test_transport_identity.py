"""Same bytes over every transport: library, typed route, generic route, CLI and Lambda.

Every deterministic entry x the golden corpus x its parameter sets x seeds {0, 1, 7}.
"""

import io
import json
import sys

import harness
from fastapi.testclient import TestClient

import perturber
from perturber import cli
from perturber.service import Settings, create_app

TEXTS = list(harness.CORPUS.values())


def cli_text(name, text, params, seed, category):
    args = [name, "--text", text, "--seed", str(seed), "--category", category]
    for key, value in params.items():
        args += [f"--{key}", str(value)]
    saved, sys.stdout = sys.stdout, io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        code = cli.main(args)
        sys.stdout.flush()
        raw = sys.stdout.buffer.getvalue()
    finally:
        sys.stdout = saved
    assert code == 0
    return raw.decode("utf-8")


def groups():
    for spec in harness.deterministic_entries():
        for _set_name, params in harness.param_sets(spec).items():
            for seed in harness.SEEDS if spec.seed_sensitive else (0,):
                yield spec, params, seed


def test_library_typed_generic_cli_and_lambda_agree(capsys):
    from functions.api.events import LocalContext, http_api_event, response_body
    from functions.api.handler import handler as lambda_handler

    app = create_app(Settings(max_text_chars=1_000_000))
    comparisons = 0
    with TestClient(app) as client:
        for spec, params, seed in groups():
            library = [perturber.perturb(t, spec.name, params, seed, spec.category) for t in TEXTS]
            typed = client.post(
                f"/perturb/{spec.category}/{spec.name}", json={"texts": TEXTS, "seed": seed, **params}
            ).json()
            generic = client.post(
                "/perturb",
                json={
                    "texts": TEXTS,
                    "name": spec.name,
                    "category": spec.category,
                    "params": params,
                    "seed": seed,
                },
            ).json()
            assert [r["text"] for r in typed["results"]] == library, spec.key
            assert [r["text"] for r in generic["results"]] == library, spec.key
            event = http_api_event(
                "POST",
                f"/perturb/{spec.category}/{spec.name}",
                headers={"content-type": "application/json"},
                body=json.dumps({"texts": TEXTS, "seed": seed, **params}).encode(),
            )
            via_lambda = json.loads(response_body(lambda_handler(event, LocalContext())))
            assert [r["text"] for r in via_lambda["results"]] == library, spec.key
            for text, expected in zip(TEXTS, library):
                assert cli_text(spec.name, text, params, seed, spec.category) == expected, spec.key
            comparisons += 4 * len(TEXTS)
    with capsys.disabled():
        print(
            f"\ntransport identity: {comparisons} byte-for-byte comparisons "
            "(typed route, generic route, CLI, Lambda handler vs library)"
        )
    assert comparisons > 0
