"""The report on small hand-built runs: every number it shows, recomputed by hand."""

import json
import re
from html.parser import HTMLParser

import pytest

from perturber.records import write_jsonl
from perturber.robustness import stats
from perturber.robustness.analysis import Options
from perturber.robustness.report import aggregate, write_report

pytest.importorskip("numpy")


def original(ex, sim, answer=1):
    return {"kind": "original", "key": f"orig:{ex}", "example_id": ex, "sim": float(sim), "answer": answer,
            "model": "m", "output": f"#### {sim}", "extracted": str(sim)}  # fmt: skip


def case(ex, name, sim, orig_sim, *, level=1, family="F", mag=0.1, expectation="invariant", key=None):
    return {
        "kind": "case",
        "key": key or f"{name}:{ex}:{level}",
        "case_id": key or f"{name}:{ex}:{level}",
        "example_id": ex,
        "name": name,
        "category": "native",
        "family": "character",
        "graded_family": family,
        "expectation": expectation,
        "level": level,
        "magnitude": mag,
        "sim": float(sim),
        "original_sim": float(orig_sim),
        "original": f"question {ex}",
        "perturbed": f"question {ex} ({name})",
        "output": f"#### {sim}",
        "original_output": f"#### {orig_sim}",
        "extracted": str(sim),
        "original_extracted": str(orig_sim),
        "model": "m",
    }


EXAMPLES = [f"e{i:02d}" for i in range(40)]
RIGHT = {e: float(i < 30) for i, e in enumerate(EXAMPLES)}  # e00..e29 right, e30..e39 wrong


def paired_run():
    """Six perturbations over 40 examples (30 originals right) with flips placed by hand."""
    rows = [original(e, RIGHT[e]) for e in EXAMPLES]
    flips = {
        "zero_width": ({f"e{i:02d}" for i in range(10)}, set()),  # 10 broken
        "typos": ({f"e{i:02d}" for i in range(8)}, {"e30"}),  # 8 broken, 1 repaired
        "upper_case": ({"e00", "e01", "e02"}, {"e30", "e31", "e32"}),  # 3 and 3
        "spaces": ({f"e{i:02d}" for i in range(12)}, {f"e{i}" for i in range(30, 40)}),  # 12 and 10
        "conflicting_instruction": (set(), set()),  # nothing flips; 10 fail on wrong originals
    }
    for name, (broken, repaired) in flips.items():
        for e in EXAMPLES:
            sim = 0.0 if e in broken else 1.0 if e in repaired else RIGHT[e]
            rows.append(case(e, name, sim, RIGHT[e]))
    rows += [case(f"e{i:02d}", "line_wrap", 0.0, 1.0) for i in range(5)]  # 5 of 5 broken: n too small
    return rows


def write(tmp_path, rows, name="results.jsonl"):
    path = tmp_path / name
    write_jsonl(path, rows)
    return str(path)


def by_name(data):
    return {p["name"]: p for p in data["perturbations"]}


def test_paired_table_by_hand(tmp_path):
    data = aggregate([write(tmp_path, paired_run())])
    rows = by_name(data)
    # what significantly breaks answers first, then the rest by broken cases (spaces: 12 broken
    # and 10 repaired is no evidence, however many it broke)
    assert [p["name"] for p in data["perturbations"]] == [
        "zero_width", "spaces", "typos", "line_wrap", "upper_case", "conflicting_instruction",
    ]  # fmt: skip
    zw = rows["zero_width"]
    assert (zw["n"], zw["broken"], zw["repaired"], zw["net"]) == (40, 10, 0, -10)
    assert zw["flip_rate"] == pytest.approx(10 / 30) and zw["flip_ci"] == list(stats.wilson(10, 30))
    assert zw["accuracy"] == 0.5 and zw["ci"] == list(stats.wilson(20, 40))
    assert zw["drop"] == pytest.approx(0.25)
    # exact McNemar on (10, 0): 2 / 2**10; on (8, 1): 2 * (1 + 9) / 2**9; Holm over 5 tested rows
    assert zw["test"]["p"] == 2 / 2**10 and rows["typos"]["test"]["p"] == 20 / 512
    assert zw["test"]["p_adjusted"] == pytest.approx(5 * 2 / 2**10)
    assert rows["typos"]["test"]["p_adjusted"] == pytest.approx(4 * 20 / 512)
    assert rows["spaces"]["status"] == "no significant change" and rows["spaces"]["hint"] is None
    assert rows["upper_case"]["test"]["p_adjusted"] == 1.0
    assert zw["status"] == "breaks answers" and zw["hint"] == "fix in input normalisation, not in the prompt"
    ci = rows["conflicting_instruction"]
    assert (ci["broken"], ci["repaired"], ci["failures"]) == (0, 0, 10)
    assert ci["status"] == "already failing on the original" and ci["hint"] is None
    assert rows["line_wrap"]["status"] == "n too small" and rows["line_wrap"]["test"]["p_adjusted"] is None
    hinted = [p["name"] for p in data["perturbations"] if p["hint"]]
    assert hinted == ["zero_width"]  # nothing that does not significantly break carries a hint
    assert all(p["broken"] > 0 for p in data["perturbations"] if p["hint"])


def test_benjamini_hochberg_on_request(tmp_path):
    data = aggregate([write(tmp_path, paired_run())], Options(correction="bh"))
    rows = by_name(data)
    # sorted p: 1/512, 20/512, then three >= 0.8 -> BH: the running minimum of p * 5 / rank
    assert rows["zero_width"]["test"]["p_adjusted"] == pytest.approx(5 / 512)
    assert rows["typos"]["test"]["p_adjusted"] == pytest.approx(20 / 512 * 5 / 2)
    assert data["correction"] == "bh"


def test_several_cases_per_example_count_once_in_the_test(tmp_path):
    # one example broken on 5 ladder levels is one discordant example, not five pairs
    rows = [original(e, 1.0) for e in EXAMPLES]
    rows += [case("e00", "typos", 0.0, 1.0, level=k) for k in range(1, 6)]
    rows += [case(e, "typos", 1.0, 1.0, level=1) for e in EXAMPLES[1:]]
    p = by_name(aggregate([write(tmp_path, rows)]))["typos"]
    assert p["broken"] == 5 and p["test"]["examples_broken"] == 1 and p["test"]["p"] == 1.0
    assert p["status"] == "no significant change" and p["hint"] is None


def family_run():
    rows = [original(e, 1.0) for e in EXAMPLES]
    # Flat: originals half right on its own examples, nothing flips
    flat = [f"f{i:02d}" for i in range(40)]
    rows += [original(e, float(i % 2)) for i, e in enumerate(flat)]
    rows += [
        case(e, "spaces", float(i % 2), float(i % 2), level=2, family="Flat") for i, e in enumerate(flat)
    ]
    # Drop: L1 intact, L2 loses 30 of 40
    rows += [case(e, "typos", 1.0, 1.0, level=1, family="Drop") for e in EXAMPLES]
    rows += [
        case(e, "typos", float(i >= 30), 1.0, level=2, family="Drop", mag=0.3) for i, e in enumerate(EXAMPLES)
    ]
    # Small: L1 has two cases, both wrong; L2 is intact
    rows += [case(e, "homoglyph", 0.0, 1.0, level=1, family="Small") for e in EXAMPLES[:2]]
    rows += [case(e, "homoglyph", 1.0, 1.0, level=2, family="Small") for e in EXAMPLES]
    # Noisy: L2 keeps 30 of 40 (0.75 < 0.8, but not significantly so at n = 40)
    rows += [
        case(e, "ocr_noise", float(i < 30), 1.0, level=2, family="Noisy") for i, e in enumerate(EXAMPLES)
    ]
    return rows


def test_collapse_points_paper_and_paired(tmp_path):
    data = aggregate([write(tmp_path, family_run())])
    fams = {f["name"]: f for f in data["families"]}
    drop = fams["Drop"]
    assert (drop["collapse_point"], drop["paired_collapse_point"]) == (2, 2)
    assert drop["levels"][2]["ratio"] == 0.25 and drop["levels"][2]["ratio_ci"][1] < 0.8
    small = fams["Small"]
    assert small["levels"][1]["too_small"] and small["levels"][1]["n"] == 2
    assert small["collapse_point"] is None and small["paired_collapse_point"] is None  # n = 2 drives nothing
    noisy = fams["Noisy"]
    assert noisy["collapse_point"] == 2 and noisy["paired_collapse_point"] is None
    lo, hi = noisy["levels"][2]["ratio_ci"]
    assert lo < 0.75 < 0.8 <= hi
    assert noisy["paired_note"] == "L2 below τ but not significant at n = 40" and noisy["collapse_differs"]


def test_a_family_that_flips_nothing_is_never_a_failure(tmp_path):
    data = write_report([write(tmp_path, family_run())], str(tmp_path / "rep"), plots_enabled=False)
    flat = {f["name"]: f for f in data["families"]}["Flat"]
    assert flat["stability"] == pytest.approx(0.5) and flat["quadrant"] in ("failure", "unstable")  # paper
    assert flat["relative_stability"] == 1.0 and flat["relative_quadrant"] in ("stable", "robust")
    assert flat["relative_ci"] == [1.0, 1.0]
    findings = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8").split("## ")[0]
    # Drop: (40 * 0.1 + 10 * 0.3) / (40 * 0.1 + 40 * 0.3) = 7 / 16
    assert "Drop keeps 44 % of its accuracy" in findings and "Flat" not in findings


def test_small_cells_are_left_out_of_the_plot(tmp_path, monkeypatch):
    from perturber.robustness import plots, report

    data = aggregate([write(tmp_path, family_run())])
    drawn = {}
    monkeypatch.setattr(plots, "degradation_png", lambda series, title: drawn.update(series) or b"")
    monkeypatch.setattr(
        plots, "quadrant_png", lambda points, *args: drawn.setdefault("quadrants", []).append(points) or b""
    )
    report.plot_images(data)
    assert [p[0] for p in drawn["Small"]] == [0, 2]  # L1 (n = 2) is not a plot point
    assert "Small" in drawn["quadrants"][0] and "Flat" in drawn["quadrants"][1]


def test_errors_are_superseded_by_a_later_result(tmp_path):
    rows = paired_run()
    err = {"kind": "case", "key": "zero_width:e00:1", "model": "m", "error": {"code": "model_bad_response"}}
    late = {"kind": "case", "key": "late", "model": "m", "error": {"code": "model_timeout"}}
    data = aggregate([write(tmp_path, [err, *rows, late])])
    assert data["errors"] == {"model_timeout": 1} and data["errors_superseded"] == 1
    assert by_name(data)["zero_width"]["n"] == 40  # the error was never scored
    dup = aggregate([write(tmp_path, [*rows, rows[-1]], "dup.jsonl")])
    assert dup["duplicate_results"] == 1 and by_name(dup)["line_wrap"]["n"] == 5


def test_invariance_mode_without_gold(tmp_path):
    rows = [dict(original(e, 1.0), answer=None) for e in EXAMPLES]
    rows += [case(e, "zero_width", float(i >= 12), 1.0) for i, e in enumerate(EXAMPLES)]
    data = aggregate([write(tmp_path, rows)])
    assert data["mode"] == "invariance"
    p = data["perturbations"][0]
    assert (p["broken"], p["repaired"], p["status"]) == (12, 0, "breaks answers")
    md = write_report([write(tmp_path, rows)], str(tmp_path / "rep"), plots_enabled=False)
    assert md["mode"] == "invariance"
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "invariance without gold answers: a case fails when its answer differs" in text


def test_refusal_entries_are_scored_alone(tmp_path):
    rows = [original(e, RIGHT[e]) for e in EXAMPLES]
    rows += [
        case(e, "knowledge_boundary", float(i % 4 == 0), RIGHT[e], expectation="refusal", family="Knowledge Boundary", level=1 + i % 5)
        for i, e in enumerate(EXAMPLES)
    ]  # fmt: skip
    data = aggregate([write(tmp_path, rows)])
    kb = data["perturbations"][0]
    assert kb["scoring"] == "refusal" and kb["broken"] is None and kb["status"] is None
    assert kb["accuracy"] == 0.25 and kb["ci"] == list(stats.wilson(10, 40))
    fam = data["families"][0]
    assert fam["scoring"] == "refusal" and fam["collapse_point"] is None and fam["relative_stability"] is None
    assert fam["paired_note"] == "refusal accuracy only"


class _Outline(HTMLParser):
    """Headings and table header rows of an HTML page."""

    def __init__(self):
        super().__init__()
        self.headings, self.tables, self._tag, self._row = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3", "th"):
            self._tag = tag
            if tag == "th" and self._row is None:
                self._row = []
                self.tables.append(self._row)
            if tag in ("h1", "h2", "h3"):
                self.headings.append([tag, ""])

    def handle_endtag(self, tag):
        if tag == "tr":
            self._row = None
        if tag == self._tag:
            self._tag = None

    def handle_data(self, data):
        if self._tag in ("h1", "h2", "h3"):
            self.headings[-1][1] += data
        elif self._tag == "th":
            self._row.append(data)


def test_markdown_and_html_have_the_same_sections_and_tables(tmp_path):
    rows = paired_run() + family_run()[40:]
    rows.append({"kind": "case", "key": "x", "model": "m", "error": {"code": "model_timeout"}})
    write_report([write(tmp_path, rows)], str(tmp_path / "rep"))
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    md_headings = [[f"h{len(m.group(1))}", m.group(2)] for m in re.finditer(r"^(#+) (.+)$", md, re.M)]
    md_tables = [
        [c.strip() for c in line.strip("|").split(" | ")]
        for line, nxt in zip(md.splitlines(), md.splitlines()[1:])
        if line.startswith("| ") and nxt.startswith("|---")
    ]
    outline = _Outline()
    outline.feed(page)
    assert md_headings == outline.headings and len(md_headings) >= 8
    assert md_tables == outline.tables
    assert {"Errors", "Collapse points", "Stability and quadrants"} <= {h for _, h in md_headings}
    assert md.count("\n| ") - len(md_tables) == page.count("<tr") - len(md_tables)  # same rows
    assert "white-space:pre-wrap" in page and "overflow-wrap:anywhere" in page  # diffs wrap


def test_quadrant_labels_never_overlap():
    pytest.importorskip("matplotlib")
    from perturber.robustness import plots

    names = ["Input Quality", "Semantic Variation", "Structural/Format", "Context Interference",
             "Context Load", "Conflict Instruction Stress", "Knowledge Boundary"]  # fmt: skip
    points = {name: (0.2 + 0.002 * i, 0.75 + 0.003 * i) for i, name in enumerate(names)}
    fig = plots.quadrant_figure(points, 0.8, 0.2, "t")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t for t in fig.axes[0].texts if t.get_gid() == "family-label"]
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert sorted(t.get_text() for t in labels) == sorted(names)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), (a, b)
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_report_json_schema_2_keeps_schema_1_fields(tmp_path):
    data = write_report([write(tmp_path, paired_run())], str(tmp_path / "rep"), plots_enabled=False)
    saved = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert saved["schema"] == "perturber.robustness.report/2" and saved == json.loads(json.dumps(data))
    v1_top = {
        "models",
        "tau",
        "baseline_accuracy",
        "families",
        "perturbations",
        "regressions",
        "errors",
        "by_model",
    }
    v1_perturbation = {"name", "category", "family", "graded_family", "expectation", "n", "failures", "rate",
                       "broken", "repaired", "net", "churn", "hint", "examples"}  # fmt: skip
    v1_family = {
        "name",
        "baseline",
        "collapse_point",
        "collapse_label",
        "magnitude",
        "stability",
        "quadrant",
        "levels",
    }
    assert v1_top <= set(saved) and v1_perturbation <= set(saved["perturbations"][0])
    assert v1_family <= set(saved["families"][0])
    assert {"level", "n", "accuracy", "magnitude", "stability"} <= set(saved["families"][0]["levels"][1])
    assert {"exported", "fixed", "still_failing", "not_retested"} <= set(saved["regressions"])
