"""What Arbor writes in a model file, checked field by field before a tree is built from it.

A model file may come from anywhere, so nothing in it is trusted: every field has its
type, range and length checked (a split's attribute is one of the attributes, a category
code one of its categories, a threshold a finite number, one distribution entry per class,
one branch share per child), the nodes must form one tree (each node the child of exactly
one other, all reachable from the root: no loops, no shared subtrees that would expand
exponentially), and the counts the file declares must match what it holds. Every problem
is one :class:`ArborError` naming where it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.errors import ArborError, printable
from engine.settings import Settings, resolve
from engine.tree import MULTIWAY, SUBSET, THRESHOLD

FORMAT = "arbor-tree"
VERSION = 1
KINDS = ("nominal", "numeric")
SPLIT_KINDS = (MULTIWAY, THRESHOLD, SUBSET)
#: Arbor writes a handful of numbers per node (gains, pruning estimates).
MAX_STATS = 32


class Damaged(ArborError):
    """A field of a model or project file that is not what Arbor writes."""


def fail(where: str, problem: str):
    raise Damaged(f"{where}: {problem}" if where else problem)


_TYPE_NAMES = {
    bool: "true/false",
    int: "a whole number",
    float: "a number",
    str: "text",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


def _type_name(value) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _short(value) -> str:
    text = repr(value)
    return printable(text if len(text) <= 40 else text[:37] + "...")


def need(value, kind: type | tuple, where: str, what: str):
    """``value`` if it has the JSON type ``kind`` (a bool is not a number here)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        fail(
            where,
            f"{what} must be {_TYPE_NAMES[kinds[0]]}, not {_type_name(value)} ({_short(value)})",
        )
    return value


def number(
    value, where: str, what: str, low: float | None = None, high: float | None = None
) -> float:
    need(value, (float, int), where, what)
    value = float(value)
    if not math.isfinite(value):
        fail(where, f"{what} must be a finite number, not {value}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"at least {low}" if high is None else f"between {low} and {high}"
        fail(where, f"{what} must be {span}, not {_short(value)}")
    return value


def index(value, size: int, where: str, what: str) -> int:
    need(value, int, where, what)
    if not 0 <= value < size:
        fail(where, f"{what} {_short(value)} is not between 0 and {size - 1}")
    return value


def texts(value, where: str, what: str, unique: bool = True) -> list[str]:
    need(value, list, where, what)
    for item in value:
        need(item, str, where, f"each of the {what}")
    if unique and len(set(value)) != len(value):
        dupes = sorted({v for v in value if value.count(v) > 1})[:3]
        fail(where, f"the {what} repeat {', '.join(map(_short, dupes))}")
    return value


def check_version(doc: dict, where: str, current: int, newer: Callable[[int], str]) -> int:
    """The file's format version: a whole number, no newer than ``current``."""
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        fail(
            where,
            f"its format version is {_short(version)}, not a whole number such as "
            f"{current}: the file is damaged or was not written by Arbor",
        )
    if version < 1:
        fail(where, f"its format version {version} does not exist")
    if version > current:
        raise ArborError(newer(version))
    return version


def settings_from(value, where: str) -> Settings | None:
    if value is None:
        return None
    need(value, dict, where, "the settings")
    try:
        return resolve(**value)
    except ArborError as err:
        fail(where, f"its settings are not valid: {err}")
    except (TypeError, ValueError, OverflowError) as err:
        fail(where, f"its settings are not valid ({printable(str(err))})")


def _attributes(data: dict, where: str) -> list[dict]:
    attributes = need(data.get("attributes"), list, where, "'attributes'")
    names = []
    for k, a in enumerate(attributes):
        here = f"{where}: attribute {k}"
        need(a, dict, here, "an attribute")
        names.append(need(a.get("name"), str, here, "its name"))
        kind = a.get("kind")
        if kind not in KINDS:
            fail(here, f"its kind must be nominal or numeric, not {_short(kind)}")
        if kind == "nominal":
            texts(a.get("categories", []), here, "categories")
        elif "categories" in a and a["categories"] not in ([], None):
            fail(here, "a numeric attribute has no categories")
    texts(names, where, "attribute names")
    return attributes


def _split(split, node_where: str, attributes: list[dict], n_children: int) -> None:
    where = f"{node_where}: split"
    need(split, dict, node_where, "its split")
    a = index(split.get("attribute"), len(attributes), where, "the attribute")
    attribute = attributes[a]
    kind = split.get("kind")
    if kind not in SPLIT_KINDS:
        fail(where, f"its kind must be one of {', '.join(SPLIT_KINDS)}, not {_short(kind)}")
    fractions = need(split.get("fractions"), list, where, "the branch shares")
    if len(fractions) != n_children or n_children < 2:
        fail(
            where,
            f"it has {len(fractions)} branch shares for {n_children} children "
            "(a split has one per child, at least two)",
        )
    for f in fractions:
        number(f, where, "a branch share", 0.0, 1.0 + 1e-9)
    surrogates = split.get("surrogates", [])
    need(surrogates, list, where, "the surrogates")
    if surrogates and n_children != 2:
        fail(where, "only a two-way split has surrogates")
    for s in surrogates:
        _surrogate(s, where, attributes)
    if kind == THRESHOLD:
        if attribute["kind"] != "numeric":
            fail(where, "a threshold split needs a numeric attribute")
        if n_children != 2:
            fail(where, "a threshold split has two children")
        number(split.get("threshold"), where, "the threshold")
        return
    if attribute["kind"] != "nominal":
        fail(where, f"a {kind} split needs a nominal attribute")
    groups = need(split.get("groups"), list, where, "the category groups")
    if len(groups) != n_children:
        fail(where, f"it has {len(groups)} category groups for {n_children} children")
    seen: set[int] = set()
    n_categories = len(attribute.get("categories", []))
    for group in groups:
        need(group, list, where, "a category group")
        for code in group:
            index(code, n_categories, where, "the category code")
            if code in seen:
                fail(where, f"category code {code} is in two branches")
            seen.add(code)


def _surrogate(s, split_where: str, attributes: list[dict]) -> None:
    """A surrogate (``--missing surrogate``): an attribute, its agreement and a threshold
    with the side below it, or two category groups."""
    where = f"{split_where}: surrogate"
    need(s, dict, split_where, "a surrogate")
    a = index(s.get("attribute"), len(attributes), where, "the attribute")
    number(s.get("agreement"), where, "the agreement", 0.0, 1.0 + 1e-9)
    number(s.get("adjusted"), where, "the adjusted agreement", 0.0, 1.0 + 1e-9)
    if attributes[a]["kind"] == "numeric":
        number(s.get("threshold"), where, "the threshold")
        if s.get("below") not in (0, 1):
            fail(where, "the branch below the threshold must be 0 or 1")
        return
    groups = need(s.get("groups"), list, where, "the category groups")
    if len(groups) != 2:
        fail(where, f"it has {len(groups)} category groups for 2 branches")
    seen: set[int] = set()
    n_categories = len(attributes[a].get("categories", []))
    for group in groups:
        need(group, list, where, "a category group")
        for code in group:
            index(code, n_categories, where, "the category code")
            if code in seen:
                fail(where, f"category code {code} is in two branches")
            seen.add(code)


def _node(rec, k: int, where: str, attributes: list[dict], classes: list[str] | None) -> None:
    here = f"{where}: node {k}"
    need(rec, dict, here, "a node")
    need(rec.get("id"), int, here, "its id")
    number(rec.get("weight"), here, "its weight", 0.0)
    number(rec.get("impurity"), here, "its impurity")
    children = need(rec.get("children"), list, here, "its children")
    for c in children:
        need(c, int, here, "a child id")
    if classes is not None:
        dist = need(rec.get("distribution"), list, here, "its class distribution")
        if len(dist) != len(classes):
            fail(here, f"its class distribution has {len(dist)} entries for {len(classes)} classes")
        for v in dist:
            number(v, here, "a class weight", 0.0)
    elif rec.get("distribution") not in (None, []):
        fail(here, "a regression tree's node has no class distribution")
    if "value" in rec:
        number(rec["value"], here, "its value")
    elif classes is None and rec["weight"] > 0:
        fail(here, "a regression tree's node with training weight needs its mean 'value'")
    if "split" in rec:
        _split(rec["split"], here, attributes, len(children))
    elif children:
        fail(here, "it has children but no split")
    stats = rec.get("stats", {})
    need(stats, dict, here, "its stats")
    if len(stats) > MAX_STATS:
        fail(here, f"it has {len(stats)} stats; Arbor writes at most {MAX_STATS}")
    for key, value in stats.items():
        number(value, here, f"stat {_short(key)}")


def tree_order(nodes: list[dict], where: str) -> list[int]:
    """Positions of the nodes, children before parents, after checking they form one tree
    rooted at the first node."""
    position: dict[int, int] = {}
    for k, rec in enumerate(nodes):
        if rec["id"] in position:
            fail(f"{where}: node {k}", f"its id {rec['id']} is also node {position[rec['id']]}'s")
        position[rec["id"]] = k
    parent = [-1] * len(nodes)
    for k, rec in enumerate(nodes):
        for c in rec["children"]:
            child = position.get(c)
            if child is None:
                fail(f"{where}: node {k}", f"its child {c} is not in the file")
            if child == 0 or parent[child] >= 0:
                fail(
                    f"{where}: node {k}",
                    f"its child {c} already has a parent: the nodes do not form a tree",
                )
            parent[child] = k
    order, stack = [], [0]
    while stack:  # every node has one parent; reaching all of them from the root rules out loops
        k = stack.pop()
        order.append(k)
        stack.extend(position[c] for c in nodes[k]["children"])
    if len(order) != len(nodes):
        fail(where, f"{len(nodes) - len(order)} node(s) are not reachable from the root")
    return order[::-1]


def check_model(data, where: str) -> list[int]:
    """Raise :class:`Damaged` (or an ArborError for a newer format) unless ``data`` is a tree
    as :func:`engine.export.model_json.tree_to_dict` writes it; returns :func:`tree_order`."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArborError(
            f"{where}: not an Arbor model (expected a JSON object with format '{FORMAT}')"
        )
    check_version(
        data,
        where,
        VERSION,
        lambda v: (
            f"{where} was written by a newer Arbor (model format {v}); this version reads up to "
            f"{VERSION}"
        ),
    )
    need(data.get("target"), str, where, "'target'")
    classes = data.get("classes")
    if classes is not None:
        texts(classes, where, "classes")
        if not classes:
            fail(where, "a classification model needs at least one class")
    attributes = _attributes(data, where)
    nodes = need(data.get("nodes"), list, where, "'nodes'")
    declared = data.get("n_nodes")
    need(declared, int, where, "'n_nodes'")
    if declared != len(nodes) or not nodes:
        fail(where, f"it declares {declared} nodes and holds {len(nodes)}")
    for k, rec in enumerate(nodes):
        _node(rec, k, where, attributes, classes)
    order = tree_order(nodes, where)
    for key in ("n_leaves", "depth"):
        need(data.get(key), int, where, f"'{key}'")
    leaves = sum(1 for rec in nodes if not rec["children"])
    if leaves != data["n_leaves"]:
        fail(where, f"it declares {data['n_leaves']} leaves and holds {leaves}")
    _pseudocounts(data.get("pseudocounts"), where, classes)
    _costs(data.get("costs"), where, classes)
    return order


def _costs(value, where: str, classes) -> None:
    """Absent, or a cost matrix: a row per class (actual) of a number per class (predicted),
    each at least 0, the diagonal 0 (as ``--costs`` reads one)."""
    if value is None:
        return
    need(value, list, where, "'costs'")
    K = len(classes or ())
    if not K or len(value) != K:
        fail(where, f"its cost matrix has {len(value)} rows for {K} classes")
    for i, row in enumerate(value):
        need(row, list, where, "a row of 'costs'")
        if len(row) != K:
            fail(where, f"its cost matrix's row {i + 1} has {len(row)} costs for {K} classes")
        for j, cell in enumerate(row):
            cost = number(cell, where, "a cost", low=0.0)
            if i == j and cost != 0:
                fail(where, f"its cost matrix charges a correct {classes[i]!r} {cost:g}")


def _pseudocounts(value, where: str, classes) -> None:
    """Absent, or one non-negative number per class (not all zero)."""
    if value is None:
        return
    need(value, list, where, "'pseudocounts'")
    if classes is None or len(value) != len(classes):
        fail(where, f"it has {len(value)} pseudocounts for {len(classes or ())} classes")
    if sum(number(v, where, "a pseudocount", low=0.0) for v in value) <= 0:
        fail(where, "its pseudocounts are all zero (leave them out instead)")
