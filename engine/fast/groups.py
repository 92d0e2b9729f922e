"""What the compiled builder's kernels work on: named groups of arrays, made and enlarged
by :mod:`engine.fast.builder` as named tuples (the kernels get each as one reference:
:mod:`engine.fast.compile.refs`).

An *entry* is one training row reaching the root (the values are gathered by entry); a
node holds a segment ``[start, end)`` of an :class:`Arena`: its entries
in root order with their weights at that node (an entry whose value of a split
attribute is missing goes down every branch with a fraction of its weight), and, in the
exact mode, the same entries sorted by each numeric attribute (missing values last).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

NUMERIC, NOMINAL = 0, 1
#: Histogram code of a missing value (numeric attributes have at most 255 bins: 0..254).
MISSING_CODE = 255
#: Nominal attributes with more categories than this are not binned: their tables are
#: counted from the entries.
MAX_BINNED_CATEGORIES = 255

#: The training set: ``values[j * n_entries + e]`` is attribute j of entry e (NaN:
#: missing); ``cls`` / ``target`` per entry; per attribute its kind, number of categories,
#: whether it counts toward C4.5's average gain, its row of ``Arena.order`` (-1: nominal),
#: whether it has missing values at all, and the attributes excluded from the start
#: (used by multiway splits above the node a subtree grows from).
Training = namedtuple(
    "Training",
    [
        "values",
        "n_entries",
        "cls",
        "target",
        "kind",
        "n_categories",
        "counted",
        "numeric_index",
        "has_missing",
        "used_above",
    ],
)

#: Node segments: entries and their weights, and per numeric attribute the entries sorted.
Arena = namedtuple("Arena", ["entry", "weight", "order"])

#: Where a node's entries are worked on: the training set, its arena, per-entry scratch
#: (``entry_branch``: branch of each entry at the node being split; ``entry_weight``: weight
#: of each entry at the node being scored) and partition buffers. A private copy of a small
#: node's entries writes its values through ``private_values`` (``data.values`` is the same
#: memory, read-only, so both spaces have one type and the kernels compile once). ``codes``:
#: by entry, the codes of exact search's attributes counted by value (``numeric_index`` -1;
#: a private copy has its own), else a row of zeros.
Space = namedtuple(
    "Space",
    [
        "data",
        "arena",
        "entry_branch",
        "entry_weight",
        "buffer",
        "weight_buffer",
        "private_values",
        "codes",
    ],
)

#: The settings as numbers. ``select``: BY_GAIN, BY_RATIO or C45_RULE; ``best_first``: 0
#: (depth-first) or the queue's key (``rules.WEIGHTED_PRIORITY``, ``rules.GAIN_PRIORITY``); ``max_depth`` and
#: ``max_leaves`` -1 for none; ``small``: nodes with fewer entries are grown whole on a
#: private copy (``local`` = 1) or, with histograms, scored on their own sorted values;
#: ``split_least``: nodes of at least this many entries are split by the caller's threads
#: (``growth_loop.split_step``; 0: none); ``share``: with ``local`` = DEFER_LOCAL in the
#: histogram mode, nodes of at least ``small`` and fewer than this many entries are searched
#: and then left, histogram and all, to the caller's threads (0: none); ``majority``: 1 when
#: a row missing a two-way split's attribute goes whole down its heavier branch
#: (``--missing majority``, :func:`engine.learn.rules.whole_branch`), 0 down both at a fraction.
Params = namedtuple(
    "Params",
    [
        "impurity",
        "binary",
        "select",
        "best_first",
        "n_classes",
        "n_stats",
        "max_depth",
        "max_leaves",
        "histogram",
        "small",
        "local",
        "min_samples_split",
        "min_samples_leaf",
        "min_gain",
        "split_least",
        "share",
        "majority",
    ],
)

#: One row per node. ``attribute`` is the chosen split's attribute (-1: a leaf); the split
#: is at ``threshold`` (numeric; ``cut_bin`` in the histogram mode) or into the groups at
#: ``group_at`` in ``Groups`` (CART subsets) or one branch per category; ``fraction0`` /
#: ``fraction1`` are a two-way candidate's branch fractions and ``fraction`` the node's own
#: as a child; ``n_missing``: entries missing the chosen attribute; ``unit``: all weights 1;
#: ``slot``: the node's histogram in the pool (-1: none); ``local``: to be grown whole.
Nodes = namedtuple(
    "Nodes",
    [
        "start",
        "end",
        "depth",
        "parent",
        "child0",
        "n_children",
        "attribute",
        "cut_bin",
        "group_at",
        "n_missing",
        "slot",
        "local",
        "unit",
        "weight",
        "threshold",
        "gain",
        "ratio",
        "fraction0",
        "fraction1",
        "fraction",
        "stats",
    ],
)
NODE_INT_FIELDS = (
    "start",
    "end",
    "depth",
    "parent",
    "child0",
    "n_children",
    "attribute",
    "cut_bin",
    "group_at",
    "n_missing",
    "slot",
    "local",
    "unit",
)

#: The frontier: a binary heap of nodes keyed by (key, tie) (depth-first: a LIFO stack).
Heap = namedtuple("Heap", ["node", "key", "tie"])

#: Histogram mode: per entry and attribute a bin code (uint8), bins per attribute with the
#: value range of each, the pool of per-node histograms [slot, attribute, bin, stat] (the
#: bin after an attribute's last holds its missing values), the free slots, and histograms
#: of a big node's blocks of entries (``growth_loop.COUNT_BLOCK``; one, or one per block of
#: the root when threads count the blocks side by side).
Hist = namedtuple("Hist", ["codes", "n_bins", "low", "high", "pool", "free", "partials"])

#: Branch of each category for the nodes split into two groups (-1: absent at the node).
Groups = namedtuple("Groups", ["branch"])

#: Counters, each a one-element array the kernels update: nodes made, frontier size,
#: leaves, pushes, free histogram slots, arena top (best-first), group entries used,
#: the node last expanded and, when a kernel returns for more room, what it needs; ``stop``,
#: set to 1 by a Cancel (the monitor's :attr:`~engine.monitor.Monitor.stop_flag`).
State = namedtuple(
    "State",
    [
        "n_nodes",
        "heap_size",
        "leaves",
        "pushes",
        "free_slots",
        "arena_top",
        "groups_used",
        "last_expanded",
        "need_nodes",
        "need_arena",
        "need_local",
        "need_groups",
        "need_slots",
        "deferred_top",
        "settled",
        "total_weight",
        "stop",
    ],
)

#: What a numeric attribute's cut search at a node goes by, besides its entries and the
#: ``Work`` arrays (the known values' statistics in ``Work.total``): the rule (``K`` classes,
#: 0 for regression; the impurity ``code``; ``binary``, CART's two-way cuts; ``whole``,
#: weights that are whole counts with no missing values), the known values' impurity,
#: their share of the node's weight and their weight, the least weight of a side
#: (``msl``) and C4.5's minimum split (``min_split``).
Cut = namedtuple(
    "Cut",
    ["K", "code", "binary", "whole", "imp_parent", "known_frac", "known_w", "msl", "min_split"],
)

#: Per-attribute results of a node's split search.
Candidates = namedtuple(
    "Candidates",
    [
        "valid",
        "gain",
        "ratio",
        "threshold",
        "fraction0",
        "fraction1",
        "cut",
        "n_known",
        "size0",
        "size1",
        "unknown",
    ],
)

#: Scratch vectors for one node's scoring.
Work = namedtuple(
    "Work",
    [
        "total",
        "left",
        "right",
        "best_left",
        "tmp",
        "sizes",
        "tmp2",
        "parent",
        "gains",
        "cuts",
        "table",
        "item_bin",
        "item_stats",
        "item_value",
        "value_buffer",
        "weight_buffer2",
        "order_buffer",
        "entry_buffer",
        "mask",
        "best_mask",
        "offsets",
        "counts",
        "flog",
        "used",
        "known",
    ],
)


def new_state() -> State:
    ints = {name: np.zeros(1, dtype=np.int64) for name in State._fields}
    ints["settled"], ints["total_weight"] = np.zeros(1), np.zeros(1)
    return State(**ints)


def new_nodes(capacity: int, n_stats: int) -> Nodes:
    arrays = {name: np.zeros(capacity, dtype=np.int64) for name in NODE_INT_FIELDS}
    for name in ("weight", "threshold", "gain", "ratio", "fraction0", "fraction1", "fraction"):
        arrays[name] = np.zeros(capacity)
    arrays["stats"] = np.zeros((capacity, n_stats))
    return Nodes(**arrays)


def new_work(S: int, max_v: int, items: int, n_cuts: int, p: int, flog: np.ndarray) -> Work:
    """Scratch for one node's scoring: statistics vectors of ``S``, up to ``max_v``
    categories, ``items`` bins or distinct values, ``n_cuts`` cuts, ``p`` attributes."""
    vec = max(S, max_v) + 2
    return Work(
        total=np.zeros(S),
        left=np.zeros(S),
        right=np.zeros(S),
        best_left=np.zeros(S),
        tmp=np.zeros(vec),
        sizes=np.zeros(vec),
        tmp2=np.zeros(vec),
        parent=np.zeros(vec),
        gains=np.zeros(n_cuts),
        cuts=np.zeros(n_cuts, np.int64),
        table=np.zeros((max_v, S)),
        item_bin=np.zeros(items, np.int64),
        item_stats=np.zeros((items, S)),
        item_value=np.zeros(items),
        value_buffer=np.zeros(max(items, max_v)),
        weight_buffer2=np.zeros(items),
        order_buffer=np.zeros(max_v, np.int64),
        entry_buffer=np.zeros(items, np.int64),
        mask=np.zeros(max_v, bool),
        best_mask=np.zeros(max_v, bool),
        offsets=np.zeros(2 * max_v, np.int64),
        counts=np.zeros(max_v, np.int64),
        flog=flog,
        used=np.zeros(p, bool),
        known=np.zeros(p, np.int64),
    )


def new_candidates(p: int) -> Candidates:
    """Empty per-attribute results for ``p`` attributes."""
    ints, floats = (lambda: np.zeros(p, np.int64)), (lambda: np.zeros(p))
    return Candidates(*(f() for f in (ints, *[floats] * 5, ints, ints, *[floats] * 3)))
