"""The fidelity figure: per family, median embedding similarity against median magnitude."""

from __future__ import annotations


def figure(families: dict, control: dict, path) -> str | None:
    """PNG: per family, median embedding similarity vs median magnitude."""
    points = {
        f: s
        for f, s in families.items()
        if s["cosine_median"] is not None and s["magnitude_median"] is not None
    }
    if not points:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    for name, s in points.items():
        ax.scatter(s["magnitude_median"], s["cosine_median"], color="tab:blue")
        ax.annotate(
            name,
            (s["magnitude_median"], s["cosine_median"]),
            fontsize=8,
            xytext=(4, 3),
            textcoords="offset points",
        )
    if control.get("cosine_median") is not None:
        ax.scatter(
            control["magnitude_median"],
            control["cosine_median"],
            color="tab:red",
            marker="x",
            label="negative control (out of scope / directional)",
        )
        ax.legend(loc="lower left", fontsize=8)
    ax.set_xlabel("median magnitude (1 - difflib ratio), applied outputs")
    ax.set_ylabel("median cosine similarity (all-MiniLM-L6-v2)")
    ax.set_title("Fidelity per family (in-scope invariant entries)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path.name
