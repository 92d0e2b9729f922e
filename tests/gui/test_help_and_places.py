"""Help > Keyboard shortcuts and User guide (F1), and where file dialogs start and what they suggest
(issue 30, items 7 and 5)."""

from pathlib import Path

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog

from gui.actions import ACTIONS, MENUS
from gui.dialogs import Dialogs
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``), for the tests
    of help and commands. Where dialogs start is kept in the window's settings, and the test of
    whole counts reads every widget of the window: those tests take ``own_window``."""
    return shared_window


NATIVE = QKeySequence.SequenceFormat.NativeText


# ---------------------------------------------------------------------- help
def test_the_shortcuts_dialog_lists_every_action_with_a_shortcut_once(qtbot, window):
    window.act["shortcuts"].trigger()
    dialog = window.shortcuts_dialog
    assert dialog is not None and dialog.isVisible()
    rows = dialog.rows()
    expected = {}
    for spec in ACTIONS:
        keys = [QKeySequence(s).toString(NATIVE) for s in spec.shortcuts]
        if any(keys):
            expected[spec.text.replace("&", "").replace("…", "").strip()] = (
                ", ".join(k for k in keys if k),
                spec.tip,
            )
    assert len(rows) == len({name for name, _, _ in rows})  # no duplicates
    # Besides the actions: the side bar's buttons, whose keys go with their place in the bar.
    *actions, (side, side_keys, _) = rows
    assert (side, side_keys) == ("Side-bar panel 1 to 9", "Alt+1 … Alt+9")
    assert {name: (keys, tip) for name, keys, tip in actions} == expected
    # The keys shown are the ones the window's actions are bound to.
    by_name = {spec.text.replace("&", "").replace("…", "").strip(): spec.name for spec in ACTIONS}
    for name, keys, _ in actions:
        bound = ", ".join(k.toString(NATIVE) for k in window.act[by_name[name]].shortcuts())
        assert bound == keys, name
    assert ("Train", "F5, Ctrl+R", "Grow the tree with the current options (F5)") in rows
    assert any(name == "User guide" and keys == "F1" for name, keys, _ in rows)


def test_help_has_the_guide_the_shortcuts_and_about(window):
    assert MENUS["&Help"] == ["guide", "shortcuts", None, "about"]
    titles = [a.text() for a in window.menuBar().actions()]
    help_menu = window.menuBar().actions()[titles.index("&Help")].menu()
    assert [a.text() for a in help_menu.actions() if not a.isSeparator()] == [
        "&User guide",
        "&Keyboard shortcuts",
        "&About Arbor",
    ]


def test_f1_opens_the_user_guide(qtbot, window, monkeypatch):
    import gui.help

    opened = []
    monkeypatch.setattr(
        gui.help.QDesktopServices, "openUrl", lambda url: opened.append(url) or True
    )
    assert [k.toString(NATIVE) for k in window.act["guide"].shortcuts()] == ["F1"]
    window.act["guide"].trigger()
    assert len(opened) == 1 and opened[0].isLocalFile()
    guide = Path(opened[0].toLocalFile())
    assert guide.is_file() and guide.name == "window.md" and guide.parent.name == "docs"
    assert guide.read_text(encoding="utf-8").startswith("# Using the window")
    assert window.dialogs.infos == []


def test_without_the_guide_at_hand_the_window_says_where_it_is(
    qtbot, window, monkeypatch, tmp_path
):
    import gui.help

    opened = []
    monkeypatch.setattr(
        gui.help.QDesktopServices, "openUrl", lambda url: opened.append(url) or True
    )
    monkeypatch.setattr(gui.help, "GUIDE", tmp_path / "docs" / "window.md")
    window.act["guide"].trigger()
    assert opened == []
    assert len(window.dialogs.infos) == 1 and "docs/window.md" in window.dialogs.infos[0]


# ---------------------------------------------------------------------- where dialogs start
@pytest.fixture
def asked(monkeypatch):
    """What the window's (real) file dialogs were asked with: (which, title, directory)."""
    calls, answers = [], []

    def ask(which):
        def static(parent, title, directory="", filters="", *rest, **kwargs):
            calls.append((which, title, directory))
            return (answers.pop(0) if answers else "", "")

        return staticmethod(static)

    monkeypatch.setattr(QFileDialog, "getOpenFileName", ask("open"))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask("save"))
    return calls, answers


class FileDialogs(Dialogs):
    """The window's own file dialogs; messages are recorded instead of shown."""

    def __init__(self, window):
        super().__init__(window, window.doc, window.settings)
        self.errors, self.infos = [], []

    def error(self, message, details=""):
        self.errors.append(message)

    def info(self, message):
        self.infos.append(message)


@pytest.fixture
def credit(own_window, tmp_path):
    """The window with credit-g.arff (the weather rows) opened from a folder of its own."""
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "credit-g.arff"
    path.write_bytes(
        (Path(__file__).parents[2] / "resources" / "datasets" / "weather.arff").read_bytes()
    )
    assert own_window.files.open_path(str(path), confirmed=True)
    own_window.dialogs = FileDialogs(own_window)
    return own_window, folder


def test_open_and_test_file_dialogs_start_in_the_data_folder(
    qtbot, credit, asked, monkeypatch, tmp_path
):
    window, folder = credit
    calls, _ = asked
    monkeypatch.chdir(tmp_path)  # not the working folder
    window.files.open_dialog()
    window.files.open_project_dialog()
    train_and_wait(qtbot, window)
    window.evaluating.test_file()
    assert [(which, directory) for which, _, directory in calls] == [("open", str(folder))] * 3
    assert window.dialogs.errors == []


def test_save_dialogs_suggest_names_after_the_data_file(qtbot, credit, asked):
    window, folder = credit
    calls, _ = asked
    window.files.save_project_dialog()
    window.files.save_as()
    train_and_wait(qtbot, window)
    window.exports.export_image()
    window.exports.export_slide()
    for kind in ("rules", "python", "pmml", "dot"):
        window.exports.export_file(kind)
    window.exports.export_model()
    suggested = [Path(directory) for which, _, directory in calls]
    assert all(which == "save" for which, _, _ in calls)
    assert {p.parent for p in suggested} == {folder}
    assert [p.name for p in suggested] == [
        "credit-g.arbor",
        "credit-g.arff",
        "credit-g.png",
        "credit-g-slide.png",
        "credit-g-rules.txt",
        "credit-g_tree.py",
        "credit-g.pmml",
        "credit-g.dot",
        "credit-g-model.json",
    ]
    assert window.dialogs.errors == []


def test_a_saved_project_is_suggested_again(qtbot, credit, asked, tmp_path):
    window, _ = credit
    calls, answers = asked
    elsewhere = tmp_path / "projects"
    elsewhere.mkdir()
    answers.append(str(elsewhere / "lesson.arbor"))
    assert window.files.save_project_dialog()
    window.files.save_project_dialog()
    assert calls[1][2] == str(elsewhere / "lesson.arbor")


def test_without_a_data_file_dialogs_start_in_the_last_folder_used(
    qtbot, own_window, asked, tmp_path
):
    own_window.dialogs = FileDialogs(own_window)  # the weather sample: no file
    calls, answers = asked
    own_window.files.save_project_dialog()
    assert calls[-1][2] == "weather.arbor"  # no folder known yet: Qt's own choice
    folder = tmp_path / "chosen"
    folder.mkdir()
    answers.append(str(folder / "nothing-here.csv"))
    own_window.dialogs.open_path()  # answered in ``folder``
    own_window.files.save_project_dialog()
    assert calls[-1][2] == str(folder / "weather.arbor")
    own_window.dialogs.open_path()
    assert calls[-1][2] == str(folder)
    # The last folder is kept with the window's settings, for the next start.
    assert Dialogs(own_window, own_window.doc, own_window.settings).start_folder() == str(folder)


# ---------------------------------------------------------------------- counts as integers
def test_whole_counts_show_as_integers_and_fractions_stay(qtbot, own_window, tmp_path):
    """C4.5 on rows with missing values: weights like 31.2 stay fractions, whole ones read "19", never "19.0"
    (Weka's own "(16.0/1.0)" label and text, which copy Weka, are the exception and not shown here)."""
    import re

    import numpy as np
    import pandas as pd
    from PySide6.QtWidgets import QAbstractItemView, QLabel, QPlainTextEdit, QTextEdit, QWidget

    from engine.export.node_labels import NodeLabels, node_lines

    rng = np.random.default_rng(1)
    n = 60
    frame = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n),
            "b": rng.integers(0, 5, n).astype(float),
            "c": rng.choice(["p", "q"], n),
        }
    )
    frame["class"] = np.where((frame.a == "x") | (frame.b > 2), "good", "bad")
    frame.loc[rng.choice(n, 10, replace=False), "a"] = np.nan
    frame.loc[rng.choice(n, 8, replace=False), "b"] = np.nan
    path = tmp_path / "missing.csv"
    frame.to_csv(path, index=False)
    assert own_window.files.open_path(str(path), confirmed=True)
    own_window.config.algorithm.set_value("c45")
    train_and_wait(qtbot, own_window)
    tree = own_window.controller.tree
    labels = NodeLabels(n=True, counts=True, percent=True)
    lines = [line for node in tree.nodes() for line in node_lines(tree, node, labels)]
    assert "n = 60" in lines and any(re.search(r"\d\.\d", line) for line in lines)  # fractions kept
    for node in tree.nodes():
        own_window.controller.select_node(node.id)
        qtbot.wait(1)
        texts = list(lines)
        for widget in own_window.findChildren(QWidget):
            if isinstance(widget, QLabel):
                texts.append(widget.text())
            elif isinstance(widget, (QTextEdit, QPlainTextEdit)):
                texts.append(widget.toPlainText())
            elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
                model = widget.model()
                texts += [
                    str(model.index(r, c).data())
                    for r in range(min(model.rowCount(), 30))
                    for c in range(model.columnCount())
                ]
        whole_as_float = [t for t in texts if re.search(r"(?<![\d.])\d+\.0(?![\d%])", t or "")]
        assert whole_as_float == [], node.id


def test_large_dataset_dialogs_start_in_the_data_folder(credit, monkeypatch):
    window, folder = credit
    seen = []
    monkeypatch.setattr(
        QFileDialog,
        "getOpenFileName",
        staticmethod(lambda parent, title, directory="", *a: seen.append(directory) or ("", "")),
    )
    monkeypatch.setattr(
        QFileDialog,
        "getExistingDirectory",
        staticmethod(lambda parent, title, directory="", *a: seen.append(directory) or ""),
    )
    window.large.open_dialog()
    window.large.open_folder_dialog()
    assert seen == [str(folder)] * 2


def test_every_part_and_command_the_actions_reach_is_on_the_window(window):
    from gui.actions import Window

    reached = set(Window.__annotations__) | {
        name for name in vars(Window) if not name.startswith("_")
    }
    assert reached and not [name for name in sorted(reached) if not hasattr(window, name)]
