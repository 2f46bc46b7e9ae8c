"""Markdown and HTML from the same document (``document.build``): the same headings, paragraphs,
tables and lists in both. Code wraps in HTML; rows below the minimum n are greyed.

>>> from perturber.robustness.document import Code, Section, Table
>>> doc = [Section("R", 1).para("see ", Code("a|b")), Section("T").table(Table("t", ["x"], [["1"]]))]
>>> print(markdown(doc))
# R
<BLANKLINE>
see `a|b`
<BLANKLINE>
## T
<BLANKLINE>
| x |
|---|
| 1 |
<BLANKLINE>
"""

from __future__ import annotations

import base64
import html

from .blocks import Code, Section, Table

_CSS = (
    "body{font-family:sans-serif;margin:2em;max-width:80em}"
    "table{border-collapse:collapse;margin:1em 0;max-width:100%}"
    "td,th{border:1px solid #ccc;padding:.2em .5em;font-size:.9em;vertical-align:top}"
    "code{background:#f4f4f4;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}"
    "tr.small td{color:#999}img{max-width:100%}li{margin:.3em 0}"
)


def _md_inline(part) -> str:
    if isinstance(part, Code):
        text = part.text.replace("\n", " ")
        fence = "``" if "`" in text else "`"
        pad = " " if fence == "``" else ""
        return f"{fence}{pad}{text}{pad}{fence}"
    return part


def _md_cell(cell) -> str:
    parts = cell if isinstance(cell, list) else [cell]
    return "".join(_md_inline(p) for p in parts).replace("|", "\\|").replace("\n", " ")


def _md_table(table: Table) -> list[str]:
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    for i, row in enumerate(table.rows):
        cells = [_md_cell(c) for c in row]
        if i < len(table.muted) and table.muted[i]:
            cells = [f"_{c}_" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    if not table.rows:
        lines.append("| " + " | ".join(["–"] * len(table.columns)) + " |")
    return lines


def markdown(doc: list[Section]) -> str:
    """The document as GitHub-flavoured Markdown."""
    out: list[str] = []
    for section in doc:
        out += ["#" * section.level + " " + section.title, ""]
        for kind, block in section.blocks:
            if kind == "p":
                out += ["".join(_md_inline(p) for p in block), ""]
            elif kind == "table":
                out += [*_md_table(block), ""]
            elif kind == "list":
                out += ["- " + "".join(_md_inline(p) for p in item) for item in block] + [""]
            else:
                out += [f"![{block}]({block}.png)", ""]
    return "\n".join(out)


def _html_inline(part) -> str:
    return f"<code>{html.escape(part.text)}</code>" if isinstance(part, Code) else html.escape(part)


def _html_cell(cell) -> str:
    parts = cell if isinstance(cell, list) else [cell]
    return "".join(_html_inline(p) for p in parts)


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = []
    for i, row in enumerate(table.rows):
        cls = " class='small'" if i < len(table.muted) and table.muted[i] else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>")
    if not table.rows:
        body.append("<tr>" + "<td>–</td>" * len(table.columns) + "</tr>")
    return f"<table id='{html.escape(table.id)}'><tr>{head}</tr>{''.join(body)}</table>"


def to_html(doc: list[Section], images: dict[str, bytes], title: str = "Robustness report") -> str:
    """The document as one self-contained HTML page (``images``: PNGs by name, embedded)."""
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
    ]
    for section in doc:
        parts.append(f"<h{section.level}>{html.escape(section.title)}</h{section.level}>")
        for kind, block in section.blocks:
            if kind == "p":
                parts.append("<p>" + "".join(_html_inline(p) for p in block) + "</p>")
            elif kind == "table":
                parts.append(_html_table(block))
            elif kind == "list":
                items = "".join("<li>" + "".join(_html_inline(p) for p in item) + "</li>" for item in block)
                parts.append(f"<ul>{items}</ul>")
            else:
                data = base64.b64encode(images[block]).decode()
                parts.append(
                    f"<figure><img id='plot-{html.escape(block)}' alt='{html.escape(block)} plot' "
                    f"src='data:image/png;base64,{data}'></figure>"
                )
    parts.append("</body></html>\n")
    return "".join(parts)
