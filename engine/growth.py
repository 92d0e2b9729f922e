"""Growing a tree: every algorithm, every fit, on one growth loop, the compiled one.

Nodes are expanded depth-first (ID3's recursion, made iterative) or best-first
(seed 004's Algorithm 3: a priority queue of leaves ranked by how much their
best split would lower the tree's total impurity, i.e. gain times the node's
share of the instances). The loop is :mod:`engine.fast.growth_loop`, driven by
:mod:`engine.fast.builder`; its scorers repeat :mod:`engine.learn.splitting`'s, and
``tests/oracle/growth.py`` grows the same trees with those numpy scorers.

The kernels compile once per machine (:mod:`engine.compiling.lifecycle`). Until they are
ready a small fit runs the same kernels' Python source uncompiled
(:mod:`engine.fast.interpreted`: the same statements, so the same tree) and a bigger
one waits for them, cancellable, its monitor told why; a tiny fit runs uncompiled unless
this process has loaded them already (:func:`compiled_kernels_ready`). No fit runs on
anything else, so the tree never depends on whether the kernels have compiled yet.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from engine.compiling import lifecycle as compilation
from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.fast.builder import (
    Growth,
    grow_all,
    grow_stepwise,
    kernels,
    plan,
    to_flat,
    to_nodes,
)
from engine.fast.interpreted import (
    INTERPRETED_MAX_CELLS,
    UNCOMPILED_MAX_CELLS,
    UNCOMPILED_SECONDS,
)
from engine.fast.threads import n_threads
from engine.flat import FlatTree, flat_of, tree_of
from engine.learn import routed_growth
from engine.learn.editing import replace_subtree
from engine.learn.explain import node_rows, used_on_path
from engine.learn.medians import check_absolute_error, with_medians
from engine.learn.problem import Problem
from engine.monitor import NULL_MONITOR, Monitor
from engine.optimal import solve_optimal
from engine.settings import Settings
from engine.tree import Node, Tree


class _Interpreted:
    """CPU seconds this process's fits have run on the interpreted kernels."""

    lock = threading.Lock()
    seconds = 0.0

    @classmethod
    def add(cls, seconds: float) -> None:
        with cls.lock:
            cls.seconds += seconds


def compiled_kernels_ready(monitor: Monitor, cells: int) -> bool:
    """True to run the compiled kernels; False to run them interpreted (a small fit while
    they compile, or a machine where they cannot compile). Waits for the compilation
    when the fit is too big to run interpreted.

    A tiny fit (``UNCOMPILED_MAX_CELLS``: the seeds' tables, iris) runs interpreted unless
    this process has the compiled kernels already, and starts nothing: interpreted it
    takes less time than importing numba and loading the compiled kernels, which
    ``python main.py train --sample weather`` spent most of its two seconds on. Many tiny
    fits add up (cross-validation: CART's choice of alpha alone grows eleven trees), so
    once fits have run ``UNCOMPILED_SECONDS`` interpreted here, tiny fits are small fits
    as any other: rather than go on paying the interpreter, the process loads the kernels.
    """
    if (
        cells <= UNCOMPILED_MAX_CELLS
        and _Interpreted.seconds < UNCOMPILED_SECONDS
        and not compilation.is_ready()
    ):
        return False
    if cells <= INTERPRETED_MAX_CELLS:
        return compilation.wait_until_compiled(monitor, 0.0)
    return compilation.wait_until_compiled(monitor, None)


def grow(
    data: Encoded,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    depth: int = 0,
    used: frozenset = frozenset(),
    compiled: bool | None = None,
) -> Node:
    """Grow a tree on ``data``; or, given ``rows``/``weights``/``depth``/``used`` (attributes
    already split on by multiway ancestors), the subtree below an existing node.

    ``compiled``: None runs the compiled kernels, or their Python source for a small fit
    while they compile and for a tiny one (:func:`compiled_kernels_ready`); True waits for the compiled
    kernels whatever the size; False runs the Python source (the root alone, say). The
    tree is the same every way.
    """
    if settings.algorithm == "optimal":  # searched, not grown: engine/optimal.py
        return solve_optimal(data, settings, monitor, rows, weights, depth, compiled).root
    if settings.criterion == "absolute_error":
        check_absolute_error(data)  # the kernels' median search assumes it
    if settings.missing == "surrogate":  # rows placed by stand-in splits: numpy, per node
        node = routed_growth.grow(data, settings, monitor, rows, weights, depth)
        if settings.criterion == "absolute_error":
            rows = np.arange(data.n_rows) if rows is None else np.asarray(rows)
            weights = data.weight[rows] if weights is None else weights
            node = with_medians(node, data, rows, np.asarray(weights, dtype=np.float64))
        monitor.report(1.0, "grown")
        return node
    rows = np.arange(data.n_rows) if rows is None else np.asarray(rows)
    weights = data.weight[rows] if weights is None else np.asarray(weights, dtype=np.float64)
    monitor.report(0.0, "choosing the first split")
    node = _nodes_of(_run(data, settings, monitor, rows, weights, depth, used, compiled), monitor)
    if settings.criterion == "absolute_error":
        node = with_medians(node, data, rows, weights)
    monitor.report(1.0, "grown")
    return node


def grow_whole(data: Encoded, settings: Settings, monitor: Monitor = NULL_MONITOR) -> Tree:
    """:func:`grow`'s tree on all of ``data``, with its arrays (:func:`engine.flat.flat_of`)
    made from growth's own rather than by a walk over the nodes: pruning and evaluation
    start from them (a fit of 10,000 rows spent a fifth of its main-thread time on that walk)."""
    if not _arrays_are_the_tree(settings):
        return Tree(grow(data, settings, monitor), data.schema)
    monitor.report(0.0, "choosing the first split")
    flat = grow_flat(data, settings, monitor)
    monitor.report(1.0, "grown")
    return tree_of(flat, data.schema)


def grow_flat(data: Encoded, settings: Settings, monitor: Monitor = NULL_MONITOR) -> FlatTree:
    """:func:`grow`'s tree on ``data`` as arrays only (:class:`engine.flat.FlatTree`, without
    node objects): for trees nobody looks at, such as CART's folds choosing alpha, which are
    pruned and routed through and dropped. The same numbers as :func:`grow`'s nodes hold."""
    if not _arrays_are_the_tree(settings):
        return flat_of(Tree(grow(data, settings, monitor), data.schema))
    rows = range(data.n_rows)  # (every row: told so at once, where an array was compared)
    return to_flat(*_run(data, settings, monitor, rows, data.weight, 0, frozenset(), None))


def _arrays_are_the_tree(settings: Settings) -> bool:
    """Whether the growth loop's arrays are the tree as :func:`grow` gives it: not for the
    optimal tree (another solver), surrogate splits (grown per node,
    engine.learn.routed_growth), or the absolute error (its leaves' medians come after)."""
    return (
        settings.algorithm != "optimal"
        and settings.missing != "surrogate"
        and settings.criterion != "absolute_error"
    )


def _run(data, settings, monitor, rows, weights, depth, used, compiled):
    """Growth on the kernels run to its end: ``(problem, node arrays, group store, nodes, C)``."""
    problem = Problem(data, settings, monitor)
    if compiled is None:
        compiled = compiled_kernels_ready(monitor, len(rows) * data.X.shape[1])
    elif compiled:
        compiled = compilation.wait_until_compiled(monitor, None)
    C = kernels(compiled)
    started = time.thread_time()
    try:
        growth = Growth(
            problem,
            plan(settings, len(rows)),
            rows,
            weights,
            depth,
            frozenset(used),
            monitor,
            C,
            threads=n_threads(settings.threads),
        )
        grow_all(growth, monitor)
    finally:
        if not compiled:
            _Interpreted.add(time.thread_time() - started)
    # The growth's workspace goes here; the nodes' arrays stay for the node objects.
    return problem, growth.nodes, growth.groups, int(growth.state.n_nodes[0]), C


def _nodes_of(grown, monitor: Monitor) -> Node:
    problem, nodes, groups, n, C = grown
    return to_nodes(problem, [nodes, groups], n, monitor, C)


@dataclass(frozen=True)
class GrowthStep:
    """One expansion, for watching the algorithm work.

    ``root`` is the whole tree so far and ``expanded`` the id (in it) of the node just
    split; ``priority`` is what the node was worth to the queue: its share of the rows
    times its split's gain, n/N x gain (seed 004, Algorithm 3; best-first takes the
    largest). ``queue`` lists the open leaves, (id, priority), in the order they will be
    taken: by priority for best-first, last in first out for depth-first.
    """

    root: Node
    expanded: int
    priority: float
    queue: tuple[tuple[int, float], ...]


def grow_steps(data: Encoded, settings: Settings) -> Iterator[GrowthStep]:
    """Grow one split at a time, in the order the settings' growth strategy expands nodes
    (on the compiled loop, one expansion per call: the tree is the one :func:`grow` grows)."""
    if settings.algorithm == "optimal":
        raise ArborError(
            "an optimal tree is searched whole, not grown one split at a time: step through "
            "ID3, C4.5 or CART's growth instead"
        )
    if settings.missing == "surrogate":
        raise ArborError(
            "stepping through growth does not find surrogate splits; --missing surrogate "
            "grows whole trees only (train, or step with --missing majority or fractional)"
        )
    return _steps(data, settings)


def _steps(data: Encoded, settings: Settings) -> Iterator[GrowthStep]:
    compiled = compiled_kernels_ready(NULL_MONITOR, data.n_rows * data.X.shape[1])
    medians = settings.criterion == "absolute_error"
    if medians:
        check_absolute_error(data)
    for root, expanded, worth, queue in grow_stepwise(
        Problem(data, settings), plan(settings, data.n_rows), NULL_MONITOR, compiled
    ):
        if medians:
            root = with_medians(root, data, np.arange(data.n_rows), data.weight)
        yield GrowthStep(root, expanded, worth, queue)


def grow_below(
    tree: Tree, data: Encoded, settings: Settings, node_id: int, levels: int | None = None
) -> Tree:
    """Let the algorithm finish the subtree below ``node_id`` (or only ``levels`` more levels)."""
    node = tree.node(node_id)
    rows, weights = node_rows(tree, data, node_id, settings)
    if levels is not None:
        limit = node.depth + levels
        settings = replace(
            settings,
            max_depth=limit if settings.max_depth is None else min(settings.max_depth, limit),
        )
    used = used_on_path(tree, node_id) if not settings.binary else frozenset()
    subtree = grow(data, settings, rows=rows, weights=weights, depth=node.depth, used=used)
    return replace_subtree(tree, node_id, subtree)


class StableIds:
    """Node ids for the life of a growing tree: each node keeps the number it got when it
    was made (the root 0, then each split's children in branch order, 1, 2, ...).

    A grown tree's ids are pre-order positions, so a split renumbers every node after it
    (weather's rainy leaf is node 3, then node 5 once sunny splits); a person stepping
    through growth reads numbers that stay. Growth only adds children to leaves, so a
    node's path of branches from the root names it for as long as it lives, and the
    numbers are kept by path. ``Tree.node`` finds nodes numbered so by search.

    >>> ids = StableIds()
    >>> root = ids.apply(step.root)[0]  # doctest: +SKIP
    """

    def __init__(self):
        self._by_path: dict[tuple[int, ...], int] = {}

    def apply(self, root: Node) -> tuple[Node, dict[int, int]]:
        """``root`` renumbered (nodes new to it numbered on, in pre-order) and the map from
        its own ids to the kept ones."""
        order: list[tuple[Node, tuple[int, ...]]] = []
        stack = [(root, ())]
        while stack:
            node, path = stack.pop()
            order.append((node, path))
            if path not in self._by_path:
                self._by_path[path] = len(self._by_path)
            stack.extend(
                (child, (*path, b)) for b, child in reversed(list(enumerate(node.children)))
            )
        built: dict[tuple[int, ...], Node] = {}
        for node, path in reversed(order):  # children before their parent
            children = tuple(built.pop((*path, b)) for b in range(len(node.children)))
            built[path] = replace(node, id=self._by_path[path], children=children)
        return built[()], {node.id: self._by_path[path] for node, path in order}


def with_stable_ids(
    steps: Iterator[GrowthStep], ids: StableIds | None = None
) -> Iterator[GrowthStep]:
    """``steps`` (from :func:`grow_steps`) with :class:`StableIds`: a node keeps its id from
    the step that made it to the end of growth, in the tree, ``expanded`` and the queue."""
    ids = StableIds() if ids is None else ids
    for step in steps:
        root, kept = ids.apply(step.root)
        yield GrowthStep(
            root, kept[step.expanded], step.priority, tuple((kept[k], p) for k, p in step.queue)
        )
