"""Compiled attribute scorers: the numeric cut sweeps and the category tables of a node.

These are :mod:`engine.learn.splitting`'s scorers (``score_threshold_cart``,
``score_threshold_c45``, ``score_multiway``) and ``choose`` for the compiled
builder in :mod:`engine.fast.compiled`, with the same arithmetic (see
:mod:`engine.fast.kernels`). A numeric attribute is scanned over entries sorted by
its value (:func:`scan_sorted`) or over non-empty bins (:func:`scan_items`);
each writes its best cut into one row of the per-attribute results ``AR``.
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import (
    ENTROPY,
    GINI,
    SQUARED_ERROR,
    first_best,
    gain_many,
    gain_two,
    impurity,
    njit,
    ratio,
    size_of,
)
from engine.learn.tolerances import C45_VALUE_EPS, CART_VALUE_EPS, WEKA_EPS

# IP (integer parameters)
(P_CODE, P_BINARY, P_SELECT, P_BEST, P_K, P_S, P_MAXDEPTH, P_MAXLEAVES, P_UNIT, P_HIST,
 P_SMALL, P_NNUM, P_NROWS, P_LOCAL) = range(14)
# Selection rules
BY_GAIN, BY_RATIO, C45_RULE = 0, 1, 2
# Per-attribute results (AR columns)
A_VALID, A_GAIN, A_RATIO, A_THR, A_F0, A_F1, A_CUT = range(7)



@njit(cache=True)
def _copy(dst, src):
    # Element by element: numba's slice assignment may copy through a temporary array.
    for k in range(src.shape[0]):
        dst[k] = src[k]


@njit(cache=True, inline="always")
def _add_entry(acc, ent, w, ycls, yval, K):
    if K == 0:
        wy = w[ent] * yval[ent]
        acc[0] += w[ent]
        acc[1] += wy
        acc[2] += wy * yval[ent]
    else:
        acc[ycls[ent]] += w[ent]


#: A cut whose proxy is this much (relatively) below the best proxy so far cannot win.
PROXY_SLACK = 1e-9


@njit(cache=True)
def _proxy(left, right, sl, sr, K, code, flog):
    """A number the gain grows with, far cheaper than the gain (no division per class).

    Gini: gain = const + (sum l_k^2 / L + sum r_k^2 / R) / N; squared error:
    gain = const + (Y_L^2 / W_L + Y_R^2 / W_R) / N; entropy, with whole counts:
    gain = const + (sum f(l_k) + sum f(r_k) - f(L) - f(R)) / N with f(c) = c log2 c
    looked up in ``flog``. Exact gains are computed only for cuts whose proxy comes
    within ``PROXY_SLACK`` of the best so far, so the first maximum of the exact gains
    is found as before (rounding moves a gain by ~1e-16 relative; the slack is 10^7
    times that). +inf: no proxy, compute the gain.
    """
    if not (sl > 0 and sr > 0):
        return np.inf
    if code == GINI:
        a, b = 0.0, 0.0
        for k in range(K):
            a += left[k] * left[k]
            b += right[k] * right[k]
        return a / sl + b / sr
    if code == SQUARED_ERROR:
        return left[1] * left[1] / sl + right[1] * right[1] / sr
    if code == ENTROPY and flog.shape[0] > 1:  # unit weights: counts index a table of c*log2(c)
        a = 0.0
        for k in range(K):
            a += flog[int(left[k])] + flog[int(right[k])]
        return a - flog[int(sl)] - flog[int(sr)]
    return np.inf


@njit(cache=True)
def _finish_numeric(res, a, b, left, right, total, gain, node_weight, K, binary, tmp, sizes):
    """Threshold, fractions and gain ratio of the chosen cut between values ``a`` and ``b``."""
    if binary:
        thr = a / 2.0 + b / 2.0
        if thr == b or not np.isfinite(thr):
            thr = a
    else:
        thr = (a + b) / 2
        if thr == b:
            thr = a
    for k in range(left.shape[0]):
        right[k] = total[k] - left[k]
    known_w = size_of(total, K, tmp)
    sizes[0] = size_of(left, K, tmp)
    sizes[1] = size_of(right, K, tmp)
    res[A_VALID] = 1.0
    res[A_GAIN] = gain
    res[A_THR] = thr
    res[A_F0] = sizes[0] / known_w
    res[A_F1] = sizes[1] / known_w
    res[A_RATIO] = ratio(gain, sizes, 2, node_weight - known_w, tmp)


@njit(cache=True)
def _numeric_rules(total, n, K, binary, msl, node_weight, tmp):
    """(known weight, known fraction, C4.5's minimum branch size or -1 if no split)."""
    known_w = size_of(total, K, tmp)
    min_split = 0.0
    if not binary:
        min_split = min(max(0.1 * known_w / K, msl), 25.0)
        if n < 2 * min_split:
            min_split = -1.0
    return known_w, known_w / node_weight, min_split


@njit(cache=True, inline="always")
def _consider_cut(pos, left, right, total, K, code, binary, imp_parent, known_frac, msl, min_split,
                  best_left, tmp, gains, cuts, flog, best, best_pos, ncut, pbest):
    """One admissible-or-not cut with ``left`` below it: the sweeps' shared step.

    Binary (CART): keeps the first maximum and its left statistics. Otherwise (C4.5):
    records the cut's gain and position. Returns the updated (best, best_pos, ncut, pbest).
    """
    for k in range(left.shape[0]):
        right[k] = total[k] - left[k]
    sl = size_of(left, K, tmp)
    sr = size_of(right, K, tmp)
    if binary:
        if sl >= msl and sr >= msl:
            ncut += 1
            pr = _proxy(left, right, sl, sr, K, code, flog)
            if pr == np.inf or pr >= pbest - PROXY_SLACK * abs(pbest):
                g = gain_two(left, right, K, code, imp_parent, known_frac, tmp)
                if g > best:
                    best, best_pos = g, pos
                    _copy(best_left, left)
                if pr != np.inf and pr > pbest:
                    pbest = pr
    elif sl >= min_split - WEKA_EPS and sr >= min_split - WEKA_EPS:
        # Only cuts within WEKA_EPS of the best gain matter to C4.5's pick.
        pr = _proxy(left, right, sl, sr, K, code, flog)
        if pr == np.inf or pr >= pbest - (WEKA_EPS * (sl + sr) / known_frac
                                          + PROXY_SLACK * abs(pbest)):
            gains[ncut] = gain_two(left, right, K, code, imp_parent, known_frac, tmp)
            if pr != np.inf and pr > pbest:
                pbest = pr
        else:
            gains[ncut] = -np.inf
        cuts[ncut] = pos
        ncut += 1
    return best, best_pos, ncut, pbest


@njit(cache=True, inline="always")
def _sweep_sorted(col, row_of, w, ycls, yval, seg, n, K, code, binary, total, imp_parent,
                  known_frac, msl, min_split, left, right, best_left, tmp, gains, cuts, flog):
    """Score every cut of a sorted segment: (best gain, its position, admissible cuts).

    Binary (CART): the first maximum, its left statistics in ``best_left``. Otherwise
    (C4.5): every admissible cut's gain in ``gains`` and position in ``cuts``.
    """
    eps = CART_VALUE_EPS if binary else C45_VALUE_EPS
    for k in range(left.shape[0]):
        left[k] = 0.0
    best, best_i, ncut, pbest = -np.inf, -1, 0, -np.inf
    x = col[row_of[seg[0]]]
    for i in range(n - 1):
        _add_entry(left, seg[i], w, ycls, yval, K)
        nxt = col[row_of[seg[i + 1]]]
        if x + eps < nxt:
            best, best_i, ncut, pbest = _consider_cut(
                i, left, right, total, K, code, binary, imp_parent, known_frac, msl, min_split,
                best_left, tmp, gains, cuts, flog, best, best_i, ncut, pbest)
        x = nxt
    return best, best_i, ncut


@njit(cache=True, inline="always")
def _sweep_items(item_bin, item_stats, L, lo, hi, K, code, binary, total, imp_parent,
                 known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts, flog):
    """:func:`_sweep_sorted` over non-empty bins (cuts between consecutive items)."""
    eps = CART_VALUE_EPS if binary else C45_VALUE_EPS
    S = left.shape[0]
    for k in range(S):
        left[k] = 0.0
    best, best_t, ncut, pbest = -np.inf, -1, 0, -np.inf
    for t in range(L - 1):
        for k in range(S):
            left[k] += item_stats[t, k]
        if hi[item_bin[t]] + eps < lo[item_bin[t + 1]]:
            best, best_t, ncut, pbest = _consider_cut(
                t, left, right, total, K, code, binary, imp_parent, known_frac, msl, min_split,
                best_left, tmp, gains, cuts, flog, best, best_t, ncut, pbest)
    return best, best_t, ncut


@njit(cache=True)
def _sweep_sorted_any(col, row_of, w, ycls, yval, seg, n, K, code, binary, total, imp_parent,
                      known_frac, msl, min_split, left, right, best_left, tmp, gains, cuts, flog):
    return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, K, code, binary, total,
                         imp_parent, known_frac, msl, min_split, left, right, best_left, tmp,
                         gains, cuts, flog)


@njit(cache=True)
def _sweep_items_any(item_bin, item_stats, L, lo, hi, K, code, binary, total, imp_parent,
                     known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                     flog):
    return _sweep_items(item_bin, item_stats, L, lo, hi, K, code, binary, total, imp_parent,
                        known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                        flog)


@njit(cache=True)
def sweep_sorted(col, row_of, w, ycls, yval, seg, n, K, code, binary, total, imp_parent,
                 known_frac, msl, min_split, left, right, best_left, tmp, gains, cuts, flog):
    """:func:`_sweep_sorted` compiled with the class count, impurity and algorithm as constants
    for the common cases (3 to 7 times faster than the general copy)."""
    if binary and code == GINI and K == 2:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 2, GINI, True, total, imp_parent,
                             known_frac, msl, min_split, left, right, best_left, tmp, gains, cuts,
                             flog)
    if binary and code == GINI and K == 3:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 3, GINI, True, total, imp_parent,
                             known_frac, msl, min_split, left, right, best_left, tmp, gains, cuts,
                             flog)
    if binary and code == ENTROPY and K == 2:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 2, ENTROPY, True, total,
                             imp_parent, known_frac, msl, min_split, left, right, best_left, tmp,
                             gains, cuts, flog)
    if binary and code == ENTROPY and K == 3:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 3, ENTROPY, True, total,
                             imp_parent, known_frac, msl, min_split, left, right, best_left, tmp,
                             gains, cuts, flog)
    if binary and code == SQUARED_ERROR:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 0, SQUARED_ERROR, True, total,
                             imp_parent, known_frac, msl, min_split, left, right, best_left, tmp,
                             gains, cuts, flog)
    if not binary and code == ENTROPY and K == 2:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 2, ENTROPY, False, total,
                             imp_parent, known_frac, msl, min_split, left, right, best_left, tmp,
                             gains, cuts, flog)
    if not binary and code == ENTROPY and K == 3:
        return _sweep_sorted(col, row_of, w, ycls, yval, seg, n, 3, ENTROPY, False, total,
                             imp_parent, known_frac, msl, min_split, left, right, best_left, tmp,
                             gains, cuts, flog)
    return _sweep_sorted_any(col, row_of, w, ycls, yval, seg, n, K, code, binary, total, imp_parent,
                             known_frac, msl, min_split, left, right, best_left, tmp, gains, cuts,
                             flog)


@njit(cache=True)
def sweep_items(item_bin, item_stats, L, lo, hi, K, code, binary, total, imp_parent,
                known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts, flog):
    """:func:`_sweep_items` compiled with the class count, impurity and algorithm as constants
    for the common cases (3 to 7 times faster than the general copy)."""
    if binary and code == GINI and K == 2:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 2, GINI, True, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)
    if binary and code == GINI and K == 3:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 3, GINI, True, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)
    if binary and code == ENTROPY and K == 2:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 2, ENTROPY, True, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)
    if binary and code == ENTROPY and K == 3:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 3, ENTROPY, True, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)
    if binary and code == SQUARED_ERROR:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 0, SQUARED_ERROR, True, total,
                            imp_parent, known_frac, n, msl, min_split, left, right, best_left, tmp,
                            gains, cuts, flog)
    if not binary and code == ENTROPY and K == 2:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 2, ENTROPY, False, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)
    if not binary and code == ENTROPY and K == 3:
        return _sweep_items(item_bin, item_stats, L, lo, hi, 3, ENTROPY, False, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)
    return _sweep_items_any(item_bin, item_stats, L, lo, hi, K, code, binary, total, imp_parent,
                            known_frac, n, msl, min_split, left, right, best_left, tmp, gains, cuts,
                            flog)


@njit(cache=True)
def _pick_c45(gains, ncut, node_weight):
    """C4.5's cut: the first within WEKA_EPS of the best gain, less log2(cuts)/N; -1 if none."""
    pick = first_best(gains, ncut, WEKA_EPS)
    if gains[pick] <= WEKA_EPS:
        return -1, 0.0
    best = gains[pick] - np.log2(float(ncut)) / node_weight
    if best <= WEKA_EPS:
        return -1, 0.0
    return pick, best


@njit(cache=True)
def scan_sorted(col, row_of, w, ycls, yval, seg, n, IP, msl, node_weight, node_stats,
                total, left, right, best_left, tmp, sizes, gains, cuts, flog, res):
    """Best threshold of numeric attribute ``j`` over the node's entries ``seg`` (sorted by x)."""
    res[A_VALID] = 0.0
    if n < 2:
        return
    K, code, binary = IP[P_K], IP[P_CODE], IP[P_BINARY] == 1
    S = total.shape[0]
    if IP[P_UNIT] == 1:
        for k in range(S):
            total[k] = node_stats[k]
    else:  # numpy's cumulative sums run in sorted order, so the total does too
        for k in range(S):
            total[k] = 0.0
        for i in range(n):
            _add_entry(total, seg[i], w, ycls, yval, K)
    if binary and col[row_of[seg[n - 1]]] <= col[row_of[seg[0]]] + CART_VALUE_EPS:
        return
    known_w, known_frac, min_split = _numeric_rules(total, n, K, binary, msl, node_weight, tmp)
    if min_split < 0:
        return
    imp_parent = impurity(total, K, code, tmp)
    best, best_i, ncut = sweep_sorted(col, row_of, w, ycls, yval, seg, n, K, code, binary,
                                      total, imp_parent, known_frac, msl, min_split, left, right,
                                      best_left, tmp, gains, cuts, flog)
    if ncut == 0:
        return
    if not binary:
        pick, best = _pick_c45(gains, ncut, node_weight)
        if pick < 0:
            return
        best_i = cuts[pick]
        for k in range(S):
            best_left[k] = 0.0
        for i in range(best_i + 1):
            _add_entry(best_left, seg[i], w, ycls, yval, K)
    a = col[row_of[seg[best_i]]]
    b = col[row_of[seg[best_i + 1]]]
    _finish_numeric(res, a, b, best_left, right, total, best, node_weight, K, binary, tmp, sizes)
    res[A_CUT] = best_i


@njit(cache=True)
def scan_items(item_bin, item_stats, L, lo, hi, n, IP, msl, node_weight, total, left, right,
               best_left, tmp, sizes, gains, cuts, flog, res):
    """Best threshold over binned values: ``L`` non-empty bins in increasing order."""
    res[A_VALID] = 0.0
    if L < 1 or n < 2:
        return
    K, code, binary = IP[P_K], IP[P_CODE], IP[P_BINARY] == 1
    S = total.shape[0]
    for k in range(S):
        total[k] = 0.0
    for t in range(L):
        for k in range(S):
            total[k] += item_stats[t, k]
    if binary and hi[item_bin[L - 1]] <= lo[item_bin[0]] + CART_VALUE_EPS:
        return
    known_w, known_frac, min_split = _numeric_rules(total, n, K, binary, msl, node_weight, tmp)
    if min_split < 0:
        return
    imp_parent = impurity(total, K, code, tmp)
    best, best_t, ncut = sweep_items(item_bin, item_stats, L, lo, hi, K, code, binary, total,
                                     imp_parent, known_frac, n, msl, min_split, left, right,
                                     best_left, tmp, gains, cuts, flog)
    if ncut == 0:
        return
    if not binary:
        pick, best = _pick_c45(gains, ncut, node_weight)
        if pick < 0:
            return
        best_t = cuts[pick]
        for k in range(S):
            best_left[k] = 0.0
        for t in range(best_t + 1):
            for k in range(S):
                best_left[k] += item_stats[t, k]
    a = hi[item_bin[best_t]]
    b = lo[item_bin[best_t + 1]]
    _finish_numeric(res, a, b, best_left, right, total, best, node_weight, K, binary, tmp, sizes)
    res[A_CUT] = item_bin[best_t]


@njit(cache=True)
def score_table(table, V, IP, msl, node_weight, parent, tmp, sizes, tmp2, res):
    """``splitting.score_multiway`` over a category-by-class weight table."""
    res[A_VALID] = 0.0
    K, code = IP[P_K], IP[P_CODE]
    if V < 2 or K == 0:
        return
    floor = max(msl - WEKA_EPS, 0.0)
    big = 0
    parent[:] = 0.0
    for v in range(V):
        sizes[v] = size_of(table[v], K, tmp)
        if sizes[v] > floor:
            big += 1
        for k in range(K):
            parent[k] += table[v, k]
    if big < 2:
        return
    known_w = size_of(sizes, V, tmp)
    if not known_w > 0:
        return
    g = gain_many(table, V, K, code, impurity(parent, K, code, tmp), known_w / node_weight,
                  sizes, tmp, tmp2)
    if abs(g) <= WEKA_EPS:
        g = 0.0
    res[A_VALID] = 1.0
    res[A_GAIN] = g
    res[A_RATIO] = ratio(g, sizes, V, node_weight - known_w, tmp)


@njit(cache=True)
def choose(AR, p, IP, counted):
    """``splitting.choose`` over the attributes' results; -1 for none."""
    select = IP[P_SELECT]
    if select == C45_RULE:
        total, n = 0.0, 0
        for j in range(p):
            if AR[j, A_VALID] == 1.0 and counted[j]:
                total += AR[j, A_GAIN]
                n += 1
        if n == 0:
            return -1
        average = total / n
        best, best_ratio = -1, 0.0
        for j in range(p):
            if AR[j, A_VALID] == 1.0 and AR[j, A_GAIN] >= average - 1e-3 \
                    and AR[j, A_RATIO] - best_ratio > WEKA_EPS:
                best, best_ratio = j, AR[j, A_RATIO]
        return best
    col = A_RATIO if select == BY_RATIO else A_GAIN
    top, found = -np.inf, False
    for j in range(p):
        if AR[j, A_VALID] == 1.0 and (not found or AR[j, col] > top):
            top, found = AR[j, col], True
    if not found:
        return -1
    for j in range(p):
        if AR[j, A_VALID] == 1.0 and AR[j, col] >= top - 1e-12:
            return j
    return -1
