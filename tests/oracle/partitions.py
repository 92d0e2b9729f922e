"""The test oracle for :mod:`engine.fast.partitions`: each row routed and added with plain
numpy and Python, one row at a time (not used by Arbor itself)."""

from __future__ import annotations

import numpy as np

from engine.fast.partitions import BY_BIN, BY_CATEGORY, BY_THRESHOLD


def branch(route, node, codes, X, i, missing_code):
    j = route.attribute[node]
    if route.rule[node] == BY_BIN:
        if codes[i, j] == missing_code:
            return -1
        return 0 if codes[i, j] <= route.cut_bin[node] else 1
    if np.isnan(X[i, j]):
        return -1
    if route.rule[node] == BY_THRESHOLD:
        return 0 if X[i, j] <= route.threshold[node] else 1
    if route.rule[node] == BY_CATEGORY:
        return int(X[i, j])
    return int(route.groups[route.group_at[node] + int(X[i, j])])


def reached(route, codes, X, i, weight, missing_code):
    """The (node, weight) pairs row ``i`` reaches, every node it passes included."""
    out, todo = [], [(0, weight)]
    while todo:
        node, w = todo.pop(0)
        out.append((node, w))
        k = route.n_children[node]
        if k == 0:
            continue
        b = branch(route, node, codes, X, i, missing_code)
        c0 = route.child0[node]
        if b >= 0:
            todo.append((c0 + b, w))
        else:
            todo.extend(
                (c, w * route.fraction[c]) for c in range(c0, c0 + k) if route.fraction[c] > 0
            )
    return out


def stat(y, i, w, K):
    if K == 0:
        return np.array([w, w * y[i], w * y[i] * y[i]])
    out = np.zeros(K)
    out[int(y[i])] = w
    return out


def leaves(route, hist, gather, codes, X, y, K, n_bins, missing_code, count_entries, width):
    """Statistics, entries, histograms and gathered (row, weight, slot) of every open slot
    (ordered by slot, then row)."""
    n_slots = len(hist)
    S = 3 if K == 0 else K
    stats, entries = np.zeros((n_slots, S)), np.zeros(n_slots, np.int64)
    H = np.zeros((max(hist.max(initial=-1) + 1, 0), X.shape[1], width, S + int(count_entries)))
    rows = []
    for i in range(len(y)):
        for node, w in reached(route, codes, X, i, 1.0, missing_code):
            s = route.slot[node]
            if route.n_children[node] or s < 0:
                continue
            stats[s] += stat(y, i, w, K)
            entries[s] += 1
            if hist[s] >= 0:
                for j in range(X.shape[1]):
                    b = n_bins[j] if codes[i, j] == missing_code else codes[i, j]
                    H[hist[s], j, b, :S] += stat(y, i, w, K)
                    if count_entries:
                        H[hist[s], j, b, S] += 1
            if gather[s]:
                rows.append((i, w, s))
    return stats, entries, H, sorted(rows, key=lambda r: r[2])  # stable: rows stay in order
