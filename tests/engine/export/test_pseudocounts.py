"""Pseudocount-corrected probabilities (``--laplace``, ``--m-estimate``) in every reader:
predictions, model files, Python and PMML exports all give engine.predict.class_probabilities."""

from __future__ import annotations

import math
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.model_json import model_text, tree_from_dict
from engine.export.pmml import to_pmml
from engine.export.python_code import to_python
from engine.predict import class_probabilities, predict_proba
from tests.engine.export.test_pmml import P, _rows, _with_holes, score


@pytest.fixture(scope="module", params=[dict(laplace=True), dict(m_estimate=3.0)], ids=str)
def trained(request):
    table = load_sample("weather")
    model = DecisionTree(algorithm="c45", prune="none", **request.param).fit(table)
    frame = table.frame[table.attributes]
    probe = pd.concat([frame, _with_holes(frame, seed=3, share=0.3)], ignore_index=True)
    return table, model, probe


def test_pseudocounts_come_from_the_options(trained):
    table, model, _ = trained
    if model.laplace:
        assert model.tree_.pseudocounts == (1.0, 1.0)
    else:  # M = 3 spread as weather's 9 yes and 5 no
        assert model.tree_.pseudocounts == pytest.approx((3 * 9 / 14, 3 * 5 / 14))
    a = np.array(model.tree_.pseudocounts)
    for leaf in (n for n in model.tree_.nodes() if n.is_leaf):
        want = (leaf.distribution + a) / (leaf.weight + a.sum())
        assert class_probabilities(model.tree_, leaf, None) == pytest.approx(want)


def test_model_file_keeps_the_pseudocounts(trained):
    import json

    table, model, probe = trained
    back, settings = tree_from_dict(json.loads(model_text(model.tree_, model.settings_)))
    assert back.pseudocounts == model.tree_.pseudocounts
    assert settings.laplace == model.settings_.laplace
    X = model._matrix(probe)
    np.testing.assert_allclose(predict_proba(back, X), model.predict_proba(probe), atol=1e-15)


def test_python_export_gives_the_corrected_probabilities(trained):
    table, model, probe = trained
    namespace: dict = {}
    exec(to_python(model.tree_), namespace)
    rows = [{k: v for k, v in r.items() if isinstance(v, str)} for r in _rows(probe)]
    got = np.array([namespace["predict_proba"](r) for r in rows])
    np.testing.assert_allclose(got, model.predict_proba(probe), atol=1e-12)
    assert [namespace["predict"](r) for r in rows] == model.predict(probe).tolist()


def test_pmml_scores_the_corrected_probabilities(trained):
    table, model, probe = trained
    root = ET.fromstring(to_pmml(model.tree_))
    top = root.find(f"{P}TreeModel").find(f"{P}Node")
    for node in root.iter(f"{P}Node"):
        shares = [float(d.get("probability")) for d in node.findall(f"{P}ScoreDistribution")]
        assert math.isclose(sum(shares), 1.0) and min(shares) > 0
    got = np.array([score(top, row, False) for row in _rows(probe)])
    np.testing.assert_allclose(got, model.predict_proba(probe), atol=1e-12)


def test_a_model_file_with_bad_pseudocounts_is_refused(trained):
    import json

    _, model, _ = trained
    doc = json.loads(model_text(model.tree_, model.settings_))
    for bad in ([1.0], [-1.0, 1.0], [0.0, 0.0], ["1", 1.0], [float("1e400"), 1.0]):
        doc["pseudocounts"] = bad
        with pytest.raises(ArborError):
            tree_from_dict(doc)


def test_roc_curves_read_the_corrected_probabilities():
    from engine.data.encoding import encode
    from engine.evaluate.evaluation import evaluate_tree

    table = load_sample("weather")
    data = encode(table)
    plain = DecisionTree(algorithm="c45", prune="none").fit(table).tree_
    smoothed = DecisionTree(algorithm="c45", prune="none", laplace=True).fit(table).tree_
    # Pure leaves of different sizes tie at probability 1 unsmoothed, and Laplace ranks
    # them by size ((n + 1) / (n + 2)): the ROC curve gets more points.
    a = evaluate_tree(plain, data)
    b = evaluate_tree(smoothed, data)
    assert len(b.curves[0].roc) > len(a.curves[0].roc)
    assert b.accuracy == a.accuracy


def test_sql_scores_the_corrected_probabilities(trained):
    from tests.engine.export.test_sql import check_scores, rows_for_sql

    table, model, _ = trained
    frame = rows_for_sql(table, [*table.attributes, table.target], 0.3)
    check_scores(model, table, frame, "sqlite")


def test_onnx_scores_the_corrected_probabilities(trained):
    pytest.importorskip("onnxruntime")
    from tests.engine.export.test_onnx import check_complete_rows

    table, model, _ = trained
    check_complete_rows(model, table)
