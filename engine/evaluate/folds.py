"""How rows are divided for resampling: cross-validation folds and holdout parts."""

from __future__ import annotations

import numpy as np

from engine.errors import ArborError


def stratified_folds(y: np.ndarray | None, n: int, k: int, seed: int) -> list[np.ndarray]:
    """Test-row indices of ``k`` folds; each class is shuffled and dealt round the folds."""
    if k < 2:
        raise ArborError("cross-validation needs at least 2 folds")
    if k > n:
        raise ArborError(f"cannot make {k} folds from {n} rows; use at most {n} folds")
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
