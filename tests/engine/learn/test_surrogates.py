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

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.learn.surrogates import Surrogate, find, route
from engine.settings import resolve
from tests.oracle import surrogate_growth

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rpart"
RECORDED = json.loads((FIXTURES / "recorded.json").read_text())
TABLES = ("surrogates", "nominal")


def _data(name: str):
    """The table encoded with rpart's factor levels as the category codes its csplit uses."""
    frame = pd.read_csv(FIXTURES / f"{name}.csv")
    levels = RECORDED[name]["levels"]
    target = frame.columns[-1]
    categories = {c: levels[c] for c in frame.columns[:-1] if c in levels}
    return encode(make_table(frame, target=target, categories=categories))


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


def _rpart_shape(recorded: dict, node: int = 1):
    """rpart's tree as (variable, rows, children), the children in a canonical order."""
    frame = {f["node"]: f for f in recorded["frame"]}
    f = frame[node]
    if f["var"] == "<leaf>":
        return (f["var"], f["n"], ())
    kids = sorted(_rpart_shape(recorded, k) for k in (2 * node, 2 * node + 1))
    return (f["var"], f["n"], tuple(kids))


def _our_shape(node, names):
    if node.split is None:
        return ("<leaf>", int(node.stats.sum()), ())
    kids = sorted(_our_shape(c, names) for c in node.children)
    return (names[node.split.attribute], int(node.stats.sum()), tuple(kids))


def _as_rpart(s: Surrogate, data) -> dict:
    """A surrogate in rpart's terms (branch 0 is rpart's left child here)."""
    attr = data.schema.attributes[s.attribute]
    out = {"var": attr.name, "improve": s.agreement, "adj": s.adjusted}
    if s.threshold is not None:
        out["index"] = s.threshold
        out["ncat"] = -1 if s.below == 0 else 1
    else:
        csplit = [2] * len(attr.categories)
        for branch, group in enumerate(s.groups):
            for code in group:
                csplit[code] = 1 if branch == 0 else 3
        out["csplit"] = csplit
    return out


def _compare(ours: list[Surrogate], theirs: list[dict], data):
    names = [a.name for a in data.schema.attributes]
    assert [names[s.attribute] for s in ours] == [t["var"] for t in theirs]
    for s, t in zip(ours, theirs, strict=True):
        mine = _as_rpart(s, data)
        assert mine["improve"] == pytest.approx(t["improve"], rel=1e-12)
        assert mine["adj"] == pytest.approx(t["adj"], rel=1e-9)
        if "index" in mine:
            assert (mine["index"], mine["ncat"]) == (pytest.approx(t["index"]), t["ncat"])
        else:  # rpart's csplit rows are as wide as its widest factor: padded with "absent"
            assert mine["csplit"] + [2] * (len(t["csplit"]) - len(mine["csplit"])) == t["csplit"]


def _rpart_branches(data, rows, split: dict) -> np.ndarray:
    """Each row's side by rpart's split (0 left, 1 right, -1 missing or an absent level)."""
    j = [a.name for a in data.schema.attributes].index(split["var"])
    x = data.X[rows, j]
    out = np.full(len(rows), -1)
    known = ~np.isnan(x)
    if split["ncat"] < 2:  # numeric: ncat -1 sends values below index left, 1 right
        below = x[known] < split["index"]
        out[known] = np.where(below, 0, 1) if split["ncat"] == -1 else np.where(below, 1, 0)
    else:
        side = np.array([{1: 0, 3: 1}.get(c, -1) for c in split["csplit"]])
        out[known] = side[x[known].astype(int)]
    return j, out


@pytest.mark.parametrize("name", TABLES)
def test_surrogates_at_the_first_two_levels_equal_rpart(name):
    """The root's surrogates, then (rows sent down by them) each child's, as rpart has them."""
    recorded = RECORDED[name]
    data = _data(name)
    nominal = np.array([a.is_nominal for a in data.schema.attributes])
    rows = np.arange(data.n_rows)
    w = data.weight
    primary_row, theirs = _node_splits(recorded, 1)
    j, primary = _rpart_branches(data, rows, primary_row)
    ours = find(data.X, primary, w, j, nominal)
    _compare(ours, theirs, data)
    branch = route(data.X, primary, w, ours)
    frame = {f["node"]: f for f in recorded["frame"]}
    for side, node in ((0, 2), (1, 3)):
        child = rows[branch == side]
        assert len(child) == frame[node]["n"]
        if frame[node]["var"] == "<leaf>":
            continue
        split, theirs = _node_splits(recorded, node)
        j, primary = _rpart_branches(data, child, split)
        _compare(find(data.X[child], primary, w[child], j, nominal), theirs, data)


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
    for name in TABLES:
        live, recorded = record.record(name), RECORDED[name]
        assert live["frame"] == recorded["frame"]
        assert live["predicted"] == recorded["predicted"]
        for a, b in zip(live["splits"], recorded["splits"], strict=True):
            assert a.keys() == b.keys()
            for key in a:  # approx compares flat values and lists, not dicts of lists
                assert a[key] == pytest.approx(b[key]), key


@pytest.mark.parametrize("name", TABLES)
def test_cart_grown_with_surrogates_is_rpart_s_tree_and_predictions(name):
    """The oracle for ``--missing surrogate`` (tests/oracle/surrogate_growth.py) grows rpart's
    tree on the recorded tables: the same primary splits, node sizes and predictions."""
    recorded = RECORDED[name]
    data = _data(name)
    names = [a.name for a in data.schema.attributes]
    root = surrogate_growth.grow(data, resolve(algorithm="cart", prune="none"))
    assert _our_shape(root, names) == _rpart_shape(recorded)
    predicted = surrogate_growth.predict(root, data.X)
    classes = data.schema.classes
    assert [classes[c] for c in predicted] == recorded["predicted"]
