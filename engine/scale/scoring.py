"""Choosing a node's split from its histogram on the driver, with the in-memory builder's
kernels: :func:`engine.fast.histogram.score_histogram` scores every attribute,
:func:`engine.fast.sweeps.choose` picks one, the rules of :mod:`engine.learn.rules` stop
a node or refuse a small gain, with parameters made as :mod:`engine.fast.builder` makes
them. The same numbers in, the same split out."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Schema
from engine.fast.groups import NOMINAL, NUMERIC, new_candidates, new_work
from engine.learn import rules
from engine.settings import Settings

#: A c*log2(c) table for entropy (whole counts) up to this many rows; beyond, the gains are
#: computed without it (the table only spares work: the choice is the same).
FLOG_ROWS = 1 << 24


@dataclass(frozen=True)
class Bins:
    """Every attribute's histogram bins: cut points of the numeric ones (as
    :func:`engine.fast.histogram.edges_for` makes them), bins per attribute (a nominal
    attribute's categories), and each bin's smallest and largest training value."""

    edges: tuple
    n_bins: np.ndarray
    nominal: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    @property
    def width(self) -> int:
        return int(self.n_bins.max(initial=1)) + 1  # the last bin: missing values

    @property
    def dtype(self):
        # Codes 0 .. n_bins - 1 and the missing code, the type's largest number: 255 bins
        # (the default --max-bins) still fit a byte, half the memory and cache of two.
        return np.uint8 if self.n_bins.max(initial=0) <= 255 else np.uint16

    @property
    def missing_code(self) -> int:
        return int(np.iinfo(self.dtype).max)


class Scorer:
    """A node's split from its histogram, with the in-memory builder's kernels and numbers."""

    def __init__(
        self,
        settings: Settings,
        schema: Schema,
        bins: Bins,
        n_rows: int,
        has_missing: np.ndarray,
        small: int,
        local: bool,
    ):
        from engine.fast.builder import _flog, kernel_params

        s = settings
        attrs = schema.attributes
        p = len(attrs)
        self.regression = schema.is_regression
        self.K = K = 0 if self.regression else len(schema.classes)
        self.S = S = 3 if self.regression else K
        self.kind = np.array([NOMINAL if a.is_nominal else NUMERIC for a in attrs], np.int64)
        self.n_categories = np.array(
            [len(a.categories) if a.is_nominal else 0 for a in attrs], np.int64
        )
        self.counted = np.array(
            rules.counted_in_average(self.n_categories.tolist(), n_rows), dtype=bool
        )
        self.has_missing = np.asarray(has_missing, dtype=bool)
        self.schema, self.bins = schema, bins
        self.params = kernel_params(s, K, S, 1, small, local)
        max_v = int(max(self.n_categories.max(initial=0), 2))
        items = max(bins.width, 2 * max_v, 64)
        flog = _flog(n_rows) if s.impurity == "entropy" and n_rows <= FLOG_ROWS else np.zeros(1)
        self.work = new_work(S, max_v, items, items, p, flog)
        self.cand = new_candidates(p)

    def set_bounds(self, low: np.ndarray, high: np.ndarray) -> None:
        """Each bin's smallest and largest training value (the root pass sums them)."""
        self.bins = replace(
            self.bins,
            low=np.ascontiguousarray(low, dtype=np.float64),
            high=np.ascontiguousarray(high, dtype=np.float64),
        )

    def size(self, stats: np.ndarray) -> float:
        """A statistics vector's weight, as :func:`engine.fast.kernels.size_of` adds it."""
        from engine.fast.kernels import size_of

        return float(size_of(np.ascontiguousarray(stats, dtype=np.float64), self.K))

    def stops(self, stats: np.ndarray, weight: float, depth: int) -> bool:
        """The node becomes a leaf without a search (the in-memory builder's first test)."""
        from engine.fast.kernels import impurity, size_of, top_class_weight

        K, par = self.K, self.params
        stats = np.ascontiguousarray(stats, dtype=np.float64)
        imp = impurity(stats, K, par.impurity, self.work.tmp)
        total = size_of(stats, K) if K > 0 else 0.0
        pure = rules.is_pure(float(top_class_weight(stats, K)), float(total), K == 0, float(imp))
        return rules.stops_before_search(
            weight, depth, pure, par.min_samples_split, par.min_samples_leaf, par.max_depth
        )

    def choose(
        self,
        H: np.ndarray,
        entries_missing: np.ndarray,
        entries: int,
        weight: float,
        unit: bool,
        used: np.ndarray,
    ):
        """The best split from the node's histogram ``H[attribute, bin, stat]`` (the stats
        only), or None: ``(attribute, cut, threshold, gain, ratio, fraction0, fraction1,
        groups)``."""
        from engine.fast.groups import MAX_BINNED_CATEGORIES
        from engine.fast.histogram import score_histogram
        from engine.fast.kernels import by_ref
        from engine.fast.sweeps import choose, score_subset, score_table

        par, work, cand, b = self.params, self.work, self.cand, self.bins
        # The kernels take them by reference, as the growth loop hands them (one compilation).
        work_ref, cand_ref = by_ref(work), by_ref(cand)
        p = len(self.kind)
        H = np.ascontiguousarray(H)
        work.used[:] = used
        known = work.known
        known[:] = entries
        for j in range(p):
            if self.has_missing[j] and par.binary == 0 and self.kind[j] == NUMERIC:
                known[j] = entries - int(entries_missing[j])
        flog = work.flog if unit else work.flog[:1]
        score_histogram(
            H,
            known,
            self.kind,
            self.n_categories,
            b.n_bins,
            b.low,
            b.high,
            work.used,
            par,
            weight,
            work_ref,
            cand_ref,
            flog,
        )
        for j in range(p):  # many-valued nominal attributes: their rows of H are their tables
            V = int(self.n_categories[j])
            if self.kind[j] != NOMINAL or V <= MAX_BINNED_CATEGORIES or work.used[j]:
                continue
            table = np.ascontiguousarray(H[j, :V])
            if par.binary == 1:
                score_subset(j, table, V, par, weight, work_ref, cand_ref)
            else:
                score_table(j, table, V, par, weight, work_ref, cand_ref)
        best = int(choose(cand_ref, p, par, self.counted, work_ref))
        if best < 0 or rules.gain_too_small(float(cand.gain[best]), par.min_gain, par.binary == 1):
            return None
        groups = None
        if self.kind[best] == NOMINAL and par.binary == 1:
            V = int(self.n_categories[best])
            score_subset(
                best, np.ascontiguousarray(H[best, :V]), V, par, weight, work_ref, cand_ref
            )
            groups = np.full(V, -1, np.int64)
            for c in range(int(cand.cut[best])):
                groups[work.counts[c]] = 0 if work.best_mask[c] else 1
        f0, f1 = float(cand.fraction0[best]), float(cand.fraction1[best])
        if par.majority == 1:
            f0, f1 = rules.whole_branch(f0, f1)
        return (
            best,
            int(cand.cut[best]),
            float(cand.threshold[best]),
            float(cand.gain[best]),
            float(cand.ratio[best]),
            f0,
            f1,
            groups,
        )
