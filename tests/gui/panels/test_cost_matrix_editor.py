"""The Algorithm panel's cost matrix editor (issue 33, item 1): cells checked, Reset to 0/1,
the matrix set as the costs option, and a training that uses it."""

from PySide6.QtWidgets import QDialogButtonBox

from engine.learn.costs import parse_cost_matrix
from tests.gui.conftest import train_and_wait


def test_the_editor_sets_costs_and_a_training_uses_them(qtbot, window, settings):
    panel = window.config
    panel.cv_folds.setValue(0)  # no cross-validation: the training alone
    assert panel.costs.toolTip().startswith("A cost matrix")
    dialog = panel.costs.dialog()
    assert dialog.classes == ("yes", "no")  # the sample's own order
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.table.item(0, 1).setText("x")  # predicting no for a yes
    assert not ok.isEnabled() and "'x' is not a number of at least 0" in dialog.message.text()
    dialog.table.item(0, 1).setText("-2")
    assert not ok.isEnabled()
    dialog.table.item(0, 1).setText("20")
    assert ok.isEnabled() and dialog.message.text() == ""
    text = dialog.value()
    assert parse_cost_matrix(text, ("yes", "no")).tolist() == [[0.0, 20.0], [1.0, 0.0]]
    dialog.reset()
    assert dialog.value() is None  # 0/1: no costs
    panel.costs.setValue(text)
    assert panel.params()["costs"] == text and panel.problem() is None
    assert panel.costs.state.text().startswith("set")
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    assert window.controller.result.model.tree_.costs == ((0.0, 20.0), (1.0, 0.0))
    # A missed yes costs 20: every row is predicted yes, the 5 no rows costing 1 each.
    qtbot.waitUntil(lambda: "cost" in window.evaluation.headline.text())
    assert "accuracy 64.29%" in window.evaluation.headline.text()
    assert "cost 5 in all, 0.3571 a row" in window.evaluation.headline.text()
    panel.save(settings)  # saved with the other options, and read back
    panel.set_params({"costs": None})
    assert panel.params()["costs"] is None and panel.costs.state.text().startswith("none")
    panel.restore(settings)
    assert panel.params()["costs"] == text
