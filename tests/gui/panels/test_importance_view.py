"""The Evaluation panel's Importance view (issue 33, item 3): computed for a run in the
background with progress and Cancel, drawn as bars from the engine's figures, names from the
file kept as plain text."""

import numpy as np

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.importance import Importance, cross_validated_permutation_importance
from gui.panels.importance import ImportanceView


def _train(qtbot, window, **params):
    c = window.controller
    c.set_options({"algorithm": "id3", **params}, 0, 1)
    with qtbot.waitSignal(c.runs_changed, timeout=60000):
        job = c.train()
    qtbot.waitUntil(lambda: job.done, timeout=60000)


def test_permutation_importance_of_a_run_then_cancelled(qtbot, window):
    _train(qtbot, window)
    panel = window.evaluation
    view = panel.importance
    view.kind.setCurrentIndex(view.kind.findData("permutation"))
    view.folds.setValue(3)
    view.repeats.setValue(2)
    window.act["importance"].trigger()
    assert view.running and panel.tabs.currentWidget() is view
    qtbot.waitUntil(lambda: not view.running, timeout=60000)
    settings = window.controller.runs[1].settings
    expected = cross_validated_permutation_importance(
        encode(load_sample("weather")), settings, 3, settings.seed, 2
    )
    assert view.result.as_dict() == expected.as_dict()
    assert np.allclose(view.lines["bars"], np.asarray(expected.values)[expected.ranked()[::-1]])
    assert "Run 1 (ID3 on weather)" in view.legend.text() and "2 repeats" in view.legend.text()

    view.repeats.setValue(100)  # long enough to be cancelled on the way
    window.compute_curve("importance")
    job = view.job
    assert job is not None
    view.stop.click()
    qtbot.waitUntil(lambda: job.done and not view.running, timeout=60000)
    # Cancelled: the run's figures from before stay, and the view is ready again.
    assert view.result.as_dict() == expected.as_dict()
    assert view.compute.isEnabled() and not view.progress.isVisible()


def test_impurity_bars_and_hostile_names(qtbot):
    view = ImportanceView()
    qtbot.addWidget(view)
    assert not view.repeats.isEnabled()  # impurity decrease has no repeats
    names = ("<b>bold</b>", "a & b", "plain")
    imp = Importance("impurity", names, np.array([0.25, 0.75, 0.0]), method="training rows")
    view.show_result(imp, "Run 3 <script>")
    ticks = view.plot.getAxis("left")._tickLevels[0]
    assert [name for _, name in ticks] == ["plain", "<b>bold</b>", "a & b"]  # top: most important
    legend = view.legend.text()
    assert "a &amp; b 0.750" in legend and "&lt;b&gt;bold&lt;/b&gt;" in legend
    assert "<script>" not in legend and "1 with none" in legend
