"""CART's weakest-link pruning sequence, compiled: :func:`engine.prune.cost_complexity._weakest_links`'s
loop, statement for statement on the same doubles, so the steps are the same to the last bit.

Interpreted, the loop cost about 45 ms for a 3,200-node tree, and choosing alpha by 10-fold
CV runs it for eleven trees per fit (issue 39). The heap holds (alpha, node) pairs, so
ties go to the lowest node id, as in the Python loop; a popped pair of a node pruned or
inside a pruned subtree is skipped.

Pruning a node only raises its ancestors' alphas (in exact arithmetic), so they are not
pushed again as they rise: a node whose popped alpha is below its current one goes back
in at that. One that rounding lowers is pushed at once, as before; ``queued`` tells a
node's current pair from those it left behind. Every node keeps one pair at or below its
alpha, so the valid pairs come out in the same order as when each change was pushed, and
a full regression tree's thirty-odd ancestors per cut no longer each cost a push (a
20,000-node tree took 35 ms).
"""

from __future__ import annotations

import heapq

import numpy as np

from engine.fast.kernels import njit


@njit(cache=True, nogil=True)
def weakest_links(parent, end, r_node, e_node, leaf, stop_alpha):
    """Per step (the first: the unpruned tree): alpha, node cut, total leaf impurity, leaves
    and training error; how many steps; which nodes are left in the tree; which are leaves."""
    n = len(parent)
    is_leaf = leaf.copy()
    n_leaves = np.zeros(n)
    r_branch = np.zeros(n)
    e_branch = np.zeros(n)
    for i in range(n):
        if is_leaf[i]:
            n_leaves[i] = 1.0
            r_branch[i] = r_node[i]
            e_branch[i] = e_node[i]
    for i in range(n - 1, 0, -1):  # children after their parent: sums reach it complete
        p = parent[i]
        n_leaves[p] += n_leaves[i]
        r_branch[p] += r_branch[i]
        e_branch[p] += e_branch[i]
    in_tree = np.ones(n, dtype=np.bool_)
    latest = np.full(n, np.inf)
    queued = np.full(n, np.inf)  # each node's alpha in the heap (its other pairs: obsolete)
    heap = [(0.0, 0)]
    heap.pop()  # typed empty: (alpha, node)
    n_inner = 0
    for i in range(n):
        if not is_leaf[i]:
            latest[i] = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1.0)
            queued[i] = latest[i]
            heap.append((latest[i], i))
            n_inner += 1
    if n_inner:
        heapq.heapify(heap)
    alphas = np.zeros(n_inner + 1)
    nodes = np.full(n_inner + 1, -1, dtype=np.intp)
    impurity = np.zeros(n_inner + 1)
    leaves = np.zeros(n_inner + 1)
    errors = np.zeros(n_inner + 1)
    impurity[0], leaves[0], errors[0] = r_branch[0], n_leaves[0], e_branch[0]
    steps = 1
    while len(heap):
        alpha, i = heapq.heappop(heap)
        if is_leaf[i] or not in_tree[i] or queued[i] != alpha:
            continue
        if latest[i] != alpha:  # raised since it was pushed: back in at its alpha now
            queued[i] = latest[i]
            heapq.heappush(heap, (latest[i], i))
            continue
        if alpha > stop_alpha:
            break
        in_tree[i + 1 : end[i]] = False
        is_leaf[i] = True
        d_leaves = n_leaves[i] - 1.0
        d_r = r_branch[i] - r_node[i]
        d_e = e_branch[i] - e_node[i]
        a = i
        while a >= 0:
            n_leaves[a] -= d_leaves
            r_branch[a] -= d_r
            e_branch[a] -= d_e
            if a != i:
                gap = n_leaves[a] - 1.0
                latest[a] = (r_node[a] - r_branch[a]) / gap if gap else np.inf
                if latest[a] < queued[a]:  # lowered (a rounding): pushed at once, as it was
                    queued[a] = latest[a]
                    heapq.heappush(heap, (latest[a], a))
            a = parent[a]
        alphas[steps], nodes[steps] = alpha, i
        impurity[steps], leaves[steps], errors[steps] = r_branch[0], n_leaves[0], e_branch[0]
        steps += 1
    return alphas, nodes, impurity, leaves, errors, steps, in_tree, is_leaf


@njit(cache=True, nogil=True)
def alpha_ends(parent, leaf, cut):
    """:func:`engine.prune.alpha._alpha_ends`'s ends from each node's ``cut`` alpha, in one
    pass over the nodes in pre-order (a parent before its children), where numpy went a
    level at a time: a full regression tree has fifty levels, most of a few nodes."""
    n = len(parent)
    here = np.empty(n)
    above = np.empty(n)
    here[0] = -np.inf if leaf[0] else cut[0]
    above[0] = np.inf
    for i in range(1, n):
        a = here[parent[i]]
        c = cut[i]
        above[i] = a
        if leaf[i]:
            here[i] = -np.inf
        else:
            here[i] = a if a < c or np.isnan(a) else c  # np.minimum's: a NaN wins
    return here, above
