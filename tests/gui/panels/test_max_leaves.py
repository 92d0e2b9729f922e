"""Max leaves in the Algorithm panel: the box starts at 2, the engine's minimum, and "no
limit" is a box of its own that no arrow key or wheel reaches (issue 30); the command line
means the same."""

import json

import pytest
from PySide6.QtCore import QSettings, Qt

from engine import DecisionTree
from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.settings import OPTION
from gui.panels.algorithm import AlgorithmPanel


def test_no_limit_is_its_own_box_and_the_box_starts_at_the_real_minimum(qtbot):
    panel = AlgorithmPanel()
    qtbot.addWidget(panel)
    assert panel.no_leaf_limit.isChecked() and panel.params()["max_leaves"] is None
    assert not panel.max_leaves.isEnabled()  # greyed while there is no limit
    assert panel.max_leaves.minimum() == OPTION["max_leaves"].low == 2
    panel.no_leaf_limit.setChecked(False)
    assert panel.max_leaves.isEnabled()
    panel.max_leaves.setValue(3)
    panel.max_leaves.setFocus()
    for _ in range(3):  # below 2 is nothing: not 1 (invalid), not "no limit"
        qtbot.keyClick(panel.max_leaves, Qt.Key.Key_Down)
    assert panel.max_leaves.value() == 2 and panel.params()["max_leaves"] == 2
    assert not panel.no_leaf_limit.isChecked()
    assert panel.problem() is None and panel.message.text() == ""


def test_a_limit_set_unticks_no_limit_and_params_round_trip(qtbot, tmp_path):
    panel = AlgorithmPanel()
    qtbot.addWidget(panel)
    panel.max_leaves.setValue(4)
    assert panel.params()["max_leaves"] == 4 and not panel.no_leaf_limit.isChecked()
    panel.set_params({"max_leaves": None})
    assert panel.no_leaf_limit.isChecked() and panel.params()["max_leaves"] is None
    panel.set_params({"max_leaves": 6})
    assert panel.params()["max_leaves"] == 6
    settings = QSettings(str(tmp_path / "a.ini"), QSettings.Format.IniFormat)
    panel.save(settings)
    again = AlgorithmPanel()
    qtbot.addWidget(again)
    again.restore(settings)
    assert again.params()["max_leaves"] == 6 and not again.no_leaf_limit.isChecked()
    panel.set_params({"max_leaves": None})
    panel.save(settings)
    third = AlgorithmPanel()
    qtbot.addWidget(third)
    third.max_leaves.setValue(5)  # a limit before the restore: the saved "no limit" wins
    third.restore(settings)
    assert third.params()["max_leaves"] is None and third.no_leaf_limit.isChecked()


def test_the_engine_takes_two_leaves_or_more_or_no_limit():
    table = load_sample("weather")
    tree = DecisionTree(algorithm="id3", growth="best", max_leaves=3).fit(table).tree_
    assert tree.n_leaves == 3  # outlook's three branches
    assert DecisionTree(algorithm="id3", max_leaves=None).fit(table).tree_.n_leaves == 5
    for bad in (0, 1):
        with pytest.raises(ArborError, match="max-leaves must be at least 2"):
            DecisionTree(algorithm="id3", max_leaves=bad).fit(table)


def test_the_command_line_reads_max_leaves_as_the_engine_does(capsys):
    from cli.main import main

    args = ["train", "--sample", "weather", "--algorithm", "id3", "--growth", "best"]
    assert main([*args, "--max-leaves", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_leaves"] == 3
    assert main([*args, "--max-leaves", "1", "--json"]) != 0
    assert "max-leaves must be at least 2" in capsys.readouterr().err
