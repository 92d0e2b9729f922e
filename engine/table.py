"""A loaded data table: the frame, each column's kind, and the target.

Conventions every part of Arbor relies on:

* a *nominal* column is a pandas ``Categorical`` whose categories are strings in
  their declared order (ARFF header order, else order of first appearance); the
  order decides ties ("the class that comes first");
* a *numeric* column is ``float64``;
* an *ignored* column is kept in the frame as loaded but never used to learn;
* a missing value is ``NaN`` in either kind, never dropped or invented.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np
import pandas as pd

from engine.errors import ArborError

NOMINAL, NUMERIC, IGNORED = "nominal", "numeric", "ignored"
KINDS = (NOMINAL, NUMERIC, IGNORED)

#: Cell texts read as "missing". "None" is deliberately absent: it is a real
#: value in the restaurant table (Patrons = None).
MISSING_TOKENS = frozenset({"", "?", "NA", "N/A", "NaN", "nan"})


@dataclass(frozen=True)
class Table:
    """A frame plus per-column kinds and the target column.

    Build one with :func:`make_table` (which normalises dtypes) rather than
    directly.
    """

    frame: pd.DataFrame
    kinds: Mapping[str, str]
    target: str
    source: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def attributes(self) -> list[str]:
        """The columns a learner may split on, in table order."""
        return [c for c in self.frame.columns if c != self.target and self.kinds[c] != IGNORED]

    def with_target(self, target: str) -> Table:
        _check_column(self.frame, target, "target")
        return replace(self, target=target)

    def with_kinds(self, **overrides: str) -> Table:
        """A copy with some columns' kinds changed (values converted accordingly)."""
        return make_table(self.frame, target=self.target, kinds={**self.kinds, **overrides},
                          source=self.source)


def _check_column(frame: pd.DataFrame, name: str, role: str) -> None:
    if name not in frame.columns:
        known = ", ".join(map(str, frame.columns[:12]))
        raise ArborError(f"unknown {role} column {name!r}; the table has: {known}")


def _as_number(values: pd.Series) -> pd.Series:
    """Numeric conversion where missing tokens become NaN and anything else must parse."""
    if pd.api.types.is_bool_dtype(values):
        raise ValueError("booleans are nominal")
    if pd.api.types.is_numeric_dtype(values):
        return values.astype("float64")
    text = values.astype("string").str.strip()
    text = text.mask(text.isin(MISSING_TOKENS))
    return pd.to_numeric(text, errors="raise").astype("float64")


def _as_nominal(values: pd.Series, categories: Iterable[str] | None = None) -> pd.Series:
    if isinstance(values.dtype, pd.CategoricalDtype) and categories is None:
        cats = [str(c) for c in values.cat.categories]
        return pd.Series(pd.Categorical(values.astype("object").map(
            lambda v: v if pd.isna(v) else str(v)), categories=cats), index=values.index,
            name=values.name)
    text = values.map(_cell_text, na_action="ignore").astype("object")
    text = text.where(~text.isin(MISSING_TOKENS) & text.notna(), np.nan)
    if categories is None:
        categories = pd.unique(text.dropna())
    return pd.Series(pd.Categorical(text, categories=list(categories)), index=values.index,
                     name=values.name)


def _cell_text(value) -> str:
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def infer_kind(values: pd.Series) -> str:
    """numbers -> numeric; text, booleans and categoricals -> nominal."""
    if isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(values):
        return NOMINAL
    try:
        converted = _as_number(values)
    except (ValueError, TypeError):
        return NOMINAL
    return NUMERIC if converted.notna().any() or pd.api.types.is_numeric_dtype(values) else NOMINAL


def make_table(
    frame: pd.DataFrame,
    target: str | None = None,
    kinds: Mapping[str, str] | None = None,
    source: str | None = None,
    categories: Mapping[str, Iterable[str]] | None = None,
    notes: Iterable[str] = (),
) -> Table:
    """Normalise ``frame`` into a :class:`Table`.

    ``kinds`` overrides inferred kinds per column; ``categories`` fixes the value
    order of nominal columns. The caller's frame is never modified.

    Examples
    --------
    >>> t = make_table(pd.DataFrame({"x": ["1", "2", "?"], "y": ["a", "b", "a"]}))
    >>> dict(t.kinds), t.target, t.frame["x"].isna().tolist()
    ({'x': 'numeric', 'y': 'nominal'}, 'y', [False, False, True])
    """
    if frame.shape[1] == 0:
        raise ArborError("the table has no columns")
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise ArborError(f"duplicate column names: {', '.join(dupes)}")
    frame = frame.copy()
    frame.columns = names
    kinds = dict(kinds or {})
    categories = dict(categories or {})
    unknown = [c for c in kinds if c not in frame.columns]
    if unknown:
        raise ArborError(f"unknown column(s) {', '.join(map(repr, unknown))} in kind overrides")
    out_kinds: dict[str, str] = {}
    notes = list(notes)
    for name in names:
        kind = kinds.get(name) or infer_kind(frame[name])
        if kind == NOMINAL and name not in kinds:
            stray = _stray_text(frame[name])
            if stray is not None:
                notes.append(f"column {name!r} is mostly numbers but has text such as {stray!r}, "
                             "so it was read as nominal (fix the value, or set the column numeric)")
        if kind not in KINDS:
            raise ArborError(f"unknown kind {kind!r} for column {name!r}; use one of {', '.join(KINDS)}")
        if kind == NUMERIC:
            try:
                frame[name] = _as_number(frame[name])
            except (ValueError, TypeError):
                bad = _first_non_number(frame[name])
                raise ArborError(
                    f"column {name!r} cannot be numeric: value {bad!r} is not a number "
                    f"(make the column nominal, or fix the value)") from None
        elif kind == NOMINAL:
            frame[name] = _as_nominal(frame[name], categories.get(name))
        out_kinds[name] = kind
    target = names[-1] if target is None else str(target)
    _check_column(frame, target, "target")
    if out_kinds[target] == IGNORED:
        raise ArborError(f"the target {target!r} is marked ignored")
    return Table(frame, MappingProxyType(out_kinds), target, source, tuple(notes))


def _stray_text(values: pd.Series) -> str | None:
    """The first non-number in a column that is at least 90% numbers, else None."""
    if isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_numeric_dtype(values):
        return None
    text = values.dropna().astype(str).str.strip()
    text = text[~text.isin(MISSING_TOKENS)]
    if len(text) < 5:
        return None
    numbers = pd.to_numeric(text, errors="coerce")
    if numbers.notna().mean() >= 0.9 and numbers.isna().any():
        return str(text[numbers.isna()].iloc[0])
    return None


def _first_non_number(values: pd.Series) -> str:
    for v in values:
        if pd.isna(v):
            continue
        s = str(v).strip()
        if s in MISSING_TOKENS:
            continue
        try:
            float(s)
        except ValueError:
            return s
    return "?"
