"""Growing a tree over partitions: the driver's side.

The driver holds the tree, never the rows. Each round is one pass over the partitions
(:func:`engine.scale.tasks.round_pass` on every partition, the partial sums added by a
tree reduction on the workers); between passes the driver chooses splits from the summed
histograms with the in-memory builder's own scorers (:mod:`engine.scale.scoring`), so on
the same bins it makes the same choices as ``--splitter histogram`` in memory:

- a node with at least ``small`` entries is scored from its histogram (the largest child's
  histogram is its parent's minus its siblings', as in memory, when no entry of the parent
  missed the split's value); ``small`` is the in-memory builder's (1,024 entries);
- a node with fewer entries is grown exactly, as in memory: its rows (fewer than 1,024) are
  gathered from the partitions to one worker, which grows the node's whole subtree with the
  in-memory builder's exact search and returns it (:mod:`engine.scale.subtrees`). Without a
  leaf limit nothing waits for these subtrees (they are final, and the order of expansions
  does not change the tree): they grow on the workers behind the next passes and are
  grafted when they come back; with one, the replay needs them, so their pass waits;
- the order of expansions is the in-memory builder's (a stack depth-first, a heap keyed by
  the queue's priority best-first, :func:`engine.learn.rules.queue_priority`), replayed on the driver as far as the evaluated nodes
  allow. Without a leaf limit the order does not change the tree and every pass serves
  every open leaf (level by level); with one, a pass serves the next leaves the replay
  will reach (:data:`BATCH`), so the leaf limit cuts the tree where it cuts in memory.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

import numpy as np

from engine.errors import ArborError
from engine.fast.groups import NOMINAL, NUMERIC
from engine.fast.partitions import BY_BIN, BY_CATEGORY, BY_GROUP, BY_THRESHOLD, Route
from engine.learn import rules
from engine.monitor import NULL_MONITOR, Monitor
from engine.scale.scoring import Bins, Scorer
from engine.scale.subtrees import BundleSpec, SubTree
from engine.scale.tasks import Request
from engine.settings import Settings

#: With a leaf limit, a pass serves this many of the leaves the replay reaches next.
BATCH = 64
#: Bytes of histograms one pass may sum (more open leaves wait for the next pass), and that
#: the driver keeps of split nodes' histograms for their children's subtraction.
HIST_BYTES = 256 << 20
#: Rows one task growing small subtrees gathers at most (more: more tasks) ...
BUNDLE_ROWS = 200_000
#: ... and at least, when a pass gathers fewer than that per worker: a pass's subtrees are
#: spread over at least two tasks per worker, so that every worker grows some (one task of
#: 200,000 rows kept one worker busy while the others waited).
BUNDLE_MIN_ROWS = 16_384

# The state of a node on the driver: waiting for a pass, evaluated, or waiting for its
# subtree to be grown from its gathered rows.
OPEN, READY, LOCAL = 0, 1, 2
# What a pass does for an open node besides its statistics.
STATS, HIST, GATHER = 0, 1, 2


@dataclass
class DriverNodes:
    """The driver's nodes, by creation order (children consecutive)."""

    parent: list = field(default_factory=list)
    depth: list = field(default_factory=list)
    child0: list = field(default_factory=list)
    n_children: list = field(default_factory=list)
    fraction: list = field(default_factory=list)
    stats: list = field(default_factory=list)
    weight: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    unit: list = field(default_factory=list)
    state: list = field(default_factory=list)
    attribute: list = field(default_factory=list)
    rule: list = field(default_factory=list)
    cut_bin: list = field(default_factory=list)
    threshold: list = field(default_factory=list)
    gain: list = field(default_factory=list)
    ratio: list = field(default_factory=list)
    fraction0: list = field(default_factory=list)
    fraction1: list = field(default_factory=list)
    groups: list = field(default_factory=list)  # a two-group split's branch per category
    local: list = field(default_factory=list)  # grown by a worker (exact): its subtree is final
    hist: dict = field(default_factory=dict)  # node -> its histogram, while needed
    split_bins: dict = field(default_factory=dict)  # node -> its split attribute's bins

    def add(self, parent: int, depth: int, fraction: float, S: int) -> int:
        i = len(self.parent)
        for name, value in (
            ("parent", parent),
            ("depth", depth),
            ("child0", -1),
            ("n_children", 0),
            ("fraction", fraction),
            ("weight", 0.0),
            ("entries", 0),
            ("unit", True),
            ("state", OPEN),
            ("attribute", -1),
            ("rule", BY_BIN),
            ("cut_bin", -1),
            ("threshold", 0.0),
            ("gain", 0.0),
            ("ratio", 0.0),
            ("fraction0", 0.0),
            ("fraction1", 0.0),
            ("groups", None),
            ("local", False),
        ):
            getattr(self, name).append(value)
        self.stats.append(np.zeros(S))
        return i

    def __len__(self) -> int:
        return len(self.parent)


def branch_of_bins(table: DriverNodes, i: int, bins: Bins, n_branches: int) -> np.ndarray:
    """Which branch of node ``i``'s split each bin of its attribute goes to (-1: none; the
    missing bin last)."""
    j = table.attribute[i]
    width = bins.width
    out = np.full(width, -1, np.int64)
    nb = int(bins.n_bins[j])
    rule = table.rule[i]
    if rule == BY_BIN:
        out[:nb] = np.where(np.arange(nb) <= table.cut_bin[i], 0, 1)
    elif rule == BY_CATEGORY:
        out[:nb] = np.arange(nb)
    else:
        out[:nb] = table.groups[i]
    return out


def used_above(table: DriverNodes, i: int, kind: np.ndarray, binary: bool, p: int) -> np.ndarray:
    """Attributes a multiway split above node ``i`` used (ID3 and C4.5 use each once)."""
    used = np.zeros(p, bool)
    if binary:
        return used
    a = table.parent[i]
    while a >= 0:
        j = table.attribute[a]
        if kind[j] == NOMINAL:
            used[j] = True
        a = table.parent[a]
    return used


def adjust_settings(settings: Settings) -> tuple[Settings, tuple[str, ...]]:
    """The settings a fit over partitions follows, and notes on what it changed."""
    notes = []
    if settings.cv_alpha:  # CART's default
        if settings.prune == "cost-complexity" and settings.alpha is None:
            notes.append(
                f"alpha chosen on a held-out {settings.holdout:.0%} of the rows "
                "(--holdout)"
                + (" with the one-standard-error rule" if settings.one_se else "")
                + ", not by cross-validation, which would grow a tree over the "
                "partitions per fold"
            )
        settings = replace(settings, cv_alpha=None)
    if settings.prune == "pessimistic" and settings.subtree_raising:
        settings = replace(settings, subtree_raising=False)
        notes.append(
            "pruned without subtree raising: raising re-routes the training rows "
            "through the raised branch, and over partitions the rows stay on the "
            "cluster"
        )
    return settings, tuple(notes)


class Grower:
    """One tree grown over partitions (:class:`engine.scale.training.Partitions` runs the
    passes): ``passes.round(route, request, specs)`` runs a pass and returns ``(Partial,
    [bundle task per spec])``; ``passes.finished(tasks, wait)`` the ``{task: {slot:
    SubTree}}`` of those done (with ``wait``, of all); ``passes.n_workers``."""

    def __init__(
        self,
        settings: Settings,
        scorer: Scorer,
        passes,
        n_rows: int,
        gappy: bool,
        monitor: Monitor = NULL_MONITOR,
    ):
        from engine.fast.builder import HIST_EXACT_BELOW, HIST_LOCAL_ROWS, queue_key

        self.settings, self.scorer, self.passes, self.monitor = settings, scorer, passes, monitor
        self.local = settings.growth == "depth" and settings.max_leaves is None
        self.small = HIST_LOCAL_ROWS if self.local else HIST_EXACT_BELOW
        self.best_first = settings.growth == "best"
        self.key = queue_key(settings)
        self.max_leaves = -1 if settings.max_leaves is None else int(settings.max_leaves)
        self.max_depth = -1 if settings.max_depth is None else int(settings.max_depth)
        self.count_entries = bool(gappy)
        self.n_rows = int(n_rows)
        self.S, self.p = scorer.S, len(scorer.kind)
        self.t = DriverNodes()
        self.heap: list = []
        self.pushes, self.leaves, self.settled, self.total_weight = 0, 1, 0.0, 1.0
        self.accepted: set[int] = set()
        self.refused: set[int] = set()
        self.jobs: dict[int, int] = {}  # node -> STATS / HIST / GATHER, next pass
        self.direct: set[int] = set()  # nodes whose histogram the next pass sums
        self.derived: dict[int, int] = {}  # node -> parent whose histogram it is derived from
        self.growing: dict = {}  # bundle task -> [(slot, node)] whose subtrees it grows
        self.kept_bytes = 0
        self.n_passes = 0
        self.largest_pass = 0  # bytes of the largest summed histogram a pass sent the driver

    # ------------------------------------------------------------------ the loop

    def grow(self) -> list[bool]:
        """Grow the tree; returns which of ``self.t``'s nodes it keeps."""
        t = self.t
        root = t.add(-1, 0, 1.0, self.S)
        t.entries[root] = self.n_rows
        if self.n_rows < self.small:
            self.jobs[root] = GATHER
        else:
            self.jobs[root] = HIST
            self.direct.add(root)
        self._pass(bounds=self.n_rows >= self.small)
        self._graft_grown(wait=True)  # a root grown whole is the tree
        self.total_weight = max(t.weight[root], 1e-300)
        self._settle_or_push(root)
        while True:
            self._graft_grown(wait=False)
            self._replay()
            if not self.heap:
                if not self.growing:
                    break
                self._graft_grown(wait=True)  # nothing left to pass over: the last subtrees
                continue
            budget = HIST_BYTES // self._hist_bytes()
            for i in self._wanted():
                if self.jobs and len(self.direct) >= budget:
                    break  # the rest wait for the next pass
                self._plan_children(i)
            if not self.jobs:  # every queued node waits for a subtree
                if not self.growing:
                    raise ArborError("growth over partitions stalled (a bug: please report it)")
                self._graft_grown(wait=True)
                continue
            self._pass()
        keep = [False] * len(t)
        keep[root] = True
        for i in self.accepted:
            for c in range(t.child0[i], t.child0[i] + t.n_children[i]):
                keep[c] = True
        return keep

    def _replay(self) -> None:
        """Pop, expand and push as the in-memory builder would, while the nodes it reaches
        are evaluated (their children too)."""
        if self.max_leaves < 0:
            self._accept_ready()
            return
        t = self.t
        while self.heap:
            i = self.heap[0][2]
            nb = self._n_branches(i)
            if self.max_leaves >= 0 and self.leaves + nb - 1 > self.max_leaves:
                heapq.heappop(self.heap)
                self.refused.add(i)
                self.settled += t.weight[i]
                continue
            c0 = t.child0[i]
            if c0 < 0 or any(t.state[c] != READY for c in range(c0, c0 + nb)):
                return
            heapq.heappop(self.heap)
            self.leaves += nb - 1
            self.accepted.add(i)
            order = range(c0, c0 + nb) if self.best_first else range(c0 + nb - 1, c0 - 1, -1)
            for c in order:
                self._settle_or_push(c)

    def _accept_ready(self) -> None:
        """Without a leaf limit the order of expansions does not change the tree: expand
        every queued node whose children are evaluated, so that each pass serves all the
        open leaves of the tree (the replay would serve the few under the stack's top)."""
        t = self.t
        while True:
            ready, waiting = [], []
            for entry in self.heap:
                i = entry[2]
                c0, nb = t.child0[i], self._n_branches(i)
                # A child whose subtree is growing on a worker is queued when it is grafted.
                done = c0 >= 0 and all(t.state[c] != OPEN for c in range(c0, c0 + nb))
                (ready if done else waiting).append(entry)
            if not ready:
                return
            heapq.heapify(waiting)
            self.heap = waiting
            for _, _, i in sorted(ready):
                c0, nb = t.child0[i], self._n_branches(i)
                self.leaves += nb - 1
                self.accepted.add(i)
                order = range(c0, c0 + nb) if self.best_first else range(c0 + nb - 1, c0 - 1, -1)
                for c in order:
                    if t.state[c] == READY:
                        self._settle_or_push(c)

    def _settle_or_push(self, c: int) -> None:
        t = self.t
        if t.attribute[c] < 0:
            self.settled += t.weight[c]
            return
        tie = self.pushes
        self.pushes += 1
        if self.best_first:
            worth = rules.queue_priority(t.gain[c], t.weight[c], self.total_weight, self.key)
            heapq.heappush(self.heap, (-worth, tie, c))
        else:
            heapq.heappush(self.heap, (0.0, -tie, c))

    def _wanted(self) -> list[int]:
        """The split nodes to expand for the next pass: all of them without a leaf limit,
        else the next few the replay reaches (that the limit does not refuse already)."""
        t = self.t
        open_ = [
            e
            for e in self.heap
            if t.child0[e[2]] < 0
            and (self.max_leaves < 0 or self.leaves + self._n_branches(e[2]) - 1 <= self.max_leaves)
        ]
        if self.max_leaves >= 0:
            open_ = heapq.nsmallest(BATCH, open_)
        else:
            open_.sort()
        return [e[2] for e in open_]

    # ------------------------------------------------------------------ children

    def _n_branches(self, i: int) -> int:
        j = self.t.attribute[i]
        if self.scorer.kind[j] == NUMERIC or self.settings.binary:
            return 2
        return int(self.scorer.n_categories[j])

    def _hist_bytes(self) -> int:
        return self.p * self.scorer.bins.width * (self.S + int(self.count_entries)) * 8

    def _plan_children(self, i: int) -> None:
        """Make node ``i``'s children (their entries known from ``i``'s histogram) and plan
        what the next pass does for each."""
        t, sc, bins = self.t, self.scorer, self.scorer.bins
        S = self.S
        j, nb = t.attribute[i], self._n_branches(i)
        H = t.hist.get(i)
        branch = branch_of_bins(t, i, bins, nb)
        row = t.split_bins.pop(i)  # the split attribute's bins at node i
        weights = row[:, :S]
        per_bin = row[:, S] if self.count_entries else np.array([sc.size(r) for r in weights])
        missing_bin = int(bins.n_bins[j])
        n_miss = int(round(per_bin[missing_bin])) if self.count_entries else 0
        if t.rule[i] == BY_CATEGORY:
            sizes = np.array([sc.size(weights[v]) for v in range(nb)])
            fractions = sizes / sizes.sum()
        else:
            fractions = np.array([t.fraction0[i], t.fraction1[i]])
        c0 = len(t)
        t.child0[i], t.n_children[i] = c0, nb
        entries = []
        for b in range(nb):
            c = t.add(i, t.depth[i] + 1, float(fractions[b]), S)
            inside = branch == b
            n = int(round(per_bin[inside].sum())) + (n_miss if fractions[b] > 0 else 0)
            t.entries[c] = n
            t.unit[c] = t.unit[i] and (n_miss == 0 or fractions[b] in (0.0, 1.0))
            entries.append(n)
            if n == 0:
                t.state[c] = READY  # no entries: a leaf of no weight, as in memory
                continue
            stats = weights[inside].sum(axis=0) + (
                weights[missing_bin] if fractions[b] == 1.0 else 0.0
            )
            if self._surely_leaf(c, stats):
                self.jobs[c] = STATS
            elif n < self.small:
                self.jobs[c] = GATHER
            else:
                self.jobs[c] = HIST
                self.direct.add(c)
        big = c0 + int(np.argmax(entries))
        whole = n_miss == 0 or self.scorer.params.majority == 1  # no entry down both ways
        if H is not None and whole and self.jobs.get(big) == HIST:
            # The parent's histogram minus its other children's, as in memory: those are
            # summed whatever they are otherwise asked for.
            self.direct.discard(big)
            self.derived[big] = i
            for c in range(c0, c0 + nb):
                if c != big and t.entries[c] > 0:
                    self.direct.add(c)

    def _surely_leaf(self, c: int, stats: np.ndarray) -> bool:
        """The pass need only count this child: its depth stops it, or (whole counts, which
        the parent's histogram gives exactly) its class counts do."""
        t = self.t
        if 0 <= self.max_depth <= t.depth[c]:
            return True
        if self.scorer.regression or not t.unit[c]:
            return False
        return self.scorer.stops(stats, float(t.entries[c]), t.depth[c])

    # ------------------------------------------------------------------ a pass

    def _pass(self, bounds: bool = False) -> None:
        t, sc = self.t, self.scorer
        self.monitor.check()
        nodes = sorted(self.jobs)
        slot = {i: k for k, i in enumerate(nodes)}
        direct = sorted(self.direct)
        hist_of = {i: k for k, i in enumerate(direct)}
        gather = [i for i in nodes if self.jobs[i] == GATHER]
        share = sum(t.entries[i] for i in gather) // (2 * max(self.passes.n_workers, 1))
        most = min(BUNDLE_ROWS, max(BUNDLE_MIN_ROWS, share))
        bundles: list[list[int]] = []
        rows = most
        for i in gather:
            if rows + t.entries[i] > most:
                bundles.append([])
                rows = 0
            bundles[-1].append(i)
            rows += t.entries[i]
        bundle_of = {i: b for b, members in enumerate(bundles) for i in members}
        request = Request(
            np.array([hist_of.get(i, -1) for i in nodes], np.int64),
            np.array([bundle_of.get(i, -1) for i in nodes], np.int64),
            len(direct),
            len(bundles),
            self.count_entries,
            bounds,
        )
        specs = [
            BundleSpec(
                sc.schema,
                self.settings,
                sc.counted,
                tuple((slot[i], t.depth[i], tuple(np.flatnonzero(self._used(i)))) for i in members),
            )
            for members in bundles
        ]
        self.n_passes += 1
        self.largest_pass = max(self.largest_pass, len(direct) * self._hist_bytes())
        self.monitor.report(
            self.settled / self.total_weight,
            f"pass {self.n_passes}: {len(nodes)} open leaves, {self.leaves} leaves so far",
        )
        partial, tasks = self.passes.round(self._route(slot), request, specs)
        for task, members in zip(tasks, bundles, strict=True):
            self.growing[task] = [(slot[i], i) for i in members]
        if bounds:
            sc.set_bounds(partial.low, partial.high)
        for i in nodes:
            k = slot[i]
            t.stats[i] = partial.stats[k].copy()
            if t.parent[i] < 0:
                t.entries[i] = int(partial.entries[k])
            elif int(partial.entries[k]) != t.entries[i]:
                raise ArborError(
                    f"a pass counted {int(partial.entries[k])} rows at node {i} "
                    f"where its parent's histogram counted {t.entries[i]} (did the "
                    "files change during the fit?)"
                )
            t.weight[i] = float(t.entries[i]) if t.unit[i] else sc.size(t.stats[i])
        jobs, derived = self.jobs, self.derived
        self.jobs, self.direct, self.derived = {}, set(), {}
        for i in nodes:
            job = jobs[i]
            if job == GATHER:
                t.state[i] = LOCAL
            elif job == STATS:
                if sc.stops(t.stats[i], t.weight[i], t.depth[i]):
                    t.state[i] = READY
                else:  # rounding decided otherwise: look again next pass
                    self.jobs[i] = GATHER if t.entries[i] < self.small else HIST
                    if self.jobs[i] == HIST:
                        self.direct.add(i)
            elif i in derived:
                continue
            else:
                self._evaluate(i, partial.H[hist_of[i]])
        for i, parent in derived.items():
            H = t.hist[parent].copy()
            for c in range(t.child0[parent], t.child0[parent] + t.n_children[parent]):
                if c != i and c in hist_of:
                    H -= partial.H[hist_of[c]]
            self._evaluate(i, H)
        for i in {t.parent[i] for i in nodes if t.parent[i] >= 0}:
            self._drop_hist(i)
        if self.max_leaves >= 0:  # the replay goes node by node: it needs them now
            self._graft_grown(wait=True)

    def _graft_grown(self, wait: bool) -> None:
        """Graft the subtrees grown since the last look (with ``wait``, all of them); a
        node whose parent was expanded meanwhile is queued now."""
        if not self.growing:
            return
        t = self.t
        for task, grown in self.passes.finished(list(self.growing), wait).items():
            for slot, i in self.growing.pop(task):
                self._graft(i, grown[slot])
                if t.parent[i] in self.accepted:
                    self._settle_or_push(i)

    def _drop_hist(self, i: int) -> None:
        H = self.t.hist.pop(i, None)
        if H is not None:
            self.kept_bytes -= H.nbytes

    def _used(self, i: int) -> np.ndarray:
        return used_above(self.t, i, self.scorer.kind, self.settings.binary, self.p)

    def _evaluate(self, i: int, H: np.ndarray) -> None:
        t, sc, S = self.t, self.scorer, self.S
        t.state[i] = READY
        if sc.stops(t.stats[i], t.weight[i], t.depth[i]):
            return
        missing = (
            H[np.arange(self.p), sc.bins.n_bins, S] if self.count_entries else np.zeros(self.p)
        )
        found = sc.choose(H[:, :, :S], missing, t.entries[i], t.weight[i], t.unit[i], self._used(i))
        if found is None:
            return
        j, cut, threshold, gain, ratio, f0, f1, groups = found
        t.attribute[i], t.cut_bin[i], t.threshold[i] = j, cut, threshold
        t.gain[i], t.ratio[i], t.fraction0[i], t.fraction1[i] = gain, ratio, f0, f1
        if sc.kind[j] == NUMERIC:
            t.rule[i] = BY_BIN
        else:
            t.rule[i] = BY_GROUP if self.settings.binary else BY_CATEGORY
            t.groups[i] = groups
        t.split_bins[i] = np.array(H[j])  # its children's entries and counts
        if self.kept_bytes + H.nbytes <= HIST_BYTES:  # for the children's subtraction
            t.hist[i] = H
            self.kept_bytes += H.nbytes

    def _graft(self, i: int, sub: SubTree) -> None:
        """Node ``i``'s exactly grown subtree into the table (its nodes are final)."""
        t, sc = self.t, self.scorer
        base = len(t)
        ids = [i] + list(range(base, base + len(sub) - 1))
        for r in range(1, len(sub)):
            t.add(-1, int(sub.depth[r]), float(sub.fraction[r]), self.S)
        for r, node in enumerate(ids):
            t.state[node], t.local[node] = READY, True
            t.stats[node] = sub.stats[r].copy()
            t.weight[node] = float(sub.weight[r])
            k = int(sub.n_children[r])
            if not k:
                continue
            j = int(sub.attribute[r])
            first = ids[int(sub.child0[r])]
            t.child0[node], t.n_children[node] = first, k
            for c in range(first, first + k):
                t.parent[c] = node
            t.attribute[node], t.threshold[node] = j, float(sub.threshold[r])
            t.gain[node], t.ratio[node] = float(sub.gain[r]), float(sub.ratio[r])
            if sc.kind[j] == NUMERIC:
                t.rule[node] = BY_THRESHOLD
            else:
                t.rule[node] = BY_GROUP if self.settings.binary else BY_CATEGORY
                t.groups[node] = sub.groups[r]

    # ------------------------------------------------------------------ routing

    def _route(self, slot: dict) -> Route:
        """The tree the pass routes rows through: split nodes grown from histograms (a
        subtree grown whole, or a node the leaf limit refused, ends the route)."""
        t = self.t
        order, k = [0], 0
        child0, rules_, attrs, cuts, thresholds, fractions, group_at = [], [], [], [], [], [], []
        n_children, slots, groups = [], [], []
        while k < len(order):
            i = order[k]
            k += 1
            fractions.append(t.fraction[i])
            inner = t.child0[i] >= 0 and not t.local[i] and i not in self.refused
            if not inner:
                child0.append(0)
                n_children.append(0)
                rules_.append(BY_BIN)
                attrs.append(-1)
                cuts.append(0)
                thresholds.append(0.0)
                group_at.append(0)
                slots.append(slot.get(i, -1))
                continue
            child0.append(len(order))
            n_children.append(t.n_children[i])
            order.extend(range(t.child0[i], t.child0[i] + t.n_children[i]))
            rules_.append(t.rule[i])
            attrs.append(t.attribute[i])
            cuts.append(t.cut_bin[i])
            thresholds.append(t.threshold[i])
            group_at.append(len(groups))
            if t.groups[i] is not None:
                groups.extend(int(g) for g in t.groups[i])
            slots.append(-1)
        ints = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
        return Route(
            ints(rules_),
            ints(attrs),
            ints(cuts),
            np.array(thresholds, np.float64),
            ints(child0),
            ints(n_children),
            np.array(fractions, np.float64),
            ints(group_at),
            ints(slots),
            ints(groups or [0]),
        )
