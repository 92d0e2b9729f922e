"""Invariants of the learners (hypothesis), determinism, and cancellation."""

import threading

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import Cancelled
from engine.estimator import DecisionTree
from engine.evaluate.evaluation import cross_validate
from engine.monitor import Monitor


@st.composite
def consistent_tables(draw):
    """Random nominal/numeric data whose label is a function of the attributes (no conflicts)."""
    n = draw(st.integers(4, 40))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    frame = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "x": np.round(rng.normal(size=n), 1) + 0.0,  # + 0.0 turns -0.0 into 0.0 for the key
        }
    )
    key = frame.a + frame.b + frame.x.astype(str)
    labels = {k: rng.choice(["yes", "no"]) for k in key.unique()}
    frame["y"] = key.map(labels)
    return make_table(frame)


@settings(max_examples=40, deadline=None)
@given(consistent_tables())
def test_fully_grown_cart_is_perfect_on_consistent_data(table):
    # ID3 and C4.5 are not held to this: like Weka's Id3 and J48 they stop where the best
    # gain is zero (an XOR-like node), and C4.5 leaves nominal attributes with very many
    # values per row out of its average-gain rule.
    model = DecisionTree(algorithm="cart", prune="none").fit(table)
    assert (model.predict(table) == table.frame["y"].astype(str).to_numpy()).all()


@settings(max_examples=25, deadline=None)
@given(consistent_tables(), st.sampled_from(["id3", "c45", "cart"]))
def test_trees_are_deterministic(table, algorithm):
    if algorithm == "id3":
        table = table.with_kinds(x="ignored")
    a = DecisionTree(algorithm=algorithm).fit(table).tree_
    b = DecisionTree(algorithm=algorithm).fit(table).tree_
    assert [(n.id, n.weight, n.split) for n in a.nodes()] == [
        (n.id, n.weight, n.split) for n in b.nodes()
    ]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.05, 0.6))
def test_fractional_weights_sum_to_the_parent(seed, missing):
    rng = np.random.default_rng(seed)
    n = 60
    frame = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "x": rng.normal(size=n),
            "y": rng.choice(["s", "t"], n),
        }
    )
    frame.loc[rng.random(n) < missing, "a"] = None
    frame.loc[rng.random(n) < missing, "x"] = np.nan
    tree = (
        DecisionTree(algorithm="c45", prune="none", min_samples_leaf=1).fit(make_table(frame)).tree_
    )
    assert tree.root.weight == pytest.approx(n)
    for node in tree.nodes():
        if node.children:
            assert sum(c.weight for c in node.children) == pytest.approx(node.weight)
            assert node.distribution.sum() == pytest.approx(node.weight)


def test_same_seed_same_cross_validation():
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(200, 3)), columns=list("abc"))
    frame["y"] = np.where(frame.a + frame.b > 0, "p", "q")
    data = encode(make_table(frame))
    settings_ = DecisionTree(algorithm="cart").settings()
    a = cross_validate(data, settings_, 5, seed=7)
    b = cross_validate(data, settings_, 5, seed=7)
    assert a.fold_scores == b.fold_scores and np.array_equal(a.confusion, b.confusion)


def test_a_cancel_from_another_thread_stops_cart_s_default_fit():
    """CART's default fit (grown, then alpha chosen by cross-validation) on a worker thread
    stops when another thread cancels it: Cancelled is raised, and nothing is reported after
    the check that follows the cancel. The worker waits at its first growth report until the
    cancel is made, so the test does not depend on the machine's speed; how soon a big fit
    stops is measured by benchmarks/bench_cancel.py, never asserted here."""
    rng = np.random.default_rng(1)
    n = 4000
    frame = pd.DataFrame(rng.normal(size=(n, 6)), columns=list("abcdef"))
    frame["y"] = np.where(frame.a * frame.b + rng.normal(size=n) > 0, "p", "q")
    table = make_table(frame)
    growing, cancelled = threading.Event(), threading.Event()
    reports, after, errors = [], [], []

    def report(fraction, message):
        (after if cancelled.is_set() else reports).append((fraction, message))
        if message.endswith("leaves") and not growing.is_set():
            growing.set()
            assert cancelled.wait(60)

    monitor = Monitor(report)

    def fit():
        try:
            DecisionTree(algorithm="cart").fit(table, monitor=monitor)
        except Cancelled as err:
            errors.append(err)

    thread = threading.Thread(target=fit)
    thread.start()
    assert growing.wait(60), reports
    monitor.cancel()
    cancelled.set()
    thread.join(timeout=60)
    assert not thread.is_alive() and errors
    assert after == []


def test_cancelling_cross_validation():
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(300, 3)), columns=list("abc"))
    frame["y"] = np.where(frame.a > 0, "p", "q")
    data = encode(make_table(frame))
    seen = []
    monitor = Monitor(lambda f, m: (seen.append(f), monitor.cancel() if f > 0.3 else None))
    with pytest.raises(Cancelled):
        cross_validate(data, DecisionTree(algorithm="c45").settings(), 10, 1, monitor)
    assert seen and max(seen) < 1.0
