"""A whole session in one file: the table, its kinds and target, the settings, the tree
(hand edits included), the canvas's node positions and the runs list (figures; a recovery
file also keeps the trees the runs hold, and where the work came from: see :class:`Origin`).

The file is versioned JSON and holds the table the person sees:

* a table of up to ``EMBED_LIMIT`` cells is embedded as JSON lists;
* a bigger table that equals the data file it was read from (the caller says so by passing
  ``data_path``) is stored as that file's path plus a SHA-256 checksum, so a changed or
  missing file is reported instead of silently used;
* any other bigger table (edited since it was read, or never saved) is embedded as a
  compressed Parquet file (format version 2).

Opening checks everything against what Arbor writes (:mod:`engine.export.model_schema`
for the tree): a damaged or hostile file is one clear :class:`ArborError`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engine.atomic import write_text_atomic
from engine.data.table import KINDS, NOMINAL, Table, declared_nominal, make_table
from engine.errors import ArborError, printable
from engine.export.model_json import tree_from_dict, tree_to_dict
from engine.export.model_schema import check_version, fail, need, number, settings_from, texts
from engine.reading import MB, open_regular, read_json, shown_path
from engine.runs import RunLog, log_from_list, log_to_list
from engine.settings import Settings
from engine.tree import Tree

FORMAT = "arbor-project"
#: 1: tables as JSON or a reference to their file; 2: also as embedded Parquet.
VERSION = 2
EMBED_LIMIT = 2_000_000
#: A project holding a million-row table and its fully grown tree takes a few hundred MB.
PROJECT_LIMIT = 2048 * MB
#: Arbor's own tables stop far below this many columns (see engine.data.io).
MAX_COLUMNS = 100_000
_SHA256 = re.compile(r"[0-9a-f]{64}")
_NODE_ID = re.compile(r"[0-9]{1,12}")


#: The longest path or name an origin may give (a hostile file gives no more).
MAX_PATH_CHARS, MAX_NAME_CHARS = 4096, 200


@dataclass(frozen=True)
class Origin:
    """Where a session's work came from, kept in a recovery file so that Restore gives back
    the session and not only its table: the project it was opened from or saved to (Save
    writes there), the data file its table was read from, or the sample it was loaded from."""

    project_path: str | None = None
    data_path: str | None = None
    sample: str | None = None


@dataclass(frozen=True)
class Project:
    """Everything a saved session restores.

    ``table_is_file`` says the table was read from the data file the project references,
    unchanged (``table.source``); an embedded table keeps the file it came from in
    ``table.source`` for the record, but may differ from it.
    """

    table: Table
    settings: Settings | None = None
    tree: Tree | None = None
    positions: dict[int, tuple[float, float]] = field(default_factory=dict)
    collapsed: tuple[int, ...] = ()
    table_is_file: bool = False
    runs: RunLog | None = None  # the session's runs; their trees only from a recovery file
    origin: Origin | None = None  # a recovery file's: where the work came from


def file_checksum(path: str | Path) -> str:
    """SHA-256 of an ordinary file (a FIFO or device is refused, not read for ever)."""
    fd, _ = open_regular(path, "data file")
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _table_dict(table: Table, data_path: str | None, project_dir: Path) -> tuple[dict, int]:
    """The table's entry and the format version needed to read it."""
    frame = table.frame
    categories = {
        c: [str(v) for v in frame[c].cat.categories]
        for c in frame.columns
        if table.kinds[c] == NOMINAL
    }
    out = {
        "columns": list(frame.columns),
        "kinds": dict(table.kinds),
        "target": table.target,
        "categories": categories,
        "rows": len(frame),
        "source": table.source,
    }
    if frame.size <= EMBED_LIMIT:
        out["data"] = {
            c: [None if _missing(v) else v for v in frame[c].astype(object).tolist()]
            for c in frame.columns
        }
        return out, 1
    if data_path is not None:
        resolved = Path(data_path).resolve()
        out["path"] = str(resolved)
        if resolved.is_relative_to(project_dir.resolve()):  # else only the absolute path is kept
            out["relative"] = resolved.relative_to(project_dir.resolve()).as_posix()
        out["sha256"] = file_checksum(resolved)
        return out, 1
    from engine.data.io import parquet_bytes

    out["parquet"] = base64.b64encode(parquet_bytes(table)).decode("ascii")
    return out, 2


def save_project(
    project: Project,
    path: str | Path,
    data_path: str | None = None,
    replace_read_only: bool = False,
    run_trees: bool = False,
) -> None:
    """Write ``project`` atomically (a read-only file only with ``replace_read_only``).

    ``data_path`` is the data file the table equals, unchanged since it was read or saved
    there: a big table is then referenced rather than embedded. Leave it None whenever the
    table may differ from the file (unsaved edits), and the table itself is stored.
    ``run_trees`` also stores the trees the runs hold (a recovery file: the session whole);
    a run's tree that is the one on screen is stored once.
    """
    path = Path(path)
    table, version = _table_dict(project.table, data_path, path.parent)
    doc = {
        "format": FORMAT,
        "version": version,
        "table": table,
        "settings": asdict(project.settings) if project.settings else None,
        "tree": tree_to_dict(project.tree) if project.tree is not None else None,
        "positions": {str(k): list(v) for k, v in project.positions.items()},
        "collapsed": list(project.collapsed),
    }
    if project.runs is not None and len(project.runs):
        doc["runs"] = log_to_list(project.runs)
        for entry, run in zip(doc["runs"], project.runs, strict=True) if run_trees else ():
            if run.tree is not None and run.tree is project.tree:
                entry["tree_on_screen"] = True
            elif run.tree is not None:
                entry["tree"] = tree_to_dict(run.tree)
    if project.origin is not None:
        doc["origin"] = {k: v for k, v in asdict(project.origin).items() if v is not None}
    try:
        text = json.dumps(doc, default=_plain, allow_nan=False)
    except ValueError:
        raise ArborError(
            "the table or tree holds an infinite number, which a project cannot store"
        ) from None
    write_text_atomic(path, text, replace_read_only)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot store {type(value).__name__} in a project")


# ---------------------------------------------------------------------------- loading
def _cells(values, column: str, rows: int, where: str) -> list:
    need(values, list, where, f"the cells of {column!r}")
    if len(values) != rows:
        fail(where, f"column {column!r} has {len(values)} cells for {rows} rows")
    for v in values:
        if v is not None and not isinstance(v, str | int | float):  # bools are ints
            fail(where, f"a cell of {column!r} is {type(v).__name__}, not a value")
    return values


#: Cells named when a column holds values outside its declared categories.
SHOWN_CELLS = 5


def _as_declared(frame: pd.DataFrame, kinds: dict, categories: dict, where: str) -> pd.DataFrame:
    """``frame`` with its nominal columns made of exactly their declared categories.

    A cell that is neither one of them nor missing is not from Arbor (which saves the
    categories of every value it holds): the project is refused with the column, a few such
    values and their count, rather than loaded with those cells silently missing. Booleans
    read as their text (``true`` as a declared ``true``), never as missing or as ``1``.
    """
    frame = frame.copy(deep=False)
    for name in frame.columns:
        if kinds[name] != NOMINAL:
            continue
        column, stray, count = declared_nominal(frame[name], categories.get(name))
        if stray:
            shown = ", ".join(
                printable(repr(v if len(v) <= 40 else v[:37] + "...")) for v in stray[:SHOWN_CELLS]
            )
            more = f" and {len(stray) - SHOWN_CELLS:,} more" if len(stray) > SHOWN_CELLS else ""
            fail(
                where,
                f"{count:,} cell(s) of {name!r} hold values outside its declared "
                f"categories: {shown}{more}",
            )
        frame[name] = column
    return frame


def _declared(doc: dict, where: str) -> tuple[list[str], dict, str, dict]:
    columns = texts(doc.get("columns"), where, "column names")
    if not columns or len(columns) > MAX_COLUMNS:
        fail(where, f"it has {len(columns)} columns; a table has 1 to {MAX_COLUMNS:,}")
    kinds = need(doc.get("kinds"), dict, where, "the column kinds")
    if set(kinds) != set(columns) or any(k not in KINDS for k in kinds.values()):
        fail(
            where, "the column kinds must name every column once, each nominal, numeric or ignored"
        )
    target = need(doc.get("target"), str, where, "the target")
    if target not in columns:
        fail(where, f"the target {target!r} is not one of its columns")
    categories = need(doc.get("categories", {}), dict, where, "the categories")
    for name, values in categories.items():
        if name not in columns:
            fail(where, f"categories are given for {name!r}, which is not a column")
        texts(values, where, f"categories of {name!r}")
    return columns, kinds, target, categories


def _data_file(doc: dict, base: Path, where: str) -> Path:
    """The referenced data file: a relative path only inside the project's folder."""
    candidates = []
    if "relative" in doc:
        candidates.append(need(doc["relative"], str, where, "the data file's relative path"))
    candidates.append(need(doc.get("path"), str, where, "the data file's path"))
    for k, text in enumerate(candidates):
        if not text or "\x00" in text:
            fail(where, "the data file's path is empty or not a path")
        data_path = Path(text)
        if not data_path.is_absolute():
            data_path = base / data_path
            inside = base.resolve()
            if inside not in (data_path.resolve(), *data_path.resolve().parents):
                raise ArborError(
                    f"{where}: its data file {shown_path(text)} is outside the "
                    "project's folder; a relative path must stay inside it"
                )
        if os.path.lexists(data_path) or k == len(candidates) - 1:
            return data_path
    raise AssertionError("unreachable")


def _table_from(doc, base: Path, where: str) -> tuple[Table, bool]:
    need(doc, dict, where, "the table")
    columns, kinds, target, categories = _declared(doc, where)
    source = doc.get("source")
    source = source if isinstance(source, str) else None
    rows = doc.get("rows")
    if "data" in doc:
        data = need(doc["data"], dict, where, "the table's data")
        if set(data) != set(columns):
            fail(where, "the data must hold every column once")
        rows = (
            len(need(data[columns[0]], list, where, "a column's cells")) if rows is None else rows
        )
        if need(rows, int, where, "the number of rows") < 0:
            fail(where, "the number of rows is negative")
        frame = pd.DataFrame({c: _cells(data[c], c, rows, where) for c in columns}, columns=columns)
        return make_table(
            _as_declared(frame, kinds, categories, where), target=target, kinds=kinds, source=source
        ), False
    if "parquet" in doc:
        from engine.data.io import frame_from_parquet_bytes

        text = need(doc["parquet"], str, where, "the embedded table")
        if rows is not None and need(rows, int, where, "the number of rows") < 0:
            fail(where, "the number of rows is negative")
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raw = None
        if raw is None:
            fail(where, "the embedded table is not valid base64")
        frame = frame_from_parquet_bytes(
            raw, f"{where}: the embedded table", columns, kinds, rows, PROJECT_LIMIT
        )
        return make_table(
            _as_declared(frame, kinds, categories, where), target=target, kinds=kinds, source=source
        ), False
    from engine.data.io import read_table

    data_path = _data_file(doc, base, where)
    checksum = need(doc.get("sha256"), str, where, "the data file's checksum")
    if not _SHA256.fullmatch(checksum):
        fail(where, "the data file's checksum is not a SHA-256")
    if not os.path.lexists(data_path):
        raise ArborError(f"the project's data file {shown_path(data_path)} is missing")
    if file_checksum(data_path) != checksum:
        raise ArborError(
            f"the project's data file {shown_path(data_path)} has changed since the "
            "project was saved (its checksum differs)"
        )
    table = read_table(data_path, target=target)
    if list(table.frame.columns) != columns:
        fail(where, "the data file's columns are not the ones the project declares")
    return table.with_kinds(**kinds), True


def _positions(value, where: str) -> dict[int, tuple[float, float]]:
    need(value, dict, where, "the node positions")
    out = {}
    for key, xy in value.items():
        if not _NODE_ID.fullmatch(key):
            fail(where, f"the node positions are keyed by node id, not {key[:20]!r}")
        need(xy, list, where, "a node position")
        if len(xy) != 2:
            fail(where, "a node position is two numbers")
        out[int(key)] = (number(xy[0], where, "a coordinate"), number(xy[1], where, "a coordinate"))
    return out


def load_project(path: str | Path) -> Project:
    """Read a project file; older versions are read too, newer ones refused with a reason."""
    path = Path(path)
    where = shown_path(path)
    doc = read_json(path, PROJECT_LIMIT, "project file")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ArborError(f"{where} is not an Arbor project file")
    check_version(
        doc,
        where,
        VERSION,
        lambda v: (
            f"{where} was saved by a newer Arbor (project format {v}); this version opens formats "
            f"up to {VERSION}"
        ),
    )
    table, is_file = _table_from(doc.get("table"), path.parent, f"{where}: table")
    settings = settings_from(doc.get("settings"), f"{where}: settings")
    tree = None
    if doc.get("tree") is not None:
        tree = tree_from_dict(doc["tree"], f"{where}: tree")[0]
        missing = [a.name for a in tree.schema.attributes if a.name not in table.frame.columns]
        if missing:
            raise ArborError(
                f"{where}: the tree uses column(s) {', '.join(map(repr, missing))} the table lacks"
            )
    n_nodes = tree.n_nodes if tree is not None else 0
    positions = _positions(doc.get("positions", {}), f"{where}: positions")
    collapsed = need(doc.get("collapsed", []), list, where, "the collapsed nodes")
    for k in (*positions, *collapsed):
        need(k, int, where, "a node id")
        if not 0 <= k < n_nodes:
            fail(where, f"the layout names node {k}, which the tree does not have")
    runs = log_from_list(doc["runs"], f"{where}: runs") if doc.get("runs") is not None else None
    if runs is not None:
        _run_trees(doc["runs"], runs, tree, f"{where}: runs")
    origin = _origin(doc["origin"], f"{where}: origin") if doc.get("origin") is not None else None
    return Project(table, settings, tree, positions, tuple(collapsed), is_file, runs, origin)


def _run_trees(docs: list, runs: RunLog, shown: Tree | None, where: str) -> None:
    """Give ``runs`` the trees a recovery file keeps for them (at most as many as a session
    keeps, each checked as a model file is)."""
    from engine.runs import KEEP_TREES

    kept = [(d["number"], d) for d in docs if "tree" in d or d.get("tree_on_screen") is not None]
    if len(kept) > KEEP_TREES:
        fail(where, f"{len(kept)} runs keep their tree; a session keeps at most {KEEP_TREES}")
    for run_number, entry in kept:
        if entry.get("tree_on_screen") is not None:
            if entry["tree_on_screen"] is not True or "tree" in entry or shown is None:
                fail(
                    where,
                    f"run {run_number} names the tree on screen, which the project does not hold",
                )
            runs.update(run_number, tree=shown)
        else:
            runs.update(
                run_number,
                tree=tree_from_dict(entry["tree"], f"{where}: run {run_number}'s tree")[0],
            )


def _origin(value, where: str) -> Origin:
    """Where a recovery file's work came from, checked: it decides where Save writes."""
    need(value, dict, where, "where the work came from")
    unknown = set(value) - {"project_path", "data_path", "sample"}
    if unknown:
        fail(
            where,
            f"it names {', '.join(sorted(map(repr, unknown)))[:80]}, which is not part of an origin",
        )
    out = {}
    for key in ("project_path", "data_path", "sample"):
        text = value.get(key)
        if text is None:
            continue
        need(text, str, where, key.replace("_", " "))
        if not text or len(text) > MAX_PATH_CHARS or "\x00" in text:
            fail(where, f"the {key.replace('_', ' ')} is empty, too long or not a path")
        out[key] = text
    project_path = out.get("project_path")
    if project_path is not None and (
        not Path(project_path).is_absolute() or Path(project_path).suffix.lower() != ".arbor"
    ):
        fail(where, "the project path must be an absolute path to an .arbor file")
    if out.get("data_path") is not None and not Path(out["data_path"]).is_absolute():
        fail(where, "the data file's path must be absolute")
    if out.get("sample") is not None and (
        len(out["sample"]) > MAX_NAME_CHARS or not out["sample"].isprintable()
    ):
        fail(where, "the sample's name is too long or not one line of text")
    return Origin(**out)
