"""Result tables for notebooks: a list of dicts rendered as an HTML table.

pandas is not a dependency of the course, so notebooks that show measured
numbers use `html_table(rows)`, which returns an `IPython.display.HTML` that
Jupyter, Colab and nbconvert all render as a real table (and which prints as
plain text elsewhere). Values are escaped; floats are shown as given by
`formats` or with three decimals. Nothing here computes the numbers.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

__all__ = ["table_html", "html_table"]

_CELL = "padding:3px 10px;border-bottom:1px solid #e6e9ee;"


def _fmt(value, fmt: str | None) -> str:
    if fmt is not None:
        return format(value, fmt)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def table_html(rows: Sequence[Mapping], columns: Sequence[str] | None = None,
               formats: Mapping[str, str] | None = None, caption: str | None = None) -> str:
    """The HTML text of a table with one row per dict (columns: the first row's keys by default).

    Example:
        >>> table_html([{"profile": "paper", "retained": 0.25}])[:7]
        '<table '
    """
    rows = list(rows)
    if not rows or not all(isinstance(r, Mapping) for r in rows):
        raise ValueError("rows must be a non-empty list of dicts")
    columns = list(columns or rows[0])
    formats = dict(formats or {})
    esc = html.escape
    head = "".join(f'<th style="{_CELL}text-align:left">{esc(str(c))}</th>' for c in columns)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{esc(_fmt(r.get(c, ""), formats.get(c)))}</td>' for c in columns) + "</tr>"
        for r in rows)
    cap = f'<caption style="caption-side:top;text-align:left;padding-bottom:4px">{esc(caption)}</caption>' if caption else ""
    return (f'<table style="border-collapse:collapse;font-size:13px">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def html_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None,
               formats: Mapping[str, str] | None = None, caption: str | None = None):
    """`table_html` wrapped for display: `display(html_table(rows))` or as a cell's last line."""
    from IPython.display import HTML

    return HTML(table_html(rows, columns, formats, caption))
