"""Test rows on the tree in the window (issue 32): a test file's rows counted on every node,
in the inspector and the nodes' labels, and training against test error as the tree changes."""

import pytest

from engine.data.encoding import encode_like
from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.evaluate.per_node import node_rows
from engine.export.labels import number


def _train(qtbot, window, **params):
    c = window.controller
    c.set_options({"algorithm": "id3", **params}, 0, 1)
    with qtbot.waitSignal(c.runs_changed, timeout=60000):
        job = c.train()
    qtbot.waitUntil(lambda: job.done, timeout=60000)


def _test_file(tmp_path, name="weather"):
    frame = load_sample(name).frame.astype(object)
    frame.loc[0, frame.columns[-1]] = "yes"  # the tree says no: one error
    frame.loc[3, frame.columns[0]] = None  # missing the root's attribute: shared out
    path = tmp_path / "test.csv"
    frame.to_csv(path, index=False)
    return path


def _evaluate_on(qtbot, window, path):
    c = window.controller
    with qtbot.waitSignal(c.held_out_changed, timeout=60000):
        job = window.evaluating.test_file(path=str(path))
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    qtbot.wait(50)


def test_a_test_files_rows_are_counted_on_every_node(qtbot, window, tmp_path):
    _train(qtbot, window)
    path = _test_file(tmp_path)
    _evaluate_on(qtbot, window, path)
    c = window.controller
    assert c.held_out.label == "test set test.csv"
    figures = c.test_figures()
    tree = c.tree
    expected = node_rows(
        tree, encode_like(read_table(str(path), target="play"), tree.schema), "id3"
    )
    assert figures.test_n.tolist() == pytest.approx(expected.test_n.tolist())
    # Per-node test counts add up to the test set: 14 rows, the leaves share them out.
    assert figures.test_n[0] == 14
    assert figures.test_n[figures.leaf].sum() == pytest.approx(14)
    assert figures.leaf_sums()[1] == pytest.approx(expected.leaf_sums()[1])
    # The inspector shows the selected node's rows on both sides.
    c.select_node(0)
    text = window.inspector.text()
    assert "Training and test rows" in text and "test set test.csv" in text
    assert "<td>rows</td><td align=right>14</td><td align=right>14</td>" in text
    # The nodes say it too: the label is switched on with the test rows.
    assert window.act["label_test"].isChecked()
    items = window.canvas.tree_scene().items_by_id
    root_lines = items[0].lines
    errors = figures.test_errors[0]
    assert f"test 14 · {errors:g} wrong" in root_lines and "train 14 · 5 wrong" in root_lines
    leaf = next(n for n in tree.nodes() if n.is_leaf)
    k = figures.position[leaf.id]
    shown = number(round(float(figures.test_n[k]), 1))
    assert any(line.startswith(f"test {shown} · ") for line in items[leaf.id].lines)


def test_test_rows_go_with_the_table(qtbot, window, tmp_path):
    _train(qtbot, window)
    _evaluate_on(qtbot, window, _test_file(tmp_path))
    window.files.open_sample("iris", confirmed=True)
    assert window.controller.held_out is None and window.controller.test_figures() is None
