"""The runs log: what a run keeps, its bounds, and a project that saves it."""

import numpy as np
import pytest

from engine import runs as runs_module
from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.evaluate.evaluation import cross_validate, evaluate_tree
from engine.project import Project, load_project, save_project
from engine.runs import RunLog, data_key, figure, settings_summary
from engine.settings import resolve


def _fields(table, **params):
    model = DecisionTree(**params).fit(table)
    data = encode(table, model.settings_.task)
    tree = model.tree_
    evaluations = (
        evaluate_tree(tree, data, "training set"),
        cross_validate(data, model.settings_, 5, 1),
    )
    return dict(
        when="2024-01-01 10:00",
        data_name="iris",
        n_rows=data.n_rows,
        data_key=data_key(table),
        settings=model.settings_,
        n_nodes=tree.n_nodes,
        n_leaves=tree.n_leaves,
        depth=tree.depth,
        evaluations=evaluations,
        notes=tuple(model.notes_),
        tree=tree,
    )


def test_a_run_says_what_it_was():
    table = load_sample("iris")
    log = RunLog()
    run = log.add(**_fields(table, algorithm="cart", max_depth=2))
    assert (run.number, run.title, run.n_leaves) == (1, "CART on iris", 3)
    assert settings_summary(run.settings) == "CART, max depth 2"
    assert run.honest.method == "5-fold cross-validation"
    assert figure(run.evaluations[0]) == "96.00% (training set)"  # CART depth 2 on iris: 144/150
    assert (
        settings_summary(resolve(algorithm="c45", confidence=0.1, prune="pessimistic"))
        == "C4.5, confidence 0.1"
    )


def test_a_summary_leaves_out_options_the_algorithm_does_not_use():
    # What the window's panel sends for C4.5: CART's alpha and the reduced-error holdout too.
    assert settings_summary(resolve(algorithm="c45", alpha=0.0, holdout=0.25)) == "C4.5"
    assert (
        settings_summary(resolve(algorithm="c45", prune="none", confidence=0.1))
        == "C4.5, prune none"
    )
    assert (
        settings_summary(resolve(algorithm="cart", prune="reduced-error", holdout=0.25))
        == "CART, prune reduced-error, holdout 0.25"
    )


def test_the_log_is_bounded(monkeypatch):
    monkeypatch.setattr(runs_module, "MAX_RUNS", 6)
    monkeypatch.setattr(runs_module, "KEEP_TREES", 2)
    monkeypatch.setattr(runs_module, "KEEP_CURVES", 3)
    fields = _fields(load_sample("iris"), algorithm="c45")
    log = RunLog()
    for _ in range(8):
        log.add(**fields)
    assert log.numbers() == [3, 4, 5, 6, 7, 8]
    assert [log[n].tree is not None for n in log.numbers()] == [False] * 4 + [True] * 2
    kept = [len(log[n].evaluations[1].curves[0].roc) > 0 for n in log.numbers()]
    assert kept == [False] * 3 + [True] * 3
    # Figures and areas stay when the points go.
    old, new = log[3].evaluations[1], log[8].evaluations[1]
    assert old.accuracy == new.accuracy and old.roc_auc == new.roc_auc
    assert np.array_equal(old.confusion, new.confusion)


def test_the_data_key_follows_the_contents():
    table = load_sample("weather")
    assert data_key(table) == data_key(load_sample("weather"))
    frame = table.frame.copy()
    frame.loc[0, "temperature"] = "mild"
    assert data_key(make_table(frame, target=table.target, kinds=table.kinds)) != data_key(table)
    assert data_key(table.with_target("windy")) != data_key(table)


def test_a_project_keeps_the_runs_without_their_trees(tmp_path):
    table = load_sample("iris")
    log = RunLog()
    log.add(**_fields(table, algorithm="c45"))
    log.add(**_fields(table, algorithm="cart", task="classification"))
    log.remove(1)
    path = tmp_path / "session.arbor"
    save_project(Project(table, runs=log), path)
    back = load_project(path).runs
    assert back.numbers() == [2] and back.next_number == 3
    run, original = back[2], log[2]
    assert (
        run.tree is None and run.settings == original.settings and run.data_key == original.data_key
    )
    for ours, theirs in zip(run.evaluations, original.evaluations, strict=True):
        assert ours.method == theirs.method and ours.accuracy == theirs.accuracy
        assert ours.precision == theirs.precision and np.array_equal(
            ours.confusion, theirs.confusion
        )
        assert [c.roc_auc for c in ours.curves] == [c.roc_auc for c in theirs.curves]
        assert all(
            np.allclose(a.roc, b.roc) for a, b in zip(ours.curves, theirs.curves, strict=True)
        )


def test_a_regression_run_round_trips(tmp_path):
    table = load_sample("weather-numeric").with_target("temperature")
    log = RunLog()
    log.add(**_fields(table, algorithm="cart", task="regression"))
    path = tmp_path / "r.arbor"
    save_project(Project(table, runs=log), path)
    ev = load_project(path).runs[1].evaluations[1]
    assert ev.rmse == log[1].evaluations[1].rmse and np.allclose(
        ev.points, log[1].evaluations[1].points
    )


def test_damaged_runs_are_refused(tmp_path):
    import json

    table = load_sample("weather")
    log = RunLog()
    log.add(**_fields(table, algorithm="id3"))
    path = tmp_path / "p.arbor"
    save_project(Project(table, runs=log), path)
    doc = json.loads(path.read_text())
    doc["runs"][0]["evaluations"][0]["confusion"] = [[1, 2]]
    path.write_text(json.dumps(doc))
    with pytest.raises(
        ArborError, match="runs: run 1: evaluation 1: the confusion matrix must be 2 rows of 2"
    ):
        load_project(path)
    doc["runs"][0]["evaluations"] = "x" * 10
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="the evaluations must be a list, not text"):
        load_project(path)
    doc["runs"] = [{"number": 1}] * 2
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="run 1: a run needs its settings"):
        load_project(path)
