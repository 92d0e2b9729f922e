"""The Evaluation panel's learning curve and bias-variance view (issue 37): computed for a run
in the background, drawn from the engine's figures, cancellable."""

import numpy as np

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.bias_variance import bias_variance
from engine.evaluate.learning_curve import learning_curve
from engine.settings import resolve
from gui.panels.bias_and_variance import BiasVarianceView, LearningCurveView


def _train(qtbot, window, **params):
    c = window.controller
    c.set_options({"algorithm": "id3", **params}, 0, 1)
    with qtbot.waitSignal(c.runs_changed, timeout=60000):
        job = c.train()
    qtbot.waitUntil(lambda: job.done, timeout=60000)


def test_learning_curve_of_a_run_then_bias_and_variance_cancelled(qtbot, window):
    _train(qtbot, window)
    panel = window.evaluation
    panel.learning.folds.setValue(3)
    panel.learning.steps.setValue(3)
    window.act["learning_curve"].trigger()
    view = panel.learning
    assert view.running and view.stop.isVisible() is view.isVisible()
    qtbot.waitUntil(lambda: not view.running, timeout=60000)
    settings = window.controller.runs[1].settings
    expected = learning_curve(encode(load_sample("weather")), settings, 3, 3, settings.seed)
    assert view.result.as_dict() == expected.as_dict()
    x, y = view.lines["cross-validated"].getData()
    assert x.tolist() == expected.sizes.tolist()
    np.testing.assert_allclose(y, expected.validation_mean)
    assert "Run 1 (ID3 on weather)" in view.legend.text()
    assert "variance" in view.note.text() and "Seed 004" in view.note.text()

    bv = panel.bias_variance
    bv.resamples.setValue(200)  # long enough to be cancelled on the way
    window.compute_curve("bias-variance")
    job = bv.job
    assert job is not None and panel.tabs.currentWidget() is bv
    bv.stop.click()
    qtbot.waitUntil(lambda: job.done and not bv.running, timeout=60000)
    assert bv.result is None and bv.compute.isEnabled() and not bv.progress.isVisible()
    assert "Compute (Ctrl+Alt+B)" in bv.legend.text()
    # The learning curve stays with its run.
    assert panel.learning.result is not None


def test_bias_variance_view_draws_the_figures_and_marks_the_chosen_tree(qtbot):
    view = BiasVarianceView()
    qtbot.addWidget(view)
    result = bias_variance(encode(load_sample("iris")), resolve(), values=[1, 2, 4], resamples=3)
    view.show_result(result, "Run 1 (C4.5 on <b>iris</b>)")
    for key, column in (("error", "error"), ("variance", "variance"), ("noise", "noise_term")):
        np.testing.assert_allclose(view.lines[key].getData()[1], result.column(column))
    text = view.legend.text()
    assert "&lt;b&gt;iris&lt;/b&gt;" in text and "<b>iris" not in text
    assert result.chosen == 3  # between the values: the figures shown are the nearest's
    assert "at max depth 2 (the nearest to the chosen 3)" in text and "net variance" in text
    assert "search bias" in view.note.text()
    assert "each size's trees grown unpruned" in text
    assert view.options() == {
        "parameter": "depth",
        "resampling": "bootstrap",
        "resamples": 20,
        "keep_pruning": False,
    }
    view.keep_pruning.setChecked(True)
    assert view.options()["keep_pruning"] and view.keep_pruning.toolTip()


def test_learning_view_options_and_empty_state(qtbot):
    view = LearningCurveView()
    qtbot.addWidget(view)
    view.show_result(None, "Compute (Ctrl+Alt+L) works out run 2's learning curve.")
    assert "run 2" in view.legend.text() and not view.figure.built
    assert view.options() == {"folds": 5, "steps": 8}
    assert view.compute.toolTip() and view.stop.toolTip() and view.folds.toolTip()
