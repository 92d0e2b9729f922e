"""The window fits the screen's available area frame and all (issue 30).

At 1024x700 the window used to be as tall as the screen's free area; the title bar then
pushed its bottom, the status bar with the progress bar and Cancel, off the screen.
"""

import pytest
from PySide6.QtCore import QMargins, QPoint, QRect, QSize

from gui.screen_fit import first_geometry

WANTED = QSize(1400, 900)
#: A title bar and borders as big as a window manager draws them.
FRAME = QMargins(8, 40, 8, 8)


@pytest.mark.parametrize(
    "available",
    [
        QRect(0, 0, 1024, 700),
        QRect(0, 0, 1280, 720),
        QRect(0, 27, 1366, 741),
        QRect(1920, 0, 1440, 873),
    ],
)
def test_a_small_screen_starts_maximized_and_its_normal_size_leaves_room_for_a_frame(available):
    inside, maximize = first_geometry(available, WANTED)
    assert maximize
    assert available.contains(inside.marginsAdded(FRAME)), (available, inside)
    # ...and no smaller than that room asks (shown, it is maximized anyway).
    assert inside.width() >= min(WANTED.width(), available.width() - 16)
    assert inside.height() >= min(WANTED.height(), available.height() - 48)


def test_a_big_screen_gets_the_whole_first_size_with_its_frame_inside():
    available = QRect(0, 0, 1920, 1040)
    inside, maximize = first_geometry(available, WANTED)
    assert not maximize
    assert inside.size() == WANTED
    assert available.contains(inside.marginsAdded(FRAME))


def test_the_window_and_its_status_bar_are_on_the_screen_frame_and_all(qtbot, window):
    available = window.screen().availableGeometry()  # offscreen: 800x800, with a 2-px frame
    assert window.start_maximized
    window.show_first()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.isMaximized)
    assert available.contains(window.frameGeometry()), (available, window.frameGeometry())
    bar = window.statusBar()
    assert bar.isVisible()
    assert available.contains(QRect(bar.mapToGlobal(QPoint(0, 0)), bar.size()))


def test_a_saved_geometry_is_shown_as_it_was_not_maximized(qtbot, settings):
    from gui.main_window import MainWindow

    first = MainWindow(settings)
    qtbot.addWidget(first)
    first.setGeometry(QRect(20, 60, 700, 650))
    settings.setValue("window/geometry", first.saveGeometry())
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert not again.start_maximized
    again.show_first()
    qtbot.waitExposed(again)
    assert not again.isMaximized() and again.size() == QSize(700, 650)
