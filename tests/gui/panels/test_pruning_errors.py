"""The Pruning tab with cost-complexity in errors (issue 33, item 6): the path and the slider
in misclassified rows, the training curve rpart's relative error."""

from tests.gui.conftest import train_and_wait


def test_slider_runs_in_errors_when_chosen(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value("cart")
    window.config.ccp_measure.set_value("errors")
    window.config.cv_alpha.setValue(0)
    window.config.alpha.setValue(2.0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    assert window.controller.tree.n_leaves == 3  # alpha 2 rows: rpart's cp 0.02
    panel = window.pruning
    window.docks["Pruning"].show()
    window.docks["Pruning"].raise_()
    qtbot.waitUntil(lambda: panel.full is not None)  # drawn when the plot is asked for
    assert panel.measure == "errors"
    assert panel.alphas.tolist() == [0, 0.5, 1, 2, 44, 50]
    assert float(panel.alphas[panel.slider.value()]) == 2.0
    assert "in errors" in panel.plot.getAxis("bottom").labelText
    labels = [label.text for _, label in panel.legend.items]
    assert "relative error (training, rpart's)" in labels
