"""Compiled attribute scorers: the numeric cut sweeps and the category tables of a node.

These are :mod:`engine.learn.splitting`'s scorers (``score_threshold_cart``,
``score_threshold_c45``, ``score_multiway``, ``score_subset``) and ``choose`` for the
compiled builder (:mod:`engine.fast.growth_loop`), with the same arithmetic
(:mod:`engine.fast.kernels`) and rules (:mod:`engine.learn.rules`). A numeric attribute
is scanned over the node's entries sorted by its value (:func:`scan_sorted`, missing
values last) or over non-empty bins or distinct values (:func:`scan_items`); a nominal
one is scored from its category table. Each writes attribute ``j``'s best split into
row ``j`` of :class:`engine.fast.groups.Candidates`.
"""

from __future__ import annotations

import numpy as np

from engine.fast.groups import Cut
from engine.fast.kernels import (
    ABSOLUTE_ERROR,
    ENTROPY,
    GINI,
    PREFETCH_AHEAD,
    PREFETCH_LEAST,
    SQUARED_ERROR,
    add_entry,
    c45_beats,
    c45_cut_admissible,
    c45_midpoint,
    c45_min_split,
    c45_penalised,
    cart_threshold,
    copy_into,
    distinct,
    first_best,
    gain_many,
    gain_two,
    gain_two_whole,
    impurity,
    leaf_big_enough,
    multiway_floor,
    njit,
    prefetch,
    prefetch_target,
    psum,
    ratio,
    size_of,
)
from engine.learn.rules import EXHAUSTIVE_SUBSET_LIMIT
from engine.learn.tolerances import CHOICE_EPS, WEKA_EPS

# How the best attribute is chosen.
BY_GAIN, BY_RATIO, C45_RULE = 0, 1, 2
#: A cut whose proxy is this much (relatively) below the best proxy so far cannot win.
PROXY_SLACK = 1e-9


@njit(cache=True, inline="always")
def _sides(left, total, right, K):
    """The weights below and above a cut, ``size_of(left)`` and ``size_of(total - left)``
    (numpy's sums, to the bit). Under eight classes a sum runs in order, so the right side's
    statistics are added as they are computed, not stored first: a sweep considers a cut at
    almost every entry, and the stores and reloads of ``right`` were a third of its time.
    Otherwise they are stored in ``right`` for :func:`~engine.fast.kernels.psum`."""
    if K == 0:
        return left[0], total[0] - left[0]
    if K < 8:  # psum's single block of fewer than eight numbers: a plain running sum
        sl, sr = 0.0, 0.0
        for k in range(K):
            sl += left[k]
            sr += total[k] - left[k]
        return sl, sr
    for k in range(K):
        right[k] = total[k] - left[k]
    return psum(left, K), psum(right, K)


@njit(cache=True, inline="always")
def _proxy(left, total, sl, sr, K, code, flog):
    """A number the gain grows with, far cheaper than the gain, as (numerator, denominator);
    a denominator of 0: no proxy, compute the gain. The right side's statistics are
    ``total - left``, computed where they are used.

    Gini: gain = const + (sum l_k^2 / L + sum r_k^2 / R) / N; squared error:
    gain = const + (Y_L^2 / W_L + Y_R^2 / W_R) / N; both as (a R + b L) / (L R), compared
    without dividing. Entropy, with whole counts: gain = const + (sum f(l_k) + sum f(r_k)
    - f(L) - f(R)) / N with f(c) = c log2 c looked up in ``flog``. Exact gains are computed
    only for cuts whose proxy comes within ``PROXY_SLACK`` of the best so far, so the first
    maximum of the exact gains is found as before (rounding moves a proxy by ~1e-16
    relative; the slack is 10^7 times that).
    """
    if not (sl > 0 and sr > 0):
        return 0.0, 0.0
    if code == GINI:
        a, b = 0.0, 0.0
        for k in range(K):
            r = total[k] - left[k]
            a += left[k] * left[k]
            b += r * r
        return a * sr + b * sl, sl * sr
    if code == SQUARED_ERROR:
        r = total[1] - left[1]
        return left[1] * left[1] * sr + r * r * sl, sl * sr
    if code == ENTROPY and flog.shape[0] > 1:  # whole counts index a table of c*log2(c)
        a = 0.0
        for k in range(K):
            a += flog[int(left[k])] + flog[int(total[k] - left[k])]
        return a - flog[int(sl)] - flog[int(sr)], 1.0
    return 0.0, 0.0


@njit(cache=True, linked="inline")
def _consider_cut(
    pos,
    left,
    right,
    total,
    K,
    code,
    binary,
    whole,
    imp_parent,
    known_frac,
    known_w,
    msl,
    min_split,
    best_left,
    tmp,
    gains,
    cuts,
    flog,
    best,
    best_pos,
    ncut,
    pbest,
):
    """One admissible-or-not cut with ``left`` below it: the sweeps' shared step.

    Binary (CART): keeps the first maximum and its left statistics. Otherwise (C4.5):
    records the cut's gain and position. Returns the updated (best, best_pos, ncut, pbest).
    ``right`` is scratch: it holds ``total - left`` only where an exact gain is computed.
    """
    sl, sr = _sides(left, total, right, K)
    if binary:
        if leaf_big_enough(sl, msl) and leaf_big_enough(sr, msl):
            ncut += 1
            num, den = _proxy(left, total, sl, sr, K, code, flog)
            if den == 0.0 or num >= (pbest - PROXY_SLACK * abs(pbest)) * den:
                for k in range(left.shape[0]):
                    right[k] = total[k] - left[k]
                if whole:
                    g = gain_two_whole(left, right, K, code, imp_parent, known_w, tmp)
                else:
                    g = gain_two(left, right, K, code, imp_parent, known_frac, tmp)
                if g > best:
                    best, best_pos = g, pos
                    copy_into(best_left, left, left.shape[0])
                if den != 0.0 and num / den > pbest:
                    pbest = num / den
    elif c45_cut_admissible(sl, sr, min_split):
        # Only cuts within WEKA_EPS of the best gain matter to C4.5's pick.
        num, den = _proxy(left, total, sl, sr, K, code, flog)
        if (
            den == 0.0
            or num >= (pbest - (WEKA_EPS * (sl + sr) / known_frac + PROXY_SLACK * abs(pbest))) * den
        ):
            for k in range(left.shape[0]):
                right[k] = total[k] - left[k]
            gains[ncut] = gain_two(left, right, K, code, imp_parent, known_frac, tmp)
            if den != 0.0 and num / den > pbest:
                pbest = num / den
        else:
            gains[ncut] = -np.inf
        cuts[ncut] = pos
        ncut += 1
    return best, best_pos, ncut, pbest


def _sweep_sorted_for(fixed_K=None, fixed_code=None, fixed_binary=None, fixed_whole=None):
    """A sweep over sorted entries compiled with the given arguments as constants (``None``:
    read from the call). numba takes a closure's variables as constants, so each copy has
    its class loops unrolled and the other impurities' and algorithm's branches removed,
    several times faster than the general copy; and each is compiled once, as a function of
    its own, where inlining eight copies into one took a sixth of the one-time compile."""

    @njit(linked=True, borrows=True)
    def sweep(
        col,
        unit,
        weight_of,
        cls,
        target,
        seg,
        lo,
        n,
        K,
        code,
        binary,
        whole,
        total,
        imp_parent,
        known_frac,
        known_w,
        msl,
        min_split,
        left,
        right,
        best_left,
        tmp,
        gains,
        cuts,
        flog,
    ):
        """Score every cut of the sorted entries ``seg[lo:lo + n]`` (all with known values;
        their weights ``weight_of[entry]``, or 1 when ``unit``): (best gain, its position,
        admissible cuts).

        Binary (CART): the first maximum, its left statistics in ``best_left``. Otherwise
        (C4.5): every admissible cut's gain in ``gains`` and position in ``cuts``.
        """
        if fixed_K is not None:
            K = fixed_K
        if fixed_code is not None:
            code = fixed_code
        if fixed_binary is not None:
            binary = fixed_binary
        if fixed_whole is not None:
            whole = fixed_whole
        for k in range(left.shape[0]):
            left[k] = 0.0
        best, best_i, ncut, pbest = -np.inf, -1, 0, -np.inf
        x = col[seg[lo]]
        far = n >= PREFETCH_LEAST  # the entries are spread over the table, out of the cache
        for i in range(n - 1):
            if far and i + PREFETCH_AHEAD < n:
                ahead = seg[lo + i + PREFETCH_AHEAD]
                prefetch(col, ahead)
                prefetch_target(ahead, cls, target, K)
                if not unit:
                    prefetch(weight_of, ahead)
            ent = seg[lo + i]
            add_entry(left, ent, 1.0 if unit else weight_of[ent], cls, target, K)
            nxt = col[seg[lo + i + 1]]
            if distinct(x, nxt, binary):
                best, best_i, ncut, pbest = _consider_cut(
                    i,
                    left,
                    right,
                    total,
                    K,
                    code,
                    binary,
                    whole,
                    imp_parent,
                    known_frac,
                    known_w,
                    msl,
                    min_split,
                    best_left,
                    tmp,
                    gains,
                    cuts,
                    flog,
                    best,
                    best_i,
                    ncut,
                    pbest,
                )
            x = nxt
        return best, best_i, ncut

    return sweep


#: The common cases (binary or C4.5's, impurity, classes); the rest take the general copy.
_sweep_gini_2 = _sweep_sorted_for(2, GINI, True)
_sweep_gini_3 = _sweep_sorted_for(3, GINI, True)
_sweep_gini_4 = _sweep_sorted_for(4, GINI, True)
_sweep_entropy_2 = _sweep_sorted_for(2, ENTROPY, True)
_sweep_squared_error = _sweep_sorted_for(0, SQUARED_ERROR, True)
_sweep_c45_2 = _sweep_sorted_for(2, ENTROPY, False, False)
_sweep_c45_3 = _sweep_sorted_for(3, ENTROPY, False, False)
_sweep_any = _sweep_sorted_for()


@njit(cache=True, linked=True, borrows=True)
def sweep_sorted(col, unit, weight_of, cls, target, seg, lo, n, cut, work, flog):
    """The sweep of :func:`_sweep_sorted_for` for ``cut``'s rule: a copy for the common
    cases, the general one otherwise. The copies take the numbers and arrays one by one:
    read from ``cut`` and ``work`` inside a copy, the sweep ran at half speed."""
    K, code, binary = cut.K, cut.code, cut.binary
    args = (
        col,
        unit,
        weight_of,
        cls,
        target,
        seg,
        lo,
        n,
        K,
        code,
        binary,
        cut.whole,
        work.total,
        cut.imp_parent,
        cut.known_frac,
        cut.known_w,
        cut.msl,
        cut.min_split,
        work.left,
        work.right,
        work.best_left,
        work.tmp,
        work.gains,
        work.cuts,
        flog,
    )
    if binary and code == GINI and K == 2:
        return _sweep_gini_2(*args)
    if binary and code == GINI and K == 3:
        return _sweep_gini_3(*args)
    if binary and code == GINI and K == 4:
        return _sweep_gini_4(*args)
    if binary and code == ENTROPY and K == 2:
        return _sweep_entropy_2(*args)
    if binary and code == SQUARED_ERROR:
        return _sweep_squared_error(*args)
    if not binary and code == ENTROPY and K == 2:
        return _sweep_c45_2(*args)
    if not binary and code == ENTROPY and K == 3:
        return _sweep_c45_3(*args)
    return _sweep_any(*args)


@njit(cache=True, linked=True, borrows=True)
def sweep_items(item_bin, item_stats, L, lo, hi, cut, work, flog):
    """:func:`_sweep_sorted_for` over items: non-empty bins or distinct values (cuts between
    consecutive items), by ``cut``. A node has at most a few hundred, against thousands of
    entries, so one general copy serves every class count and impurity."""
    return _sweep_items(
        item_bin,
        item_stats,
        L,
        lo,
        hi,
        cut.K,
        cut.code,
        cut.binary,
        work.total,
        cut.imp_parent,
        cut.known_frac,
        cut.known_w,
        cut.msl,
        cut.min_split,
        work.left,
        work.right,
        work.best_left,
        work.tmp,
        work.gains,
        work.cuts,
        flog,
    )


@njit(cache=True, linked=True, borrows=True)
def _sweep_items(
    item_bin,
    item_stats,
    L,
    lo,
    hi,
    K,
    code,
    binary,
    total,
    imp_parent,
    known_frac,
    known_w,
    msl,
    min_split,
    left,
    right,
    best_left,
    tmp,
    gains,
    cuts,
    flog,
):
    """:func:`sweep_items` with the numbers and arrays one by one (as the sorted sweeps)."""
    S = left.shape[0]
    for k in range(S):
        left[k] = 0.0
    best, best_t, ncut, pbest = -np.inf, -1, 0, -np.inf
    for t in range(L - 1):
        for k in range(S):
            left[k] += item_stats[t, k]
        if distinct(hi[item_bin[t]], lo[item_bin[t + 1]], binary):
            best, best_t, ncut, pbest = _consider_cut(
                t,
                left,
                right,
                total,
                K,
                code,
                binary,
                False,
                imp_parent,
                known_frac,
                known_w,
                msl,
                min_split,
                best_left,
                tmp,
                gains,
                cuts,
                flog,
                best,
                best_t,
                ncut,
                pbest,
            )
    return best, best_t, ncut


@njit(cache=True, linked=True)
def _pick_c45(gains, ncut, node_weight):
    """C4.5's cut: the first within WEKA_EPS of the best gain, less log2(cuts)/N; -1 if none."""
    pick = first_best(gains, ncut, WEKA_EPS)
    if gains[pick] <= WEKA_EPS:
        return -1, 0.0
    best = c45_penalised(gains[pick], ncut, node_weight)
    if best <= WEKA_EPS:
        return -1, 0.0
    return pick, best


@njit(cache=True, linked=True, borrows=True)
def _finish_numeric(cand, j, a, b, work, gain, node_weight, known_w, K, binary, select):
    """Threshold, fractions and gain ratio of the chosen cut between values ``a`` and ``b``.

    Chosen by gain, only the winning attribute's ratio is read: its two logarithms per
    attribute were a twentieth of CART's growth. Its inputs are kept for :func:`choose`,
    which works it out for the winner alone."""
    left, right, total, sizes, tmp = work.best_left, work.right, work.total, work.sizes, work.tmp
    for k in range(left.shape[0]):
        right[k] = total[k] - left[k]
    sizes[0] = size_of(left, K)
    sizes[1] = size_of(right, K)
    cand.valid[j] = 1
    cand.gain[j] = gain
    cand.threshold[j] = cart_threshold(a, b) if binary else c45_midpoint(a, b)
    cand.fraction0[j] = sizes[0] / known_w
    cand.fraction1[j] = sizes[1] / known_w
    if select == BY_GAIN:
        cand.size0[j], cand.size1[j] = sizes[0], sizes[1]
        cand.unknown[j] = node_weight - known_w
        cand.ratio[j] = np.nan
    else:
        cand.ratio[j] = ratio(gain, sizes, 2, node_weight - known_w, tmp)


@njit(cache=True, linked=True, borrows=True)
def scan_sorted(
    j,
    col,
    weight_of,
    cls,
    target,
    seg,
    lo,
    n,
    node_stats,
    node_unit,
    par,
    node_weight,
    work,
    cand,
    flog,
):
    """Best threshold of numeric attribute ``j`` (values ``col`` by entry) over the node's
    entries ``seg[lo:lo + n]``, sorted by value (missing values last, in entry order).
    ``flog``: a table of c log2 c when the weights are whole counts (else one element: no
    such shortcut). The absolute-error criterion has a scan of its own
    (:func:`scan_absolute`)."""
    if par.impurity == ABSOLUTE_ERROR:
        scan_absolute(
            j,
            col,
            weight_of,
            cls,
            target,
            seg,
            lo,
            n,
            node_stats,
            node_unit,
            par,
            node_weight,
            work,
            cand,
        )
        return
    cand.valid[j] = 0
    # Missing values sort last: where they start is searched for, not walked back to
    # over the tail, whose entries (a tenth of a big node's with 10% missing) lie at
    # random in the table, a miss each.
    nk, past = 0, n
    while nk < past:
        mid = (nk + past) >> 1
        if np.isnan(col[seg[lo + mid]]):
            past = mid
        else:
            nk = mid + 1
    cand.n_known[j] = nk
    if nk < 2:
        return
    K, code, binary = par.n_classes, par.impurity, par.binary == 1
    total = work.total
    S = total.shape[0]
    # The known values' statistics: the node's less the missing entries' (the sorted
    # segment's tail, in entry order), as splitting._known_total has it.
    whole = nk == n
    copy_into(total, node_stats, S)
    if not whole:
        missing = work.right
        for k in range(S):
            missing[k] = 0.0
        far = n >= PREFETCH_LEAST
        for i in range(nk, n):
            if far and i + PREFETCH_AHEAD < n:
                ahead = seg[lo + i + PREFETCH_AHEAD]
                prefetch_target(ahead, cls, target, K)
                if not node_unit:
                    prefetch(weight_of, ahead)
            ent = seg[lo + i]
            add_entry(missing, ent, 1.0 if node_unit else weight_of[ent], cls, target, K)
        for k in range(S):
            total[k] -= missing[k]
    if binary and not distinct(col[seg[lo]], col[seg[lo + nk - 1]], True):
        return
    known_w = size_of(total, K)
    known_frac = known_w / node_weight
    min_split = 0.0
    if not binary:
        min_split = c45_min_split(known_w, K, par.min_samples_leaf)
        if nk < 2 * min_split:
            return
    imp_parent = impurity(total, K, code, work.tmp)
    cut = Cut(
        K,
        code,
        binary,
        whole and binary,
        imp_parent,
        known_frac,
        known_w,
        par.min_samples_leaf,
        min_split,
    )
    best, best_i, ncut = sweep_sorted(
        col, node_unit, weight_of, cls, target, seg, lo, nk, cut, work, flog
    )
    if ncut == 0:
        return
    if not binary:
        pick, best = _pick_c45(work.gains, ncut, node_weight)
        if pick < 0:
            return
        best_i = work.cuts[pick]
        for k in range(S):
            work.best_left[k] = 0.0
        for i in range(best_i + 1):
            ent = seg[lo + i]
            add_entry(work.best_left, ent, 1.0 if node_unit else weight_of[ent], cls, target, K)
    a = col[seg[lo + best_i]]
    b = col[seg[lo + best_i + 1]]
    _finish_numeric(cand, j, a, b, work, best, node_weight, known_w, K, binary, par.select)
    cand.cut[j] = best_i


@njit(cache=True, linked=True, borrows=True)
def scan_items(j, L, lo, hi, n_known, par, node_weight, work, cand, flog):
    """Best threshold over ``L`` items (non-empty bins, or distinct values) in increasing order:
    ``work.item_bin`` indexes their lowest and highest values in ``lo`` / ``hi`` and
    ``work.item_stats`` holds their statistics; ``n_known``: the node's entries with a value."""
    cand.valid[j] = 0
    cand.n_known[j] = n_known
    if L < 1 or n_known < 2:
        return
    K, code, binary = par.n_classes, par.impurity, par.binary == 1
    total, item_stats, item_bin = work.total, work.item_stats, work.item_bin
    S = total.shape[0]
    for k in range(S):
        total[k] = 0.0
    for t in range(L):
        for k in range(S):
            total[k] += item_stats[t, k]
    if binary and not distinct(lo[item_bin[0]], hi[item_bin[L - 1]], True):
        return
    known_w = size_of(total, K)
    known_frac = known_w / node_weight
    min_split = 0.0
    if not binary:
        min_split = c45_min_split(known_w, K, par.min_samples_leaf)
        if n_known < 2 * min_split:
            return
    imp_parent = impurity(total, K, code, work.tmp)
    cut = Cut(
        K, code, binary, False, imp_parent, known_frac, known_w, par.min_samples_leaf, min_split
    )
    best, best_t, ncut = sweep_items(item_bin, item_stats, L, lo, hi, cut, work, flog)
    if ncut == 0:
        return
    if not binary:
        pick, best = _pick_c45(work.gains, ncut, node_weight)
        if pick < 0:
            return
        best_t = work.cuts[pick]
        for k in range(S):
            work.best_left[k] = 0.0
        for t in range(best_t + 1):
            for k in range(S):
                work.best_left[k] += item_stats[t, k]
    a = hi[item_bin[best_t]]
    b = lo[item_bin[best_t + 1]]
    _finish_numeric(cand, j, a, b, work, best, node_weight, known_w, K, binary, par.select)
    cand.cut[j] = item_bin[best_t]


@njit(cache=True)
def score_table(j, table, V, par, node_weight, work, cand):
    """``splitting.score_multiway`` over a category-by-class weight table (known values)."""
    cand.valid[j] = 0
    K, code = par.n_classes, par.impurity
    if V < 2 or K == 0:
        return
    floor = multiway_floor(par.min_samples_leaf)
    sizes, parent = work.sizes, work.parent
    big = 0
    for k in range(K):
        parent[k] = 0.0
    for v in range(V):
        sizes[v] = size_of(table[v], K)
        if sizes[v] > floor:
            big += 1
        for k in range(K):
            parent[k] += table[v, k]
    if big < 2:
        return
    known_w = size_of(sizes, V)
    if not known_w > 0:
        return
    g = gain_many(
        table,
        V,
        K,
        code,
        impurity(parent, K, code, work.tmp),
        known_w / node_weight,
        sizes,
        work.tmp,
        work.tmp2,
    )
    if abs(g) <= WEKA_EPS:
        g = 0.0
    cand.valid[j] = 1
    cand.gain[j] = g
    cand.ratio[j] = ratio(g, sizes, V, node_weight - known_w, work.tmp)


@njit(cache=True, linked=True)
def _stable_argsort(keys, k, out):
    """Indices 0..k-1 ordered by ``keys`` (equal keys keep their order): numpy's stable sort."""
    for c in range(k):
        out[c] = c
    for c in range(1, k):  # insertion sort: k is a node's number of categories
        v = out[c]
        d = c - 1
        while d >= 0 and keys[out[d]] > keys[v]:
            out[d + 1] = out[d]
            d -= 1
        out[d + 1] = v


@njit(cache=True, linked=True)
def _try_group(left, total, K, code, imp_parent, known_frac, msl, right, tmp):
    """Gain of the two groups ``left`` / ``total - left`` if both are big enough, else -inf."""
    S = left.shape[0]
    for s in range(S):
        right[s] = total[s] - left[s]
    if leaf_big_enough(size_of(left, K), msl) and leaf_big_enough(size_of(right, K), msl):
        return gain_two(left, right, K, code, imp_parent, known_frac, tmp)
    return -np.inf


@njit(cache=True)
def score_subset(j, table, V, par, node_weight, work, cand):
    """``splitting.score_subset``: CART's best split of a nominal attribute's categories into two
    groups, from its category table (known values); every grouping after the order's cuts
    when the minimum leaf refused one of them (``splitting._subset_candidates``). ``work.best_mask`` keeps the left group
    over the present categories (``work.counts`` lists them) for :func:`subset_groups`."""
    cand.valid[j] = 0
    K, code = par.n_classes, par.impurity
    S = table.shape[1]
    present, order, keys = work.counts, work.order_buffer, work.value_buffer
    mask, best_mask = work.mask, work.best_mask
    total, left, right, tmp = work.total, work.left, work.right, work.tmp
    k = 0
    for v in range(V):
        if size_of(table[v], K) > 0:
            present[k] = v
            k += 1
    if k < 2:
        return
    for s in range(S):
        total[s] = 0.0
    for c in range(k):
        for s in range(S):
            total[s] += table[present[c], s]
    known_w = size_of(total, K)
    known_frac = known_w / node_weight
    imp_parent = impurity(total, K, code, tmp)
    msl = max(par.min_samples_leaf, 0.0)
    best = -np.inf
    ordered = K == 0 or K == 2 or k > EXHAUSTIVE_SUBSET_LIMIT
    refused = False  # the minimum leaf refused a cut of the order
    if ordered:
        for key in range(1 if K <= 2 else K):  # every cut of the categories ordered by a key
            for c in range(k):
                row = table[present[c]]
                keys[c] = (row[1] if K == 0 else row[key]) / size_of(row, K)
            _stable_argsort(keys, k, order)
            for s in range(S):
                left[s] = 0.0
            for cut in range(k - 1):
                for s in range(S):
                    left[s] += table[present[order[cut]], s]
                g = _try_group(left, total, K, code, imp_parent, known_frac, msl, right, tmp)
                if g == -np.inf:
                    refused = True
                if g > best:
                    best = g
                    for c in range(k):
                        best_mask[order[c]] = c <= cut
    if k <= EXHAUSTIVE_SUBSET_LIMIT and (not ordered or refused):
        comb = work.cuts  # the categories 1..k-1 joining category 0, as a combination
        for size in range(k - 1):
            for c in range(size):
                comb[c] = c + 1
            while True:
                for c in range(k):
                    mask[c] = False
                mask[0] = True
                for c in range(size):
                    mask[comb[c]] = True
                for s in range(S):
                    left[s] = 0.0
                for c in range(k):
                    if mask[c]:
                        for s in range(S):
                            left[s] += table[present[c], s]
                g = _try_group(left, total, K, code, imp_parent, known_frac, msl, right, tmp)
                if g > best:
                    best = g
                    for c in range(k):
                        best_mask[c] = mask[c]
                # the next combination in lexicographic order
                c = size - 1
                while c >= 0 and comb[c] == k - size + c:
                    c -= 1
                if c < 0:
                    break
                comb[c] += 1
                for d in range(c + 1, size):
                    comb[d] = comb[d - 1] + 1
    if best == -np.inf:
        return
    if not best_mask[0]:  # branch 0 holds the first present category
        for c in range(k):
            best_mask[c] = not best_mask[c]
    sizes = work.sizes
    for side in range(2):
        for s in range(S):
            left[s] = 0.0
        for c in range(k):
            if best_mask[c] == (side == 0):
                for s in range(S):
                    left[s] += table[present[c], s]
        sizes[side] = size_of(left, K)
    cand.valid[j] = 1
    cand.gain[j] = best
    cand.fraction0[j] = sizes[0] / known_w
    cand.fraction1[j] = sizes[1] / known_w
    cand.ratio[j] = ratio(best, sizes, 2, node_weight - known_w, tmp)
    cand.cut[j] = k


@njit(cache=True)
def choose(cand, p, par, counted, work):
    """``splitting.choose`` over the attributes' results; -1 for none. Chosen by gain, a
    numeric winner's gain ratio is worked out here (:func:`_finish_numeric`)."""
    select = par.select
    if select == C45_RULE:
        total, n = 0.0, 0
        for j in range(p):
            if cand.valid[j] == 1 and counted[j]:
                total += cand.gain[j]
                n += 1
        if n == 0:
            return -1
        average = total / n
        best, best_ratio = -1, 0.0
        for j in range(p):
            if cand.valid[j] == 1 and c45_beats(cand.gain[j], average, cand.ratio[j], best_ratio):
                best, best_ratio = j, cand.ratio[j]
        return best
    scores = cand.ratio if select == BY_RATIO else cand.gain
    top, found = -np.inf, False
    for j in range(p):
        if cand.valid[j] == 1 and (not found or scores[j] > top):
            top, found = scores[j], True
    if not found:
        return -1
    for j in range(p):
        if cand.valid[j] == 1 and scores[j] >= top - CHOICE_EPS:
            if np.isnan(cand.ratio[j]):
                work.sizes[0], work.sizes[1] = cand.size0[j], cand.size1[j]
                cand.ratio[j] = ratio(cand.gain[j], work.sizes, 2, cand.unknown[j], work.tmp)
            return j
    return -1


@njit(cache=True, inline="always")
def _median_search(tw, twy, size, top, half):
    """The weighted median's place among ranks 1..``size`` of a Fenwick tree of weights
    ``tw`` and weighted targets ``twy`` (``top``: the highest power of two <= size):
    (r, q, w, wy), r the first rank (0-based) whose cumulative weight passes ``half``, q the
    first to reach it (r itself unless one reaches it exactly), w and wy the weight and
    weighted targets of the ranks before r. The walk down the tree, and the order in which
    it adds the sums, are scikit-learn's (``WeightedFenwickTree.search``), so the sums,
    hence ties between cuts, come out as in its absolute-error criterion."""
    at, w, wy = 0, 0.0, 0.0
    left = half
    bit = top
    while bit != 0:
        nxt = at + bit
        if nxt <= size:
            if left == tw[nxt]:
                break  # a prefix reaches half exactly
            if left > tw[nxt]:
                left -= tw[nxt]
                at = nxt
                w += tw[nxt]
                wy += twy[nxt]
        bit >>= 1
    if bit == 0:
        return at, at, w, wy
    first = at  # the last rank still below half, then the one that reaches it
    rest = left
    b = bit
    while b != 0:
        nxt = first + b
        if nxt <= size and rest > tw[nxt]:
            rest -= tw[nxt]
            first = nxt
        b >>= 1
    while bit != 0:  # on to the last rank at most half
        nxt = at + bit
        if nxt <= size and left >= tw[nxt]:
            left -= tw[nxt]
            at = nxt
            w += tw[nxt]
            wy += twy[nxt]
        bit >>= 1
    return at, first, w, wy


@njit(cache=True, linked=True)
def scan_absolute(
    j, col, weight_of, cls, target, seg, lo, n, node_stats, node_unit, par, node_weight, work, cand
):
    """:func:`scan_sorted` for the absolute-error criterion (CART regression, median leaves):
    the best threshold of numeric attribute ``j`` over the node's entries ``seg[lo:lo + n]``
    (sorted by value, none missing: the criterion refuses missing values).

    A side's absolute error AE is the weighted sum of its targets' deviations from their
    weighted median: the first target whose cumulative weight passes half the side's, or
    the midpoint of two when one reaches half exactly (an even count of unit weights: the
    middle two's mean). Every prefix's and suffix's AE comes from a Fenwick tree over the
    targets' ranks in O(log n) (sums of w (y - m) above the median and w (m - y) below),
    in a forward and a backward pass. The cut with the largest -(AE_left + AE_right), each
    written as W_side x (AE_side / W_side) as scikit-learn compares them, wins (the first
    of equals); its gain is AE(node) / W - (AE_left + AE_right) / W."""
    cand.valid[j] = 0
    cand.n_known[j] = n
    if n < 2 or not distinct(col[seg[lo]], col[seg[lo + n - 1]], True):
        return
    ys = np.empty(n)
    ws = np.empty(n)
    for t in range(n):
        ent = seg[lo + t]
        ys[t] = target[ent]
        ws[t] = 1.0 if node_unit else weight_of[ent]
    by_target = np.argsort(ys, kind="mergesort")
    rank = np.empty(n, np.int64)
    sy = np.empty(n)
    for r in range(n):
        rank[by_target[r]] = r
        sy[r] = ys[by_target[r]]
    errors = np.empty((2, n))  # row 0: prefixes ending at t; row 1: suffixes starting at t
    tw = np.empty(n + 1)
    twy = np.empty(n + 1)
    top = 1
    while top * 2 <= n:
        top *= 2
    for way in range(2):
        for r in range(n + 1):
            tw[r] = 0.0
            twy[r] = 0.0
        total_w, total_wy = 0.0, 0.0
        for k in range(n):
            t = k if way == 0 else n - 1 - k
            w = ws[t]
            wy = w * ys[t]
            i = rank[t] + 1
            while i <= n:
                tw[i] += w
                twy[i] += wy
                i += i & -i
            total_w += w
            total_wy += wy
            r, q, w_left, wy_left = _median_search(tw, twy, n, top, 0.5 * total_w)
            median = (sy[q] + sy[r]) / 2 if q != r else sy[r]
            w_right = total_w - w_left
            wy_right = total_wy - wy_left
            errors[way, t] = (wy_right - median * w_right) + (median * w_left - wy_left)
    W = 0.0
    for t in range(n):
        W += ws[t]
    imp_parent = errors[1, 0] / W
    msl = par.min_samples_leaf
    best_proxy, best_i, sl = -np.inf, -1, 0.0
    for t in range(n - 1):
        sl += ws[t]
        if not distinct(col[seg[lo + t]], col[seg[lo + t + 1]], True):
            continue
        sr = W - sl
        if sl >= msl and sr >= msl:
            proxy = -sr * (errors[1, t + 1] / sr) - sl * (errors[0, t] / sl)
            if proxy > best_proxy:
                best_proxy, best_i = proxy, t
    if best_i < 0:
        return
    S = work.total.shape[0]
    copy_into(work.total, node_stats, S)
    for k in range(S):
        work.best_left[k] = 0.0
    for t in range(best_i + 1):
        add_entry(work.best_left, seg[lo + t], ws[t], cls, target, 0)
    a = col[seg[lo + best_i]]
    b = col[seg[lo + best_i + 1]]
    _finish_numeric(
        cand, j, a, b, work, imp_parent + best_proxy / W, node_weight, W, 0, True, par.select
    )
    cand.cut[j] = best_i
