"""The cost matrix as a learner option (issue 33, item 1): each leaf predicts its class of
least expected cost, its probabilities unchanged; the matrix travels in model files, checked."""

import json

import numpy as np
import pandas as pd
import pytest

from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.model_json import tree_from_dict, tree_to_dict
from engine.export.model_schema import Damaged
from engine.export.text import to_text
from engine.predict import predict_class, predict_proba

# A missed "yes" costs 5, a false "yes" 1: predicting yes costs p_no * 1, predicting no
# p_yes * 5, so a leaf predicts yes once p_yes > 1/6.
COSTS = "actual,no,yes\nno,0,1\nyes,5,0\n"
# One nominal attribute, one ID3 leaf per value: p 4 no 1 yes (p_yes 0.2: no costs 1.0, yes
# 0.8 -> yes), s 7 no 1 yes (0.125: no 0.625, yes 0.875 -> no), q all no, r 1 no 3 yes.
GROUPS = {"p": (4, 1), "s": (7, 1), "q": (3, 0), "r": (1, 3)}


def _table():
    a, y = [], []
    for value, (no, yes) in GROUPS.items():
        a += [value] * (no + yes)
        y += ["no"] * no + ["yes"] * yes
    return make_table(pd.DataFrame({"a": a, "y": y}))


def _fit(**options):
    return DecisionTree(algorithm="id3", prune="none", **options).fit(_table())


def _codes(model, values):
    from engine.data.encoding import encode_columns

    X = encode_columns(pd.DataFrame({"a": values}), model.tree_.schema.attributes)
    return X, predict_class(model.tree_, X, "id3")


def test_least_expected_cost_moves_only_the_leaf_it_should():
    plain, costed = _fit(), _fit(costs=COSTS)
    assert costed.tree_.costs == ((0.0, 1.0), (5.0, 0.0))
    X, before = _codes(plain, ["p", "s", "q", "r"])
    _, after = _codes(costed, ["p", "s", "q", "r"])
    assert before.tolist() == [0, 0, 0, 1]
    assert after.tolist() == [1, 0, 0, 1]  # only p's leaf (p_yes 0.2 > 1/6) turns to yes
    np.testing.assert_allclose(predict_proba(costed.tree_, X), predict_proba(plain.tree_, X))
    np.testing.assert_allclose(predict_proba(costed.tree_, X)[0], [0.8, 0.2])
    assert "a = p: yes (5.0/4.0)" in to_text(costed.tree_)  # the leaf label says so too
    assert "a = p: no (5.0/1.0)" in to_text(plain.tree_)


def test_without_costs_nothing_changes_and_regression_ignores_them():
    assert _fit().tree_.costs == ()
    with pytest.raises(ArborError, match="no column for 'yes'|'maybe' is not a class"):
        _fit(costs="x,no,maybe\nno,0,1\nmaybe,1,0\n")


def test_model_file_round_trip_and_damaged_matrices_refused():
    tree = _fit(costs=COSTS).tree_
    data = json.loads(json.dumps(tree_to_dict(tree)))
    assert data["costs"] == [[0.0, 1.0], [5.0, 0.0]]
    back, _ = tree_from_dict(data)
    assert back.costs == tree.costs
    for bad, message in [
        ([[0, 1]], "1 rows for 2 classes"),
        ([[0, 1], [5]], "row 2 has 1 costs"),
        ([[0, 1], [-5, 0]], "at least 0"),
        ([[0, 1], ["5", 0]], "cost"),
        ([[1, 1], [5, 0]], "charges a correct 'no' 1"),
        ([[0, 1], [float("inf"), 0]], "finite"),
        ("0 1 5 0", "'costs'"),
    ]:
        with pytest.raises(Damaged, match=message):
            tree_from_dict({**data, "costs": bad})


def test_cross_validation_and_evaluation_count_the_costed_classes():
    from engine.data.encoding import encode
    from engine.evaluate.evaluation import evaluate_tree

    model = _fit(costs=COSTS)
    ev = evaluate_tree(model.tree_, encode(_table()), "training set", "id3")
    # p's 4 no rows now wrong, its 1 yes right; s's 1 yes and r's 1 no stay wrong.
    assert ev.confusion.tolist() == [[10.0, 5.0], [1.0, 4.0]]


ROWS = ["p", "s", "q", "r", None]  # None: missing, sent down every branch by the shares
# The missing row's probabilities are the root's, p_yes 5/20 = 0.25 > 1/6: yes with costs.
EXPECTED = ["yes", "no", "no", "yes", "yes"]


def test_exporters_pick_the_least_cost_class_as_predict_does():
    import sqlite3

    from engine.export.html_page import page_model
    from engine.export.pmml import to_pmml
    from engine.export.python_code import to_python
    from engine.export.sql import to_sql
    from engine.predict import prediction_frame

    tree = _fit(costs=COSTS).tree_
    frame = pd.DataFrame({"a": ROWS})
    assert prediction_frame(tree, frame, algorithm="id3")["predicted y"].tolist() == EXPECTED
    db = sqlite3.connect(":memory:")
    db.execute('CREATE TABLE data ("a" TEXT)')
    db.executemany("INSERT INTO data VALUES (?)", [(v,) for v in ROWS])
    cursor = db.execute(to_sql(tree, "sqlite", "data", "id3"))
    at = [d[0] for d in cursor.description].index("predicted y")
    assert [row[at] for row in cursor.fetchall()] == EXPECTED
    namespace = {}
    exec(to_python(tree), namespace)
    assert [namespace["predict"]({"a": v}) for v in ROWS] == EXPECTED
    assert 'score="yes"' in to_pmml(tree).split('value="p"')[1].split("</Node>")[0]
    assert page_model(tree, "id3")["costs"] == [[0.0, 1.0], [5.0, 0.0]]


def test_onnx_picks_the_least_cost_class_on_complete_rows():
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from engine.export.onnx_model import onnx_bytes

    model = _fit(costs=COSTS)
    X, codes = _codes(model, ROWS[:4])
    session = ort.InferenceSession(onnx_bytes(model.tree_), providers=["CPUExecutionProvider"])
    label, _ = session.run(None, {"input": np.ascontiguousarray(X, dtype=np.float64)})
    assert list(label) == EXPECTED[:4] == [model.tree_.classes[c] for c in codes]


def test_cost_complexity_counts_each_node_at_its_least_expected_cost():
    from engine.flat import flat_of
    from engine.prune.cost_complexity import node_risk, prune_cost_complexity

    tree = _fit(costs=COSTS).tree_
    # Root (15 no, 5 yes): no costs 25, yes 15. Leaves p (4, 1): 4; s (7, 1): 5; q (3, 0): 0;
    # r (1, 3): 1; together 10. Its weakest link: (15 - 10) / (4 - 1) = 5/3 (errors: 2/3).
    risk = node_risk(flat_of(tree), "errors", tree.costs)
    assert risk.tolist() == [15.0, 4.0, 5.0, 0.0, 1.0]
    assert node_risk(flat_of(tree), "errors").tolist() == [5.0, 1.0, 1.0, 0.0, 1.0]
    assert prune_cost_complexity(tree, 1.6, "errors").n_leaves == 4  # costed: kept
    assert prune_cost_complexity(tree, 1.7, "errors").n_leaves == 1
    assert prune_cost_complexity(tree, 1.0, "errors", costs=()).n_leaves == 1  # errors: cut


def test_c45_pruning_weighs_the_bounded_errors_by_their_cost():
    from engine.prune.bounds import estimated_errors
    from engine.prune.pessimistic import _Pessimistic
    from engine.settings import resolve

    settings = resolve(algorithm="c45", costs=COSTS)
    pessimistic = _Pessimistic(None, settings, None, None, ((0.0, 1.0), (5.0, 0.0)))

    def bound(n, e):
        return estimated_errors(n, e, 0.25, settings.error_estimate)

    figures = {
        (15, 5): bound(20, 15) * 1.0,  # labelled yes: 15 errors costing 15
        (7, 1): bound(8, 1) * 5.0,  # labelled no: 1 error costing 5
        (4, 1): bound(5, 4) * 1.0,  # labelled yes: 4 errors costing 4
        (3, 0): bound(3, 0) * 5.0,  # no error: what one would cost, predicting no for a yes
    }
    for dist, expected in figures.items():
        got = pessimistic._leaf_errors(np.array(dist, dtype=np.float64))
        assert got == pytest.approx(expected, rel=1e-12)
    plain = _Pessimistic(None, settings, None, None, ((0.0, 1.0), (1.0, 0.0)))
    for dist in figures:  # a 0/1 matrix: J48's own figures
        assert plain._leaf_errors(np.array(dist, dtype=np.float64)) == pytest.approx(
            bound(sum(dist), min(dist)), rel=1e-12
        )


def test_a_zero_one_matrix_grows_and_prunes_as_no_matrix():
    from engine.data.samples import load_sample

    table = load_sample("weather")
    classes = table.frame[table.target].cat.categories
    zero_one = (
        "x,"
        + ",".join(classes)
        + "\n"
        + "\n".join(f"{c}," + ",".join("0" if c == d else "1" for d in classes) for c in classes)
    )
    # CART chooses alpha by 10-fold cross-validation: its folds are scored in cost too.
    for options in ({"algorithm": "c45"}, {"algorithm": "cart"}, {"ccp_measure": "errors"}):
        options = {"algorithm": "cart", **options}
        plain = DecisionTree(**options).fit(table).tree_
        costed = DecisionTree(**options, costs=zero_one).fit(table).tree_
        assert to_text(costed) == to_text(plain)


def test_the_scikit_learn_classifier_takes_a_cost_matrix():
    from engine.sklearn import ArborClassifier

    X = np.array([[0.0]] * 5 + [[1.0]] * 5)
    y = np.array(["no"] * 4 + ["yes"] + ["yes"] * 5)
    plain = ArborClassifier(algorithm="cart").fit(X, y)
    costed = ArborClassifier(algorithm="cart", costs=[[0, 1], [4.5, 0]]).fit(X, y)
    # Left leaf (4 no, 1 yes): no costs 0.2 * 4.5 = 0.9, yes 0.8: yes; probabilities unchanged.
    assert plain.predict([[0.0]]).tolist() == ["no"]
    assert costed.predict([[0.0], [1.0]]).tolist() == ["yes", "yes"]
    np.testing.assert_allclose(costed.predict_proba([[0.0]]), [[0.8, 0.2]])
    assert costed.get_params()["costs"] == [[0, 1], [4.5, 0]]
    with pytest.raises(ValueError, match="costs must be 2 by 2"):
        ArborClassifier(costs=[[0, 1]]).fit(X, y)
    with pytest.raises(ValueError, match="a correct prediction costs nothing"):
        ArborClassifier(costs=[[1, 1], [1, 0]]).fit(X, y)


def test_the_command_line_reads_the_matrix_file_into_the_model(tmp_path, capsys):
    from cli.main import main

    costs, model = tmp_path / "costs.csv", tmp_path / "model.json"
    costs.write_text("x yes no\nyes 0 20\nno 1 0\n")  # whitespace; a missed yes costs 20
    assert main(["train", "--sample", "weather", "--costs", str(costs), "--save", str(model)]) == 0
    assert json.loads(model.read_text())["costs"] == [[0.0, 20.0], [1.0, 0.0]]
    capsys.readouterr()
    assert main(["train", "--sample", "weather", "--costs", str(tmp_path / "none.csv")]) == 2
    assert "cannot read the cost matrix" in capsys.readouterr().err


def test_cross_validated_alpha_scores_the_folds_in_cost():
    from engine.data.encoding import encode
    from engine.prune.alpha import choose_alpha
    from engine.settings import resolve

    data = encode(_table())
    settings = resolve(algorithm="cart", ccp_measure="errors", cv_alpha=4, costs=COSTS)
    grown = DecisionTree(algorithm="cart", prune="none", costs=COSTS).fit(_table()).tree_
    choice = choose_alpha(grown, data, settings)
    plain = choose_alpha(
        DecisionTree(algorithm="cart", prune="none").fit(_table()).tree_, data, settings
    )
    # In cost: the path's alphas are in cost, and the held-out cost of the root as a leaf
    # (every row predicted yes, 15 no rows costing 1 each) is 15 of 20 rows.
    assert choice.alphas.max() > plain.alphas.max()
    assert choice.cv_error[-1] == pytest.approx(15 / 20)
    assert plain.cv_error[-1] == pytest.approx(5 / 20)
    # A cost is no 0/1 loss: the standard error is the spread of the rows' costs, here 15
    # rows of 1 and 5 of 0 (the binomial one was NaN wherever the mean cost passed 1).
    assert choice.cv_se[-1] == pytest.approx(np.sqrt((0.75 - 0.75**2) / 20))


def test_a_mean_cost_past_one_has_a_standard_error():
    from engine.data.encoding import encode
    from engine.data.samples import load_sample
    from engine.prune.alpha import choose_alpha
    from engine.settings import resolve

    costs = "actual,yes,no\nyes,0,1\nno,5,0\n"  # a missed "no" costs 5
    table = load_sample("weather")
    grown = DecisionTree(algorithm="cart", prune="none", costs=costs).fit(table).tree_
    settings = resolve(algorithm="cart", ccp_measure="errors", cv_alpha=4, costs=costs)
    choice = choose_alpha(grown, encode(table), settings)
    assert choice.cv_error.max() > 1
    assert np.all(np.isfinite(choice.cv_se)) and np.all(choice.cv_se > 0)


def test_reduced_error_pruning_counts_the_held_out_cost():
    from engine.data.encoding import encode
    from engine.prune.reduced_error import prune_reduced_error

    data = encode(_table())
    s_rows = np.flatnonzero(_table().frame["a"].to_numpy() == "s")  # 7 no, 1 yes
    # Costed: the root as a leaf says yes, costing the 7 no rows 7; s's leaf says no, costing
    # its yes row 5: kept. Counted: 1 error either way, so the root takes over.
    assert prune_reduced_error(_fit(costs=COSTS).tree_, data, s_rows).n_leaves == 4
    assert prune_reduced_error(_fit().tree_, data, s_rows).n_leaves == 1


def test_training_over_partitions_counts_held_out_cost_per_node():
    from engine.scale.pruning import _leaf_loss

    tree = _fit(costs=COSTS).tree_
    held = np.array([node.distribution for node in tree.nodes()])  # the training rows again
    assert _leaf_loss(tree, held).tolist() == [15.0, 4.0, 5.0, 0.0, 1.0]
    assert _leaf_loss(_fit().tree_, held).tolist() == [5.0, 1.0, 1.0, 0.0, 1.0]
