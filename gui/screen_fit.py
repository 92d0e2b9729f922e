"""A window's first place on the screen: its size, or less, with room for the frame.

The screen's available area (``QScreen.availableGeometry``: the screen less panels and
docks) has to hold the whole window, frame included. Qt sizes a window's inside; the frame
(title bar, borders) is the window manager's and is added around it, and before the window
is first shown no platform has said how big it is (``frameGeometry() == geometry()``). A
window as tall as the available area therefore ends below the screen by its title bar: at
1024x700 the status bar, with the progress bar, Cancel and every message, was out of sight.

So a first geometry leaves :data:`FRAME` around the window; and where the size the window
would like does not fit with it (a laptop), the window starts maximized, which every window
manager fits to the available area frame and all.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize

#: Room left for a frame the platform has not reported yet: a title bar of up to 40 px
#: (GNOME's and Windows' are 30-37, KDE's and Openbox's about 20-30) and thin borders.
FRAME = QMargins(8, 40, 8, 8)


def first_geometry(available: QRect, wanted: QSize, frame: QMargins = FRAME) -> tuple[QRect, bool]:
    """(the window's inside, whether to start maximized) on a screen whose free area is ``available``.

    The inside is ``wanted``, or less where the area less ``frame`` is smaller, centred in
    that room; maximized when ``wanted`` had to shrink.
    """
    room = available.marginsRemoved(frame)
    size = wanted.boundedTo(room.size())
    left = room.left() + (room.width() - size.width()) // 2
    top = room.top() + (room.height() - size.height()) // 2
    return QRect(left, top, size.width(), size.height()), size != wanted


def fit_to_screen(window, wanted: QSize) -> bool:
    """Give ``window`` (not shown yet) its first geometry; True if it should start maximized."""
    screen = window.screen()
    if screen is None or screen.availableGeometry().isEmpty():
        window.resize(wanted)
        return False
    geometry, maximize = first_geometry(screen.availableGeometry(), wanted)
    window.setGeometry(geometry)
    return maximize
