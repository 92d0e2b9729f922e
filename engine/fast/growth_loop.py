"""The growth loop, compiled: every tree Arbor grows is grown here.

:func:`run` expands nodes one at a time: depth-first (a LIFO stack) or best-first
(a heap keyed on priority, then insertion order), with the stopping rules of
:mod:`engine.learn.rules`, the scorers of :mod:`engine.fast.sweeps` and their choice
among attributes. It returns after a budget of work so that the Python side
(:mod:`engine.fast.builder`) can call ``monitor.check()``/``report()`` between chunks,
after each expansion when asked (the window's step-by-step growth), and when an array
needs more room. ``tests/oracle/growth.py`` grows the same trees with numpy, node for node.

Each node owns a segment ``[start, end)`` of an :class:`~engine.fast.groups.Arena`: its
entries in root order with their weights there (the order numpy's sums over a node's
rows run in) and, in the exact mode, the same entries sorted by each numeric attribute
(sorted once at the root; missing values last). Splitting a node distributes each
segment stably among the children, so every child's segments are again in root order
and in sorted order without sorting anything again. An entry whose value of the split
attribute is missing goes to every branch with a positive fraction, its weight times
that fraction (C4.5's fractional instances, CART's too by default), so children together
may hold more entries than their parent; under ``--missing majority`` a two-way split's
fractions are 1 and 0 (``Params.majority``), so such an entry goes whole down one branch.
Depth-first, children are laid out last branch first from the parent's start: the next node expanded is then always the
top-most live segment, and its children may run past its end. Best-first, a split
with missing values puts its children at the arena's top, and the frontier's
segments are moved down when the arena is full.

The histogram mode keeps no sorted orders: big nodes are scored over binned codes
(per-node histograms, the largest child's by subtraction from its parent's; see
:mod:`engine.fast.histogram`), small ones over their own sorted values. Depth-first
without a leaf limit, a node below ``Params.small`` entries is grown whole by
:func:`build_local` on a private copy of its entries (values, classes, weights and
its orders, renumbered from the node's sorted orders or counted out of its bin codes:
:func:`_local_orders`), exactly in both modes: deep levels of a big tree then stay in
the cache instead of chasing rows across memory.
"""

from __future__ import annotations

import numpy as np

from engine.fast.groups import MAX_BINNED_CATEGORIES, MISSING_CODE, NOMINAL, NUMERIC
from engine.fast.histogram import accumulate, accumulate_attributes, score_histogram, subtract
from engine.fast.kernels import (
    PREFETCH_AHEAD,
    PREFETCH_LEAST,
    add_entry,
    as_ref,
    gain_too_small,
    impurity,
    is_pure,
    njit,
    pairwise_sum,
    prefetch,
    prefetch_target,
    psum,
    queue_priority,
    size_of,
    stops_before_search,
    top_class_weight,
    whole_branch,
)
from engine.fast.sweeps import (
    BY_GAIN,
    choose,
    scan_items,
    scan_sorted,
    score_subset,
    score_table,
)

# What run() returns.
DONE, PAUSED, NEEDS_ROOM, SPLIT_BIG, SPLIT_ROOT = 0, 1, 2, 3, 4
#: split_step's phases.
(
    SPLIT_ENTRIES,
    SPLIT_ORDERS,
    SPLIT_HISTS,
    SPLIT_HEAD,
    SPLIT_SCAN,
    SPLIT_TAIL,
    SPLIT_PUSH,
    SPLIT_SETTLE,
    SPLIT_COUNT,
    SPLIT_SUM,
    SPLIT_HISTS_END,
    SPLIT_MARK,
    SPLIT_CODED,
    SPLIT_MOVE,
    SPLIT_CHILD,
    SPLIT_SUM_ATTRIBUTES,
) = range(16)
#: A node's histogram is counted in blocks of this many entries once it has two or more:
#: each block into a histogram of its own (``Hist.partials``), added to the node's in block
#: order. The blocks' bounds depend on the node alone, so threads counting blocks side by
#: side (``SPLIT_COUNT``) add the same sums in the same order as one thread.
COUNT_BLOCK = 65_536
#: ``Params.local`` of a fit whose small subtrees the caller grows on its threads (depth-first
#: without a leaf limit, the order subtrees grow in does not change the tree): ``run`` leaves
#: each such node marked DEFERRED in ``nodes.local`` instead of growing it
#: (engine.fast.threads).
DEFER_LOCAL = 2
DEFERRED = 2
#: ``nodes.local`` of a searched node whose subtree the caller's threads will grow from its
#: histogram (``Params.share``); ``run`` then marks it DEFERRED, keeping its histogram's slot.
SHARED = 3
#: Runs of one bin up to this long are sorted by insertion, longer ones by merge sort.
SORT_RUN_INSERTION = 48


@njit(cache=True)
def preorder(child0, n_children, n):
    """Node rows in pre-order: a node, then its children's subtrees in branch order."""
    out = np.empty(n, np.int64)
    stack = np.empty(n + 1, np.int64)
    stack[0], top, k = 0, 1, 0
    while top:
        top -= 1
        i = stack[top]
        out[k] = i
        k += 1
        for c in range(child0[i] + n_children[i] - 1, child0[i] - 1, -1):
            stack[top] = c
            top += 1
    return out


@njit(cache=True)
def subtree_ends(parent):
    """:func:`engine.flat.ends` (its oracle) for nodes in pre-order: one past each node's
    last descendant, each subtree's size added into its parent from the last node back.
    numpy went a level at a time: fifty levels of a full regression tree, 0.8 ms."""
    n = len(parent)
    size = np.ones(n, np.intp)
    for i in range(n - 1, 0, -1):
        size[parent[i]] += size[i]
    for i in range(n):
        size[i] += i
    return size


@njit(cache=True, linked=True, borrows=True)
def _heap_push(heap, state, node, key, tie):
    i = state.heap_size[0]
    state.heap_size[0] += 1
    hn, hk, ht = heap.node, heap.key, heap.tie
    while i > 0:
        parent = (i - 1) // 2
        if hk[parent] < key or (hk[parent] == key and ht[parent] < tie):
            break
        hn[i], hk[i], ht[i] = hn[parent], hk[parent], ht[parent]
        i = parent
    hn[i], hk[i], ht[i] = node, key, tie


@njit(cache=True, linked=True, borrows=True)
def _heap_pop(heap, state):
    hn, hk, ht = heap.node, heap.key, heap.tie
    top = hn[0]
    state.heap_size[0] -= 1
    size = state.heap_size[0]
    if size == 0:
        return top
    node, key, tie = hn[size], hk[size], ht[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (hk[c + 1] < hk[c] or (hk[c + 1] == hk[c] and ht[c + 1] < ht[c])):
            c += 1
        if key < hk[c] or (key == hk[c] and tie < ht[c]):
            break
        hn[i], hk[i], ht[i] = hn[c], hk[c], ht[c]
        i = c
    hn[i], hk[i], ht[i] = node, key, tie
    return top


@njit(cache=True, linked=True, borrows=True)
def _take_slot(hist, state):
    if state.free_slots[0] == 0:
        return -1
    state.free_slots[0] -= 1
    return hist.free[state.free_slots[0]]


@njit(cache=True, linked=True, borrows=True)
def _give_slot(hist, state, slot):
    if slot >= 0:
        hist.free[state.free_slots[0]] = slot
        state.free_slots[0] += 1


@njit(cache=True, linked=True, borrows=True)
def _build_hist(hist, slot, sp, s, e, K):
    """The histogram of the entries ``[s, e)`` into the pool's ``slot``; in blocks
    (:data:`COUNT_BLOCK`) added in order when there are two or more."""
    H = hist.pool[slot]
    H[:] = 0.0
    if e - s < 2 * COUNT_BLOCK:
        _count_range(H, hist, sp, s, e, K)
        return
    P = hist.partials[0]
    for b in range(s, e, COUNT_BLOCK):
        P[:] = 0.0
        _count_range(P, hist, sp, b, min(b + COUNT_BLOCK, e), K)
        _add_into(H, P)


@njit(cache=True, linked=True, borrows=True)
def _count_range(H, hist, sp, s, e, K):
    accumulate(
        H,
        hist.codes,
        sp.arena.entry,
        sp.arena.weight,
        s,
        e,
        sp.data.cls,
        sp.data.target,
        K,
        hist.n_bins,
    )


@njit(cache=True, linked=True)
def _add_into(H, P):
    """``H += P``, bin by bin (the order of a block's sums into its node's)."""
    for j in range(H.shape[0]):
        for b in range(H.shape[1]):
            for k in range(H.shape[2]):
                H[j, b, k] += P[j, b, k]


@njit(cache=True, linked=True, borrows=True)
def _count_blocks(c, lo, hi, hist, sp, nodes, K):
    """Blocks ``lo`` to ``hi - 1`` of node ``c``'s entries, each into ``hist.partials`` at
    its own index (several threads, each a range of blocks: ``SPLIT_COUNT``)."""
    s, e = nodes.start[c], nodes.end[c]
    for k in range(lo, hi):
        P = hist.partials[k]
        P[:] = 0.0
        b = s + k * COUNT_BLOCK
        _count_range(P, hist, sp, b, min(b + COUNT_BLOCK, e), K)


@njit(cache=True, linked=True, borrows=True)
def _count_attributes(c, a, b, hist, sp, nodes, K):
    """Attributes ``a`` to ``b - 1`` of the histogram of node ``c`` (fewer than two blocks'
    entries: one pass, as :func:`_build_hist` counts it) into its slot (several threads, a
    range of attributes each: ``SPLIT_SUM_ATTRIBUTES``)."""
    H = hist.pool[nodes.slot[c]]
    H[a:b] = 0.0
    s, e = nodes.start[c], nodes.end[c]
    data = sp.data
    accumulate_attributes(
        H, hist.codes, sp.arena.entry, sp.arena.weight, s, e, a, b, data.cls, data.target, K,
        hist.n_bins,
    )  # fmt: skip


@njit(cache=True, linked=True, borrows=True)
def _sum_blocks(c, hist, sp, nodes, K):
    """Node ``c``'s histogram into its slot: its blocks' (counted by :func:`_count_blocks`)
    added in order, as :func:`_build_hist` adds them; a node of fewer entries counted here."""
    s, e = nodes.start[c], nodes.end[c]
    if e - s < 2 * COUNT_BLOCK:
        _build_hist(hist, nodes.slot[c], sp, s, e, K)
        return
    H = hist.pool[nodes.slot[c]]
    H[:] = 0.0
    for k in range((e - s + COUNT_BLOCK - 1) // COUNT_BLOCK):
        _add_into(H, hist.partials[k])


@njit(cache=True, linked=True, borrows=True)
def _mark_used(i, nodes, data, par, used):
    """Attributes a multiway split above node ``i`` used (ID3 and C4.5 use each once)."""
    for j in range(used.shape[0]):
        used[j] = data.used_above[j]
    if par.binary == 1:
        return
    a = nodes.parent[i]
    while a >= 0:
        j = nodes.attribute[a]
        if data.kind[j] == NOMINAL:
            used[j] = True
        a = nodes.parent[a]


@njit(cache=True, inline="always")
def _add_to_row(table, v, ent, weight, cls, target, K):
    """``add_entry(table[v], ...)`` without making the view ``table[v]``: each view took and
    released a reference on the table (two atomic operations, as long as the addition), and
    in the per-entry loops below that was most of a small node's cost (issue 39)."""
    if K == 0:
        wy = weight * target[ent]
        table[v, 0] += weight
        table[v, 1] += wy
        table[v, 2] += wy * target[ent]
    else:
        table[v, cls[ent]] += weight


@njit(cache=True, linked=True, borrows=True)
def _category_table(j, sp, s, e, K, table, V):
    """Known weight per category and class of attribute ``j`` over the segment, in entry order
    (as numpy's bincount adds). Returns the number of entries with a known value."""
    data, arena = sp.data, sp.arena
    for v in range(V):
        for k in range(table.shape[1]):
            table[v, k] = 0.0
    base = j * data.n_entries
    values, entries, weights, cls, target = (
        data.values,
        arena.entry,
        arena.weight,
        data.cls,
        data.target,
    )
    known = 0
    for t in range(s, e):
        ent = entries[t]
        x = values[base + ent]
        if not np.isnan(x):
            _add_to_row(table, int(x), ent, weights[t], cls, target, K)
            known += 1
    return known


@njit(cache=True, linked=True, borrows=True)
def _count_missing(j, sp, s, e):
    data, arena = sp.data, sp.arena
    base = j * data.n_entries
    missing = 0
    for t in range(s, e):
        if np.isnan(data.values[base + arena.entry[t]]):
            missing += 1
    return missing


@njit(cache=True, linked=True, borrows=True)
def _hist_slot(i, nodes, hist):
    """The slot holding binned node ``i``'s histogram: its own, or the spare one
    (:func:`_evaluate_head` counts it there when no slot was free)."""
    return nodes.slot[i] if nodes.slot[i] >= 0 else hist.pool.shape[0] - 1


@njit(cache=True, linked=True, borrows=True)
def _missing_in(i, j, sp, par, nodes, hist):
    """How many of binned node ``i``'s entries miss attribute ``j``'s value. Where every entry
    weighs 1, its histogram's missing bin's weight (a whole number, exact in any order of
    sums); else :func:`_count_missing`, which reads every entry's value (2 ms a million, at
    random)."""
    if nodes.unit[i] != 1:
        return _count_missing(j, sp, nodes.start[i], nodes.end[i])
    row = hist.pool[_hist_slot(i, nodes, hist), j, hist.n_bins[j]]
    if par.n_classes == 0:  # (weight, weight x y, weight x y x y)
        return int(round(row[0]))
    total = 0.0
    for k in range(par.n_classes):
        total += row[k]
    return int(round(total))


@njit(cache=True, linked=True)
def _score_small_numeric(j, i, sp, par, nodes, work, cand):
    """A small node in the histogram mode: attribute ``j`` over its own sorted known values."""
    data, arena = sp.data, sp.arena
    s, e = nodes.start[i], nodes.end[i]
    base = j * data.n_entries
    K = par.n_classes
    values, weights, entries = work.value_buffer, work.weight_buffer2, work.entry_buffer
    nk = 0
    for t in range(s, e):
        ent = arena.entry[t]
        x = data.values[base + ent]
        if not np.isnan(x):
            values[nk] = x
            weights[nk] = arena.weight[t]
            entries[nk] = ent
            nk += 1
    idx = np.argsort(values[:nk], kind="mergesort")
    item_value, item_bin, item_stats = work.item_value, work.item_bin, work.item_stats
    L = 0
    for t in range(nk):
        v = values[idx[t]]
        if L == 0 or v != item_value[L - 1]:
            item_value[L] = v
            item_bin[L] = L
            for k in range(item_stats.shape[1]):
                item_stats[L, k] = 0.0
            L += 1
        _add_to_row(item_stats, L - 1, entries[idx[t]], weights[idx[t]], data.cls, data.target, K)
    flog = work.flog if nodes.unit[i] == 1 else work.flog[:1]
    scan_items(j, L, item_value, item_value, nk, par, nodes.weight[i], work, cand, flog)
    cand.cut[j] = -1  # routed by threshold


@njit(cache=True, linked=True)
def _coded(data):
    """Exact search's attributes of few values (no sorted orders: ``numeric_index`` -1)."""
    p = data.kind.shape[0]
    coded = 0
    for j in range(p):
        if data.kind[j] == NUMERIC and data.numeric_index[j] < 0:
            coded += 1
    js = np.empty(coded, np.int64)
    coded = 0
    for j in range(p):
        if data.kind[j] == NUMERIC and data.numeric_index[j] < 0:
            js[coded] = j
            coded += 1
    return js


@njit(cache=True, linked=True, borrows=True)
def _count_coded_range(H, js, sp, s, e, n_bins, K):
    """The attributes ``js``' counts of the entries ``[s, e)`` into ``H`` (zeroed first): per
    code its statistics, and last how many entries have it. In one pass over the entries (an
    entry's codes share a cache line)."""
    S = H.shape[2] - 1
    for j in js:
        for c in range(n_bins[j]):
            for k in range(S + 1):
                H[j, c, k] = 0.0
    data, arena = sp.data, sp.arena
    width = sp.codes.shape[1]
    far = e - s >= PREFETCH_LEAST  # a big node's entries: their codes and class, a miss each
    for t in range(s, e):
        if far and t + PREFETCH_AHEAD < e:
            ahead = arena.entry[t + PREFETCH_AHEAD]
            prefetch(sp.codes, ahead * width + js[0])
            prefetch_target(ahead, data.cls, data.target, K)
        ent = arena.entry[t]
        w = arena.weight[t]
        for j in js:
            code = sp.codes[ent, j]
            if code != MISSING_CODE:
                _add_to_row(H[j], code, ent, w, data.cls, data.target, K)
                H[j, code, S] += 1.0


@njit(cache=True, linked=True)
def _add_coded(H, P, js, n_bins):
    """``H += P`` over the attributes ``js``' codes (a block's counts into its node's)."""
    for j in js:
        for c in range(n_bins[j]):
            for k in range(H.shape[2]):
                H[j, c, k] += P[j, c, k]


@njit(cache=True, linked=True)
def _count_coded(i, sp, par, nodes, hist, counted):
    """Exact search's attributes of few values counted at node ``i`` by their codes
    (``sp.codes``) into ``hist.pool[0]`` (:func:`_count_coded_range`). A node of two blocks
    (:data:`COUNT_BLOCK`) or more is counted a block at a time, the blocks' counts added in
    order: ``counted``, its blocks are counted already, into ``hist.partials`` (several
    threads, ``SPLIT_CODED``), and the sums are the same. Returns the work done."""
    if sp.codes.shape[0] <= 1:  # a row of zeros: no attribute is counted by value
        return 0
    js = _coded(sp.data)
    if js.shape[0] == 0:
        return 0
    H = hist.pool[0]
    K = par.n_classes
    s, e = nodes.start[i], nodes.end[i]
    if e - s < 2 * COUNT_BLOCK:
        _count_coded_range(H, js, sp, s, e, hist.n_bins, K)
        return (e - s) * js.shape[0]
    for j in js:
        for c in range(hist.n_bins[j]):
            for k in range(H.shape[2]):
                H[j, c, k] = 0.0
    for k, b in enumerate(range(s, e, COUNT_BLOCK)):
        P = hist.partials[k if counted else 0]
        if not counted:
            _count_coded_range(P, js, sp, b, min(b + COUNT_BLOCK, e), hist.n_bins, K)
        _add_coded(H, P, js, hist.n_bins)
    return (e - s) * js.shape[0]


@njit(cache=True, linked=True)
def _count_coded_blocks(c, lo, hi, sp, par, nodes, hist):
    """Blocks ``lo`` to ``hi - 1`` of node ``c``'s entries, the attributes of few values'
    counts of each into ``hist.partials`` at its own index (``SPLIT_CODED``)."""
    js = _coded(sp.data)
    s, e = nodes.start[c], nodes.end[c]
    for k in range(lo, hi):
        b = s + k * COUNT_BLOCK
        _count_coded_range(
            hist.partials[k], js, sp, b, min(b + COUNT_BLOCK, e), hist.n_bins, par.n_classes
        )


@njit(cache=True, linked=True)
def _score_coded(j, i, par, nodes, hist, work, cand):
    """Attribute ``j`` of few values at node ``i`` from its counts (:func:`_count_coded`): the
    cuts between the values present (``hist.low[j]``, one per code) scored as
    :func:`_score_small_numeric` scores them, where the sorted orders' sweep would read and
    move every entry."""
    H = hist.pool[0, j]
    S = H.shape[1] - 1
    item_value, item_bin, item_stats = work.item_value, work.item_bin, work.item_stats
    L = 0
    nk = 0
    for c in range(hist.n_bins[j]):  # the codes present, in value order
        if H[c, S] > 0:
            item_value[L] = hist.low[j, c]
            item_bin[L] = L
            for k in range(S):
                item_stats[L, k] = H[c, k]
            nk += int(H[c, S])
            L += 1
    flog = work.flog if nodes.unit[i] == 1 else work.flog[:1]
    scan_items(j, L, item_value, item_value, nk, par, nodes.weight[i], work, cand, flog)
    cand.cut[j] = -1  # routed by threshold


@njit(cache=True, linked=True, borrows=True)
def evaluate(i, sp, par, nodes, hist, work, cand, groups, state):
    """Find node ``i``'s split (``nodes.attribute[i]`` >= 0) or leave it a leaf (-1).

    Returns the work done (entries times attributes looked at).
    """
    done = _evaluate_head(i, sp, par, nodes, hist, work, cand, state, False)
    if done < 0:
        return 1
    done += scan_attributes(i, sp, par, nodes, hist, work, cand, 0, sp.data.kind.shape[0])
    return _evaluate_tail(i, sp, par, nodes, hist, work, cand, groups, state, done)


@njit(cache=True, linked=True, borrows=True)
def _binned(i, sp, par, nodes):
    """Whether node ``i`` is scored from a histogram (then its numeric attributes are)."""
    return par.histogram == 1 and nodes.end[i] - nodes.start[i] >= par.small


@njit(cache=True, linked=True, borrows=True)
def _evaluate_head(i, sp, par, nodes, hist, work, cand, state, counted):
    """What :func:`evaluate` does before the attributes' own searches: -1 where node ``i``
    stops (a leaf); else the entries' weights set out, the attributes used above marked in
    ``work.used``, the attributes of few values counted (``counted``: their blocks are, by
    ``SPLIT_CODED``) and, binned, the attributes its histogram scores scored. Returns the
    work."""
    nodes.attribute[i] = -1
    if stops(i, par, nodes, work.tmp):
        return -1
    data, arena = sp.data, sp.arena
    s, e = nodes.start[i], nodes.end[i]
    n = e - s
    p = data.kind.shape[0]
    if nodes.unit[i] != 1:  # the entries' weights here, for the sweeps over sorted orders
        for t in range(s, e):
            sp.entry_weight[arena.entry[t]] = arena.weight[t]
    _mark_used(i, nodes, data, par, work.used)
    done = n
    if par.histogram == 0:
        done += _count_coded(i, sp, par, nodes, hist, counted)
    elif _binned(i, sp, par, nodes):
        slot = nodes.slot[i]
        if slot < 0:  # no slot was free: the spare one, for now
            slot = hist.pool.shape[0] - 1
            _build_hist(hist, slot, sp, s, e, par.n_classes)
            done += n * p
        H = hist.pool[slot]
        for j in range(p):
            work.known[j] = n
            if data.has_missing[j] and par.binary == 0 and data.kind[j] == NUMERIC:
                work.known[j] = n - _missing_in(i, j, sp, par, nodes, hist)
        score_histogram(
            H,
            work.known,
            data.kind,
            data.n_categories,
            hist.n_bins,
            hist.low,
            hist.high,
            work.used,
            par,
            nodes.weight[i],
            work,
            cand,
            work.flog if nodes.unit[i] == 1 else work.flog[:1],
        )
        done += p * H.shape[1]
    return done


@njit(cache=True, linked=True, borrows=True)
def scan_attributes(i, sp, par, nodes, hist, work, cand, j0, j1):
    """The searches of node ``i``'s attributes ``j0`` to ``j1 - 1`` that its histogram does
    not score, each into ``cand[j]`` alone (``work``: scratch, ``work.used`` marked): so
    several threads may each search a range of a big node's attributes at once."""
    K = par.n_classes
    stats = nodes.stats[i]
    weight = nodes.weight[i]
    data, arena = sp.data, sp.arena
    s, e = nodes.start[i], nodes.end[i]
    n = e - s
    N = data.n_entries
    unit = nodes.unit[i] == 1
    flog = work.flog if unit else work.flog[:1]  # c log c tables need whole counts
    binned = _binned(i, sp, par, nodes)
    # Two entries split one way only: every attribute that splits them ties with the first
    # that does, which choose keeps, so the rest are not scanned (a third of a full tree's
    # nodes have two entries).
    one_way = n == 2 and par.binary == 1 and par.select == BY_GAIN
    split = False
    done = 0
    for j in range(j0, j1):
        if binned and not (
            data.kind[j] == NOMINAL and data.n_categories[j] > MAX_BINNED_CATEGORIES
        ):
            continue  # scored from the histogram
        cand.valid[j] = 0
        if work.used[j] or split:
            continue
        if data.kind[j] == NOMINAL:
            V = data.n_categories[j]
            cand.n_known[j] = _category_table(j, sp, s, e, K, work.table, V)
            if par.binary == 1:
                score_subset(j, work.table[:V], V, par, weight, work, cand)
            else:
                score_table(j, work.table[:V], V, par, weight, work, cand)
        elif par.histogram == 0 and data.numeric_index[j] < 0:
            _score_coded(j, i, par, nodes, hist, work, cand)
        elif par.histogram == 0:
            a = data.numeric_index[j]
            scan_sorted(
                j,
                data.values[j * N : (j + 1) * N],
                sp.entry_weight,
                data.cls,
                data.target,
                arena.order[a],
                s,
                n,
                stats,
                unit,
                par,
                weight,
                work,
                cand,
                flog,
            )
        else:
            _score_small_numeric(j, i, sp, par, nodes, work, cand)
        done += n
        split = one_way and cand.valid[j] == 1
    return done


@njit(cache=True, linked=True, borrows=True)
def _evaluate_tail(i, sp, par, nodes, hist, work, cand, groups, state, done):
    """What :func:`evaluate` does once every attribute is searched: the choice among them,
    written into node ``i``'s row. Returns the work, ``done`` so far included."""
    data = sp.data
    s, e = nodes.start[i], nodes.end[i]
    p = data.kind.shape[0]
    binned = _binned(i, sp, par, nodes)
    best = choose(cand, p, par, data.counted, work)
    if best < 0 or gain_too_small(cand.gain[best], par.min_gain, par.binary == 1):
        return done + 1
    nodes.attribute[i] = best
    nodes.cut_bin[i] = cand.cut[best]
    nodes.threshold[i] = cand.threshold[best]
    nodes.gain[i] = cand.gain[best]
    nodes.ratio[i] = cand.ratio[best]
    if par.majority == 1:
        nodes.fraction0[i], nodes.fraction1[i] = whole_branch(
            cand.fraction0[best], cand.fraction1[best]
        )
    else:
        nodes.fraction0[i] = cand.fraction0[best]
        nodes.fraction1[i] = cand.fraction1[best]
    if not data.has_missing[best]:
        nodes.n_missing[i] = 0
    elif binned and not (
        data.kind[best] == NOMINAL and data.n_categories[best] > MAX_BINNED_CATEGORIES
    ):
        nodes.n_missing[i] = _missing_in(i, best, sp, par, nodes, hist)
    else:  # the scorer counted the entries with a value
        nodes.n_missing[i] = e - s - cand.n_known[best]
    if data.kind[best] == NOMINAL and par.binary == 1:
        # The winner's groups (scoring it again leaves them in work.best_mask).
        V = data.n_categories[best]
        if binned and V <= MAX_BINNED_CATEGORIES:  # its histogram's rows
            table = hist.pool[_hist_slot(i, nodes, hist), best, :V]
        else:
            _category_table(best, sp, s, e, par.n_classes, work.table, V)
            table = work.table[:V]
        score_subset(best, table, V, par, nodes.weight[i], work, cand)
        at = state.groups_used[0]
        state.groups_used[0] += V
        for v in range(V):
            groups.branch[at + v] = -1
        for c in range(cand.cut[best]):
            groups.branch[at + work.counts[c]] = 0 if work.best_mask[c] else 1
        nodes.group_at[i] = at
    return done + 1


@njit(cache=True, linked=True, borrows=True)
def n_branches(j, data, par):
    return 2 if data.kind[j] == NUMERIC or par.binary == 1 else data.n_categories[j]


@njit(cache=True, linked=True, borrows=True)
def _distribute_entries(arena, s, e, base, entry_branch, fractions, nb, pos, buf, wbuf):
    """Copy the segment's entries and weights to the children's segments from ``base`` on,
    keeping their order. An entry goes to its branch, a missing one (branch -1) to every
    branch with a positive fraction, its weight times that fraction. ``pos[b]``: child b's
    offset from ``base``. The child laid out first (the last branch) is compacted in place
    when it starts at ``s`` (no entry is overwritten before it is read); the others go through
    the buffers."""
    entries, weights = arena.entry, arena.weight
    low = nb - 1
    in_place = base == s
    if nb == 2 and in_place:
        # Without a branch on the entry's side (a coin toss at most nodes, so the processor
        # guessed wrong half the time): every entry is written to both places and kept where
        # it belongs by advancing that place only. A write not kept lands where the next
        # kept one will, or past the children (at most one slot past them in the buffer).
        f0, f1 = fractions[0], fractions[1]
        to0, to1 = f0 > 0, f1 > 0
        p0, p1 = pos[0], pos[1]
        far = e - s >= PREFETCH_LEAST
        for t in range(s, e):
            if far and t + PREFETCH_AHEAD < e:
                prefetch(entry_branch, entries[t + PREFETCH_AHEAD])
            ent = entries[t]
            w = weights[t]
            b = entry_branch[ent]
            missing = b < 0
            entries[s + p1] = ent
            weights[s + p1] = w * f1 if missing else w
            buf[p0] = ent
            wbuf[p0] = w * f0 if missing else w
            p1 += (b == 1) | (missing & to1)
            p0 += (b == 0) | (missing & to0)
        pos[0], pos[1] = p0, p1
    else:
        for t in range(s, e):
            ent = entries[t]
            w = weights[t]
            b = entry_branch[ent]
            for bb in range(nb):
                if b == bb or (b < 0 and fractions[bb] > 0):
                    wf = w * fractions[bb] if b < 0 else w
                    if in_place and bb == low:
                        entries[s + pos[bb]] = ent
                        weights[s + pos[bb]] = wf
                    else:
                        buf[pos[bb]] = ent
                        wbuf[pos[bb]] = wf
                    pos[bb] += 1
    total = 0
    for b in range(nb):
        if pos[b] > total:
            total = pos[b]
    for t in range(pos[low] if in_place else 0, total):
        entries[base + t] = buf[t]
        weights[base + t] = wbuf[t]


@njit(cache=True, linked=True, borrows=True)
def _distribute_order(row, s, e, base, entry_branch, fractions, nb, pos, buf):
    """:func:`_distribute_entries` for a row of entries sorted by an attribute."""
    low = nb - 1
    in_place = base == s
    if nb == 2 and in_place:  # as _distribute_entries: no branch on the entry's side
        to0, to1 = fractions[0] > 0, fractions[1] > 0
        p0, p1 = pos[0], pos[1]
        far = e - s >= PREFETCH_LEAST
        for t in range(s, e):
            if far and t + PREFETCH_AHEAD < e:
                prefetch(entry_branch, row[t + PREFETCH_AHEAD])
            ent = row[t]
            b = entry_branch[ent]
            missing = b < 0
            row[s + p1] = ent
            buf[p0] = ent
            # Bitwise, not ``or``/``and``: numba compiles those into jumps, which the
            # processor guessed wrong about as often as the branch the writes avoid
            # (2.4 against 5.5 ns an entry, measured alone).
            p1 += (b == 1) | (missing & to1)
            p0 += (b == 0) | (missing & to0)
        pos[0], pos[1] = p0, p1
    else:
        for t in range(s, e):
            ent = row[t]
            b = entry_branch[ent]
            for bb in range(nb):
                if b == bb or (b < 0 and fractions[bb] > 0):
                    if in_place and bb == low:
                        row[s + pos[bb]] = ent
                    else:
                        buf[pos[bb]] = ent
                    pos[bb] += 1
    total = 0
    for b in range(nb):
        if pos[b] > total:
            total = pos[b]
    for t in range(pos[low] if in_place else 0, total):
        row[base + t] = buf[t]


@njit(cache=True, linked=True, borrows=True)
def _segment_stats(arena, s, e, acc, data, K):
    """A child's statistics: its entries added in segment order (numpy's bincount over its
    rows), in a pass of their own after the entries are laid out."""
    for k in range(acc.shape[0]):
        acc[k] = 0.0
    entries, weights, cls, target = arena.entry, arena.weight, data.cls, data.target
    far = e - s >= PREFETCH_LEAST
    for t in range(s, e):
        if far and t + PREFETCH_AHEAD < e:
            prefetch_target(entries[t + PREFETCH_AHEAD], cls, target, K)
        add_entry(acc, entries[t], weights[t], cls, target, K)


@njit(cache=True, linked=True, borrows=True)
def stops(c, par, nodes, tmp):
    """Node ``c`` becomes a leaf without a search (pure, too light, or at the depth limit)."""
    K = par.n_classes
    stats = nodes.stats[c]
    imp = impurity(stats, K, par.impurity, tmp)
    total = size_of(stats, K) if K > 0 else 0.0
    pure = is_pure(top_class_weight(stats, K), total, K == 0, imp)
    return stops_before_search(
        nodes.weight[c],
        nodes.depth[c],
        pure,
        par.min_samples_split,
        par.min_samples_leaf,
        par.max_depth,
    )


@njit(cache=True, linked=True, borrows=True)
def partition(i, sp, par, nodes, hist, work, groups, state, depth_first):
    """Split node ``i`` by its candidate: the children's segments, statistics and weights.

    Returns the first child's row (the children are consecutive rows).
    """
    c0, leaves = _partition_entries(i, sp, par, nodes, hist, work, groups, state, depth_first)
    if not leaves:  # else no search will read the children's sorted orders
        partition_orders(i, sp, nodes, work, sp.buffer, 0, sp.arena.order.shape[0])
    if par.histogram == 1 and not leaves:
        _children_hists(i, c0, nodes.n_children[i], sp, par, nodes, hist, state)
    elif par.histogram == 1:  # no child is searched: none needs a histogram
        _hists_end(i, c0, nodes.n_children[i], -1, par, nodes, hist, state)
    return c0


@njit(cache=True, linked=True, borrows=True)
def partition_orders(i, sp, nodes, work, buf, a0, a1):
    """Node ``i``'s sorted orders ``a0`` to ``a1 - 1`` distributed among its children (made by
    :func:`_partition_entries`, whose ``sp.entry_branch`` they read): each order on its own,
    ``work`` and ``buf`` scratch, so several threads may each take a range of a big node's."""
    s, e = nodes.start[i], nodes.end[i]
    c0, nb = nodes.child0[i], nodes.n_children[i]
    fractions, pos = work.tmp2, work.offsets[nb : 2 * nb]
    base = nodes.start[c0 + nb - 1]  # the last branch is laid out first
    for b in range(nb):
        fractions[b] = nodes.fraction[c0 + b]
    for a in range(a0, a1):
        for b in range(nb):
            pos[b] = nodes.start[c0 + b] - base
        _distribute_order(sp.arena.order[a], s, e, base, sp.entry_branch, fractions, nb, pos, buf)


@njit(cache=True, linked=True, borrows=True)
def _mark_entries(i, sp, par, nodes, hist, groups, s, e, counts):
    """Node ``i``'s entries ``[s, e)`` marked with the branch each goes down
    (``sp.entry_branch``, -1: missing the split's value), ``counts`` how many go down each;
    returns how many miss it. Each entry is one thread's: threads may mark ranges at once."""
    data, arena = sp.data, sp.arena
    j = nodes.attribute[i]
    numeric = data.kind[j] == NUMERIC
    nb = n_branches(j, data, par)
    binned_cut = par.histogram == 1 and numeric and nodes.cut_bin[i] >= 0
    base_col = j * data.n_entries
    for b in range(nb):
        counts[b] = 0
    n_miss = 0
    n = e - s
    if numeric and not binned_cut:  # the common case, without a branch on the entry's side
        threshold = nodes.threshold[i]
        n_right = 0
        far = n >= PREFETCH_LEAST
        for t in range(s, e):
            if far and t + PREFETCH_AHEAD < e:
                prefetch(data.values, base_col + arena.entry[t + PREFETCH_AHEAD])
            ent = arena.entry[t]
            x = data.values[base_col + ent]
            missing = np.isnan(x)
            right = x > threshold  # not x <= threshold, for a known x
            sp.entry_branch[ent] = -1 if missing else (1 if right else 0)
            n_miss += 1 if missing else 0
            n_right += 1 if right else 0
        counts[0], counts[1] = n - n_miss - n_right, n_right
    elif binned_cut:  # the codes' rows are scattered over memory as the values' are
        cut = nodes.cut_bin[i]
        width = hist.codes.shape[1]
        far = n >= PREFETCH_LEAST
        for t in range(s, e):
            if far and t + PREFETCH_AHEAD < e:
                prefetch(hist.codes, arena.entry[t + PREFETCH_AHEAD] * width + j)
            ent = arena.entry[t]
            code = hist.codes[ent, j]
            b = -1 if code == MISSING_CODE else (0 if code <= cut else 1)
            sp.entry_branch[ent] = b
            if b >= 0:
                counts[b] += 1
            else:
                n_miss += 1
    else:
        for t in range(s, e):
            ent = arena.entry[t]
            x = data.values[base_col + ent]
            if np.isnan(x):
                b = -1
            elif numeric:
                b = 0 if x <= nodes.threshold[i] else 1
            elif par.binary == 1:
                b = groups.branch[nodes.group_at[i] + int(x)]
            else:
                b = int(x)
            sp.entry_branch[ent] = b
            if b >= 0:
                counts[b] += 1
            else:
                n_miss += 1
    return n_miss


@njit(cache=True, linked=True, borrows=True)
def _move_entries(i, sp, nodes, lo, hi, p1, p0, end1, end0):
    """Node ``i``'s entries ``lo`` to ``hi - 1`` (from its start), marked with their branches
    (``SPLIT_MARK``), copied with their weights into the space's buffers, in order: the
    second branch's from ``p1`` on (to ``end1``), the first's from ``p0`` on (to ``end0``),
    an entry missing the value to each branch of positive fraction at its weight times that
    fraction. Several threads move a range each (``SPLIT_MOVE``), the children's segments
    laid out in the buffers as :func:`_distribute_entries` lays them out in place.

    As there, every entry is written to both places while neither part is full, and kept
    by advancing where it belongs (no branch on its side, which the processor guessed wrong
    half the time): a write not kept lands where the thread's next kept one will. Once a
    part is full, such a write would land in the next thread's: the rest are written only
    where they go."""
    entries, weights, branch = sp.arena.entry, sp.arena.weight, sp.entry_branch
    buf, wbuf = sp.buffer, sp.weight_buffer
    f0, f1 = nodes.fraction0[i], nodes.fraction1[i]
    to0, to1 = f0 > 0, f1 > 0
    s = nodes.start[i]
    far = hi - lo >= PREFETCH_LEAST
    t, stop = s + lo, s + hi
    while t < stop and p1 < end1 and p0 < end0:
        if far and t + PREFETCH_AHEAD < stop:
            prefetch(branch, entries[t + PREFETCH_AHEAD])
        ent = entries[t]
        w = weights[t]
        b = branch[ent]
        missing = b < 0
        buf[p1] = ent
        wbuf[p1] = w * f1 if missing else w
        buf[p0] = ent
        wbuf[p0] = w * f0 if missing else w
        p1 += (b == 1) | (missing & to1)
        p0 += (b == 0) | (missing & to0)
        t += 1
    for u in range(t, stop):
        ent = entries[u]
        w = weights[u]
        b = branch[ent]
        if b == 1 or (b < 0 and f1 > 0):
            buf[p1] = ent
            wbuf[p1] = w * f1 if b < 0 else w
            p1 += 1
        if b == 0 or (b < 0 and f0 > 0):
            buf[p0] = ent
            wbuf[p0] = w * f0 if b < 0 else w
            p0 += 1


@njit(cache=True, linked=True, borrows=True)
def _partition_entries(
    i, sp, par, nodes, hist, work, groups, state, depth_first, marked=-1, moved=False
):
    """:func:`partition` but for the sorted orders and histograms: the children's rows and
    entry segments. ``marked`` >= 0: the entries are marked already, ``work.counts`` holding
    how many go down each branch and ``marked`` how many miss the split's value (several
    threads marked a range each, ``SPLIT_MARK``); ``moved``: and laid out in the buffers
    (``SPLIT_MOVE``), to be copied back by :func:`_child_sums`, a child each (``SPLIT_CHILD``,
    whose threads then tell whether every child stops: False here). Returns the first child's
    row and whether every child stops."""
    data, arena = sp.data, sp.arena
    s, e = nodes.start[i], nodes.end[i]
    n = e - s
    j = nodes.attribute[i]
    K = par.n_classes
    numeric = data.kind[j] == NUMERIC
    nb = n_branches(j, data, par)
    counts = work.counts
    n_miss = marked
    if marked < 0:
        n_miss = _mark_entries(i, sp, par, nodes, hist, groups, s, e, counts)
    fractions = work.tmp2
    if nb == 2 and (numeric or par.binary == 1):
        fractions[0], fractions[1] = nodes.fraction0[i], nodes.fraction1[i]
    else:  # each category's share of the known weight, from the category table
        table = work.table
        _category_table(j, sp, s, e, K, table, nb)
        sizes = work.sizes
        for b in range(nb):
            sizes[b] = size_of(table[b], K)
        known_w = psum(sizes, nb)
        for b in range(nb):
            fractions[b] = sizes[b] / known_w
    total = 0
    for b in range(nb):
        if n_miss > 0 and fractions[b] > 0:
            counts[b] += n_miss
        total += counts[b]
    if depth_first or total == n:
        base = s
    else:
        base = state.arena_top[0]
        state.arena_top[0] += total
    offsets, pos = work.offsets[:nb], work.offsets[nb : 2 * nb]
    at = 0
    for b in range(nb - 1, -1, -1):  # last branch first
        offsets[b] = base + at
        at += counts[b]
    c0 = state.n_nodes[0]
    state.n_nodes[0] += nb
    for b in range(nb):
        pos[b] = offsets[b] - base
    if not moved:
        _distribute_entries(
            arena, s, e, base, sp.entry_branch, fractions, nb, pos, sp.buffer, sp.weight_buffer
        )
    unit = nodes.unit[i] == 1
    leaves = True  # every child stops: no search will read the children's sorted orders
    for b in range(nb):
        c = c0 + b
        cs, ce = offsets[b], offsets[b] + counts[b]
        nodes.start[c], nodes.end[c] = cs, ce
        nodes.depth[c], nodes.parent[c] = nodes.depth[i] + 1, i
        nodes.child0[c], nodes.n_children[c], nodes.attribute[c] = -1, 0, -1
        nodes.slot[c], nodes.local[c], nodes.n_missing[c] = -1, 0, 0
        child_unit = unit and (n_miss == 0 or fractions[b] == 0.0 or fractions[b] == 1.0)
        nodes.unit[c] = 1 if child_unit else 0
        nodes.fraction[c] = fractions[b]
        if moved or not _child_sums(c, base, sp, par, nodes, work.tmp, False):
            leaves = False
    nodes.child0[i], nodes.n_children[i] = c0, nb
    return c0, leaves


@njit(cache=True, linked=True, borrows=True)
def _child_sums(c, base, sp, par, nodes, tmp, moved):
    """Child ``c``'s weight and statistics, its segment first copied back from the partition
    buffers (laid out from ``base``) where ``moved``; whether it stops (:func:`stops`). Each
    child's sums are its own, in entry order: threads each summing a child add what one
    thread adds."""
    arena = sp.arena
    cs, ce = nodes.start[c], nodes.end[c]
    if moved:
        for t in range(cs, ce):
            arena.entry[t] = sp.buffer[t - base]
            arena.weight[t] = sp.weight_buffer[t - base]
    unit = nodes.unit[c] == 1
    nodes.weight[c] = float(ce - cs) if unit else pairwise_sum(arena.weight, cs, ce - cs)
    _segment_stats(arena, cs, ce, nodes.stats[c], sp.data, par.n_classes)
    return stops(c, par, nodes, tmp)


@njit(cache=True, linked=True, borrows=True)
def _children_hists(i, c0, nb, sp, par, nodes, hist, state):
    """Histograms for the children big enough to be scored by bins; the largest by subtraction
    when every entry went down one branch whole (none missed the split's value, or
    ``--missing majority`` sent them one way). Entries that went down every branch at a
    fraction of their weight would leave rounding in such a difference where the child has
    nothing: a bin or category it lacks would seem present (a cut beside an empty bin, a
    subset holding an absent category), and training over partitions, which sums those
    children's histograms, would choose otherwise."""
    derived = _hists_plan(i, c0, nb, par, nodes, hist, state)
    for c in range(c0, c0 + nb):
        if nodes.slot[c] >= 0:
            _build_hist(hist, nodes.slot[c], sp, nodes.start[c], nodes.end[c], par.n_classes)
    _hists_end(i, c0, nb, derived, par, nodes, hist, state)


@njit(cache=True, linked=True, borrows=True)
def _hists_plan(i, c0, nb, par, nodes, hist, state):
    """:func:`_children_hists`' first step: a slot for each child to be counted (the ones
    with a slot then), and the child whose histogram is derived (-1: none)."""
    small = par.small
    big = c0
    for c in range(c0, c0 + nb):
        if nodes.end[c] - nodes.start[c] > nodes.end[big] - nodes.start[big]:
            big = c
    whole = nodes.n_missing[i] == 0 or par.majority == 1
    derive = nodes.slot[i] >= 0 and whole and nodes.end[big] - nodes.start[big] >= small
    for c in range(c0, c0 + nb):
        n = nodes.end[c] - nodes.start[c]
        if n < small and not (derive and n > 0):
            continue
        if c == big and derive:
            continue
        slot = _take_slot(hist, state)
        if slot < 0:  # (then the parent's histogram is not used: no derivation)
            derive = False
            continue
        nodes.slot[c] = slot
    return big if derive else -1


@njit(cache=True, linked=True, borrows=True)
def _hists_end(i, c0, nb, derived, par, nodes, hist, state):
    """:func:`_children_hists`' last step, once the children planned are counted: the
    derived child's histogram, and the slots of the parent and of children too small to be
    scored by bins given back."""
    if derived >= 0:  # the parent's histogram minus its other children's is the largest child's
        pslot = nodes.slot[i]
        for c in range(c0, c0 + nb):
            if nodes.slot[c] >= 0:
                subtract(hist.pool[pslot], hist.pool[nodes.slot[c]])
        nodes.slot[derived] = pslot
        nodes.slot[i] = -1
    for c in range(c0, c0 + nb):
        if nodes.end[c] - nodes.start[c] < par.small:
            _give_slot(hist, state, nodes.slot[c])
            nodes.slot[c] = -1
    _give_slot(hist, state, nodes.slot[i])
    nodes.slot[i] = -1


@njit(cache=True, linked=True, borrows=True)
def _settle_or_push(c, par, nodes, heap, hist, state):
    """A leaf adds its weight to the settled total; a candidate is queued (and so is a small
    node whose subtree will be grown whole)."""
    if nodes.attribute[c] < 0 and nodes.local[c] == 0:
        state.settled[0] += nodes.weight[c]
        _give_slot(hist, state, nodes.slot[c])
        nodes.slot[c] = -1
        return
    tie = state.pushes[0]
    state.pushes[0] += 1
    if par.best_first != 0:
        worth = queue_priority(
            nodes.gain[c], nodes.weight[c], state.total_weight[0], par.best_first
        )
        _heap_push(heap, state, c, -worth, tie)
    else:
        _heap_push(heap, state, c, 0.0, -tie)


@njit(cache=True, linked=True, borrows=True)
def _room(i, sp, par, nodes, groups, state, max_categories):
    """Whether node ``i``'s expansion fits the node arrays, arena and group store; if not,
    what each needs is in ``state.need_*``."""
    nb = n_branches(nodes.attribute[i], sp.data, par)
    ok = True
    if state.n_nodes[0] + nb > nodes.start.shape[0]:
        state.need_nodes[0] = state.n_nodes[0] + nb
        ok = False
    if (
        par.binary == 1
        and max_categories > 0
        and state.groups_used[0] + nb * max_categories > groups.branch.shape[0]
    ):
        state.need_groups[0] = state.groups_used[0] + nb * max_categories
        ok = False
    if par.histogram == 1 and par.best_first == 0 and state.free_slots[0] < nb:
        # Depth-first, the pool grows rather than a child going without its histogram: so
        # whether a child's is derived never depends on how many slots others hold (the
        # subtrees left to threads hold theirs until those start).
        state.need_slots[0] = nb - state.free_slots[0]
        ok = False
    n = nodes.end[i] - nodes.start[i]
    copied = 0 if par.majority == 1 else nodes.n_missing[i]  # entries going down both ways
    need = n + copied * (nb - 1)
    end = nodes.start[i] + need if par.best_first == 0 or copied == 0 else state.arena_top[0] + need
    if end > sp.arena.entry.shape[0]:
        state.need_arena[0] = end
        ok = False
    return ok


@njit(cache=True, linked=True)
def compact(sp, nodes, heap, state):
    """Move the frontier's segments to the bottom of the arena, in address order."""
    h = state.heap_size[0]
    # Doubles hold every arena position exactly; sorting them shares the merge sort the
    # value kernels compile (an int64 copy of it cost a second and a half of the compile).
    starts = np.empty(h)
    for t in range(h):
        starts[t] = nodes.start[heap.node[t]]
    arena = sp.arena
    at = 0
    for t in np.argsort(starts, kind="mergesort"):
        c = heap.node[t]
        s, e = nodes.start[c], nodes.end[c]
        for u in range(e - s):
            arena.entry[at + u] = arena.entry[s + u]
            arena.weight[at + u] = arena.weight[s + u]
        for a in range(arena.order.shape[0]):
            row = arena.order[a]
            for u in range(e - s):
                row[at + u] = row[s + u]
        nodes.start[c], nodes.end[c] = at, at + e - s
        at += e - s
    state.arena_top[0] = at


@njit(cache=True)
def _local_orders(s, n, gsp, lsp, hist, binned):
    """The copy's entries ``0..n-1`` (the global segment ``[s, s + n)``) sorted by each numeric
    attribute, as a stable argsort of the copied values would order them (missing last).

    Exact search has the segment's sorted orders already: they are renumbered through
    each entry's place in the copy. The histogram mode has bin codes, which order the
    values up to ties within a bin: a stable counting sort by code, then each bin's few
    entries sorted by value. Either is several times faster than sorting afresh (numba's
    merge sort of 8,192 values took ~60 ns a value).
    """
    gdata, ldata, larena = gsp.data, lsp.data, lsp.arena
    p = gdata.kind.shape[0]
    stride = ldata.n_entries
    if gsp.arena.order.shape[0] > 0:
        place = gsp.entry_branch  # scratch until the next partition: each entry's place
        for t in range(n):
            place[gsp.arena.entry[s + t]] = t
        far = n >= PREFETCH_LEAST
        for j in range(p):
            a = gdata.numeric_index[j]
            if a >= 0:
                sorted_entries, row = gsp.arena.order[a], larena.order[a]
                for t in range(n):
                    if far and t + PREFETCH_AHEAD < n:
                        prefetch(place, sorted_entries[s + t + PREFETCH_AHEAD])
                    row[t] = place[sorted_entries[s + t]]
        return
    counts = np.zeros(MISSING_CODE + 2, np.int64)
    for j in range(p):
        a = gdata.numeric_index[j]
        if a < 0:
            continue
        values = ldata.values[j * stride : j * stride + n]
        row = larena.order[a]
        if not binned:
            # A writable copy: the read-only view would compile a second merge sort.
            idx = np.argsort(values.copy(), kind="mergesort")
            for t in range(n):
                row[t] = idx[t]
            continue
        counts[:] = 0
        for t in range(n):
            counts[int(hist.codes[gsp.arena.entry[s + t], j]) + 1] += 1
        for b in range(1, counts.shape[0]):  # counts[b]: where code b's entries start
            counts[b] += counts[b - 1]
        for t in range(n):
            code = int(hist.codes[gsp.arena.entry[s + t], j])
            row[counts[code]] = t
            counts[code] += 1
        start = 0
        for code in range(MISSING_CODE):  # missing values stay last, in entry order
            end = counts[code]
            if end - start > 1:
                _sort_run(row, start, end, values)
            start = end


@njit(cache=True, linked=True)
def _sort_run(row, lo, hi, values):
    """Sort ``row[lo:hi]`` (entries in increasing order) stably by ``values[entry]``."""
    if hi - lo <= SORT_RUN_INSERTION:
        for t in range(lo + 1, hi):
            v = row[t]
            x = values[v]
            u = t - 1
            while u >= lo and values[row[u]] > x:
                row[u + 1] = row[u]
                u -= 1
            row[u + 1] = v
        return
    keys = np.empty(hi - lo)
    for t in range(lo, hi):
        keys[t - lo] = values[row[t]]
    idx = np.argsort(keys, kind="mergesort")
    part = row[lo:hi].copy()
    for t in range(hi - lo):
        row[lo + t] = part[idx[t]]


@njit(cache=True, linked=True)
def build_local(c, gsp, lsp, par, lpar, nodes, hist, work, cand, groups, state, max_categories):
    """Grow the whole subtree of small node ``c`` on a private copy of its entries.

    The copy (values, classes, weights, and its own sorted orders) fits in the cache,
    where the deep levels of a big tree otherwise chase rows all over memory. Used
    depth-first without a leaf limit only: then the order in which subtrees are grown
    does not change the tree. Returns the work done, or -1 having changed nothing when
    the private space, node arrays or group store need more room (``state.need_*``) or the
    fit is cancelled (``state.stop``: a whole subtree of 131,072 entries took half a second,
    too long for Cancel to wait for).
    """
    gdata, ldata, larena = gsp.data, lsp.data, lsp.arena
    s, e = nodes.start[c], nodes.end[c]
    n = e - s
    p = gdata.kind.shape[0]
    stride, N = ldata.n_entries, gdata.n_entries
    if state.stop[0] != 0:
        return -1
    if n > larena.entry.shape[0]:
        state.need_local[0] = n
        return -1
    saved = (state.n_nodes[0], state.leaves[0], state.settled[0], state.groups_used[0])
    private = lsp.private_values
    coded = lsp.codes.shape[0] > 1  # attributes counted by value
    entries, values, codes = gsp.arena.entry, gdata.values, gsp.codes
    cls, target, K = gdata.cls, gdata.target, par.n_classes
    far = n >= PREFETCH_LEAST
    for t in range(n):
        if far and t + PREFETCH_AHEAD < n:
            ahead = entries[s + t + PREFETCH_AHEAD]
            prefetch_target(ahead, cls, target, K)
            if coded:
                prefetch(codes, ahead * codes.shape[1])
        ent = entries[s + t]
        larena.entry[t] = t
        larena.weight[t] = gsp.arena.weight[s + t]
        if K > 0:
            ldata.cls[t] = cls[ent]
        else:
            ldata.target[t] = target[ent]
        if coded:
            for j in range(p):
                lsp.codes[t, j] = codes[ent, j]
    # A column at a time, fetched ahead: an entry's values lie in p columns of the whole
    # table, and copied a row at a time the processor had few of those misses in flight
    # (16 columns of 10,000,000 rows: 210 against 90-100 ns an entry, measured alone).
    for j in range(p):
        base, to = j * N, j * stride
        for t in range(n):
            if far and t + PREFETCH_AHEAD < n:
                prefetch(values, base + entries[s + t + PREFETCH_AHEAD])
            private[to + t] = values[base + entries[s + t]]
    _local_orders(s, n, gsp, lsp, hist, par.histogram == 1)
    nodes.start[c], nodes.end[c], nodes.local[c] = 0, n, 0
    done = n * p * 4
    done += evaluate(c, lsp, lpar, nodes, hist, work, cand, groups, state)
    stack = np.empty(64, np.int64)
    top = 0
    if nodes.attribute[c] >= 0:
        stack[0] = c
        top = 1
    else:
        state.settled[0] += nodes.weight[c]
    while top > 0:
        i = stack[top - 1]
        if state.stop[0] != 0 or not _room(i, lsp, lpar, nodes, groups, state, max_categories):
            if state.need_arena[0] > 0:
                state.need_local[0] = state.need_arena[0]
                state.need_arena[0] = 0
            state.n_nodes[0], state.leaves[0], state.settled[0], state.groups_used[0] = saved
            nodes.start[c], nodes.end[c], nodes.local[c], nodes.attribute[c] = s, e, 1, -1
            return -1
        top -= 1
        nb = n_branches(nodes.attribute[i], ldata, lpar)
        state.leaves[0] += nb - 1
        c0 = partition(i, lsp, lpar, nodes, hist, work, groups, state, lpar.best_first == 0)
        done += (nodes.end[i] - nodes.start[i]) * (larena.order.shape[0] + 1)
        for cc in range(c0, c0 + nb):
            done += evaluate(cc, lsp, lpar, nodes, hist, work, cand, groups, state)
        if top + nb > stack.shape[0]:
            bigger = np.empty(2 * stack.shape[0] + nb, np.int64)
            for t in range(top):  # a loop: an array-to-slice assignment compiles numba's
                bigger[t] = stack[t]  # shape-mismatch message, seconds of the compile
            stack = bigger
        for cc in range(c0 + nb - 1, c0 - 1, -1):
            if nodes.attribute[cc] >= 0:
                stack[top] = cc
                top += 1
            else:
                state.settled[0] += nodes.weight[cc]
    _give_slot(hist, state, nodes.slot[c])
    nodes.slot[c] = -1
    return done


@njit(cache=True, linked=True)
def _start(gsp, par, nodes, heap, hist, work, cand, groups, state):
    """The root: its entries are the arena's first ``n`` (described in row 0 by the caller).
    Returns whether the caller's threads are to search it (``split_step``; then its
    ``SPLIT_HEAD``, ``SPLIT_SCAN`` and ``SPLIT_TAIL``, and ``SPLIT_SETTLE`` to queue it)."""
    root = 0
    state.n_nodes[0] = 1
    state.leaves[0] = 1
    state.total_weight[0] = max(nodes.weight[root], 1e-300)
    n = nodes.end[root]
    if par.local >= 1 and n < par.small:
        nodes.local[root] = 1
        _settle_or_push(root, par, nodes, heap, hist, state)
        return False
    threads = par.split_least > 0 and n >= par.split_least
    if par.histogram == 1:
        slot = _take_slot(hist, state)
        if slot >= 0 and not threads:  # else counted by the caller's threads
            _build_hist(hist, slot, gsp, nodes.start[root], n, par.n_classes)
        nodes.slot[root] = slot
    if threads:
        return True
    evaluate(root, gsp, par, nodes, hist, work, cand, groups, state)
    _settle_or_push(root, par, nodes, heap, hist, state)
    return False


@njit(cache=True, nogil=True)  # the GUI thread keeps running during a chunk
def run(
    budget,
    step,
    gsp_t,
    lsp_t,
    par,
    lpar,
    nodes_t,
    heap_t,
    hist_t,
    work_t,
    cand_t,
    groups_t,
    state_t,
):
    """Expand nodes until the frontier is empty (``DONE``), the work budget is spent or, with
    ``step``, one node was expanded (``PAUSED``), or an array needs more room (``NEEDS_ROOM``:
    ``state.need_*`` says which; call again once enlarged)."""
    # The kernels below get each group by reference (engine.fast.compile.refs).
    gsp, lsp, nodes, heap = as_ref(gsp_t), as_ref(lsp_t), as_ref(nodes_t), as_ref(heap_t)
    hist, work, cand = as_ref(hist_t), as_ref(work_t), as_ref(cand_t)
    groups, state = as_ref(groups_t), as_ref(state_t)
    data = gsp.data
    max_categories = 0  # the most categories of a nominal attribute (0: none)
    spills = False  # partitions may copy entries past their segments (threads.spills)
    for j in range(data.kind.shape[0]):
        if data.kind[j] == NOMINAL and data.n_categories[j] > max_categories:
            max_categories = data.n_categories[j]
        spills = spills or data.has_missing[j]
    spills = spills and par.majority == 0
    state.need_nodes[0], state.need_arena[0] = 0, 0
    state.need_local[0], state.need_groups[0], state.need_slots[0] = 0, 0, 0
    if state.n_nodes[0] == 0:
        if _start(gsp, par, nodes, heap, hist, work, cand, groups, state):
            return SPLIT_ROOT
        return PAUSED
    done = 0
    while state.heap_size[0] > 0:
        if done >= budget:
            return PAUSED
        i = heap.node[0]
        if (nodes.local[i] == 1 or nodes.local[i] == SHARED) and par.local == DEFER_LOCAL:
            # Grown by the caller's threads. With missing values sent down both branches its
            # segment moves to the local space's arena, past those deferred before: in the
            # arena, a later partition's copies of those entries may overrun segments at
            # higher addresses (depth-first, those are done). Else nothing overruns it
            # and the threads read it where it is (in the histogram mode while the top
            # still grows: beside, never over it). A shared node keeps its histogram's slot.
            if not spills:
                nodes.local[i] = DEFERRED
                _heap_pop(heap, state)
                continue
            s, e = nodes.start[i], nodes.end[i]
            top = state.deferred_top[0]
            side = lsp.arena
            if top + e - s > side.entry.shape[0]:
                state.need_local[0] = top + e - s
                return NEEDS_ROOM
            for u in range(e - s):
                side.entry[top + u] = gsp.arena.entry[s + u]
                side.weight[top + u] = gsp.arena.weight[s + u]
            for a in range(gsp.arena.order.shape[0]):
                for u in range(e - s):  # a loop, as in build_local's stack
                    side.order[a, top + u] = gsp.arena.order[a, s + u]
            nodes.start[i], nodes.end[i] = top, top + e - s
            state.deferred_top[0] = top + e - s
            nodes.local[i] = DEFERRED
            _heap_pop(heap, state)
            continue
        if nodes.local[i] == 1:  # a small subtree, grown whole
            # Room asked for before starting (a build that runs out starts again from scratch
            # once given more): a node per entry, or as many as the levels left can hold.
            # Not more: a late enlargement holds the node arrays twice at its copy.
            want = nodes.end[i] - nodes.start[i]
            if par.max_depth >= 0:
                want = min(want, 1 << min(max(par.max_depth - nodes.depth[i] + 1, 0), 40))
            want += state.n_nodes[0] + 2
            if want > nodes.start.shape[0]:
                state.need_nodes[0] = want
                return NEEDS_ROOM
            got = build_local(
                i, gsp, lsp, par, lpar, nodes, hist, work, cand, groups, state, max_categories
            )
            if got < 0:
                return NEEDS_ROOM
            _heap_pop(heap, state)
            done += got
            continue
        if not _room(i, gsp, par, nodes, groups, state, max_categories):
            if par.best_first != 0 and state.need_arena[0] > 0:
                compact(gsp, nodes, heap, state)
                state.need_arena[0] = 0
                if _room(i, gsp, par, nodes, groups, state, max_categories):
                    continue
            return NEEDS_ROOM
        if par.split_least > 0 and nodes.end[i] - nodes.start[i] >= par.split_least:
            return SPLIT_BIG  # split by the caller's threads (split_step), then resumed
        i = _heap_pop(heap, state)
        nb = n_branches(nodes.attribute[i], data, par)
        if par.max_leaves >= 0 and state.leaves[0] + nb - 1 > par.max_leaves:
            nodes.attribute[i] = -1
            state.settled[0] += nodes.weight[i]
            _give_slot(hist, state, nodes.slot[i])
            nodes.slot[i] = -1
            continue
        state.leaves[0] += nb - 1
        c0 = partition(i, gsp, par, nodes, hist, work, groups, state, par.best_first == 0)
        done += (nodes.end[i] - nodes.start[i]) * (gsp.arena.order.shape[0] + 1)
        for c in range(c0, c0 + nb):
            if _searched(c, par, nodes, work):
                done += evaluate(c, gsp, par, nodes, hist, work, cand, groups, state)
                _mark_shared(c, par, nodes)
        _push_children(i, c0, nb, par, nodes, heap, hist, state)
        if step:
            return PAUSED
    return DONE


@njit(cache=True, linked=True, borrows=True)
def _mark_shared(c, par, nodes):
    """A searched node small enough is left, histogram and all, to the caller's threads."""
    if par.share > 0 and nodes.attribute[c] >= 0 and nodes.end[c] - nodes.start[c] < par.share:
        nodes.local[c] = SHARED


@njit(cache=True, linked=True, borrows=True)
def _searched(c, par, nodes, work):
    """Whether a new child ``c`` is searched now: not one whose subtree will be grown whole
    (then marked so)."""
    if (
        par.local >= 1
        and 0 < nodes.end[c] - nodes.start[c] < par.small
        and not stops(c, par, nodes, work.tmp)
    ):  # (a leaf's orders may be stale)
        nodes.local[c] = 1
        return False
    return True


@njit(cache=True, linked=True, borrows=True)
def _push_children(i, c0, nb, par, nodes, heap, hist, state):
    """Node ``i``'s children, searched, onto the frontier (depth-first, the first on top)."""
    if par.best_first != 0:
        for c in range(c0, c0 + nb):
            _settle_or_push(c, par, nodes, heap, hist, state)
    else:
        for c in range(c0 + nb - 1, c0 - 1, -1):
            _settle_or_push(c, par, nodes, heap, hist, state)
    state.last_expanded[0] = i


@njit(cache=True, nogil=True)
def split_step(
    phase, i, lo, hi, gsp_t, par, nodes_t, heap_t, hist_t, work_t, cand_t, groups_t, state_t, buf
):
    """One step of splitting the big node ``run`` returned ``SPLIT_BIG`` for, the node on top
    of the frontier, as :func:`run` splits a node, in phases some of which several threads run
    at once, each over its own range ``[lo, hi)`` of attributes or sorted orders with its own
    ``work`` and ``buf`` (engine.fast.threads.split_big). Returns:

    SPLIT_MARK: node ``i``'s entries ``lo`` to ``hi - 1`` (from its start) marked with their
        branches, how many go down each in ``work.counts``; returns how many miss the value.
    SPLIT_ENTRIES: the node taken off the frontier and its entries split among its children,
        whose first row it returns; -1 - that row if no child will be searched (then no order
        is distributed). ``lo`` > 0: the entries are marked, ``lo - 1`` of them missing the
        value, and ``work.counts`` holds the branches' counts; ``hi`` 1: they are moved too,
        their segments left in the buffers for ``SPLIT_CHILD`` (the first row returned).
    SPLIT_MOVE: node ``i``'s entries ``lo`` to ``hi - 1`` moved into the buffers, the second
        branch's from ``work.offsets[0]`` on, the first's from ``work.offsets[1]`` on (each
        to ``work.offsets[2]``, ``work.offsets[3]``).
    SPLIT_CHILD: node ``i``'s children ``lo`` to ``hi - 1`` (moved) copied back and summed
        (:func:`_child_sums`); returns how many of them will be searched.
    SPLIT_ORDERS: the sorted orders ``lo`` to ``hi - 1`` of node ``i`` distributed.
    SPLIT_HISTS: the histogram mode's children's histograms planned (slots taken): returns
        the child whose histogram is derived, or -1.
    SPLIT_COUNT: blocks ``lo`` to ``hi - 1`` of node ``i``'s entries counted.
    SPLIT_SUM: node ``i``'s histogram made (of its blocks, if counted so).
    SPLIT_SUM_ATTRIBUTES: attributes ``lo`` to ``hi - 1`` of the histogram of node ``i``, of
        fewer than two blocks' entries, counted.
    SPLIT_HISTS_END: node ``i``'s children's histograms finished, ``lo`` the derived child.
    SPLIT_CODED: blocks ``lo`` to ``hi - 1`` of node ``i``'s entries counted by the codes of
        exact search's attributes of few values.
    SPLIT_HEAD: 1 if child ``i`` is to be searched (its search begun), else 0; ``lo`` 1: its
        blocks are counted (``SPLIT_CODED``).
    SPLIT_SCAN: child ``i``'s attributes ``lo`` to ``hi - 1`` searched.
    SPLIT_TAIL: child ``i``'s choice made.
    SPLIT_PUSH: node ``i``'s children onto the frontier.
    SPLIT_SETTLE: the root, searched, onto the frontier (or settled a leaf).
    """
    gsp, nodes, heap = as_ref(gsp_t), as_ref(nodes_t), as_ref(heap_t)
    hist, work, cand = as_ref(hist_t), as_ref(work_t), as_ref(cand_t)
    groups, state = as_ref(groups_t), as_ref(state_t)
    if phase == SPLIT_ENTRIES:
        i = _heap_pop(heap, state)
        state.leaves[0] += n_branches(nodes.attribute[i], gsp.data, par) - 1
        c0, leaves = _partition_entries(
            i, gsp, par, nodes, hist, work, groups, state, True, lo - 1, hi == 1
        )
        return -1 - c0 if leaves else c0
    if phase == SPLIT_MARK:
        s = nodes.start[i]
        return _mark_entries(i, gsp, par, nodes, hist, groups, s + lo, s + hi, work.counts)
    if phase == SPLIT_MOVE:
        o = work.offsets
        _move_entries(i, gsp, nodes, lo, hi, o[0], o[1], o[2], o[3])
        return 0
    if phase == SPLIT_CHILD:
        searched = 0
        for c in range(nodes.child0[i] + lo, nodes.child0[i] + hi):
            if not _child_sums(c, nodes.start[i], gsp, par, nodes, work.tmp, True):
                searched += 1
        return searched
    if phase == SPLIT_ORDERS:
        partition_orders(i, gsp, nodes, work, buf, lo, hi)
    elif phase == SPLIT_HISTS:
        return _hists_plan(i, nodes.child0[i], nodes.n_children[i], par, nodes, hist, state)
    elif phase == SPLIT_COUNT:
        _count_blocks(i, lo, hi, hist, gsp, nodes, par.n_classes)
    elif phase == SPLIT_CODED:
        _count_coded_blocks(i, lo, hi, gsp, par, nodes, hist)
    elif phase == SPLIT_SUM:
        _sum_blocks(i, hist, gsp, nodes, par.n_classes)
    elif phase == SPLIT_SUM_ATTRIBUTES:
        _count_attributes(i, lo, hi, hist, gsp, nodes, par.n_classes)
    elif phase == SPLIT_HISTS_END:
        _hists_end(i, nodes.child0[i], nodes.n_children[i], lo, par, nodes, hist, state)
    elif phase == SPLIT_HEAD:
        if not _searched(i, par, nodes, work):
            return 0
        if _evaluate_head(i, gsp, par, nodes, hist, work, cand, state, lo == 1) < 0:
            return 0
        return 1
    elif phase == SPLIT_SCAN:
        _mark_used(i, nodes, gsp.data, par, work.used)
        scan_attributes(i, gsp, par, nodes, hist, work, cand, lo, hi)
    elif phase == SPLIT_TAIL:
        _evaluate_tail(i, gsp, par, nodes, hist, work, cand, groups, state, 0)
        _mark_shared(i, par, nodes)
    elif phase == SPLIT_PUSH:
        _push_children(i, nodes.child0[i], nodes.n_children[i], par, nodes, heap, hist, state)
    elif phase == SPLIT_SETTLE:
        _settle_or_push(i, par, nodes, heap, hist, state)
    return 0
