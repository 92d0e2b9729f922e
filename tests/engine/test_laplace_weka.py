"""``--laplace`` against J48 -A: the same class probabilities for every training row.

tests/fixtures/weka/laplace.json holds J48 -A's distributions (recorded by
record_laplace.py, three decimals as Weka prints them); the ``weka`` marker runs Weka live.
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.data.arff import read_arff
from engine.estimator import DecisionTree

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "weka"
RECORDED = json.loads((HERE / "laplace.json").read_text())
PRUNE = {"pruned": "pessimistic", "unpruned": "none"}


def laplace_probabilities(name: str, run: str) -> tuple[np.ndarray, list[int]]:
    table = read_arff(HERE / "data" / f"{name}.arff")
    model = DecisionTree(algorithm="c45", prune=PRUNE[run], laplace=True).fit(table)
    codes = {c: k for k, c in enumerate(model.classes_)}
    return model.predict_proba(table), [codes[c] for c in model.predict(table)]


@pytest.mark.parametrize("run", sorted(PRUNE))
@pytest.mark.parametrize("name", sorted(RECORDED))
def test_laplace_gives_j48_minus_a_probabilities(name, run):
    weka = RECORDED[name][run]
    ours, predicted = laplace_probabilities(name, run)
    assert ours == pytest.approx(np.array(weka["distributions"]), abs=5e-4)
    assert predicted == weka["predicted"]


def test_laplace_moves_a_pure_two_row_leaf_off_certainty():
    import pandas as pd

    from engine.data.table import make_table

    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0], "y": ["a", "a", "b", "b", "b"]})
    table = make_table(frame)
    plain = DecisionTree(algorithm="cart", prune="none").fit(table)
    smoothed = DecisionTree(algorithm="cart", prune="none", laplace=True).fit(table)
    m = DecisionTree(algorithm="cart", prune="none", m_estimate=5).fit(table)
    assert plain.predict_proba(table)[0].tolist() == [1.0, 0.0]
    assert smoothed.predict_proba(table)[0].tolist() == pytest.approx([3 / 4, 1 / 4])
    # m-estimate: (n_k + M p_k) / (n + M) with the training shares p = (2/5, 3/5).
    assert m.predict_proba(table)[0].tolist() == pytest.approx([(2 + 2) / 7, (0 + 3) / 7])
    # The class is still the leaf's mode.
    assert m.predict(table).tolist() == plain.predict(table).tolist()


@pytest.mark.weka
@pytest.mark.skipif(
    not (Path("/usr/share/java/weka.jar").exists() and shutil.which("java")),
    reason="Weka (Debian package weka) is not installed",
)
def test_live_j48_minus_a_matches_the_recording():
    sys.path.insert(0, str(HERE))
    try:
        from record_laplace import j48_laplace
    finally:
        sys.path.remove(str(HERE))
    for name in ("weather.nominal", "labor"):
        live = j48_laplace(HERE / "data" / f"{name}.arff", [])
        assert live == RECORDED[name]["pruned"]
        ours, _ = laplace_probabilities(name, "pruned")
        assert ours == pytest.approx(np.array(live["distributions"]), abs=5e-4)
