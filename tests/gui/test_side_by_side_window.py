"""Issue 35 in the window: Model > Algorithms side by side grows the three trees on a worker
and opens its view; Tree stability marks near-ties and fills the inspector; Regrow on edit
says what an edit changed, and undo regrows the tree back."""

from gui.table.table_commands import SetCellCommand
from tests.gui.conftest import train_and_wait


def test_side_by_side_action_grows_the_algorithms_and_opens_the_view(qtbot, window):
    window.act["side_by_side"].trigger()
    qtbot.waitUntil(lambda: window.side_by_side.window is not None, timeout=30000)
    view = window.side_by_side.window
    assert view.isVisible()
    assert [c.algorithm for c in view.columns] == ["id3", "c45", "cart", "optimal"]
    view.pair.setCurrentIndex(1)  # ID3 and CART part at the root (outlook, two ways)
    view.jump()
    assert view.columns[0].canvas.selected_node() == 0
    assert "ID3 and CART (grown) first part at the root" in view.words.toPlainText()
    view.close()


def test_stability_marks_the_near_tie_and_regrow_on_edit_says_what_changed(qtbot, window):
    train_and_wait(qtbot, window)
    marks = window.stability_marks
    window.act["stability"].trigger()
    qtbot.waitUntil(lambda: marks.result is not None, timeout=30000)
    # C4.5 at the root: outlook's gain ratio 0.156 against humidity's 0.152 (within 5%).
    assert list(marks.marks.badges) == [0]
    assert "humidity" in marks.marks.tips[0]
    window.canvas.select_node(0)
    assert "Near-tie" in window.inspector.stability.text()
    assert "humidity" in window.inspector.stability.text()
    assert window.canvas.legend_extra  # the badge's legend entry

    before = window.controller.tree.n_nodes
    regrow = window.regrow
    regrow._timer.setInterval(50)  # the pause after typing, shortened for the test
    window.act["regrow_on_edit"].trigger()
    assert regrow.on
    # An overcast day (always yes) made sunny, through the table's undoable edit.
    window.doc.undo_stack.push(SetCellCommand(window.doc, 2, 0, "sunny"))
    qtbot.waitUntil(lambda: bool(regrow.last), timeout=30000)
    assert regrow.last.startswith("Regrown after the edit")
    assert "change" in regrow.last
    edited = regrow.last
    regrow.last = ""
    window.doc.undo_stack.undo()
    qtbot.waitUntil(lambda: bool(regrow.last), timeout=30000)
    assert regrow.last != edited
    assert window.controller.tree.n_nodes == before
    assert window.doc.value(2, 0) == "overcast"
