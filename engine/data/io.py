"""Reading and writing data tables, the format chosen by the file's extension.

* CSV and TSV (``.tab`` and ``.txt`` are tab-separated too): the delimiter is found from the
  first lines and every cell is read as text, so that :func:`engine.data.table.make_table`
  infers the kinds (:mod:`engine.data.delimited`; encodings in :mod:`engine.data.decoding`).
* ARFF: the declared kinds and value orders (:mod:`engine.data.arff`).
* XLSX and Parquet: typed cells, plus each column's kind and nominal value order,
  which Arbor stores beside the cells when it saves (a hidden sheet ``_arbor``;
  Parquet schema metadata ``arbor``) so that a reload gives the same table.

A file with a header and no rows loads as a table with no rows and a note (the
learners refuse it with their own message). Anything a person opens may be hostile:
only ordinary files are read, with at most ``MAX_COLUMNS`` columns and ``MAX_CELL``
characters in a name or category, a workbook expanding to at most ``XLSX_MAX_XML`` (and
a hundred times its size), nested Parquet columns left out by name. Every failure a
person can cause is one :class:`ArborError` line naming the file. Saves are atomic. A
workbook's text cells are saved as text, so a value such as ``=1+1`` is never a formula
(:mod:`engine.data.cells`); a saved CSV is a data file and keeps its values as they are.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pandas as pd

from engine.atomic import write_atomic
from engine.data.arff import MAX_ATTRIBUTES, read_arff, to_arff
from engine.data.cells import text_cells_as_text
from engine.data.delimited import checked_names, read_delimited
from engine.data.table import IGNORED, NOMINAL, NUMERIC, Table, make_table
from engine.errors import ArborError
from engine.reading import MB, available_memory, check_regular, shown_path

READ_FORMATS = (".csv", ".tsv", ".tab", ".txt", ".arff", ".xlsx", ".parquet")
WRITE_FORMATS = (".csv", ".tsv", ".arff", ".xlsx", ".parquet")
_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": "\t"}
_META_SHEET, _META_KEY = "_arbor", b"arbor"
#: Columns a file may have: every attribute is scored at every node, and a table this wide
#: already takes seconds to read. ARFF's limit is the same number.
MAX_COLUMNS = MAX_ATTRIBUTES
#: Characters in a column name or a category value (longer is free text, or not a table).
MAX_CELL = 100_000


def _check_size(path: Path, size: int) -> None:
    """Refuse a file whose table would not fit: a parsed table takes several times the file."""
    free = available_memory()
    if free is not None and size * 3 > free:
        raise ArborError(
            f"{shown_path(path.name)} is {size / 2**30:.1f} GiB, more than this machine can load "
            f"now ({free / 2**30:.1f} GiB of memory free); use a sample of it"
        )


def _check_magic(path: Path, magic: bytes, what: str) -> None:
    """Name the real trouble when a file is not the binary format its extension says."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    if not head:
        raise ArborError(f"{shown_path(path.name)} is empty")
    if not head.startswith(magic):
        hint = ""
        if head.startswith(b"\xd0\xcf\x11\xe0"):
            hint = " (it is an old .xls workbook; save it as .xlsx)"
        elif all(32 <= b < 127 or b in (9, 10, 13) for b in head):
            hint = " (it looks like text: a CSV with the wrong extension?)"
        raise ArborError(f"{shown_path(path.name)} is not a readable {what}{hint}")


@contextmanager
def _unreadable_as(path: Path, what: str):
    """Any failure of a third-party reader inside becomes one line: ``path`` is not a readable ``what``."""
    try:
        yield
    except (
        ArborError,
        PermissionError,
        MemoryError,
        Warning,
    ):  # warnings: when tests make them errors
        raise
    except Exception as err:  # noqa: BLE001 - openpyxl and pyarrow raise many types for broken files
        raise ArborError(
            f"{shown_path(path.name)} is not a readable {what} ({type(err).__name__})"
        ) from None


#: A workbook's sheets may expand to this much XML, and to at most ``XLSX_MAX_RATIO`` times
#: the file once past ``XLSX_BOMB_FLOOR``: a "zip bomb" is a small file of repeated rows.
XLSX_MAX_XML = 1 << 30
XLSX_MAX_RATIO = 100
XLSX_BOMB_FLOOR = 64 << 20
_FORMULA_WITHOUT_VALUE = re.compile(
    rb"<c\b[^>]*>\s*<f\b[^>]*(?:/>|>[^<]*</f>)\s*(?:<v\s*/>|<v>\s*</v>)?\s*</c>"
)


def _check_workbook(path: Path, name: str) -> list[str]:
    """Refuse a workbook that would expand beyond reason; note formula cells that have no
    saved value (openpyxl, like any reader but a spreadsheet, cannot compute them)."""
    import zipfile

    with _unreadable_as(path, ".xlsx workbook"), zipfile.ZipFile(path) as book:
        members = book.infolist()
        expanded = sum(m.file_size for m in members)
        packed = max(1, sum(m.compress_size for m in members))
        if expanded > XLSX_MAX_XML or (
            expanded > XLSX_BOMB_FLOOR and expanded > XLSX_MAX_RATIO * packed
        ):
            raise ArborError(
                f"{name} expands to {expanded / MB:,.0f} MB from {packed / MB:,.1f} MB; "
                f"Arbor reads workbooks of at most {XLSX_MAX_XML / MB:,.0f} MB "
                f"expanded and {XLSX_MAX_RATIO} times their size"
            )
        free = available_memory()
        if free is not None and 2 * expanded > free:
            raise ArborError(
                f"{name} expands to {expanded / MB:,.0f} MB, more than this machine "
                f"can load now ({free / MB:,.0f} MB of memory free)"
            )
        missing = 0
        for member in members:
            if member.filename.startswith("xl/worksheets/") and member.filename.endswith(".xml"):
                missing += _formulas_without_value(book, member)
    if not missing:
        return []
    return [
        f"{name}: {missing:,} formula cell(s) have no saved value (the workbook was not "
        "recalculated by a spreadsheet program before it was saved); they were read as missing"
    ]


def _formulas_without_value(book, member, chunk: int = 16 << 20) -> int:
    """Formula cells without a cached value in one sheet's XML, read in chunks."""
    count, tail = 0, b""
    with book.open(member) as xml:
        while block := xml.read(chunk):
            data = tail + block
            cut = data.rfind(b"</c>") + 4 if b"</c>" in data else 0  # whole cells only
            count += len(_FORMULA_WITHOUT_VALUE.findall(data, 0, cut))
            tail = data[cut:][-(1 << 16) :]
    return count


def _read_excel(path: Path, name: str) -> tuple[pd.DataFrame, list[str], dict]:
    _check_magic(path, b"PK\x03\x04", ".xlsx workbook")
    notes = _check_workbook(path, name)
    with _unreadable_as(path, ".xlsx workbook"), pd.ExcelFile(path, engine="openpyxl") as book:
        sheets = [s for s in book.sheet_names if s != _META_SHEET]
        frame = pd.read_excel(book, sheet_name=sheets[0], keep_default_na=False, na_values=[""])
        meta = None
        if _META_SHEET in book.sheet_names:
            meta = "".join(
                pd.read_excel(book, sheet_name=_META_SHEET, header=None, dtype=str)[0].dropna()
            )
    if len(sheets) > 1:
        notes.append(f"{name}: read the first of {len(sheets)} sheets, {sheets[0]!r}")
    return frame, notes, _parse_meta(meta)


def _read_parquet(path: Path, name: str) -> tuple[pd.DataFrame, list[str], dict]:
    import pyarrow as pa
    import pyarrow.parquet as pq  # imported here: pyarrow takes a while and few files need it

    _check_magic(path, b"PAR1", "Parquet file")
    with _unreadable_as(path, "Parquet file"):
        parquet = pq.ParquetFile(path)
        schema, meta = parquet.schema_arrow, parquet.metadata
    if len(schema) > MAX_COLUMNS:
        raise ArborError(
            f"{name} has {len(schema):,} columns; Arbor reads at most {MAX_COLUMNS:,} "
            "(every attribute is tried at every node)"
        )
    free = available_memory()
    cells = meta.num_rows * max(1, len(schema))
    if free is not None and 16 * cells > free:
        raise ArborError(
            f"{name} holds {meta.num_rows:,} rows of {len(schema)} columns, more than "
            f"this machine can load now ({free / MB:,.0f} MB of memory free)"
        )
    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    flat = [f.name for f in schema if not pa.types.is_nested(f.type)]
    notes = []
    if nested:
        if not flat:
            raise ArborError(
                f"{name}: every column holds lists, structs or maps, which a tree cannot split on"
            )
        shown = ", ".join(map(repr, nested[:8])) + (", ..." if len(nested) > 8 else "")
        notes.append(
            f"{name}: column(s) {shown} hold lists, structs or maps, which a tree "
            "cannot split on; they were left out"
        )
    with _unreadable_as(path, "Parquet file"):
        data = parquet.read(columns=flat) if nested else parquet.read()
        frame = data.to_pandas()
    return frame, notes, _parse_meta((schema.metadata or {}).get(_META_KEY))


def _meta(table: Table) -> str:
    """What a workbook or Parquet file keeps beside the cells: kinds and nominal value orders."""
    nominal = [n for n, k in table.kinds.items() if k == NOMINAL]
    categories = {n: [str(c) for c in table.frame[n].cat.categories] for n in nominal}
    return json.dumps({"kinds": dict(table.kinds), "categories": categories})


def _parse_meta(text: str | bytes | None) -> dict:
    """The stored kinds and orders; none when they are absent or not Arbor's."""
    try:
        meta = json.loads(text or "null")
        return {"kinds": dict(meta["kinds"]), "categories": dict(meta["categories"])}
    except (ValueError, TypeError, KeyError):
        return {"kinds": {}, "categories": {}}


def _stored_kinds(frame: pd.DataFrame, meta: dict) -> dict[str, str]:
    """Stored nominal and ignored kinds of columns that still exist. Numeric is left to
    inference: a cell typed in since the save may be text."""
    stored = meta["kinds"].items()
    return {n: k for n, k in stored if n in frame.columns and k in (NOMINAL, IGNORED)}


def _with_stored_order(table: Table, meta: dict, overrides: dict[str, str]) -> Table:
    """Put nominal values back in their stored order; values added since the save go last."""
    frame = table.frame
    for name, order in meta["categories"].items():
        if name in overrides or table.kinds.get(name) != NOMINAL or not isinstance(order, list):
            continue
        present = list(frame[name].cat.categories)
        wanted = list(dict.fromkeys([*map(str, order), *present]))
        if wanted != present:
            frame = frame.assign(**{name: frame[name].cat.set_categories(wanted)})
    return table if frame is table.frame else replace(table, frame=frame)


def _default_target(columns: list[str], stored: dict[str, str]) -> str | None:
    """The last column, unless the file marks it ignored: then the last column in use."""
    used = [c for c in columns if stored.get(c) != IGNORED]
    return used[-1] if used and stored.get(columns[-1]) == IGNORED else None


def _check_cells(table: Table, name: str) -> None:
    """Refuse names and category values past ``MAX_CELL`` characters (free text, or a file
    that is not a table); an ignored column is not read as categories and may hold any."""
    dtypes = dict(zip(table.frame.columns, table.frame.dtypes, strict=True))
    longest_of: dict[int, int] = {}  # by dtype: a wide table's columns often share theirs
    for column, kind in table.kinds.items():
        if len(column) > MAX_CELL:
            raise ArborError(
                f"{name}: a column name is {len(column):,} characters long; Arbor "
                f"reads names and values of at most {MAX_CELL:,}"
            )
        if kind == NOMINAL:
            dtype = dtypes[column]
            if id(dtype) not in longest_of:
                categories = dtype.categories
                longest_of[id(dtype)] = int(categories.str.len().max()) if len(categories) else 0
            longest = longest_of[id(dtype)]
            if longest > MAX_CELL:
                raise ArborError(
                    f"{name}: a value of column {column!r} is {longest:,} characters long; Arbor "
                    f"reads values of at most {MAX_CELL:,} (free text? mark the column ignored)"
                )


def _read(path: Path, kinds: dict[str, str], target: str | None) -> Table:
    suffix, name = path.suffix.lower(), shown_path(path.name)
    if suffix == ".arff":
        table = read_arff(path, target=target, kinds=kinds)
        _check_cells(table, name)
        return table
    meta = _parse_meta(None)
    if suffix in _SEPARATORS:
        frame, notes = read_delimited(path, _SEPARATORS[suffix], name, MAX_COLUMNS)
    else:
        frame, notes, meta = (_read_excel if suffix == ".xlsx" else _read_parquet)(path, name)
    if frame.shape[1] == 0:
        raise ArborError(f"{name} has no columns")
    if frame.shape[1] > MAX_COLUMNS:
        raise ArborError(
            f"{name} has {frame.shape[1]:,} columns; Arbor reads at most "
            f"{MAX_COLUMNS:,} (every attribute is tried at every node)"
        )
    frame.columns = checked_names(frame.columns, name)
    if frame.shape[0] == 0:
        notes.append(f"{name} has a header but no rows")
    stored = _stored_kinds(frame, meta)
    target = target if target is not None else _default_target(list(frame.columns), stored)
    table = make_table(frame, target, {**stored, **kinds}, source=str(path), notes=notes)
    _check_cells(table, name)
    return _with_stored_order(table, meta, kinds)


def read_table(
    path: str | Path,
    *,
    target: str | None = None,
    nominal: Iterable[str] = (),
    numeric: Iterable[str] = (),
    ignored: Iterable[str] = (),
) -> Table:
    """Load a data file into a :class:`Table`, the format chosen by the file's extension.

    ``target`` defaults to the last column; ``nominal``, ``numeric`` and ``ignored``
    name columns whose kind is set rather than inferred. Only ordinary files are read
    (a FIFO or a device is refused), within the limits of columns and value length above.

    >>> from engine.data.samples import sample_path
    >>> table = read_table(sample_path("weather"), ignored=["windy"])
    >>> table.frame.shape, table.target, table.attributes
    ((14, 5), 'play', ['outlook', 'temperature', 'humidity'])
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in READ_FORMATS:
        raise ArborError(
            f"cannot read {shown_path(path.name)}: unknown extension {suffix or '(none)'!r}; "
            f"use one of {', '.join(READ_FORMATS)}"
        )
    kinds = {n: NOMINAL for n in nominal} | {n: NUMERIC for n in numeric}
    kinds |= {n: IGNORED for n in ignored}
    status = check_regular(path, "data file")
    try:
        _check_size(path, status.st_size)
        return _read(path, kinds, target)
    except PermissionError:
        raise ArborError(f"cannot read {shown_path(path)}: permission denied") from None
    except FileNotFoundError:
        raise ArborError(
            f"no such file: {shown_path(path)} (it disappeared while loading)"
        ) from None
    except MemoryError:
        raise ArborError(f"{shown_path(path.name)} is too large to load into memory") from None
    except OSError as err:
        raise ArborError(f"cannot read {shown_path(path)}: {err.strerror or err}") from None


def _text_frame(table: Table) -> pd.DataFrame:
    """The frame as CSV writes it best: whole numbers without ".0" (85, not 85.0)."""
    frame = table.frame
    whole = {}
    for name, column in frame.items():
        values = column.dropna()
        if (
            pd.api.types.is_float_dtype(column)
            and (values % 1 == 0).all()
            and (values.abs() < 2**53).all()
        ):
            whole[name] = "Int64"
    return frame.astype(whole)


def _write_excel(table: Table, path: Path) -> None:
    frame = table.frame
    frame = frame.astype(
        {n: object for n, c in frame.items() if isinstance(c.dtype, pd.CategoricalDtype)}
    )
    meta = _meta(table)
    chunks = [meta[i : i + 30_000] for i in range(0, len(meta), 30_000)]  # a cell holds 32,767
    # Built in memory, its bytes written by us: a workbook failing half-written on disk (a
    # full disk) leaves openpyxl's zip file open, whose clean-up at exit fails again and
    # prints an "Exception ignored" traceback after Arbor's own message.
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as book:
        frame.to_excel(book, sheet_name="data", index=False)
        pd.DataFrame(chunks).to_excel(book, sheet_name=_META_SHEET, index=False, header=False)
        book.sheets[_META_SHEET].sheet_state = "hidden"
        for sheet in book.sheets.values():
            text_cells_as_text(sheet)  # "=1+1" is a value, not a formula
    Path(path).write_bytes(buffer.getbuffer())


def _write_parquet(table: Table, where, compression: str = "snappy") -> None:
    """``table`` as Parquet to a path or a binary file object, kinds and orders beside it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = table.frame  # text cells of mixed types (an ignored column) as text, as Arrow needs
    frame = frame.astype({n: "string" for n, c in frame.items() if c.dtype == object})
    data = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = {**(data.schema.metadata or {}), _META_KEY: _meta(table)}
    pq.write_table(data.replace_schema_metadata(metadata), where, compression=compression)


def parquet_bytes(table: Table) -> bytes:
    """``table`` as the bytes of a compressed Parquet file (what a project stores of a big table)."""
    buffer = io.BytesIO()
    _write_parquet(table, buffer, compression="zstd")
    return buffer.getvalue()


def _stored_as(kind: str, arrow_type) -> bool:
    """Whether a Parquet column of ``arrow_type`` can hold a column of ``kind``."""
    import pyarrow as pa

    if pa.types.is_nested(arrow_type):
        return False
    if kind == NUMERIC:
        return (
            pa.types.is_integer(arrow_type)
            or pa.types.is_floating(arrow_type)
            or pa.types.is_null(arrow_type)
        )
    if kind == NOMINAL:
        return any(
            check(arrow_type)
            for check in (
                pa.types.is_string,
                pa.types.is_large_string,
                pa.types.is_dictionary,
                pa.types.is_boolean,
                pa.types.is_integer,
                pa.types.is_floating,
                pa.types.is_null,
            )
        )
    return True


def _check_footer(
    parquet, name: str, columns: list[str], kinds: dict[str, str], rows: int | None, limit: int
) -> None:
    """Refuse, from the footer alone, a Parquet table that is not the one declared or that
    would expand past ``limit`` bytes or the memory free: zstd makes 20 million equal rows
    a few hundred kB, so a small file proves nothing about what reading it takes."""
    meta, schema = parquet.metadata, parquet.schema_arrow
    if list(schema.names) != list(columns) or meta.num_columns != len(columns):
        raise ArborError(
            f"{name} does not have the {len(columns):,} columns the project "
            f"declares (it has {meta.num_columns:,})"
        )
    counted = sum(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
    if counted != meta.num_rows:
        raise ArborError(
            f"{name} is not a readable Parquet table (its footer counts "
            f"{meta.num_rows:,} rows, its row groups {counted:,})"
        )
    if rows is not None and meta.num_rows != rows:
        raise ArborError(
            f"{name} holds {meta.num_rows:,} rows, not the {rows:,} the project "
            "declares; it is not the table Arbor saved"
        )
    for field in schema:
        if not _stored_as(kinds[field.name], field.type):
            raise ArborError(
                f"{name}: column {field.name!r} is stored as {field.type}, which "
                f"cannot hold a {kinds[field.name]} column"
            )
    cells = meta.num_rows * len(columns)
    expanded = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    size = max(expanded, 8 * cells)
    if size > limit:
        raise ArborError(
            f"{name} would expand to {size / MB:,.0f} MB ({meta.num_rows:,} rows of "
            f"{len(columns):,} columns); a project's table is at most "
            f"{limit / MB:,.0f} MB"
        )
    free = available_memory()
    if free is not None and 16 * cells + expanded > free:
        raise ArborError(
            f"{name} holds {meta.num_rows:,} rows of {len(columns):,} columns, more "
            f"than this machine can load now ({free / MB:,.0f} MB of memory free)"
        )


def frame_from_parquet_bytes(
    raw: bytes, name: str, columns: list[str], kinds: dict[str, str], rows: int | None, limit: int
) -> pd.DataFrame:
    """The cells of Parquet bytes written by :func:`parquet_bytes`, as a frame.

    The footer is checked first against the ``columns``, their ``kinds`` and the ``rows``
    the caller declares, and the size they expand to against ``limit`` and the memory free;
    no column is read before. ``name`` labels messages.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not raw.startswith(b"PAR1"):
        raise ArborError(f"{name} is not a readable Parquet table")
    with _unreadable_as(Path(name), "Parquet table"):
        parquet = pq.ParquetFile(pa.BufferReader(raw))
    _check_footer(parquet, name, columns, kinds, rows, limit)
    try:
        with _unreadable_as(Path(name), "Parquet table"):
            return parquet.read().to_pandas()
    except MemoryError:
        raise ArborError(f"{name} is too large to load into memory") from None


def _writer(table: Table, path: Path) -> Callable[[Path], None] | None:
    return {
        ".csv": lambda p: _text_frame(table).to_csv(p, index=False),
        ".tsv": lambda p: _text_frame(table).to_csv(p, index=False, sep="\t"),
        ".arff": lambda p: p.write_text(to_arff(table, path.stem), encoding="utf-8"),
        ".xlsx": lambda p: _write_excel(table, p),
        ".parquet": lambda p: _write_parquet(table, p),
    }.get(path.suffix.lower())


def write_table(table: Table, path: str | Path, replace_read_only: bool = False) -> None:
    """Save ``table`` in the format of ``path``'s extension, atomically.

    The table goes to a temporary file beside ``path`` that replaces it only when
    complete, so a failed save leaves any old file as it was; a read-only file is
    replaced only with ``replace_read_only`` (:class:`engine.atomic.ReadOnlyTarget`
    otherwise). Every format keeps values and missing cells; ARFF, XLSX and Parquet
    also keep kinds and nominal value orders, CSV and TSV only as far as inference finds
    them again.
    """
    path = Path(path)
    writer = _writer(table, path)
    if writer is None:
        raise ArborError(
            f"cannot save as {shown_path(path.suffix) or '(no extension)'}; use one of "
            f"{', '.join(WRITE_FORMATS)}"
        )
    try:
        write_atomic(path, writer, replace_read_only)
    except PermissionError:
        raise ArborError(f"cannot save {shown_path(path)}: permission denied") from None
    except OSError as err:
        raise ArborError(f"cannot save {shown_path(path)}: {err.strerror or err}") from None
