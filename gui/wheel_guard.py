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

The application's style finds the inputs rather than a subclass or a per-widget call: it
polishes every widget once before it shows, so inputs that panels make later (the What-if
panel's one combo box per attribute, the compare window's) are covered without anyone
remembering to. Each input found gets the guard as its own event filter. (An
application-wide event filter did the same, but Qt then called into Python for every event
of every object: a fifth of the CPU of opening a window.)
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
    QProxyStyle,
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
    """The event filter of every input, which keeps the wheel off the input until it is picked."""

    def guard(self, widget: QWidget) -> None:
        """Keep the wheel off the input ``widget`` until it is picked (again: no harm)."""
        steady(widget)
        widget.installEventFilter(self)  # once: installed again, Qt only moves it first

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Wheel and not picked(watched):
            scroll_instead(watched, event)
            return True
        return False


class PlotInPanel:
    """For a plot (a pyqtgraph view) inside a scrolling panel: the wheel zooms it only once
    it is picked (clicked); passing over it on the way down the panel, the wheel scrolls the
    panel, as for the inputs. Scrolling the Inspector zoomed its node plot whenever the plot
    passed under the pointer. A plot in no scroll area takes the wheel as usual."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        steady(self)  # pyqtgraph's views take the focus from a passing wheel (WheelFocus)

    def wheelEvent(self, event):  # noqa: N802 - Qt override
        if picked(self) or _scroll_area_around(self) is None:
            super().wheelEvent(event)
            return
        scroll_instead(self, event)
        event.accept()


class GuardingStyle(QProxyStyle):
    """The application's style as it was, handing every input it polishes to the guard."""

    def __init__(self, base, guard: WheelGuard):
        super().__init__(base)
        self.guard = guard

    def polish(self, target):
        """Qt polishes a widget once before it shows (and after a change of style); also
        palettes and the application, which pass through."""
        polished = super().polish(target)  # a palette's overload returns the polished one
        kind = type(target)
        # A window polishes a thousand widgets of a few dozen classes: isinstance against
        # Qt's classes, three times a widget, was most of the time spent here.
        is_input = _IS_INPUT.get(kind)
        if is_input is None:
            is_input = _IS_INPUT[kind] = issubclass(kind, QWidget) and guarded(target)
        if is_input:
            self.guard.guard(target)
        return polished


#: Whether each class polished is an input (see :func:`guarded`), by class.
_IS_INPUT: dict[type, bool] = {}


def scroll_instead(widget: QWidget, event: QWheelEvent) -> None:
    """Hand the wheel ``event`` over ``widget`` to the scroll area that holds it."""
    parent = _scroll_area_around(widget)
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


def _scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area holding ``widget``, in its window (None: none)."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = None if parent.isWindow() else parent.parentWidget()
    return parent


def install_wheel_guard() -> WheelGuard:
    """Install the application's one guard (idempotent); it lives as long as the application."""
    app = QCoreApplication.instance()
    existing = app.findChild(WheelGuard)
    if existing is not None:
        return existing
    guard = WheelGuard(app)
    guard.guarding_style = GuardingStyle(QApplication.style(), guard)
    QApplication.setStyle(guard.guarding_style)  # the old style lives on inside it
    for widget in QApplication.allWidgets():  # any input polished before the guard came
        if guarded(widget):
            guard.guard(widget)
    return guard
