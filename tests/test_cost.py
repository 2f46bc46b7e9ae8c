"""eval/costmodel: REPORT-line parsing, trimmed mean, the price formula, the sweeps (moto, local)."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import zipfile

import boto3
import pytest
from moto import mock_aws

from costmodel import cli, lambda_logs, local, prices, remote, scenarios, snapstart

ROOT = pathlib.Path(__file__).resolve().parent.parent

REGION = "us-east-1"

# REPORT lines in the formats Lambda writes (tab separated, trailing tab; X-Ray suffix; SnapStart).
WARM = (
    "REPORT RequestId: 3604209a-e9a3-11e6-939a-754dd98c7be3\tDuration: 12.34 ms\t"
    "Billed Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 87 MB\t"
)
COLD = (
    "REPORT RequestId: 8f5e3a52-0b5e-4a2e-9d3f-1f6c1d0e2b7a\tDuration: 1150.79 ms\t"
    "Billed Duration: 2228 ms\tMemory Size: 256 MB\tMax Memory Used: 120 MB\t"
    "Init Duration: 1076.84 ms\t"
)
XRAY = (
    "REPORT RequestId: c2d4e6f8-1111-2222-3333-444455556666 Duration: 2.03 ms Billed Duration: 3 ms "
    "Memory Size: 128 MB Max Memory Used: 64 MB Init Duration: 150.12 ms \t"
    "XRAY TraceId: 1-5e1b4151-5ac6c58f5b1d9fd4b6b0a1e2\tSegmentId: 6b1d9fd4b6b0a1e2\tSampled: true\t"
)
SNAPSTART = (
    "REPORT RequestId: 0a1b2c3d-aaaa-bbbb-cccc-ddddeeeeffff\tDuration: 5.00 ms\t"
    "Billed Duration: 240 ms\tMemory Size: 512 MB\tMax Memory Used: 100 MB\t"
    "Restore Duration: 300.50 ms\tBilled Restore Duration: 235 ms\t"
)


# -- parsing ----------------------------------------------------------------------------------


def test_parse_warm_report_line():
    assert lambda_logs.parse_report(WARM) == {
        "request_id": "3604209a-e9a3-11e6-939a-754dd98c7be3",
        "duration_ms": 12.34,
        "billed_ms": 13.0,
        "memory_mb": 512.0,
        "max_memory_mb": 87.0,
        "init_ms": None,
    }


def test_parse_cold_report_line_has_init_duration():
    report = lambda_logs.parse_report(COLD)
    assert report["init_ms"] == 1076.84 and report["billed_ms"] == 2228 and report["duration_ms"] == 1150.79
    assert report["max_memory_mb"] == 120 and report["memory_mb"] == 256


def test_parse_xray_and_snapstart_variants():
    xray = lambda_logs.parse_report(XRAY)
    assert (xray["duration_ms"], xray["billed_ms"], xray["init_ms"], xray["memory_mb"]) == (
        2.03,
        3,
        150.12,
        128,
    )
    snap = lambda_logs.parse_report(SNAPSTART)
    assert snap["init_ms"] is None and snap["restore_ms"] == 300.5 and snap["billed_restore_ms"] == 235


def test_other_lines_are_ignored_and_a_tail_gives_its_reports():
    assert lambda_logs.parse_report("START RequestId: x Version: $LATEST") is None
    assert lambda_logs.parse_report("END RequestId: x") is None
    assert lambda_logs.parse_report("REPORT something without durations") is None
    tail = "\n".join(
        [
            "START RequestId: a Version: $LATEST",
            "[INFO] hello Duration: 5 ms",
            "END RequestId: a",
            COLD,
            "START RequestId: b Version: $LATEST",
            "END RequestId: b",
            WARM,
            "",
        ]
    )
    reports = lambda_logs.parse_log_tail(base64.b64decode(base64.b64encode(tail.encode())).decode())
    assert [r["billed_ms"] for r in reports] == [2228, 13]


def test_trimmed_mean_drops_the_top_and_bottom_20_percent():
    assert lambda_logs.trimmed_mean(range(1, 11)) == 5.5  # drops 1, 2 and 9, 10
    assert lambda_logs.trimmed_mean([10, 11, 12, 13, 1000]) == 12  # one from each end
    assert lambda_logs.trimmed_mean([5, 7, 100]) == pytest.approx(37.333, abs=1e-3)  # n=3: nothing dropped
    assert lambda_logs.trimmed_mean([4.0]) == 4.0
    assert lambda_logs.trimmed_mean([1, 2, 3, 4], discard=0.5) == 2.5  # everything dropped -> plain mean
    with pytest.raises(ValueError):
        lambda_logs.trimmed_mean([])


# -- prices -----------------------------------------------------------------------------------


def test_price_formula_matches_the_worked_numbers():
    http = prices.call_cost(30, 512, "arm64", "http")
    assert http.compute == pytest.approx(2.0e-7, rel=1e-4)
    assert http.request == pytest.approx(2.0e-7) and http.gateway == pytest.approx(1.0e-6)
    assert round(http.per_million, 2) == 1.40
    assert round(prices.call_cost(30, 512, "arm64", "rest").per_million, 2) == 3.90
    assert round(prices.call_cost(30, 512, "x86_64", "http").per_million, 2) == 1.45
    assert round(prices.call_cost(18, 1024, "arm64", "http").per_million, 2) == 1.44
    assert round(prices.call_cost(30, 512, "arm64", "url").per_million, 2) == 0.40


def test_init_is_amortized_at_the_cold_start_rate():
    one_init = prices.call_cost(30, 512, "arm64", "http", cold_start_rate=1.0, init_ms=3000).init
    assert one_init == pytest.approx(2.0e-5, rel=1e-4)  # "one 3 s init at 512 MB arm64 = $2.0e-5"
    assert prices.call_cost(30, 512, cold_start_rate=0.01, init_ms=3000).init == pytest.approx(
        2.0e-7, rel=1e-4
    )
    assert prices.call_cost(30, 512, cold_start_rate=0.5, init_ms=0).init == 0


def test_billing_rounds_up_to_the_millisecond():
    assert prices.billed_ms(30.0) == 30
    assert prices.billed_ms(30.0001) == 31
    assert prices.billed_ms(29.2) == 30
    assert prices.billed_ms(0.2) == 1 and prices.billed_ms(0) == 1
    assert prices.call_cost(29.2, 512).total == prices.call_cost(30, 512).total
    assert prices.call_cost(30.5, 512).compute > prices.call_cost(30, 512).compute
    # measured Billed Duration (a trimmed mean) is not rounded again
    assert prices.call_cost(30.4, 512, already_billed=True).compute == pytest.approx(
        prices.PRICE_GB_S["arm64"] * 0.5 * 30.4 / 1000
    )


def test_http_api_is_metered_in_512_kb_steps():
    assert prices.gateway_units("http", 0) == 1
    assert prices.gateway_units("http", 512 * 1024) == 1
    assert prices.gateway_units("http", 512 * 1024 + 1) == 2
    assert prices.gateway_units("rest", 5_000_000) == 1 and prices.gateway_units("url", 10) == 0
    assert prices.call_cost(30, 512, gateway="http", payload_bytes=600_000).gateway == pytest.approx(2e-6)


def test_duration_model_cpu_share_up_to_1769_mb():
    assert prices.modeled_ms(10, 1769) == 10
    assert prices.modeled_ms(10, 3008) == 10  # single-threaded: no faster above one vCPU
    assert prices.modeled_ms(10, 128) == pytest.approx(10 * 1769 / 128)
    assert prices.modeled_ms(10, 512) == pytest.approx(34.55, abs=0.01)


def test_bad_arch_or_gateway_are_rejected():
    with pytest.raises(ValueError):
        prices.call_cost(1, 512, arch="riscv")
    with pytest.raises(ValueError):
        prices.call_cost(1, 512, gateway="alb")


# -- the real sweep's control flow, against moto ---------------------------------------------


class RecordingClient:
    """A moto Lambda client whose invoke returns a fake log tail (moto writes no REPORT lines)."""

    def __init__(self, client, durations):
        self._client = client
        self._durations = iter(durations)
        self.updates: list[int] = []
        self.invocations: list[dict] = []
        self._cold = True

    def __getattr__(self, name):
        return getattr(self._client, name)

    def update_function_configuration(self, **kwargs):
        self.updates.append(kwargs["MemorySize"])
        self._cold = True  # a configuration change starts new execution environments
        return self._client.update_function_configuration(**kwargs)

    def invoke(self, **kwargs):
        assert kwargs["LogType"] == "Tail" and kwargs["InvocationType"] == "RequestResponse"
        real = self._client.invoke(**kwargs)  # moto (use_docker=False) echoes the event back
        event = json.loads(real["Payload"].read())
        self.invocations.append(event)
        memory = self.updates[-1]
        duration = next(self._durations)
        init = "\tInit Duration: 812.50 ms" if self._cold else ""
        self._cold = False
        tail = (
            f"START RequestId: r Version: $LATEST\nEND RequestId: r\nREPORT RequestId: r\t"
            f"Duration: {duration:.2f} ms\tBilled Duration: {int(duration) + 1} ms\t"
            f"Memory Size: {memory} MB\tMax Memory Used: 90 MB{init}\t\n"
        )
        body = json.dumps(
            {
                "statusCode": 200,
                "headers": {"content-type": "application/json"},
                "body": "{}",
                "isBase64Encoded": False,
            }
        ).encode()
        return {**real, "Payload": io.BytesIO(body), "LogResult": base64.b64encode(tail.encode()).decode()}


@pytest.fixture
def lambda_client(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws(config={"lambda": {"use_docker": False}}):
        role = boto3.client("iam", region_name=REGION).create_role(
            RoleName="cost-test", AssumeRolePolicyDocument="{}"
        )["Role"]["Arn"]
        client = boto3.client("lambda", region_name=REGION)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("functions/api/handler.py", "handler = None\n")
        client.create_function(
            FunctionName="perturber-api",
            Runtime="python3.12",
            Role=role,
            Handler="functions.api.handler.handler",
            Architectures=["arm64"],
            MemorySize=512,
            Code={"ZipFile": buf.getvalue()},
        )
        yield client


def test_memory_sweep_updates_each_size_in_order_and_prices_reports(lambda_client):
    memories = [128, 256, 1024]
    n = 5
    durations = [
        900.0,
        40.0,
        41.0,
        42.0,
        60.0,  # 128 MB: cold first, then warm with one slow
        700.0,
        20.0,
        21.0,
        22.0,
        30.0,  # 256 MB
        500.0,
        5.0,
        5.5,
        6.0,
        9.0,
    ]  # 1024 MB
    client = RecordingClient(lambda_client, durations)
    event, request_bytes = scenarios.scenario_event("quotes", "native", "padding", "20w", 1)
    rows = remote.function_sweep(client, "perturber-api", memories, event, invocations=n, log=lambda *_: None)
    assert client.updates == memories + [512], "each size in order, then the original restored"
    assert lambda_client.get_function_configuration(FunctionName="perturber-api")["MemorySize"] == 512
    assert len(client.invocations) == n * len(memories)
    assert client.invocations[0]["requestContext"]["http"]["method"] == "POST"
    assert client.invocations[0]["rawPath"] == "/perturb/native/quotes"
    assert [r["memory_mb"] for r in rows] == memories
    first = rows[0]
    assert first["cold_starts"] == 1 and first["reports"] == n and first["errors"] == 0
    assert first["init_ms"] == 812.5 and first["max_memory_used_mb"] == 90
    # warm billed: 41, 42, 43, 61 -> trimmed (floor(4*0.2)=0 dropped) mean 46.75
    assert first["billed_ms"] == pytest.approx((41 + 42 + 43 + 61) / 4)
    priced = remote.price_measured(rows, "arm64", "http", 0.0, None, request_bytes, "quotes (measured)")
    assert [p["memory_mb"] for p in priced] == memories
    expected = prices.call_cost(first["billed_ms"], 128, "arm64", "http", already_billed=True)
    assert priced[0]["usd_per_million_calls"] == pytest.approx(expected.per_million, abs=1e-4)
    with_init = remote.price_measured(rows, "arm64", "http", 0.1, None, request_bytes, "x")[0]
    assert with_init["usd_init"] == pytest.approx(0.1 * prices.PRICE_GB_S["arm64"] * 0.125 * 0.813, rel=1e-3)


def test_memory_sweep_counts_missing_reports_and_errors(lambda_client):
    class NoTail(RecordingClient):
        def invoke(self, **kwargs):
            resp = super().invoke(**kwargs)
            return {**resp, "LogResult": "", "FunctionError": "Unhandled"}

    client = NoTail(lambda_client, [10.0] * 3)
    rows = remote.function_sweep(client, "perturber-api", [512], {"x": 1}, invocations=3, log=lambda *_: None)
    assert client.updates == [512], "nothing to restore when the last size is the original"
    assert rows[0]["missing_reports"] == 3 and rows[0]["errors"] == 3 and rows[0]["billed_ms"] is None
    assert remote.price_measured(rows, "arm64", "http", 0.0, None, 10, "x") == []


# -- local sweep and outputs ------------------------------------------------------------------


def test_local_run_writes_table_and_plot(tmp_path, capsys):
    code = cli.main(
        [
            "--local",
            "--perturbations",
            "baseline,quotes,no_such_entry",
            "--lengths",
            "20w",
            "--batches",
            "1,2",
            "--memory",
            "512,1024",
            "--repeats",
            "2",
            "--init-ms",
            "100",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "no_such_entry: not in this catalog, skipped" in out
    assert "@ 512 MB arm64, http: $" in out
    md, png, table = (
        (tmp_path / "cost-local.md"),
        (tmp_path / "cost-local.png"),
        (tmp_path / "cost-local.csv"),
    )
    assert md.exists() and png.exists() and table.exists()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = md.read_text()
    assert "max(1, 1769/M)" in text and "init 100 ms (given)" in text
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 2 * 2 * 2
    assert {r["scenario"] for r in rows} == {
        "baseline 20w x1",
        "baseline 20w x2",
        "quotes 20w x1",
        "quotes 20w x2",
    }
    for row in rows:
        assert float(row["usd_per_million_calls"]) >= 1.2  # request + HTTP API alone
        assert float(row["duration_ms"]) == pytest.approx(
            prices.modeled_ms(float(row["local_ms"]), int(row["memory_mb"])), abs=1e-3
        )


def test_sample_texts_have_the_requested_sizes():
    assert len(scenarios.sample_text("20w", "text").split()) == 20
    assert len(scenarios.sample_text("2KB", "text")) == 2048
    assert len(scenarios.sample_text("20KB", "text")) == 20480
    schema = scenarios.sample_text("2KB", "schema")
    assert 2048 <= len(schema) < 2300 and json.loads(schema)["type"] == "object"


def test_measured_init_is_a_positive_number():
    assert 0 < local.measure_init_ms(runs=1) < 60_000


def test_function_mode_without_credentials_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_ENDPOINT_URL="http://127.0.0.1:9",
    )
    proc = subprocess.run(
        [sys.executable, "eval/run_all.py", "run", "cost", "--function-name", "f", "--out", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("cost: error: cannot read f: NoCredentialsError"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_validates_options():
    for bad in (
        ["--local", "--memory", "64"],
        ["--local", "--lengths", "1MB"],
        ["--local", "--cold-start-rate", "2"],
        [],
    ):
        with pytest.raises(SystemExit) as exc:
            cli.main(bad)
        assert exc.value.code == 2


def test_snapstart_cache_and_restore_prices():
    gb_month = 30 * 24 * 3600
    row = snapstart.snapstart_monthly(1024, cold_starts=1000, init_ms=400, arch="arm64")
    assert row["cache"] == pytest.approx(0.0000015046 * gb_month)  # one version, 1 GB, a month
    assert row["restores"] == pytest.approx(1000 * 0.0001397998)
    assert row["without"] == pytest.approx(1000 * 0.0000133334 * 0.4)
    assert row["extra"] == pytest.approx(row["cache"] + row["restores"] - row["without"])
    # a version that lives one hour is billed the 3-hour minimum; half the memory, half the price
    short = snapstart.snapstart_monthly(512, 0, 400, cached_s=3600)
    assert short["cache"] == pytest.approx(0.0000015046 * 0.5 * 3 * 3600)


def test_snapstart_pays_off_only_for_long_inits():
    even = snapstart.snapstart_break_even_init_ms("arm64")
    assert even == pytest.approx(0.0001397998 / 0.0000133334 * 1000)
    below = snapstart.snapstart_monthly(512, 1e6, even * 0.9, cached_s=3 * 3600)
    above = snapstart.snapstart_monthly(512, 1e6, even * 1.1, cached_s=3 * 3600)
    assert below["extra"] > 0 > above["extra"]


def test_snapstart_option_prints_the_comparison(tmp_path, capsys):
    assert (
        cli.main(
            [
                "--local",
                "--perturbations",
                "baseline",
                "--lengths",
                "20w",
                "--batches",
                "1",
                "--memory",
                "512",
                "--repeats",
                "1",
                "--init-ms",
                "400",
                "--out",
                str(tmp_path),
                "--snapstart",
                "10000",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "pays off only above 10.5 s of INIT" in out
    assert "512 MB: INIT billed $0.0267/month" in out
    with pytest.raises(SystemExit):
        cli.main(["--local", "--snapstart", "-1"])
