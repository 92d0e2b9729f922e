"""Max depth in the Algorithm panel: 0 is a single leaf, "no limit" a box of its own that
no arrow key or wheel reaches from 0 (issue 30); the command line means the same."""

from PySide6.QtCore import QSettings, Qt

from engine import DecisionTree
from engine.data.samples import load_sample
from gui.panels.algorithm import AlgorithmPanel


def test_no_limit_is_its_own_box_and_zero_is_a_depth(qtbot):
    panel = AlgorithmPanel()
    qtbot.addWidget(panel)
    assert panel.no_depth_limit.isChecked() and panel.params()["max_depth"] is None
    assert not panel.max_depth.isEnabled()  # greyed while there is no limit
    panel.no_depth_limit.setChecked(False)
    assert panel.max_depth.isEnabled()
    panel.max_depth.setValue(1)
    panel.max_depth.setFocus()
    qtbot.keyClick(panel.max_depth, Qt.Key.Key_Down)
    qtbot.keyClick(panel.max_depth, Qt.Key.Key_Down)  # below 0 is nothing, not "no limit"
    assert panel.max_depth.value() == 0 and panel.params()["max_depth"] == 0
    assert not panel.no_depth_limit.isChecked()


def test_a_depth_set_unticks_no_limit_and_params_round_trip(qtbot, tmp_path):
    panel = AlgorithmPanel()
    qtbot.addWidget(panel)
    panel.max_depth.setValue(3)
    assert panel.params()["max_depth"] == 3
    panel.set_params({"max_depth": None})
    assert panel.no_depth_limit.isChecked() and panel.params()["max_depth"] is None
    panel.set_params({"max_depth": 0})
    assert panel.params()["max_depth"] == 0
    settings = QSettings(str(tmp_path / "a.ini"), QSettings.Format.IniFormat)
    panel.save(settings)
    again = AlgorithmPanel()
    qtbot.addWidget(again)
    again.restore(settings)
    assert again.params()["max_depth"] == 0 and not again.no_depth_limit.isChecked()


def test_depth_zero_is_one_leaf_as_on_the_command_line():
    table = load_sample("weather")
    assert DecisionTree(algorithm="id3", max_depth=0).fit(table).tree_.n_leaves == 1
    assert DecisionTree(algorithm="id3", max_depth=None).fit(table).tree_.n_leaves == 5


def test_the_command_line_reads_max_depth_0_as_one_leaf(capsys):
    import json

    from cli.main import main

    assert (
        main(["train", "--sample", "weather", "--algorithm", "id3", "--max-depth", "0", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["n_leaves"] == 1 and out["depth"] == 0
