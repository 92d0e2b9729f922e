"""File > Export interactive page (issue 36): the window writes the page of the tree on the
canvas through the same exporter as ``train --html``."""

from __future__ import annotations

from tests.engine.export.test_html_page import embedded
from tests.gui.conftest import train_and_wait


def test_the_menu_writes_the_interactive_page(qtbot, window, tmp_path):
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None, timeout=60000)
    action = window.act["export_html"]
    assert action.isEnabled() and action.shortcut().toString() == "Ctrl+Alt+H"
    assert "self-contained" in action.toolTip() or "self-contained" in action.statusTip()
    path = tmp_path / "tree.html"
    window.dialogs.replies["save_path"].append(str(path))
    action.trigger()
    assert window.dialogs.errors == []
    model = embedded(path.read_text(encoding="utf-8"))
    assert len(model["nodes"]["id"]) == window.controller.tree.n_nodes
    assert model["algorithm"] == window.controller.settings.algorithm
    assert model["nodes"]["lines"][0] == ["n = 14"]  # as the canvas's nodes say

    window.act["label_counts"].trigger()
    window.dialogs.replies["save_path"].append(str(path))
    action.trigger()
    assert embedded(path.read_text(encoding="utf-8"))["nodes"]["lines"][0] == [
        "n = 14",
        "yes 9 · no 5",
    ]
