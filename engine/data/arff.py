"""Our own reader and writer for ARFF, the attribute-relation file format of Weka.

The reader understands ``@relation``; ``@attribute NAME TYPE`` where TYPE is a
nominal list ``{a, b, ...}`` (kept in its declared order), ``numeric``, ``real``,
``integer``, ``string`` or ``date [FORMAT]`` (both read as nominal text, values
in order of first appearance, with a note); ``@data`` with dense rows ``a, 1, ?`` or sparse
rows ``{0 a, 3 7}``. Keywords are case-insensitive, ``%`` starts a comment,
names and values may be quoted with ``'`` or ``"`` (backslash escapes such as
``\\'`` and ``\\n``), and an unquoted ``?`` is missing (a quoted ``'?'`` is the
text ``?``, as in Weka). Every problem is one :class:`ArborError` naming the
file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.decoding import decode_text
from engine.data.table import IGNORED, NOMINAL, NUMERIC, Table, make_table
from engine.errors import ArborError
from engine.reading import read_bounded, shown_path

#: More attributes than this are refused while the header is read (see engine.data.io).
MAX_ATTRIBUTES = 5_000

_NUMERIC_TYPES = frozenset({"numeric", "real", "integer"})
_TOKEN = re.compile(
    r"""\s*(?:(%.*)|([,{}])|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^\s,{}%'"]+))"""
)
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_PLAIN_ROW = re.compile(r"""[^'"{}%]*""")  # rows that a plain split on commas reads right
_NEEDS_QUOTES = re.compile(r"""[\s,'"{}%\\]""")


@dataclass(frozen=True)
class _Token:
    text: str
    quoted: bool = False
    punct: bool = False  # one of , { }


@dataclass
class _Attribute:
    name: str
    kind: str  # "nominal", "numeric", "string" or "date"
    values: list[str] | None = None  # the declared values of a nominal attribute
    cells: list[str | None] = field(default_factory=list)


def _lex(line: str, where: str) -> list[_Token]:
    """Words, quoted strings and the punctuation ``, { }``; ``%`` outside quotes ends the line."""
    tokens: list[_Token] = []
    position, end = 0, len(line.rstrip())
    while position < end:
        match = _TOKEN.match(line, position)
        if match is None:
            raise ArborError(f"{where}: a quote ({line[position:].lstrip()[0]}) is not closed")
        comment, punct, single, double, word = match.groups()
        if comment is not None:
            break
        if punct is not None or word is not None:
            tokens.append(_Token(punct or word, punct=punct is not None))
        else:
            text = single if single is not None else double
            tokens.append(_Token(_ESCAPE.sub(lambda m: _ESCAPES.get(m[1], m[1]), text), True))
        position = match.end()
    return tokens


def _groups(tokens: list[_Token], where: str) -> list[list[_Token]]:
    """The words between commas; a brace among them is an error."""
    groups: list[list[_Token]] = [[]]
    for token in tokens:
        if token.punct and token.text != ",":
            raise ArborError(f"{where}: unexpected {token.text!r} in a list of values")
        if token.punct:
            groups.append([])
        else:
            groups[-1].append(token)
    return groups


def _fields(tokens: list[_Token], where: str) -> list[_Token | None]:
    """Comma-separated values, None for an empty one; unquoted words in one value join."""
    fields: list[_Token | None] = []
    for words in _groups(tokens, where):
        if len(words) > 1 and any(w.quoted for w in words):
            raise ArborError(f"{where}: unexpected text beside the quoted {words[0].text!r}")
        fields.append(_Token(" ".join(w.text for w in words), words[0].quoted) if words else None)
    return fields


def _attribute(tokens: list[_Token], where: str) -> _Attribute:
    if len(tokens) < 3 or tokens[1].punct:
        raise ArborError(f"{where}: an @attribute needs a name and a type")
    name, spec = tokens[1].text, tokens[2:]
    if spec[0].punct and spec[0].text == "{":
        if not (spec[-1].punct and spec[-1].text == "}"):
            raise ArborError(f"{where}: the value list of {name!r} is not closed with }}")
        values = [v.text if v else "" for v in _fields(spec[1:-1], where)]
        if "" in values or len(set(values)) < len(values):
            raise ArborError(f"{where}: the value list of {name!r} has an empty or repeated value")
        return _Attribute(name, NOMINAL, values)
    kind = spec[0].text.lower()
    if kind in _NUMERIC_TYPES or kind == "string":
        if len(spec) > 1:
            raise ArborError(f"{where}: unexpected {spec[1].text!r} after the type of {name!r}")
        return _Attribute(name, NUMERIC if kind in _NUMERIC_TYPES else "string")
    if kind == "date":
        return _Attribute(name, "date")
    raise ArborError(
        f"{where}: unknown attribute type {spec[0].text!r} for {name!r}; "
        "use {a, b, ...}, numeric, real, integer, string or date"
    )


def _dense(line: str, n: int, where: str) -> list[str | None]:
    if _PLAIN_ROW.fullmatch(line):
        cells = [None if c in ("?", "") else c for c in map(str.strip, line.split(","))]
    else:
        fields = _fields(_lex(line, where), where)
        cells = [None if f is None or (f.text == "?" and not f.quoted) else f.text for f in fields]
    if len(cells) != n:
        raise ArborError(f"{where}: {len(cells)} values, expected {n}")
    return cells


def _sparse(line: str, attributes: list[_Attribute], where: str) -> list[str | None]:
    """A sparse row. Left-out attributes are 0 if numeric, else the first declared value
    (as in Weka); a left-out string or date is missing."""
    tokens = _lex(line, where)
    braces = [t for t in tokens if t.punct and t.text != ","]
    if len(braces) != 2 or braces[1] is not tokens[-1] or tokens[-1].text != "}":
        raise ArborError(
            f"{where}: a sparse row is one {{...}} (instance weights are not supported)"
        )
    cells = ["0" if a.kind == NUMERIC else (a.values or [None])[0] for a in attributes]
    for entry in filter(None, _groups(tokens[1:-1], where)):
        if len(entry) != 2 or entry[0].quoted or not entry[0].text.isdigit():
            raise ArborError(f"{where}: a sparse entry must be 'INDEX VALUE'")
        index, value = int(entry[0].text), entry[1]
        if index >= len(attributes):
            raise ArborError(f"{where}: sparse index {index} is past the last attribute")
        cells[index] = None if value.text == "?" and not value.quoted else value.text
    return cells


def _column(attribute: _Attribute, lines: list[int], name: str) -> pd.Series:
    """The attribute's cells as float64, or as a Categorical in the declared order."""
    cells = attribute.cells
    if attribute.kind == NUMERIC:
        out = np.empty(len(cells))
        for i, cell in enumerate(cells):
            try:
                out[i] = np.nan if cell is None else float(cell)
            except ValueError:
                raise ArborError(
                    f"{name} line {lines[i]}: {attribute.name!r} is numeric but {cell!r} is not a number"
                ) from None
        return pd.Series(out, name=attribute.name)
    categories = attribute.values
    if categories is None:  # string and date: order of first appearance
        categories = list(dict.fromkeys(c for c in cells if c is not None))
    code = {value: k for k, value in enumerate(categories)}
    codes = np.fromiter((-1 if c is None else code.get(c, -2) for c in cells), np.int64, len(cells))
    if (codes == -2).any():
        i = int(np.argmax(codes == -2))
        declared = ", ".join(categories[:12]) + (", ..." if len(categories) > 12 else "")
        raise ArborError(
            f"{name} line {lines[i]}: value {cells[i]!r} of {attribute.name!r} is not among "
            f"its declared values {{{declared}}}"
        )
    return pd.Series(pd.Categorical.from_codes(codes, categories=categories), name=attribute.name)


def _header(
    tokens: list[_Token], attributes: list[_Attribute], names: set[str], where: str
) -> bool:
    """Take in one header line; True when it is ``@data``."""
    keyword = "" if tokens[0].quoted else tokens[0].text.lower()
    if keyword == "@attribute":
        attribute = _attribute(tokens, where)
        if attribute.name in names:
            raise ArborError(f"{where}: attribute {attribute.name!r} is declared twice")
        if len(attributes) == MAX_ATTRIBUTES:
            raise ArborError(
                f"{where}: more than {MAX_ATTRIBUTES:,} attributes; Arbor reads at "
                "most that many (every one is tried at every node)"
            )
        names.add(attribute.name)
        attributes.append(attribute)
    elif keyword == "@data" and not attributes:
        raise ArborError(f"{where}: @data comes before any @attribute")
    elif keyword not in ("@relation", "@data"):
        found = tokens[0].text[:40]
        raise ArborError(f"{where}: expected @relation, @attribute or @data, found {found!r}")
    return keyword == "@data"


def parse_arff(text: str, name: str) -> tuple[pd.DataFrame, dict[str, str], list[str]]:
    """Parse ARFF ``text`` into (frame, declared kinds, notes); ``name`` labels the messages.

    Nominal, string and date columns come back as Categoricals, numeric ones as float64.

    >>> frame, kinds, _ = parse_arff("@relation r\\n@attribute a {y, x}\\n@data\\nx\\n?", "r.arff")
    >>> frame["a"].tolist(), list(frame["a"].cat.categories), kinds
    (['x', nan], ['y', 'x'], {'a': 'nominal'})
    """
    attributes: list[_Attribute] = []
    names: set[str] = set()
    lines: list[int] = []
    in_data = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        where = f"{name} line {number}"
        if not in_data:
            tokens = _lex(line, where)
            in_data = bool(tokens) and _header(tokens, attributes, names, where)
            continue
        sparse = line.startswith("{")
        cells = _sparse(line, attributes, where) if sparse else _dense(line, len(attributes), where)
        for attribute, cell in zip(attributes, cells, strict=True):
            attribute.cells.append(cell)
        lines.append(number)
    if not in_data:
        raise ArborError(f"{name} is not an ARFF file: it has no @data line")
    frame = pd.concat([_column(a, lines, name) for a in attributes], axis=1)
    kinds = {a.name: NUMERIC if a.kind == NUMERIC else NOMINAL for a in attributes}
    dates = [a.name for a in attributes if a.kind == "date"]
    notes = [f"{name}: date attribute(s) {', '.join(dates)} read as nominal text"] if dates else []
    texts = [
        f"{a.name!r} ({len(frame[a.name].cat.categories)} different texts)"
        for a in attributes
        if a.kind == "string"
    ]
    if texts:
        # Weka's J48 and Id3 refuse string attributes; Arbor learns from them as nominal
        # (each text a category), which suits short labels but not free text.
        notes.append(
            f"{name}: string attribute(s) {', '.join(texts)} read as nominal, one "
            "category per text (Weka's J48 and Id3 refuse string attributes): mark a "
            "free-text column ignored, or turn its words into attributes first "
            "(e.g. Weka's StringToWordVector)"
        )
    return frame, kinds, notes


def read_arff(path: str | Path, target: str | None = None, kinds=None) -> Table:
    """Read an ARFF file into a :class:`Table` (the target defaults to the last attribute).

    ``kinds`` overrides declared kinds by column name, e.g. ``{"id": "ignored"}``.

    >>> from engine.data.samples import sample_path
    >>> table = read_arff(sample_path("weather"))
    >>> table.target, list(table.frame["outlook"].cat.categories)
    ('play', ['sunny', 'overcast', 'rainy'])
    """
    path = Path(path)
    name = shown_path(path.name)
    text, notes = decode_text(read_bounded(path, 1 << 40, "data file"), name)
    frame, declared, more = parse_arff(text, name)
    kinds = {**declared, **(kinds or {})}
    return make_table(frame, target, kinds, source=str(path), notes=notes + more)


def quote(value: str) -> str:
    """``value`` as an ARFF word, quoted and escaped when it has to be.

    >>> quote("sunny"), quote("over cast"), quote("?"), quote("it's")
    ('sunny', "'over cast'", "'?'", "'it\\\\'s'")
    """
    if value and value != "?" and not _NEEDS_QUOTES.search(value):
        return value
    for plain, escaped in (
        ("\\", "\\\\"),
        ("'", "\\'"),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\t", "\\t"),
    ):
        value = value.replace(plain, escaped)
    return f"'{value}'"


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def _declaration(table: Table, name: str) -> str:
    column, kind = table.frame[name], table.kinds[name]
    if kind == NOMINAL and len(column.cat.categories):
        return "{" + ", ".join(quote(str(c)) for c in column.cat.categories) + "}"
    if kind == NUMERIC or (kind == IGNORED and pd.api.types.is_numeric_dtype(column)):
        return "numeric"
    return "string"  # an ignored text column, or a nominal one with no values at all


def to_arff(table: Table, relation: str = "arbor") -> str:
    """The ARFF text of ``table``: nominal values declared in order, ``?`` for missing.

    ARFF has no ignored columns: one is written as numeric or string and reads back so.

    >>> print(to_arff(make_table(pd.DataFrame({"x": [1.5, None], "y": ["a b", "c"]})), "r"))
    ... # doctest: +NORMALIZE_WHITESPACE
    @relation r
    @attribute x numeric
    @attribute y {'a b', c}
    @data
    1.5,'a b'
    ?,c
    """
    specs = {name: _declaration(table, name) for name in table.frame.columns}
    lines = [f"@relation {quote(relation)}", ""]
    lines += [f"@attribute {quote(name)} {spec}" for name, spec in specs.items()]
    lines += ["", "@data"]
    columns = []
    for name, spec in specs.items():
        values = table.frame[name].to_numpy(dtype=object)
        text = (lambda v: _number(float(v))) if spec == "numeric" else (lambda v: quote(str(v)))
        columns.append(["?" if pd.isna(v) else text(v) for v in values])
    lines += [",".join(row) for row in zip(*columns, strict=True)]
    return "\n".join(lines) + "\n"
