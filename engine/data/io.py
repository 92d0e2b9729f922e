"""Reading and writing data tables, the format chosen by the file's extension.

* CSV and TSV (``.tab`` and ``.txt`` are tab-separated too): every cell is read
  as text so that :func:`engine.data.table.make_table` infers the kinds (numbers ->
  numeric, else nominal in order of first appearance). UTF-8 with or without a
  BOM; other bytes are read as Latin-1, with a note.
* ARFF: the declared kinds and value orders (:mod:`engine.data.arff`).
* XLSX and Parquet: typed cells, plus each column's kind and nominal value order,
  which Arbor stores beside the cells when it saves (a hidden sheet ``_arbor``;
  Parquet schema metadata ``arbor``) so that a reload gives the same table.

A file with a header and no rows loads as a table with no rows and a note (the
learners refuse it with their own message). Every failure a person can cause is
one :class:`ArborError` line naming the file. Saves are atomic.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pandas as pd

from engine.atomic import write_atomic
from engine.data.arff import decode_text, read_arff, to_arff
from engine.data.table import IGNORED, NOMINAL, NUMERIC, Table, make_table
from engine.errors import ArborError
from engine.reading import available_memory

READ_FORMATS = (".csv", ".tsv", ".tab", ".txt", ".arff", ".xlsx", ".parquet")
WRITE_FORMATS = (".csv", ".tsv", ".arff", ".xlsx", ".parquet")
_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": "\t"}
_META_SHEET, _META_KEY = "_arbor", b"arbor"


def _check_size(path: Path) -> None:
    """Refuse a file whose table would not fit: a parsed table takes several times the file."""
    free, size = available_memory(), path.stat().st_size
    if free is not None and size * 3 > free:
        raise ArborError(
            f"{path.name} is {size / 2**30:.1f} GiB, more than this machine can load now "
            f"({free / 2**30:.1f} GiB of memory free); use a sample of it"
        )


def _read_delimited(path: Path, sep: str) -> tuple[pd.DataFrame, list[str]]:
    text, notes = decode_text(path.read_bytes(), path.name)
    if not text.strip():
        raise ArborError(f"{path.name} is empty")
    frame = _parse_fast(text, sep) if '"' not in text else None
    if frame is None:
        frame = _parse_quoted(path, text, sep)
    header = [str(h).strip() for h in frame.iloc[0]]
    if "" in header:
        raise ArborError(f"{path.name}: column {header.index('') + 1} has no name in the header")
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise ArborError(f"{path.name}: duplicate column names: {', '.join(dupes)}")
    frame = frame.iloc[1:].set_axis(header, axis=1).reset_index(drop=True)
    return frame, notes + _separator_hint(path.name, header, sep)


def _parse_fast(text: str, sep: str) -> pd.DataFrame | None:
    """Arrow's reader (several times quicker) for files without quotes; None to fall back.

    Without quotes, leading blanks cannot hide a quoted field, so not skipping them
    changes nothing: every cell is stripped when the table is made. Arrow refuses a
    ragged row, which then goes to the careful reader to be reported with its line.
    """
    try:
        frame = pd.read_csv(io.StringIO(text), header=None, sep=sep, dtype=str, keep_default_na=False,
                            engine="pyarrow")
    except Exception:  # noqa: BLE001 - any refusal: the careful reader decides and explains
        return None
    return frame.fillna("")


def _parse_quoted(path: Path, text: str, sep: str) -> pd.DataFrame:
    ragged = _ragged_row(text, sep)
    if ragged:  # pandas would pad a short row with empty cells and say nothing
        line, count, expected = ragged
        raise ArborError(
            f"{path.name} is malformed: line {line} has {count} values, expected {expected}"
        )
    options = {"sep": sep, "dtype": str, "keep_default_na": False, "skipinitialspace": True}
    try:
        return pd.read_csv(io.StringIO(text), header=None, **options)
    except (pd.errors.ParserError, csv.Error) as err:
        raise ArborError(f"{path.name} is malformed: {str(err).splitlines()[0]}") from None


def _ragged_row(text: str, sep: str) -> tuple[int, int, int] | None:
    """(line, values, expected) for the first row longer or shorter than the header, if any.

    Blank lines are skipped, as pandas skips them. Without quotes a line is a row and
    counting separators is enough (and quick); with quotes the csv module splits rows.
    """
    if '"' in text:
        reader = csv.reader(io.StringIO(text), delimiter=sep, skipinitialspace=True)
        rows = ((reader.line_num, len(r)) for r in reader if len(r) > 1 or "".join(r).strip())
    else:
        lines = enumerate(text.split("\n"), start=1)
        rows = ((n, line.count(sep) + 1) for n, line in lines if line.strip())
    try:
        _, expected = next(rows)
        return next(((n, count, expected) for n, count in rows if count != expected), None)
    except (StopIteration, csv.Error):  # a row the csv module refuses: pandas will judge it
        return None


def _separator_hint(name: str, header: list[str], sep: str) -> list[str]:
    """A note when a file read as one column looks separated by something else."""
    hints = {";": "semicolons", "\t": "tabs (name it .tsv)", ",": "commas (name it .csv)"}
    for other, hint in hints.items():
        if len(header) == 1 and other != sep and other in header[0]:
            return [f"{name} has one column; is it separated by {hint}?"]
    return []


def _check_magic(path: Path, magic: bytes, what: str) -> None:
    """Name the real trouble when a file is not the binary format its extension says."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    if not head:
        raise ArborError(f"{path.name} is empty")
    if not head.startswith(magic):
        hint = ""
        if head.startswith(b"\xd0\xcf\x11\xe0"):
            hint = " (it is an old .xls workbook; save it as .xlsx)"
        elif all(32 <= b < 127 or b in (9, 10, 13) for b in head):
            hint = " (it looks like text: a CSV with the wrong extension?)"
        raise ArborError(f"{path.name} is not a readable {what}{hint}")


@contextmanager
def _unreadable_as(path: Path, what: str):
    """Any failure of a third-party reader inside becomes one line: ``path`` is not a readable ``what``."""
    try:
        yield
    except (PermissionError, MemoryError, Warning):  # a warning only when tests make it an error
        raise
    except Exception as err:  # noqa: BLE001 - openpyxl and pyarrow raise many types for broken files
        raise ArborError(f"{path.name} is not a readable {what} ({type(err).__name__})") from None


def _read_excel(path: Path) -> tuple[pd.DataFrame, list[str], dict]:
    _check_magic(path, b"PK\x03\x04", ".xlsx workbook")
    with _unreadable_as(path, ".xlsx workbook"), pd.ExcelFile(path, engine="openpyxl") as book:
        sheets = [s for s in book.sheet_names if s != _META_SHEET]
        frame = pd.read_excel(book, sheet_name=sheets[0], keep_default_na=False, na_values=[""])
        meta = None
        if _META_SHEET in book.sheet_names:
            meta = "".join(
                pd.read_excel(book, sheet_name=_META_SHEET, header=None, dtype=str)[0].dropna()
            )
    notes = []
    if len(sheets) > 1:
        notes.append(f"{path.name}: read the first of {len(sheets)} sheets, {sheets[0]!r}")
    return frame, notes, _parse_meta(meta)


def _read_parquet(path: Path) -> tuple[pd.DataFrame, list[str], dict]:
    import pyarrow.parquet as pq  # imported here: pyarrow takes a while and few files need it

    _check_magic(path, b"PAR1", "Parquet file")
    with _unreadable_as(path, "Parquet file"):
        data = pq.read_table(path)
        frame = data.to_pandas()
    return frame, [], _parse_meta((data.schema.metadata or {}).get(_META_KEY))


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


def _read(path: Path, kinds: dict[str, str], target: str | None) -> Table:
    suffix = path.suffix.lower()
    if suffix == ".arff":
        return read_arff(path, target=target, kinds=kinds)
    meta = _parse_meta(None)
    if suffix in _SEPARATORS:
        frame, notes = _read_delimited(path, _SEPARATORS[suffix])
    else:
        frame, notes, meta = (_read_excel if suffix == ".xlsx" else _read_parquet)(path)
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.shape[1] == 0:
        raise ArborError(f"{path.name} has no columns")
    if frame.shape[0] == 0:
        notes.append(f"{path.name} has a header but no rows")
    stored = _stored_kinds(frame, meta)
    target = target if target is not None else _default_target(list(frame.columns), stored)
    table = make_table(frame, target, {**stored, **kinds}, source=str(path), notes=notes)
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
    name columns whose kind is set rather than inferred.

    >>> from engine.data.samples import sample_path
    >>> table = read_table(sample_path("weather"), ignored=["windy"])
    >>> table.frame.shape, table.target, table.attributes
    ((14, 5), 'play', ['outlook', 'temperature', 'humidity'])
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in READ_FORMATS:
        raise ArborError(
            f"cannot read {path.name}: unknown extension {suffix or '(none)'!r}; "
            f"use one of {', '.join(READ_FORMATS)}"
        )
    if path.is_dir():
        raise ArborError(f"{path} is a folder, not a data file")
    if not path.exists():
        raise ArborError(f"no such file: {path}")
    kinds = {n: NOMINAL for n in nominal} | {n: NUMERIC for n in numeric}
    kinds |= {n: IGNORED for n in ignored}
    try:
        _check_size(path)
        return _read(path, kinds, target)
    except PermissionError:
        raise ArborError(f"cannot read {path}: permission denied") from None
    except FileNotFoundError:
        raise ArborError(f"no such file: {path} (it disappeared while loading)") from None
    except MemoryError:
        raise ArborError(f"{path.name} is too large to load into memory") from None
    except OSError as err:
        raise ArborError(f"cannot read {path}: {err.strerror or err}") from None


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
    with pd.ExcelWriter(path, engine="openpyxl") as book:
        frame.to_excel(book, sheet_name="data", index=False)
        pd.DataFrame(chunks).to_excel(book, sheet_name=_META_SHEET, index=False, header=False)
        book.sheets[_META_SHEET].sheet_state = "hidden"


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


def table_from_parquet_bytes(raw: bytes, name: str, target: str | None,
                             kinds: dict[str, str], categories: dict) -> Table:
    """The table in Parquet bytes written by :func:`parquet_bytes`; ``name`` labels messages."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not raw.startswith(b"PAR1"):
        raise ArborError(f"{name} is not a readable Parquet table")
    with _unreadable_as(Path(name), "Parquet table"):
        frame = pq.read_table(pa.BufferReader(raw)).to_pandas()
    return make_table(frame, target, kinds, categories=categories)


def _writer(table: Table, path: Path) -> Callable[[Path], None] | None:
    return {
        ".csv": lambda p: _text_frame(table).to_csv(p, index=False),
        ".tsv": lambda p: _text_frame(table).to_csv(p, index=False, sep="\t"),
        ".arff": lambda p: p.write_text(to_arff(table, path.stem), encoding="utf-8"),
        ".xlsx": lambda p: _write_excel(table, p),
        ".parquet": lambda p: _write_parquet(table, p),
    }.get(path.suffix.lower())


def write_table(table: Table, path: str | Path) -> None:
    """Save ``table`` in the format of ``path``'s extension, atomically.

    The table goes to a temporary file beside ``path`` that replaces it only when
    complete, so a failed save leaves any old file as it was. Every format keeps
    values and missing cells; ARFF, XLSX and Parquet also keep kinds and nominal
    value orders, CSV and TSV only as far as inference finds them again.
    """
    path = Path(path)
    writer = _writer(table, path)
    if writer is None:
        raise ArborError(
            f"cannot save as {path.suffix or '(no extension)'}; use one of {', '.join(WRITE_FORMATS)}"
        )
    if path.is_dir():
        raise ArborError(f"cannot save {path}: it is a folder")
    try:
        write_atomic(path, writer)
    except PermissionError:
        raise ArborError(f"cannot save {path}: permission denied") from None
    except OSError as err:
        raise ArborError(f"cannot save {path}: {err.strerror or err}") from None
