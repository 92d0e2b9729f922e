"""Delimited text tables (CSV, TSV): which character separates the values, the header, rows
of the wrong length, and decimal commas.

Every cell is read as text, so that :func:`engine.data.table.make_table` infers the kinds.
The delimiter is found from the first lines, among comma, semicolon, tab and pipe: the one
that splits every line into the same number of values, and the most of them (ties go to the
extension's own). A note says so when it is not the extension's. With a delimiter other than
the comma, a column whose values are all numbers written with a decimal comma (``1,5``,
``1.234,5``), as spreadsheets in much of Europe save them, is read as numbers.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.decoding import decode_text
from engine.data.table import MISSING_TOKENS
from engine.errors import ArborError
from engine.reading import read_bounded

DELIMITERS = (",", ";", "\t", "|")
_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "pipes (|)"}
_SAMPLE_CHARS = 1 << 16
_SAMPLE_LINES = 20
_QUOTED = re.compile(r'"(?:[^"]|"")*"')
_DECIMAL_COMMA = r"[+-]?(?:\d+|\d{1,3}(?:\.\d{3})+)(?:,\d+)?"


def detect_delimiter(text: str, default: str) -> str:
    """The delimiter of a delimited table, from its first lines.

    >>> detect_delimiter("a;b;class\\n1;x;yes\\n2;y;no\\n", ",")
    ';'
    >>> detect_delimiter('name,note\\n"a; b",x\\n"c; d",y\\n', ",")
    ','
    """
    sample = text[:_SAMPLE_CHARS]
    if len(text) > _SAMPLE_CHARS:
        sample = sample[: sample.rfind("\n") + 1] or sample  # whole lines only
    sample = _QUOTED.sub('""', sample)  # a delimiter inside quotes separates nothing
    lines = [line for line in sample.split("\n") if line.strip()][:_SAMPLE_LINES]
    if not lines:
        return default
    best, best_key = default, None
    for candidate in DELIMITERS:
        counts = [line.count(candidate) for line in lines]
        if counts[0] == 0:
            continue
        agreement = sum(c == counts[0] for c in counts) / len(counts)
        key = (agreement, candidate == default, counts[0])
        if best_key is None or key > best_key:
            best, best_key = candidate, key
    return best


def _header_width(text: str, sep: str) -> int:
    """Values in the header line; counted with the csv module only when quotes could hide
    delimiters (a header can be 25 million commas long)."""
    header = text[: text.find("\n")] if "\n" in text else text
    width = header.count(sep) + 1
    if '"' in header:
        width = min(width, len(next(csv.reader([header], delimiter=sep), [])) or 1)
    return width


def read_delimited(
    path: Path, default_sep: str, name: str, max_columns: int
) -> tuple[pd.DataFrame, list[str]]:
    """The cells of a delimited file as text, with the header as column names."""
    text, notes = decode_text(read_bounded(path, 1 << 40, "data file"), name)
    if not text.strip():
        raise ArborError(f"{name} is empty")
    sep = detect_delimiter(text, default_sep)
    if sep != default_sep:
        notes.append(
            f"{name} is separated by {_NAMES[sep]}, not {_NAMES[default_sep]}; it was read so"
        )
    width = _header_width(text.lstrip("\n"), sep)
    if width > max_columns:
        raise ArborError(
            f"{name} has {width:,} columns; Arbor reads at most {max_columns:,} "
            "(every attribute is tried at every node)"
        )
    parsed = _parse_fast(text, sep) if '"' not in text else None
    if parsed is None:
        frame = _parse_quoted(name, text, sep)
        parsed = list(frame.iloc[0]), frame.iloc[1:].reset_index(drop=True)
    header, frame = parsed
    frame = frame.set_axis(checked_names(header, name), axis=1)
    if sep != ",":
        notes += _decimal_commas(frame, name)
    return frame, notes


def checked_names(names, name: str) -> list[str]:
    """Column names as text without surrounding blanks; a blank or repeated one is refused
    by position and name (any format's header)."""
    names = [str(n).strip() for n in names]
    if "" in names:
        raise ArborError(f"{name}: column {names.index('') + 1} has no name in the header")
    seen: set[str] = set()
    dupes = [n for n in names if n in seen or seen.add(n)]
    if dupes:
        shown = ", ".join(repr(n) for n in dict.fromkeys(dupes))
        raise ArborError(f"{name}: duplicate column names: {shown}")
    return names


def _parse_fast(text: str, sep: str) -> tuple[list[str], pd.DataFrame] | None:
    """The header and the rows below it, by Arrow's reader (several times quicker) for files
    without quotes; None to fall back.

    Without quotes, leading blanks cannot hide a quoted field, so not skipping them
    changes nothing: every cell is stripped when the table is made. Arrow refuses a
    ragged row, which then goes to the careful reader to be reported with its line.
    Arrow is called directly, with the options ``pandas.read_csv(engine="pyarrow",
    dtype=str, keep_default_na=False)`` gives it: pandas then converts every column to the
    type it already has, one at a time, which took seconds on a table of 5,000 columns.
    """
    import pyarrow as pa
    import pyarrow.csv as arrow_csv

    try:
        data = arrow_csv.read_csv(
            io.BytesIO(text.encode("utf-8")),
            read_options=arrow_csv.ReadOptions(autogenerate_column_names=True),
            parse_options=arrow_csv.ParseOptions(delimiter=sep),
            convert_options=arrow_csv.ConvertOptions(
                default_column_type=pa.string(), null_values=[], strings_can_be_null=False
            ),
        )
        if data.num_rows == 0:
            return None
        text_type = pd.Series(
            dtype=str
        ).dtype  # what dtype=str reads: "str" (pandas 3), else object
        mapper = None if text_type == np.dtype(object) else {pa.string(): text_type}.get
        frame = data.slice(1).to_pandas(types_mapper=mapper)
    except Exception:  # noqa: BLE001 - any refusal: the careful reader decides and explains
        return None
    return [column[0].as_py() for column in data.columns], frame


def _parse_quoted(name: str, text: str, sep: str) -> pd.DataFrame:
    ragged = _ragged_row(text, sep)
    if ragged:  # pandas would pad a short row with empty cells and say nothing
        line, count, expected = ragged
        raise ArborError(
            f"{name} is malformed: line {line} has {count} values, expected {expected}"
        )
    options = {"sep": sep, "dtype": str, "keep_default_na": False, "skipinitialspace": True}
    try:
        return pd.read_csv(io.StringIO(text), header=None, **options)
    except (pd.errors.ParserError, csv.Error) as err:
        raise ArborError(f"{name} is malformed: {str(err).splitlines()[0]}") from None


def _ragged_row(text: str, sep: str) -> tuple[int, int, int] | None:
    """(line, values, expected) for the first row longer or shorter than the header, if any.

    Blank lines are skipped, as pandas skips them. Without quotes a line is a row and
    counting separators is enough (and quick); with quotes the csv module splits rows.
    Line endings are plain line breaks by now (:func:`engine.data.decoding.decode_text`).
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


def _decimal_commas(frame: pd.DataFrame, name: str) -> list[str]:
    """Turn columns of numbers written with decimal commas into numbers written with points."""
    converted = []
    for column in frame.columns:
        values = frame[column]
        if not values.str.contains(",", regex=False).any():
            continue
        text = values.str.strip()
        present = ~text.isin(MISSING_TOKENS)
        if not text[present].str.fullmatch(_DECIMAL_COMMA).all():
            continue
        numbers = text.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        frame[column] = numbers.where(present, text)
        converted.append(column)
    if not converted:
        return []
    shown = ", ".join(map(repr, converted[:5])) + (", ..." if len(converted) > 5 else "")
    return [f"{name}: decimal commas read as numbers in {shown}"]
