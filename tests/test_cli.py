"""The shell interface: verbatim output, stdin handling, exit codes, batch, help."""

import json
import os
import subprocess
import sys

import pytest

import perturber

ENV = dict(os.environ, PYTHONIOENCODING="utf-8")


def cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "perturber.cli", *args], input=stdin, capture_output=True, env=ENV
    )


def test_text_goes_to_stdout_verbatim():
    out = cli("quotes", "--text", "Hi there", "--n", "3")
    assert out.returncode == 0 and out.stdout == b'""" Hi there """' and out.stderr == b""


def test_stdin_loses_exactly_one_trailing_newline():
    assert cli("trailing_newline", stdin=b"Hi\n\n").stdout == b"Hi\n\n"
    assert cli("baseline", stdin="Caf\u00e9 \u200b\r\n".encode()).stdout == "Caf\u00e9 \u200b".encode()
    assert cli("baseline", stdin=b"no newline").stdout == b"no newline"


def test_json_output_is_the_result():
    out = cli("spaces", "--text", "Hi", "--n", "2", "--json", "--seed", "9")
    assert json.loads(out.stdout) == perturber.apply("Hi", "spaces", {"n": 2}, 9).to_dict()


@pytest.mark.parametrize(
    "args, code, needle",
    [
        (["quotse", "--text", "x"], 2, b"did you mean quotes"),
        (["quotes", "--text", "x", "--n", "0"], 2, b"'n'"),
        (["quotes", "--text", "x", "--n", "1.0"], 2, b"'n'"),
        (["quotes", "--text", "x", "--seed", "-1"], 2, b"seed"),
        (["quotes", "--text", "x", "--seed", "abc"], 2, b"seed"),
        (["quotes", "--text", "x", "--bogus", "1"], 2, b"unrecognized"),
        (["describe", "nope"], 2, b"unknown_perturbation"),
        (["list", "--family", "nope"], 2, b"invalid choice"),
    ],
)
def test_errors_are_one_line_with_exit_codes(args, code, needle):
    out = cli(*args)
    assert out.returncode == code
    assert needle in out.stderr and out.stderr.count(b"\n") == 1 and b"Traceback" not in out.stderr
    assert out.stdout == b""


def test_invalid_utf8_on_stdin():
    out = cli("baseline", stdin=b"\xff\xfe")
    assert out.returncode == 2 and b"UTF-8" in out.stderr


def test_list_and_describe():
    out = cli("list", "--family", "padding", "--category", "native", "--json")
    assert [e["name"] for e in json.loads(out.stdout)] == [
        "quotes",
        "spaces",
        "new_lines",
        "trailing_newline",
    ]
    table = cli("list", "--in-scope").stdout.decode()
    rows = [line.split() for line in table.splitlines()]
    assert "native/quotes" in table and rows and all(r[2] == "in" for r in rows)
    everything = [line.split() for line in cli("list").stdout.decode().splitlines()]
    assert any(r[2] == "out" for r in everything)
    assert json.loads(cli("describe", "quotes", "--json").stdout) == perturber.describe("quotes")
    text = cli("describe", "quotes").stdout.decode()
    assert text.startswith("### `quotes`") and '""""" On March 3' in text


def test_help_explains_params():
    out = cli("quotes", "--help")
    assert (
        out.returncode == 0
        and b"--n VALUE" in out.stdout
        and b"int in [1," in out.stdout
        and b"(default 5)" in out.stdout
    )
    top = cli("--help")
    assert top.returncode == 0 and b"batch NAME" in top.stdout
    assert cli().returncode == 2


def test_batch(tmp_path):
    src = tmp_path / "in.jsonl"
    rows = [{"id": 1, "q": "Hi"}, {"id": 2, "q": "What is 2+2?"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    dst = tmp_path / "out.jsonl"
    out = cli(
        "batch",
        "spaces",
        "--input",
        str(src),
        "--output",
        str(dst),
        "--field",
        "q",
        "--param",
        "n=2",
        "--seed",
        "4",
        "--progress",
    )
    assert out.returncode == 0, out.stderr
    assert b"2/2" in out.stderr
    got = [json.loads(line) for line in dst.read_text().splitlines()]
    for row, res in zip(rows, got):
        lib = perturber.apply(row["q"], "spaces", {"n": 2}, 4).to_dict()
        assert res["q"] == row["q"] and res["id"] == row["id"] and res["q_perturbed"] == lib["text"]
        assert res["perturber"] == {k: v for k, v in lib.items() if k != "text"}


def test_batch_errors_write_nothing(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "ok"}\n{"text": 3}\n')
    dst = tmp_path / "out.jsonl"
    out = cli("batch", "spaces", "--input", str(src), "--output", str(dst))
    assert out.returncode == 2 and b"record 2: no string field" in out.stderr and not dst.exists()
    assert list(tmp_path.iterdir()) == [src]
    out = cli("batch", "spaces", "--input", str(tmp_path / "missing.jsonl"), "--output", str(dst))
    assert out.returncode == 2 and b"no such file" in out.stderr
    out = cli("batch", "spaces", "--input", str(src), "--output", str(dst), "--param", "m=1")
    assert out.returncode == 2
