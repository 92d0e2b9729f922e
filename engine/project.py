"""A whole session in one file: the table, its kinds and target, the settings, the tree
(hand edits included) and the canvas's node positions.

The file is versioned JSON. Small tables are embedded; a table larger than
``EMBED_LIMIT`` cells is stored as the path of its data file plus a SHA-256
checksum, so a changed or missing file is reported instead of silently used.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engine.atomic import write_text_atomic
from engine.data.table import NOMINAL, Table, make_table
from engine.errors import ArborError
from engine.export.model_json import tree_from_dict, tree_to_dict
from engine.settings import Settings, resolve
from engine.tree import Tree

FORMAT = "arbor-project"
VERSION = 1
EMBED_LIMIT = 2_000_000


@dataclass(frozen=True)
class Project:
    """Everything a saved session restores."""

    table: Table
    settings: Settings | None = None
    tree: Tree | None = None
    positions: dict[int, tuple[float, float]] = field(default_factory=dict)
    collapsed: tuple[int, ...] = ()


def file_checksum(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _table_dict(table: Table, data_path: str | None) -> dict:
    frame = table.frame
    categories = {c: list(frame[c].cat.categories) for c in frame.columns
                  if table.kinds[c] == NOMINAL}
    out = {"columns": list(frame.columns), "kinds": dict(table.kinds), "target": table.target,
           "categories": categories}
    if frame.size <= EMBED_LIMIT or data_path is None:
        out["data"] = {c: [None if _missing(v) else v for v in frame[c].astype(object).tolist()]
                       for c in frame.columns}
    else:
        out["path"] = str(Path(data_path).resolve())
        out["sha256"] = file_checksum(data_path)
    return out


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def save_project(project: Project, path: str | Path, data_path: str | None = None) -> None:
    """Write ``project`` atomically; ``data_path`` lets a big table be referenced, not embedded."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "table": _table_dict(project.table, data_path),
        "settings": asdict(project.settings) if project.settings else None,
        "tree": tree_to_dict(project.tree) if project.tree is not None else None,
        "positions": {str(k): list(v) for k, v in project.positions.items()},
        "collapsed": list(project.collapsed),
    }
    write_text_atomic(path, json.dumps(doc, default=_plain))


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot store {type(value).__name__} in a project")


def _table_from(doc: dict, base: Path) -> Table:
    kinds, target, cats = doc["kinds"], doc["target"], doc.get("categories", {})
    if "data" in doc:
        frame = pd.DataFrame({c: doc["data"][c] for c in doc["columns"]}, columns=doc["columns"])
        return make_table(frame, target=target, kinds=kinds, categories=cats)
    from engine.data.io import read_table

    data_path = Path(doc["path"])
    if not data_path.is_absolute():
        data_path = base / data_path
    if not data_path.exists():
        raise ArborError(f"the project's data file {data_path} is missing")
    if file_checksum(data_path) != doc["sha256"]:
        raise ArborError(f"the project's data file {data_path} has changed since the project "
                         "was saved (its checksum differs)")
    table = read_table(data_path, target=target)
    return table.with_kinds(**kinds)


def load_project(path: str | Path) -> Project:
    """Read a project file; older versions are migrated, newer ones refused with a reason."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArborError(f"no such project file: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ArborError(f"{path} is not a readable Arbor project ({err})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ArborError(f"{path} is not an Arbor project file")
    version = doc.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise ArborError(f"{path} was saved by a newer Arbor (project format {version}); "
                         f"this version opens formats up to {VERSION}")
    try:
        table = _table_from(doc["table"], path.parent)
        settings = resolve(**doc["settings"]) if doc.get("settings") else None
        tree = tree_from_dict(doc["tree"])[0] if doc.get("tree") else None
        positions = {int(k): (float(v[0]), float(v[1])) for k, v in doc.get("positions", {}).items()}
        collapsed = tuple(int(i) for i in doc.get("collapsed", ()))
    except (KeyError, TypeError, ValueError) as err:
        raise ArborError(f"{path} is damaged or incomplete ({err!r})") from None
    if tree is not None:
        names = [a.name for a in tree.schema.attributes]
        missing = [n for n in names if n not in table.frame.columns]
        if missing:
            raise ArborError(f"{path}: the tree uses column(s) {', '.join(missing)} the table lacks")
    return Project(table, settings, tree, positions, collapsed)
