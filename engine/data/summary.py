"""A summary of every column of a table, as Weka's Preprocess tab shows it: kind, missing
values, distinct values, and each column's distribution by class.

Numeric columns get their range, mean and spread and a histogram; nominal columns their
category counts, most frequent first. With a nominal target, every count is also split by
class. The work is a few passes of numpy over each column's array (float64 values, or the
category codes), so a million rows take well under a second a column; nothing is sampled.
What is capped (the number of bins, the categories listed one by one) is said in the
column's ``note``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.data.table import IGNORED, NOMINAL, NUMERIC, Table
from engine.monitor import checkpoint

#: A numeric column's histogram has at most this many bins (Sturges' rule below it).
MAX_BINS = 20
#: A nominal column lists at most this many categories one by one; the others are summed as one.
MAX_CATEGORIES = 50
#: The name the categories past :data:`MAX_CATEGORIES` are summed under.
OTHERS = "(others)"


@dataclass(frozen=True)
class ColumnSummary:
    """The figures of one column.

    ``counts`` are the bars: one per bin (numeric; ``edges`` has one more entry) or per
    category listed (nominal, most frequent first, ``categories`` naming them).
    ``class_counts[k][c]`` counts the rows of bar ``k`` whose class is ``classes[c]`` (rows
    whose class is missing are in ``counts`` only); it is empty when there are no classes.
    """

    name: str
    kind: str
    n: int
    missing: int
    distinct: int
    is_target: bool = False
    minimum: float = float("nan")
    maximum: float = float("nan")
    mean: float = float("nan")
    std: float = float("nan")
    edges: tuple[float, ...] = ()
    categories: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()
    class_counts: tuple[tuple[int, ...], ...] = ()
    note: str = ""

    @property
    def missing_share(self) -> float:
        return self.missing / self.n if self.n else 0.0

    def as_dict(self, classes: tuple[str, ...] | None) -> dict:
        """The column as the command line's ``--json`` gives it."""
        out = {
            "name": self.name,
            "kind": self.kind,
            "missing": self.missing,
            "missing_share": self.missing_share,
            "distinct": self.distinct,
            "target": self.is_target,
        }
        if self.kind == NUMERIC:
            out.update(
                min=self.minimum,
                max=self.maximum,
                mean=self.mean,
                std=self.std,
                bin_edges=list(self.edges),
                bin_counts=list(self.counts),
            )
            if classes:
                out["bin_counts_by_class"] = [
                    dict(zip(classes, row, strict=True)) for row in self.class_counts
                ]
        elif self.kind == NOMINAL:
            out["counts"] = dict(zip(self.categories, self.counts, strict=True))
            out["counts_by_class"] = (
                {
                    c: dict(zip(classes, row, strict=True))
                    for c, row in zip(self.categories, self.class_counts, strict=True)
                }
                if classes
                else None
            )
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class TableSummary:
    """Every column's :class:`ColumnSummary`, the class labels (None: no nominal target)."""

    n_rows: int
    target: str
    classes: tuple[str, ...] | None
    columns: tuple[ColumnSummary, ...]

    def column(self, name: str) -> ColumnSummary:
        return next(c for c in self.columns if c.name == name)

    def as_dict(self) -> dict:
        return {
            "n_rows": self.n_rows,
            "target": self.target,
            "classes": list(self.classes) if self.classes is not None else None,
            "columns": [c.as_dict(self.classes) for c in self.columns],
        }


def summarize(table: Table) -> TableSummary:
    """Summarise every column of ``table``, its counts split by the classes of its target.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> s = summarize(load_sample("weather"))
    >>> outlook = s.column("outlook")
    >>> outlook.categories, outlook.counts, s.classes
    (('sunny', 'rainy', 'overcast'), (5, 5, 4), ('yes', 'no'))
    >>> outlook.class_counts[0]  # sunny: 2 yes, 3 no
    (2, 3)
    """
    frame = table.frame
    classes, y = class_codes(table)
    columns = []
    for name in frame.columns:
        checkpoint()  # a summary no longer wanted (the table changed again) stops between columns
        columns.append(
            _column(
                frame[name],
                str(name),
                table.kinds[name],
                y,
                0 if classes is None else len(classes),
                name == table.target,
            )
        )
    return TableSummary(len(frame), str(table.target), classes, tuple(columns))


def class_codes(table: Table) -> tuple[tuple[str, ...] | None, np.ndarray | None]:
    """The target's classes and each row's class code (-1: missing); (None, None) when the
    target is not nominal."""
    if table.kinds.get(table.target) != NOMINAL:
        return None, None
    column = table.frame[table.target]
    return tuple(str(c) for c in column.cat.categories), column.cat.codes.to_numpy(np.int64)


def bin_of(values: np.ndarray, edges: tuple[float, ...] | np.ndarray) -> np.ndarray:
    """The bin of each value (-1: missing or outside the edges); the last bin holds its right
    edge, as :func:`numpy.histogram` counts it.

    >>> bin_of(np.array([1.0, 2.0, 3.0, np.nan]), (1.0, 2.0, 3.0)).tolist()
    [0, 1, 1, -1]
    """
    edges = np.asarray(edges, dtype=np.float64)
    k = np.searchsorted(edges, values, side="right") - 1
    k[values == edges[-1]] = len(edges) - 2
    k[(k < 0) | (k > len(edges) - 2) | np.isnan(values)] = -1
    return k


def rows_in_bar(
    table: Table, column: ColumnSummary, bar: int, class_index: int | None = None
) -> np.ndarray:
    """Positions of the rows that bar ``bar`` of ``column`` counts (of class ``class_index``
    when given): what the window shows when a bar is clicked.

    >>> from engine.data.samples import load_sample
    >>> weather = load_sample("weather")
    >>> s = summarize(weather)
    >>> rows_in_bar(weather, s.column("outlook"), 0, class_index=0).tolist()  # sunny and yes
    [8, 10]
    """
    series = table.frame[column.name]
    if column.kind == NUMERIC:
        hit = bin_of(series.to_numpy(np.float64), column.edges) == bar
    else:
        codes, names = _codes(series)
        position = {c: k for k, c in enumerate(names)}
        if column.note and bar == len(column.categories) - 1:  # the categories summed as one
            listed = [position[c] for c in column.categories[:-1]]
            hit = (codes >= 0) & ~np.isin(codes, listed)
        else:
            hit = codes == position.get(column.categories[bar], -2)
    if class_index is not None:
        _, y = class_codes(table)
        if y is not None:
            hit &= y == class_index
    return np.flatnonzero(hit)


def _column(
    series: pd.Series, name: str, kind: str, y: np.ndarray | None, n_classes: int, is_target: bool
) -> ColumnSummary:
    n = len(series)
    missing = int(series.isna().sum())
    if kind == NUMERIC:
        return _numeric(series.to_numpy(np.float64), name, n, missing, y, n_classes, is_target)
    if kind == NOMINAL:
        return _nominal(series, name, n, missing, y, n_classes, is_target)
    return ColumnSummary(
        name,
        IGNORED,
        n,
        missing,
        int(series.nunique(dropna=True)),
        is_target,
        note="ignored: left out of learning",
    )


def _numeric(
    values: np.ndarray, name: str, n: int, missing: int, y, n_classes: int, is_target: bool
) -> ColumnSummary:
    known = values[~np.isnan(values)]
    if not len(known):
        return ColumnSummary(name, NUMERIC, n, missing, 0, is_target)
    distinct = len(pd.unique(known))
    lo, hi = float(known.min()), float(known.max())
    std = float(known.std(ddof=1)) if len(known) > 1 else float("nan")
    bins = min(MAX_BINS, distinct, int(np.ceil(np.log2(len(known)))) + 1)
    edges = np.histogram_bin_edges(known, bins=max(bins, 1), range=(lo, hi))
    k = bin_of(values, edges)
    counts = np.bincount(k[k >= 0], minlength=len(edges) - 1)
    note = ""
    if distinct > bins and bins == MAX_BINS:
        note = f"histogram in {MAX_BINS} bins of equal width"
    return ColumnSummary(
        name,
        NUMERIC,
        n,
        missing,
        distinct,
        is_target,
        minimum=lo,
        maximum=hi,
        mean=float(known.mean()),
        std=std,
        edges=tuple(edges.tolist()),
        counts=tuple(counts.tolist()),
        class_counts=_by_class(k, y, len(edges) - 1, n_classes),
        note=note,
    )


def _nominal(
    series: pd.Series, name: str, n: int, missing: int, y, n_classes: int, is_target: bool
) -> ColumnSummary:
    codes, names = _codes(series)
    counts = np.bincount(codes[codes >= 0], minlength=len(names))
    by_class = np.asarray(_by_class(codes, y, len(names), n_classes), dtype=np.int64)
    order = np.argsort(-counts, kind="stable")  # most frequent first; ties in declared order
    order = order[counts[order] > 0]
    distinct = len(order)
    note = ""
    if distinct > MAX_CATEGORIES:
        shown, rest = order[: MAX_CATEGORIES - 1], order[MAX_CATEGORIES - 1 :]
        note = (
            f"the {MAX_CATEGORIES - 1} most frequent of {distinct} categories are listed; "
            f"the other {len(rest)} are counted together as {OTHERS}"
        )
        cats = (*(names[i] for i in shown), OTHERS)
        bars = np.append(counts[shown], counts[rest].sum())
        rows = (
            np.vstack([by_class[shown], by_class[rest].sum(axis=0, keepdims=True)])
            if n_classes
            else by_class
        )
    else:
        cats, bars = tuple(names[i] for i in order), counts[order]
        rows = by_class[order] if n_classes else by_class
    return ColumnSummary(
        name,
        NOMINAL,
        n,
        missing,
        distinct,
        is_target,
        categories=cats,
        counts=tuple(bars.tolist()),
        class_counts=tuple(tuple(r) for r in np.asarray(rows).tolist()),
        note=note,
    )


def _codes(series: pd.Series) -> tuple[np.ndarray, list[str]]:
    """A nominal column's row codes (-1: missing) and the category each code stands for."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.codes.to_numpy(np.int64), [str(c) for c in series.cat.categories]
    codes, uniques = pd.factorize(series, use_na_sentinel=True)  # a hand-built Table's column
    return codes.astype(np.int64), [str(u) for u in uniques]


def _by_class(bar: np.ndarray, y: np.ndarray | None, n_bars: int, n_classes: int):
    """Rows per bar and class: one bincount over ``bar * n_classes + class``."""
    if y is None or not n_classes:
        return ()
    keep = (bar >= 0) & (y >= 0)
    flat = np.bincount(bar[keep] * n_classes + y[keep], minlength=n_bars * n_classes)
    return tuple(tuple(row) for row in flat.reshape(n_bars, n_classes).tolist())
