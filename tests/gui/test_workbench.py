"""The evaluation workbench: runs, their figures and curves, comparison, test files, predictions, text."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.evaluate.evaluation import cross_val_predict


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``: weather, no runs,
    so run numbers start at 1 again), with the curves tab back on its first kind and the text
    tab on the tree. Each test trains its own runs."""
    shared_window.evaluation.curves.kind.setCurrentIndex(0)
    shared_window.tree_text.view.setCurrentIndex(0)
    return shared_window


def _train(qtbot, window, cv_folds=10, **params):
    """Train with these options, set on the controller (the form's own tests drive the form)."""
    c = window.controller
    c.set_options({"algorithm": "c45", **params}, cv_folds, 1)
    with qtbot.waitSignal(c.runs_changed, timeout=60000):
        job = c.train()
    # The fit, then the cross-validation that follows it as a job of its own (issue 39).
    qtbot.waitUntil(lambda: job.done and not c.busy and not c.cv_pending, timeout=60000)
    return job


def _wait_job(qtbot, job):
    assert job is not None, "no job started"
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    qtbot.wait(50)  # the finished signal's slots run on the GUI thread


def test_every_training_adds_a_run_with_its_settings_size_and_figures(qtbot, window):
    _train(qtbot, window, cv_folds=0, algorithm="id3")
    _train(qtbot, window, cv_folds=5, algorithm="c45", confidence=0.1)
    runs = list(window.controller.runs)
    assert [r.number for r in runs] == [1, 2]
    first, second = runs
    assert first.title == "ID3 on weather" and (first.n_leaves, first.n_nodes) == (5, 8)
    assert [ev.method for ev in first.evaluations] == ["training set"]
    assert [ev.method for ev in second.evaluations] == ["training set", "5-fold cross-validation"]
    model = window.runs.model
    assert model.rowCount() == 2
    assert model.data(model.index(0, 1)) == "ID3 · weather"
    assert model.data(model.index(1, 1)) == "C4.5, confidence 0.1 · weather"
    assert model.data(model.index(0, 3)) == "100.0%"
    cv = second.evaluations[1]
    assert model.data(model.index(1, 4)) == f"{100 * cv.accuracy:.1f}% CV"
    assert window.controller.selected_run == 2  # the newest run is selected
    assert window.evaluation.choice.currentText() == "5-fold cross-validation"
    assert window.evaluation.report.toPlainText().startswith(
        "=== 5-fold cross-validation (14 instances) ==="
    )


def test_iris_roc_areas_on_screen_equal_scikit_learns(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    _train(qtbot, window, cv_folds=10, algorithm="c45")
    data = encode(load_sample("iris"))
    proba, _ = cross_val_predict(data, DecisionTree(algorithm="c45").settings(), 10, 1)
    panel = window.evaluation
    ev = panel.evaluation()
    assert ev.method == "10-fold cross-validation"
    for k, name in enumerate(data.schema.classes):
        expected = roc_auc_score(data.y == k, proba[:, k])
        assert ev.curves[k].roc_auc == pytest.approx(expected, abs=1e-12)
        assert panel.per_class.verticalHeaderItem(k).text() == name
        assert panel.per_class.item(k, 3).text() == f"{expected:.3f}"
    # The curves tab draws one line per class, from (0, 0) to (1, 1).
    curves = panel.curves
    assert set(curves.lines) == set(data.schema.classes)
    xs, ys = curves.lines["Iris-setosa"].getData()
    assert (xs[0], ys[0], xs[-1], ys[-1]) == (0, 0, 1, 1)
    assert "AUC" in curves.legend.text()
    curves.kind.setCurrentText("Precision-recall")
    assert "AP" in curves.legend.text() and set(curves.lines) == set(data.schema.classes)


def test_two_runs_compared_side_by_side(qtbot, window):
    _train(qtbot, window, cv_folds=0, algorithm="id3")
    _train(qtbot, window, cv_folds=0, algorithm="c45")
    window.compare_runs(1, 2)
    view = window.compare_window
    assert view.isVisible()
    labels = [view.table.verticalHeaderItem(r).text() for r in range(view.table.rowCount())]
    row = {label: r for r, label in enumerate(labels)}
    assert view.table.item(row["Settings"], 0).text() == "ID3"
    assert view.table.item(row["Settings"], 1).text() == "C4.5"
    a, b = window.controller.runs[1], window.controller.runs[2]
    assert view.table.item(row["Leaves"], 0).text() == str(a.n_leaves)
    assert view.table.item(row["Leaves"], 1).text() == str(b.n_leaves)
    assert view.table.item(row["Leaves"], 2).text() == f"{b.n_leaves - a.n_leaves:+,}"
    accuracy_diff = 100 * (b.evaluations[0].accuracy - a.evaluations[0].accuracy)
    assert view.table.item(row["Accuracy"], 2).text() == f"{accuracy_diff:+.2f} points"
    # Both trees are drawn, each in its own canvas.
    assert view.tree_a.canvas.tree() is a.tree and view.tree_b.canvas.tree() is b.tree
    assert view.confusion_a.table.rowCount() == 2 and view.confusion_b.isVisible()
    assert "Run 1" in view.figures_text().splitlines()[0]


def test_a_run_evaluated_on_a_test_file(qtbot, window, tmp_path):
    _train(qtbot, window, cv_folds=0, algorithm="id3")
    frame = load_sample("weather").frame.astype(object)
    frame.loc[0, "play"] = "yes"  # the tree says no: one error
    path = tmp_path / "test.csv"
    frame.to_csv(path, index=False)
    _wait_job(qtbot, window.evaluating.test_file(path=str(path)))
    run = window.controller.runs[1]
    ev = run.evaluations[-1]
    assert ev.method == "test set test.csv" and ev.n == 14
    assert ev.accuracy == pytest.approx(13 / 14)
    assert window.evaluation.choice.currentText() == "test set test.csv"
    assert window.runs.model.data(window.runs.model.index(0, 4)) == "92.9% test"


def test_a_percentage_split_of_a_run(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    _train(qtbot, window, cv_folds=0, algorithm="c45")
    _wait_job(qtbot, window.evaluating.split(66))
    ev = window.controller.runs[1].evaluations[-1]
    assert ev.method == "66% train / rest test"
    assert ev.n == 51  # 17 of each class held out (a third, stratified)


def test_predictions_saved_for_a_file(qtbot, window, tmp_path):
    _train(qtbot, window, cv_folds=0, algorithm="id3")
    source = tmp_path / "new.csv"
    load_sample("weather").frame.drop(columns=["play"]).to_csv(source, index=False)
    out = tmp_path / "predicted.csv"
    _wait_job(qtbot, window.evaluating.predict_file(str(source), str(out)))
    saved = pd.read_csv(out)
    expected = (
        DecisionTree(algorithm="id3").fit(load_sample("weather")).predict(load_sample("weather"))
    )
    assert saved["predicted play"].tolist() == list(expected)
    assert list(saved.columns) == [
        *load_sample("weather").frame.columns.drop("play"),
        "predicted play",
        "P(yes)",
        "P(no)",
    ]  # the classes in the data's order
    assert np.allclose(saved[["P(yes)", "P(no)"]].sum(axis=1), 1)


def test_the_tree_and_its_rules_as_text(qtbot, window):
    _train(qtbot, window, cv_folds=0, algorithm="id3")
    panel = window.tree_text
    panel.refresh()
    text = panel.plain_text()
    assert text.startswith("outlook = sunny\n|   humidity = high: no (3.0)\n")
    assert "Number of Leaves  : \t5" in text
    panel.view.setCurrentText("Rules")
    panel.refresh()
    assert "IF outlook = sunny AND humidity = high THEN play = no  (3/3)" in panel.plain_text()
    panel.copy()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == panel.plain_text()


def test_a_run_whose_tree_was_dropped_is_grown_again(qtbot, window, monkeypatch):
    from engine import runs as runs_module

    monkeypatch.setattr(runs_module, "KEEP_TREES", 1)
    _train(qtbot, window, cv_folds=0, algorithm="id3")
    _train(qtbot, window, cv_folds=0, algorithm="c45")
    c = window.controller
    assert c.runs[1].tree is None
    c.select_run(1)
    _wait_job(qtbot, c.show_run(1))
    assert c.tree.n_leaves == 5 and c.runs[1].tree is c.tree and c.origin == "run"
    assert c.data is not None and c.settings.algorithm == "id3"


def test_runs_are_saved_in_a_project(qtbot, window, tmp_path):
    _train(qtbot, window, cv_folds=5, algorithm="id3")
    path = tmp_path / "s.arbor"
    window.files.write_project(path)
    window.controller.load_runs(type(window.controller.runs)())
    assert len(window.controller.runs) == 0
    window.files.open_project(path)
    runs = list(window.controller.runs)
    assert [r.number for r in runs] == [1] and runs[0].tree is None
    assert [ev.method for ev in runs[0].evaluations] == ["training set", "5-fold cross-validation"]
    assert window.runs.model.rowCount() == 1
