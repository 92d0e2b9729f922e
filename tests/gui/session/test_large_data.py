"""File > Open large dataset: a read-only preview of a Parquet folder, training through Dask in
the worker thread with the Algorithm panel's options, the status bar's rows, partitions and
dashboard, Cancel, and a failure that keeps the previous tree."""

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    from engine.scale.cluster import Cluster

    with Cluster(n_workers=1, processes=False) as c:
        yield c


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["cls"] = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    for k in range(3):
        df.iloc[k * 1000 : (k + 1) * 1000].to_parquet(tmp_path / f"part.{k}.parquet")
    return str(tmp_path)


def _open(qtbot, window, folder):
    job = window.large.open(folder)
    qtbot.waitUntil(lambda: job.done and window.large.dialog is not None, timeout=30000)
    return window.large.dialog


def test_the_preview_is_marked_and_read_only(qtbot, window, folder):
    dialog = _open(qtbot, window, folder)
    assert dialog.preview.rowCount() == 200 and dialog.preview.columnCount() == 4
    assert dialog.preview.editTriggers() == dialog.preview.EditTrigger.NoEditTriggers
    assert dialog.target.currentText() == "cls"
    assert (
        "Preview" in dialog.heading.text() and "3 partition(s), 3,000 rows" in dialog.heading.text()
    )
    assert window.doc.n_rows == 14  # the open table (weather) is untouched by a preview


def test_training_shows_the_tree_and_says_rows_partitions_and_dashboard(
    qtbot, window, folder, cluster
):
    window.large._cluster = lambda address: cluster
    window.controller.set_options({"algorithm": "cart", "max_depth": 3, "prune": "none"}, 10, 1)
    _open(qtbot, window, folder)
    job = window.large.train()
    qtbot.waitUntil(lambda: job.done, timeout=120000)
    qtbot.waitUntil(lambda: "Trained over partitions" in window.status_label.text(), timeout=5000)
    assert not window.dialogs.errors
    tree = window.controller.tree
    assert tree is not None and tree.root.weight == 3000 and tree.depth == 3
    text = window.status_label.text()
    assert "3,000 rows in 3 partition(s)" in text and "dashboard" in text
    assert window.doc.n_rows == 0 and list(window.doc.frame.columns) == ["a", "b", "c", "cls"]


def test_a_failed_training_keeps_the_previous_tree(qtbot, window, folder):
    from engine.errors import ArborError

    def lost(address):
        raise ArborError("cannot reach the Dask scheduler at tcp://nowhere:1 (refused)")

    before = window.controller.tree
    window.large._cluster = lost
    _open(qtbot, window, folder)
    job = window.large.train()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    qtbot.waitUntil(lambda: bool(window.dialogs.errors), timeout=5000)
    assert "cannot reach the Dask scheduler" in window.dialogs.errors[-1][0]
    assert window.controller.tree is before
    assert "previous tree is unchanged" in window.status_label.text()
