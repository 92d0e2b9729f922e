"""A fit over partitions reads each file once: the passes after the binning read the rows'
codes kept on the workers, with the values in memory or, when the table is larger than
the workers' memory, in files on the workers' disks; either way the tree is the in-memory
histogram splitter's."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

from engine.settings import resolve
from tests.engine.scale.test_scale_equivalence import (
    CASES,
    assert_same_tree,
    frame,
    in_memory,
    uneven,
)

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    from engine.scale.cluster import Cluster

    with Cluster(n_workers=2, processes=False) as c:
        yield c


@pytest.mark.parametrize("case", ["c45-missing", "cart-best-first"])
def test_each_file_is_read_once_and_the_tree_is_the_same(
    case, cluster, reads, kept_folders, tmp_path, monkeypatch
):
    """The values kept in the workers' files, as when the table is larger than the workers'
    memory. (Kept in memory: every case of test_scale_equivalence.py checks the same.)"""
    import pandas as pd

    from engine.scale import training
    from engine.scale.source import describe, scan

    monkeypatch.setattr(training, "KEEP_SHARE", 0.0)
    shape, target, options = CASES[case]
    parts = uneven(frame(9000, **shape), target)
    for k, part in enumerate(parts):
        part.to_parquet(tmp_path / f"part.{k}.parquet")
    settings = resolve(splitter="histogram", **options)
    dataset = scan(describe(str(tmp_path)), cluster.map, target)
    reads.clear()  # the scan reads the files' schemas, not their rows
    tree, facts = training.fit_partitions(dataset, settings, cluster)
    assert_same_tree(tree, in_memory(pd.concat(parts), target, settings))
    assert reads == Counter(range(5))  # every piece once, in a fit of many passes
    assert facts.passes >= 4 and not facts.kept_in_memory
    assert kept_folders
    assert not any(os.path.exists(f) for f in kept_folders)  # the workers' files are deleted


def test_a_kept_partition_whose_file_is_elsewhere_is_read_again(tmp_path, monkeypatch):
    """Dask may hand a kept partition to a worker on another machine, where its file is not:
    that worker reads the piece again, into its own folder, and keeps the codes."""
    from engine.scale import tasks
    from engine.scale.cluster import InProcess
    from engine.scale.source import describe, scan

    frame(300, nominal=True).to_parquet(tmp_path / "one.parquet")
    dataset = scan(describe(str(tmp_path / "one.parquet")), InProcess().map, "c")
    monkeypatch.setattr(tasks.tempfile, "gettempdir", lambda: str(tmp_path))
    everything = tasks.Selection()
    part = tasks.load_part(dataset.pieces[0], 0, dataset, "classification", everything, None, "t")
    assert part._X is None and os.path.exists(part.file)
    codes = np.arange(len(part.y) * 5, dtype=np.uint8).reshape(-1, 5)
    moved = tasks.Part(None, part.y, codes, str(tmp_path / "gone" / "0.npy"), part.origin)
    again = tasks.source_part(moved, dataset, "classification", everything)
    np.testing.assert_array_equal(again.X, part.X)
    assert again.codes is codes and os.path.exists(again.file)
    tasks.drop_kept("t")
    assert not os.path.exists(part.file)


def test_rows_held_out_for_pruning_are_read_with_the_others(cluster, reads, tmp_path, monkeypatch):
    """CART's alpha chosen on held-out rows: still one read of each file, and the same
    pruned tree whether the values are kept in memory or in the workers' files."""
    import pandas as pd

    from engine.scale import tasks, training
    from engine.scale.source import describe, scan

    parts = uneven(frame(9000, missing=0.05), "c")
    for k, part in enumerate(parts):
        part.to_parquet(tmp_path / f"part.{k}.parquet")
    settings = resolve(splitter="histogram", algorithm="cart", max_depth=6, holdout=0.25)
    dataset = scan(describe(str(tmp_path)), cluster.map, "c")
    fits = []
    for share in (training.KEEP_SHARE, 0.0):
        monkeypatch.setattr(training, "KEEP_SHARE", share)
        reads.clear()
        fits.append(training.fit_partitions(dataset, settings, cluster))
        assert reads == Counter(range(5))
    (memory, kept), (spilled, facts) = fits
    assert kept.kept_in_memory and not facts.kept_in_memory
    assert_same_tree(spilled, memory)
    held = tasks.Selection(settings.seed, 1.0, 0.25, "prune")
    sizes = [len(p) for p in parts]
    assert facts.held_out_rows == sum(held.mask(k, n).sum() for k, n in enumerate(sizes)) > 0
    assert facts.alpha == kept.alpha and facts.alpha is not None
    assert pd.concat(parts).shape[0] == facts.rows + facts.held_out_rows


def test_a_full_disk_is_said_as_such(tmp_path, monkeypatch):
    """Spilling a partition's values to a full disk is one message naming the folder (an
    OSError from a task would otherwise read as a lost connection to the scheduler)."""
    from engine.errors import ArborError
    from engine.scale import tasks

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tasks.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(tasks.np.lib.format, "write_array", full)
    part = tasks.Part(np.zeros((4, 2)), np.zeros(4))
    with pytest.raises(ArborError, match="No space left on device.*free some disk space"):
        tasks.spill(part, "t", "0-grow")
    assert not any((tmp_path / "arbor-kept-t").iterdir())  # no half-written file left
