"""Training over partitions, from a location to a pruned :class:`engine.tree.Tree`.

:func:`fit_partitions` settles the schema (:mod:`engine.scale.source`), makes the bins
(:mod:`engine.scale.bins`), grows the tree (:mod:`engine.scale.driver`), moves C4.5's
thresholds onto training values, and prunes as the settings ask
(:mod:`engine.scale.pruning`). The partitions stay on the workers, read from their files
once: after the binning passes each is coded into one byte per attribute, and every later
pass reads the codes. The attributes' values stay too, for what needs them (a category's
branch, the rows of exact subtrees, C4.5's thresholds): in memory when the encoded rows fit
in :data:`KEEP_SHARE` of the workers' memory, else in a file in each worker's own folder,
read through a memory map (the codes and targets stay in memory, and Dask spills them to
disk when memory is short). Dask recomputes a kept partition a dead worker held, from its
file. The rows held out for pruning are read with the others and kept the same way.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, replace

from engine.errors import ArborError
from engine.learn.costs import with_costs
from engine.learn.pseudocounts import with_pseudocounts
from engine.monitor import NULL_MONITOR, Monitor
from engine.scale import tasks
from engine.scale.cluster import Cluster
from engine.scale.source import Dataset
from engine.scale.tasks import Selection
from engine.settings import Settings
from engine.tree import Tree

#: The attributes' values are kept in the workers' memory when the encoded rows take at
#: most this share of it; otherwise in files on the workers' disks.
KEEP_SHARE = 0.4
#: Partial sums added per task of the tree reduction.
FAN_IN = 8
#: Dask priority of a pass's tasks over the subtrees growing behind it: a worker that is
#: free takes a pass's partition first, since the driver waits for the pass.
PASS_PRIORITY = 1


@dataclass(frozen=True)
class FitFacts:
    """What a fit over partitions saw and did (the window's status bar says it)."""

    rows: int
    partitions: int
    passes: int
    workers: int
    kept_in_memory: bool
    dashboard: str | None
    scheduler: str
    seconds: float
    settings: Settings | None = None  # as followed (see engine.scale.driver.adjust_settings)
    held_out_rows: int = 0
    alpha: float | None = None
    notes: tuple[str, ...] = ()
    largest_pass_bytes: int = 0  # the largest histogram sum one pass sent to the driver

    def as_dict(self) -> dict:
        return {
            "rows": self.rows,
            "partitions": self.partitions,
            "passes": self.passes,
            "workers": self.workers,
            "kept_in_memory": self.kept_in_memory,
            "dashboard": self.dashboard,
            "scheduler": self.scheduler,
            "seconds": round(self.seconds, 3),
            "held_out_rows": self.held_out_rows,
            "alpha": self.alpha,
            "largest_pass_bytes": self.largest_pass_bytes,
        }


class Partitions:
    """The partitions a fit reads, kept on the workers (``keep``: their values in memory,
    else in files on the workers' disks), and the passes over them."""

    def __init__(
        self,
        cluster: Cluster,
        dataset: Dataset,
        task: str,
        selection: Selection,
        keep: bool,
        monitor: Monitor = NULL_MONITOR,
    ):
        self.cluster, self.dataset, self.task = cluster, dataset, task
        self.selection, self.monitor = selection, monitor
        self.bins = None  # the coding bins (no value ranges), once made
        self.passes = 0
        self.n_workers = cluster.n_workers
        self.growing: set = set()  # bundle tasks not yet collected (cancelled on release)
        self._dataset = cluster.share(dataset)
        self.kept = keep
        self.token = None if keep else uuid.uuid4().hex  # names the workers' files of this fit
        self.sources = [
            cluster.submit(
                tasks.load_part, piece, k, self._dataset, task, selection, token=self.token
            )
            for k, piece in enumerate(dataset.pieces)
        ]

    def _args(self):
        return self._dataset, self.task, self.selection

    def map(self, function, *args, message: str = ""):
        """``function(source, dataset, task, selection, *args)`` on every partition."""
        self.passes += 1
        futures = [self.cluster.submit(function, s, *self._args(), *args) for s in self.sources]
        return self.cluster.wait(futures, self.monitor)

    def map_each(self, function, per_partition: list, message: str = ""):
        """As :meth:`map`, with each partition's own extra arguments."""
        self.passes += 1
        futures = [
            self.cluster.submit(function, s, *self._args(), *extra)
            for s, extra in zip(self.sources, per_partition, strict=True)
        ]
        return self.cluster.wait(futures, self.monitor)

    def map_held(self, function, *args, message: str = ""):
        """``function`` on every partition's held-out training rows (kept with the others)."""
        self.passes += 1
        held = replace(self.selection, role="prune")
        futures = [
            self.cluster.submit(function, s, self._dataset, self.task, held, *args)
            for s in self.sources
        ]
        return self.cluster.wait(futures, self.monitor)

    def code(self, bins) -> None:
        """Make the bins known to the partitions: each is coded once, on its worker."""
        self.bins = bins
        self._bins = self.cluster.share(bins)
        old = self.sources
        self.sources = [self.cluster.submit(tasks.with_codes, s, self._bins) for s in old]
        del old

    def round(self, route, request, specs):
        """One growth pass (:meth:`engine.scale.driver.Grower._pass` asks for it): the summed
        :class:`~engine.scale.tasks.Partial`, and per spec the task growing its leaves'
        subtrees, left running (:meth:`finished` collects them)."""
        c = self.cluster
        self.passes += 1
        route = c.share(route)
        first = {"priority": PASS_PRIORITY}
        # Each partition's tasks asked of the worker holding it (a wish, not a rule: another
        # takes over when it dies): left to choose, Dask now and then ran the extraction of
        # a pass's partial sum or gathered rows on the other worker, moving the whole output.
        near = [
            {"workers": [w], "allow_other_workers": True} if w else {}
            for w in c.holders(self.sources)
        ]
        outs = [
            c.submit(tasks.round_pass, s, *self._args(), self._bins, route, request, **first, **at)
            for s, at in zip(self.sources, near, strict=True)
        ]
        level = [
            c.submit(tasks.first_of, o, **first, **at) for o, at in zip(outs, near, strict=True)
        ]
        while len(level) > 1:  # the tree reduction: FAN_IN partials per task
            level = [
                c.submit(tasks.add_partials, *level[k : k + FAN_IN], **first)
                for k in range(0, len(level), FAN_IN)
            ]
        # Each bundle's rows taken from the partitions' outputs at once (high priority too),
        # so that the outputs' histograms are let go before the subtrees grow.
        bundles = [
            c.submit(
                tasks.grow_bundle,
                spec,
                *[
                    c.submit(tasks.bundle_of, o, b, **first, **at)
                    for o, at in zip(outs, near, strict=True)
                ],
            )
            for b, spec in enumerate(specs)
        ]
        self.growing.update(bundles)
        return c.wait([level[0]], self.monitor)[0], bundles

    def finished(self, bundles, wait: bool = False) -> dict:
        """``{task: {slot: SubTree}}`` of the bundle tasks done (with ``wait``: of all)."""
        done = list(bundles) if wait else [b for b in bundles if b.done()]
        grown = dict(zip(done, self.cluster.wait(done, self.monitor), strict=True))
        self.growing.difference_update(done)
        return grown

    def release(self) -> None:
        """Let the workers drop what this fit kept there."""
        kept = [*self.sources]
        kept += [f for f in (self._dataset, getattr(self, "_bins", None)) if f is not None]
        if self.growing:  # a fit stopped while subtrees grew
            self.cluster.cancel(self.growing)
            self.growing = set()
        for future in kept:
            future.release()
        self.sources = []
        if self.token is not None:
            self.cluster.everywhere(tasks.drop_kept, self.token)


def _keep_in_memory(cluster: Cluster, dataset: Dataset) -> bool:
    p = len(dataset.attributes)
    need = dataset.n_rows * (9 * p + 8)  # values, codes and targets
    memory = cluster.worker_memory()
    return memory > 0 and need <= KEEP_SHARE * memory


def grow_selection(settings: Settings, seed: int, train_share: float = 1.0) -> Selection:
    """The rows the tree grows on: the training share, less the held-out rows pruning needs."""
    held = settings.holdout if needs_holdout(settings) else 0.0
    return Selection(seed, train_share, held, "grow")


def needs_holdout(settings: Settings) -> bool:
    return settings.prune == "reduced-error" or (
        settings.prune == "cost-complexity" and settings.alpha is None
    )


def fit_partitions(
    dataset: Dataset,
    settings: Settings,
    cluster: Cluster,
    monitor: Monitor = NULL_MONITOR,
    train_share: float = 1.0,
    record: bool = False,
) -> tuple[Tree, FitFacts]:
    """Grow and prune a tree on ``dataset``'s partitions (its training share).

    The caller first makes sure the kernels are compiled
    (:func:`engine.compiling.lifecycle.wait_until_compiled`, as the command line and the window
    do): the workers of a local cluster then load them from this machine's kernel folder,
    where each would otherwise compile them itself, for a minute. (Not here: the warm-up
    that compiles them runs this very function.)
    """
    from engine.scale.assembly import assemble, snap_thresholds
    from engine.scale.bins import make_bins
    from engine.scale.driver import Grower, adjust_settings
    from engine.scale.pruning import prune_partitions
    from engine.scale.scoring import Scorer

    if settings.algorithm == "optimal":
        raise ArborError(
            "optimal trees are searched in memory, not over partitions: leave out --engine "
            "dask, or train CART, C4.5 or ID3 over partitions"
        )
    if settings.criterion == "absolute_error":
        raise ArborError(
            "absolute_error needs every target value at a node (its medians), which the "
            "partitions' histograms do not hold: train it in memory, or use squared_error"
        )
    if settings.missing == "surrogate":
        raise ArborError(
            "surrogate splits compare every row's values at a node, which the partitions' "
            "histograms do not hold: train in memory, or use --missing majority or fractional"
        )
    if settings.class_weight is not None or settings.priors is not None:
        raise ArborError(
            "class weights and priors weigh the rows in memory, not yet over partitions: "
            "leave out --engine dask to use them"
        )
    started = time.monotonic()
    settings, adjusted = adjust_settings(settings)
    schema = dataset.schema(settings.task)
    selection = grow_selection(settings, settings.seed, train_share)
    keep = _keep_in_memory(cluster, dataset)
    parts = Partitions(cluster, dataset, settings.task, selection, keep, monitor.scaled(0, 0.05))
    try:
        bins, n_rows, has_missing = make_bins(parts, schema, settings.max_bins)
        if n_rows == 0:
            raise ArborError("there are no rows to learn from in the training share")
        parts.code(bins)
        local = settings.growth == "depth" and settings.max_leaves is None
        from engine.fast.builder import HIST_EXACT_BELOW, HIST_LOCAL_ROWS

        small = HIST_LOCAL_ROWS if local else HIST_EXACT_BELOW
        scorer = Scorer(settings, schema, bins, n_rows, has_missing, small, local)
        parts.monitor = monitor.scaled(0.05, 0.85)
        grower = Grower(settings, scorer, parts, n_rows, bool(has_missing.any()), parts.monitor)
        keep_nodes = grower.grow()
        snaps = None
        if not settings.binary:  # ID3's and C4.5's cuts lie on training values
            parts.monitor = monitor.scaled(0.85, 0.9)
            snaps = snap_thresholds(grower.t, keep_nodes, scorer, parts)
        root = assemble(grower.t, schema, settings, keep_nodes, snaps, monitor)
        tree = with_costs(Tree(root, schema), settings)  # pruning counts its costs
        parts.monitor = monitor.scaled(0.9, 1.0)
        tree, held_rows, alpha = prune_partitions(tree, settings, parts, record)
        tree = with_costs(with_pseudocounts(tree, settings), settings)
    finally:
        parts.release()
    facts = FitFacts(
        n_rows,
        dataset.n_partitions,
        parts.passes,
        cluster.n_workers,
        keep,
        cluster.dashboard,
        cluster.shown_address,
        time.monotonic() - started,
        settings,
        held_rows,
        alpha,
        dataset.notes + adjusted,
        grower.largest_pass,
    )
    monitor.report(1.0, "grown")
    return tree, facts
