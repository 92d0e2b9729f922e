"""ArborClassifier and ArborRegressor: scikit-learn's own estimator checks, its workflows,
and the same numbers as scikit-learn's trees where the algorithms agree."""

import json
import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.inspection import partial_dependence, permutation_importance  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from engine.data.samples import load_sample  # noqa: E402
from engine.export.model_json import load_model  # noqa: E402
from engine.export.text import to_text  # noqa: E402
from engine.sklearn import ArborClassifier, ArborRegressor  # noqa: E402


@parametrize_with_checks([ArborClassifier(), ArborRegressor(), ArborClassifier(algorithm="c45")])
def test_scikit_learns_estimator_checks(estimator, check):
    check(estimator)


# ---------------------------------------------------------------- the same numbers as scikit-learn


def test_cart_on_numeric_data_is_scikit_learns_tree():
    X, y = load_breast_cancer(return_X_y=True)
    ours, theirs = ArborClassifier().fit(X, y), DecisionTreeClassifier(random_state=0).fit(X, y)
    assert (
        (ours.get_n_leaves(), ours.get_depth())
        == (theirs.get_n_leaves(), theirs.get_depth())
        == (22, 7)
    )
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    a, b = ours.cost_complexity_pruning_path(X, y), theirs.cost_complexity_pruning_path(X, y)
    assert np.allclose(a.ccp_alphas, b.ccp_alphas) and np.allclose(a.impurities, b.impurities)
    alpha = b.ccp_alphas[-4]
    pruned = ArborClassifier(ccp_alpha=alpha).fit(X, y)
    assert (
        pruned.get_n_leaves()
        == DecisionTreeClassifier(ccp_alpha=alpha, random_state=0).fit(X, y).get_n_leaves()
    )


def test_regression_tree_and_importances_are_scikit_learns():
    X, y = load_diabetes(return_X_y=True)
    ours, theirs = (
        ArborRegressor(max_depth=3).fit(X, y),
        DecisionTreeRegressor(max_depth=3).fit(X, y),
    )
    assert np.allclose(ours.predict(X), theirs.predict(X))
    assert np.allclose(ours.feature_importances_, theirs.feature_importances_)
    assert ours.feature_importances_.round(4).tolist() == [
        0.0208,
        0,
        0.3758,
        0,
        0,
        0,
        0.0211,
        0,
        0.5823,
        0,
    ]
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y))


def test_apply_and_decision_path_follow_the_tree():
    X, y = load_iris(return_X_y=True)
    model = ArborClassifier(max_depth=2).fit(X, y)
    theirs = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    assert np.array_equal(model.apply(X), theirs.apply(X))  # both number nodes in pre-order
    assert (model.decision_path(X) != theirs.decision_path(X)).nnz == 0


# ---------------------------------------------------------------- C4.5 and ID3, nominal data, missing values


def _weather():
    frame = load_sample("weather").frame
    return frame.drop(columns="play"), frame["play"]


def test_c45_on_a_frame_is_arbors_c45():
    from engine import DecisionTree

    X, y = _weather()
    model = ArborClassifier(algorithm="c45").fit(X, y)
    assert to_text(model.tree_) == to_text(
        DecisionTree(algorithm="c45").fit(load_sample("weather")).tree_
    )
    assert list(model.feature_names_in_) == ["outlook", "temperature", "humidity", "windy"]
    assert model.classes_.tolist() == ["no", "yes"] and model.tree_.schema.target == "play"
    assert model.score(X, y) == 1.0


def test_id3_with_object_columns_and_gain_ratio_and_misclassification():
    X, y = _weather()
    X = X.astype(object)  # plain text columns: nominal from their dtype
    id3 = ArborClassifier(algorithm="id3").fit(X, y)
    assert (id3.get_n_leaves(), id3.tree_.root.split.attribute) == (5, 0)  # outlook, as the seeds
    for criterion in ("gain_ratio", "misclassification"):
        assert ArborClassifier(algorithm="id3", criterion=criterion).fit(X, y).score(X, y) == 1.0
    with pytest.raises(ValueError, match="ID3 handles nominal attributes only"):
        ArborClassifier(algorithm="id3").fit(load_iris(return_X_y=True)[0], load_iris().target)


def test_nominal_features_by_name_index_or_mask_and_unseen_categories():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 200)
    X = np.column_stack([codes, rng.normal(size=200)])
    y = np.where(np.isin(codes, [0, 3]), "a", "b")  # a subset of codes, not a threshold
    for nominal in ([0], [True, False]):
        model = ArborClassifier(nominal_features=nominal).fit(X, y)
        assert model.get_n_leaves() == 2 and model.tree_.root.split.kind == "subset"
    frame = pd.DataFrame({"code": codes, "x": X[:, 1]})
    model = ArborClassifier(nominal_features=["code"]).fit(frame, y)
    assert model.tree_.schema.attributes[0].categories == ("0", "1", "2", "3")
    unseen = pd.DataFrame({"code": [7], "x": [0.0]})  # a category not seen: treated as missing
    assert np.allclose(model.predict_proba(unseen), [[np.mean(y == "a"), np.mean(y == "b")]])
    with pytest.raises(ValueError, match="not a column"):
        ArborClassifier(nominal_features=["nope"]).fit(frame, y)


def test_missing_values_and_categorical_dtype():
    frame = pd.DataFrame(
        {
            "colour": pd.Categorical(
                ["red", "blue", None, "red", "blue", "red"], categories=["red", "blue"]
            ),
            "size": [1.0, np.nan, 3.0, 1.5, 2.5, np.nan],
        }
    )
    y = ["p", "q", "q", "p", "q", "p"]
    model = ArborClassifier(algorithm="c45", min_samples_leaf=1).fit(frame, y)
    assert model.tree_.schema.attributes[0].categories == ("red", "blue")
    # The row missing its colour is shared 3 : 2 between the branches (C4.5's fractional instances).
    assert to_text(model.tree_) == "colour = red: p (3.6/0.6)\ncolour = blue: q (2.4)\n"
    proba = model.predict_proba(frame)
    assert np.allclose(proba[[0, 1, 2]], [[5 / 6, 1 / 6], [0, 1], [0.5, 0.5]])
    assert model.predict(frame).tolist() == [
        "p",
        "q",
        "p",
        "p",
        "q",
        "p",
    ]  # the tie: the first class


def test_labels_keep_their_type():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    strings = ArborClassifier().fit(X, np.array(["0", "1", "0", "1"]))
    assert strings.classes_.tolist() == ["0", "1"] and strings.predict(X).dtype.kind == "U"
    ints = ArborClassifier().fit(X, [3, 5, 3, 5])
    assert ints.classes_.tolist() == [3, 5] and ints.predict(X).dtype.kind == "i"


def test_sample_weights_count_as_repeated_rows():
    X, y = load_iris(return_X_y=True)
    weight = np.random.default_rng(1).integers(0, 3, len(y))
    weighted = ArborClassifier().fit(X, y, sample_weight=weight)
    repeated = ArborClassifier().fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    assert to_text(weighted.tree_) == to_text(repeated.tree_)
    # C4.5 follows J48, which asks for enough known *rows* (not weight) before a numeric
    # split: three rows of weights 2, 2, 1 are too few where five repeated rows are not.
    weighted = ArborClassifier(algorithm="c45", prune="none").fit(X, y, sample_weight=weight)
    repeated = ArborClassifier(algorithm="c45", prune="none").fit(
        np.repeat(X, weight, axis=0), np.repeat(y, weight)
    )
    assert (weighted.get_n_leaves(), repeated.get_n_leaves()) == (6, 7)


def test_errors_are_scikit_learns_kinds():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(NotFittedError):
        ArborClassifier().predict(X)
    with pytest.raises(ValueError, match="pessimistic pruning is C4.5's"):
        ArborClassifier(prune="pessimistic").fit(X, y)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        ArborClassifier(algorithm="c50").fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        ArborClassifier().fit(X, np.linspace(0, 1, len(y)))
    model = ArborClassifier().fit(pd.DataFrame(X, columns=list("abcd")), y)
    with pytest.warns(UserWarning, match="feature names"):
        assert model.predict(X).shape == (150,)  # an array after a frame: predicted, with a warning
    with pytest.raises(ValueError, match="4 features"), pytest.warns(UserWarning):
        model.predict(X[:, :3])


# ---------------------------------------------------------------- workflows


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.FitFailedWarning",
    "ignore:One or more of the test scores are non-finite:UserWarning",
)
def test_grid_search_over_algorithm_and_criterion():
    X, y = load_iris(return_X_y=True)
    grid = GridSearchCV(
        ArborClassifier(),
        {
            "algorithm": ["cart", "c45"],
            "criterion": ["gini", "entropy", "gain_ratio", "misclassification"],
        },
        cv=3,
        error_score=np.nan,
    )
    grid.fit(X, y)
    scores = dict(
        zip(map(str, grid.cv_results_["params"]), grid.cv_results_["mean_test_score"], strict=True)
    )
    assert np.isnan(
        scores[str({"algorithm": "cart", "criterion": "gain_ratio"})]
    )  # CART splits in two
    assert scores[str({"algorithm": "c45", "criterion": "gain_ratio"})] == pytest.approx(0.94)
    assert grid.best_params_ == {"algorithm": "cart", "criterion": "gini"}
    assert grid.best_score_ == pytest.approx(0.9733333)


def test_pipeline_with_a_column_transformer_keeps_nominal_columns():
    X, y = _weather()
    numeric, nominal = ["temperature", "humidity"], ["outlook", "windy"]
    X = X.assign(
        temperature=[85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71],
        humidity=[85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91],
    )
    prepare = ColumnTransformer(
        [("scale", StandardScaler(), numeric), ("keep", "passthrough", nominal)]
    )
    prepare.set_output(transform="pandas")  # the nominal columns stay text: nominal attributes
    pipe = Pipeline([("prepare", prepare), ("tree", ArborClassifier(algorithm="c45"))]).fit(X, y)
    tree = pipe[-1].tree_
    assert [a.kind for a in tree.schema.attributes] == ["numeric", "numeric", "nominal", "nominal"]
    assert pipe.score(X, y) == 1.0
    assert cross_val_score(pipe, X, y, cv=2).shape == (2,)


def test_cross_val_score_and_inspection_tools():
    X, y = load_iris(return_X_y=True)
    assert cross_val_score(ArborClassifier(algorithm="c45"), X, y, cv=5).mean() > 0.9
    model = ArborClassifier(algorithm="c45").fit(X, y)
    importance = permutation_importance(model, X, y, n_repeats=3, random_state=0)
    assert importance.importances_mean[:2].max() < importance.importances_mean[2:].max()
    dependence = partial_dependence(model, X, [3], kind="average", grid_resolution=5)
    assert dependence["average"].shape == (3, 5)


def test_pickles_and_saves_a_model_the_cli_and_window_open(tmp_path, capsys):
    X, y = _weather()
    model = ArborClassifier(algorithm="c45").fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    assert to_text(again.tree_) == to_text(model.tree_)
    path = tmp_path / "weather-model.json"
    model.save_model(path)
    tree, settings = load_model(path)
    assert to_text(tree) == to_text(model.tree_) and settings.algorithm == "c45"
    data = tmp_path / "weather.csv"
    load_sample("weather").frame.to_csv(data, index=False)
    from cli.main import main

    assert main(["predict", str(path), str(data), "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["predictions"] == model.predict(X).tolist()


def test_engine_imports_without_scikit_learn(engine_imports):
    # every engine module but the adapters imported with scikit-learn blocked (conftest)
    assert engine_imports["refused"] == (
        "engine.sklearn needs scikit-learn: pip install -e '.[sklearn]' "
        "(or pip install scikit-learn)"
    )


def test_priority_and_pseudocounts_reach_the_adapter():
    X, y = load_iris(return_X_y=True)
    by_gain = ArborClassifier(max_leaf_nodes=5, priority="gain").fit(X, y)
    weighted = ArborClassifier(max_leaf_nodes=5).fit(X, y)

    # seed 004's ΔI splits the 6-row node (gain 0.222) before the 48-row one (gain 0.041)
    def leaves(model):
        return sorted(n.weight for n in model.tree_.nodes() if n.is_leaf)

    assert leaves(by_gain) == [3, 3, 46, 48, 50]
    assert leaves(weighted) == [1, 6, 46, 47, 50]
    assert by_gain.settings_.priority == "gain" and weighted.settings_.priority == "weighted"
    smoothed = ArborClassifier(laplace=True).fit(X, y)
    assert smoothed.predict_proba(X[:1]).tolist() == [[51 / 53, 1 / 53, 1 / 53]]
    m = ArborClassifier(m_estimate=3).fit(X, y)
    # M = 3 spread over three equal classes: one pseudocount each, Laplace again
    assert m.predict_proba(X[:1])[0] == pytest.approx([51 / 53, 1 / 53, 1 / 53])


def test_optimal_classifier_beats_the_greedy_tree_of_its_depth_and_checks_the_depth():
    X, y = load_iris(return_X_y=True)
    model = ArborClassifier(algorithm="optimal", max_depth=3).fit(X, y)
    greedy = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert model.get_depth() == 3 and model.settings_.algorithm == "optimal"
    # Two misclassified of 150 (the search's own figure) against scikit-learn's four.
    assert (model.score(X, y), greedy.score(X, y)) == (148 / 150, 146 / 150)
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert ArborClassifier(algorithm="optimal").fit(X, y).get_depth() == 3  # None: 3
    with pytest.raises(ValueError, match="max depth of 4 or less"):
        ArborClassifier(algorithm="optimal", max_depth=5).fit(X, y)
    with pytest.raises(ValueError, match="only classifies"):
        ArborRegressor(algorithm="optimal", max_depth=2).fit(X, X[:, 0])
