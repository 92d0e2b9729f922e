"""Our own ARFF reader and writer (Weka's attribute-relation file format).

Reads ``@relation``, ``@attribute`` (nominal ``{a, b}`` in declared order,
``numeric``/``real``/``integer``, ``string`` and ``date`` as nominal text),
``%`` comments, quoted names and values, ``?`` for missing, and sparse rows
``{0 x, 3 y}``. Every problem is reported with its line number.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from engine.errors import ArborError
from engine.table import IGNORED, NOMINAL, NUMERIC, Table, make_table

_NUMERIC_TYPES = {"numeric", "real", "integer"}


def _tokens(text: str, where: str) -> list[str]:
    """Split on commas, honouring quotes and backslash escapes.

    Whitespace around an unquoted value is dropped; inside quotes it is kept.
    """
    out: list[str] = []
    buf: list[str] = []
    quote, quoted = None, False
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                buf.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = None
            else:
                buf.append(ch)
        elif ch in "'\"" and not "".join(buf).strip():
            buf, quote, quoted = [], ch, True
        elif ch == ",":
            out.append("".join(buf) if quoted else "".join(buf).strip())
            buf, quoted = [], False
        elif not (quoted and ch.isspace()):
            buf.append(ch)
        i += 1
    if quote:
        raise ArborError(f"{where}: a quote is not closed")
    out.append("".join(buf) if quoted else "".join(buf).strip())
    return out


def _unquote(word: str) -> str:
    word = word.strip()
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", word[1:-1])
    return word


_ATTRIBUTE = re.compile(r"""@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)\s+(.*)$""", re.I)


def _parse_attribute(line: str, where: str):
    m = _ATTRIBUTE.match(line)
    if not m:
        raise ArborError(f"{where}: cannot read the @attribute declaration")
    name, spec = _unquote(m.group(1)), m.group(2).strip()
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise ArborError(f"{where}: the value list of {name!r} is not closed with }}")
        values = [v for v in _tokens(spec[1:-1], where)]
        return name, NOMINAL, values
    kind = spec.split()[0].lower() if spec else ""
    if kind in _NUMERIC_TYPES:
        return name, NUMERIC, None
    if kind in ("string", "date"):
        return name, NOMINAL, None
    if kind == "relational":
        raise ArborError(f"{where}: relational attributes ({name!r}) are not supported")
    raise ArborError(f"{where}: unknown attribute type {spec!r} for {name!r}")


def _row(line: str, n: int, where: str) -> list:
    if line.startswith("{"):
        if not line.endswith("}"):
            raise ArborError(f"{where}: a sparse row must end with }}")
        values: list = [0] * n  # sparse rows leave numeric zeros out
        for item in _tokens(line[1:-1], where):
            if not item:
                continue
            index, _, value = item.partition(" ")
            try:
                k = int(index)
            except ValueError:
                raise ArborError(f"{where}: bad sparse entry {item!r}") from None
            if not 0 <= k < n:
                raise ArborError(f"{where}: sparse index {k} is out of range")
            values[k] = _unquote(value)
        return values
    values = _tokens(line, where)
    if len(values) != n:
        raise ArborError(f"{where}: {len(values)} values, expected {n}")
    return values


def read_arff(path: str | Path, target: str | None = None, kinds=None) -> Table:
    """Read an ARFF file into a :class:`Table` (the target defaults to the last attribute)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        text = path.read_bytes().decode("latin-1")
    names, declared, categories, rows = [], {}, {}, []
    in_data = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{path.name} line {number}"
        if not line or line.startswith("%"):
            continue
        if in_data:
            rows.append(_row(line, len(names), where))
            continue
        keyword = line.split()[0].lower()
        if keyword == "@relation":
            continue
        if keyword == "@attribute":
            name, kind, values = _parse_attribute(line, where)
            if name in declared:
                raise ArborError(f"{where}: attribute {name!r} is declared twice")
            names.append(name)
            declared[name] = kind
            if values is not None:
                categories[name] = values
        elif keyword == "@data":
            if not names:
                raise ArborError(f"{where}: @data comes before any @attribute")
            in_data = True
        else:
            raise ArborError(f"{where}: expected @relation, @attribute or @data, found {line[:40]!r}")
    if not in_data:
        raise ArborError(f"{path.name}: not an ARFF file (no @data section)")
    frame = pd.DataFrame(rows, columns=names, dtype=object) if rows else pd.DataFrame(columns=names)
    for name in names:
        col = frame[name].map(lambda v: np.nan if v in ("?", "") else v)
        if name in categories:
            allowed = set(categories[name])
            bad = col[col.notna() & ~col.isin(allowed)]
            if len(bad):
                raise ArborError(f"{path.name}: value {bad.iloc[0]!r} of {name!r} is not among its "
                                 f"declared values {{{', '.join(categories[name])}}}")
        frame[name] = col
    merged = {**declared, **(kinds or {})}
    return make_table(frame, target=target, kinds=merged, source=str(path), categories=categories)


def _quote(value: str) -> str:
    if value == "" or re.search(r"[\s,'\"{}%?\\]", value):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return value


def to_arff(table: Table, relation: str = "arbor") -> str:
    """ARFF text of ``table`` (ignored columns are kept, as numeric or string as they are)."""
    frame = table.frame
    lines = [f"@relation {_quote(relation)}", ""]
    for name in frame.columns:
        kind = table.kinds[name]
        if kind == NOMINAL or (kind == IGNORED and not pd.api.types.is_numeric_dtype(frame[name])):
            values = [str(c) for c in frame[name].cat.categories] if kind == NOMINAL else None
            spec = "{" + ", ".join(_quote(v) for v in values) + "}" if values is not None else "string"
        else:
            spec = "numeric"
        lines.append(f"@attribute {_quote(str(name))} {spec}")
    lines += ["", "@data"]
    columns = []
    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col) and not isinstance(col.dtype, pd.CategoricalDtype):
            columns.append(["?" if pd.isna(v) else _number(v) for v in col.to_numpy()])
        else:
            columns.append(["?" if pd.isna(v) else _quote(str(v)) for v in col.astype(object)])
    lines += [",".join(row) for row in zip(*columns, strict=True)] if columns else []
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))
