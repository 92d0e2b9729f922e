"""The Evaluation panel's Curves tab (issue 33, item 4): cumulative gains and lift beside ROC,
and for two classes the threshold of least cost for the two errors' costs."""

from __future__ import annotations

import numpy as np

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.evaluation import cross_validate
from engine.evaluate.gains import cost_optimal_threshold, gains_points
from engine.settings import resolve
from gui.panels.evaluation import CURVES, CurvesView


def test_gains_lift_and_least_cost(qtbot):
    data = encode(load_sample("weather"))
    ev = cross_validate(data, resolve(algorithm="cart", prune="none"), 3, 1)
    view = CurvesView()
    qtbot.addWidget(view)
    view.show_evaluation(ev)
    assert [view.kind.itemText(i) for i in range(view.kind.count())] == list(CURVES)
    view.kind.setCurrentText("Cumulative gains")
    x, y = view.lines["yes"].getData()
    yes = next(c for c in ev.curves if c.label == "yes")
    assert np.allclose(np.column_stack([x, y]), gains_points(yes))
    view.kind.setCurrentText("Lift")
    assert set(view.lines) == {"yes", "no"} and "targeting at random" in view.legend.text()
    assert not view.costs.isHidden() and view.positive.currentText() == ev.classes[-1]
    view.positive.setCurrentText("yes")
    view.cost_fn.setValue(10.0)  # a missed "yes" costs ten times a false one
    text = view.least_cost.text()
    assert text.startswith("Least total cost: predict yes when")
    # The stored curve's point is the one the held-out rows' probabilities give.
    assert "cost" in text and ", else no" in text
    view.show_evaluation(None)
    assert view.costs.isHidden()


def test_least_cost_follows_the_costs():
    scores = np.array([0.9, 0.7, 0.7, 0.4, 0.2])
    positive = np.array([True, True, False, True, False])
    cheap_misses = cost_optimal_threshold(scores, positive, cost_fp=5, cost_fn=1)
    dear_misses = cost_optimal_threshold(scores, positive, cost_fp=1, cost_fn=5)
    assert cheap_misses.threshold == 0.9 and dear_misses.threshold == 0.4
