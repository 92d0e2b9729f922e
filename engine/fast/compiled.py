"""The growth loop of :mod:`engine.learn.growth`, compiled, for large data without missing values.

:func:`run` performs :func:`engine.learn.growth.expansions` step for step: the same
stopping rules, the same scorers (:mod:`engine.fast.sweeps`), the same choice
among attributes, depth-first (a LIFO stack) or best-first (a heap keyed on
priority then insertion order). It returns after a budget of work so that the
Python side can call ``monitor.check()``/``report()`` between chunks (a
million-row fit stays cancellable within a fraction of a second), and when the
node arrays are full so they can be enlarged.

Each node owns a segment ``[start, end)`` of ``members`` (its training entries
in input order, which is the order numpy's bincount sums them in) and, in the
exact mode, of every row of ``order`` (the entries sorted by one numeric
attribute, sorted once at the root). Splitting a node partitions those segments
stably, so every child's segment is again in input order and in sorted order
without sorting anything again. The histogram mode keeps ``members`` only and
scores numeric attributes over binned codes (per-node histograms, the largest
child's by subtraction from its parent's).

Depth-first without a leaf limit, a node below ``P_SMALL`` rows is grown whole by
:func:`build_local` on a private copy of its rows (values, classes, weights, and
orders sorted for it): deep levels of a big tree then stay in the cache instead of
chasing rows across memory, and in the histogram mode they are searched exactly.

``X`` is the encoded table flattened column by column (attribute ``j`` of row ``r``
is ``X[j * nrows + r]``), so its type never depends on the table's shape.

Node arrays (one row per node): ``NI`` integers, ``NF`` floats, ``NS`` the
node's statistics (class weights, or weight / sum / sum of squares).
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import impurity, njit, pairwise_sum, size_of
from engine.fast.sweeps import (
    A_CUT,
    A_F0,
    A_F1,
    A_GAIN,
    A_RATIO,
    A_THR,
    A_VALID,
    P_BEST,
    P_BINARY,
    P_CODE,
    P_HIST,
    P_K,
    P_LOCAL,
    P_MAXDEPTH,
    P_MAXLEAVES,
    P_NROWS,
    P_S,
    P_SMALL,
    P_UNIT,
    _add_entry,
    _copy,
    choose,
    scan_items,
    scan_sorted,
    score_table,
)
from engine.learn.tolerances import WEKA_EPS

# NI columns
START, END, DEPTH, PARENT, CHILD0, NCHILD, ATTR, CUTBIN, USED, SLOT, LOCAL = range(11)
NI_WIDTH = 11
# NF columns
WEIGHT, THRESHOLD, GAIN, RATIO, F0, F1, FRACTION = range(7)
NF_WIDTH = 7
# FP (float parameters)
F_MSS, F_MSL, F_MINGAIN = range(3)
# ST (integer state)
S_NODES, S_HEAP, S_LEAVES, S_COUNTER, S_FREE, S_DONE = range(6)


@njit(cache=True)
def preorder(child0, nchild):
    """Node rows in pre-order: a node, then its children's subtrees in branch order."""
    n = child0.shape[0]
    out = np.empty(n, np.int64)
    stack = np.empty(n + 1, np.int64)
    stack[0], top, k = 0, 1, 0
    while top:
        top -= 1
        i = stack[top]
        out[k] = i
        k += 1
        for c in range(child0[i] + nchild[i] - 1, child0[i] - 1, -1):
            stack[top] = c
            top += 1
    return out


@njit(cache=True)
def _subtract(H, G):
    for j in range(H.shape[0]):
        for b in range(H.shape[1]):
            for k in range(H.shape[2]):
                H[j, b, k] -= G[j, b, k]


@njit(cache=True)
def _is_pure(stats, K, imp, tmp):
    if K == 0:
        return imp <= 2.220446049250313e-16
    total = size_of(stats, K, tmp)
    top = stats[0]
    for k in range(1, K):
        if stats[k] > top:
            top = stats[k]
    return total <= 0 or top >= total - WEKA_EPS * max(total, 1.0)


@njit(cache=True)
def _heap_push(HN, HK, HT, ST, node, key, tie):
    i = ST[S_HEAP]
    ST[S_HEAP] += 1
    while i > 0:
        parent = (i - 1) // 2
        if HK[parent] < key or (HK[parent] == key and HT[parent] < tie):
            break
        HN[i], HK[i], HT[i] = HN[parent], HK[parent], HT[parent]
        i = parent
    HN[i], HK[i], HT[i] = node, key, tie


@njit(cache=True)
def _heap_pop(HN, HK, HT, ST):
    top = HN[0]
    ST[S_HEAP] -= 1
    size = ST[S_HEAP]
    if size == 0:
        return top
    node, key, tie = HN[size], HK[size], HT[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (HK[c + 1] < HK[c] or (HK[c + 1] == HK[c] and HT[c + 1] < HT[c])):
            c += 1
        if key < HK[c] or (key == HK[c] and tie < HT[c]):
            break
        HN[i], HK[i], HT[i] = HN[c], HK[c], HT[c]
        i = c
    HN[i], HK[i], HT[i] = node, key, tie
    return top


@njit(cache=True)
def _hist_build(HP, slot, codes, members, s, e, w, ycls, yval, K, p):
    """Histogram of the entries ``members[s:e]`` into pool slot ``slot``: [attribute, bin, stat]."""
    H = HP[slot]
    H[:] = 0.0
    if K == 0:
        for t in range(s, e):
            ent = members[t]
            wy = w[ent] * yval[ent]
            wyy = wy * yval[ent]
            for j in range(p):
                c = codes[ent, j]
                H[j, c, 0] += w[ent]
                H[j, c, 1] += wy
                H[j, c, 2] += wyy
        return
    for t in range(s, e):
        ent = members[t]
        k, v = ycls[ent], w[ent]
        for j in range(p):
            H[j, codes[ent, j], k] += v


@njit(cache=True)
def _take_slot(FREE, ST):
    if ST[S_FREE] == 0:
        return -1
    ST[S_FREE] -= 1
    return FREE[ST[S_FREE]]


@njit(cache=True)
def _give_slot(FREE, ST, slot):
    if slot >= 0:
        FREE[ST[S_FREE]] = slot
        ST[S_FREE] += 1


@njit(cache=True)
def evaluate(i, X, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP, FP, NI, NF, NS,
             order, members, codes, nbins, binlo, binhi, HP, AR, total, left, right,
             best_left, tmp, sizes, tmp2, parent, gains, cuts, table, item_bin, item_stats,
             vbuf, item_val, flog):
    """``growth.evaluate``: set the node's candidate (ATTR >= 0) or leave it a leaf (-1).

    Returns the work done (entries times attributes looked at).
    """
    NI[i, ATTR] = -1
    K, code, nrows = IP[P_K], IP[P_CODE], IP[P_NROWS]
    weight = NF[i, WEIGHT]
    stats = NS[i]
    imp = impurity(stats, K, code, tmp)
    depth = NI[i, DEPTH]
    if (_is_pure(stats, K, imp, tmp) or weight < FP[F_MSS]
            or (IP[P_MAXDEPTH] >= 0 and depth >= IP[P_MAXDEPTH]) or weight < 2 * FP[F_MSL]):
        return 1
    s, e = NI[i, START], NI[i, END]
    n = e - s
    p = kind.shape[0]
    hist = IP[P_HIST] == 1
    slot = NI[i, SLOT]
    used = NI[i, USED]
    msl = FP[F_MSL]
    work = 0
    if hist and slot < 0 and n >= IP[P_SMALL]:  # no slot was free: the spare one, for now
        _hist_build(HP, HP.shape[0] - 1, codes, members, s, e, w, ycls, yval, K, p)
        work += n * p
    for j in range(p):
        AR[j, A_VALID] = 0.0
        if kind[j] == 1 and (used >> j) & 1:
            continue
        if kind[j] == 1:  # nominal: one branch per category
            V = ncat[j]
            if hist and slot >= 0:
                tab = HP[slot, j, :V]
                work += V
            else:
                tab = table[:V]
                tab[:] = 0.0
                for t in range(s, e):
                    ent = members[t]
                    c = int(X[j * nrows + row_of[ent]]) if not hist else codes[ent, j]
                    _add_entry(tab[c], ent, w, ycls, yval, K)
                work += n
            score_table(tab, V, IP, msl, weight, parent, tmp, sizes, tmp2, AR[j])
        elif not hist:
            seg = order[numidx[j], s:e]
            scan_sorted(X[j * nrows:(j + 1) * nrows], row_of, w, ycls, yval, seg, n, IP, msl,
                        weight, stats, total, left,
                        right, best_left, tmp, sizes, gains, cuts, flog, AR[j])
            work += n
        else:
            L = 0
            if n >= IP[P_SMALL]:  # a big node: its histogram's non-empty bins
                H = HP[slot, j] if slot >= 0 else HP[HP.shape[0] - 1, j]
                for b in range(nbins[j]):
                    if size_of(H[b], K, tmp) > 0:
                        item_bin[L] = b
                        _copy(item_stats[L], H[b])
                        L += 1
                work += nbins[j]
                scan_items(item_bin, item_stats, L, binlo[j], binhi[j], n, IP, msl, weight,
                           total, left, right, best_left, tmp, sizes, gains, cuts, flog, AR[j])
            else:  # a small node: its own values, sorted (exact, and cheaper than every bin)
                for t in range(n):
                    vbuf[t] = X[j * nrows + row_of[members[s + t]]]
                idx = np.argsort(vbuf[:n], kind="mergesort")
                for t in range(n):
                    v = vbuf[idx[t]]
                    if L == 0 or v != item_val[L - 1]:
                        item_val[L] = v
                        item_bin[L] = L
                        for k in range(item_stats.shape[1]):
                            item_stats[L, k] = 0.0
                        L += 1
                    _add_entry(item_stats[L - 1], members[s + idx[t]], w, ycls, yval, K)
                work += n
                scan_items(item_bin, item_stats, L, item_val, item_val, n, IP, msl, weight,
                           total, left, right, best_left, tmp, sizes, gains, cuts, flog, AR[j])
                AR[j, A_CUT] = -1.0  # route by threshold
    best = choose(AR, p, IP, counted)
    if best < 0:
        return work + 1
    g = AR[best, A_GAIN]
    if IP[P_BINARY] == 1:
        if g + 1e-12 < FP[F_MINGAIN]:
            return work + 1
    elif g - FP[F_MINGAIN] <= WEKA_EPS:
        return work + 1
    NI[i, ATTR] = best
    NI[i, CUTBIN] = int(AR[best, A_CUT])
    NF[i, THRESHOLD] = AR[best, A_THR]
    NF[i, GAIN] = g
    NF[i, RATIO] = AR[best, A_RATIO]
    NF[i, F0] = AR[best, A_F0]
    NF[i, F1] = AR[best, A_F1]
    return work + 1


@njit(cache=True)
def _stable_partition(arr, s, e, branch, offsets, nb, scratch):
    """Reorder ``arr[s:e]`` by branch, keeping the order within each branch."""
    if nb == 2:
        wl, wr = s, 0
        for t in range(s, e):
            v = arr[t]
            if branch[v] == 0:
                arr[wl] = v
                wl += 1
            else:
                scratch[wr] = v
                wr += 1
        for t in range(wr):
            arr[wl + t] = scratch[t]
        return
    pos = offsets[nb:2 * nb]  # the second half of ``offsets`` is scratch
    for b in range(nb):
        pos[b] = offsets[b]
    for t in range(s, e):
        v = arr[t]
        b = branch[v]
        scratch[pos[b] - s] = v
        pos[b] += 1
    for t in range(e - s):
        arr[s + t] = scratch[t]


@njit(cache=True)
def partition(i, X, row_of, w, ycls, yval, kind, ncat, IP, NI, NF, NS, order, members, codes,
              branch, scratch, offsets, counts, fbuf, tmp, sizes, HP, FREE, ST):
    """``growth.partition`` plus ``make_draft`` for every branch; returns the first child's id."""
    s, e = NI[i, START], NI[i, END]
    j = NI[i, ATTR]
    K, nrows = IP[P_K], IP[P_NROWS]
    hist = IP[P_HIST] == 1
    numeric = kind[j] == 0
    nb = 2 if numeric else ncat[j]
    thr, cut = NF[i, THRESHOLD], NI[i, CUTBIN]
    counts[:nb] = 0
    for t in range(s, e):
        ent = members[t]
        if hist:
            if numeric and cut < 0:
                b = 0 if X[j * nrows + row_of[ent]] <= thr else 1
            else:
                c = codes[ent, j]
                b = (0 if c <= cut else 1) if numeric else c
        else:
            x = X[j * nrows + row_of[ent]]
            b = (0 if x <= thr else 1) if numeric else int(x)
        branch[ent] = b
        counts[b] += 1
    c0 = ST[S_NODES]
    ST[S_NODES] += nb
    at = s
    used = NI[i, USED] if numeric else NI[i, USED] | (1 << j)
    for b in range(nb):
        c = c0 + b
        offsets[b] = at
        NI[c, START], NI[c, END] = at, at + counts[b]
        NI[c, DEPTH], NI[c, PARENT] = NI[i, DEPTH] + 1, i
        NI[c, CHILD0], NI[c, NCHILD], NI[c, ATTR], NI[c, USED], NI[c, SLOT] = -1, 0, -1, used, -1
        NI[c, LOCAL] = 0
        NS[c] = 0.0
        at += counts[b]
    for t in range(s, e):
        ent = members[t]
        _add_entry(NS[c0 + branch[ent]], ent, w, ycls, yval, K)
    _stable_partition(members, s, e, branch, offsets, nb, scratch)
    for a in range(order.shape[0]):
        _stable_partition(order[a], s, e, branch, offsets, nb, scratch)
    for b in range(nb):
        c = c0 + b
        if IP[P_UNIT] == 1:
            NF[c, WEIGHT] = float(counts[b])
        else:
            for t in range(NI[c, START], NI[c, END]):
                fbuf[t - NI[c, START]] = w[members[t]]
            NF[c, WEIGHT] = pairwise_sum(fbuf, 0, counts[b])
    if numeric:
        NF[c0, FRACTION], NF[c0 + 1, FRACTION] = NF[i, F0], NF[i, F1]
    else:
        for b in range(nb):
            sizes[b] = size_of(NS[c0 + b], K, tmp)
        known_w = size_of(sizes, nb, tmp)
        for b in range(nb):
            NF[c0 + b, FRACTION] = sizes[b] / known_w
    NI[i, CHILD0], NI[i, NCHILD] = c0, nb
    if hist:
        _children_hists(i, c0, nb, codes, members, w, ycls, yval, K, IP, NI, HP, FREE, ST)
    return c0


@njit(cache=True)
def _children_hists(i, c0, nb, codes, members, w, ycls, yval, K, IP, NI, HP, FREE, ST):
    """Histograms for the children big enough to be scored by bins; the largest by subtraction."""
    p = codes.shape[1]
    small = IP[P_SMALL]
    pslot = NI[i, SLOT]
    big = c0
    for c in range(c0, c0 + nb):
        if NI[c, END] - NI[c, START] > NI[big, END] - NI[big, START]:
            big = c
    derive = pslot >= 0 and NI[big, END] - NI[big, START] >= small
    for c in range(c0, c0 + nb):
        n = NI[c, END] - NI[c, START]
        if n < small and not (derive and n > 0):
            continue
        if c == big and derive:
            continue
        slot = _take_slot(FREE, ST)
        if slot < 0:
            derive = False
            continue
        _hist_build(HP, slot, codes, members, NI[c, START], NI[c, END], w, ycls, yval, K, p)
        NI[c, SLOT] = slot
        if derive:
            _subtract(HP[pslot], HP[slot])
    if derive:  # the parent's histogram minus its other children's is the largest child's
        NI[big, SLOT] = pslot
        NI[i, SLOT] = -1
    for c in range(c0, c0 + nb):
        if NI[c, END] - NI[c, START] < small:
            _give_slot(FREE, ST, NI[c, SLOT])
            NI[c, SLOT] = -1
    _give_slot(FREE, ST, NI[i, SLOT])
    NI[i, SLOT] = -1


@njit(cache=True)
def _settle_or_push(c, NI, NF, IP, HN, HK, HT, ST, STF, FREE):
    """``expansions.push``: a leaf adds its weight to the settled total, a candidate is queued
    (and so is a small node whose subtree will be built in one go)."""
    if NI[c, ATTR] < 0 and NI[c, LOCAL] == 0:
        STF[0] += NF[c, WEIGHT]
        _give_slot(FREE, ST, NI[c, SLOT])
        NI[c, SLOT] = -1
        return
    tie = ST[S_COUNTER]
    ST[S_COUNTER] += 1
    if IP[P_BEST] == 1:
        _heap_push(HN, HK, HT, ST, c, -(NF[c, GAIN] * NF[c, WEIGHT] / STF[1]), tie)
    else:
        _heap_push(HN, HK, HT, ST, c, 0.0, -tie)


@njit(cache=True)
def build_local(c, X, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP, FP, NI, NF, NS,
                members, codes, nbins, binlo, binhi, HP, FREE, ST, STF, AR, vecs, table,
                item_bin, item_stats, offsets, counts, flog, vbuf, item_val, LX, Lrow, Lw, Lyc,
                Lyv, Lorder, Lmembers, Lbranch, Lscratch, Lstack, IPloc, Lnumidx, Lfbuf, Libuf):
    """Grow the whole subtree of small node ``c`` on a private copy of its rows.

    The copy (values, classes, weights, and its own sorted orders) fits in the cache,
    where the deep levels of a big tree otherwise chase rows all over memory. Used
    depth-first without a leaf limit only: then the order in which subtrees are grown
    does not change the tree. Returns the work done.
    """
    S = IP[P_S]
    total, left, right, best_left = vecs[0, :S], vecs[1, :S], vecs[2, :S], vecs[3, :S]
    tmp, sizes, tmp2, parent = vecs[4], vecs[5], vecs[6], vecs[7]
    s, e = NI[c, START], NI[c, END]
    n = e - s
    p = kind.shape[0]
    K, nrows, stride = IP[P_K], IP[P_NROWS], IPloc[P_NROWS]
    for t in range(n):
        ent = members[s + t]
        r = row_of[ent]
        Lw[t] = w[ent]
        if K == 0:
            Lyv[t] = yval[ent]
        else:
            Lyc[t] = ycls[ent]
        for j in range(p):
            LX[j * stride + t] = X[j * nrows + r]
        Lmembers[t] = t
    for j in range(p):
        if Lnumidx[j] >= 0:
            idx = np.argsort(LX[j * stride:j * stride + n], kind="mergesort")
            row = Lorder[Lnumidx[j]]
            for t in range(n):
                row[t] = idx[t]
    NI[c, START], NI[c, END], NI[c, LOCAL] = 0, n, 0
    _give_slot(FREE, ST, NI[c, SLOT])
    NI[c, SLOT] = -1
    work = n * p * 4
    work += evaluate(c, LX, Lrow, Lw, Lyc, Lyv, kind, ncat, Lnumidx, counted, IPloc, FP, NI, NF,
                     NS, Lorder, Lmembers, codes, nbins, binlo, binhi, HP, AR, total, left,
                     right, best_left, tmp, sizes, tmp2, parent, Lfbuf, Libuf, table, item_bin,
                     item_stats, vbuf, item_val, flog)
    top = 0
    if NI[c, ATTR] >= 0:
        Lstack[0] = c
        top = 1
    else:
        STF[0] += NF[c, WEIGHT]
    while top > 0:
        top -= 1
        i = Lstack[top]
        j = NI[i, ATTR]
        nb = 2 if kind[j] == 0 else ncat[j]
        ST[S_LEAVES] += nb - 1
        c0 = partition(i, LX, Lrow, Lw, Lyc, Lyv, kind, ncat, IPloc, NI, NF, NS, Lorder,
                       Lmembers, codes, Lbranch, Lscratch, offsets, counts, Lfbuf, tmp, sizes,
                       HP, FREE, ST)
        work += (NI[i, END] - NI[i, START]) * (Lorder.shape[0] + 1)
        for cc in range(c0, c0 + nb):
            work += evaluate(cc, LX, Lrow, Lw, Lyc, Lyv, kind, ncat, Lnumidx, counted, IPloc,
                             FP, NI, NF, NS, Lorder, Lmembers, codes, nbins, binlo, binhi, HP,
                             AR, total, left, right, best_left, tmp, sizes, tmp2, parent, Lfbuf,
                             Libuf, table, item_bin, item_stats, vbuf, item_val, flog)
        for cc in range(c0 + nb - 1, c0 - 1, -1):
            if NI[cc, ATTR] >= 0:
                Lstack[top] = cc
                top += 1
            else:
                STF[0] += NF[cc, WEIGHT]
    return work


@njit(cache=True, nogil=True)  # the GUI thread keeps running during a chunk
def run(budget, X, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP, FP, NI, NF, NS,
        order, members, codes, nbins, binlo, binhi, HP, FREE, HN, HK, HT, ST, STF, branch,
        scratch, fbuf, ibuf, vbuf, item_val, AR, vecs, table, item_bin, item_stats, offsets,
        counts, flog, LX, Lrow, Lw, Lyc, Lyv, Lorder, Lmembers, Lbranch, Lscratch, Lstack, IPloc,
        Lnumidx, Lfbuf, Libuf):
    """Expand nodes until the frontier is empty (returns 0), the work budget is spent (1),
    or the node arrays might not hold the next node's children (2)."""
    S = IP[P_S]
    total, left, right, best_left = vecs[0, :S], vecs[1, :S], vecs[2, :S], vecs[3, :S]
    tmp, sizes, tmp2, parent = vecs[4], vecs[5], vecs[6], vecs[7]
    capacity = NI.shape[0]
    max_branches = 2
    for j in range(kind.shape[0]):
        if kind[j] == 1 and ncat[j] > max_branches:
            max_branches = ncat[j]
    local = IP[P_LOCAL] == 1
    small = IP[P_SMALL]
    if ST[S_NODES] == 0:  # the root: entries 0..m-1, already described in row 0 by the caller
        ST[S_NODES] = 1
        STF[1] = max(NF[0, WEIGHT], 1e-300)
        if local and members.shape[0] < small:
            NI[0, LOCAL] = 1
            _settle_or_push(0, NI, NF, IP, HN, HK, HT, ST, STF, FREE)
            return 1
        if IP[P_HIST] == 1:
            slot = _take_slot(FREE, ST)
            if slot >= 0:
                _hist_build(HP, slot, codes, members, 0, members.shape[0], w, ycls, yval,
                            IP[P_K], codes.shape[1])
            NI[0, SLOT] = slot
        evaluate(0, X, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP, FP, NI, NF, NS,
                 order, members, codes, nbins, binlo, binhi, HP, AR, total, left, right,
                 best_left, tmp, sizes, tmp2, parent, fbuf, ibuf, table, item_bin, item_stats,
                 vbuf, item_val, flog)
        _settle_or_push(0, NI, NF, IP, HN, HK, HT, ST, STF, FREE)
        return 1
    work = 0
    while ST[S_HEAP] > 0:
        if work >= budget:
            return 1
        if ST[S_NODES] + max_branches > capacity:
            return 2
        if NI[HN[0], LOCAL] == 1:  # a small subtree, grown whole
            if ST[S_NODES] + (NI[HN[0], END] - NI[HN[0], START]) * max_branches + 2 > capacity:
                return 2
            i = _heap_pop(HN, HK, HT, ST)
            work += build_local(i, X, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP, FP,
                                NI, NF, NS, members, codes, nbins, binlo, binhi, HP, FREE, ST,
                                STF, AR, vecs, table, item_bin, item_stats, offsets, counts, flog,
                                vbuf, item_val, LX, Lrow, Lw, Lyc, Lyv, Lorder, Lmembers,
                                Lbranch, Lscratch, Lstack, IPloc, Lnumidx, Lfbuf, Libuf)
            continue
        i = _heap_pop(HN, HK, HT, ST)
        j = NI[i, ATTR]
        nb = 2 if kind[j] == 0 else ncat[j]
        if IP[P_MAXLEAVES] >= 0 and ST[S_LEAVES] + nb - 1 > IP[P_MAXLEAVES]:
            NI[i, ATTR] = -1
            STF[0] += NF[i, WEIGHT]
            _give_slot(FREE, ST, NI[i, SLOT])
            NI[i, SLOT] = -1
            continue
        ST[S_LEAVES] += nb - 1
        c0 = partition(i, X, row_of, w, ycls, yval, kind, ncat, IP, NI, NF, NS, order, members,
                       codes, branch, scratch, offsets, counts, fbuf, tmp, sizes, HP, FREE, ST)
        n = NI[i, END] - NI[i, START]
        work += n * (order.shape[0] + 1)
        for c in range(c0, c0 + nb):
            if local and 0 < NI[c, END] - NI[c, START] < small:
                NI[c, LOCAL] = 1
                continue
            work += evaluate(c, X, row_of, w, ycls, yval, kind, ncat, numidx, counted, IP, FP,
                             NI, NF, NS, order, members, codes, nbins, binlo, binhi, HP, AR,
                             total, left, right, best_left, tmp, sizes, tmp2, parent, fbuf,
                             ibuf, table, item_bin, item_stats, vbuf, item_val, flog)
        if IP[P_BEST] == 1:
            for c in range(c0, c0 + nb):
                _settle_or_push(c, NI, NF, IP, HN, HK, HT, ST, STF, FREE)
        else:
            for c in range(c0 + nb - 1, c0 - 1, -1):
                _settle_or_push(c, NI, NF, IP, HN, HK, HT, ST, STF, FREE)
    ST[S_DONE] = 1
    return 0
