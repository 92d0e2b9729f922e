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
from engine.export.model_schema import FORMAT, VERSION, check_model, fail, settings_from
from engine.reading import MB, read_json, shown_path
from engine.settings import Settings
from engine.tree import THRESHOLD, Node, Split, Surrogate, Tree, renumber

#: A fully grown tree of a million rows (about 350,000 nodes) takes some 100 MB.
MODEL_LIMIT = 256 * MB


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
        if s.surrogates:
            out["split"]["surrogates"] = [_surrogate_record(g) for g in s.surrogates]
    stats = {k: float(v) for k, v in node.stats.items() if np.isfinite(v)}
    if stats:  # an infinite estimate (a raised branch never tried) says nothing: left out
        out["stats"] = stats
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
            {
                "name": a.name,
                "kind": a.kind,
                **({"categories": list(a.categories)} if a.is_nominal else {}),
            }
            for a in schema.attributes
        ],
        "settings": asdict(settings) if settings is not None else None,
        "n_nodes": tree.n_nodes,
        "n_leaves": tree.n_leaves,
        "depth": tree.depth,
        "nodes": [_node_dict(n) for n in tree.nodes()],
        **({"pseudocounts": list(tree.pseudocounts)} if tree.pseudocounts else {}),
        **({"costs": [list(row) for row in tree.costs]} if tree.costs else {}),
    }


def tree_from_dict(data: dict, where: str = "the model") -> tuple[Tree, Settings | None]:
    """Rebuild a tree from :func:`tree_to_dict` output, checked field by field first
    (:mod:`engine.export.model_schema`); ``where`` names the file in messages."""
    order = check_model(data, where)
    schema = Schema(
        tuple(
            Attribute(a["name"], a["kind"], tuple(a.get("categories") or ()))
            for a in data["attributes"]
        ),
        data["target"],
        tuple(data["classes"]) if data["classes"] is not None else None,
    )
    nodes = data["nodes"]
    built: dict[int, Node] = {}
    for k in order:  # children before parents
        rec = nodes[k]
        built[rec["id"]] = _node_from(rec, tuple(built.pop(c) for c in rec["children"]))
    pseudocounts = tuple(float(v) for v in data.get("pseudocounts") or ())
    costs = tuple(tuple(float(v) for v in row) for row in data.get("costs") or ())
    tree = Tree(renumber(built[nodes[0]["id"]]), schema, pseudocounts=pseudocounts, costs=costs)
    if tree.depth != data["depth"]:
        fail(where, f"it declares depth {data['depth']} and holds a tree of depth {tree.depth}")
    return tree, settings_from(data.get("settings"), where)


def _node_from(rec: dict, children: tuple[Node, ...]) -> Node:
    split = None
    if "split" in rec:
        s = rec["split"]
        threshold = float(s["threshold"]) if s["kind"] == THRESHOLD else None
        groups = () if s["kind"] == THRESHOLD else tuple(tuple(g) for g in s["groups"])
        surrogates = tuple(_surrogate_from(g) for g in s.get("surrogates", ()))
        split = Split(
            s["attribute"],
            s["kind"],
            tuple(float(f) for f in s["fractions"]),
            threshold,
            groups,
            surrogates,
        )
    dist = np.asarray(rec.get("distribution") or [], dtype=np.float64)
    dist.setflags(write=False)
    return Node(
        id=rec["id"],
        depth=0,
        weight=float(rec["weight"]),
        distribution=dist,
        impurity=float(rec["impurity"]),
        value=float(rec.get("value", float("nan"))),
        split=split,
        children=children,
        stats=MappingProxyType({k: float(v) for k, v in rec.get("stats", {}).items()}),
    )


def model_text(tree: Tree, settings: Settings | None) -> str:
    """What a model file holds (:func:`save_model`), as text."""
    return json.dumps(tree_to_dict(tree, settings), indent=1, allow_nan=False)


def save_model(tree: Tree, settings: Settings | None, path: str | Path) -> None:
    from engine.atomic import write_text_atomic

    write_text_atomic(path, model_text(tree, settings))


def load_model(path: str | Path) -> tuple[Tree, Settings | None]:
    """Read a model file: an ordinary file of at most ``MODEL_LIMIT`` bytes, checked in full."""
    data = read_json(path, MODEL_LIMIT, "model file")
    return tree_from_dict(data, shown_path(path))


def _surrogate_record(s: Surrogate) -> dict:
    out = {"attribute": s.attribute, "agreement": s.agreement, "adjusted": s.adjusted}
    if s.threshold is not None:
        out["threshold"], out["below"] = s.threshold, s.below
    else:
        out["groups"] = [list(g) for g in s.groups]
    return out


def _surrogate_from(rec: dict) -> Surrogate:
    common = (int(rec["attribute"]), float(rec["agreement"]), float(rec["adjusted"]))
    if "threshold" in rec:
        return Surrogate(*common, threshold=float(rec["threshold"]), below=int(rec["below"]))
    groups = tuple(tuple(int(c) for c in g) for g in rec["groups"])
    return Surrogate(*common, groups=(groups[0], groups[1]))
