"""PNG plots of a report (matplotlib, Agg backend, imported on first use).

* ``degradation.png``: accuracy vs level (L0..L5), one line per family;
* ``quadrant.png``: each family at (mean magnitude, Stability), with lines at the stability
  threshold and the mean magnitude; quadrants stable / robust / unstable / failure.
"""

from __future__ import annotations

import io

from ..errors import ResourceUnavailable


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


def quadrant(magnitude: float, stability: float, mean_magnitude: float, threshold: float) -> str:
    """``robust`` (strong perturbations, stable), ``stable`` (weak, stable), ``unstable``
    (strong, unstable), ``failure`` (breaks even under weak perturbations).

    >>> quadrant(0.4, 0.9, 0.2, 0.8), quadrant(0.1, 0.5, 0.2, 0.8)
    ('robust', 'failure')
    """
    high_mag = magnitude > mean_magnitude
    if stability >= threshold:
        return "robust" if high_mag else "stable"
    return "unstable" if high_mag else "failure"


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def degradation_png(series: dict[str, dict[int, float]], title: str = "Accuracy by level") -> bytes:
    """``series``: family -> {level: accuracy} (levels without tests absent)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for family, points in series.items():
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], marker="o", label=family)
    ax.set_xticks(range(6), [f"L{k}" for k in range(6)])
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("severity level (L0 = unperturbed baseline)")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="lower left")
    data = _png(fig)
    plt.close(fig)
    return data


def quadrant_png(points: dict[str, tuple[float, float]], threshold: float) -> bytes:
    """``points``: family -> (mean magnitude, Stability)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.6))
    mags = [m for m, _ in points.values()]
    mean_mag = sum(mags) / len(mags) if mags else 0.0
    for family, (m, s) in points.items():
        ax.scatter([m], [s], s=40)
        ax.annotate(family, (m, s), fontsize=7, xytext=(4, 3), textcoords="offset points")
    ax.axhline(threshold, color="grey", linestyle="--", linewidth=1)
    ax.axvline(mean_mag, color="grey", linestyle=":", linewidth=1)
    right = max([*mags, mean_mag * 2, 0.1]) * 1.1
    ax.set_xlim(0, right)
    ax.set_ylim(-0.03, 1.05)
    for x, y, label in (
        (0.01, 1.0, "stable"),
        (right * 0.99, 1.0, "robust"),
        (0.01, 0.02, "failure"),
        (right * 0.99, 0.02, "unstable"),
    ):
        ax.text(
            x,
            y,
            label,
            ha="left" if x < right / 2 else "right",
            va="top" if y > 0.5 else "bottom",
            fontsize=9,
            color="dimgray",
        )
    ax.set_xlabel("mean magnitude")
    ax.set_ylabel("Stability")
    ax.set_title("Magnitude - stability quadrants")
    data = _png(fig)
    plt.close(fig)
    return data
