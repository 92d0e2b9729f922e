"""The mouse wheel changes an input only when a person has picked it.

Qt gives the wheel to whatever spin box, combo box or slider is under the pointer, focused
or not: scrolling the Algorithm panel past its fields turned Confidence 0.25 into 0.20 and
Gini into Misclassification on the way, and the next training used them without a word.
Desktop tools answer this the same way, and so does Arbor, in one place for every panel,
dock and window of the application:

- an input the wheel passes over scrolls its panel instead (the wheel event goes to the
  nearest scroll area around it; with none, it is dropped);
- an input that has the focus (clicked or tabbed into) takes the wheel as usual;
- inputs get ``Qt.StrongFocus`` instead of Qt's ``WheelFocus``, so that the wheel passing
  over them does not focus them (Qt focuses a ``WheelFocus`` widget before any filter
  sees the event).

An application-wide event filter rather than a subclass or a per-widget call: inputs that
panels make later (the What-if panel's one combo box per attribute, the compare window's)
are covered without anyone remembering to.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

#: The inputs whose value the wheel changes. (Spin boxes include date and time edits;
#: sliders include dials. Scroll bars are sliders too, but scrolling is what they are for.)
INPUTS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def guarded(widget) -> bool:
    """Whether ``widget`` is an input the wheel may change only once it is picked."""
    return isinstance(widget, INPUTS) and not isinstance(widget, QScrollBar)


def picked(widget: QWidget) -> bool:
    """Whether ``widget`` has the keyboard focus (itself, or its line edit inside it)."""
    focus = QApplication.focusWidget()
    return focus is not None and (focus is widget or widget.isAncestorOf(focus))


def steady(widget: QWidget) -> None:
    """Hovering with the wheel no longer focuses ``widget``; a click or Tab still does."""
    if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class WheelGuard(QObject):
    """The application's event filter that keeps the wheel off inputs nobody picked."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QEvent.Type.Wheel:
            if guarded(watched) and not picked(watched):
                scroll_instead(watched, event)
                return True
        elif kind == QEvent.Type.Polish and guarded(watched):  # once per widget, before it shows
            steady(watched)
        return False


def scroll_instead(widget: QWidget, event: QWheelEvent) -> None:
    """Hand the wheel ``event`` over ``widget`` to the scroll area that holds it."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = None if parent.isWindow() else parent.parentWidget()
    if parent is None:
        return  # nothing around it scrolls: the wheel does nothing here
    viewport = parent.viewport()  # a scroll area reads the wheel on its viewport
    passed = QWheelEvent(
        viewport.mapFromGlobal(event.globalPosition()),
        event.globalPosition(),
        event.pixelDelta(),
        event.angleDelta(),
        event.buttons(),
        event.modifiers(),
        event.phase(),
        event.inverted(),
        event.source(),
    )
    QCoreApplication.sendEvent(viewport, passed)


def install_wheel_guard() -> WheelGuard:
    """Install the application's one guard (idempotent); it lives as long as the application."""
    app = QCoreApplication.instance()
    existing = app.findChild(WheelGuard)
    if existing is not None:
        return existing
    guard = WheelGuard(app)
    app.installEventFilter(guard)
    for widget in QApplication.allWidgets():  # any input polished before the guard came
        if guarded(widget):
            steady(widget)
    return guard
