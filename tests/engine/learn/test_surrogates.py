"""Surrogate splits (issue 33, item 2): the readable rule (engine.learn.surrogates) against
R's rpart, recorded in tests/fixtures/rpart (``record.py`` there re-records them; the live
comparison runs under ``-m rpart`` where Rscript and rpart are installed)."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.learn.surrogates import Surrogate, find, route

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rpart"
RECORDED = json.loads((FIXTURES / "recorded.json").read_text())
COLUMNS = ["x1", "x2", "x3", "c"]


def _table(name: str):
    frame = pd.read_csv(FIXTURES / f"{name}.csv")
    levels = RECORDED[name]["levels"]  # rpart's factor levels: the codes its csplit uses
    X = frame[COLUMNS[:3]].to_numpy(dtype=np.float64)
    codes = frame["c"].map({v: float(i) for i, v in enumerate(levels)}).to_numpy(np.float64)
    return np.column_stack([X, codes]), levels


def _node_splits(recorded: dict, node: int):
    """The node's rows of rpart's splits matrix: primary, competitors, surrogates."""
    at = 0
    for f in recorded["frame"]:
        if f["var"] == "<leaf>":
            continue
        rows = 1 + f["ncompete"] + f["nsurrogate"]
        if f["node"] == node:
            block = recorded["splits"][at : at + rows]
            return block[0], block[1 + f["ncompete"] :]
        at += rows
    raise KeyError(node)


def _rpart_preorder(recorded: dict) -> list[tuple[str, int]]:
    """rpart's nodes (variable, rows) in pre-order with Arbor's branch order: branch 0 holds
    the values at or below a threshold, rpart's left child those below (ncat -1) or not
    below (ncat 1) it."""
    frame = {f["node"]: f for f in recorded["frame"]}
    out, stack = [], [1]
    while stack:
        node = stack.pop()
        f = frame[node]
        out.append((f["var"], f["n"]))
        if f["var"] != "<leaf>":
            primary, _ = _node_splits(recorded, node)
            first, second = (2 * node, 2 * node + 1)
            if primary["ncat"] == 1:
                first, second = second, first
            stack.extend([second, first])
    return out


def _as_rpart(s: Surrogate) -> dict:
    """A surrogate in rpart's terms (branch 0 is rpart's left child here)."""
    out = {"var": COLUMNS[s.attribute], "improve": s.agreement, "adj": s.adjusted}
    if s.threshold is not None:
        out["index"] = s.threshold
        out["ncat"] = -1 if s.below == 0 else 1
    else:
        csplit = [2, 2, 2]
        for branch, group in enumerate(s.groups):
            for code in group:
                csplit[code] = 1 if branch == 0 else 3
        out["csplit"] = csplit
    return out


def _compare(ours: list[Surrogate], theirs: list[dict]):
    assert [COLUMNS[s.attribute] for s in ours] == [t["var"] for t in theirs]
    for s, t in zip(ours, theirs, strict=True):
        mine = _as_rpart(s)
        assert mine["improve"] == pytest.approx(t["improve"], rel=1e-12)
        assert mine["adj"] == pytest.approx(t["adj"], rel=1e-9)
        if "index" in mine:
            assert (mine["index"], mine["ncat"]) == (pytest.approx(t["index"]), t["ncat"])
        else:
            assert mine["csplit"] == t["csplit"]


NOMINAL = np.array([False, False, False, True])


def test_root_and_second_split_surrogates_equal_rpart():
    recorded = RECORDED["surrogates"]
    X, _ = _table("surrogates")
    w = np.ones(len(X))
    primary_row, theirs = _node_splits(recorded, 1)
    assert primary_row["var"] == "x1" and primary_row["ncat"] == -1  # x1 < 3.377 goes left
    x1 = X[:, 0]
    primary = np.where(np.isnan(x1), -1, np.where(x1 < primary_row["index"], 0, 1))
    ours = find(X, primary, w, 0, NOMINAL)
    _compare(ours, theirs)
    # The rows rpart sends right (node 3), missing x1 placed by the surrogates: its 54.
    branch = route(X, primary, w, ours)
    right = branch == 1
    assert right.sum() == next(f["n"] for f in recorded["frame"] if f["node"] == 3)
    second, theirs = _node_splits(recorded, 3)
    assert second["var"] == "x1" and second["ncat"] == -1
    x1 = X[right, 0]
    primary = np.where(np.isnan(x1), -1, np.where(x1 < second["index"], 0, 1))
    _compare(find(X[right], primary, w[right], 0, NOMINAL), theirs)


def test_surrogate_needs_two_rows_each_way_and_beats_the_majority():
    X = np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 3.0], [1.0, 4.0], [1.0, 5.0]])
    primary = np.array([0, 0, 0, 1, 1])
    (s,) = find(X, primary, np.ones(5), 0)
    assert (s.attribute, s.threshold, s.below, s.agreement) == (1, 3.5, 0, 1.0)
    assert s.adjusted == pytest.approx(1.0)
    # One row apart from the rest cannot be cut off (rpart's two rows each way).
    primary = np.array([0, 1, 1, 1, 1])
    assert find(X, primary, np.ones(5), 0) == []
    # A nominal surrogate no better than the majority side is no surrogate.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    assert find(X, np.array([0, 1, 1, 1]), np.ones(4), 0, np.array([False, True])) == []


def test_route_falls_back_to_the_majority():
    X = np.array([[np.nan, np.nan], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    s = Surrogate(1, 0.9, 0.5, threshold=1.5, below=1)
    assert route(X, np.array([-1, 0, 1, 1]), np.ones(4), [s]).tolist() == [1, 0, 1, 1]
    X[0, 1] = 1.0
    assert route(X, np.array([-1, 0, 1, 1]), np.ones(4), [s]).tolist() == [1, 0, 1, 1]
    X[0, 1] = 2.0
    assert route(X, np.array([-1, 0, 1, 1]), np.ones(4), [s]).tolist() == [0, 0, 1, 1]


@pytest.mark.rpart
def test_recorded_rpart_output_is_what_rpart_prints_now(tmp_path):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    probe = subprocess.run(["Rscript", "-e", "library(rpart)"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("R's rpart is not installed (Debian: r-cran-rpart)")
    import importlib.util

    spec = importlib.util.spec_from_file_location("record", FIXTURES / "record.py")
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    live = record.record("surrogates")
    recorded = RECORDED["surrogates"]
    assert live["frame"] == recorded["frame"]
    assert live["predicted"] == recorded["predicted"]
    for a, b in zip(live["splits"], recorded["splits"], strict=True):
        assert a == pytest.approx(b)


def test_cart_grown_with_surrogates_is_rpart_s_tree_and_predictions():
    """The oracle for ``--missing surrogate`` (tests/oracle/surrogate_growth.py) grows rpart's
    tree on the recorded table: the same primary splits, node sizes and predictions."""
    from engine.data.encoding import encode
    from engine.data.table import make_table
    from engine.settings import resolve
    from tests.oracle import surrogate_growth

    recorded = RECORDED["surrogates"]
    data = encode(make_table(pd.read_csv(FIXTURES / "surrogates.csv")))
    names = [a.name for a in data.schema.attributes]
    root = surrogate_growth.grow(data, resolve(algorithm="cart", prune="none"))
    ours = [
        ("<leaf>" if n.split is None else names[n.split.attribute], int(n.stats.sum()))
        for n in root.walk()
    ]
    assert ours == _rpart_preorder(recorded)
    predicted = surrogate_growth.predict(root, data.X)
    classes = data.schema.classes
    assert [classes[c] for c in predicted] == recorded["predicted"]
