"""Opening in the window: a model saved from a notebook (ArborClassifier.save_model) or by
'train --save', and ARFF files whose string attributes are noted."""

import numpy as np
import pytest

pytest.importorskip("sklearn")


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``: weather open, no
    errors recorded)."""
    return shared_window


def test_a_scikit_learn_model_opens_with_its_tree_and_an_empty_table(window, tmp_path):
    from engine.data.samples import load_sample
    from engine.export.text import to_text
    from engine.sklearn import ArborClassifier

    frame = load_sample("weather").frame
    model = ArborClassifier(algorithm="c45").fit(frame.drop(columns="play"), frame["play"])
    path = tmp_path / "weather-model.json"
    model.save_model(path)
    assert window.files.open_path(str(path), confirmed=True), window.dialogs.errors
    c = window.controller
    assert to_text(c.tree) == to_text(model.tree_)
    assert len(window.canvas.tree_scene().items_by_id) == model.tree_.n_nodes == 8
    assert window.doc.n_rows == 0 and list(window.doc.frame.columns) == list(frame.columns)
    assert c.settings.algorithm == "c45" and str(path) in window.files.recent_files()
    window.canvas.select_node(0)  # the inspector shows the node without training rows to score
    assert window.status_label.text().startswith("Opened the model")


def test_a_numeric_regression_model_opens_too(window, tmp_path):
    from engine.sklearn import ArborRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    model = ArborRegressor(max_depth=3).fit(X, X[:, 0] * 2 + rng.normal(size=200))
    path = tmp_path / "regression.json"
    model.save_model(path)
    assert window.files.open_path(str(path), confirmed=True), window.dialogs.errors
    assert window.controller.tree.n_leaves == model.get_n_leaves() == 8
    assert list(window.doc.frame.columns) == ["x0", "x1", "x2", "y"]


def test_a_broken_model_file_is_one_message(window, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    assert not window.files.open_path(str(path), confirmed=True)
    assert window.dialogs.errors[-1][0].startswith("Could not open the model broken.json")
    assert window.doc.n_rows == 14  # the weather table is still open


def test_an_arff_string_attribute_is_noted_when_opened(window, tmp_path):
    path = tmp_path / "texts.arff"
    path.write_text(
        "@relation t\n@attribute s string\n@attribute c {p,q}\n@data\n' hello ',p\nbye,q\n"
    )
    assert window.files.open_path(str(path), confirmed=True), window.dialogs.errors
    assert (
        "string attribute(s) 's' (2 different texts) read as nominal" in window.status_label.text()
    )
    assert window.doc.frame["s"].tolist() == [" hello ", "bye"]  # the quoted spaces are kept
