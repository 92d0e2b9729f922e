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
    quick = _arrow_numbers(text)
    if quick is not None:
        return quick
    return pd.to_numeric(text, errors="raise").astype("float64")


def _arrow_numbers(text: pd.Series) -> pd.Series | None:
    """Arrow's parse of a text column (about 4x quicker); None when it refuses a cell.

    pandas' own parse then decides, with the same answer on everything Arrow accepts.
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        numbers = pc.cast(pa.array(text, from_pandas=True), pa.float64()).to_numpy(zero_copy_only=False)
    except Exception:  # noqa: BLE001 - not parseable by Arrow, or no Arrow-backed strings
        return None
    return pd.Series(numbers, index=text.index, name=text.name, dtype="float64")


def _distinct_texts(values: pd.Series) -> tuple[np.ndarray, list]:
    """Row codes (-1 missing) and the cleaned text of each distinct value, in order of appearance.

    Cleaning runs once per distinct value, not per cell: a million-row column of a few
    categories costs one factorize.
    """
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    texts = [_cell_text(u) for u in uniques]
    return codes, [None if t in MISSING_TOKENS else t for t in texts]


def _as_nominal(values: pd.Series, categories: Iterable[str] | None = None) -> pd.Series:
    if isinstance(values.dtype, pd.CategoricalDtype) and categories is None:
        # The categories were chosen already (an ARFF header, a typed table): kept as they are.
        cats = [str(c) for c in values.cat.categories]
        return pd.Series(pd.Categorical.from_codes(values.cat.codes.to_numpy(), categories=cats),
                         index=values.index, name=values.name)
    codes, texts = _distinct_texts(values)
    if categories is None:
        categories = list(dict.fromkeys(t for t in texts if t is not None))
    else:
        categories = list(categories)
    position = {c: k for k, c in enumerate(categories)}
    remap = np.array([position.get(t, -1) if t is not None else -1 for t in texts] + [-1], dtype=np.int64)
    return pd.Series(pd.Categorical.from_codes(remap[codes], categories=categories),
                     index=values.index, name=values.name)


def _bool_text(value: bool, categories: Iterable[str] | None) -> str:
    """A boolean as text: the spelling a declared category gives it (``true``, ``True``...),
    else Arbor's own (``TRUE``/``FALSE``, as :func:`_cell_text` writes it)."""
    word = "true" if value else "false"
    return next((c for c in categories or () if c.lower() == word), word.upper())


def declared_nominal(values: pd.Series, categories: Iterable[str] | None = None,
                     ) -> tuple[pd.Series, list[str], int]:
    """``values`` as a nominal column of exactly the ``categories`` a file declares.

    A cell is the category it spells exactly (``" a"`` or ``"NA"`` when declared so), else
    the one it spells after the cleaning :func:`make_table` applies (stripped, ``1.0`` as
    ``1``); a missing token is missing. A boolean is spelled as a declared category does, and
    is never merged with the number 1. Returns the column, the distinct cells that are
    neither a category nor missing (shown as text, in order of appearance) and how many
    cells hold them: what :func:`make_table` would have turned into missing values silently.
    With no ``categories``, they are the cells' texts in order of appearance.
    """
    declared = None if categories is None else [str(c) for c in categories]
    if values.dtype == object:  # True == 1 for pandas' hashing: spell booleans first
        values = pd.Series([_bool_text(v, declared) if isinstance(v, bool | np.bool_) else v
                            for v in values], index=values.index, name=values.name, dtype=object)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    position = {c: k for k, c in enumerate(declared or ())}
    texts: list[str | None] = []
    stray: list[int] = []
    for k, value in enumerate(uniques):
        if isinstance(value, bool | np.bool_):
            exact = clean = _bool_text(bool(value), declared)
        else:
            exact, clean = (value if isinstance(value, str) else str(value)), _cell_text(value)
        if exact in position:
            texts.append(exact)
        elif clean in MISSING_TOKENS:
            texts.append(None)
        elif declared is None or clean in position:
            texts.append(clean)
        else:
            texts.append(None)
            stray.append(k)
    if declared is None:
        declared = list(dict.fromkeys(t for t in texts if t is not None))
        position = {c: k for k, c in enumerate(declared)}
    remap = np.array([-1 if t is None else position[t] for t in texts] + [-1], dtype=np.int64)
    column = pd.Series(pd.Categorical.from_codes(remap[codes], categories=declared),
                       index=values.index, name=values.name)
    count = int(np.isin(codes, stray).sum()) if stray else 0
    return column, [str(uniques[k]) for k in stray], count


def _cell_text(value) -> str:
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _inferred(values: pd.Series) -> tuple[str, pd.Series | None]:
    """The kind, with the numbers when numeric (so a column is converted once, not twice)."""
    if isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(values):
        return NOMINAL, None
    try:
        converted = _as_number(values)
    except (ValueError, TypeError):
        return NOMINAL, None
    if converted.notna().any() or pd.api.types.is_numeric_dtype(values):
        return NUMERIC, converted
    return NOMINAL, None


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
        numbers = None
        kind = kinds.get(name)
        if not kind:
            kind, numbers = _inferred(frame[name])
        if kind == NOMINAL and name not in kinds:
            stray = _stray_text(frame[name])
            if stray is not None:
                notes.append(f"column {name!r} is mostly numbers but has text such as {stray!r}, "
                             "so it was read as nominal (fix the value, or set the column numeric)")
        if kind not in KINDS:
            raise ArborError(f"unknown kind {kind!r} for column {name!r}; use one of {', '.join(KINDS)}")
        if kind == NUMERIC:
            try:
                converted = _as_number(frame[name]) if numbers is None else numbers
            except (ValueError, TypeError):
                bad = _first_non_number(frame[name])
                raise ArborError(
                    f"column {name!r} cannot be numeric: value {bad!r} is not a number "
                    f"(make the column nominal, or fix the value)") from None
            _check_finite(frame[name], converted, name)
            frame[name] = converted
        elif kind == NOMINAL:
            frame[name] = _as_nominal(frame[name], categories.get(name))
        out_kinds[name] = kind
    target = names[-1] if target is None else str(target)
    _check_column(frame, target, "target")
    if out_kinds[target] == IGNORED:
        raise ArborError(f"the target {target!r} is marked ignored")
    frame = _with_numeric_block(frame, [n for n in names if out_kinds[n] == NUMERIC])
    return Table(frame, MappingProxyType(out_kinds), target, source, tuple(notes))


def _check_finite(original: pd.Series, numbers: pd.Series, name: str) -> None:
    """Refuse infinity (``1e400``, ``Infinity``...): no threshold or mean can be made of it,
    and JSON cannot store it, so it must not pass as a number unnoticed."""
    values = numbers.to_numpy()
    infinite = np.isinf(values)
    if infinite.any():
        row = int(np.argmax(infinite))
        raise ArborError(
            f"column {name!r} has an infinite value in row {row + 1} ({original.iloc[row]!r}); "
            "Arbor needs finite numbers (fix the value, or make the column nominal)")


def _with_numeric_block(frame: pd.DataFrame, numeric: list[str]) -> pd.DataFrame:
    """``frame`` with its numeric columns side by side in one column-major float64 block.

    Encoding a table whose attributes are all numeric then shares that block instead of
    copying it (:func:`engine.data.encoding.shared_matrix`): on a million-row table the copy
    was most of a fit's memory.
    """
    if len(numeric) < 2:
        return frame
    block = np.empty((len(frame), len(numeric)), dtype=np.float64, order="F")
    for j, name in enumerate(numeric):
        block[:, j] = frame[name].to_numpy(dtype=np.float64)
    numbers = pd.DataFrame(block, columns=numeric, index=frame.index, copy=False)
    # Selecting the columns back into table order slices the block; it does not copy it.
    return pd.concat([numbers, frame.drop(columns=numeric)], axis=1)[list(frame.columns)]


def _stray_text(values: pd.Series) -> str | None:
    """The first non-number in a column that is at least 90% numbers, else None."""
    if isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_numeric_dtype(values):
        return None
    codes, texts = _distinct_texts(values)
    counts = np.bincount(codes[codes >= 0], minlength=len(texts))
    present = np.array([t is not None for t in texts], dtype=bool)
    if counts[present].sum() < 5:
        return None
    numbers = pd.to_numeric(pd.Series([t if t is not None else "" for t in texts], dtype=object),
                            errors="coerce").notna().to_numpy()
    numeric_rows = counts[present & numbers].sum()
    if numeric_rows >= 0.9 * counts[present].sum() and (present & ~numbers).any():
        return str(texts[int(np.flatnonzero(present & ~numbers)[0])])
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
