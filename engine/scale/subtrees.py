"""Small leaves' subtrees, grown exactly on a worker from their gathered rows.

The in-memory histogram mode searches nodes of fewer than a few thousand entries exactly
(their values, not their bins), and depth-first grows such a node's whole subtree on a
private copy of its rows. Over partitions the same nodes' rows are gathered to one worker,
which grows the subtree with the in-memory builder itself (exact search), so these
subtrees are the in-memory ones. Two numbers come from the whole table, not from the
gathered rows: which attributes count toward C4.5's average gain (the 30% rule counts the
training rows) and, at the end, the training values C4.5's thresholds move onto.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Encoded, Schema
from engine.monitor import NULL_MONITOR
from engine.settings import Settings


@dataclass(frozen=True)
class BundleSpec:
    """What a bundle's task needs: the schema, the settings, the table's C4.5 average-gain
    attributes, and per leaf (output slot, depth, attributes used above by multiway splits)."""

    schema: Schema
    settings: Settings
    counted: np.ndarray
    leaves: tuple


@dataclass(frozen=True)
class SubTree:
    """A grown subtree as the builder's node arrays (row 0 its root; children consecutive)."""

    attribute: np.ndarray
    child0: np.ndarray
    n_children: np.ndarray
    threshold: np.ndarray
    gain: np.ndarray
    ratio: np.ndarray
    fraction: np.ndarray
    weight: np.ndarray
    stats: np.ndarray
    depth: np.ndarray
    groups: tuple  # per node: a two-group split's branch of each category, or None

    def __len__(self) -> int:
        return len(self.attribute)


def grow_subtree(
    spec: BundleSpec, X: np.ndarray, y: np.ndarray, w: np.ndarray, depth: int, used
) -> SubTree:
    """The exact subtree of a node holding these rows (weights ``w``), at ``depth``."""
    from engine.fast.builder import HIST_LOCAL_ROWS, Growth, kernels
    from engine.learn.problem import Problem

    X = np.asfortranarray(X, dtype=np.float64)
    X.setflags(write=False)
    data = Encoded(spec.schema, X, y, w)
    # Depth-first without a leaf limit: the whole subtree, exactly (the driver replays the
    # leaf limit over it in the in-memory order).
    settings = replace(spec.settings, max_leaves=None, growth="depth")
    problem = Problem(data, settings)
    C = kernels(True)
    # As the in-memory histogram mode grows a node of fewer than HIST_LOCAL_ROWS entries:
    # whole, exactly, on a private copy sorted by the kernel ("exact" would presort every
    # attribute with numpy first, a third of the time of these subtrees).
    mode = "histogram" if len(y) < HIST_LOCAL_ROWS else "exact"
    growth = Growth(problem, mode, np.arange(len(y)), w, depth, frozenset(used), NULL_MONITOR, C)
    _count_like_the_table(growth, np.asarray(spec.counted, dtype=bool))
    status = C.PAUSED
    while status != C.DONE:
        status = growth.run(1 << 62)
    n = int(growth.state.n_nodes[0])
    nodes, branch = growth.nodes, growth.groups.branch
    S = nodes.stats.shape[1]
    groups = tuple(
        branch[nodes.group_at[i] : nodes.group_at[i] + len(spec.schema.attributes[a].categories)]
        .astype(np.int64)
        .copy()
        if nodes.n_children[i] and settings.binary and spec.schema.attributes[a].is_nominal
        else None
        for i, a in enumerate(nodes.attribute[:n].tolist())
    )
    return SubTree(
        nodes.attribute[:n].copy(),
        nodes.child0[:n].copy(),
        nodes.n_children[:n].copy(),
        nodes.threshold[:n].copy(),
        nodes.gain[:n].copy(),
        nodes.ratio[:n].copy(),
        nodes.fraction[:n].copy(),
        nodes.weight[:n].copy(),
        nodes.stats[:n, :S].copy(),
        nodes.depth[:n].copy(),
        groups,
    )


def _count_like_the_table(growth, counted: np.ndarray) -> None:
    """C4.5's average gain counts the attributes the whole table's rows decide, not these."""
    growth.data = growth.data._replace(counted=counted)
    growth.space = growth.space._replace(data=growth.data)
    local = growth.local_space
    growth.local_space = local._replace(data=local.data._replace(counted=counted))
