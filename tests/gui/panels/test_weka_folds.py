"""The Algorithm panel's "Weka's folds": cross-validation after training on the folds of Weka's -x K -s S."""

import json
from pathlib import Path

RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "weka"


def test_weka_folds_give_j48s_cross_validated_count(qtbot, window):
    from engine.data.arff import read_arff
    from tests.gui.conftest import train_and_wait

    glass = read_arff(RECORDED / "data" / "glass.arff")
    window.controller.load_table(glass, None)
    panel = window.config
    panel.algorithm.set_value("c45")
    panel.cv_folds.setValue(10)
    panel.seed.setValue(2)
    assert panel.weka_folds.isEnabled() and not panel.weka_folds.isChecked()
    panel.weka_folds.setChecked(True)
    assert window.controller.options.weka_folds
    train_and_wait(qtbot, window)
    evaluation = window.controller.result.evaluation
    assert evaluation.method == "10-fold cross-validation (Weka's folds, seed 2)"
    # J48 -t glass.arff -x 10 -s 2: 157 of 214 (tests/fixtures/weka/recorded.json)
    runs = json.loads((RECORDED / "recorded.json").read_text())["datasets"]["glass"]["cv"][
        "cv10_runs"
    ]
    assert round(evaluation.accuracy * 214) == round(runs[1] * 214 / 100) == 157


def test_weka_folds_need_cross_validation_and_are_remembered(qtbot, window, settings):
    from gui.panels.algorithm import AlgorithmPanel

    panel = window.config
    panel.cv_folds.setValue(0)
    assert not panel.weka_folds.isEnabled()
    assert "cross-validation is off" in panel.weka_folds.toolTip()
    panel.cv_folds.setValue(5)
    panel.weka_folds.setChecked(True)
    panel.save(settings)
    again = AlgorithmPanel()
    qtbot.addWidget(again)
    again.restore(settings)
    assert again.weka_folds.isChecked() and again.cv_settings() == (5, 1, True)
