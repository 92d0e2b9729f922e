"""The columns of an array or a data frame a caller hands in, as the learners see them.

What :mod:`engine.sklearn` encodes ``X`` with (no scikit-learn needed here). A column is
nominal when its dtype says so (pandas ``category``, ``object``, ``string``, ``bool``), when
a numpy column holds text, or when the caller names it; its categories are the dtype's
declared ones, else the distinct values sorted. Everything else is numeric. Missing values
(NaN, None) and categories not seen when the columns were described become NaN. Bad
input raises ``ValueError`` with scikit-learn's wording, as its callers expect.

>>> column = describe("colour", pd.Series(["red", "blue", None, "red"]), nominal=False)
>>> column.nominal, column.categories, encode_column(column, np.array(["blue", "green"])).tolist()
(True, ('blue', 'red'), [0.0, nan])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.data.encoding import Attribute
from engine.data.table import NOMINAL, NUMERIC


@dataclass(frozen=True)
class Column:
    """How one input column is encoded: numeric, or nominal with its categories."""

    name: str
    nominal: bool
    categories: tuple[str, ...] = ()

    def attribute(self) -> Attribute:
        return Attribute(self.name, NOMINAL if self.nominal else NUMERIC, self.categories)


def category_name(value) -> str:
    """A category's name: numbers without a trailing .0, everything else as ``str`` gives it."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _is_nominal_dtype(col) -> bool:
    dtype = col.dtype
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def _as_numbers(col) -> np.ndarray | None:
    """A column's values as float64, or None when some present value is not a number."""
    if isinstance(col, pd.Series):
        col = col.to_numpy(dtype=object) if _is_nominal_dtype(col) else col.to_numpy()
    if col.dtype.kind in "biuf":
        return col.astype(np.float64)
    if col.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    numbers = pd.to_numeric(pd.Series(col, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64
    )
    return numbers if not (np.isnan(numbers) & ~pd.isna(col)).any() else None


def _factorize(col) -> tuple[np.ndarray, list]:
    """Codes (-1 missing) and the distinct values; values no hash takes are keyed by text."""
    values = (
        col.to_numpy(dtype=object) if isinstance(col, pd.Series) else np.asarray(col, dtype=object)
    )
    try:
        return pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # e.g. a dict among the values
        missing = pd.isna(values)
        texts = np.array(
            [None if m else category_name(v) for v, m in zip(values, missing, strict=True)],
            dtype=object,
        )
        return pd.factorize(texts, use_na_sentinel=True)


def describe(name: str, col, nominal: bool) -> Column:
    """How to encode a training column: its kind and, if nominal, its categories."""
    if not nominal and isinstance(col, pd.Series) and _is_nominal_dtype(col):
        nominal = True
    if not nominal and _as_numbers(col) is None:
        nominal = True  # text among the values
    if not nominal:
        return Column(name, False)
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        categories = [category_name(c) for c in col.cat.categories]
    else:
        _, uniques = _factorize(col)
        try:
            uniques = sorted(uniques)
        except TypeError:  # values of kinds that do not compare: sorted by their text
            uniques = sorted(uniques, key=category_name)
        categories = [category_name(u) for u in uniques]
    return Column(name, True, tuple(dict.fromkeys(categories)))


def encode_column(column: Column, col) -> np.ndarray:
    """One column as floats: numbers, or category codes (NaN: missing or unseen)."""
    if not column.nominal:
        numbers = _as_numbers(col)
        if numbers is None:
            raise ValueError(f"feature {column.name!r} was numeric in training but holds text")
        if np.isinf(numbers).any():
            raise ValueError("Input X contains infinity or a value too large for dtype('float64').")
        return numbers
    codes, uniques = _factorize(col)
    position = {c: float(k) for k, c in enumerate(column.categories)}
    per_value = np.array([position.get(category_name(u), np.nan) for u in uniques] + [np.nan])
    return per_value[codes]
