"""Panels collapsed to a side bar: on a small window the tree keeps the room (issue 38).

Qt's docks cannot shrink to a tab of their own, so in compact mode the window's docks are
closed and a bar on its right edge holds one button per dock of the current workspace
(rotated names, a shortcut each). A click shows that dock's panel over the canvas's right
side, in a frame of the central area, so the canvas keeps its size; a second click, Esc or a
click on the canvas hides it again. The frame's pin button docks the panel beside the canvas
as before (closing the dock puts it back in the bar).

Compact mode follows the window's size (:func:`gui.workspaces.is_compact`) unless the
person chose otherwise with View > Collapse panels to a side bar, a choice kept in the
settings. The panel itself moves between its dock and the frame, so everything connected to
it keeps working; the dock's ``visibilityChanged`` is told when the panel shows or hides.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QStyle,
    QStyleOptionToolButton,
    QStylePainter,
    QTabBar,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.workspaces import is_compact, members, side_widths

#: The setting: "on" or "off" when the person chose, absent to follow the window's size.
SETTING = "panels/collapse"
#: The docks the person pinned beside the canvas while collapsed.
PINNED = "panels/pinned"


class SideButton(QToolButton):
    """A checkable button whose name reads top to bottom, as the dock tabs on the window's
    right edge do (turned a quarter clockwise)."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return super().sizeHint().transposed()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.sizeHint()  # QToolButton's is its size hint: already turned

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QStylePainter(self)
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        painter.rotate(90)
        painter.translate(0, -self.width())
        option.rect = QRect(0, 0, self.height(), self.width())
        painter.drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option)


class PanelFrame(QFrame):
    """The frame a collapsed panel shows in, over the canvas's right side: its name, a pin
    and a close button, then the panel."""

    closed = Signal()
    pinned = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("side-panel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 2, 4, 4)
        column.setSpacing(2)
        head = QHBoxLayout()
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: bold")
        self.pin_button = QToolButton()
        self.pin_button.setText("Pin")
        self.pin_button.setToolTip("Keep this panel docked beside the tree")
        self.pin_button.clicked.connect(self.pinned)
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setToolTip("Hide this panel (Esc)")
        self.close_button.setAccessibleName("Hide panel")
        self.close_button.clicked.connect(self.closed)
        head.addWidget(self.title, 1)
        head.addWidget(self.pin_button)
        head.addWidget(self.close_button)
        column.addLayout(head)
        self.body = QVBoxLayout()
        self.body.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self.body, 1)
        self.hide()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        # Esc that the panel's own inputs leave alone; not a shortcut, so that Esc still
        # cancels a running job (the Cancel action's key) wherever the focus is.
        if event.key() == Qt.Key.Key_Escape:
            self.closed.emit()
        else:
            super().keyPressEvent(event)

    def place(self) -> None:
        """Along the right edge of the central area, as wide as a compact window's docks."""
        area = self.parentWidget().rect()
        width = min(side_widths(self.window().size())[1] or 320, area.width())
        self.setGeometry(area.width() - width, 0, width, area.height())


class SideBar(QObject):
    """The bar, the frame and compact mode for ``window`` (a :class:`gui.main_window.MainWindow`).

    Signals
    -------
    active_changed(bool) : the panels are now collapsed to the bar (True) or docked (False).
    """

    active_changed = Signal(bool)

    def __init__(self, window, docks_table):
        super().__init__(window)
        self.window = window
        self.table = docks_table
        self.settings = window.settings
        self.active = False
        self.shown: str | None = None  # the dock whose panel is in the frame
        self._holder: QWidget | None = None  # what the dock holds meanwhile
        self.bar = QToolBar("Panels", window)
        self.bar.setObjectName("toolbar-panels")
        self.bar.setMovable(False)
        self.bar.setFloatable(False)
        self.bar.setOrientation(Qt.Orientation.Vertical)
        self.bar.setToolTip("Panels: click one to show it over the tree")
        window.addToolBar(Qt.ToolBarArea.RightToolBarArea, self.bar)
        self.bar.hide()
        self.buttons: dict[str, SideButton] = {}
        self.frame = PanelFrame(window.centralWidget())
        self.frame.closed.connect(self.hide_panel)
        self.frame.pinned.connect(self.pin)
        # Kept, not asked for in eventFilter: it also sees the window's last events, when
        # Qt has already deleted what a call would reach.
        self._centre, self._canvas = window.centralWidget(), window.canvas
        self._viewport = window.canvas.viewport()
        for watched in (self._centre, self._viewport, self._canvas, window):
            watched.installEventFilter(self)
        for name, dock in window.docks.items():
            dock.visibilityChanged.connect(lambda *_, n=name: self._update_button(n))
            dock.installEventFilter(self)

    # ------------------------------------------------------------------ the mode
    def use_action(self, action: QAction) -> None:
        """View > Collapse panels to a side bar (a row of gui.actions): checked while the
        panels are collapsed, whether the person chose it or the window's size did."""
        self.active_changed.connect(action.setChecked)
        action.setChecked(self.active)

    def choice(self) -> str:
        """ "on", "off", or "auto" (follow the window's size)."""
        value = str(self.settings.value(SETTING, "auto") or "auto")
        return value if value in ("on", "off") else "auto"

    def set_collapsed(self, on: bool) -> None:
        """The person's choice (View > Collapse panels to a side bar), kept in the settings."""
        self.settings.setValue(SETTING, "on" if on else "off")
        self.apply()

    def wanted(self, size: QSize | None = None) -> bool:
        choice = self.choice()
        if choice != "auto":
            return choice == "on"
        return is_compact(size or self.window.size())

    def apply(self, size: QSize | None = None) -> None:
        """Collapse the panels or dock them again, as the mode says; ``size``: the window's
        size when shown, if not its size now."""
        on = self.wanted(size)
        if on == self.active:
            if on:
                self.refresh()
            return
        self.active = on
        if on:
            self.refresh()
        else:
            self.hide_panel()
            self.bar.hide()
            self.window.workspaces.arrange(size=size)
        self.active_changed.emit(on)

    def refresh(self) -> None:
        """The current workspace's docks in the bar; those not pinned closed (called when the
        mode starts and whenever the workspace changes or is reset)."""
        if not self.active:
            return
        self.hide_panel()
        pinned = self.pinned_docks()
        for name, dock in self.window.docks.items():
            if name not in pinned and not dock.isFloating():
                dock.hide()
        self._rebuild()
        QTimer.singleShot(0, self, self._hide_stale_tabs)

    def _hide_stale_tabs(self) -> None:
        """Hide the tab bars Qt leaves on screen for tabbed docks that are all closed: one
        on the right edge showed through beside the bar under a window manager."""
        hidden = {d.windowTitle() for d in self.window.docks.values() if d.isHidden()}
        for tabs in self.window.findChildren(
            QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly
        ):
            if all(tabs.tabText(k) in hidden for k in range(tabs.count())):
                tabs.hide()

    def pinned_docks(self) -> set[str]:
        return {n for n in str(self.settings.value(PINNED, "") or "").split(",") if n}

    def _set_pinned(self, names: set[str]) -> None:
        self.settings.setValue(PINNED, ",".join(sorted(names)))

    def names(self) -> list[str]:
        """The docks in the bar: the workspace's, then any other open beside the canvas."""
        shown = members(self.window.workspaces.current, self.table)
        return shown + [
            n for n, d in self.window.docks.items() if n not in shown and not d.isHidden()
        ]

    def _rebuild(self) -> None:
        self.bar.clear()
        for button in self.buttons.values():
            button.deleteLater()
        self.buttons = {}
        for k, name in enumerate(self.names()):
            button = SideButton()
            button.setText(name)
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            button.setAccessibleName(f"{name} panel")
            keys = QKeySequence(f"Alt+{k + 1}") if k < 9 else QKeySequence()
            if not keys.isEmpty():
                button.setShortcut(keys)
            shortcut = (
                f" ({keys.toString(QKeySequence.SequenceFormat.NativeText)})" if k < 9 else ""
            )
            button.setToolTip(
                f"Show the {name} panel over the tree{shortcut}; click again, Esc or a click "
                "on the tree hides it; its Pin button docks it beside the tree"
            )
            button.clicked.connect(lambda *_, n=name: self.toggle(n))
            self.bar.addWidget(button)
            self.buttons[name] = button
            self._update_button(name)
        self.bar.setVisible(bool(self.buttons))

    def _update_button(self, name: str) -> None:
        button = self.buttons.get(name)
        if button is not None:
            dock = self.window.docks[name]
            button.setChecked(self.shown == name or not dock.isHidden())

    # ------------------------------------------------------------------ showing a panel
    def toggle(self, name: str) -> None:
        """A button's click: show the panel over the canvas, or hide it when it is shown; a
        pinned dock is raised instead."""
        dock = self.window.docks[name]
        if self.shown == name:
            self.hide_panel()
        elif not dock.isHidden():
            dock.raise_()
            dock.widget().setFocus()
            self._update_button(name)
        else:
            self.show_panel(name)

    def bring(self, name: str) -> None:
        """``name``'s panel to the front for a command that works in it: over the canvas
        when the panels are collapsed and it is closed, else its dock shown and raised."""
        dock = self.window.docks[name]
        if self.active and dock.isHidden():
            if self.shown != name:
                self.show_panel(name)
            return
        dock.show()
        dock.raise_()

    def show_panel(self, name: str) -> None:
        """``name``'s panel in the frame over the canvas's right side."""
        if self.shown is not None:
            self.hide_panel()
        dock = self.window.docks[name]
        panel = dock.widget()
        self._holder = QWidget()
        dock.setWidget(self._holder)  # the panel leaves the dock for the frame
        self.frame.body.addWidget(panel)
        panel.show()
        self.shown = name
        self.frame.title.setText(name)
        self.frame.place()
        self.frame.show()
        self.frame.raise_()
        self._cover()
        panel.setFocus()
        if not panel.hasFocus():
            panel.focusNextChild()
        dock.visibilityChanged.emit(True)  # what shows a panel's plots, as a dock's showing does
        self._update_button(name)

    def hide_panel(self) -> None:
        """The panel in the frame back into its (closed) dock."""
        name = self.shown
        if name is None:
            return
        had_focus = self.frame.isAncestorOf(QApplication.focusWidget())
        dock = self.window.docks[name]
        panel = self.frame.body.itemAt(0).widget()
        self.frame.body.removeWidget(panel)
        self.frame.hide()
        self._cover()
        dock.setWidget(panel)
        if self._holder is not None:
            self._holder.deleteLater()
            self._holder = None
        self.shown = None
        dock.visibilityChanged.emit(False)
        button = self.buttons.get(name)
        self._update_button(name)
        if had_focus and button is not None and button.isVisible():
            button.setFocus()  # the keyboard goes back to the panel's button

    def pin(self) -> None:
        """The panel in the frame docked beside the canvas, where it stays until closed."""
        name = self.shown
        if name is None:
            return
        self.hide_panel()
        w = self.window
        dock = w.docks[name]
        beside = next(
            (
                d
                for n, d in w.docks.items()
                if n != name and not d.isHidden() and not d.isFloating()
            ),
            None,
        )
        w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        if beside is not None:
            w.tabifyDockWidget(beside, dock)
        dock.show()
        dock.raise_()
        self._set_pinned(self.pinned_docks() | {name})
        QTimer.singleShot(0, w, w.workspaces.size_docks)

    def _cover(self) -> None:
        """Tell the canvas how much of its view the frame covers: a tree fitted or framed
        while a panel is shown keeps to the rest (it used to lie partly under the panel)."""
        cover = 0
        if self.frame.isVisible():
            left = self._viewport.mapFromGlobal(self.frame.mapToGlobal(QPoint(0, 0))).x()
            cover = max(0, self._viewport.width() - left)
        self._canvas.set_covered_right(cover)

    # ------------------------------------------------------------------ events
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if watched is self._centre and kind == QEvent.Type.Resize:
            if self.shown is not None:
                self.frame.place()
                self._cover()
        elif watched is self._viewport and kind == QEvent.Type.MouseButtonPress:
            self.hide_panel()  # a click on the tree puts the panel away (and still selects)
        elif (
            watched is self._canvas
            and kind == QEvent.Type.KeyPress
            and event.key() == Qt.Key.Key_Escape
        ):
            self.hide_panel()
        elif kind == QEvent.Type.Close and self.active:  # a pinned dock's close button
            name = next((n for n, d in self.window.docks.items() if d is watched), None)
            if name is not None:
                self._set_pinned(self.pinned_docks() - {name})
        elif (
            watched is self.window
            and kind in (QEvent.Type.Resize, QEvent.Type.Show)
            and self.choice() == "auto"
            and self.window.isVisible()
            and self.wanted() != self.active
        ):  # the window crossed the compact size: collapse or dock once it is laid out
            QTimer.singleShot(0, self, self.apply)
        return False
