"""The complete model as versioned JSON: reloadable by ``predict`` and by the window.

Nodes are stored as a flat list (children by id) so arbitrarily deep trees
serialise without recursion. Categories and classes are stored by name, so a
reloaded model encodes new data exactly as the original did.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from types import MappingProxyType

import numpy as np

from engine.data.encoding import Attribute, Schema
from engine.errors import ArborError
from engine.settings import Settings, resolve
from engine.tree import Node, Split, Tree, renumber

FORMAT = "arbor-tree"
VERSION = 1


def _node_dict(node: Node) -> dict:
    out = {
        "id": node.id,
        "weight": node.weight,
        "impurity": node.impurity,
        "children": [c.id for c in node.children],
    }
    if node.distribution.size:
        out["distribution"] = node.distribution.tolist()
    if not np.isnan(node.value):
        out["value"] = node.value
    if node.split is not None:
        s = node.split
        out["split"] = {"attribute": s.attribute, "kind": s.kind, "fractions": list(s.fractions)}
        if s.threshold is not None:
            out["split"]["threshold"] = s.threshold
        if s.groups:
            out["split"]["groups"] = [list(g) for g in s.groups]
    if node.stats:
        out["stats"] = dict(node.stats)
    return out


def tree_to_dict(tree: Tree, settings: Settings | None = None) -> dict:
    """A JSON-ready dict of the tree (and the settings that grew it)."""
    schema = tree.schema
    return {
        "format": FORMAT,
        "version": VERSION,
        "target": schema.target,
        "classes": list(schema.classes) if schema.classes is not None else None,
        "attributes": [
            {"name": a.name, "kind": a.kind, **({"categories": list(a.categories)} if a.is_nominal else {})}
            for a in schema.attributes
        ],
        "settings": asdict(settings) if settings is not None else None,
        "n_nodes": tree.n_nodes,
        "n_leaves": tree.n_leaves,
        "depth": tree.depth,
        "nodes": [_node_dict(n) for n in tree.nodes()],
    }


def tree_from_dict(data: dict) -> tuple[Tree, Settings | None]:
    """Rebuild a tree from :func:`tree_to_dict` output; refuses other formats and newer versions."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArborError("not an Arbor model file (expected a JSON object with format 'arbor-tree')")
    if data.get("version", 0) > VERSION:
        raise ArborError(f"this model was written by a newer Arbor (format version {data['version']}); "
                         f"this version reads up to {VERSION}")
    try:
        schema = Schema(
            tuple(Attribute(a["name"], a["kind"], tuple(a.get("categories", ()))) for a in data["attributes"]),
            data["target"],
            tuple(data["classes"]) if data["classes"] is not None else None,
        )
        built: dict[int, Node] = {}
        for rec in reversed(data["nodes"]):  # pre-order reversed: children before parents
            built[rec["id"]] = _node_from(rec, tuple(built[c] for c in rec["children"]))
        root = renumber(built[data["nodes"][0]["id"]])
        settings = resolve(**data["settings"]) if data.get("settings") else None
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise ArborError(f"the model file is damaged or incomplete ({err!r})") from None
    return Tree(root, schema), settings


def _node_from(rec: dict, children: tuple[Node, ...]) -> Node:
    split = None
    if "split" in rec:
        s = rec["split"]
        split = Split(s["attribute"], s["kind"], tuple(s["fractions"]), s.get("threshold"),
                      tuple(tuple(g) for g in s.get("groups", ())))
    dist = np.asarray(rec.get("distribution", []), dtype=np.float64)
    dist.setflags(write=False)
    return Node(id=rec["id"], depth=0, weight=rec["weight"], distribution=dist,
                impurity=rec["impurity"], value=rec.get("value", float("nan")), split=split,
                children=children, stats=MappingProxyType(rec.get("stats", {})))


def save_model(tree: Tree, settings: Settings | None, path: str | Path) -> None:
    from engine.atomic import write_text_atomic

    write_text_atomic(path, json.dumps(tree_to_dict(tree, settings), indent=1))


def load_model(path: str | Path) -> tuple[Tree, Settings | None]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ArborError(f"no such model file: {path}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ArborError(f"cannot read model file {path}: {err}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ArborError(f"{path} is not valid JSON (line {err.lineno}: {err.msg})") from None
    return tree_from_dict(data)
