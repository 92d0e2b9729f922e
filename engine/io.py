"""Reading and writing data tables by file extension.

CSV and TSV cells are read as text so that Arbor's own inference (in
:func:`engine.table.make_table`) decides the kinds; ARFF's declared kinds and
value orders win; XLSX and Parquet keep their typed cells. Every failure a
person can cause becomes one :class:`ArborError` line naming the file.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from engine.arff import read_arff, to_arff
from engine.atomic import write_atomic
from engine.errors import ArborError
from engine.table import IGNORED, NOMINAL, NUMERIC, Table, make_table

READ_FORMATS = (".csv", ".tsv", ".tab", ".txt", ".arff", ".xlsx", ".parquet")
WRITE_FORMATS = (".csv", ".tsv", ".arff", ".xlsx", ".parquet")


def available_memory() -> int | None:
    """Bytes of physical memory free now (None where the system does not say)."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _check_size(path: Path) -> None:
    """Refuse a file whose table would not fit: a parsed table takes several times the file."""
    free = available_memory()
    size = path.stat().st_size
    if free is not None and size * 3 > free:
        raise ArborError(f"{path.name} is {size / 2**30:.1f} GiB, more than this machine can load now "
                         f"({free / 2**30:.1f} GiB of memory free); use a sample of it")


def _kinds(nominal: Iterable[str], numeric: Iterable[str], ignored: Iterable[str]) -> dict[str, str]:
    kinds = {n: NOMINAL for n in nominal}
    kinds.update({n: NUMERIC for n in numeric})
    kinds.update({n: IGNORED for n in ignored})
    return kinds


def _decode(path: Path, raw: bytes) -> tuple[str, list[str]]:
    if b"\x00" in raw[:4096]:
        raise ArborError(f"{path.name} is not a text table (it contains binary data)")
    try:
        return raw.decode("utf-8-sig"), []
    except UnicodeDecodeError:
        return raw.decode("latin-1"), [f"{path.name} is not UTF-8; it was read as Latin-1"]


def _read_delimited(path: Path, sep: str) -> tuple[pd.DataFrame, list[str]]:
    text, notes = _decode(path, path.read_bytes())
    if not text.strip():
        raise ArborError(f"{path.name} is empty")
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                            skipinitialspace=True, quoting=csv.QUOTE_MINIMAL)
    except pd.errors.ParserError as err:
        detail = str(err).split("\n")[0]
        raise ArborError(f"{path.name} is malformed: {detail}") from None
    # pandas renames duplicate headers ("a.1"); read the header ourselves to catch them.
    rows = (r for r in csv.reader(io.StringIO(text), delimiter=sep) if r)  # pandas skips blank lines
    header = [h.strip() for h in next(rows, [])]
    if len(header) != frame.shape[1]:
        raise ArborError(f"{path.name} is malformed: its header does not match its columns")
    if any(not h for h in header):
        raise ArborError(f"{path.name}: column {header.index('') + 1} has no name in the header")
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise ArborError(f"{path.name}: duplicate column names: {', '.join(dupes)}")
    frame.columns = header
    if frame.shape[1] == 1 and sep == "," and "\t" in text.splitlines()[0]:
        notes.append(f"{path.name} has one column; is it tab-separated? (use .tsv)")
    return frame, notes


def _read_excel(path: Path) -> pd.DataFrame:
    try:
        return pd.read_excel(path, engine="openpyxl")
    except Exception as err:  # noqa: BLE001 - openpyxl raises many types for bad files
        raise ArborError(f"{path.name} is not a readable .xlsx workbook ({type(err).__name__})") from None


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as err:  # noqa: BLE001 - pyarrow raises many types for bad files
        raise ArborError(f"{path.name} is not a readable Parquet file ({type(err).__name__})") from None


def read_table(path: str | Path, *, target: str | None = None, nominal: Iterable[str] = (),
               numeric: Iterable[str] = (), ignored: Iterable[str] = ()) -> Table:
    """Load a data file into a :class:`Table`, the format chosen by the file's extension.

    Examples
    --------
    >>> from engine.samples import sample_path
    >>> read_table(sample_path("weather")).frame.shape
    (14, 5)
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in READ_FORMATS:
        raise ArborError(f"cannot read {path.name}: unknown extension {suffix or '(none)'!r}; "
                         f"use one of {', '.join(READ_FORMATS)}")
    if path.is_dir():
        raise ArborError(f"{path} is a folder, not a data file")
    if not path.exists():
        raise ArborError(f"no such file: {path}")
    kinds = _kinds(nominal, numeric, ignored)
    try:
        _check_size(path)
        if suffix == ".arff":
            return read_arff(path, target=target, kinds=kinds)
        notes: list[str] = []
        if suffix in (".csv", ".tsv", ".tab", ".txt"):
            frame, notes = _read_delimited(path, "," if suffix == ".csv" else "\t")
        elif suffix == ".xlsx":
            frame = _read_excel(path)
        else:
            frame = _read_parquet(path)
    except PermissionError:
        raise ArborError(f"cannot read {path}: permission denied") from None
    except FileNotFoundError:
        raise ArborError(f"no such file: {path} (it disappeared while loading)") from None
    except MemoryError:
        raise ArborError(f"{path.name} is too large to load into memory") from None
    except OSError as err:
        raise ArborError(f"cannot read {path}: {err.strerror or err}") from None
    if frame.shape[1] == 0:
        raise ArborError(f"{path.name} has no columns")
    return make_table(frame, target=target, kinds=kinds, source=str(path), notes=notes)


def _plain_frame(table: Table) -> pd.DataFrame:
    frame = table.frame.copy()
    for name in frame.columns:
        if isinstance(frame[name].dtype, pd.CategoricalDtype):
            frame[name] = frame[name].astype(object)
    return frame


def write_table(table: Table, path: str | Path) -> None:
    """Save ``table`` atomically; on failure the old file is left as it was."""
    path = Path(path)
    suffix = path.suffix.lower()
    writers = {
        ".csv": lambda p: _plain_frame(table).to_csv(p, index=False),
        ".tsv": lambda p: _plain_frame(table).to_csv(p, index=False, sep="\t"),
        ".arff": lambda p: p.write_text(to_arff(table, path.stem), encoding="utf-8"),
        ".xlsx": lambda p: _plain_frame(table).to_excel(p, index=False, engine="openpyxl"),
        ".parquet": lambda p: table.frame.to_parquet(p, index=False),
    }
    if suffix not in writers:
        raise ArborError(f"cannot save as {suffix or '(no extension)'}; use one of "
                         f"{', '.join(WRITE_FORMATS)}")
    write_atomic(path, writers[suffix])
