"""The blocks a document is made of: sections of paragraphs, tables, bullet lists and images, and
the number formats every report uses; ``render`` turns them into Markdown and HTML.

>>> Section("T").para("n = ", Code("3")).blocks
[('p', ['n = ', Code(text='3')])]
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Code:
    """Inline code (a diff, an answer, an id)."""

    text: str


Inline = str | Code
Cell = str | Code | list[Inline]


@dataclass
class Table:
    id: str
    columns: list[str]
    rows: list[list[Cell]]
    muted: list[bool] = field(default_factory=list)  # per row: a cell below the minimum n


@dataclass
class Section:
    """A heading (``level`` 1-3) and its blocks: paragraphs (lists of inlines), tables, bullet
    lists (lists of lists of inlines) and images (names of the report's PNG files)."""

    title: str
    level: int = 2
    blocks: list = field(default_factory=list)

    def para(self, *parts: Inline) -> Section:
        self.blocks.append(("p", list(parts)))
        return self

    def table(self, table: Table) -> Section:
        self.blocks.append(("table", table))
        return self

    def bullets(self, items: list[list[Inline]]) -> Section:
        self.blocks.append(("list", items))
        return self

    def image(self, name: str) -> Section:
        self.blocks.append(("image", name))
        return self


def num(x: float | None, digits: int = 3) -> str:
    """``0.123``; ``–`` for a missing value."""
    return "–" if x is None else f"{x:.{digits}f}"


def with_ci(x: float | None, ci: list | None, digits: int = 3) -> str:
    """``0.512 [0.480, 0.544]``.

    >>> with_ci(0.5, [0.4, 0.6]), with_ci(None, None)
    ('0.500 [0.400, 0.600]', '–')
    """
    if x is None:
        return "–"
    return f"{x:.{digits}f}" + (f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "")


def p_value(p: float | None) -> str:
    """``0.0123``, ``<1e-6``, ``–``."""
    if p is None:
        return "–"
    return "<1e-6" if p < 1e-6 else f"{p:.2g}" if p < 0.001 else f"{p:.4f}"
