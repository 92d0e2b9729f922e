"""When a fit runs on the compiled builder (:mod:`engine.fast.compiled`), and its arrays made a tree.

The compiled builder grows the tree :func:`engine.learn.growth.grow`'s loop would
grow, node for node, when it can: numba is installed, the attributes the
algorithm would look at have no missing values (fractional instances stay with
the numpy loop), and nominal attributes are split one branch per category
(ID3 and C4.5; CART's two-group subsets stay with the numpy loop). The
``splitter`` setting chooses between presorted exact search and histograms.
"""

from __future__ import annotations

import numpy as np

from engine.fast import NUMBA_INSTALLED
from engine.monitor import Monitor
from engine.tree import (
    MULTIWAY,
    NO_STATS,
    THRESHOLD,
    ArrayNode,
    Node,
    NodeNumbers,
    Split,
    SplitScores,
)

#: The compiled sums repeat numpy's for up to this many terms (classes, categories).
MAX_SHORT_SUM = 128

#: Below this many rows the numpy loop is about as fast and spares importing numba.
COMPILED_MIN_ROWS = 2_000
#: ``splitter="auto"`` bins CART's numeric attributes from this many rows on (measured:
#: benchmarks/README.md).
AUTO_HISTOGRAM_ROWS = 500_000
#: Work (entries times attributes looked at) between two ``monitor.check()`` calls: ~20-50 ms.
CHUNK_WORK = 4_000_000
#: Depth-first without a leaf limit, a node with fewer rows has its whole subtree grown at once
#: on a private, cache-sized copy of its rows (exactly, in both modes). 2,048 to 8,192 rows
#: measure equally fast from 100,000 to 1,000,000 rows; the smaller copy keeps the workspace
#: of a 10,000-row fit small.
LOCAL_ROWS = 2048
#: The same in the histogram mode: nodes below it are searched exactly (benchmarks/README.md).
HIST_LOCAL_ROWS = 8192
#: Otherwise, in the histogram mode, nodes with fewer rows are scored exactly, on their sorted
#: values: deep in the tree a bin spans many of a node's values (splits there decide the
#: accuracy of a fully grown tree), and sorting a few hundred values beats scanning every bin.
HIST_EXACT_BELOW = 1024
#: Histogram slots held at once (a node keeps one from its evaluation to its expansion).
HIST_SLOTS = {"depth": 128, "best": 512}

def plan(problem, rows: np.ndarray, weights: np.ndarray, used, force: bool = False) -> str | None:
    """"exact" or "histogram" for the compiled builder, or None for the numpy loop."""
    s = problem.settings
    if not NUMBA_INSTALLED or (len(rows) < COMPILED_MIN_ROWS and not force) or len(rows) == 0:
        return None
    attrs = problem.data.schema.attributes
    n_cat = [len(a.categories) for a in attrs]
    if len(attrs) > 62 or problem.n_classes > MAX_SHORT_SUM:
        return None
    if any(a.is_nominal and (s.binary or n_cat[j] > MAX_SHORT_SUM)
           for j, a in enumerate(attrs) if j not in used):
        return None
    if not (np.all(np.isfinite(weights)) and np.all(weights >= 0)):
        return None
    X = problem.data.X
    whole = _is_whole(rows, problem.data.n_rows)
    for j in range(len(attrs)):
        column = X[:, j] if whole else X[rows, j]
        if j not in used and np.isnan(column).any():
            return None
    if s.splitter == "histogram" or (s.splitter == "auto" and s.binary
                                    and len(rows) >= AUTO_HISTOGRAM_ROWS):
        return "histogram"
    return "exact"


def _is_whole(rows: np.ndarray, n: int) -> bool:
    """``rows`` is every row in order (then columns are used in place, not gathered)."""
    if not (len(rows) == n and rows[0] == 0 and rows[-1] == n - 1):
        return False
    block = 1 << 16  # compared a block at a time: no row-sized temporaries
    return all(np.array_equal(rows[a:a + block], np.arange(a, min(a + block, n), dtype=rows.dtype))
               for a in range(0, n, block))


def grow_compiled(problem, mode: str, rows, weights, depth: int, used, monitor: Monitor) -> Node:
    """Grow on the compiled builder; the same tree as the numpy loop (histograms aside).

    Call :func:`wait_until_compiled` first.
    """
    return _grow(problem, mode, rows, weights, depth, used, monitor)


def _grow(problem, mode: str, rows, weights, depth: int, used, monitor: Monitor) -> Node:
    from engine.fast import compiled as C
    from engine.fast import sweeps as W
    from engine.fast.histogram import bin_columns
    from engine.fast.kernels import IMPURITY_CODES

    s, data = problem.settings, problem.data
    attrs = data.schema.attributes
    m, p = len(rows), len(attrs)
    K = problem.n_classes
    S = 3 if problem.regression else K
    hist = mode == "histogram"
    whole = _is_whole(rows, data.n_rows)
    X = np.asfortranarray(data.X, dtype=np.float64)
    row_of = np.ascontiguousarray(rows, dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    root_stats = problem.stats(row_of, w)  # before the sorted indices: its gather is row-sized
    y = data.y if whole else data.y[rows]
    ycls = np.zeros(1, np.int64) if problem.regression else np.ascontiguousarray(y, dtype=np.int64)
    yval = np.ascontiguousarray(y, dtype=np.float64) if problem.regression else np.zeros(1)
    nominal = np.array([a.is_nominal for a in attrs])
    kind = nominal.astype(np.int64)
    ncat = np.array([len(a.categories) if a.is_nominal else 0 for a in attrs], dtype=np.int64)
    limit = 0.3 * data.n_rows
    all_many = all(a.is_nominal and len(a.categories) >= limit for a in attrs)
    counted = np.array([not a.is_nominal or all_many or len(a.categories) < limit for a in attrs])
    numeric = np.flatnonzero(~nominal)
    numidx = np.full(p, -1, dtype=np.int64)
    unit = bool(np.all(w == 1.0))
    binary = s.binary
    local = s.growth == "depth" and s.max_leaves is None
    local_rows = HIST_LOCAL_ROWS if hist else LOCAL_ROWS
    if local and m < local_rows:  # the root is small: the whole tree grows on a private copy
        hist = False
    if hist:
        codes, nbins, binlo, binhi = bin_columns(X, row_of, ncat, s.max_bins, whole,
                                                 check=monitor.check)
        order = np.zeros((0, 1), dtype=np.int32)
        width = int(max(nbins.max(), 1))
        small = local_rows if local else HIST_EXACT_BELOW
        slots = min(HIST_SLOTS[s.growth], m // small + 4)
        HP = np.empty((slots + 1, p, width, S))  # the last one is a spare
    else:
        numidx[numeric] = np.arange(len(numeric))
        order = np.empty((len(numeric), m if not local or m >= local_rows else 0), np.int32)
        for a, j in enumerate(numeric if order.shape[1] else ()):
            monitor.check()
            order[a] = np.argsort(X[:, j] if whole else X[row_of, j], kind="stable")
        codes = np.zeros((1, p), dtype=np.uint8)
        nbins = np.zeros(p, dtype=np.int64)
        binlo = binhi = np.zeros((p, 1))
        width, small, slots = 1, local_rows if local else 0, 0
        HP = np.zeros((1, 1, 1, S))
    select = W.BY_GAIN
    if s.criterion == "gain_ratio":
        select = W.C45_RULE if s.algorithm == "c45" else W.BY_RATIO
    IP = np.array([IMPURITY_CODES[s.impurity], int(binary), select, int(s.growth == "best"),
                   K, S, -1 if s.max_depth is None else s.max_depth,
                   -1 if s.max_leaves is None else s.max_leaves, int(unit), int(hist), small,
                   len(order), data.n_rows, int(local)], dtype=np.int64)
    FP = np.array([s.min_samples_split, s.min_samples_leaf, s.min_gain], dtype=np.float64)
    capacity = 1024
    NI = np.zeros((capacity, C.NI_WIDTH), dtype=np.int64)
    NF = np.zeros((capacity, C.NF_WIDTH))
    NS = np.zeros((capacity, S))
    HN = np.zeros(capacity, dtype=np.int64)
    HK = np.zeros(capacity)
    HT = np.zeros(capacity, dtype=np.int64)
    NI[0] = [0, m, depth, -1, -1, 0, -1, 0, sum(1 << j for j in used), -1, 0]
    NF[0, C.WEIGHT] = float(w.sum())
    NS[0] = root_stats
    ST = np.array([0, 0, 1, 0, slots, 0], dtype=np.int64)
    STF = np.zeros(2)
    max_v = int(max(ncat.max(), 2))
    items = max(width, small)
    members = np.arange(m, dtype=np.int32)
    need_buffers = not binary or not unit
    work = dict(
        branch=np.empty(m, dtype=np.int32), scratch=np.empty(m, dtype=np.int32),
        fbuf=np.empty(m if need_buffers else 1), ibuf=np.empty(m if not binary else 1, np.int64),
        vbuf=np.empty(items if hist else 1), item_val=np.empty(items), AR=np.zeros((p, 7)),
        vecs=np.zeros((8, max(S, K, max_v) + 2)), table=np.zeros((max_v, S)),
        item_bin=np.zeros(items, dtype=np.int64), item_stats=np.zeros((items, S)),
        offsets=np.zeros(2 * max_v, dtype=np.int64), counts=np.zeros(max_v, dtype=np.int64),
        flog=_flog(m) if unit and s.impurity == "entropy" else np.zeros(1),
    )
    FREE = np.arange(max(slots, 1), dtype=np.int64)
    stride = min(local_rows, m) if local else 1
    IPloc = IP.copy()
    IPloc[W.P_NROWS], IPloc[W.P_HIST] = stride, 0
    lnumidx = np.full(p, -1, dtype=np.int64)
    lnumidx[numeric] = np.arange(len(numeric))
    work.update(
        LX=np.zeros(p * stride), Lrow=np.arange(stride, dtype=np.int64), Lw=np.zeros(stride),
        Lyc=np.zeros(stride, dtype=np.int64), Lyv=np.zeros(stride),
        Lorder=np.zeros((len(numeric), stride), dtype=np.int32),
        Lmembers=np.zeros(stride, dtype=np.int32), Lbranch=np.zeros(stride, dtype=np.int32),
        Lscratch=np.zeros(stride, dtype=np.int32),
        Lstack=np.zeros(stride * max_v + 4, dtype=np.int64), IPloc=IPloc, Lnumidx=lnumidx,
        Lfbuf=np.zeros(stride), Libuf=np.zeros(stride, dtype=np.int64),
    )
    flat = X.ravel(order="F")
    status = 1
    while status:
        monitor.check()
        status = C.run(CHUNK_WORK, flat, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP,
                       FP, NI, NF, NS, order, members, codes, nbins, binlo, binhi, HP, FREE, HN,
                       HK, HT, ST, STF, **work)
        if status == 2:  # one array at a time, so only one old copy is alive beside the new
            nodes, queued = int(ST[C.S_NODES]), int(ST[C.S_HEAP])
            NI = _enlarged(NI, nodes)
            NF = _enlarged(NF, nodes)
            NS = _enlarged(NS, nodes)
            HN = _enlarged(HN, queued)
            HK = _enlarged(HK, queued)
            HT = _enlarged(HT, queued)
        monitor.report(STF[0] / STF[1], f"{ST[C.S_LEAVES]} leaves")
    n = int(ST[C.S_NODES])
    del order, members, codes, HP, work, flat, HN, HK, HT
    arrays = [NI, NF, NS]
    del NI, NF, NS  # to_nodes keeps only the columns nodes need, and lets these go
    return to_nodes(problem, arrays, n, monitor)


def _enlarged(a: np.ndarray, used: int) -> np.ndarray:
    """``a`` with room for half as many rows again; x1.5 wastes less than doubling on a fully
    grown tree's node arrays.

    Only the ``used`` rows are copied: the rest are zeros, left untouched so they take no
    memory until written (the builder asks for room for the largest subtree a small node
    could grow, which is often many times what it grows).
    """
    out = np.zeros((len(a) + max(len(a) // 2, 1024), *a.shape[1:]), dtype=a.dtype)
    out[:used] = a[:used]
    return out


def _flog(m: int) -> np.ndarray:
    """c * log2(c) for c = 0..m (0 for c = 0): entropy proxies from whole counts."""
    c = np.arange(m + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = c * np.log2(c)
    out[0] = 0.0
    return out


#: Nodes made per batch: each batch's numbers become Python objects together, not the whole tree's.
NODE_BATCH = 4096


def to_nodes(problem, arrays: list, n: int, monitor: Monitor) -> Node:
    """Immutable nodes from the node arrays ``[NI, NF, NS]``, ids in pre-order (what
    ``growth.freeze`` gives).

    ``arrays`` is emptied: the growth arrays (with their spare capacity) are released once
    the few columns the nodes need are copied out, so a big tree's nodes are not built on
    top of them.
    """
    from engine.fast import compiled as C
    NI, NF, NS = arrays
    arrays.clear()
    attrs = problem.data.schema.attributes
    binary = problem.settings.binary
    child0 = np.ascontiguousarray(NI[:n, C.CHILD0])
    nchild = np.ascontiguousarray(NI[:n, C.NCHILD])
    order = C.preorder(child0, nchild)  # row of the node with id k
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.arange(n)
    attr, depth = NI[:n, C.ATTR].copy(), NI[:n, C.DEPTH] - NI[0, C.DEPTH]
    thr, gain, ratio = NF[:n, C.THRESHOLD].copy(), NF[:n, C.GAIN].copy(), NF[:n, C.RATIO].copy()
    fraction = NF[:n, C.FRACTION].copy()
    stats = NS[:n][order]
    numbers = NodeNumbers(np.zeros(0) if problem.regression else stats, NF[:n, C.WEIGHT][order],
                          np.asarray(problem.impurity(stats), dtype=np.float64).reshape(n),
                          _mean_target(stats) if problem.regression else np.broadcast_to(np.nan, n))
    del NI, NF, NS, stats
    built: list = [None] * n
    for end in range(n, 0, -NODE_BATCH):  # reverse pre-order: children before their parent
        monitor.check()
        batch = order[max(end - NODE_BATCH, 0):end][::-1]
        for i, node_id, d, k, c0, j, cut, g, r in zip(
                batch.tolist(), ids[batch].tolist(), depth[batch].tolist(), nchild[batch].tolist(),
                child0[batch].tolist(), attr[batch].tolist(), thr[batch].tolist(),
                gain[batch].tolist(), ratio[batch].tolist(), strict=True):
            split, children, node_stats = None, (), NO_STATS
            if k:
                fractions = tuple(fraction[c0:c0 + k].tolist())
                if attrs[j].is_nominal:
                    split = Split(j, MULTIWAY, fractions, groups=tuple((v,) for v in range(k)))
                else:
                    split = Split(j, THRESHOLD, fractions, threshold=_threshold(problem, j, cut, binary))
                children = tuple(built[c0:c0 + k])
                built[c0:c0 + k] = [None] * k
                node_stats = SplitScores(g, r)
            built[i] = ArrayNode.make(numbers, node_id, d, split, children, node_stats)
    return built[0]


def _mean_target(stats: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(stats[:, 0] > 0, stats[:, 1] / stats[:, 0], np.nan)


def _threshold(problem, j: int, value: float, binary: bool) -> float:
    if binary:
        return value
    from engine.learn.thresholds import c45_threshold

    return c45_threshold(problem.sorted_values[j], value)  # at a training value, as J48 does
