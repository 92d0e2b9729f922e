"""The finished tree: the driver's nodes as Arbor's, through the in-memory builder's own
conversion (:func:`engine.fast.builder.to_nodes`), C4.5's thresholds moved onto training
values gathered by a pass."""

from __future__ import annotations

import numpy as np

from engine.data.encoding import Encoded, Schema, without_rows
from engine.learn.problem import Problem
from engine.monitor import NULL_MONITOR, Monitor
from engine.settings import Settings
from engine.tree import Node


def snap_thresholds(table, keep, scorer, parts) -> dict:
    """Per numeric attribute, the training values C4.5's thresholds move onto: for each
    threshold of the kept tree, the largest training value not above it up to Weka's 1e-6
    (one pass; subtrees grown on a worker too, whose rows are not the whole column)."""
    from engine.fast.groups import NUMERIC
    from engine.scale.tasks import values_below

    cuts: dict[int, set] = {}
    for i, kept in enumerate(keep):
        j = table.attribute[i]
        c0 = table.child0[i]
        if kept and table.n_children[i] and keep[c0] and scorer.kind[j] == NUMERIC:
            cuts.setdefault(int(j), set()).add(float(table.threshold[i]))
    if not cuts:
        return {}
    thresholds = {j: np.array(sorted(c)) for j, c in cuts.items()}
    found = parts.map(values_below, thresholds, message="placing C4.5's thresholds")
    return {j: np.unique(np.maximum.reduce([f[j] for f in found])) for j in thresholds}


def assemble(
    table,
    schema: Schema,
    settings: Settings,
    keep,
    snaps: dict | None,
    monitor: Monitor = NULL_MONITOR,
) -> Node:
    """The finished tree as Arbor's nodes, through the in-memory builder's own conversion.

    ``keep[i]``: node ``i`` is in the tree (the leaf limit may have cut some expansions);
    a kept node whose children are not kept is a leaf. ``snaps``: per attribute, the
    training values C4.5's thresholds move onto.
    """
    from engine.fast import growth_loop as C
    from engine.fast.builder import to_nodes
    from engine.fast.groups import Groups, new_nodes

    S = 3 if schema.is_regression else len(schema.classes)
    order, index = [0], {0: 0}
    rows = []  # (driver node, first child's new row)
    at = 1
    k = 0
    while k < len(order):  # breadth-first: children get consecutive rows
        i = order[k]
        k += 1
        c0, nb = table.child0[i], table.n_children[i]
        if nb and keep[c0]:
            rows.append((i, at))
            for c in range(c0, c0 + nb):
                index[c] = at
                order.append(c)
                at += 1
        else:
            rows.append((i, -1))
    n = len(order)
    nodes = new_nodes(max(n, 1), S)
    n_groups = sum(
        len(table.groups[i]) for i, first in rows if first >= 0 and table.groups[i] is not None
    )
    branch = np.zeros(max(n_groups, 1), np.int8)
    g = 0
    for row, (i, first) in enumerate(rows):
        nodes.depth[row] = table.depth[i]
        nodes.stats[row] = table.stats[i]
        nodes.weight[row] = table.weight[i]
        nodes.fraction[row] = table.fraction[i]
        if first < 0:
            nodes.attribute[row], nodes.child0[row], nodes.n_children[row] = -1, -1, 0
            continue
        nodes.attribute[row] = table.attribute[i]
        nodes.child0[row], nodes.n_children[row] = first, table.n_children[i]
        nodes.threshold[row] = table.threshold[i]
        nodes.gain[row], nodes.ratio[row] = table.gain[i], table.ratio[i]
        if table.groups[i] is not None:
            V = len(table.groups[i])
            branch[g : g + V] = table.groups[i]
            nodes.group_at[row] = g
            g += V
    problem = _Assembled(without_rows(schema), settings, snaps or {})
    return to_nodes(problem, [nodes, Groups(branch)], n, monitor, C)


class _Assembled(Problem):
    """The problem the finished arrays are read against: no rows, and for C4.5 the training
    values its thresholds move onto (gathered by a pass, not from a table in memory)."""

    def __init__(self, data: Encoded, settings: Settings, snaps: dict):
        super().__init__(data, settings)
        self._snaps = snaps

    @property
    def sorted_values(self) -> dict:
        return self._snaps
