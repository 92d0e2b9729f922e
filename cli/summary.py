"""``summary DATA``: every column's figures (engine.data.summary), as JSON or as text."""

from __future__ import annotations

from engine.data.summary import ColumnSummary, summarize
from engine.data.table import NOMINAL, NUMERIC, Table


def summary_command(table: Table):
    s = summarize(table)
    classes = s.classes
    by = f"by {s.target}" if classes else "(no class target: counts only)"
    lines = [f"{s.n_rows:,} rows, {len(s.columns)} columns; target {s.target}", ""]
    name_w = max(len("column"), *(len(c.name) + 2 for c in s.columns)) + 2
    lines.append(
        f"{'column':<{name_w}}{'kind':<9}{'missing':>13}{'distinct':>10}  "
        f"{'min':>10}{'max':>10}{'mean':>10}{'std':>10}  most frequent"
    )
    for c in s.columns:
        name = f"{c.name} *" if c.is_target else c.name
        missing = f"{c.missing} ({100 * c.missing_share:.0f}%)"
        row = f"{name:<{name_w}}{c.kind:<9}{missing:>13}{c.distinct:>10}  "
        if c.kind == NUMERIC:
            row += "".join(f"{_number(v):>10}" for v in (c.minimum, c.maximum, c.mean, c.std))
        else:
            row += " " * 40
            if c.kind == NOMINAL:
                row += "  " + ", ".join(
                    f"{k} {n}" for k, n in zip(c.categories[:3], c.counts[:3], strict=True)
                )
        lines.append(row.rstrip())
    lines += ["* the target", ""]
    for c in s.columns:
        if c.kind in (NOMINAL, NUMERIC) and not (c.is_target and classes):  # shown above
            lines += [f"{c.name} {by}", *_bars(c, classes), ""]
    return s.as_dict(), "\n".join(lines).rstrip()


def _bars(c: ColumnSummary, classes) -> list[str]:
    """One line per bar: its category or bin, its rows, and its rows per class."""
    if c.kind == NUMERIC:
        last = len(c.counts) - 1
        labels = [
            f"[{_number(a)}, {_number(b)}{']' if k == last else ')'}"
            for k, (a, b) in enumerate(zip(c.edges, c.edges[1:], strict=False))
        ]
    else:
        labels = list(c.categories)
    if not labels:
        return ["  (no values)"]
    width = max(len(t) for t in labels) + 4
    out = []
    for k, (label, n) in enumerate(zip(labels, c.counts, strict=True)):
        split = ""
        if classes:
            split = "  " + "  ".join(
                f"{cls} {m}" for cls, m in zip(classes, c.class_counts[k], strict=True)
            )
        out.append(f"  {label:<{width}}{n:>8}{split}")
    if c.note:
        out.append(f"  Note: {c.note}")
    return out


def _number(value: float) -> str:
    return "?" if value != value else f"{value:.4g}"
