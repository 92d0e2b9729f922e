"""Turning a table into the numpy arrays the learners work on, in one place.

Every attribute becomes one float64 column of ``X``: numeric values as they are,
nominal values as their category code (0, 1, ...), missing as NaN. The target
becomes integer class codes (classification) or floats (regression).

``X`` is read-only. When every attribute is numeric it is a view of the table's
numeric block rather than a copy; tables are never changed in place (the window
edits its own copy and makes a new table to train on), so the view stays valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from engine.data.order import remember_origin
from engine.data.table import (
    IGNORED,
    MAX_ATTRIBUTE_MAGNITUDE,
    NOMINAL,
    NUMERIC,
    Table,
    first_where,
    make_table,
)
from engine.errors import ArborError
from engine.monitor import checkpoint

#: More classes than this is almost always a wrongly chosen target (an id, a free-text column).
MAX_CLASSES = 500


@dataclass(frozen=True)
class Attribute:
    """One input column as the learners see it."""

    name: str
    kind: str
    categories: tuple[str, ...] = ()

    @property
    def is_nominal(self) -> bool:
        return self.kind == NOMINAL


@dataclass(frozen=True)
class Schema:
    """What a tree was trained on: its attributes, target and (for classification) classes."""

    attributes: tuple[Attribute, ...]
    target: str
    classes: tuple[str, ...] | None

    @property
    def is_regression(self) -> bool:
        return self.classes is None

    def attribute_index(self, name: str) -> int:
        for i, a in enumerate(self.attributes):
            if a.name == name:
                return i
        raise ArborError(f"unknown attribute {name!r}")


@dataclass(frozen=True, eq=False)
class Encoded:
    """A training set as arrays. ``X`` is column-major so a column is contiguous."""

    schema: Schema
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    notes: tuple[str, ...] = ()
    #: Where, among the table's rows, those left out for a missing target were (None: none,
    #: or not known). Weka deals its cross-validation folds over every row, these included.
    unlabelled: np.ndarray | None = None
    #: The attributes known to have no missing value (:attr:`Table.complete`), which a fit
    #: need not look over for them. Not an argument: arrays given by ``replace`` have none.
    complete: frozenset[str] = field(default=frozenset(), init=False)

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]


def as_table(
    data: Table | pd.DataFrame, target: str | None, kinds: Mapping[str, str] | None = None
) -> Table:
    """Accept either a Table or a plain frame (+ target and optional kind overrides)."""
    if isinstance(data, Table):
        table = data
        if target is not None and target != table.target:
            table = table.with_target(target)
        return table.with_kinds(**kinds) if kinds else table
    if not isinstance(data, pd.DataFrame):
        raise ArborError(f"expected a pandas DataFrame or a Table, got {type(data).__name__}")
    return make_table(data, target=target, kinds=kinds)


def encode_columns(frame: pd.DataFrame, attributes: Sequence[Attribute]) -> np.ndarray:
    """Encode ``frame``'s columns against a fixed schema; unseen categories become missing."""
    X = np.empty((len(frame), len(attributes)), dtype=np.float64, order="F")
    dtypes = dict(zip(frame.columns, frame.dtypes, strict=False))
    # Code of each category of a column's dtype, by (schema's categories, dtype): the columns
    # of a wide table mostly share a few of each, and a lookup per column took seconds.
    per_category: dict[tuple[tuple[str, ...], int], np.ndarray] = {}
    for attr in attributes:
        if attr.name not in dtypes:
            raise ArborError(f"the data has no column {attr.name!r}, which the model needs")
    floats = [
        j for j, a in enumerate(attributes) if not a.is_nominal and dtypes[a.name] == np.float64
    ]
    if floats:  # numbers as they are, all at once (make_table keeps them in one block)
        X[:, floats] = frame[[attributes[j].name for j in floats]].to_numpy(dtype=np.float64)
    for j, attr in enumerate(attributes):
        if not attr.is_nominal and dtypes[attr.name] == np.float64:
            continue
        col = frame[attr.name]
        if attr.is_nominal:
            dtype = dtypes[attr.name]
            if isinstance(dtype, pd.CategoricalDtype):
                # Map the (few) categories, then broadcast through the codes.
                key = (attr.categories, id(dtype))
                if key not in per_category:
                    lookup = category_lookup(attr.categories)
                    per_category[key] = np.array(
                        [_code(lookup, c) for c in dtype.categories] + [np.nan]
                    )
                X[:, j] = per_category[key][col.cat.codes.to_numpy()]
            else:
                lookup = category_lookup(attr.categories)
                codes, uniques = pd.factorize(col.astype("object"), use_na_sentinel=True)
                per_value = np.array([_code(lookup, v) for v in uniques] + [np.nan])
                X[:, j] = per_value[codes]
        else:
            try:
                X[:, j] = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64)
            except (ValueError, TypeError):
                X[:, j] = _lenient_numbers(col, attr.name)
    return X


def category_lookup(categories: Sequence[str]) -> dict[str, float]:
    """Code of each category by its exact name, and by its name without surrounding spaces.

    An exact match wins: an ARFF value declared as ``' x '`` (quoted, spaces kept, as Weka
    keeps them) is its own category, while a cell typed ``x`` or `` x`` in a CSV still
    finds a category ``x``.
    """
    lookup = {c.strip(): float(i) for i, c in reversed(list(enumerate(categories)))}
    lookup.update((c, float(i)) for i, c in enumerate(categories))
    return lookup


def _code(lookup: dict[str, float], value) -> float:
    if pd.isna(value):
        return np.nan
    text = str(value)
    code = lookup.get(text)
    return lookup.get(text.strip(), np.nan) if code is None else code


def shared_matrix(frame: pd.DataFrame, attributes: Sequence[Attribute]) -> np.ndarray | None:
    """The attributes' columns as one read-only column-major matrix sharing the frame's memory.

    Possible when every attribute is a float64 column and the columns lie evenly spaced in
    one buffer, as :func:`engine.data.table.make_table` stores numeric columns; None otherwise.
    """
    if not attributes or any(a.is_nominal or a.name not in frame.columns for a in attributes):
        return None
    columns = [frame[a.name].to_numpy() for a in attributes]
    n = len(frame)
    if n == 0 or any(c.dtype != np.float64 or c.ndim != 1 or c.strides != (8,) for c in columns):
        return None
    owner = _owner(columns[0])
    if owner is None or any(_owner(c) is not owner for c in columns[1:]):
        return None
    start = [c.ctypes.data for c in columns]
    step = start[1] - start[0] if len(columns) > 1 else n * 8
    if step < n * 8 or any(b - a != step for a, b in zip(start, start[1:], strict=False)):
        return None
    low, high = owner.ctypes.data, owner.ctypes.data + owner.nbytes
    if start[0] < low or start[-1] + n * 8 > high:
        return None
    return np.lib.stride_tricks.as_strided(
        columns[0], shape=(n, len(columns)), strides=(8, step), writeable=False
    )


def _owner(array: np.ndarray) -> np.ndarray | None:
    """The contiguous array that owns ``array``'s memory, if it is one."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array if array.flags.c_contiguous or array.flags.f_contiguous else None


def _lenient_numbers(col: pd.Series, name: str) -> np.ndarray:
    numbers = pd.to_numeric(
        col.astype("string").str.strip().replace({"?": None, "": None}), errors="coerce"
    )
    bad = col[numbers.isna() & col.notna() & ~col.astype("string").str.strip().isin(["?", ""])]
    if len(bad):
        raise ArborError(f"column {name!r} must be numeric, but has the value {bad.iloc[0]!r}")
    return numbers.to_numpy(dtype=np.float64)


def encode(table: Table, task: str = "classification") -> Encoded:
    """Encode a table for learning.

    Rows whose target is missing cannot teach anything; they are left out and
    the returned ``notes`` say how many.

    Examples
    --------
    >>> from engine.data.table import make_table
    >>> t = make_table(pd.DataFrame({"a": ["x", "y", None], "c": ["p", "q", "p"]}))
    >>> e = encode(t)
    >>> e.X[:, 0].tolist(), e.y.tolist(), e.schema.classes
    ([0.0, 1.0, nan], [0, 1, 0], ('p', 'q'))
    """
    frame, target = table.frame, table.target
    names = table.attributes
    dtypes = dict(zip(frame.columns, frame.dtypes, strict=True))
    attributes = tuple(
        Attribute(
            n, table.kinds[n], tuple(dtypes[n].categories) if table.kinds[n] == NOMINAL else ()
        )
        for n in names
    )
    notes: list[str] = list(table.notes)
    if len(frame) == 0:
        raise ArborError("there are no rows to learn from: the table is empty")
    y_col = frame[target]
    # (A target the table found complete is not looked over again: 0.6 ms a million rows.)
    keep = np.ones(len(frame), bool) if target in table.complete else y_col.notna().to_numpy()
    if not keep.all():
        notes.append(f"{int((~keep).sum())} row(s) with a missing target were left out")
    if not keep.any():
        raise ArborError(f"the target {target!r} has no values: every row is missing it")
    if task == "regression":
        if table.kinds[target] != NUMERIC:
            raise ArborError(
                f"regression needs a numeric target, but {target!r} is nominal "
                "(use classification, or make the column numeric)"
            )
        # Its own copy either way (the kernels take a writable target); a mask that keeps every
        # row copied at a third of the speed.
        y = y_col.to_numpy(dtype=np.float64, copy=True)
        y = y if keep.all() else y[keep]
        _refuse_huge_target(y, target)
        classes = None
    else:
        if table.kinds[target] != NOMINAL:
            raise ArborError(
                f"classification needs a nominal target, but {target!r} is numeric "
                "(make the column nominal, or use --task regression)"
            )
        codes = y_col.cat.codes.to_numpy()[keep]
        classes = tuple(str(c) for c in y_col.cat.categories)
        # The rows kept can hold no more values than the categories: the sort only then.
        if len(classes) > MAX_CLASSES and len(np.unique(codes)) > MAX_CLASSES:
            raise ArborError(
                f"the target {target!r} has {len(np.unique(codes))} different values; a classification "
                f"tree needs at most {MAX_CLASSES} (is it an identifier? choose another target, or use "
                "regression for a numeric target)"
            )
        y = codes.astype(np.intp)
    X = shared_matrix(frame, attributes) if keep.all() else None
    if X is None:
        X = encode_columns(frame.loc[keep] if not keep.all() else frame, attributes)
    _refuse_huge_attributes(X, attributes, table.bounded)
    X.setflags(write=False)
    schema = Schema(attributes, target, classes)
    # Unit weights as a read-only broadcast: no memory per row until a fit takes its rows' weights.
    unlabelled = None if keep.all() else np.flatnonzero(~keep)
    encoded = Encoded(schema, X, y, np.broadcast_to(1.0, len(y)), tuple(notes), unlabelled)
    object.__setattr__(encoded, "complete", table.complete & {a.name for a in attributes})
    return encoded


def _refuse_huge_target(y: np.ndarray, target: str) -> None:
    """A regression target so large that sums of squares over the rows overflow float64 is
    refused, naming the column. Squared errors (y**2, summed over n rows) are multiplied once
    more where the pruning path takes the geometric mean of two alphas, so the bound is the
    fourth root of the largest float over the rows: about 1e77 / n."""
    limit = float(np.finfo(np.float64).max) ** 0.25 / (2.0 * max(len(y), 1))
    # No value is greater than the root of the sum of squares: where that is within the
    # limit (and finite), so is every value, told in one read (einsum, on this thread).
    with np.errstate(over="ignore", invalid="ignore"):
        if np.sqrt(np.einsum("i,i->", y, y)) <= limit:
            return
    if first_where(y, lambda block: np.isinf(block) | (np.abs(block) > limit)) is None:
        return  # (in blocks: no column-sized temporaries, as below)
    finite = y[np.isfinite(y)]
    if len(finite) != np.count_nonzero(~np.isnan(y)):
        raise ArborError(
            f"the target {target!r} has an infinite value; a regression tree needs finite numbers"
        )
    if len(finite) and np.abs(finite).max() > limit:
        worst = finite[np.argmax(np.abs(finite))]
        raise ArborError(
            f"the target {target!r} has the value {worst:.6g}, too large to compute "
            f"squared errors with: a regression target over {len(y)} rows must stay "
            f"within ±{limit:.3g}"
        )


def _refuse_huge_attributes(
    X: np.ndarray, attributes: Sequence[Attribute], bounded: frozenset[str] = frozenset()
) -> None:
    """Numeric attributes beyond :data:`MAX_ATTRIBUTE_MAGNITUDE` are refused, naming the column;
    those the table found ``bounded`` (:attr:`Table.bounded`) are not looked at again (6 ms a
    million rows of 16 columns, before every fit)."""
    for j, attr in enumerate(attributes):
        if attr.is_nominal or attr.name in bounded:
            continue
        # NaN compares False; inf is caught too. In blocks: 11 ms a column of 10,000,000
        # rows with a column-sized temporary, 4 without.
        if first_where(X[:, j], lambda block: np.abs(block) > MAX_ATTRIBUTE_MAGNITUDE) is not None:
            column = np.abs(X[:, j])
            worst = X[np.argmax(np.where(np.isnan(column), 0.0, column)), j]
            raise ArborError(
                f"column {attr.name!r} has the value {worst:.6g}, too large to split "
                f"on: numeric attributes must stay within ±{MAX_ATTRIBUTE_MAGNITUDE:.0e}"
            )


def encode_like(table: Table, schema: Schema) -> Encoded:
    """Encode another table (a test set) against a trained tree's ``schema``, so codes line up.

    Columns are matched by name; a category the training data never had is missing, as in
    prediction. Rows whose target is missing, or (classification) a class the tree does not
    know, cannot be scored: they are left out and the notes say how many.

    Examples
    --------
    >>> from engine.data.table import make_table
    >>> train = encode(make_table(pd.DataFrame({"a": ["x", "y"], "c": ["p", "q"]})))
    >>> test = encode_like(make_table(pd.DataFrame({"a": ["y", "z"], "c": ["q", "r"]})), train.schema)
    >>> test.X[:, 0].tolist(), test.y.tolist(), test.notes
    ([1.0], [1], ('1 row(s) with a class the tree does not know (r) were left out',))
    """
    frame = table.frame
    if schema.target not in frame.columns:
        raise ArborError(f"the data has no column {schema.target!r}, the tree's target")
    target = frame[schema.target]
    notes: list[str] = list(table.notes)
    keep = target.notna().to_numpy().copy()
    if not keep.all():
        notes.append(f"{int((~keep).sum())} row(s) with a missing target were left out")
    if schema.is_regression:
        try:
            y = pd.to_numeric(target[keep], errors="raise").to_numpy(dtype=np.float64)
        except (ValueError, TypeError):
            raise ArborError(
                f"the target {schema.target!r} must be numeric for a regression tree"
            ) from None
        _refuse_huge_target(y, schema.target)
    else:
        labels = target[keep].astype("object")
        codes = pd.Series(
            encode_columns(pd.DataFrame({"c": labels}), [Attribute("c", NOMINAL, schema.classes)])[
                :, 0
            ]
        )
        known = codes.notna().to_numpy()
        if not known.all():
            unknown = sorted({str(v).strip() for v in labels[~known]})
            shown = ", ".join(unknown[:5]) + (", …" if len(unknown) > 5 else "")
            notes.append(
                f"{int((~known).sum())} row(s) with a class the tree does not know ({shown}) "
                "were left out"
            )
            keep[np.flatnonzero(keep)[~known]] = False
        y = codes[known].to_numpy(dtype=np.intp)
    if not keep.any():
        raise ArborError("no row of the data can be scored (every target is missing or unknown)")
    X = encode_columns(frame.loc[keep], schema.attributes)
    X.setflags(write=False)
    return Encoded(schema, X, y, np.broadcast_to(1.0, len(y)), tuple(notes))


__all__ = [
    "Attribute",
    "Schema",
    "Encoded",
    "encode",
    "encode_columns",
    "encode_like",
    "shared_matrix",
    "as_table",
    "schema_table",
    "without_rows",
    "IGNORED",
]


def schema_table(schema: Schema) -> Table:
    """A table with no rows and the columns a tree was trained on (kinds, category orders,
    target): what a tree opened from a model file, without its training rows, stands beside.

    >>> t = schema_table(Schema((Attribute("a", "nominal", ("x", "y")), Attribute("b", "numeric")),
    ...                         "c", ("p", "q")))
    >>> len(t.frame), dict(t.kinds), list(t.frame["c"].cat.categories)
    (0, {'a': 'nominal', 'b': 'numeric', 'c': 'nominal'}, ['p', 'q'])
    """
    columns = {a.name: a for a in schema.attributes}
    frame = pd.DataFrame(
        {
            name: pd.Series(dtype=object if a.is_nominal else np.float64)
            for name, a in columns.items()
        }
    )
    frame[schema.target] = pd.Series(dtype=np.float64 if schema.is_regression else object)
    kinds = {name: a.kind for name, a in columns.items()}
    kinds[schema.target] = NUMERIC if schema.is_regression else NOMINAL
    categories = {name: a.categories for name, a in columns.items() if a.is_nominal}
    if not schema.is_regression:
        categories[schema.target] = schema.classes
    return make_table(frame, target=schema.target, kinds=kinds, categories=categories)


def without_rows(schema: Schema) -> Encoded:
    """A training set of no rows with ``schema``: what works from a tree's counts alone
    (pruning a tree trained over partitions, whose rows stay on the cluster) stands on."""
    X = np.zeros((0, len(schema.attributes)), order="F")
    y = np.zeros(0, dtype=np.float64 if schema.is_regression else np.intp)
    return Encoded(schema, X, y, np.zeros(0))


def subset(data: Encoded, rows: np.ndarray) -> Encoded:
    """The training set restricted to ``rows`` (a fold, a holdout part).

    Copied a column at a time (``X`` is column-major): quicker than one fancy index, and
    cancellable between columns.
    """
    X = np.empty((len(rows), data.X.shape[1]), dtype=data.X.dtype, order="F")
    # Long columns one at a time; a wide table's short ones many at once (thousands of
    # calls per fold added up).
    step = max(1, (1 << 16) // max(len(rows), 1))
    for start in range(0, data.X.shape[1], step):
        checkpoint()
        if step == 1:
            np.take(data.X[:, start], rows, out=X[:, start])
        else:
            X[:, start : start + step] = data.X[rows, start : start + step]
    part = replace(data, X=X, y=data.y[rows], weight=data.weight[rows], unlabelled=None)
    remember_origin(part, data, np.asarray(rows))  # its columns' orders from the table's
    return part
