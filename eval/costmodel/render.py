"""The cost sweeps' outputs: ``eval/out/cost-<local|NAME>.{md,csv,png}`` (a table, and $ per
million calls against memory with one line per scenario) and the lines printed to the console."""

from __future__ import annotations

import csv
import pathlib

from costmodel.snapstart import snapstart_break_even_init_ms, snapstart_monthly


def write_outputs(
    priced: list[dict], out_dir: pathlib.Path, stem: str, header: list[str], columns: list[str]
) -> dict[str, pathlib.Path]:
    """``<stem>.csv``, ``<stem>.md`` (``header`` lines, then a table of ``columns``) and
    ``<stem>.png`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {ext: out_dir / f"{stem}.{ext}" for ext in ("csv", "md", "png")}
    with paths["csv"].open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(priced[0]) if priced else columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(priced)
    lines = [
        f"# {stem}",
        "",
        *header,
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    for row in priced:
        lines.append("| " + " | ".join(_fmt(row.get(c)) for c in columns) + " |")
    paths["md"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    _plot(priced, paths["png"], stem, header[0] if header else "")
    return paths


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e-3 and value else f"{value:,.4f}".rstrip("0").rstrip(".")
    return "" if value is None else str(value)


def _plot(priced: list[dict], path: pathlib.Path, title: str, subtitle: str) -> None:
    """$ per million calls vs memory; colour = perturbation, line style = length, marker = batch."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for row in priced:
        series.setdefault(row["scenario"], []).append((row["memory_mb"], row["usd_per_million_calls"]))
    parts = {label: (label.split() + ["", "", ""])[:3] for label in series}
    colours = {
        name: plt.get_cmap("tab10")(i % 10)
        for i, name in enumerate(dict.fromkeys(p[0] for p in parts.values()))
    }
    styles = dict(zip(dict.fromkeys(p[1] for p in parts.values()), ["-", "--", ":", "-."] * 4))
    markers = dict(zip(dict.fromkeys(p[2] for p in parts.values()), ["o", "s", "^", "D", "v"] * 4))
    fig, ax = plt.subplots(figsize=(11, 6.5))
    for label, points in series.items():
        name, length, batch = parts[label]
        points.sort()
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            color=colours[name],
            linestyle=styles[length],
            marker=markers[batch],
            markersize=4,
            linewidth=1.2,
            label=label,
        )
    memories = sorted({row["memory_mb"] for row in priced})
    ax.set_xscale("log", base=2)
    ax.set_xticks(memories, [str(m) for m in memories], fontsize=8, rotation=45)
    ax.minorticks_off()
    ax.set_yscale("log")
    ax.set_xlabel("memory (MB)")
    ax.set_ylabel("$ per million calls")
    ax.set_title(title + "\n" + "\n".join(textwrap.wrap(subtitle, 110)), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    if series:
        ax.legend(
            fontsize=6, ncol=1 if len(series) <= 20 else 2, loc="center left", bbox_to_anchor=(1.01, 0.5)
        )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- CLI --------------------------------------------------------------------------------------


def print_snapstart(memories, cold_starts: float, init_ms: float, arch: str) -> None:
    print(
        f"snapstart: {cold_starts:g} cold starts/month, INIT {init_ms:.0f} ms, {arch}; a restore "
        f"pays off only above {snapstart_break_even_init_ms(arch) / 1000:.1f} s of INIT"
    )
    for memory in memories:
        row = snapstart_monthly(memory, cold_starts, init_ms, arch)
        print(
            f"snapstart: {memory} MB: INIT billed ${row['without']:.4f}/month; SnapStart "
            f"${row['with_snapstart']:.4f}/month (cache ${row['cache']:.4f} + restores "
            f"${row['restores']:.4f}): {'+' if row['extra'] >= 0 else '-'}${abs(row['extra']):.4f}"
        )


def print_headline(priced: list[dict], arch: str, gateway: str) -> None:
    for row in priced:
        if row["memory_mb"] == 512 and row.get("batch", 1) == 1 and row.get("length", "20w") == "20w":
            print(
                f"cost: {row['scenario']} @ 512 MB {arch}, {gateway}: "
                f"${row['usd_per_million_calls']:.4f} per million calls"
            )
