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

#: Numeric attributes beyond this size are refused for a fit (engine.data.encoding): a cut
#: halfway between two values near the largest float (1.8e308) is no longer a finite number.
MAX_ATTRIBUTE_MAGNITUDE = 1e300

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
    #: The numeric columns :func:`make_table` found within ±:data:`MAX_ATTRIBUTE_MAGNITUDE`
    #: (or missing) in the pass that refused infinity, so that encoding need not look again;
    #: and those it found without a missing value (a fit need not look for them). Not
    #: arguments: a table given another frame (``dataclasses.replace``) has none.
    bounded: frozenset[str] = field(default=frozenset(), init=False)
    complete: frozenset[str] = field(default=frozenset(), init=False)

    @property
    def attributes(self) -> list[str]:
        """The columns a learner may split on, in table order."""
        return [c for c in self.frame.columns if c != self.target and self.kinds[c] != IGNORED]

    def with_target(self, target: str) -> Table:
        _check_column(self.frame, target, "target")
        return replace(self, target=target)

    def with_kinds(self, **overrides: str) -> Table:
        """A copy with some columns' kinds changed (values converted accordingly)."""
        return make_table(
            self.frame, target=self.target, kinds={**self.kinds, **overrides}, source=self.source
        )


def _check_column(frame: pd.DataFrame, name: str, role: str) -> None:
    if name not in frame.columns:
        known = ", ".join(map(str, frame.columns[:12]))
        raise ArborError(f"unknown {role} column {name!r}; the table has: {known}")


#: The cells :func:`_as_number` looks at first for one that is no number.
_HEAD_CELLS = 256


def _as_number(values: pd.Series) -> pd.Series:
    """Numeric conversion where missing tokens become NaN and anything else must parse."""
    if values.dtype == np.float64:  # numbers already (a table made again): as they are
        return values
    if pd.api.types.is_bool_dtype(values):
        raise ValueError("booleans are nominal")
    if pd.api.types.is_numeric_dtype(values):
        return values.astype("float64")
    # A cell among the first that no reader takes for a number settles it, before the whole
    # column is read as text: the parse of a million-row column of labels took a fifth of a
    # second only to fail, and its stripping 9 ms.
    head = _stripped(values.iloc[:_HEAD_CELLS]).dropna()
    if not head.str.contains(_MAYBE_NUMBER, case=False, regex=True).all():
        raise ValueError("a cell is no number")
    text = _stripped(values)
    quick = _arrow_numbers(text)
    if quick is not None:
        return quick
    return pd.to_numeric(text, errors="raise").astype("float64")


def _stripped(values: pd.Series) -> pd.Series:
    """Cells as text without surrounding blanks, missing tokens missing: how numbers are read."""
    text = values.astype("string").str.strip()
    return text.mask(text.isin(MISSING_TOKENS))


def _arrow_numbers(text: pd.Series) -> pd.Series | None:
    """Arrow's parse of a text column (about 4x quicker); None when it refuses a cell.

    pandas' own parse then decides, with the same answer on everything Arrow accepts.
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        numbers = pc.cast(pa.array(text, from_pandas=True), pa.float64()).to_numpy(
            zero_copy_only=False
        )
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


def _as_nominal(
    values: pd.Series,
    categories: Iterable[str] | None = None,
    retyped: dict[int, tuple] | None = None,
    distinct: tuple[np.ndarray, list] | None = None,
) -> pd.Series:
    """``values`` as a nominal column (of ``categories`` when given). ``retyped`` keeps, across
    the columns of one table, the text dtype made for each categorical dtype met."""
    if isinstance(values.dtype, pd.CategoricalDtype) and categories is None:
        # The categories were chosen already (an ARFF header, a typed table): kept as they are.
        dtype = _text_dtype(values.dtype, {} if retyped is None else retyped)
        return pd.Series(
            pd.Categorical.from_codes(values.array.codes, dtype=dtype),
            index=values.index,
            name=values.name,
        )
    codes, texts = _distinct_texts(values) if distinct is None else distinct
    if categories is None:
        categories = list(dict.fromkeys(t for t in texts if t is not None))
    else:
        categories = list(categories)
    position = {c: k for k, c in enumerate(categories)}
    remap = np.array(
        [position.get(t, -1) if t is not None else -1 for t in texts] + [-1], dtype=np.int64
    )
    return pd.Series(
        pd.Categorical.from_codes(remap[codes], categories=categories),
        index=values.index,
        name=values.name,
    )


def _text_dtype(dtype: pd.CategoricalDtype, retyped: dict[int, tuple]) -> pd.CategoricalDtype:
    """``dtype`` with its categories as text, unordered; made once per dtype in ``retyped``
    (which keeps the dtype too, so its id stays its own): a wide table's thousands of
    columns share a few dtypes, and making one took longer than the rest of a column."""
    if id(dtype) not in retyped:
        retyped[id(dtype)] = dtype, pd.CategoricalDtype([str(c) for c in dtype.categories])
    return retyped[id(dtype)][1]


def _bool_text(value: bool, categories: Iterable[str] | None) -> str:
    """A boolean as text: the spelling a declared category gives it (``true``, ``True``...),
    else Arbor's own (``TRUE``/``FALSE``, as :func:`_cell_text` writes it)."""
    word = "true" if value else "false"
    return next((c for c in categories or () if c.lower() == word), word.upper())


def declared_nominal(
    values: pd.Series,
    categories: Iterable[str] | None = None,
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
        values = pd.Series(
            [_bool_text(v, declared) if isinstance(v, bool | np.bool_) else v for v in values],
            index=values.index,
            name=values.name,
            dtype=object,
        )
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
    column = pd.Series(
        pd.Categorical.from_codes(remap[codes], categories=declared),
        index=values.index,
        name=values.name,
    )
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
    # (A numeric dtype first: it settles the kind without a pass over the column.)
    if pd.api.types.is_numeric_dtype(values) or converted.notna().any():
        return NUMERIC, converted
    return NOMINAL, None


#: Text columns of at most this many rows have their kinds inferred together, in slices of
#: at most ``_AT_ONCE_CELLS`` cells: a few array operations over thousands of columns
#: instead of a dozen pandas calls for each (a 6 x 5,000 table took most of a minute).
#: Longer columns go one by one, where Arrow's work per cell beats Python's.
_AT_ONCE_ROWS = 5_000
_AT_ONCE_CELLS = 1 << 19
#: A converted column: a Series, or (made many at once) its float64 or Categorical values.
Column = pd.Series | np.ndarray | pd.Categorical
#: Text that every reader takes for a number, and parses the same way.
_PLAIN_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
#: Text some reader may take for a number: a digit of any script, or a spelling of
#: infinity or NaN. Text with neither is a number to no reader (``_as_number`` refuses it).
_MAYBE_NUMBER = r"\d|inf|nan"


def _inferred_at_once(
    frame: pd.DataFrame, names: list[str]
) -> dict[str, tuple[str, Column, str | None]]:
    """What :func:`_inferred`, :func:`_as_number`, :func:`_as_nominal` and :func:`_stray_text`
    make of those ``names`` whose cells are all text, computed for many columns at once.

    Returns ``{name: (kind, column, stray text or None)}`` for the columns whose kind the cells
    settle beyond doubt (every cell a plain number, or some cell no number to any reader); the
    rest (``inf``, ``1,5``...) are left to the column-at-a-time functions, which stay the
    definition. The answers are the same, cell by cell: the same pandas and Arrow calls run on
    the cells of many columns laid end to end.
    """
    rows = len(frame)
    if rows > _AT_ONCE_ROWS or len(names) < 2:
        return {}
    step = max(1, _AT_ONCE_CELLS // max(rows, 1))
    dtypes = dict(zip(frame.columns, frame.dtypes, strict=True))
    known: dict[str, tuple[str, Column, str | None]] = {}
    for start in range(0, len(names), step):
        chunk = names[start : start + step]
        cells = frame[chunk].to_numpy(dtype=object)
        text = [
            j
            for j, name in enumerate(chunk)
            if isinstance(dtypes[name], pd.StringDtype)
            or pd.api.types.infer_dtype(cells[:, j], skipna=False) == "string"
        ]
        if len(text) >= 2:
            known.update(_text_columns_at_once([chunk[j] for j in text], cells[:, text]))
    return known


def _text_columns_at_once(
    names: list[str], cells: np.ndarray
) -> dict[str, tuple[str, Column, str | None]]:
    """:func:`_inferred_at_once` for the text ``cells`` (rows x columns) of ``names``."""
    rows, width = cells.shape
    flat = pd.Series(cells.T.ravel(), dtype=object)  # column after column
    text = _stripped(flat)  # as _as_number reads numbers
    absent = text.isna().to_numpy().reshape(width, rows)
    plain = text.str.fullmatch(_PLAIN_NUMBER).fillna(False).to_numpy(dtype=bool)
    maybe = flat.str.contains(_MAYBE_NUMBER, case=False).fillna(True).to_numpy(dtype=bool)
    present = (~absent).sum(axis=1)
    numeric = (plain.reshape(width, rows) | absent).all(axis=1) & (present > 0)
    nominal = (~maybe.reshape(width, rows) & ~absent).any(axis=1) | (present == 0)
    known: dict[str, tuple[str, Column, str | None]] = {}
    if numeric.any():
        numbers = _arrow_numbers(text[np.repeat(numeric, rows)].reset_index(drop=True))
        if numbers is not None:  # else a plain number Arrow refuses: each column decides alone
            block = numbers.to_numpy().reshape(-1, rows)
            for j, column in zip(np.flatnonzero(numeric), block, strict=True):
                known[names[j]] = NUMERIC, column, None
    if nominal.any():
        picked = np.flatnonzero(nominal)
        columns = _nominal_at_once(cells[:, picked].T.ravel(), rows, [names[j] for j in picked])
        known.update(columns)
    return known


def _nominal_at_once(
    flat: np.ndarray, rows: int, names: list[str]
) -> dict[str, tuple[str, Column, str | None]]:
    """:func:`_as_nominal` and :func:`_stray_text` of the columns laid end to end in ``flat``."""
    width = len(names)
    codes, uniques = pd.factorize(flat, use_na_sentinel=True)
    ids: dict[str, int] = {}  # each cleaned text, numbered in order of first appearance
    cleaned = [_cell_text(u) for u in uniques]
    text_id = np.array(
        [-1 if t in MISSING_TOKENS else ids.setdefault(t, len(ids)) for t in cleaned] + [-1],
        dtype=np.int64,
    )[codes]
    texts = list(ids)
    is_number = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").notna().to_numpy()
    # A column's categories are its texts in order of first appearance: number each
    # (column, text) pair, and rank the pairs of a column by where each first appears.
    at = np.flatnonzero(text_id >= 0)
    pairs, first, pair_of_cell = np.unique(
        (at // rows) * max(len(texts), 1) + text_id[at], return_index=True, return_inverse=True
    )
    order = np.argsort(first)
    pair_column = pairs[order] // max(len(texts), 1)
    bounds = np.searchsorted(pair_column, np.arange(width + 1))
    rank = np.empty(len(pairs), dtype=np.int64)
    rank[order] = np.arange(len(pairs)) - bounds[pair_column]
    local = np.full(len(flat), -1, dtype=np.int64)
    local[at] = rank[pair_of_cell.ravel()]
    local = local.reshape(width, rows)
    grid = text_id.reshape(width, rows)
    pair_text = pairs[order] % max(len(texts), 1)
    dtypes: dict[tuple[str, ...], pd.CategoricalDtype] = {}
    known = {}
    for j, name in enumerate(names):
        categories = tuple(texts[t] for t in pair_text[bounds[j] : bounds[j + 1]])
        dtype = dtypes.get(categories)
        if dtype is None:  # columns of the same categories share one dtype (made once)
            dtype = dtypes[categories] = pd.CategoricalDtype(list(categories))
        column = pd.Categorical.from_codes(local[j], dtype=dtype)
        known[name] = NOMINAL, column, _stray_at_once(grid[j], texts, is_number)
    return known


def _stray_at_once(text_id: np.ndarray, texts: list[str], is_number: np.ndarray) -> str | None:
    """:func:`_stray_text` of one column given as numbered texts (-1 missing)."""
    present = text_id[text_id >= 0]
    if len(present) < 5:
        return None
    numbers = is_number[present]
    if numbers.sum() >= 0.9 * len(present) and not numbers.all():
        return str(texts[present[np.argmax(~numbers)]])
    return None


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
    frame = frame.set_axis(names, axis=1)  # a new frame; the caller's keeps its names
    kinds = dict(kinds or {})
    categories = dict(categories or {})
    unknown = [c for c in kinds if c not in frame.columns]
    if unknown:
        raise ArborError(f"unknown column(s) {', '.join(map(repr, unknown))} in kind overrides")
    out_kinds: dict[str, str] = {}
    notes = list(notes)
    made: dict[str, Column] = {}
    retyped: dict[int, tuple] = {}
    bounded: set[str] = set()
    complete: set[str] = set()
    known = _inferred_at_once(frame, [n for n in names if n not in kinds and n not in categories])
    for name in names:
        if name in known:
            kind, made[name], stray = known[name]
        else:
            kind, converted, stray = _converted(
                frame[name], name, kinds.get(name), name in kinds, categories.get(name), retyped
            )
            if converted is not None:
                made[name] = converted
        if kind == NUMERIC:
            within, full = _check_finite(frame[name], made[name], name)
            if within:
                bounded.add(name)
            if full:
                complete.add(name)
        if stray is not None:
            notes.append(
                f"column {name!r} is mostly numbers but has text such as {stray!r}, "
                "so it was read as nominal (fix the value, or set the column numeric)"
            )
        out_kinds[name] = kind
    target = names[-1] if target is None else str(target)
    _check_column(frame, target, "target")
    if out_kinds[target] == IGNORED:
        raise ArborError(f"the target {target!r} is marked ignored")
    frame = _assembled(frame, made, [n for n in names if out_kinds[n] == NUMERIC], target)
    table = Table(frame, MappingProxyType(out_kinds), target, source, tuple(notes))
    object.__setattr__(table, "bounded", frozenset(bounded))  # (frozen, and not arguments)
    object.__setattr__(table, "complete", frozenset(complete))
    return table


def _converted(
    values: pd.Series,
    name: str,
    kind: str | None,
    given: bool,
    categories: Iterable[str] | None,
    retyped: dict[int, tuple],
) -> tuple[str, pd.Series | None, str | None]:
    """One column's kind, its converted values (None when ignored) and, for a column inferred
    nominal, the text that kept it from numeric: the column-at-a-time definition."""
    numbers = stray = distinct = None
    if not kind:
        kind, numbers = _inferred(values)
        if kind == NOMINAL and not given and _texts(values):
            distinct = _distinct_texts(values)  # once, for the stray text and the categories
            stray = _stray_text(distinct)
    if kind not in KINDS:
        raise ArborError(
            f"unknown kind {kind!r} for column {name!r}; use one of {', '.join(KINDS)}"
        )
    if kind == NUMERIC:
        try:
            converted = _as_number(values) if numbers is None else numbers
        except (ValueError, TypeError):
            bad = _first_non_number(values)
            raise ArborError(
                f"column {name!r} cannot be numeric: value {bad!r} is not a number "
                f"(make the column nominal, or fix the value)"
            ) from None
        return kind, converted, stray
    if kind == NOMINAL:
        return kind, _as_nominal(values, categories, retyped, distinct), stray
    return kind, None, stray


#: Rows of a column checked at a time: the temporaries stay small and are reused, where a
#: column's own took fresh pages each (at 10,000,000 rows 4.3 ms a column, 2.9 in blocks).
CHECK_BLOCK = 1 << 18


def first_where(values: np.ndarray, test) -> int | None:
    """The first row of ``values`` where ``test`` (of a block of them, elementwise) holds, or
    None: looked at :data:`CHECK_BLOCK` rows at a time."""
    for start in range(0, len(values), CHECK_BLOCK):
        hits = test(values[start : start + CHECK_BLOCK])
        if hits.any():
            return start + int(np.argmax(hits))
    return None


#: Values below this magnitude square and add up to a finite sum (:func:`_check_finite`).
SQUARES_FINITE = 1e150


def _check_finite(original: pd.Series, numbers, name: str) -> tuple[bool, bool]:
    """Refuse infinity (``1e400``, ``Infinity``...): no threshold or mean can be made of it,
    and JSON cannot store it, so it must not pass as a number unnoticed. Returns whether
    every value lies within ±:data:`MAX_ATTRIBUTE_MAGNITUDE` or is missing, and whether none
    is missing, told in the same pass (:data:`CHECK_BLOCK` rows at a time): a block's sum of
    squares is finite only when every value is a number below 1.3e154 (a missing one makes
    it NaN); only where it is not are its greatest and least values but the missing ones
    read, and once a block misses a value the next are read so at once. (One read of a
    complete block, by einsum, on this thread: BLAS's dot, on threads of its own that stay
    awake after it, took the cores from a fit's.)"""
    values = np.asarray(numbers, dtype=np.float64)
    bounded = complete = True
    for start in range(0, len(values), CHECK_BLOCK):
        block = values[start : start + CHECK_BLOCK]
        with np.errstate(over="ignore", invalid="ignore"):  # (what the sum is to tell)
            if complete and np.isfinite(np.einsum("i,i->", block, block)):
                continue
            high, low = np.fmax.reduce(block), np.fmin.reduce(block)  # (NaN: all missing)
        if np.isinf(high) or np.isinf(low):
            row = start + int(np.argmax(np.isinf(block)))
            raise ArborError(
                f"column {name!r} has an infinite value in row {row + 1} "
                f"({original.iloc[row]!r}); Arbor needs finite numbers (fix the value, or make "
                "the column nominal)"
            )
        greatest = max(abs(float(high)), abs(float(low)))
        bounded = bounded and not greatest > MAX_ATTRIBUTE_MAGNITUDE
        # Values below 1e150 square and add up to a finite sum: a missing one made it NaN.
        complete = complete and greatest >= SQUARES_FINITE and not np.isnan(block).any()
    return bounded, complete


def _assembled(
    frame: pd.DataFrame, made: dict[str, Column], numeric: list[str], target: str
) -> pd.DataFrame:
    """``frame`` with the ``made`` columns in place, and its numeric columns side by side in
    one column-major float64 block (a numeric ``target`` may stay a column of its own).

    Encoding a table whose attributes are all numeric then shares that block instead of
    copying it (:func:`engine.data.encoding.shared_matrix`): on a million-row table the copy
    was most of a fit's memory. The frame is built once, not a column at a time: a wide
    table's thousands of column insertions took seconds.
    """
    names = list(frame.columns)
    if len(numeric) < 2:
        columns = {name: made[name] if name in made else frame[name] for name in names}
        return pd.DataFrame(columns, index=frame.index)
    numbers = _own_block(frame, made, numeric)
    attributes = [name for name in numeric if name != target]
    if numbers is None and len(attributes) < len(numeric) and len(attributes) >= 2:
        # A frame made of a matrix and then given its target: the attributes keep the
        # matrix's block, which encoding shares, and the target stays apart (copying them
        # into one block with it took 12 ms and 128 MB for a million rows of 16 columns).
        numbers = _own_block(frame, made, attributes)
        numeric = attributes if numbers is not None else numeric
    if numbers is None:
        block = np.empty((len(frame), len(numeric)), dtype=np.float64, order="F")
        for j, name in enumerate(numeric):
            block[:, j] = np.asarray(made[name], dtype=np.float64)
        numbers = pd.DataFrame(block, columns=numeric, index=frame.index, copy=False)
    in_block = set(numeric)
    rest = {
        name: made[name] if name in made else frame[name] for name in names if name not in in_block
    }
    # Selecting the columns back into table order slices the block; it does not copy it.
    return pd.concat([numbers, pd.DataFrame(rest, index=frame.index)], axis=1)[names]


def _own_block(frame: pd.DataFrame, made: dict[str, Column], numeric: list[str]):
    """``frame``'s numeric columns as they are, when they are already one column-major float64
    block and were not converted (a table made again: the window's snapshot of its table at
    every Train), else None. pandas copies a block on write while another frame holds it, so
    the table made here keeps its numbers when the caller's frame is edited afterwards; a copy
    of a million rows took 70-150 ms of the window's GUI thread. Without copy-on-write
    (pandas 2 by default) an edit would change both: the table gets its own block."""
    start = _block_start(made, numeric, len(frame)) if copy_on_write() else None
    if start is None:
        return None
    numbers = frame[numeric]
    block = numbers.to_numpy()  # a view when pandas holds the columns as that one block
    if block.flags.f_contiguous and block.__array_interface__["data"][0] == start:
        return numbers
    return None


def _block_start(made: dict[str, Column], numeric: list[str], m: int) -> int | None:
    """Where the first column's numbers start, when every column's float64 numbers lie right
    after the previous column's (as in one column-major block), else None: looked at before
    asking pandas for the block, which copies (12 ms a million rows of 16 columns) when they
    do not."""
    if m < 2:
        return None  # (a copy costs nothing)
    start = None
    for j, name in enumerate(numeric):
        column = made[name]
        values = column.to_numpy() if isinstance(column, pd.Series) else np.asarray(column)
        if values.dtype != np.float64 or values.ndim != 1 or values.strides != (8,):
            return None
        at = values.__array_interface__["data"][0]
        start = at if start is None else start
        if at != start + 8 * m * j:
            return None
    return start


def copy_on_write() -> bool:
    """Whether pandas copies a block shared by two frames before writing to it (always from
    pandas 3; in pandas 2, only with the option set)."""
    if int(pd.__version__.split(".")[0]) >= 3:
        return True
    return pd.get_option("mode.copy_on_write") is True


def _texts(values: pd.Series) -> bool:
    """Whether a column holds text (not categories, not numbers): what a stray text is
    looked for in."""
    return not (
        isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_numeric_dtype(values)
    )


def _stray_text(distinct: tuple[np.ndarray, list]) -> str | None:
    """The first non-number in a text column that is at least 90% numbers, else None, from
    its :func:`_distinct_texts`."""
    codes, texts = distinct
    numbers = (
        pd.to_numeric(
            pd.Series([t if t is not None else "" for t in texts], dtype=object), errors="coerce"
        )
        .notna()
        .to_numpy()
    )
    present = np.array([t is not None for t in texts], dtype=bool)
    if not (present & numbers).any():
        return None  # no number at all: the rows need no counting (3 ms a million)
    counts = np.bincount(codes[codes >= 0], minlength=len(texts))
    if counts[present].sum() < 5:
        return None
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
