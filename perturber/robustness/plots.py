"""PNG plots of a report (matplotlib, Agg backend, imported on first use). Plots only draw what the
report data holds; cells below the minimum n are left out by the caller.

* ``degradation.png``: accuracy vs level (L0..L5), one line per family, with Wilson intervals;
* ``quadrant.png`` / ``quadrant_relative.png``: each family at (mean magnitude, Stability), the
  paper's and the baseline-relative view, with lines at ``tau`` and the mean magnitude. Labels
  are placed so that they never overlap (:func:`place_labels`);
* ``rankings.png`` (several models): each model's accuracy on the originals and per family.
"""

from __future__ import annotations

import io

from ..errors import ResourceUnavailable

QUADRANT_NAMES = (("stable", "robust"), ("failure", "unstable"))


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ResourceUnavailable(
            "plots need matplotlib: pip install 'perturber[robustness]'", extra="robustness"
        ) from None
    return plt


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def degradation_png(series: dict[str, list[tuple[int, float, float, float]]], title: str) -> bytes:
    """``series``: family -> [(level, accuracy, ci low, ci high)] for the cells with enough cases."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for family, points in series.items():
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        err = [
            [max(0.0, y - p[2]) for y, p in zip(ys, points)],
            [max(0.0, p[3] - y) for y, p in zip(ys, points)],
        ]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=family)
    ax.set_xticks(range(6), [f"L{k}" for k in range(6)])
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("severity level (L0 = unperturbed baseline)")
    ax.set_ylabel("accuracy (95 % Wilson interval)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="lower left")
    data = _png(fig)
    plt.close(fig)
    return data


def _overlaps(a: tuple, b: tuple, pad: float = 1.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def place_labels(
    anchors: list[tuple[float, float]], sizes: list[tuple[float, float]], gap: float = 5.0
) -> list[tuple[float, float]]:
    """Lower-left corners for labels of ``sizes`` (w, h) next to ``anchors`` (x, y), in pixels,
    such that no two label boxes overlap: right of the point first, then left, then stepping up
    and down in label heights until a free place is found.

    >>> place_labels([(0, 0), (0, 0), (0, 0)], [(40, 10)] * 3)   # right, left, then a step up
    [(5.0, -5.0), (-45.0, -5.0), (5.0, 7.0)]
    """
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for (x, y), (w, h) in zip(anchors, sizes):
        for step in range(0, 200):
            dy = (step + 1) // 2 * (h + 2) * (1 if step % 2 else -1) if step else 0.0
            found = None
            for x0 in (x + gap, x - gap - w):
                box = (x0, y - h / 2 + dy, x0 + w, y + h / 2 + dy)
                if not any(_overlaps(box, other) for other in placed):
                    found = box
                    break
            if found:
                placed.append(found)
                out.append((found[0], found[1]))
                break
    return out


def quadrant_figure(
    points: dict[str, tuple[float, float]],
    threshold: float,
    mean_magnitude: float,
    title: str,
    ylabel: str = "Stability",
):
    """The quadrant chart as a matplotlib figure (``points``: family -> (magnitude, Stability));
    family labels carry the gid ``family-label``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.6))
    mags = [m for m, _ in points.values()]
    stabs = [s for _, s in points.values()]
    right = max([*mags, mean_magnitude * 2, 0.1]) * 1.1
    top = max([*stabs, 1.0]) + 0.05
    ax.set_xlim(0, right)
    ax.set_ylim(-0.03, top)
    ax.axhline(threshold, color="grey", linestyle="--", linewidth=1)
    ax.axvline(mean_magnitude, color="grey", linestyle=":", linewidth=1)
    for (x, ha), names in zip(((0.01, "left"), (right * 0.99, "right")), zip(*QUADRANT_NAMES)):
        ax.text(x, top - 0.02, names[0], ha=ha, va="top", fontsize=9, color="dimgray")
        ax.text(x, 0.0, names[1], ha=ha, va="bottom", fontsize=9, color="dimgray")
    ax.set_xlabel("mean magnitude")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    for m, s in points.values():
        ax.scatter([m], [s], s=30, zorder=3)
    _label(fig, ax, points)
    return fig


def _label(fig, ax, points: dict[str, tuple[float, float]]) -> None:
    """Family labels at non-overlapping places, with a thin line to a displaced label."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [ax.text(0, 0, name, fontsize=7, gid="family-label") for name in points]
    sizes = []
    for t in texts:
        box = t.get_window_extent(renderer)
        sizes.append((box.width, box.height))
    anchors = [tuple(ax.transData.transform(p)) for p in points.values()]
    to_data = ax.transData.inverted()
    for t, (x0, y0), (ax_x, ax_y), (w, h) in zip(texts, place_labels(anchors, sizes), anchors, sizes):
        t.set_position(to_data.transform((x0, y0)))
        t.set_va("bottom")
        if abs(y0 + h / 2 - ax_y) > h:
            end = to_data.transform((x0 if x0 > ax_x else x0 + w, y0 + h / 2))
            ax.plot(*zip(to_data.transform((ax_x, ax_y)), end), color="lightgray", linewidth=0.6)


def quadrant_png(
    points: dict[str, tuple[float, float]],
    threshold: float,
    mean_magnitude: float,
    title: str,
    ylabel: str = "Stability",
) -> bytes:
    """The quadrant chart as PNG bytes."""
    plt = _pyplot()
    fig = quadrant_figure(points, threshold, mean_magnitude, title, ylabel)
    data = _png(fig)
    plt.close(fig)
    return data


def rankings_png(clean: dict[str, float], by_family: dict[str, dict[str, float]], title: str) -> bytes:
    """Each model's accuracy on the originals and under each family (one line per model): where
    two lines cross, the family reverses the models' clean ranking."""
    plt = _pyplot()
    columns = ["originals", *by_family]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(columns)), 4.2))
    for model, accuracy in clean.items():
        ys = [accuracy, *(by_family[f].get(model) for f in by_family)]
        ax.plot(range(len(columns)), ys, marker="o", label=model)
    ax.set_xticks(range(len(columns)), columns, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("accuracy (shared cases)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    data = _png(fig)
    plt.close(fig)
    return data
