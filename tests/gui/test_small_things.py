"""The window's small things: row counts, a new table's own order, projects in the title and
Open recent (the one line instead of Qt's abort is in test_display_check)."""

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test to weather, a new window's options
    and no runs (``reset_window``). The tests that resize or show it take ``own_window``."""
    return shared_window


def _filter(qtbot, window, text):
    panel = window.table
    panel.filter.setText(text)
    panel.filter.returnPressed.emit()
    return panel


def test_the_filter_says_how_many_rows_it_shows(qtbot, window):
    panel = _filter(qtbot, window, "sunny")
    assert panel.count.text() == "5 of 14 rows"
    panel = _filter(qtbot, window, "")
    assert panel.count.text() == "14 rows"


def test_a_new_table_starts_unsorted_and_unfiltered(qtbot, window):
    panel = window.table
    panel.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    _filter(qtbot, window, "sunny")
    assert panel.proxy.rowCount() == 5
    window.files.open_sample("iris", confirmed=True)
    assert panel.filter.text() == "" and panel.proxy.rowCount() == 150
    assert panel.view.horizontalHeader().sortIndicatorSection() == -1
    first = [panel.proxy.index(r, 0).data() for r in range(3)]
    assert first == [window.model.index(r, 0).data() for r in range(3)]  # the file's own order
    assert panel.count.text() == "150 rows"


def test_a_saved_project_is_the_title_save_and_open_recent(qtbot, window, tmp_path):
    train_and_wait(qtbot, window)
    window.model.setData(window.model.index(0, 0), "rainy")
    assert window.windowTitle().startswith("weather *")
    path = tmp_path / "lesson.arbor"
    window.dialogs.replies["save_path"].append(str(path))
    assert window.files.save_project_dialog()
    assert window.windowTitle() == "lesson.arbor — Arbor" and not window.doc.modified
    assert window.files.recent_files()[0] == str(path)
    assert [a.text() for a in window.recent_menu.actions()][0] == str(path)
    # Save writes the project again, not a data file.
    window.model.setData(window.model.index(1, 0), "rainy")
    assert window.files.save() and not window.dialogs.replies["save_path"]
    assert window.windowTitle() == "lesson.arbor — Arbor"
    window.files.open_sample("iris", confirmed=True)
    assert window.windowTitle().startswith("iris")
    assert window.files.open_path(str(path), confirmed=True)
    assert window.windowTitle() == "lesson.arbor — Arbor"
    assert window.doc.value(0, 0) == "rainy" and window.doc.value(1, 0) == "rainy"


def test_a_tree_the_saved_project_does_not_hold_marks_the_title(qtbot, window, tmp_path):
    train_and_wait(qtbot, window)
    window.dialogs.replies["save_path"].append(str(tmp_path / "lesson.arbor"))
    assert window.files.save_project_dialog()
    assert window.windowTitle() == "lesson.arbor — Arbor"
    # A training replaces the tree without an undo step: the project is behind it.
    train_and_wait(qtbot, window)
    assert window.windowTitle() == "lesson.arbor * — Arbor" and window.doc.modified
    assert not window.doc.table_modified  # the table itself is still the one saved
    assert window.files.save() and window.windowTitle() == "lesson.arbor — Arbor"
    # A hand edit marks it; undoing it puts the saved tree back, and the mark goes.
    window.modelling.make_leaf(1)
    assert window.windowTitle() == "lesson.arbor * — Arbor"
    window.doc.undo_stack.undo()
    assert window.windowTitle() == "lesson.arbor — Arbor" and not window.doc.modified


def test_dragging_nodes_of_a_saved_project_marks_the_title(qtbot, window, tmp_path):
    train_and_wait(qtbot, window)
    path = tmp_path / "lesson.arbor"
    window.dialogs.replies["save_path"].append(str(path))
    assert window.files.save_project_dialog()
    scene = window.canvas.tree_scene()
    start = scene.items_by_id[1].pos()
    scene.move_node(1, start.x() + 120, start.y())
    assert window.windowTitle() == "lesson.arbor * — Arbor"
    assert window.files.save() and not window.doc.modified
    window.files.open_sample("iris", confirmed=True)
    assert window.files.open_path(str(path), confirmed=True)
    assert window.windowTitle() == "lesson.arbor — Arbor"  # opening lays the nodes out: not an edit
    assert abs(window.canvas.tree_scene().items_by_id[1].pos().x() - (start.x() + 120)) < 1e-6


def test_a_table_file_is_not_marked_by_a_training(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    train_and_wait(qtbot, window)
    assert not window.doc.modified and "*" not in window.windowTitle()


def test_a_long_status_message_is_cut_with_an_ellipsis_and_whole_in_its_tooltip(qtbot, own_window):
    own_window.resize(1024, 700)
    label = own_window.status_label
    label.resize(200, label.height())
    text = "Trained: " + "a very long message about <b>class</b> names " * 6
    own_window._say(text)
    assert label.text() == text  # what was said, whole
    shown = super(type(label), label).text()
    assert shown.endswith("…") and len(shown) < len(text)
    assert "&lt;b&gt;class&lt;/b&gt;" in label.toolTip()  # plain text, not markup
    own_window._say("Ready")
    assert super(type(label), label).text() == "Ready" and "Ready" not in label.toolTip()


def test_the_panel_asks_for_the_defaults_the_command_line_uses(qtbot, window):
    from engine.runs import settings_summary
    from engine.settings import resolve

    config = window.config
    config.algorithm.set_value("cart")
    config.prune.set_value("reduced-error")
    params = window.controller.options.params
    assert (
        config.holdout.value() == 0.33 and params["holdout"] == 1 / 3
    )  # shown rounded, used exact
    config.holdout.setValue(0.25)
    assert window.controller.options.params["holdout"] == 0.25
    config.prune.set_value("cost-complexity")
    config.cv_alpha.setValue(10)
    assert window.controller.options.params["alpha"] is None  # the folds choose it
    config.cv_alpha.setValue(0)
    config.alpha.setValue(0.01)
    assert window.controller.options.params["alpha"] == 0.01
    config.algorithm.set_value("c45")
    assert settings_summary(resolve(**window.controller.options.params)) == "C4.5"


def test_every_prediction_on_screen_breaks_near_ties_as_the_algorithm_does(
    qtbot, window, monkeypatch
):
    """C4.5 keeps the first class unless another is more than 1e-6 likelier (as J48); CART the
    first maximum (as scikit-learn): the row sentence and the what-if form say the same as the
    command line."""
    import numpy as np

    import engine.predict
    import gui.panels.what_if

    def near_tie(tree, X):
        return np.tile([0.5 - 1e-12, 0.5 + 1e-12], (len(X), 1))

    monkeypatch.setattr(engine.predict, "predict_proba", near_tie)
    monkeypatch.setattr(gui.panels.what_if, "predict_proba", near_tie)
    for algorithm, expected in (("c45", 0), ("cart", 1)):
        window.config.algorithm.set_value(algorithm)
        train_and_wait(qtbot, window)
        qtbot.waitUntil(lambda: window.controller.tree is not None)
        tree = window.controller.tree
        said = tree.classes[expected]
        assert window.controller.predict_row(0).endswith(f"play = {said}")
        window.what_if.update_prediction()
        assert f"<b>{said}</b>" in window.what_if.result.text()


def test_no_path_is_lit_until_the_what_if_form_is_shown(qtbot, own_window):
    own_window.show()
    train_and_wait(qtbot, own_window)
    qtbot.waitUntil(lambda: own_window.controller.tree is not None)
    own_window.docks["Algorithm"].raise_()
    qtbot.wait(50)
    own_window.what_if.update_prediction()
    items = own_window.canvas.tree_scene().items_by_id
    assert not any(item.highlighted for item in items.values())
    own_window.docks["What-if"].raise_()
    qtbot.waitUntil(lambda: any(item.highlighted for item in items.values()))


def test_a_new_table_gives_each_column_room_for_its_heading(qtbot, window):
    header = window.table.view.horizontalHeader()
    for col in range(window.model.columnCount()):
        assert header.sectionSize(col) >= header.sectionSizeFromContents(col).width()
