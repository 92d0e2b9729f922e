"""Test rows on the tree in the window (issue 32): a test file's rows counted on every node,
in the inspector and the nodes' labels, and training against test error as the tree changes."""

import numpy as np
import pytest

from engine.data.encoding import encode_like
from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.evaluate.per_node import node_rows
from engine.export.labels import number


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``: no test rows, the
    node labels' checks as new); each test trains its own tree."""
    return shared_window


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
    window.inspector.pin_node(0)  # a pinned card keeps them too
    pinned = window.inspector._pins.itemAt(0).widget().text()
    assert "Training and test rows" in pinned
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


def test_the_growth_steps_plot_training_against_test_error(qtbot, window, tmp_path):
    _train(qtbot, window)
    path = _test_file(tmp_path)
    _evaluate_on(qtbot, window, path)
    growth = window.growth
    growth.start_over()
    while growth.step():
        pass
    plot = growth.errors
    test = encode_like(read_table(str(path), target="play"), window.controller.tree.schema)
    trees = [t for _, t in growth._grown]
    assert [s for s, _ in growth._grown] == list(range(len(trees)))
    for k, tree in enumerate(trees):
        figures = node_rows(tree, test, "id3")
        assert plot.train[k] == pytest.approx(figures.error_rates()[0])
        assert plot.test[k] == pytest.approx(figures.error_rates()[1])
    assert plot.train[0] == pytest.approx(5 / 14) and plot.train[-1] == 0
    xs, ys = plot.lines["test"].getData()
    assert list(ys) == pytest.approx(list(plot.test)) and len(xs) == len(trees)
    assert "test set test.csv" in plot.legend.text()


def test_the_cart_path_and_the_c45_walk_plot_test_error(qtbot, window, tmp_path):
    from engine.evaluate.per_node import error_curve
    from engine.prune.cost_complexity import prune_to_step

    window.files.open_sample("iris", confirmed=True)
    _train(qtbot, window, algorithm="cart")
    frame = load_sample("iris").frame.iloc[::3]
    path = tmp_path / "iris-test.csv"
    frame.to_csv(path, index=False)
    _evaluate_on(qtbot, window, path)
    pruning = window.pruning
    test = encode_like(read_table(str(path), target="class"), window.controller.tree.schema)
    names = [label.text for _, label in pruning.legend.items]
    assert "test error" in names
    curve = next(item for item in pruning.plot.listDataItems() if item.opts["symbol"] == "d")
    _, ys = curve.getData()
    trees = [prune_to_step(pruning.full, pruning.path, int(k)) for k in pruning.steps]
    expected = error_curve(trees, test, "cart")
    assert list(ys) == pytest.approx(list(expected.test))
    # C4.5's walk-through: a point per state, the test error of each.
    _train(qtbot, window, algorithm="c45")
    pruning.walk_to(0)
    plot = pruning.walk_errors
    record = pruning.record
    states = [record.tree_at(record.decisions[k].step) for k in pruning.walk]
    states.append(pruning.pruned_tree)
    expected = error_curve(states, test, "c45")
    assert list(plot.test) == pytest.approx(list(expected.test))
    assert list(plot.train) == pytest.approx(list(expected.train))
    assert plot.marked == 0
    pruning.walk_to(len(pruning.walk))
    assert plot.marked == len(plot.x) - 1


def test_a_split_trains_on_its_share_and_keeps_the_rest_on_the_tree(qtbot, window):
    from engine.data.encoding import encode, subset
    from engine.evaluate.evaluation import holdout_rows

    window.files.open_sample("iris", confirmed=True)
    c = window.controller
    c.set_options({"algorithm": "c45"}, 0, 1)
    with qtbot.waitSignal(c.held_out_changed, timeout=60000):
        job = window.controller.train_split(66)
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    data = encode(load_sample("iris"))
    train_rows, test_rows = holdout_rows(data, 66, 1)
    assert c.data.n_rows == len(train_rows) == 99 and c.tree.root.weight == 99
    figures = c.test_figures()
    assert figures.test_n[0] == len(test_rows) == 51
    assert figures.test_n[figures.leaf].sum() == pytest.approx(51)  # adds up to the test set
    run = c.runs[c.runs.numbers()[-1]]
    ev = run.evaluations[-1]
    assert ev.method == "66% train / rest test" and ev.n == 51
    assert figures.error_rates()[1] == pytest.approx(1 - ev.accuracy)
    assert "held out" in c.held_out.label
    expected = node_rows(c.tree, subset(data, test_rows), "c45")
    assert figures.test_errors.tolist() == pytest.approx(expected.test_errors.tolist())
    # The rows a node selects in the table are its training rows, never the held-out ones.
    selected = c.rows_reaching(0)
    assert selected == set(train_rows.tolist())
    # Growing step by step stays on the training part, the rest counted on each step.
    growth = window.growth
    growth.start_over()
    assert c.data.n_rows == 99 and c.held_out is not None
    growth.step()
    assert growth.errors.test is not None and len(growth.errors.test) == 2
    # Training on every row takes the held-out rows back: they are training rows again.
    with qtbot.waitSignal(c.held_out_changed, timeout=60000):
        job = c.train()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    assert c.held_out is None and c.test_figures() is None


def test_big_test_sets_are_counted_on_a_worker_with_the_same_numbers(
    qtbot, window, tmp_path, monkeypatch
):
    import gui.session.jobs
    from engine.evaluate.per_node import error_curve
    from engine.prune.cost_complexity import prune_to_step

    # Every count "too big" for the window's thread: all of them go to workers.
    monkeypatch.setattr(gui.session.jobs, "COUNT_AT_ONCE", 0)
    window.files.open_sample("iris", confirmed=True)
    _train(qtbot, window, algorithm="cart")
    c = window.controller
    frame = load_sample("iris").frame.iloc[1::3]
    path = tmp_path / "iris-test.csv"
    frame.to_csv(path, index=False)
    with qtbot.waitSignal(c.test_counted, timeout=60000):
        _evaluate_on(qtbot, window, path)
    test = encode_like(read_table(str(path), target="class"), c.tree.schema)
    expected = node_rows(c.tree, test, "cart")
    assert c.test_figures().test_n.tolist() == pytest.approx(expected.test_n.tolist())
    assert c.test_figures().test_n[0] == 50
    pruning = window.pruning

    def drawn():
        return [i for i in pruning.plot.listDataItems() if i.opts["symbol"] == "d"]

    qtbot.waitUntil(lambda: bool(drawn()), timeout=60000)
    trees = [prune_to_step(pruning.full, pruning.path, int(k)) for k in pruning.steps]
    _, ys = drawn()[0].getData()
    assert list(ys) == pytest.approx(list(error_curve(trees, test, "cart").test))
    growth = window.growth
    growth.start_over()
    growth.step()
    qtbot.waitUntil(lambda: not np.isnan(growth.errors.test).any(), timeout=60000)
    steps = [t for _, t in growth._grown]
    assert list(growth.errors.test) == pytest.approx(list(error_curve(steps, test, "cart").test))


# ---------------------------------------------------------------- cross-validation's held-out rows
def _cv_rows_expected(window, folds: int, algorithm: str):
    """The engine's figures for the window's tree: its cross-validation's out-of-fold rows."""
    from engine.evaluate.evaluation import cross_validate_outputs
    from engine.evaluate.per_node import fold_predictions

    c = window.controller
    ev, out = cross_validate_outputs(c.data, c.settings, folds, 1)
    predictions = fold_predictions(c.data, out, algorithm)
    return ev, node_rows(c.tree, c.data, algorithm, predictions)


def test_cross_validations_held_out_rows_go_on_the_tree_when_asked(qtbot, window):
    c = window.controller
    c.set_options({"algorithm": "id3"}, 5, 1)
    with qtbot.waitSignal(c.runs_changed, timeout=60000):
        job = c.train()
    # The fit, then its cross-validation (a job of its own since issue 39).
    qtbot.waitUntil(lambda: job.done and c.figures is not None and c.figures.cv is not None)
    qtbot.wait(20)
    # A training's own cross-validation puts nothing on the tree unasked: a button offers it.
    assert c.held_out is None
    button = window.results.cv_rows_button
    assert button.isVisibleTo(window.results) and "out-of-fold" in button.toolTip()
    button.click()
    held = c.held_out
    assert held.cross_validated and "cross-validation" in held.label
    assert not button.isVisibleTo(window.results)
    ev, expected = _cv_rows_expected(window, 5, "id3")
    figures = c.test_figures()
    assert figures.out_of_fold
    assert figures.test_n.tolist() == expected.test_n.tolist()
    assert figures.test_errors.tolist() == expected.test_errors.tolist()
    # Every row once; the leaves' errors are the cross-validation's wrong predictions.
    wrong = ev.n - np.trace(ev.confusion)
    assert figures.test_n[0] == 14 and figures.test_n[figures.leaf].sum() == 14
    assert (
        figures.leaf_sums()[1]
        == wrong
        == c.figures.cv.tree.n - np.trace(c.figures.cv.tree.confusion)
    )
    # The nodes and the inspector say which rows these are.
    assert window.act["label_test"].isChecked()
    root_lines = window.canvas.tree_scene().items_by_id[0].lines
    assert f"CV held-out 14 · {figures.test_errors[0]:g} wrong" in root_lines
    assert "train 14 · 5 wrong" in root_lines
    c.select_node(0)
    text = window.inspector.text()
    assert "Training and CV held-out rows" in text and "out-of-fold prediction" in text
    assert "<th align=right>CV held-out</th>" in text
    assert f"<td align=right>{figures.test_errors[0]:g} (" in text
    # The growth steps draw no test curve for them, and say why.
    growth = window.growth
    growth.start_over()
    growth.step()
    assert growth.errors.test is None
    assert "fold trees" in growth.errors.legend.text()
    # A step's tree does not take them (the fold trees were the trained tree's recipe's).
    assert c.tree is not held.only() and c.test_figures() is None
    assert not any(line.startswith("CV held-out") for line in _root_lines(window))


def _root_lines(window):
    return window.canvas.tree_scene().items_by_id[0].lines


def test_cross_validating_a_tree_by_hand_puts_its_rows_on_it(qtbot, window):
    c = window.controller
    c.set_options({"algorithm": "cart"}, 0, 1)
    with qtbot.waitSignal(c.runs_changed, timeout=60000):
        job = c.train()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    assert c.figures.cv is None
    with qtbot.waitSignal(c.held_out_changed, timeout=60000):
        c.cross_validate_tree()
    assert c.held_out.cross_validated
    ev, expected = _cv_rows_expected(window, 10, "cart")
    assert f"CV held-out 14 · {expected.test_errors[0]:g} wrong" in _root_lines(window)
    figures = c.test_figures()
    assert figures.test_errors.tolist() == pytest.approx(expected.test_errors.tolist())
    assert figures.leaf_sums()[1] == pytest.approx(ev.n - np.trace(ev.confusion))
    assert figures.test_n[figures.leaf].sum() == pytest.approx(14)
    # No test curve along CART's pruning path: the fold trees differ; the panel says so.
    pruning = window.pruning
    assert pruning._path_test() is None
    assert pruning.test_note.isVisibleTo(pruning) or not pruning.isVisible()
    assert not pruning.test_note.isHidden() and "fold trees" in pruning.test_note.text()
    names = [label.text for _, label in pruning.legend.items]  # drawn now if it waited
    assert "test error" not in names


def test_a_walk_counted_on_a_worker_waits_until_its_plot_is_looked_at(qtbot, window, monkeypatch):
    """A big tree's walk-through errors are counted on a worker (each point a tree to route),
    started only once the plot shows or its numbers are read: after every C4.5 training of a
    thousand rows that count held a worker and the interpreter for a second, its plot unseen,
    and the next F5 waited on it. A newer training's walk cancels an older count."""
    import gui.panels.pruning as pruning_panel
    from engine.data.encoding import without_rows
    from engine.evaluate.per_node import error_curve

    monkeypatch.setattr(pruning_panel, "NODES_AT_ONCE", 0)  # every walk counted on a worker
    window.files.open_sample("iris", confirmed=True)
    _train(qtbot, window, algorithm="c45")
    pruning = window.pruning
    plot = pruning.walk_errors
    assert not plot.isVisible() and pruning._walk_job is None  # nothing counted yet
    assert len(plot.x) == 0  # reading the numbers starts the count...
    first = pruning._walk_job
    assert first is not None
    qtbot.waitUntil(lambda: len(plot.x) > 0, timeout=60000)  # ...and they come
    record = pruning.record
    states = [record.tree_at(record.decisions[k].step) for k in pruning.walk]
    expected = error_curve([*states, pruning.pruned_tree], without_rows(record.before.schema))
    assert list(plot.train) == pytest.approx(list(expected.train))
    _train(qtbot, window, algorithm="c45", seed=2)  # a newer record: nothing counted yet
    assert pruning._walk_job is None and first.done
    _ = plot.x
    second = pruning._walk_job
    _train(qtbot, window, algorithm="c45", seed=3)  # a count started, then not wanted
    assert pruning._walk_job is None and second.monitor.cancelled
