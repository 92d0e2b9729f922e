"""Whole counts read as integers where the window shows them outside the tree (issue 30;
the tree's own labels are held by test_help_and_places): the Algorithm panel's sample
counts and the large-data preview."""

import numpy as np
import pandas as pd
import pytest

from gui.panels.algorithm import AlgorithmPanel


def test_min_samples_read_as_counts_and_keep_a_fraction(qtbot):
    panel = AlgorithmPanel()
    qtbot.addWidget(panel)
    assert panel.min_samples_split.text() == "2" and panel.min_samples_leaf.text() == "2"
    panel.min_samples_leaf.setValue(2.5)
    assert panel.min_samples_leaf.text() == "2.5" and panel.params()["min_samples_leaf"] == 2.5
    panel.min_samples_split.lineEdit().setText("7")  # typed as a person types it
    panel.min_samples_split.interpretText()
    assert panel.params()["min_samples_split"] == 7


def test_the_large_data_preview_shows_whole_numbers_whole(qtbot, window, tmp_path):
    pytest.importorskip("distributed")
    frame = pd.DataFrame({"count": [2.0, np.nan, 3.0, 4.5], "cls": ["a", "b", "a", "b"]})
    frame.to_parquet(tmp_path / "part.0.parquet")
    job = window.large.open(str(tmp_path))
    qtbot.waitUntil(lambda: job.done and window.large.dialog is not None, timeout=30000)
    preview = window.large.dialog.preview
    assert [preview.item(r, 0).text() for r in range(4)] == ["2", "?", "3", "4.5"]
