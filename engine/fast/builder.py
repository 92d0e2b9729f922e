"""Driving the compiled growth loop (:mod:`engine.fast.growth_loop`) from Python: its arrays,
the monitor between chunks of work, more room when an array is full, and the tree its
arrays describe.

Every fit goes through here, whatever it holds: missing values, nominal attributes split
one branch per category or (CART) into two groups, any number of attributes and classes,
regression, depth-first or best-first, the window's one-expansion-at-a-time growth, and
subtrees grown below a node. The ``splitter`` setting chooses between presorted exact
search and histograms (:func:`plan`).
"""

from __future__ import annotations

import importlib
import mmap
import threading
from collections.abc import Iterator

import numpy as np

from engine.data.order import column_order
from engine.errors import ArborError
from engine.fast.groups import (
    NOMINAL,
    NUMERIC,
    Arena,
    Groups,
    Heap,
    Hist,
    Params,
    Space,
    Training,
    new_candidates,
    new_nodes,
    new_state,
    new_work,
)
from engine.fast.threads import beside, fold_map, spills
from engine.flat import FlatTree
from engine.learn import rules
from engine.learn.problem import Problem
from engine.learn.thresholds import c45_threshold
from engine.monitor import Monitor
from engine.tree import Node

#: The most node rows a growth starts with; more are added by half as they fill. (A tree of
#: depth 12 has 8,191 nodes at most; 65,536 rows of every field are 13 MB to zero, which in
#: memory a fit had freed took up to 1.5 ms of each fit of a million rows.)
FIRST_NODES_MAX = 1 << 14
#: ``splitter="auto"`` bins CART's numeric attributes from this many rows on (measured:
#: benchmarks/README.md).
AUTO_HISTOGRAM_ROWS = 500_000
#: Exact search on at least this many rows codes its numeric attributes of at most 255
#: values by value (:func:`_exact_bins_pay`).
EXACT_BINS_LEAST_ROWS = 20_000
#: Every numeric attribute so coded grows as the histogram mode when its histograms take at
#: most this much memory, or no more than the sorted orders (else each node counts them).
#: (Their speed hardly depends on the classes: at 200,000 rows of 250 values and 100 classes
#: they still grew as quickly as the sorted orders, 0.57 s against 0.60.)
EXACT_BINS_BYTES = 64 << 20
#: Work (entries times attributes looked at) between two ``monitor.check()`` calls: ~20-50 ms.
CHUNK_WORK = 4_000_000
#: Depth-first without a leaf limit, a node with fewer entries than :func:`exact_local_rows` has its
#: whole subtree grown at once on a private copy of its entries (exactly, in both modes): its
#: values packed together instead of spread over the whole table's columns. Exact search
#: copies nodes of up to LOCAL_ROWS entries, a quarter of the rows (LOCAL_SHARE) at most and
#: LOCAL_ROWS_LEAST at least. Measured (benchmarks/README.md): at depth 12 a copy of up to
#: 65,536 entries grew a 300,000-row fit twice as fast as 2,048; a copy of the whole table
#: (the root itself copied) was slower than a quarter of it. Since big nodes fetch their
#: entries ahead (engine.fast.compile.jit.prefetch), copies of up to 131,072 grow a
#: 1,000,000-row fit 4-5% faster than 65,536 on one thread and 4-14% on two, where the
#: threads grow the copied subtrees (250,000: 20% slower on one). The copy (values, and one
#: sorted order per attribute) is also kept within LOCAL_BYTES: wide tables copy fewer.
LOCAL_ROWS = 131072
LOCAL_SHARE = 4
LOCAL_ROWS_LEAST = 2048
LOCAL_BYTES = 32 << 20
#: The same in the histogram mode: nodes below it are searched exactly. Since the histograms'
#: entries are fetched ahead, counting a node of a few thousand entries beats copying and
#: sorting it: at 1,000,000 rows and depth 12, copies from 1,024 entries grew 1.6-2.4x faster
#: than from 8,192 (benchmarks/README.md, "Eleventh round"), as accurate on a holdout.
HIST_LOCAL_ROWS = 1024
#: Otherwise, in the histogram mode, nodes with fewer entries are scored exactly, on their
#: sorted values: deep in the tree a bin spans many of a node's values (splits there decide
#: the accuracy of a fully grown tree), and sorting a few hundred values beats scanning every bin.
HIST_EXACT_BELOW = 1024
#: On several threads in the histogram mode, nodes of fewer entries are searched and then their
#: subtrees left to the threads, which grow them from those histograms (engine.fast.threads);
#: of fewer than a ``1 / (SHARE_PARTS * threads)`` of the rows, where that is more. Above them
#: the calling thread grows the top alone while the others grow subtrees (every thread counts a
#: big node's blocks only while none has a subtree to grow): at 10,000,000 rows the top above
#: 65,536 entries was two thirds of the work, and two threads were 1.4x one; from a sixth of
#: the rows, 1.77x on `mixed` regression (a million rows: 4% quicker on two threads).
HIST_SHARE_ROWS = 65536
SHARE_PARTS = 3
#: Histogram slots held at once (a node keeps one from its evaluation to its expansion).
HIST_SLOTS = {"depth": 128, "best": 512}
#: How to choose the best attribute (:mod:`engine.fast.sweeps`).
BY_GAIN, BY_RATIO, C45_RULE = 0, 1, 2
#: Columns of this many rows or more are sorted by the compiled radix sort (engine.fast.radix);
#: below, numpy's merge sort is as quick.
RADIX_LEAST_ROWS = 8192
#: On several threads, exact search splits nodes of at least this many entries with every
#: thread at once (engine.fast.threads.Splitter); smaller ones are grown whole, side by side.
SPLIT_LEAST_ROWS = 16_384
#: At most this much memory for the histograms of the root's blocks of entries, which threads
#: count side by side (a wider table's blocks are counted by one thread).
PARTIALS_BYTES = 256 * 2**20
#: Fits of fewer rows grow on one thread whatever the setting.
THREADS_LEAST_ROWS = 20_000
#: Extra arena room for the copies of entries with missing values, to begin with (pages never
#: written take no memory; enlarging the arena copies it all: 0.5 s at 3,000,000 rows).
MISSING_SLACK = 0.5
#: With missing values, the side arena where deferred subtrees wait on several threads starts
#: this many times the arena's room: their entries, copies included, came to 2.8 times the
#: rows at 3,000,000 rows (10% missing), and each enlargement copied every segment so far
#: (three took 2.3 s of the calling thread, the other waiting).
SIDE_SLACK = 3
#: Arrays of at least this many bytes that are written and read once, in order, are made of
#: ordinary pages (:func:`_ordinary_zeros`).
ORDINARY_PAGES_LEAST = 1 << 22
#: The most room (bytes) the group store starts with for subtrees grown whole (zeros: pages
#: never written take no memory).
GROUPS_ROOM = 1 << 22


def plan(settings, n_rows: int) -> str:
    """ "exact" or "histogram": how numeric attributes are searched (absolute error, whose
    medians bins do not hold, always exactly)."""
    if settings.criterion == "absolute_error":
        return "exact"
    if settings.splitter == "histogram" or (
        settings.splitter == "auto" and settings.binary and n_rows >= AUTO_HISTOGRAM_ROWS
    ):
        return "histogram"
    return "exact"


def _exact_bins_pay(s, m: int, kind: np.ndarray) -> bool:
    """Whether exact search codes each numeric attribute of at most 255 values by value: the
    same splits (the same sums, added in another order). Where every numeric attribute has
    few values, the growth is the histogram mode's with one bin per value, several times
    quicker; else those attributes are counted at each node (``growth_loop._count_coded``)
    and only the others sorted."""
    return (
        s.criterion != "absolute_error"  # medians: bins do not hold them
        and m >= EXACT_BINS_LEAST_ROWS
        and bool((kind == NUMERIC).any())
    )


def _exact_bins_fit(s, m: int, local: bool, S: int, n_bins: np.ndarray, numeric) -> bool:
    """Whether exact bins' histograms take at most ``EXACT_BINS_BYTES`` or the sorted orders'
    memory (many classes and many values take more)."""
    width = int(n_bins.max(initial=1)) + 1
    hists = _hist_slots(s, m, local) * len(n_bins) * width * S * 8
    return hists <= max(EXACT_BINS_BYTES, 4 * len(numeric) * m)


def _hist_slots(s, m: int, local: bool) -> int:
    """The histograms held at once in the histogram mode, the spare one included."""
    return min(HIST_SLOTS[s.growth], m // (HIST_LOCAL_ROWS if local else HIST_EXACT_BELOW) + 4) + 1


def _bin_columns(kernels, X, n_categories, max_bins, threads, monitor, has_missing, exact=False):
    """:func:`engine.fast.histogram.bin_columns` of the growth's columns ``X`` (its rows), on
    ``threads`` threads: the columns' edges side by side, then a range of rows each. The
    columns without missing values are known (``has_missing``): not looked at again for them
    (a pass over 16 columns of a million rows took 5 ms, its memory's speed on any thread)."""
    bin_columns = kernel_module(kernels, "engine.fast.histogram").bin_columns

    def fold(work, items):
        return fold_map(lambda item, _: work(item), items, threads, monitor)

    return bin_columns(
        X, None, n_categories, max_bins, True, monitor.check, exact, fold, threads, ~has_missing
    )


def exact_local_rows(n_rows: int, n_attributes: int) -> int:
    """Exact search grows a node's subtree on a private copy below this many entries."""
    fits = LOCAL_BYTES // (12 * max(n_attributes, 1))  # a float64 value and an int32 order each
    return min(LOCAL_ROWS, max(LOCAL_ROWS_LEAST, min(n_rows // LOCAL_SHARE, fits)))


def _all_ones(weights) -> bool:
    """``weights`` is one weight of 1 broadcast to every row (``Encoded.weight``'s unit
    weights), told from its strides: no pass over a million of them."""
    return (
        isinstance(weights, np.ndarray)
        and weights.ndim == 1
        and weights.strides == (0,)
        and (len(weights) == 0 or float(weights[0]) == 1.0)
    )


def _owned_float(y: np.ndarray) -> np.ndarray:
    """``y`` as the kernels read a target (contiguous, writable float64; they never write
    it): itself when it is one already, as an encoded regression target is, else a copy."""
    if y.dtype == np.float64 and y.flags.c_contiguous and y.flags.writeable:
        return y
    return np.array(y, dtype=np.float64)


def _first_entries(capacity: int, m: int, w, root_of) -> tuple:
    """The arena's entries, the rows in order (then room), their weights, and the root's
    statistics (``root_of`` the weights)."""
    entry = np.arange(capacity, dtype=np.int32)  # (no row-sized temporary)
    entry[m:] = 0
    weight = np.zeros(capacity)
    weight[:m] = 1.0 if w is None else w
    return entry, weight, root_of(weight)


def _is_whole(rows: np.ndarray | range, n: int) -> bool:
    """``rows`` (an array, or a range) is every row in order (then columns are used in place,
    not gathered)."""
    if isinstance(rows, range):
        return rows == range(n)
    if not (len(rows) == n and rows[0] == 0 and rows[-1] == n - 1):
        return False
    block = 1 << 16  # compared a block at a time: no row-sized temporaries
    return all(
        np.array_equal(rows[a : a + block], np.arange(a, min(a + block, n), dtype=rows.dtype))
        for a in range(0, n, block)
    )


class Growth:
    """One growing tree: the kernels' arguments, made once and enlarged as it grows."""

    def __init__(
        self,
        problem: Problem,
        mode: str,
        rows,
        weights,
        depth: int,
        used,
        monitor: Monitor,
        kernels,
        stepwise: bool = False,
        threads: int = 1,
    ):
        self.kernels = kernels
        s, data = problem.settings, problem.data
        if len(rows) < THREADS_LEAST_ROWS:  # starting threads would cost more than they save
            threads = 1
        attrs = data.schema.attributes
        m, p = len(rows), len(attrs)
        K = problem.n_classes
        S = 3 if problem.regression else K
        self.problem, self.monitor = problem, monitor
        whole = _is_whole(rows, data.n_rows)
        X = np.asfortranarray(data.X, dtype=np.float64)
        # The rows gathered only when some are left out (a copy of every row: 3 ms a million).
        row = None if whole else np.array(rows, dtype=np.int64)
        # Column by column, by entry: a view of the table when the fit takes every row.
        values = X.ravel(order="F") if whole else np.asfortranarray(X[row]).ravel(order="F")
        values.setflags(write=False)  # the kernels see one array type, whatever X was
        columns = values.reshape((m, p), order="F")  # the fit's rows, a column each
        # Every weight 1 (a table's own, a broadcast 1): known without a pass over them.
        w = None if _all_ones(weights) else np.array(weights, dtype=np.float64)
        if w is not None and not (np.all(np.isfinite(w)) and np.all(w >= 0)):
            raise ArborError("row weights must be finite and not negative")
        if problem.regression:
            y = _owned_float(data.y) if whole else np.array(data.y[rows], dtype=np.float64)
            cls, target = np.zeros(1, np.int16), y
        else:
            if np.iinfo(np.int16).max < K:
                raise ArborError(f"{K} classes: at most {np.iinfo(np.int16).max} can be told apart")
            # Small: the sweeps look an entry's class up at random, so it should stay in cache.
            cls = np.array(data.y if whole else data.y[rows], dtype=np.int16)
            target = np.zeros(1)
        kind = np.array([NOMINAL if a.is_nominal else NUMERIC for a in attrs], dtype=np.int64)
        n_categories = np.array(
            [len(a.categories) if a.is_nominal else 0 for a in attrs], dtype=np.int64
        )
        counted = np.array(rules.counted_in_average(n_categories.tolist(), data.n_rows), dtype=bool)
        numeric = np.flatnonzero(kind == NUMERIC)
        # Each numeric attribute's row of the sorted orders (-1: counted by value, ``coded``).
        numeric_index = np.full(p, -1, dtype=np.int64)
        numeric_index[numeric] = np.arange(len(numeric))

        def gappy_column(j, watch):
            watch.check()
            return bool(np.isnan(columns[:, j]).any())

        # Side by side on several threads (numpy's isnan releases the GIL): 11 ms a million
        # rows of 16 columns, on one thread while the others waited. Not those the table
        # found complete (Encoded.complete): 4-5 ms at a million rows of 16 columns, at the
        # memory's speed on any number of threads.
        unknown = [j for j, a in enumerate(attrs) if a.name not in data.complete]
        has_missing = np.zeros(p, dtype=bool)
        has_missing[unknown] = fold_map(gappy_column, unknown, threads, monitor)
        used_above = np.zeros(p, dtype=bool)
        used_above[list(used)] = True
        unit = w is None or bool(np.all(w == 1.0))
        local = s.growth == "depth" and s.max_leaves is None and not stepwise
        # A small root: the whole tree grows on a private copy, exactly.
        small_root = local and m < (
            HIST_LOCAL_ROWS if mode == "histogram" else exact_local_rows(m, p)
        )
        gappy = bool(has_missing.any())
        capacity = m + (int(MISSING_SLACK * m) + 1024 if gappy else 0)
        if problem.regression:
            sums = kernel_module(kernels, "engine.fast.kernels").ordered_sums

            def root_of(weight):
                return sums(weight[:m], target)
        else:

            def root_of(weight):
                # (unit weights' sums are whole numbers: the same without them)
                return np.bincount(cls.astype(np.intp), weights=w, minlength=K).astype(np.float64)

        # Made beside the binning or sorting, which it does not wait for: their threads wait
        # on one another now and then (3 ms of the calling thread's, a million rows).
        made = beside(lambda: _first_entries(capacity, m, w, root_of), threads)
        binned = coded = None
        if not small_root and mode == "histogram":
            binned = _bin_columns(
                kernels, columns, n_categories, s.max_bins, threads, monitor, has_missing
            )
        elif not small_root and _exact_bins_pay(s, m, kind):
            binned = _bin_columns(
                kernels, columns, n_categories, 0, threads, monitor, has_missing, True
            )
            few = binned[1][numeric] > 0
            if not (few.all() and _exact_bins_fit(s, m, local, S, binned[1], numeric)):
                # Some attributes of few values: those counted by value, the others sorted.
                coded = binned if few.any() else None
                binned = None
        hist = binned is not None
        self.coded = coded is not None
        sorted_numeric = numeric
        if coded is not None:  # their codes are counted at each node: no sorted orders
            sorted_numeric = numeric[coded[1][numeric] == 0]
            numeric_index = np.full(p, -1, dtype=np.int64)
            numeric_index[sorted_numeric] = np.arange(len(sorted_numeric))
        local_rows = HIST_LOCAL_ROWS if hist else exact_local_rows(m, p)
        self.data = Training(
            values,
            m,
            cls,
            target,
            kind,
            n_categories,
            counted,
            numeric_index,
            has_missing,
            used_above,
        )
        if hist:
            codes, n_bins, low, high = binned
            del binned
            width = int(n_bins.max(initial=1)) + 1  # the last bin: missing values
            small = local_rows if local else HIST_EXACT_BELOW
            slots = _hist_slots(s, m, local) - 1
            pool = np.empty((slots + 1, p, width, S))  # the last one is a spare
            self.hist = Hist(
                codes,
                n_bins,
                low,
                high,
                pool,
                np.arange(slots, dtype=np.int64),
                np.zeros((_count_blocks(m, threads, p * width * S, kernels), p, width, S)),
            )
            order = np.zeros((0, capacity), dtype=np.int32)
            items = max(width, small)
        else:
            if coded is None:
                coded = (
                    np.zeros((1, p), np.uint8),
                    np.zeros(p, np.int64),
                    np.zeros((p, 1)),
                    np.zeros((p, 1)),
                )
            codes, n_bins, low, high = coded
            del coded
            n_bins = np.where(kind == NUMERIC, n_bins, 0)  # only numeric attributes are coded
            # A node's counts of the coded attributes (growth_loop._count_coded): per code its
            # statistics and, last, how many entries have it; a big node's, a block at a time.
            counts = (p, int(n_bins.max(initial=0)), S + 1)
            blocks = _count_blocks(m, threads, int(np.prod(counts)), kernels) if self.coded else 1
            self.hist = Hist(
                codes,
                n_bins,
                low,
                high,
                np.zeros((1, *counts)),
                np.zeros(1, np.int64),
                np.zeros((blocks, *counts) if self.coded else (1, 1, 1, S)),
            )
            slots, small, items = 0, local_rows if local else 0, int(n_bins.max(initial=0)) + 1
            # Sorted here even when the whole tree grows on a private copy (a small root): the
            # copy's orders are then renumbered from these. The kernel's merge sort of the
            # copy took a tenth of a credit-g fold's growth; a table's order filtered for a
            # fold is one pass (engine/data/order.py).
            order = np.zeros((len(sorted_numeric), capacity), dtype=np.int32)

            # Big columns by the compiled radix sort (numpy's stable argsort is its oracle).
            radix = None
            if m >= RADIX_LEAST_ROWS and not getattr(kernels, "UNCOMPILED", False):
                radix = kernel_module(kernels, "engine.fast.radix")
            scratch: dict[int, tuple] = {}  # each thread's, from column to column

            def by_radix(x):
                mine = scratch.get(threading.get_ident())
                if mine is None:
                    mine = scratch[threading.get_ident()] = radix.buffers(m)
                return radix.stable_order(x, mine)

            def sort(a_j, _):
                a, j = a_j
                monitor.check()
                if whole:  # a fold's: its table's order, filtered (engine/data/order.py)
                    order[a, :m] = column_order(data, j, by_radix if radix is not None else None)
                elif radix is not None:
                    order[a, :m] = by_radix(X[row, j])
                else:
                    order[a, :m] = np.argsort(X[row, j], kind="stable")

            # Side by side on several threads (numpy's sorts release the GIL).
            fold_map(sort, enumerate(sorted_numeric if order.shape[0] else ()), threads, monitor)
        entry, weight, root_stats = made()
        # Partition buffers: one slot more than the arena (a two-way split's last unkept write).
        self.space = Space(
            self.data,
            Arena(entry, weight, order),
            np.zeros(m, np.int32),
            np.zeros(m),
            np.zeros(capacity + 1, np.int32),
            np.zeros(capacity + 1),
            np.zeros(0),
            self.hist.codes if self.coded else np.zeros((1, p), np.uint8),
        )
        self.params = kernel_params(s, K, S, hist, small, local, kernels)
        # Splits copy rows missing a value past their segments (read by the threads' parts).
        self.spills = spills(has_missing, self.params.majority)
        self.local_params = self.params._replace(histogram=0, local=0, best_first=0, split_least=0)
        stride = min(local_rows, m) if local else 1
        self.stride = stride
        self.local_capacity = stride + (stride // 4 + 64 if gappy else 0)
        self.local_space = self._local_space(self.local_capacity)
        # Several threads grow the small subtrees (engine.fast.threads): compiled kernels only
        # (interpreted ones hold the GIL), and multiway nominal splits look at a node's
        # ancestors, which a thread's copy of the node lacks.
        self.threads = threads
        if (
            local
            and threads > 1
            and not getattr(kernels, "UNCOMPILED", False)
            and (s.binary or not (kind == NOMINAL).any())
        ):
            self.params = self.params._replace(
                local=kernels.DEFER_LOCAL,
                # The top of the tree, above the subtrees shared out, is split by every thread:
                # in exact search each a range of the attributes; in the histogram mode each
                # counting blocks of the big nodes' entries (a range of the attributes each
                # was no quicker: each thread still read every entry's codes).
                split_least=(
                    max(SPLIT_LEAST_ROWS, small)
                    if not hist
                    else 2 * kernels.COUNT_BLOCK
                    if len(self.hist.partials) > 1
                    else 0
                ),
                share=max(HIST_SHARE_ROWS, m // (SHARE_PARTS * threads)) if hist else 0,
            )
            # Where splits copy entries missing a value (:func:`spills`) the local space is
            # then where deferred segments wait (the threads have their own): SIDE_SLACK
            # times the arena (a segment is deferred once, but the copies make them add up to
            # more), in zeros, so pages untouched take no memory, and no enlargement copies
            # it. Else they wait where they are (growth_loop.run).
            side = SIDE_SLACK * capacity if self.spills else 0
            self.local_space = self.local_space._replace(
                arena=Arena(
                    _ordinary_zeros(side, np.int32),
                    _ordinary_zeros(side, np.float64),
                    _ordinary_zeros((self.space.arena.order.shape[0], side), np.int32),
                ),
                buffer=np.zeros(0, np.int32),
                weight_buffer=np.zeros(0),
            )
        # Room for every node a small table's tree can have (two per entry), so that its
        # growth never stops to enlarge them; a bigger one's grow by half when they fill.
        first = min(max(2 * m + 2, 1024), FIRST_NODES_MAX)
        self.nodes = new_nodes(first, S)
        self.heap = Heap(np.zeros(first, np.int64), np.zeros(first), np.zeros(first, np.int64))
        max_v = int(max(n_categories.max(initial=0), 2))
        big = m if not s.binary else max(16, max_v)
        flog = _flog(m) if unit and s.impurity == "entropy" else np.zeros(1)
        self.work = new_work(S, max_v, items, max(big, items), p, flog)
        self.candidates = new_candidates(p)
        subsets = s.binary and any(a.is_nominal for a in attrs)
        room = max(64, 16 * max_v)
        if local:  # a subtree grown whole that runs out of group room is grown again from its
            # start: room for the splits of a local subtree (at most one per entry) up front.
            # A credit-g fold's tree, grown whole, was grown a second time for want of it.
            room = max(room, min(min(m, local_rows) * max_v, GROUPS_ROOM))
        self.groups = Groups(np.zeros(room if subsets else 1, np.int8))
        flag = getattr(monitor, "stop_flag", None)  # (a monitor of the caller's own: none)
        self.state = new_state() if flag is None else new_state()._replace(stop=flag)
        self.state.arena_top[0] = m
        self.state.free_slots[0] = slots
        nodes = self.nodes
        nodes.end[0], nodes.depth[0], nodes.parent[0] = m, depth, -1
        nodes.child0[0], nodes.attribute[0], nodes.slot[0] = -1, -1, -1
        nodes.unit[0] = int(unit)
        nodes.weight[0] = float(m if w is None else w.sum())
        nodes.stats[0] = root_stats

    def _local_space(self, capacity: int) -> Space:
        d, stride = self.data, self.stride
        p = len(d.kind)
        private = np.zeros(p * stride)
        values = private.view()
        values.setflags(write=False)
        data = d._replace(
            values=values, n_entries=stride, cls=np.zeros(stride, np.int16), target=np.zeros(stride)
        )
        n_numeric = int((d.numeric_index >= 0).sum())  # (not those counted by value)
        arena = Arena(
            np.zeros(capacity, np.int32),
            np.zeros(capacity),
            np.zeros((n_numeric, capacity), np.int32),
        )
        return Space(
            data,
            arena,
            np.zeros(stride, np.int32),
            np.zeros(stride),
            np.zeros(capacity + 1, np.int32),
            np.zeros(capacity + 1),
            private,
            np.zeros((stride, p) if self.coded else (1, p), np.uint8),
        )

    def run(self, budget: int, step: bool = False) -> int:
        """One call of the kernel, with more room found first when it last needed some."""
        C = self.kernels
        status = C.run(
            budget,
            step,
            self.space,
            self.local_space,
            self.params,
            self.local_params,
            self.nodes,
            self.heap,
            self.hist,
            self.work,
            self.candidates,
            self.groups,
            self.state,
        )
        if status == C.NEEDS_ROOM:
            self._make_room()
        return status

    def _make_room(self) -> None:
        st = self.state
        if st.need_nodes[0]:
            used = int(st.n_nodes[0])
            want = int(st.need_nodes[0])
            self.nodes = type(self.nodes)(*(_enlarged(a, used, want) for a in self.nodes))
            size = int(st.heap_size[0])
            self.heap = type(self.heap)(*(_enlarged(a, size, want) for a in self.heap))
        if st.need_arena[0]:
            self.space = self._bigger_space(self.space, int(st.need_arena[0]))
        if st.need_local[0]:
            self.local_space = self._bigger_space(self.local_space, int(st.need_local[0]))
        if st.need_slots[0]:
            self.hist = _more_slots(self.hist, st, int(st.need_slots[0]))
        if st.need_groups[0]:
            self.groups = Groups(
                _enlarged(self.groups.branch, int(st.groups_used[0]), int(st.need_groups[0]))
            )

    @staticmethod
    def _bigger_space(space: Space, need: int) -> Space:
        a = space.arena
        old = len(a.entry)
        new = max(need, 2 * old + 1024)  # (a copy of all: seldom, and never of untouched pages)
        order = np.zeros((a.order.shape[0], new), dtype=np.int32)
        order[:, :old] = a.order
        arena = Arena(_enlarged(a.entry, old, new), _enlarged(a.weight, old, new), order)
        return space._replace(
            arena=arena,
            # (none where deferred segments wait: engine.fast.threads)
            buffer=np.zeros(new + 1 if len(space.buffer) else 0, np.int32),
            weight_buffer=np.zeros(new + 1 if len(space.buffer) else 0),
        )

    @property
    def progress(self) -> float:
        return float(self.state.settled[0] / self.state.total_weight[0])


def _count_blocks(m: int, threads: int, floats: int, kernels) -> int:
    """Histograms for a node's blocks of entries: one per block of the root's ``m`` when
    threads count them side by side (unless that would pass ``PARTIALS_BYTES``), else one.
    ``floats``: a histogram's numbers."""
    if threads < 2 or getattr(kernels, "UNCOMPILED", False):
        return 1
    blocks = -(-m // kernels.COUNT_BLOCK)
    return blocks if blocks > 1 and blocks * floats * 8 <= PARTIALS_BYTES else 1


def _more_slots(hist: Hist, state, need: int) -> Hist:
    """``hist`` with at least ``need`` more free slots (the spare slot last again)."""
    old = len(hist.free)
    add = max(need, old // 2 + 4)
    pool = np.empty((old + add + 1, *hist.pool.shape[1:]))
    pool[:old] = hist.pool[:old]
    free = np.zeros(old + add, np.int64)
    n_free = int(state.free_slots[0])
    free[:n_free] = hist.free[:n_free]
    free[n_free : n_free + add] = np.arange(old, old + add)
    state.free_slots[0] = n_free + add
    return hist._replace(pool=pool, free=free)


def _ordinary_zeros(shape, dtype) -> np.ndarray:
    """``np.zeros(shape, dtype)`` in ordinary pages, not the huge pages numpy asks the system
    for (``MADV_HUGEPAGE``) on big arrays: for memory written once and read once in order,
    as deferred subtrees wait in the side arena, where huge pages save no address
    translations, and their first touch can cost far more: on this project's test machine
    (a virtual one) copying the subtrees into huge pages took the calling thread 330 ms of a
    4.8 s fit (a million rows, 10% missing, two threads), into ordinary pages 70 ms."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    if size < max(ORDINARY_PAGES_LEAST, 1) or not hasattr(mmap, "MADV_NOHUGEPAGE"):
        return np.zeros(shape, dtype)
    block = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)  # anonymous: zeros, untouched: no memory
    block.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(block, dtype).reshape(shape)


def _enlarged(a: np.ndarray, used: int, need: int = 0) -> np.ndarray:
    """``a`` with room for half as many rows again (at least ``need``); x1.5 wastes less than
    doubling on a fully grown tree's node arrays.

    Only the ``used`` rows are copied: the rest are zeros, left untouched so they take no
    memory until written.
    """
    out = np.zeros((max(len(a) + max(len(a) // 2, 1024), need), *a.shape[1:]), dtype=a.dtype)
    out[:used] = a[:used]
    return out


def _flog(m: int) -> np.ndarray:
    """c * log2(c) for c = 0..m (0 for c = 0): entropy proxies from whole counts."""
    c = np.arange(m + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = c * np.log2(c)
    out[0] = 0.0
    return out


def kernels(compiled: bool):
    """The growth kernels: compiled, or their Python source run by the interpreter
    (:mod:`engine.fast.interpreted`, which imports no numba)."""
    if compiled:
        from engine.fast import growth_loop as C

        return C
    from engine.fast.interpreted import kernels as python_kernels

    return python_kernels()


def kernel_module(C, name: str):
    """Kernel module ``name`` ("engine.fast.histogram", say) as the growth kernels ``C`` run
    it: the compiled module, or its uncompiled copy (then numba stays unimported)."""
    if getattr(C, "UNCOMPILED", False):
        from engine.fast.interpreted import module

        return module(name)
    return importlib.import_module(name)


def grow_tree(
    problem: Problem,
    mode: str,
    rows,
    weights,
    depth: int,
    used,
    monitor: Monitor,
    compiled: bool = True,
    threads: int = 1,
) -> Node:
    """Grow a tree (or the subtree below a node holding ``rows``) on ``threads`` threads."""
    C = kernels(compiled)
    growth = Growth(problem, mode, rows, weights, depth, used, monitor, C, threads=threads)
    grow_all(growth, monitor)
    holder = [growth.nodes, growth.groups]
    n = int(growth.state.n_nodes[0])
    del growth  # its workspace goes before the nodes are built
    return to_nodes(problem, holder, n, monitor, C)


def grow_all(growth: Growth, monitor: Monitor) -> None:
    """Run ``growth`` to the end: the kernel a chunk of work at a time, then the small
    subtrees it left to several threads (:mod:`engine.fast.threads`)."""
    C = growth.kernels
    status = C.PAUSED
    splitter = pipeline = None
    if growth.params.local == getattr(C, "DEFER_LOCAL", -1):
        from engine.fast.threads import Pipeline

        pipeline = Pipeline(growth, growth.threads, CHUNK_WORK)
    # The histogram mode's big nodes are counted by every thread (growth_loop.SPLIT_COUNT)
    # only while the other threads have no subtree to grow: beside those it was no quicker
    # (within the spread, 5% slower on one generator). Whichever way a node's blocks are
    # counted, they are added in the same order: the tree does not depend on it.
    counted_by_all = growth.params.split_least if growth.params.histogram == 1 else 0
    try:
        while status != C.DONE:
            monitor.check()
            if counted_by_all and pipeline is not None:
                least = counted_by_all if pipeline.idle() else 0
                growth.params = growth.params._replace(split_least=least)
            status = growth.run(CHUNK_WORK)
            if status in (getattr(C, "SPLIT_BIG", -1), getattr(C, "SPLIT_ROOT", -1)):
                if splitter is None:
                    from engine.fast.threads import Splitter

                    splitter = Splitter(growth, growth.threads)
                splitter.split(growth, status)
            if pipeline is not None:
                # (What the last chunk deferred, finish shares out.)
                if status != C.DONE and growth.params.share > 0:
                    pipeline.after_chunk()
                fraction, leaves = pipeline.progress()
                monitor.report(fraction, f"{leaves} leaves")
            else:
                monitor.report(growth.progress, f"{int(growth.state.leaves[0])} leaves")
        if splitter is not None:
            splitter.close()
            splitter = None
        if pipeline is not None:
            pipeline.finish(monitor)
    except BaseException:
        if pipeline is not None:
            pipeline.stop.set()
            pipeline.close()
        raise
    finally:
        if splitter is not None:
            splitter.close()


def grow_stepwise(
    problem: Problem, mode: str, monitor: Monitor, compiled: bool = True
) -> Iterator[tuple[Node, int, float, tuple[tuple[int, float], ...]]]:
    """Expand one node at a time, yielding ``(tree so far, id of the node just split, its
    priority, queue)``: the queue is the open leaves as (id, priority) in the order they
    will be taken, a priority being the key the queue ranks by (:func:`queue_key`;
    depth-first, n/N x gain)."""
    C = kernels(compiled)
    key = queue_key(problem.settings) or rules.WEIGHTED_PRIORITY
    data = problem.data
    growth = Growth(
        problem,
        mode,
        np.arange(data.n_rows),
        data.weight[: data.n_rows],
        0,
        frozenset(),
        monitor,
        C,
        stepwise=True,
    )
    growth.run(CHUNK_WORK, step=True)  # the root
    while True:
        status = growth.run(1 << 62, step=True)
        if status == C.NEEDS_ROOM:
            continue
        if status == C.DONE:
            return
        n = int(growth.state.n_nodes[0])
        nodes, state, heap = growth.nodes, growth.state, growth.heap
        root = to_flat(problem, nodes, growth.groups, n, C).node_objects()[0]
        ids = np.empty(n, dtype=np.int64)  # node row -> id
        ids[_preorder(nodes, n, C)] = np.arange(n)
        total = float(state.total_weight[0])

        def worth(i: int, nodes=nodes, total=total) -> float:  # this step's arrays
            return rules.queue_priority(float(nodes.gain[i]), float(nodes.weight[i]), total, key)

        size = int(state.heap_size[0])
        waiting = sorted(range(size), key=lambda t: (heap.key[t], heap.tie[t]))
        queue = tuple((int(ids[heap.node[t]]), worth(int(heap.node[t]))) for t in waiting)
        last = int(state.last_expanded[0])
        yield root, int(ids[last]), worth(last), queue


def queue_key(s) -> int:
    """``Params.best_first`` for settings ``s``: 0 depth-first, else the best-first queue's key."""
    if s.growth != "best":
        return 0
    return rules.GAIN_PRIORITY if s.priority == "gain" else rules.WEIGHTED_PRIORITY


def kernel_params(s, n_classes: int, n_stats: int, histogram, small, local, C=None) -> Params:
    """The kernels' :class:`Params` for settings ``s`` (shared with growth over partitions);
    ``C``: the growth kernels they are for (None: the compiled ones)."""
    codes = kernel_module(C, "engine.fast.kernels").IMPURITY_CODES
    select = BY_GAIN
    if s.criterion == "gain_ratio":
        select = C45_RULE if s.algorithm == "c45" else BY_RATIO
    return Params(
        codes[s.impurity],
        int(s.binary),
        select,
        queue_key(s),
        n_classes,
        n_stats,
        -1 if s.max_depth is None else int(s.max_depth),
        -1 if s.max_leaves is None else int(s.max_leaves),
        int(histogram),
        int(small),
        int(local),
        float(s.min_samples_split),
        float(s.min_samples_leaf),
        float(s.min_gain),
        0,
        0,
        int(s.missing == "majority"),
    )


def to_nodes(problem: Problem, arrays: list, n: int, monitor: Monitor, C) -> Node:
    """The root of the node objects of the node arrays and group store ``[nodes, groups]``,
    ids in pre-order (:func:`to_flat`'s). ``arrays`` is emptied: the growth arrays (with their
    spare capacity) are released once the columns the nodes need are copied out."""
    flat = to_flat(problem, *arrays, n, C)
    arrays.clear()
    monitor.check()
    return flat.node_objects()[0]


def to_flat(problem: Problem, nodes, groups, n: int, C) -> FlatTree:
    """The growth arrays (rows in the order growth made the nodes) as a
    :class:`engine.flat.FlatTree` in pre-order: the tree's arrays, and what its node objects
    are made of (:meth:`engine.flat.FlatTree.node_objects`); ids are pre-order positions."""
    attrs = problem.data.schema.attributes
    binary = problem.settings.binary
    child0 = np.ascontiguousarray(nodes.child0[:n])
    nchild = np.ascontiguousarray(nodes.n_children[:n])
    order = _preorder(nodes, n, C)
    position = np.empty(n, dtype=np.intp)
    position[order] = np.arange(n)
    n_children = nchild[order].astype(np.intp)
    K = max(int(n_children.max(initial=0)), 1)
    branch = np.arange(K)
    has = branch[None, :] < n_children[:, None]
    child_rows = np.where(has, child0[order][:, None] + branch[None, :], 0)
    children = np.where(has, position[child_rows], -1)
    fractions = np.where(has, nodes.fraction[:n][child_rows], 0.0)
    parent = np.full(n, -1, dtype=np.intp)
    parent[children[has]] = np.repeat(np.arange(n), n_children)
    split = n_children > 0
    attribute = np.where(split, nodes.attribute[:n][order], -1).astype(np.intp)
    nominal = np.array([a.is_nominal for a in attrs] + [False], dtype=bool)[attribute]
    by_threshold = split & ~nominal
    cuts = nodes.threshold[:n][order]
    threshold = np.where(by_threshold, cuts, np.nan)
    if not binary:  # C4.5's thresholds, moved to a training value
        for i in np.flatnonzero(by_threshold).tolist():
            threshold[i] = _threshold(problem, int(attribute[i]), float(cuts[i]), binary)
    grouped = np.flatnonzero(split & nominal)
    group_of = np.full(n, -1, dtype=np.intp)
    group_of[grouped] = np.arange(len(grouped))
    n_categories = np.array([len(a.categories) for a in attrs] + [0], dtype=np.intp)
    k = n_categories[attribute[grouped]]
    width = max(int(k.max(initial=0)), 1)
    column = np.arange(width)
    if binary:  # each group's categories' branches; those in neither (unseen) go down none
        inside = column[None, :] < k[:, None]
        at = nodes.group_at[:n][order][grouped][:, None] + column[None, :]
        where = np.where(inside, groups.branch[np.where(inside, at, 0)], -1)
        lookup = np.where((where == 0) | (where == 1), where, -1).astype(np.intp)
    else:  # one branch per category
        branches = column[None, :] < n_children[grouped][:, None]
        lookup = np.where(branches, column[None, :], -1).astype(np.intp)
    stats = nodes.stats[:n][order]
    scores = np.stack([nodes.gain[:n][order], nodes.ratio[:n][order]], axis=1)
    flat = FlatTree(
        problem.regression,
        parent,
        children,
        n_children,
        (nodes.depth[:n] - nodes.depth[0])[order].astype(np.intp),
        attribute,
        by_threshold,
        threshold,
        group_of,
        lookup,
        fractions,
        np.zeros((n, 0)) if problem.regression else stats,
        nodes.weight[:n][order],
        np.asarray(problem.impurity(stats), dtype=np.float64).reshape(n),
        _mean_target(stats) if problem.regression else np.full(n, np.nan),
        scores=np.where(split[:, None], scores, 0.0),
        subset=split & nominal & binary,
        pruned=np.zeros(n, dtype=bool),
    )
    flat.__dict__["end"] = C.subtree_ends(parent)  # FlatTree.end's, without its levels
    return flat


def _preorder(nodes, n: int, C) -> np.ndarray:
    """The row of the node at each pre-order position."""
    return C.preorder(
        np.ascontiguousarray(nodes.child0[:n]), np.ascontiguousarray(nodes.n_children[:n]), n
    )


def _mean_target(stats: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(stats[:, 0] > 0, stats[:, 1] / stats[:, 0], np.nan)


def _threshold(problem, j: int, value: float, binary: bool) -> float:
    if binary:
        return value
    return c45_threshold(problem.sorted_values[j], value)  # at a training value, as J48 does
