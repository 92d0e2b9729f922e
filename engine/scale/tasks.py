"""What the workers run: one function per kind of task, each on one partition (or on the
rows gathered for a few small leaves). Module-level functions of picklable arguments, so
that any worker can run them again after another died (Dask retries a lost task)."""

from __future__ import annotations

import contextlib
import copy
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from engine.errors import ArborError
from engine.scale.source import Dataset, Piece, encode_piece


@dataclass(frozen=True)
class Selection:
    """Which rows of a piece a pass reads: the training share (``evaluate --split``) and, of
    that, the rows grown on or held out for pruning. Each row draws its numbers from a
    generator seeded by (seed, piece, stream), so any worker draws the same."""

    seed: int = 1
    train_share: float = 1.0
    holdout_share: float = 0.0
    role: str = "grow"  # "grow", "prune" (the held-out training rows), "test", "all"

    def mask(self, piece_index: int, n: int) -> np.ndarray:
        if self.role == "all" or (self.train_share >= 1.0 and self.holdout_share <= 0.0):
            return np.ones(n, dtype=bool)
        split = np.random.default_rng([self.seed, piece_index, 0]).random(n) < self.train_share
        if self.role == "test":
            return ~split
        held = np.random.default_rng([self.seed, piece_index, 1]).random(n) < self.holdout_share
        return split & (held if self.role == "prune" else ~held)


class Part:
    """One partition's rows as arrays: attributes (float64, column-major), the target
    (class codes or numbers), and, once the bins are known, the histogram codes (one byte
    per attribute with at most 255 bins).

    A kept partition's attributes are either in memory or, when the table is larger than
    the workers' memory, in a file in the worker's own folder (:func:`spill`): the passes
    read the codes, and the values only where they need them (a category's branch, the
    rows gathered for exact subtrees), through a memory map, so that no pass reads the
    table's files again. Pickled (Dask spilling it to disk, or handing it to another
    worker), it carries its codes and the file's name, not the values."""

    def __init__(self, X, y, codes=None, file=None, origin=None, held=None):
        self._X = X
        self.y = y
        self.codes = codes
        self.file = file  # the attributes' .npy file, when not in memory
        self.origin = origin  # (piece, index): where the rows were read from
        self.held = held  # the piece's rows held out for pruning, read with these
        # Counted as the rows are read, so that the passes after it need not read the values:
        # each attribute's known values (the binning's first pass), and, once coded, each
        # bin's smallest and largest value (the root pass).
        self.known = None if X is None else (~np.isnan(X)).sum(axis=0).astype(np.int64)
        self.low = self.high = None

    @property
    def X(self) -> np.ndarray:
        """The attributes; a spilled partition's mapped from its file (read on demand)."""
        if self._X is not None:
            return self._X
        # Copy-on-write: a writable array, as one read into memory (the same compiled
        # kernels take it); nothing is ever written back.
        return np.asarray(np.load(self.file, mmap_mode="c"))

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def nbytes(self) -> int:
        """Bytes held in memory (a spilled partition's values are in its file)."""
        X = 0 if self._X is None else self._X.nbytes
        held = 0 if self.held is None else self.held.nbytes
        return X + self.y.nbytes + (0 if self.codes is None else self.codes.nbytes) + held

    def __sizeof__(self) -> int:
        # What Dask counts of a kept partition when it decides what to spill to disk.
        return object.__sizeof__(self) + self.nbytes


def load_part(
    piece: Piece,
    index: int,
    dataset: Dataset,
    task: str,
    selection: Selection,
    bins=None,
    token: str | None = None,
) -> Part:
    """Read, encode and select one piece's rows (and code them, given the bins); with a
    ``token``, its attributes go to a file in this worker's folder for that fit."""
    X, y = _read(piece, index, dataset, task)
    if task != "regression" and len(y):  # class codes in a byte, not eight, while kept
        y = y.astype(np.min_scalar_type(int(y.max())))
    part = _selected(X, y, piece, index, selection, token)
    if selection.role == "grow" and selection.holdout_share > 0:
        # The rows held out for pruning, read now: the pruning pass does not read the file.
        part.held = _selected(X, y, piece, index, replace(selection, role="prune"), token)
    return with_codes(part, bins) if bins is not None else part


def y_of(y: np.ndarray) -> np.ndarray:
    """Gathered targets as the in-memory builder takes them (class codes as ``intp``)."""
    return y if y.dtype.kind == "f" else y.astype(np.intp)


def _read(piece: Piece, index: int, dataset: Dataset, task: str):
    if READ_HOOK is not None:
        READ_HOOK(piece, index)
    return encode_piece(piece, dataset, task)


def _selected(X, y, piece, index, selection: Selection, token: str | None) -> Part:
    keep = selection.mask(index, len(y))
    if not keep.all():
        X, y = np.asfortranarray(X[keep]), y[keep]
    part = Part(X, y, origin=(piece, index))
    return spill(part, token, f"{index}-{selection.role}") if token is not None else part


#: Called with (piece, index) each time a piece's file is read (the tests count the reads).
READ_HOOK = None


def kept_folder(token: str, worker=None) -> Path:
    """This worker's folder for one fit's spilled attributes (the system's temporary folder
    outside a Dask worker): a local cluster's worker deletes its folder as it closes."""
    if worker is None:
        try:
            from distributed import get_worker

            worker = get_worker()
        except (ImportError, ValueError):
            worker = None
    base = worker.local_directory if worker is not None else tempfile.gettempdir()
    return Path(base) / f"arbor-kept-{token}"


def spill(part: Part, token: str, name: str) -> Part:
    """The partition with its attributes written to this worker's folder for the fit
    (written under another name, then renamed: a task re-run after a worker died may
    replace the file while another maps the old one)."""
    folder = kept_folder(token)
    path = folder / f"{name}.npy"
    partial = folder / f"{name}.{uuid.uuid4().hex}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(partial, "wb") as out:
            np.lib.format.write_array(out, np.asfortranarray(part.X), allow_pickle=False)
        os.replace(partial, path)
    except OSError as err:  # a full disk: said as such, not as a lost connection
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise ArborError(
            f"could not keep a partition's values in the worker's folder {folder} "
            f"({err.strerror or err}); free some disk space there, or give the workers "
            "more memory"
        ) from None
    out = copy.copy(part)
    out._X, out.file = None, str(path)
    return out


def drop_kept(token: str, dask_worker=None) -> None:
    """Delete this worker's spilled attributes of one fit (run on every worker)."""
    shutil.rmtree(kept_folder(token, dask_worker), ignore_errors=True)


def with_codes(part: Part, bins) -> Part:
    from engine.fast.partitions import bin_codes

    X = part.X  # mapped once, if spilled
    out = copy.copy(part)
    if bins.dtype == np.uint8:
        out.codes, out.low, out.high = _coded(X, bins)
    else:  # over 255 bins: numpy's binary search, then the bins' ranges
        out.codes = bin_codes(X, bins.edges, bins.n_bins, bins.nominal, bins.dtype)
        out.low, out.high = _bounds(out, X, bins)
    return out


def _coded(X: np.ndarray, bins) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A partition's one-byte codes and each bin's value range, found in one compiled pass
    per column as the in-memory splitter codes (:func:`engine.fast.histogram.code_column`):
    numpy's search and a second pass for the ranges took 85 ns a value, a third of a
    100,000,000-row fit's time on its workers."""
    from engine.fast.histogram import code_categories, code_column

    n, p = X.shape
    codes = np.empty((n, p), dtype=np.uint8)
    low, high = np.full((p, bins.width), np.inf), np.full((p, bins.width), -np.inf)
    for j in range(p):
        x = X[:, j]
        if bins.nominal[j]:
            codes[:, j] = code_categories(x, bins.missing_code)
        else:
            code_column(x, bins.edges[j], codes, j, low[j], high[j])
    return codes, low, high


def source_part(source, dataset: Dataset, task: str, selection: Selection, bins=None) -> Part:
    """A pass's partition: kept on the workers (a :class:`Part`, Dask hands over the value;
    its held-out rows for the ``"prune"`` role) or a ``(piece, index)`` read from its file
    (prediction). A kept partition whose file is on another machine (Dask moved it to a
    worker there) is read again from its piece, once, into this worker's folder."""
    if isinstance(source, Part) and selection.role == "prune":
        source = source.held if source.held is not None else source.origin
    if isinstance(source, Part):
        if source.file is not None and not os.path.exists(source.file):
            token = Path(source.file).parent.name.removeprefix("arbor-kept-")
            piece, index = source.origin
            X, y = _read(piece, index, dataset, task)
            again = _selected(X, y, piece, index, selection, token)
            source = copy.copy(source)
            source.file = again.file
        return source if bins is None or source.codes is not None else with_codes(source, bins)
    piece, index = source
    return load_part(piece, index, dataset, task, selection, bins)


# ---------------------------------------------------------------------- binning passes


def count_known(source, dataset: Dataset, task: str, selection: Selection):
    """Rows, and per attribute the rows with a value (the sample's stride needs them)."""
    part = source_part(source, dataset, task, selection)
    return part.n, part.known


def sample_values(
    source, dataset: Dataset, task: str, selection: Selection, offsets, steps, numeric
):
    """Each numeric attribute's known values whose index among the table's known values is a
    multiple of its step (``offsets``: this piece's first index), in row order."""
    X = source_part(source, dataset, task, selection).X  # mapped once, if spilled
    out = {}
    for j in np.flatnonzero(numeric):
        x = X[:, j]
        x = x[~np.isnan(x)]
        first = (-int(offsets[j])) % int(steps[j])
        out[int(j)] = x[first :: int(steps[j])].copy()
    return out


# ---------------------------------------------------------------------- growth rounds


@dataclass
class Partial:
    """A pass's sums over some partitions: per output slot statistics and entries, the
    requested histograms, and (the root pass) each bin's smallest and largest value."""

    stats: np.ndarray
    entries: np.ndarray
    H: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None


@dataclass(frozen=True)
class Request:
    """What a pass asks of every partition: per output slot, its histogram (-1: none) and
    the bundle its gathered rows go to (-1: not gathered)."""

    hist: np.ndarray
    bundle: np.ndarray
    n_hist: int
    n_bundles: int
    count_entries: bool
    bounds: bool = False


def round_pass(
    source, dataset: Dataset, task: str, selection: Selection, bins, route, request: Request
):
    """One partition's share of a round: ``(Partial, [rows gathered per bundle])``."""
    from engine.fast.partitions import Leaves, accumulate_leaves

    part = source_part(source, dataset, task, selection, bins)
    n_slots = len(request.hist)
    classes = 0 if task == "regression" else int(len(dataset.target.categories))
    S = 3 if classes == 0 else classes
    X = part.X  # mapped once, if spilled: routing reads only categories' columns
    p = X.shape[1]
    H = np.zeros((request.n_hist, p, bins.width, S + int(request.count_entries)))
    cls = part.y.astype(np.int64) if classes else np.zeros(1, np.int64)
    target = part.y.astype(np.float64) if not classes else np.zeros(1)
    gathering = request.n_bundles > 0
    capacity = part.n if gathering else 0
    while True:
        leaves = Leaves(
            request.hist,
            request.bundle >= 0,
            np.zeros((n_slots, S)),
            np.zeros(n_slots, np.int64),
            H,
            np.zeros(capacity, np.int64),
            np.zeros(capacity),
            np.zeros(capacity, np.int64),
        )
        got = accumulate_leaves(
            route,
            leaves,
            part.codes,
            X,
            cls,
            target,
            np.ones(part.n),
            classes,
            bins.n_bins,
            bins.missing_code,
            request.count_entries,
        )
        if got <= capacity:
            break
        capacity = got  # nothing was written: run again with room for every gathered row
    partial = Partial(leaves.stats, leaves.entries, H)
    if request.bounds:
        partial.low, partial.high = part.low, part.high  # found as the part was coded
    gathered = []
    if gathering:
        rows, weights, slots = leaves.rows[:got], leaves.weights[:got], leaves.slots[:got]
        bundle = request.bundle[slots]
        for b in range(request.n_bundles):
            mine = bundle == b
            r = rows[mine]
            gathered.append((slots[mine], np.asfortranarray(X[r]), y_of(part.y[r]), weights[mine]))
    return partial, gathered


def _bounds(part: Part, X: np.ndarray, bins):
    """Each bin's smallest and largest value among the partition's rows."""
    from engine.fast.histogram import _bounds as bin_bounds

    p, width = X.shape[1], bins.width
    low, high = np.full((p, width), np.inf), np.full((p, width), -np.inf)
    for j in range(p):
        if bins.nominal[j]:
            continue
        x = X[:, j]
        known = ~np.isnan(x)
        codes = part.codes[known, j].astype(np.int64)
        nb = int(bins.n_bins[j])
        low[j, :nb], high[j, :nb] = bin_bounds(np.ascontiguousarray(x[known]), codes, nb)
    return low, high


def add_partials(*partials) -> Partial:
    """The sum of some partitions' partials (a node of the tree reduction)."""
    out = partials[0]
    out = Partial(
        out.stats.copy(),
        out.entries.copy(),
        out.H.copy(),
        None if out.low is None else out.low.copy(),
        None if out.high is None else out.high.copy(),
    )
    for q in partials[1:]:
        out.stats += q.stats
        out.entries += q.entries
        out.H += q.H
        if q.low is not None:
            np.minimum(out.low, q.low, out=out.low)
            np.maximum(out.high, q.high, out=out.high)
    return out


def first_of(pair):
    return pair[0]


def bundle_of(pair, b: int):
    return pair[1][b]


def grow_bundle(spec, *pieces):
    """Grow the subtree of every small leaf in a bundle from its rows gathered across the
    partitions (in partition order, so in the table's row order), exactly."""
    from engine.scale.subtrees import grow_subtree

    if not pieces:
        return {}
    slots = np.concatenate([q[0] for q in pieces])
    X = np.concatenate([q[1] for q in pieces])
    y = np.concatenate([q[2] for q in pieces])
    w = np.concatenate([q[3] for q in pieces])
    # Each leaf's rows together, still in partition and row order (a stable sort): one
    # mask per leaf went over all the bundle's rows once per leaf.
    order = np.argsort(slots, kind="stable")
    slots = slots[order]
    out = {}
    for slot, depth, used in spec.leaves:
        mine = order[np.searchsorted(slots, slot, "left") : np.searchsorted(slots, slot, "right")]
        out[slot] = grow_subtree(spec, np.asfortranarray(X[mine]), y[mine], w[mine], depth, used)
    return out


def values_below(source, dataset: Dataset, task: str, selection: Selection, thresholds: dict):
    """Per attribute and threshold ``t``, the largest training value ``v`` with
    ``v - t < 1e-6`` (-inf: none), the value :func:`engine.learn.thresholds.c45_threshold`
    moves ``t`` onto when it sees the whole column."""
    from engine.learn.tolerances import WEKA_EPS

    X = source_part(source, dataset, task, selection).X
    out = {}
    for j, cuts in thresholds.items():
        x = X[:, j]
        x = x[~np.isnan(x)]
        best = np.full(len(cuts), -np.inf)
        if len(x):
            # The first cut each value is within the tolerance of: searchsorted's guess,
            # settled by Weka's own subtraction (rounding may put it one cut off).
            at = np.searchsorted(cuts, x - WEKA_EPS, side="right")
            lower = np.maximum(at - 1, 0)
            at = np.where((at > 0) & (x - cuts[lower] < WEKA_EPS), lower, at)
            upper = np.minimum(at, len(cuts) - 1)
            at = np.where((at < len(cuts)) & ~(x - cuts[upper] < WEKA_EPS), at + 1, at)
            inside = at < len(cuts)
            np.maximum.at(best, at[inside], x[inside])
            best = np.maximum.accumulate(best)
        out[j] = best
    return out


def node_sums(source, dataset: Dataset, task: str, selection: Selection, route, n_stats: int):
    """Each node's statistics of the rows that pass it (held-out rows for pruning)."""
    from engine.fast.partitions import node_statistics

    part = source_part(source, dataset, task, selection)
    classes = 0 if task == "regression" else int(len(dataset.target.categories))
    stats = np.zeros((len(route.attribute), n_stats))
    cls = part.y.astype(np.int64) if classes else np.zeros(1, np.int64)
    target = part.y.astype(np.float64) if not classes else np.zeros(1)
    node_statistics(route, part.X, cls, target, np.ones(part.n), classes, stats)
    return part.n, stats
