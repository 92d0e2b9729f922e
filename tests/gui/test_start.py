"""What the window does at start: a file given on the command line loads but does not
train unless Model > Train a file opened at start is on (issue 30)."""

from engine.data.samples import sample_path
from gui.app import open_first
from gui.main_window import TRAIN_AT_START, trains_at_start
from tests.gui.conftest import FakeDialogs, settings_dir


def _fresh(qtbot, settings):
    from gui.main_window import MainWindow

    win = MainWindow(settings)
    win.dialogs = FakeDialogs()
    win.recovery.path = settings_dir(settings) / f"recovery-{id(win)}.arbor"
    qtbot.addWidget(win)
    return win


def test_a_file_on_the_command_line_loads_without_training(qtbot, settings):
    assert not trains_at_start(settings)  # off by default
    win = _fresh(qtbot, settings)
    assert not win.act["train_at_start"].isChecked()
    assert open_first(win, [str(sample_path("iris"))]) is False
    assert win.doc.n_rows == 150 and win.controller.tree is None and not win.controller.busy
    assert "Train (F5)" in win.status_label.text()


def test_the_setting_trains_a_file_opened_at_start_and_is_kept(qtbot, settings):
    win = _fresh(qtbot, settings)
    win.act["train_at_start"].trigger()  # the menu item, as a person ticks it
    assert trains_at_start(settings)
    again = _fresh(qtbot, settings)
    assert again.act["train_at_start"].isChecked()
    assert open_first(again, [str(sample_path("iris"))]) is True
    qtbot.waitUntil(lambda: again.controller.tree is not None, timeout=60000)
    settings.setValue(TRAIN_AT_START, False)


def test_without_a_file_the_sample_opens_trained(qtbot, settings):
    win = _fresh(qtbot, settings)
    assert open_first(win, []) is True
    qtbot.waitUntil(lambda: win.controller.tree is not None, timeout=60000)
