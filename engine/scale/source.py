"""A table in partitions, read lazily: Parquet files (a file, a folder, a glob) or a CSV glob.

Nothing here loads the table. :func:`describe` reads only the files' footers (Parquet) or
headers (CSV): the columns, their types, the partitions ("pieces": a Parquet file's row
groups up to about :data:`PIECE_ROWS` rows, or one CSV file). :func:`scan` then makes one
pass over the pieces that reads only the columns whose kind or categories are not in the
footers (text, booleans, dictionaries, and the target), and settles the schema exactly as
:func:`engine.data.table.make_table` would on the whole table: a text column whose every
value is a number is numeric, nominal categories come in order of first appearance (a
dictionary column's in its dictionary's order), rows missing the target are left out.
So a table that fits in memory gets the same attributes, categories and classes either way.

Each piece is then turned into arrays on a worker by :func:`encode_piece`, with the schema
settled here. Every failure a file can cause names the file: a piece that cannot be read,
a column with another type than in the first file, a value that is not a number.
"""

from __future__ import annotations

import glob
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.encoding import MAX_CLASSES, Attribute, Schema
from engine.data.table import (
    IGNORED,
    MISSING_TOKENS,
    NOMINAL,
    NUMERIC,
    _as_number,
    _distinct_texts,
)
from engine.errors import ArborError
from engine.reading import shown_path

PARQUET, CSV = "parquet", "csv"
PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
#: A Parquet piece (one task's partition) holds row groups up to about this many rows.
PIECE_ROWS = 1 << 20
#: Categories a nominal attribute may have here: each is a histogram row at every open leaf.
MAX_CATEGORIES = 1024
#: Characters in a category value (as for files read whole).
MAX_CELL = 100_000
#: Files a dataset may have (each is at least one task per pass).
MAX_FILES = 100_000

# How a column becomes numbers (``SourceColumn.reading``).
ARROW_NUMBERS = "numbers"  # typed numbers: as they are
TEXT_NUMBERS = "text-numbers"  # text that must parse (make_table's rule)
CATEGORIES = "categories"  # nominal: each value's text looked up among the categories


@dataclass(frozen=True)
class Piece:
    """One partition: a Parquet file's row groups (``row_groups``), or a whole CSV file."""

    path: str
    row_groups: tuple[int, ...] | None = None
    rows: int | None = None

    @property
    def name(self) -> str:
        return shown_path(Path(self.path).name)


@dataclass(frozen=True)
class Layout:
    """What the footers or headers tell, before any row is read."""

    location: str
    format: str
    pieces: tuple[Piece, ...]
    columns: tuple[str, ...]
    #: per column: "number", "bool", "text", "dictionary" (Parquet), or "text" for every CSV
    #: column; unreadable types ("other") are left out with a note
    types: dict[str, str]
    stored: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def n_rows(self) -> int | None:
        """Rows in the files (Parquet footers; None for CSV until they are read)."""
        if any(p.rows is None for p in self.pieces):
            return None
        return sum(p.rows for p in self.pieces)


@dataclass(frozen=True)
class SourceColumn:
    """How one attribute (or the target) is read from a piece."""

    name: str
    kind: str
    reading: str
    categories: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    """A table in partitions whose schema is settled: what training and prediction read."""

    layout: Layout
    attributes: tuple[SourceColumn, ...]
    target: SourceColumn
    piece_rows: tuple[int, ...]  # rows with a known target, per piece
    n_missing_target: int
    notes: tuple[str, ...] = ()

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return self.layout.pieces

    @property
    def n_partitions(self) -> int:
        return len(self.layout.pieces)

    @property
    def n_rows(self) -> int:
        return int(sum(self.piece_rows))

    def schema(self, task: str = "classification") -> Schema:
        """The learners' schema; refuses a target of the wrong kind as ``encode`` does."""
        attrs = tuple(Attribute(c.name, c.kind, c.categories) for c in self.attributes)
        t = self.target
        if task == "regression":
            if t.kind != NUMERIC:
                raise ArborError(
                    f"regression needs a numeric target, but {t.name!r} is nominal "
                    "(use classification, or make the column numeric)"
                )
            return Schema(attrs, t.name, None)
        if t.kind != NOMINAL:
            raise ArborError(
                f"classification needs a nominal target, but {t.name!r} is numeric "
                "(make the column nominal, or use --task regression)"
            )
        return Schema(attrs, t.name, t.categories)


# ---------------------------------------------------------------------- finding the files


def _natural_key(path: str):
    """part.2 before part.10, as the writers of partitioned folders number them."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path)]


def _skipped(path: Path) -> bool:
    """Hidden and bookkeeping files of a dataset folder (``_metadata``, ``.crc``, ``_SUCCESS``)."""
    return any(part.startswith((".", "_")) for part in path.parts[-1:])


def find_files(location: str) -> tuple[str, list[Path]]:
    """The format and the files of ``location``: a Parquet file, a folder holding Parquet
    files (searched recursively), or a glob of Parquet or CSV files; in natural order."""
    text = str(location)
    path = Path(text).expanduser()
    if glob.has_magic(text):
        files = [Path(p) for p in glob.glob(str(path), recursive=True)]
        files = [p for p in files if p.is_file() and not _skipped(p)]
        if not files:
            raise ArborError(f"no file matches {shown_path(text)}")
    elif path.is_dir():
        files = [
            p
            for p in path.rglob("*")
            if p.is_file() and not _skipped(p) and p.suffix.lower() in PARQUET_SUFFIXES
        ]
        if not files:
            raise ArborError(f"{shown_path(text)} holds no Parquet files (*.parquet)")
    elif path.is_file():
        files = [path]
    else:
        raise ArborError(f"no such file or folder: {shown_path(text)}")
    suffixes = {p.suffix.lower() for p in files}
    if suffixes <= set(PARQUET_SUFFIXES):
        fmt = PARQUET
    elif suffixes == {".csv"}:
        fmt = CSV
    else:
        shown = ", ".join(sorted(s or "(none)" for s in suffixes))
        raise ArborError(
            f"{shown_path(text)}: training over partitions reads Parquet files or "
            f"CSV files, one kind at a time; found {shown}"
        )
    if len(files) > MAX_FILES:
        raise ArborError(f"{shown_path(text)} has {len(files):,} files; at most {MAX_FILES:,}")
    return fmt, sorted(files, key=lambda p: _natural_key(str(p)))


# ---------------------------------------------------------------------- describing


def _arrow_kind(arrow_type) -> str:
    import pyarrow as pa

    if (
        pa.types.is_integer(arrow_type)
        or pa.types.is_floating(arrow_type)
        or pa.types.is_decimal(arrow_type)
    ):
        return "number"
    if pa.types.is_boolean(arrow_type):
        return "bool"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "text"
    if pa.types.is_dictionary(arrow_type):
        return "dictionary"
    if pa.types.is_null(arrow_type):
        return "null"
    return "other"


def _parquet_file(path: Path):
    import pyarrow.parquet as pq

    try:
        with open(path, "rb") as handle:
            if handle.read(4) != b"PAR1":
                raise ArborError(f"{shown_path(path.name)} is not a Parquet file")
        return pq.ParquetFile(path)
    except ArborError:
        raise
    except OSError as err:
        raise ArborError(f"cannot read {shown_path(path.name)}: {err.strerror or err}") from None
    except Exception as err:  # noqa: BLE001 - pyarrow's errors for a damaged file vary
        raise ArborError(
            f"{shown_path(path.name)} is not a readable Parquet file ({_first_line(err)})"
        ) from None


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__


def _describe_parquet(location: str, files: list[Path]) -> Layout:
    pieces: list[Piece] = []
    first_name, columns, types = None, None, None
    stored: dict = {}
    for path in files:
        parquet = _parquet_file(path)
        schema, meta = parquet.schema_arrow, parquet.metadata
        index = _index_columns(schema)
        here = {f.name: _arrow_kind(f.type) for f in schema if f.name not in index}
        if columns is None:
            first_name, columns, types = path.name, list(here), here
            stored = _stored_meta(schema)
        else:
            _same_columns(path, here, first_name, columns, types)
        group, rows = [], 0
        for g in range(meta.num_row_groups):
            n = meta.row_group(g).num_rows
            if group and rows + n > PIECE_ROWS:
                pieces.append(Piece(str(path), tuple(group), rows))
                group, rows = [], 0
            group.append(g)
            rows += n
        if group or not pieces or pieces[-1].path != str(path):
            pieces.append(Piece(str(path), tuple(group), rows))
    notes = []
    odd = [c for c in columns if types[c] in ("other",)]
    if odd:
        shown = ", ".join(map(repr, odd[:8])) + (", ..." if len(odd) > 8 else "")
        notes.append(
            f"column(s) {shown} hold lists, structs, dates or bytes, which a tree "
            "cannot split on; they were left out"
        )
    return Layout(
        location,
        PARQUET,
        tuple(pieces),
        tuple(c for c in columns if c not in odd),
        {c: t for c, t in types.items() if c not in odd},
        stored,
        tuple(notes),
    )


def _index_columns(schema) -> set[str]:
    """Columns pandas stored a frame's index in: the index, not data (as pandas reads them)."""
    try:
        meta = schema.pandas_metadata or {}
    except Exception:  # noqa: BLE001 - metadata that is not pandas' JSON
        meta = {}
    named = {c for c in meta.get("index_columns", []) if isinstance(c, str)}
    return named | {f.name for f in schema if re.fullmatch(r"__index_level_\d+__", f.name)}


def _stored_meta(schema) -> dict:
    """Kinds and category orders Arbor keeps in the files it writes (``engine.data.io``)."""
    raw = (schema.metadata or {}).get(b"arbor")
    try:
        meta = json.loads(raw or "null")
        return {"kinds": dict(meta["kinds"]), "categories": dict(meta["categories"])}
    except (ValueError, TypeError, KeyError):
        return {}


def _same_columns(path: Path, here: dict, first_name: str, columns: list, types: dict) -> None:
    name = shown_path(path.name)
    missing = [c for c in columns if c not in here]
    if missing:
        raise ArborError(f"{name} has no column {missing[0]!r}, which {shown_path(first_name)} has")
    extra = [c for c in here if c not in types]
    if extra:
        raise ArborError(f"{name} has a column {extra[0]!r} that {shown_path(first_name)} has not")
    for c in columns:
        a, b = types[c], here[c]
        if a != b and "null" not in (a, b) and {a, b} != {"text", "dictionary"}:
            raise ArborError(
                f"{name}: column {c!r} holds {_WORDS[b]} where "
                f"{shown_path(first_name)} holds {_WORDS[a]}"
            )


_WORDS = {
    "number": "numbers",
    "bool": "true/false values",
    "text": "text",
    "dictionary": "text",
    "null": "nothing",
    "other": "lists, dates or bytes",
}


def _describe_csv(location: str, files: list[Path]) -> Layout:
    from engine.data.delimited import checked_names

    header = None
    for path in files:
        names = checked_names(_csv_header(path), shown_path(path.name))
        if header is None:
            header, first = names, path.name
        elif names != header:
            raise ArborError(
                f"{shown_path(path.name)} has the columns {', '.join(names[:6])}... "
                f"where {shown_path(first)} has {', '.join(header[:6])}..."
            )
    return Layout(
        location,
        CSV,
        tuple(Piece(str(p)) for p in files),
        tuple(header),
        dict.fromkeys(header, "text"),
    )


def _csv_header(path: Path) -> list[str]:
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as handle:
            line = handle.readline(1 << 20)
    except OSError as err:
        raise ArborError(f"cannot read {shown_path(path.name)}: {err.strerror or err}") from None
    if not line.strip():
        raise ArborError(f"{shown_path(path.name)} is empty")
    return next(csv.reader([line]))


def describe(location: str) -> Layout:
    """The files, columns and partitions of ``location``; reads footers or headers only.

    >>> import tempfile, pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]}).to_parquet(folder + "/part.0.parquet")
    >>> layout = describe(folder)
    >>> layout.format, layout.columns, layout.types, layout.n_rows
    ('parquet', ('x', 'c'), {'x': 'number', 'c': 'text'}, 2)
    """
    fmt, files = find_files(location)
    return (_describe_parquet if fmt == PARQUET else _describe_csv)(str(location), files)


# ---------------------------------------------------------------------- reading one piece


def read_piece(piece: Piece, columns, fmt: str) -> pd.DataFrame:
    """The piece's ``columns`` as a frame (CSV: as text). Any failure names the file."""
    path = Path(piece.path)
    try:
        if fmt == PARQUET:
            parquet = _parquet_file(path)
            table = parquet.read_row_groups(list(piece.row_groups), columns=list(columns))
            return table.to_pandas()
        from engine.data.delimited import read_delimited

        frame, _ = read_delimited(path, ",", shown_path(path.name), 100_000)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ArborError(f"{piece.name} has no column {missing[0]!r}")
        return frame[list(columns)]
    except ArborError as err:
        message = str(err)
        raise ArborError(message if piece.name in message else f"{piece.name}: {message}") from None
    except MemoryError:
        raise ArborError(f"{piece.name}: a partition too large for a worker's memory") from None
    except Exception as err:  # noqa: BLE001 - a damaged page surfaces as any of pyarrow's errors
        raise ArborError(f"{piece.name} could not be read ({_first_line(err)})") from None


def preview(layout: Layout, rows: int = 200) -> pd.DataFrame:
    """The first ``rows`` rows of the first piece, as read (a preview, not the table)."""
    piece = layout.pieces[0]
    if layout.format == PARQUET:
        import pyarrow as pa

        parquet = _parquet_file(Path(piece.path))
        batches = parquet.iter_batches(batch_size=rows, columns=list(layout.columns))
        try:
            batch = next(batches, None)
        except Exception as err:  # noqa: BLE001
            raise ArborError(f"{piece.name} could not be read ({_first_line(err)})") from None
        if batch is None:
            return pd.DataFrame({c: [] for c in layout.columns})
        return pa.Table.from_batches([batch]).to_pandas().head(rows)
    return read_piece(piece, layout.columns, CSV).head(rows)


# ---------------------------------------------------------------------- the schema pass


@dataclass(frozen=True)
class PieceSummary:
    """What one piece tells the schema: rows, rows missing the target, and per column read
    its distinct texts in order of first appearance (``None``: too many to be nominal),
    whether every value parses as a number, and whether any value is one."""

    rows: int
    missing_target: int
    texts: dict
    numbers: dict
    present: dict


def _text_of(values: pd.Series, kind: str) -> tuple[list[str] | None, bool, bool]:
    """(distinct texts in order, None past the cap; whether every value parses as a number;
    whether any does), as :func:`engine.data.table.make_table` infers a column's kind."""
    if kind == "dictionary":
        # pandas keeps a dictionary column's categories, used or not, in their order.
        texts = [str(c) for c in values.cat.categories]
        return (texts if len(texts) <= MAX_CATEGORIES else None), False, False
    parses, any_number = kind == "number", kind == "number"
    if kind == "text":
        try:
            # Each distinct value parsed once (the parse is cell by cell): parsing every cell
            # of a text target took most of the pass over the files that settles the schema.
            any_number = bool(_as_number(pd.Series(values.unique())).notna().any())
            parses = True
        except (ValueError, TypeError):
            pass
    _, texts = _distinct_texts(values)
    texts = [t for t in texts if t is not None]
    return (texts if len(texts) <= MAX_CATEGORIES else None), parses, any_number


def summarize_piece(piece: Piece, fmt: str, columns: dict, target: str | None) -> PieceSummary:
    """One piece's contribution to the schema (runs on a worker). ``columns``: name -> the
    column's type, for the columns whose texts are needed."""
    wanted = list(columns) + ([target] if target and target not in columns else [])
    frame = read_piece(piece, wanted, fmt) if wanted else None
    texts, numbers, present = {}, {}, {}
    n = len(frame) if frame is not None else int(piece.rows or 0)
    for name, kind in columns.items():
        texts[name], numbers[name], present[name] = _text_of(frame[name], kind)
    missing = 0
    if target:
        col = frame[target]
        if fmt == CSV or col.dtype == object or pd.api.types.is_string_dtype(col):
            col = col.astype("string").str.strip().mask(lambda s: s.isin(MISSING_TOKENS))
        missing = int(col.isna().sum())
    return PieceSummary(n, missing, texts, numbers, present)


def _merge_texts(name: str, parts: list, pieces) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for piece, texts in zip(pieces, parts, strict=True):
        if texts is None:
            raise ArborError(
                f"column {name!r} has more than {MAX_CATEGORIES:,} different values "
                f"(in {piece.name} already), too many for a nominal attribute here "
                "(an identifier? leave it out with --ignore, or make it numeric)"
            )
        seen.update(dict.fromkeys(texts))
        if len(seen) > MAX_CATEGORIES:
            raise ArborError(
                f"column {name!r} has more than {MAX_CATEGORIES:,} different values, "
                "too many for a nominal attribute here (an identifier? leave it out "
                "with --ignore, or make it numeric)"
            )
    for text in seen:
        if len(text) > MAX_CELL:
            raise ArborError(
                f"a value of column {name!r} is {len(text):,} characters long; "
                f"Arbor reads values of at most {MAX_CELL:,} (free text? mark the "
                "column ignored)"
            )
    return tuple(seen)


def scan(
    layout: Layout, run_on_pieces, target: str | None = None, nominal=(), numeric=(), ignored=()
) -> Dataset:
    """Settle the schema in one pass over the pieces, reading only the columns it needs.

    ``run_on_pieces(function, pieces, *args)`` runs ``function(piece, *args)`` for every
    piece (on the cluster) and returns the results in order.
    """
    names = list(layout.columns)
    overrides = {n: NOMINAL for n in nominal} | {n: NUMERIC for n in numeric}
    overrides |= {n: IGNORED for n in ignored}
    unknown = [n for n in overrides if n not in names]
    if unknown:
        raise ArborError(
            f"unknown column(s) {', '.join(map(repr, unknown))}; the data has: "
            f"{', '.join(names[:12])}"
        )
    stored = layout.stored.get("kinds", {})
    kinds = {n: k for n, k in stored.items() if n in names and k in (NOMINAL, IGNORED)}
    kinds |= overrides
    if target is None:
        used = [n for n in names if kinds.get(n) != IGNORED]
        if not used:
            raise ArborError("every column is ignored: there is nothing to learn from")
        target = used[-1] if kinds.get(names[-1]) == IGNORED else names[-1]
    if target not in names:
        raise ArborError(f"unknown target column {target!r}; the data has: {', '.join(names[:12])}")
    if kinds.get(target) == IGNORED:
        raise ArborError(f"the target {target!r} is marked ignored")
    used = [n for n in names if kinds.get(n) != IGNORED]
    types = layout.types
    # A typed number column is numeric unless made nominal; anything else needs its texts.
    need = {n: types[n] for n in used if not (types[n] == "number" and kinds.get(n) != NOMINAL)}
    summaries = run_on_pieces(summarize_piece, layout.pieces, layout.format, need, target)
    if not summaries:
        raise ArborError(f"{shown_path(layout.location)} has no rows")
    columns: dict[str, SourceColumn] = {}
    stored_order = layout.stored.get("categories", {})
    for n in used:
        columns[n] = _settle(n, types[n], kinds.get(n), summaries, layout, stored_order.get(n))
    piece_rows = tuple(s.rows - s.missing_target for s in summaries)
    missing = sum(s.missing_target for s in summaries)
    if sum(s.rows for s in summaries) == 0:
        raise ArborError("there are no rows to learn from: the table is empty")
    if sum(piece_rows) == 0:
        raise ArborError(f"the target {target!r} has no values: every row is missing it")
    attributes = tuple(columns[n] for n in used if n != target)
    tcol = columns[target]
    if tcol.kind == NOMINAL and len(tcol.categories) > MAX_CLASSES:
        raise ArborError(
            f"the target {target!r} has {len(tcol.categories)} different values; a "
            f"classification tree needs at most {MAX_CLASSES}"
        )
    notes = list(layout.notes)
    if missing:
        notes.append(f"{missing} row(s) with a missing target were left out")
    return Dataset(layout, attributes, tcol, piece_rows, missing, tuple(notes))


def _settle(
    name: str, arrow: str, kind: str | None, summaries, layout: Layout, stored_order
) -> SourceColumn:
    """The column's kind, how it is read, and its categories, from every piece's summary."""
    pieces = layout.pieces
    if arrow == "number" and kind != NOMINAL:
        return SourceColumn(name, NUMERIC, ARROW_NUMBERS)
    numbers = all(s.numbers[name] for s in summaries)
    present = any(s.present[name] for s in summaries)
    if kind == NUMERIC or (kind is None and arrow in ("text", "null") and numbers and present):
        if kind == NUMERIC and not numbers:
            bad = next(p for p, s in zip(pieces, summaries, strict=True) if not s.numbers[name])
            raise ArborError(
                f"{bad.name}: column {name!r} cannot be numeric: it holds text "
                "(make the column nominal, or fix the value)"
            )
        return SourceColumn(name, NUMERIC, TEXT_NUMBERS if arrow != "number" else ARROW_NUMBERS)
    categories = _merge_texts(name, [s.texts[name] for s in summaries], pieces)
    if stored_order:
        categories = tuple(dict.fromkeys([*map(str, stored_order), *categories]))
    return SourceColumn(name, NOMINAL, CATEGORIES, categories)


# ---------------------------------------------------------------------- encoding one piece


def _numbers(values: pd.Series, column: SourceColumn, piece: Piece) -> np.ndarray:
    try:
        if column.reading == ARROW_NUMBERS and pd.api.types.is_numeric_dtype(values):
            out = values.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            out = _as_number(values).to_numpy(dtype=np.float64)
    except (ValueError, TypeError):
        raise ArborError(
            f"{piece.name}: column {column.name!r} holds a value that is not a "
            "number, where the other files hold numbers"
        ) from None
    if np.isinf(out).any():
        row = int(np.argmax(np.isinf(out)))
        raise ArborError(
            f"{piece.name}: column {column.name!r} has an infinite value in row "
            f"{row + 1}; Arbor needs finite numbers"
        )
    return out


def _codes(values: pd.Series, column: SourceColumn) -> np.ndarray:
    """Category codes (NaN: missing, or a value not among the categories)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        texts = [str(c) for c in values.cat.categories]
        codes = values.cat.codes.to_numpy()
    else:
        codes, texts = _distinct_texts(values)
    position = {c: float(k) for k, c in enumerate(column.categories)}
    per_text = np.array(
        [position.get(t, np.nan) if t is not None else np.nan for t in texts] + [np.nan]
    )
    return per_text[codes]


def encode_frame(frame: pd.DataFrame, dataset: Dataset, piece: Piece, task: str):
    """``(X, y)`` of a piece's frame: attributes as float64 columns (category codes, NaN
    missing), the target as class codes (or numbers), rows missing the target left out."""
    t = dataset.target
    y_raw = _numbers(frame[t.name], t, piece) if t.kind == NUMERIC else _codes(frame[t.name], t)
    keep = ~np.isnan(y_raw)
    n = int(keep.sum())
    X = np.empty((n, len(dataset.attributes)), dtype=np.float64, order="F")
    for j, column in enumerate(dataset.attributes):
        values = frame[column.name]
        col = _numbers(values, column, piece) if column.kind == NUMERIC else _codes(values, column)
        X[:, j] = col[keep] if n < len(keep) else col
    if task == "regression":
        y = y_raw[keep]
    else:
        if t.kind != NOMINAL:
            raise ArborError(f"classification needs a nominal target, but {t.name!r} is numeric")
        y = y_raw[keep].astype(np.intp)
    return X, y


def encode_piece(piece: Piece, dataset: Dataset, task: str):
    """Read and encode one piece (runs on a worker)."""
    columns = [c.name for c in dataset.attributes] + [dataset.target.name]
    return encode_frame(read_piece(piece, columns, dataset.layout.format), dataset, piece, task)
