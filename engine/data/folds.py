"""How rows are divided for resampling: cross-validation folds and holdout parts."""

from __future__ import annotations

import numpy as np

from engine.data.java_random import next_ints
from engine.errors import ArborError


def stratified_folds(y: np.ndarray | None, n: int, k: int, seed: int) -> list[np.ndarray]:
    """Test-row indices of ``k`` folds; each class is shuffled and dealt round the folds."""
    _check_fold_count(n, k)
    rng = np.random.default_rng(seed)
    if y is None:
        order = rng.permutation(n)
    else:
        order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)])
    fold_of = np.empty(n, dtype=int)
    fold_of[order] = np.arange(n) % k
    return [np.flatnonzero(fold_of == f) for f in range(k)]


def holdout_split(y: np.ndarray | None, n: int, fraction: float, seed: int):
    """Stratified (for classes) random split of range(n) into (grow, prune) row indices."""
    rng = np.random.default_rng(seed)
    groups = [np.arange(n)] if y is None else [np.flatnonzero(y == c) for c in np.unique(y)]
    held = []
    for g in groups:
        g = rng.permutation(g)
        held.append(g[: int(round(fraction * len(g)))])
    prune_rows = np.sort(np.concatenate(held)) if held else np.array([], dtype=int)
    mask = np.ones(n, dtype=bool)
    mask[prune_rows] = False
    return np.flatnonzero(mask), prune_rows


def weka_folds(
    y: np.ndarray | None, n: int, k: int, seed: int, unlabelled: np.ndarray | None = None
) -> list[np.ndarray]:
    """Test-row indices of the ``k`` folds Weka's ``-x k -s seed`` makes.

    Weka shuffles the rows with ``java.util.Random(seed)``, groups them by class (for a
    nominal class) in its own order-shuffling way, deals them out round the folds (row i of
    the grouped order to position i mod k), and cuts the dealt order into k consecutive
    parts, the first ``n mod k`` one row longer. ``y`` holds class codes (None for
    regression, which is shuffled but not grouped).

    Weka deals rows whose class is missing too (as one more group), then neither trains on
    nor scores them. ``unlabelled`` says where such rows were among the table's: the folds
    are dealt over all of them and returned as indices of the ``n`` labelled rows.

    >>> [f.tolist() for f in weka_folds(np.array([0, 0, 1, 1, 1]), 5, 2, 1)]
    [[0, 2, 4], [1, 3]]
    """
    if unlabelled is not None and len(unlabelled):
        total = n + len(unlabelled)
        labelled = np.ones(total, dtype=bool)
        labelled[unlabelled] = False
        every = None
        if y is not None:
            every = np.full(total, -1, dtype=np.intp)  # missing: a class value of its own
            every[labelled] = y
        index = np.cumsum(labelled) - 1  # a table row's index among the labelled rows
        return [index[part[labelled[part]]] for part in weka_folds(every, total, k, seed)]
    _check_fold_count(n, k)
    order = _java_shuffle(n, seed)
    if y is not None:
        order = _group_by_class(order, np.asarray(y))
        order = order[np.argsort(np.arange(n) % k, kind="stable")]
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    return [np.sort(part) for part in np.split(order, np.cumsum(sizes)[:-1])]


def _check_fold_count(n: int, k: int) -> None:
    if k < 2:
        raise ArborError("cross-validation needs at least 2 folds")
    if k > n:
        raise ArborError(f"cannot make {k} folds from {n} rows; use at most {n} folds")


def _java_shuffle(n: int, seed: int) -> np.ndarray:
    """Weka's ``Instances.randomize(new Random(seed))`` of rows 0..n-1: for j = n-1 down to
    1, swap positions j and ``nextInt(j + 1)``.

    The swaps are sequential, but their result is not: position j is final once step j is
    done (later steps touch only lower positions), and holds what position r_j held just
    before, which is what the latest earlier step swapping into r_j brought there; each such
    value is followed back along those steps to a row that never moved before it left.
    """
    if n < 2:
        return np.arange(n)
    j = np.arange(n)
    r = np.zeros(n, dtype=np.int64)  # r[j]: the position step j swaps with; r[0] = 0
    r[1:] = next_ints(seed, np.arange(n, 1, -1))[::-1]
    # Steps (and row 0's "step") sorted by the position they swap with, then by their index.
    by = np.argsort(r, kind="stable")
    key, step = r[by], j[by]
    same_next = np.append(key[1:] == key[:-1], False)
    after = np.full(n, -1)  # after[j]: the next step (higher index) swapping into r[j]
    after[step[same_next]] = step[1:][same_next[:-1]]
    # into[p]: the first step above p that swaps into position p (-1: none).
    first_at = np.searchsorted(key, j, side="left")
    into = np.full(n, -1)
    for shift in (0, 1):  # skip step p itself when it swaps p with p
        at = first_at + shift
        ok = (at < n) & (into < 0)
        ok[ok] = (key[at[ok]] == j[ok]) & (step[at[ok]] > j[ok])
        into[ok] = step[at[ok]]
    # value[m]: the row position m holds just before step m, found by pointer doubling
    # along ``into`` (a row that no step brought to m is m's own).
    value = np.where(into >= 0, into, j)
    while True:
        further = value[value]
        if np.array_equal(further, value):
            break
        value = further
    return np.where(after >= 0, value[np.maximum(after, 0)], r)


def _group_by_class(order: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weka's ``Instances.stratify`` grouping of ``order`` by class, before the dealing.

    Weka takes the class c of the first row, moves every later row of class c forward next
    to it by swapping it with the first row not of class c (rows of class c keep their
    order; the others are rotated each time), and repeats from the first row left over. One
    pass per class here: the rows not of class c form a queue that a row of class c rotates
    by one (front to back) once the queue is not empty; written out as an array that only
    grows, each rotation appends a copy of an earlier entry, found by pointer doubling.
    """
    groups = []
    rest = order
    while len(rest):
        is_c = y[rest] == y[rest[0]]
        groups.append(rest[is_c])
        if is_c.all():
            break
        tail = rest[int(np.argmin(is_c)) :]  # from the first row of another class
        rotates = is_c[int(np.argmin(is_c)) :]
        t = np.arange(len(tail))
        before = np.cumsum(rotates) - rotates  # rotations before entry t: the queue's front
        source = np.where(rotates, before, t)
        while True:
            further = source[source]
            if np.array_equal(further, source):
                break
            source = further
        rest = tail[source[int(rotates.sum()) :]]
    return np.concatenate(groups) if groups else order


def training_rows(test: np.ndarray, n: int) -> np.ndarray:
    """The rows of ``range(n)`` not in ``test``, in order: a fold's training part.

    (``np.setdiff1d`` gives the same, but sorts: seconds on a million rows, uncancellable.)

    >>> training_rows(np.array([1, 3]), 5).tolist()
    [0, 2, 4]
    """
    keep = np.ones(n, dtype=bool)
    keep[test] = False
    return np.flatnonzero(keep)
