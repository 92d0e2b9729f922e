"""Growth on several cores: the small subtrees of a depth-first fit grown at once.

Depth-first without a leaf limit, a node below the local size has its whole subtree grown
on a private copy of its entries (:func:`engine.fast.growth_loop.build_local`), and the
order in which those subtrees grow does not change the tree. With more than one thread the
growth loop leaves them to the caller (``Params.local == DEFER_LOCAL``): once the top of the
tree is grown, each thread grows its share of them in the compiled kernel, which releases
the GIL, on its own scratch arrays (nothing written is shared), and their nodes are then
appended to the tree's arrays. Pre-order ids (:func:`engine.fast.builder.to_nodes`) do not
depend on where a node's row is, so every thread count grows the same tree, bit for bit.

In the histogram mode the subtrees grown whole are small (below 1,024 entries) and most of
the work is counting histograms above them, so the threads also take searched nodes below
``Params.share`` entries (growth_loop.SHARED): each with its histogram and segment, copied
into a pool and arena of the thread's own, and expanded there as the growth would have.
They are handed out while the calling thread still grows the top (:class:`Pipeline`).
A thread left with nothing to grow is given some of the subtrees a part still growing has
yet to grow (:meth:`_Part.split_off`): a subtree's work is not known from its size (from 160
to 670 ns an entry in one fit), and the last one handed out kept one thread busy 10-30 ms
after the other was done in fits of a fraction of a second. Exact search's subtrees, each
grown whole, are handed out one at a time, the biggest first (:func:`biggest_first`).

Above them, exact search splits each big node with every thread at once (:class:`Splitter`):
each thread searches the node's attributes and distributes its sorted orders, the next one
left as it comes free, and moves a range of its entries to their children. Before, the top
of the tree (a million rows down to nodes of 131,072) grew on one thread, and two threads
sped a fit up by 1.2-1.5x at most.

No numba threading layer is involved: plain threads, each in its own call of the kernel,
so the window, a cross-validation and a fit can all grow at once safely.
"""

from __future__ import annotations

import collections
import contextvars
import itertools
import os
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import numpy as np

from engine.errors import Cancelled
from engine.fast.groups import NOMINAL, NUMERIC, Groups, Heap, Hist, new_nodes, new_state
from engine.monitor import Monitor

#: Folds grow side by side (each on one thread, :func:`fold_map`) on tables of at most this
#: many cells (rows times attributes); bigger ones grow one fold at a time on every thread,
#: which holds one fold's copy of the table in memory, not one per thread.
FOLD_THREADS_MAX_CELLS = 4_000_000
#: How often (seconds) the waiting thread looks at the monitor: Cancel within 0.2 s.
POLL = 0.05
#: Node row fields a subtree's root takes back from the thread that grew it (its split).
SPLIT_FIELDS = (
    "child0",
    "n_children",
    "attribute",
    "cut_bin",
    "group_at",
    "threshold",
    "gain",
    "ratio",
    "fraction0",
    "fraction1",
)


#: The most helper threads one calling thread's pool starts (:func:`helpers`): never reached
#: (a fit on k threads asks for at most 3 (k - 1) + 1 at once), so no task waits behind one
#: that waits for it.
HELPERS_MOST = 4096
_HELPERS = threading.local()


def helpers() -> ThreadPoolExecutor:
    """The calling thread's pool of helper threads, kept from fit to fit: a thread is started
    only when none is idle (seven started a fit took the calling thread up to 2 ms, their
    first one 0.9). It goes with the calling thread, whose local data holds it (its idle
    threads leave once it is collected); a helper's own work gets a pool of its own."""
    pool = getattr(_HELPERS, "pool", None)
    if pool is None:
        pool = _HELPERS.pool = ThreadPoolExecutor(HELPERS_MOST, thread_name_prefix="arbor-help")
    return pool


def n_threads(setting: int) -> int:
    """Threads for a fit: ``setting``, or (0) one per core this process may use."""
    if setting and setting > 0:
        return int(setting)
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return max(os.cpu_count() or 1, 1)


def deferred(growth) -> np.ndarray:
    """Rows of the nodes whose subtrees the growth loop left to the caller, in row order."""
    n = int(growth.state.n_nodes[0])
    return np.flatnonzero(growth.nodes.local[:n] == growth.kernels.DEFERRED)


#: In the histogram mode, where a thread may still be growing a batch handed out earlier, the
#: subtrees left when the top is done go in shares (:func:`guided_shares`) of at least a
#: ``1 / (FINISH_SHARES * threads)`` of them.
FINISH_SHARES = 8


def biggest_first(sizes: np.ndarray) -> list[np.ndarray]:
    """Exact search's subtrees left when the top is done, one a share, the biggest first: each
    thread takes the next as it comes free, and the last taken are the smallest. In one share
    a thread, balanced by their entries, the last one started kept one thread busy about
    120 ms (of a 2.5 s `mixed` fit of a million rows) after the other was done, 36-86 ms
    one at a time: a part gives away only subtrees it has not started, and an entry's work
    differs from subtree to subtree. (With the scratch of parts grown before reused, a part
    a subtree costs little.) Fixed by the sizes alone."""
    return [np.array([t]) for t in np.argsort(-sizes, kind="stable").tolist()]


def guided_shares(sizes: np.ndarray, threads: int) -> list[np.ndarray]:
    """Groups of task indices in the order to hand them out: the largest tasks first, each
    group about half of what is left per thread, none below ``1 / (FINISH_SHARES *
    threads)`` of the total. The last groups are small, so that the threads, taking the next
    group as they come free, end close together (with equal groups the last one started
    could keep a thread busy a group's time after the others were done). Fixed by the sizes
    alone."""
    total = float(sizes.sum())
    least = total / (FINISH_SHARES * threads)
    left = total
    groups: list[list[int]] = [[]]
    load = 0.0
    for t in np.argsort(-sizes, kind="stable").tolist():
        groups[-1].append(t)
        load += float(sizes[t])
        if load >= max(left / (2 * threads), least):
            left -= load
            groups.append([])
            load = 0.0
    return [np.array(sorted(g), dtype=np.int64) for g in groups if g]


def spills(has_missing: np.ndarray, majority: int) -> bool:
    """Whether a split may copy entries past its node's segment: where a value is missing and
    its entry goes down both branches at a fraction (C4.5's rule). Under ``--missing
    majority`` it goes whole down one branch, and the children fill their parent's segment,
    as without missing values. (The growth loop's ``run`` tells the same in its kernel; a
    growth holds the answer as ``spills``.)"""
    return bool(has_missing.any()) and majority == 0


def own_work(work):
    """A thread's own scratch like ``work``: zeros, but the ``flog`` table, which is read only."""
    return type(work)(
        *(
            a if name == "flog" else np.zeros_like(a)
            for name, a in zip(work._fields, work, strict=True)
        )
    )


class _Part:
    """One thread's growth of some deferred subtrees: a copy of the growth's workspace with
    its own scratch, node arrays and counters (the table and arena are read, never written).
    ``rows`` are rows of the growth's nodes, or of ``source``'s: a part still growing that
    gave some of its subtrees away to a thread with nothing to grow (:meth:`split_off`)."""

    def __init__(self, growth, rows: np.ndarray, source: _Part | None = None, spare=None):
        g = growth
        src = g if source is None else source
        self.growth, self.source = g, source
        self._growth = type(g)  # whose driving this borrows (not imported: no cycle)
        self.give = None  # called between chunks: the pipeline's (Pipeline._give)
        self.complete = False  # grown to the end (not stopped by a cancel or a failure)
        self.kernels, self.monitor, self.problem = g.kernels, g.monitor, g.problem
        self.data, self.stride = g.data, g.stride
        self.params = g.params._replace(local=1, split_least=0, share=0)
        self.local_params = g.local_params
        # Scratch a part grown before had (``spare``, from :meth:`scratch`): as one thread's
        # growth reuses its own from subtree to subtree, never cleared.
        if spare is None:
            spare = (
                g._local_space(g.local_capacity),
                own_work(g.work),
                type(g.candidates)(*(np.zeros_like(a) for a in g.candidates)),
                None,
            )
        self.local_space, self.work, self.candidates, self.places = spare
        self.groups = Groups(np.zeros_like(g.groups.branch))
        T = len(rows)
        S = g.nodes.stats.shape[1]
        self.nodes = new_nodes(max(1024, 2 * T), S)
        for name, a in zip(src.nodes._fields, src.nodes, strict=True):
            getattr(self.nodes, name)[:T] = a[rows]
        self.nodes.parent[:T] = -1  # ancestors are not looked at (binary or numeric splits)
        # Searched in the histogram mode (growth_loop.SHARED): expanded here as the growth
        # would have, from their histograms; the others are grown whole on a private copy.
        shared = self.nodes.attribute[:T] >= 0
        self.nodes.local[:T] = np.where(shared, 0, 1)
        self.state = new_state()._replace(stop=g.state.stop)  # the fit's Cancel
        # The growth's deferred segments wait in its local space where splits copy entries
        # past their segments, else where they are (growth_loop.run); a giving part's, in its
        # own arena. Scratch written by entry: where an entry may be in two subtrees at once
        # (it misses a split's value and goes down both at a fraction), one of the part's
        # own; else the growth's, each entry written by the one thread growing it. (Its own
        # took a fit of a million rows 10 ms of clearing pages, 12 MB a part.)
        own = g.spills
        waiting = g.local_space.arena if own else g.space.arena
        if g.params.share > 0:
            by_entry = {"entry_branch": g.space.entry_branch, "entry_weight": g.space.entry_weight}
            if own:
                by_entry = {name: np.zeros_like(a) for name, a in by_entry.items()}
            self.space = self._own_arena(
                g, waiting if source is None else src.space.arena, T, by_entry
            )
            self.hist = self._own_hists(src.hist, shared)
            self._own_groups(src, shared)
        else:
            # Read where they wait; each entry's place is written to entry_branch by
            # _local_orders before it is read, so a part grown before's places will do.
            if own and self.places is None:
                self.places = np.zeros_like(g.space.entry_branch)
            places = self.places if own else g.space.entry_branch
            self.space = g.space._replace(arena=waiting, entry_branch=places)
            h = g.hist
            self.hist = Hist(
                h.codes,
                h.n_bins,
                h.low,
                h.high,
                h.pool[:1] * 0,
                h.free[:0].copy(),
                h.partials[:1] * 0,
            )
            self.nodes.slot[:T] = -1
        size = len(self.nodes.start)
        # Ascending ties, equal keys: a valid min-heap taking the subtrees in row order.
        self.heap = Heap(np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64))
        self.heap.node[:T] = np.arange(T)
        self.heap.tie[:T] = np.arange(T)
        st = self.state
        st.n_nodes[0], st.heap_size[0], st.pushes[0] = T, T, T
        st.total_weight[0] = g.state.total_weight[0]
        self.rows = rows

    def _own_arena(self, g, side, T: int, by_entry: dict):
        """A space of the thread's own holding its subtrees' segments (copied from the arena
        ``side``): split in place there, they grow into the room past them (entries missing a
        split's value go down both branches). The first grown lies highest: depth-first, its
        overflow runs past the end, and each later one's over those already grown."""
        nodes = self.nodes
        sizes = (nodes.end[:T] - nodes.start[:T]).astype(np.int64)
        total = int(sizes.sum())
        room = total + (total // 4 + 1024 if g.spills else 0)
        entry, weight = np.zeros(room, np.int32), np.zeros(room)
        at = total
        for r in range(T):
            s, n = int(nodes.start[r]), int(sizes[r])
            at -= n
            entry[at : at + n] = side.entry[s : s + n]
            weight[at : at + n] = side.weight[s : s + n]
            nodes.start[r], nodes.end[r] = at, at + n
        self.state.arena_top[0] = total
        arena = type(side)(entry, weight, np.zeros((side.order.shape[0], room), np.int32))
        return g.space._replace(
            arena=arena,
            **by_entry,
            buffer=np.zeros(room + 1, np.int32),
            weight_buffer=np.zeros(room + 1),
        )

    def _own_hists(self, h, shared: np.ndarray):
        """A pool of the thread's own, first holding its searched subtrees' histograms."""
        T = len(shared)
        rows = np.flatnonzero(shared & (self.nodes.slot[:T] >= 0))
        base = len(h.free)
        pool = np.empty((len(rows) + base + 1, *h.pool.shape[1:]))
        pool[: len(rows)] = h.pool[self.nodes.slot[rows]]
        self.nodes.slot[:T] = -1
        self.nodes.slot[rows] = np.arange(len(rows))
        free = np.zeros(len(rows) + base, np.int64)
        free[:base] = np.arange(len(rows), len(rows) + base)
        self.state.free_slots[0] = base
        # (A shared subtree's nodes are too small to be counted in blocks: one of its own.)
        return Hist(h.codes, h.n_bins, h.low, h.high, pool, free, np.zeros_like(h.partials[:1]))

    def _own_groups(self, g, shared: np.ndarray) -> None:
        """The searched subtrees' subset splits (which branch each category takes) copied
        into the part's own group store, as the part's nodes index theirs: the part routes
        their entries by them, and :func:`_append` moves every group of a part together."""
        nodes, data = self.nodes, g.data
        at = 0
        for r in np.flatnonzero(shared):
            a = nodes.attribute[r]
            if not g.params.binary or data.kind[a] != NOMINAL:
                continue
            V, top = int(data.n_categories[a]), int(nodes.group_at[r])
            self.groups.branch[at : at + V] = g.groups.branch[top : top + V]
            nodes.group_at[r] = at
            at += V
        self.state.groups_used[0] = at

    def scratch(self) -> tuple:
        """The scratch of its own that a part grown next may take (``spare``): its local
        space, node scoring's and candidates' (a part's setup was a millisecond, a third of
        it making these), and in exact search its places by entry, if it has its own (4 MB at a
        million rows, each page cleared at its first touch)."""
        return self.local_space, self.work, self.candidates, self.places

    def release(self) -> None:
        """Drop the scratch once grown: what :func:`_append` reads (nodes, groups, counts)
        stays. The pipeline keeps many parts until the end, each with an arena, a pool and
        arrays by entry of its own."""
        self.space = self.local_space = self.hist = self.work = self.candidates = None
        self.places = None

    def run(self, budget: int) -> int:
        return self._growth.run(self, budget)

    def _make_room(self) -> None:
        self._growth._make_room(self)

    def _bigger_space(self, space, need: int):
        return self._growth._bigger_space(space, need)

    def _local_space(self, capacity: int):
        return self._growth._local_space(self, capacity)

    def grow(self, stop: threading.Event, budget: int, check=None) -> None:
        """Grow the subtrees a chunk of work at a time until done or ``stop`` is set;
        ``check`` (a monitor's, on the calling thread) and :attr:`give` are called between
        chunks."""
        C = self.kernels
        status = C.PAUSED
        while status != C.DONE:
            if stop.is_set() or self.state.stop[0]:
                return
            if check is not None:
                check()
            status = self.run(budget)
            if status == C.PAUSED and self.give is not None:
                self.give(self)
        self.complete = True

    def split_off(self, spare=None) -> _Part | None:
        """A part of some of the subtrees this one has yet to grow (as close to half their
        entries as the biggest first make it), no longer its own; None when too little is
        left to share. Made on this part's thread between two chunks: its segments and
        histograms are copied before this part's later splits can write over them."""
        if self.growth.params.share == 0:
            return None  # exact search's parts hold one subtree each, grown whole
        st, heap, nodes = self.state, self.heap, self.nodes
        size = int(st.heap_size[0])
        pending = heap.node[:size].copy()
        n = (nodes.end[pending] - nodes.start[pending]).astype(np.int64)
        total = int(n.sum())
        if size < 2 or total < STEAL_LEAST_ENTRIES:
            return None
        # Each in turn if it brings the gift closer to half: one node holding most of the
        # entries is given whole (a rule of "at most half" gave its small siblings only, and
        # the thread come free was back for more a millisecond later).
        taken, got = np.zeros(size, dtype=bool), 0
        for t in np.argsort(-n, kind="stable").tolist():
            if abs(2 * (got + int(n[t])) - total) < abs(2 * got - total):
                taken[t], got = True, got + int(n[t])
        if not taken.any() or taken.all():
            return None
        rows = pending[taken]
        part = _Part(self.growth, rows, self, spare)
        slots = nodes.slot[rows]
        for slot in slots[slots >= 0].tolist():  # their histograms copied: slots free
            self.hist.free[st.free_slots[0]] = slot
            st.free_slots[0] += 1
        nodes.slot[rows] = -1
        # The rest stay a valid heap: ordered by (key, tie).
        keep = ~taken
        node, key, tie = heap.node[:size][keep], heap.key[:size][keep], heap.tie[:size][keep]
        order = np.lexsort((tie, key))
        left = len(order)
        heap.node[:left], heap.key[:left], heap.tie[:left] = node[order], key[order], tie[order]
        st.heap_size[0] = left
        return part


#: A part gives subtrees to a thread with nothing to grow only if it has this many entries
#: left to grow (a new part's setup costs about a millisecond).
STEAL_LEAST_ENTRIES = 16_384
#: A part's chunk of work between two looks at whether a thread waits for some, against the
#: growth's: a smaller one lets a thread come free near the end be given work sooner.
PART_CHUNK_SHARE = 8

#: A big node's histogram of at least this many bins (attributes times bins each) is scanned
#: by every thread, a range of its attributes each (one of 16 x 90 took 0.05 ms, a pool's
#: round trip about as long).
SCAN_SHARED_BINS = 1 << 15

#: A big node's child counted in one pass (fewer entries than two blocks) is counted by every
#: thread, a range of its attributes each, from this many entries (each reads every entry:
#: 120,000 entries took 1.8 ms on one thread, the others idle).
SUM_SHARED_LEAST = 16_384

#: What scoring an exact search's attribute of few values from its counts costs against
#: sweeping a sorted order (or tabling a nominal attribute) of the same node: the counting
#: itself is done before the scans (``_count_coded``).
CODED_COST = 0.05


def scan_order(data) -> list[tuple[int, int]]:
    """Exact search's attributes of a big node, one range ``(j, j + 1)`` each, in the order the
    threads take them, each the next left as it comes free: the sweeps of sorted orders (and
    nominal tables) first, the attributes of few values, scored from their counts
    (``numeric_index`` -1, a small part of a sweep), last, so that the threads end close
    together. Fixed ranges of about equal work left one thread waiting 6 ms a node of
    500,000 entries (a sweep's time varied by a fifth from attribute to attribute)."""
    cost = np.ones(len(data.kind))
    cost[(data.kind == NUMERIC) & (data.numeric_index < 0)] = CODED_COST
    return [(j, j + 1) for j in np.argsort(-cost, kind="stable").tolist()]


class Splitter:
    """Every thread on one big node at a time, for the top of a tree the growth loop grows on
    one thread (``Params.split_least``): the loop returns such a node (``SPLIT_BIG``, or its
    root, ``SPLIT_ROOT``) and :meth:`split` works it through ``growth_loop.split_step``, each
    thread searching some of the node's attributes into their own rows of the candidates,
    marking and moving a range of its entries to their children, and distributing some of its
    sorted orders, with scratch of its own; exact search's attributes, the sorted orders and
    blocks of entries (counts of the attributes of few values, the histogram mode's
    histograms) are taken one at a time. The searches and the orders are each one attribute's
    alone, the entries' parts laid out where one thread lays them, and blocks added in block
    order, so the node is split as one thread splits it: every thread count grows the same
    tree."""

    def __init__(self, growth, threads: int):
        self.threads = threads
        self.pool = helpers()
        g = growth
        # Thread 0 is the caller, with the growth's own scratch.
        self.works = [g.work] + [own_work(g.work) for _ in range(threads - 1)]
        self.buffers: list[np.ndarray] = []
        self.scan_order = scan_order(g.data)
        # A histogram's scan (a few thousand bins) took less than handing it to another
        # thread and back: one thread scans it, where the bins are few.
        bins = len(g.data.kind) * g.hist.pool.shape[2] if g.params.histogram == 1 else 0
        self.scan_alone = 0 < bins < SCAN_SHARED_BINS

    def close(self) -> None:
        """(Every step waits for the others' parts: nothing runs on once a split returns.)"""

    def split(self, growth, status: int) -> None:
        C, g = growth.kernels, growth
        # The other threads' buffers serve distributing sorted orders (SPLIT_ORDERS) only: none
        # in the histogram mode (their zeros took the root's split 0.9 ms, the others idle).
        if not g.space.arena.order.shape[0]:
            self.buffers = [g.space.buffer[:0]] * (self.threads - 1)
        elif len(self.buffers) != self.threads - 1 or any(
            len(b) < len(g.space.buffer) for b in self.buffers
        ):
            self.buffers = [np.zeros_like(g.space.buffer) for _ in range(self.threads - 1)]
        p = len(g.data.kind)
        buffers = [g.space.buffer, *self.buffers]

        def step(phase, i, lo=0, hi=0, t=0):
            return C.split_step(
                phase, i, lo, hi, g.space, g.params, g.nodes, g.heap, g.hist,
                self.works[t], g.candidates, g.groups, g.state, buffers[t],
            )  # fmt: skip

        def on_all(phase, i, n, bounds=None):
            """Each thread's range of ``n`` (or of ``bounds``): what each step returned."""
            if bounds is None:
                bounds = np.linspace(0, n, self.threads + 1).astype(np.int64).tolist()
            futures = [
                self.pool.submit(step, phase, i, bounds[t], bounds[t + 1], t)
                for t in range(1, self.threads)
            ]
            try:
                out = [step(phase, i, bounds[0], bounds[1], 0)]
            finally:
                out += [f.result() for f in futures]
            return out

        def partitioned(i):
            """Node ``i``'s entries marked with their branches and moved into the buffers, a
            range by each thread, where it splits two ways: ``SPLIT_ENTRIES``' ``(lo, hi)``,
            1 + how many miss the split's value and 1 (``(0, 0)``: left to one thread)."""
            if not (g.params.binary or g.data.kind[g.nodes.attribute[i]] == NUMERIC):
                return 0, 0
            n = int(g.nodes.end[i] - g.nodes.start[i])
            bounds = np.linspace(0, n, self.threads + 1).astype(np.int64).tolist()
            missing = [int(m) for m in on_all(C.SPLIT_MARK, i, n, bounds)]
            # Each thread's part of each child: the second child's laid out first.
            to0, to1 = g.nodes.fraction0[i] > 0, g.nodes.fraction1[i] > 0
            left = [
                int(w.counts[0]) + (m if to0 else 0)
                for w, m in zip(self.works, missing, strict=True)
            ]
            right = [
                int(w.counts[1]) + (m if to1 else 0)
                for w, m in zip(self.works, missing, strict=True)
            ]
            at1, at0 = 0, sum(right)
            for t, w in enumerate(self.works):
                w.offsets[0], w.offsets[1] = at1, at0
                at1, at0 = at1 + right[t], at0 + left[t]
                w.offsets[2], w.offsets[3] = at1, at0  # (where its parts end)
            on_all(C.SPLIT_MOVE, i, n, bounds)
            counts = self.works[0].counts
            counts[:2] = np.sum([w.counts[:2] for w in self.works], axis=0)
            return sum(missing) + 1, 1

        hist = g.params.histogram == 1
        # Exact search's attributes of few values, a big node's blocks counted side by side.
        coded = not hist and g.coded and len(g.hist.partials) > 1

        def search(c):
            g.monitor.check()  # a big node's split is several searches long: Cancel between
            counted = 0
            if coded and int(g.nodes.end[c] - g.nodes.start[c]) >= 2 * C.COUNT_BLOCK:
                blocks(C.SPLIT_CODED, c)
                counted = 1
            if step(C.SPLIT_HEAD, c, counted):
                if self.scan_alone:
                    step(C.SPLIT_SCAN, c, 0, p)
                elif hist:  # (a histogram's attributes all cost alike)
                    on_all(C.SPLIT_SCAN, c, p)
                else:
                    taken(C.SPLIT_SCAN, c, self.scan_order)
                step(C.SPLIT_TAIL, c)

        def taken(phase, c, ranges):
            """Node ``c``'s ``ranges`` worked through side by side: each thread takes the next
            left as it comes free, so one held up (by the threads growing subtrees beside the
            top) or given the dearer ones delays the node by one range at most."""
            left = iter(ranges)  # a list's: one thread at a time draws the next

            def taking(t):
                for lo, hi in left:
                    step(phase, c, lo, hi, t)

            futures = [self.pool.submit(taking, t) for t in range(1, self.threads)]
            try:
                taking(0)
            finally:
                for f in futures:
                    f.result()

        def blocks(phase, c):  # node c's blocks of entries, counted side by side
            last = -(-int(g.nodes.end[c] - g.nodes.start[c]) // C.COUNT_BLOCK)
            taken(phase, c, [(k, k + 1) for k in range(last)])

        def count(c):  # node c's histogram: its blocks, or a range of its attributes each
            n = int(g.nodes.end[c] - g.nodes.start[c])
            if n >= 2 * C.COUNT_BLOCK:
                blocks(C.SPLIT_COUNT, c)
            elif n >= SUM_SHARED_LEAST:
                on_all(C.SPLIT_SUM_ATTRIBUTES, c, p)
                return
            step(C.SPLIT_SUM, c)

        if status == C.SPLIT_ROOT:
            if hist and g.nodes.slot[0] >= 0:
                count(0)
            search(0)
            step(C.SPLIT_SETTLE, 0)
            return
        i = int(g.heap.node[0])
        marked, moved = partitioned(i)
        first = int(step(C.SPLIT_ENTRIES, i, marked, moved))
        # The children's segments copied back and summed, each by one thread.
        if moved and not sum(on_all(C.SPLIT_CHILD, i, int(g.nodes.n_children[i]))):
            first = -1 - first  # (every child stops)
        if first >= 0 and not hist:  # some child will be searched: the orders go down too
            g.monitor.check()
            taken(C.SPLIT_ORDERS, i, [(a, a + 1) for a in range(g.space.arena.order.shape[0])])
        c0 = first if first >= 0 else -1 - first
        nb = int(g.nodes.n_children[i])
        if hist and first < 0:  # no child is searched: none needs a histogram
            step(C.SPLIT_HISTS_END, i, -1)
        elif hist:
            derived = int(step(C.SPLIT_HISTS, i))
            for c in range(c0, c0 + nb):
                if g.nodes.slot[c] >= 0:
                    count(c)
            step(C.SPLIT_HISTS_END, i, derived)
        for c in range(c0, c0 + nb):
            search(c)
        step(C.SPLIT_PUSH, i)


class Pipeline:
    """The subtrees the growth loop leaves to threads, grown and appended to the tree. In the
    histogram mode they grow while the top of the tree does: the loop defers them as it goes
    (depth-first, the leftmost first), and between two of the calling thread's chunks of the
    top (:meth:`after_chunk`), those deferred since are handed to the other threads in
    batches; exact search's top keeps every thread itself (:class:`Splitter`). When the top
    is done the rest are shared out, the calling thread growing shares too. Each batch or
    share is made a part by the thread that takes it, so that only parts being grown hold
    copies, and one not yet taken when the top is done is the calling thread's to take. A
    thread with nothing to take is given work by a part still growing, between two of its
    chunks (:meth:`_Part.split_off`): the threads end together, however unequal the
    subtrees' work. The parts' nodes are appended at the end, in the order they were handed
    out: which thread grows a subtree, and when, changes no bit of the tree."""

    def __init__(self, growth, threads: int, budget: int):
        self.growth, self.threads = growth, threads
        self.budget = max(1, budget // PART_CHUNK_SHARE)
        self.made: dict[int, _Part] = {}  # by the order handed out
        self.n_handed = 0
        self.pending = 0  # handed out and not yet grown (under the lock)
        self.hungry = 0  # threads waiting for a part (under the lock)
        self.closing = False  # the top is done: no more subtrees but the parts' own
        # The lock of the fields above, and its signal: an item handed, or the last part grown.
        self.ready = threading.Condition()
        self.items: collections.deque = collections.deque()
        self.handed = np.zeros(0, dtype=np.int64)
        self.spares: list[tuple] = []  # scratch of parts grown, for the next (append, pop)
        # A batch: about an eighth of the rows per thread (the subtrees' setup is per part).
        self.batch = max(1, int(growth.data.n_entries) // (8 * threads))
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        pool = helpers()
        self.workers = [pool.submit(self._work) for _ in range(threads - 1)]

    def _work(self) -> None:
        while (item := self._take()) is not None:
            self._grow(item)

    def _take(self, monitor: Monitor | None = None):
        """The next item, waiting for one (counted hungry meanwhile); None once the top is
        done and every part grown, or the fit stopped. ``monitor``: looked at while waiting."""
        while True:
            with self.ready:
                if self.items:
                    return self.items.popleft()
                if self.stop.is_set() or (self.closing and self.pending == 0):
                    return None
                self.hungry += 1
                self.ready.wait(POLL)
                self.hungry -= 1
                if self.items:
                    return self.items.popleft()
            if monitor is not None:
                monitor.check()
                fraction, leaves = self.progress()
                monitor.report(fraction, f"{leaves} leaves")

    def _grow(self, item, check=None) -> None:
        """Make the ``k``-th part of the subtrees ``rows`` (``item``; or take the part given)
        and grow it."""
        k, rows = item
        try:
            if not self.stop.is_set():
                if not isinstance(rows, _Part):
                    rows = _Part(self.growth, rows, spare=self._spare())
                part = self.made[k] = rows
                part.give = self._give
                part.grow(self.stop, self.budget, check)
                self.spares.append(part.scratch())
                part.release()
        except BaseException as error:  # noqa: BLE001 - raised again on the calling thread
            self.errors.append(error)
            self.stop.set()
        finally:
            with self.ready:
                self.pending -= 1
                if self.pending == 0:
                    self.ready.notify_all()

    def _give(self, part: _Part) -> None:
        """Between two chunks of ``part``: some of its subtrees to a thread waiting for work."""
        if not self.hungry or self.items or self.stop.is_set():
            return
        spare = self._spare()
        given = part.split_off(spare)
        if given is None:
            if spare is not None:
                self.spares.append(spare)
            return
        with self.ready:
            self._put(given)

    def _spare(self):
        """The scratch of a part grown (:meth:`_Part.scratch`), no longer anyone's, or None."""
        try:
            return self.spares.pop()
        except IndexError:
            return None

    def _put(self, item) -> None:
        """(Under the lock.) ``item`` queued as the next part."""
        self.pending += 1
        self.items.append((self.n_handed, item))
        self.n_handed += 1
        self.ready.notify()

    def idle(self) -> bool:
        """Whether every batch handed out is grown: the other threads wait for work."""
        return self.pending == 0

    def _new_rows(self) -> np.ndarray:
        rows = deferred(self.growth)
        return rows[~np.isin(rows, self.handed)]

    def _hand(self, rows: np.ndarray) -> None:
        self.handed = np.concatenate([self.handed, rows])
        with self.ready:
            self._put(rows)

    def after_chunk(self) -> None:
        """Between two chunks of the top: the subtrees deferred since, in batches of about
        :attr:`batch` entries (in the order deferred), if they make one."""
        if self.errors:
            raise self.errors[0]
        rows = self._new_rows()
        nodes = self.growth.nodes
        sizes = (nodes.end[rows] - nodes.start[rows]).astype(np.int64)
        if not len(rows) or sizes.sum() < self.batch:
            return
        ends = np.cumsum(sizes)
        cuts = np.searchsorted(ends, np.arange(self.batch, int(ends[-1]), self.batch), "left")
        for piece in np.split(rows, np.unique(cuts + 1)):
            if len(piece):
                self._hand(piece)

    def progress(self) -> tuple[float, int]:
        """The settled share of the weight and the leaves, the parts' included."""
        st = self.growth.state
        parts = list(self.made.values())
        settled = float(st.settled[0]) + sum(float(p.state.settled[0]) for p in parts)
        leaves = int(st.leaves[0]) + sum(int(p.state.leaves[0]) for p in parts)
        return settled / float(st.total_weight[0]), leaves

    def finish(self, monitor: Monitor) -> None:
        """The top is done: the rest shared out (in the histogram mode in shorter and
        shorter shares, :func:`guided_shares`, else one subtree at a time, :func:`biggest_first`;
        the calling thread growing too), every part waited for, their nodes appended."""
        rows = self._new_rows()
        if len(rows):
            nodes = self.growth.nodes
            sizes = (nodes.end[rows] - nodes.start[rows]).astype(np.float64)
            if self.growth.params.share > 0:
                groups = guided_shares(sizes, self.threads)
            else:
                groups = biggest_first(sizes)
            for share in groups:
                self._hand(rows[share])
        self.close(monitor)
        if self.errors:
            raise self.errors[0]
        parts = [self.made.get(k) for k in range(self.n_handed)]
        # A cancel stops the parts through the kernels' flag (Monitor.stop_flag), which a
        # part can see before the monitor says so: a part stopped is never appended.
        monitor.check()
        if not all(p is not None and p.complete for p in parts):
            raise Cancelled("cancelled")
        _append(self.growth, parts)

    def close(self, monitor: Monitor | None = None) -> None:
        """Every worker stopped once every part is grown; the calling thread grows parts too
        meanwhile, and looks at ``monitor`` while it waits. Without a monitor (the fit
        failed), the workers stop after the parts they are growing."""
        try:
            with self.ready:
                self.closing = True
                if monitor is None:
                    self.stop.set()
                self.ready.notify_all()
            while monitor is not None and (item := self._take(monitor)) is not None:
                self._grow(item, monitor.check)
            wait(self.workers)
        except BaseException:  # cancelled: the others stop too
            self.stop.set()
            wait(self.workers)
            raise


def _append(growth, parts: list[_Part]) -> None:
    """The parts' nodes after the growth's own, in part order; each subtree root's split
    written into its row. A part given subtrees by another (its ``source``, earlier in the
    order) finds their rows through the rows the other's nodes took (``where``)."""
    st = growth.state
    n0 = int(st.n_nodes[0])
    new = sum(int(p.state.n_nodes[0]) - len(p.rows) for p in parts)
    n_groups = int(st.groups_used[0]) + sum(int(p.state.groups_used[0]) for p in parts)
    old = growth.nodes
    if n0 + new > len(old.start):
        growth.nodes = type(old)(
            *(np.concatenate([a[:n0], np.zeros((new, *a.shape[1:]), a.dtype)]) for a in old)
        )
    if n_groups > len(growth.groups.branch):
        branch = np.zeros(n_groups, growth.groups.branch.dtype)
        branch[: int(st.groups_used[0])] = growth.groups.branch[: int(st.groups_used[0])]
        growth.groups = Groups(branch)
    nodes, at, g_at = growth.nodes, n0, int(st.groups_used[0])
    for p in parts:
        T, n = len(p.rows), int(p.state.n_nodes[0])
        pn, offset = p.nodes, at - T
        rows = p.rows if p.source is None else p.source.where[p.rows]
        # Rows: the part's row r < T is the growth's row rows[r]; r >= T is at + r - T.
        where = p.where = np.concatenate([rows, np.arange(at, at + n - T)])
        has_children = pn.n_children[:n] > 0
        child0 = np.where(has_children, pn.child0[:n] + offset, pn.child0[:n])
        group_at = pn.group_at[:n] + g_at
        for name in SPLIT_FIELDS:
            value = {"child0": child0, "group_at": group_at}.get(name, getattr(pn, name)[:n])
            getattr(nodes, name)[where] = value
        if n > T:
            for name in nodes._fields:
                if name in SPLIT_FIELDS or name == "parent":
                    continue
                getattr(nodes, name)[at : at + n - T] = getattr(pn, name)[T:n]
            parent = pn.parent[T:n]
            nodes.parent[at : at + n - T] = np.where(parent < T, rows[parent % T], parent + offset)
        nodes.local[rows] = 0
        used = int(p.state.groups_used[0])
        growth.groups.branch[g_at : g_at + used] = p.groups.branch[:used]
        g_at += used
        at += n - T
        st.leaves[0] += p.state.leaves[0]
        st.settled[0] += p.state.settled[0]
    st.n_nodes[0] = at
    st.groups_used[0] = g_at


class _Onward(Monitor):
    """A view of ``parent`` whose progress never goes back: folds side by side report their
    own fractions, and the bar shows the furthest so far (messages all pass)."""

    def __init__(self, parent: Monitor):
        self._parent = parent
        self._lock = threading.Lock()
        self._furthest = 0.0

    def report(self, fraction: float, message: str = "") -> None:
        with self._lock:
            # One that waited here on another's report checks first: nothing is reported
            # after a cancel that other report saw.
            self._parent.check()
            self._furthest = max(self._furthest, float(fraction))
            self._parent.report(self._furthest, message)

    def check(self) -> None:
        self._parent.check()

    def cancel(self) -> None:
        self._parent.cancel()

    @property
    def cancelled(self) -> bool:
        return self._parent.cancelled

    @property
    def stop_flag(self) -> np.ndarray:
        return self._parent.stop_flag


def beside(work, threads: int):
    """``work()`` begun on a helper thread where ``threads`` > 1 (else done when asked for):
    a callable that gives its result, or raises its error, once it is done. For a
    fit's setup that its threads' next steps do not need, made while they wait on one
    another."""
    if threads <= 1:
        return work
    return helpers().submit(work).result


def fold_map(work, items, threads: int, monitor: Monitor) -> list:
    """``[work(item, monitor) for item in items]`` on up to ``threads`` threads, results in the
    items' order (so sums over them add in the same order as one thread's). For
    cross-validation's folds, each grown on one thread: small folds leave growth little to
    share, and every fold's tree is the same whoever grows it; and for a fit's columns,
    sorted, binned or looked over side by side. The calling thread takes items too, the next
    one free as each thread comes free (a pool of waiting threads and a future an item cost
    more than checking a column for missing values). A cancel (or a failure) stops them all;
    side by side, the items report through one monitor whose progress never goes back."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [work(item, monitor) for item in items]
    onward = _Onward(monitor)
    results: list = [None] * len(items)
    taken = itertools.count()  # (one thread at a time draws the next number)
    stop = threading.Event()

    def take() -> None:
        try:
            while not stop.is_set() and (k := next(taken)) < len(items):
                onward.check()
                results[k] = work(items[k], onward)
        except BaseException:  # the others take no more
            stop.set()
            raise

    pool = helpers()
    # Each in a copy of this thread's context: the monitor watched here is watched there.
    futures = [
        pool.submit(contextvars.copy_context().run, take)
        for _ in range(min(threads, len(items)) - 1)
    ]
    try:
        take()
        while True:
            done, waiting = wait(futures, timeout=POLL, return_when=FIRST_EXCEPTION)
            for f in done:
                if f.exception() is not None:
                    raise f.exception()
            if not waiting:
                break
            monitor.check()
    except BaseException:  # a cancel stops the others after their item
        stop.set()
        wait(futures)
        raise
    return results
