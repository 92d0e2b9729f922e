"""Presentation mode (F11, View > Present): the tree full screen for a class (issue 38).

The window goes full screen on the Present workspace (the canvas alone), the tree is drawn
in :data:`gui.drawing.palette.PROJECTOR` colours with type sized for a projector and never
fitted smaller than :data:`MIN_LABEL_PX` on screen, and a small overlay on the canvas holds
the stepping controls. The keys follow a remote clicker: Page Down (or Right) steps forward,
Page Up (or Left) back, Space plays or pauses growth. Forward grows the tree split by split
(the Growth panel's Step); once it is fully grown, and when the trained tree kept a pruning
record, it walks through pruning decision by decision (the Pruning panel's Next). Leaving
(F11 again, or the overlay's Exit) puts the window, its workspace and its drawing back.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from gui.drawing import palette
from gui.drawing.figure_style import FigureStyle
from gui.workspaces import PRESENT

#: Type for a projector: read from the back of a room at the usual 1024-1920 px wide.
PROJECTOR_STYLE = FigureStyle(title_px=24, body_px=21, edge_px=20, legend_px=20)
#: A node's headline is never fitted smaller than this on screen while presenting.
MIN_LABEL_PX = 20.0
#: ...and outside it, where a fitted tree still shows its headlines (see TreeCanvas.fit_to_window).
MIN_LABEL_PX_WINDOW = 9.0
GROW, PRUNE = "grow", "prune"
#: Room above and below the stepping controls, in their strip under the canvas's view.
STRIP_GAP = 6


class Overlay(QFrame):
    """The stepping controls over the canvas's bottom left corner."""

    def __init__(self, presenter: Presenter, canvas):
        super().__init__(canvas)
        self.setObjectName("present-overlay")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#present-overlay { background: rgba(255,255,255,235); border: 2px solid #000;"
            " border-radius: 6px; } QLabel, QPushButton { color: #000; font-size: 15px; }"
        )
        self.back = QPushButton("◀ Back")
        self.back.setToolTip("One step back (Page Up or Left)")
        self.next = QPushButton("Next ▶")
        self.next.setToolTip(
            "Grow one split; once grown, the next pruning decision (Page Down, Right)"
        )
        self.play = QPushButton("Play")
        self.play.setToolTip("Keep growing at the Growth panel's speed; again to pause (Space)")
        self.mode = QPushButton("Prune")
        self.mode.setToolTip(
            "Switch between growing the tree and walking through its pruning (Page Down "
            "switches by itself once the tree is fully grown)"
        )
        self.exit = QPushButton("Exit")
        self.exit.setToolTip("Leave the presentation (F11)")
        self.said = QLabel()
        self.said.setToolTip("Where the presentation is: the growth step or pruning decision")
        for button in (self.back, self.next, self.play, self.mode, self.exit):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay the presenter's
        self.back.clicked.connect(presenter.back)
        self.next.clicked.connect(presenter.next)
        self.play.clicked.connect(presenter.play)
        self.mode.clicked.connect(presenter.switch_mode)
        self.exit.clicked.connect(presenter.leave)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 6, 8, 6)
        for widget in (self.back, self.next, self.play, self.mode, self.said, self.exit):
            row.addWidget(widget)
        self.said.setMaximumWidth(460)
        canvas.installEventFilter(self)  # a canvas resized (full screen coming) moves it along

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Resize and self.isVisible():
            # The filter sees the resize before the canvas lays its viewport out: place after.
            QTimer.singleShot(0, self, self.place)
        return False

    def place(self) -> None:
        """In a strip the canvas keeps free below its view, centred: it never covers a node,
        the legend or the overview, which place themselves inside the view."""
        self.adjustSize()
        canvas = self.parentWidget()
        canvas.setViewportMargins(0, 0, 0, self.height() + 2 * STRIP_GAP)
        port = canvas.viewport().geometry()
        self.move(port.left() + (port.width() - self.width()) // 2, port.bottom() + 1 + STRIP_GAP)
        self.raise_()

    def remove(self) -> None:
        self.hide()
        self.parentWidget().setViewportMargins(0, 0, 0, 0)


class Presenter(QObject):
    """Enters and leaves presentation mode and steps through growth and pruning.

    Signals
    -------
    toggled(bool) : presenting now (True) or not.
    """

    toggled = Signal(bool)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.active = False
        self.mode = GROW
        self._before = None
        self._overlay = None  # made the first time a presentation starts
        window.growth.step_taken.connect(lambda *_: self._say())
        window.growth.started_over.connect(lambda *_: self._say())
        window.pruning.walk_shown.connect(lambda *_: self._say())

    @property
    def overlay(self) -> Overlay:
        if self._overlay is None:
            self._overlay = Overlay(self, self.window.canvas)
            self._overlay.hide()
        return self._overlay

    # ------------------------------------------------------------------ entering and leaving
    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def enter(self) -> None:
        if self.active:
            return
        w = self.window
        self._before = {
            "workspace": w.workspaces.current,
            "state": w.windowState(),
            "style": w.canvas.style(),
            "colours": palette.current(),
            "bars": [bar for bar in w.bars() if bar.isVisible()],
        }
        self.active = True
        w.workspaces.switch(PRESENT)
        for bar in self._before["bars"]:
            bar.hide()
        palette.use(palette.PROJECTOR)
        w.canvas.min_label_px = MIN_LABEL_PX
        w.canvas.repaint_colours()
        w.canvas.set_style(
            FigureStyle(
                PROJECTOR_STYLE.title_px,
                PROJECTOR_STYLE.body_px,
                PROJECTOR_STYLE.edge_px,
                PROJECTOR_STYLE.legend_px,
                w.canvas.style().labels,
            )
        )
        w.showFullScreen()
        self.mode = PRUNE if self._walking() else GROW
        self.overlay.show()
        self._say()
        w.canvas.fit_to_window(readable=True)
        w.canvas.setFocus()
        self.toggled.emit(True)

    def leave(self) -> None:
        if not self.active:
            return
        w, before = self.window, self._before
        self.active = False
        self.overlay.remove()
        w.growth.play_button.setChecked(False)
        palette.use(before["colours"])
        w.canvas.min_label_px = MIN_LABEL_PX_WINDOW
        w.canvas.repaint_colours()
        w.canvas.set_style(before["style"].with_labels(w.canvas.style().labels))
        w.setWindowState(before["state"])
        for bar in before["bars"]:
            bar.show()
        w.workspaces.switch(before["workspace"])
        w.canvas.fit_to_window(readable=True)
        self.toggled.emit(False)

    # ------------------------------------------------------------------ stepping
    def _walking(self) -> bool:
        """Whether the pruning walk-through is under way (a decision on the canvas)."""
        pruning = self.window.pruning
        return pruning.record is not None and pruning.position >= 0

    def next(self) -> None:
        """Page Down: the next split; once grown, the next pruning decision."""
        w = self.window
        if self.mode == PRUNE:
            if w.pruning.record is None:
                self._say("No pruning to walk through: train with C4.5's or reduced-error pruning")
                return
            w.pruning.walk_to(w.pruning.position + 1)
        elif not w.growth.step() and w.pruning.record is not None:
            self.mode = PRUNE
            w.pruning.walk_to(0)
        self._say()

    def back(self) -> None:
        """Page Up: a step back, through pruning's decisions, then growth's splits."""
        w = self.window
        if self.mode == PRUNE and w.pruning.record is not None and w.pruning.position > 0:
            w.pruning.walk_to(w.pruning.position - 1)
        elif self.mode == PRUNE:
            self.mode = GROW
            if not w.growth.back():
                w.growth.start_over()
        else:
            w.growth.back()
        self._say()

    def play(self) -> None:
        """Space: growth plays on at the Growth panel's speed, or pauses."""
        self.mode = GROW
        self.window.growth.play_button.toggle()
        self._say()

    def switch_mode(self) -> None:
        if self.mode == GROW and self.window.pruning.record is not None:
            self.mode = PRUNE
            self.window.growth.play_button.setChecked(False)
            self.window.pruning.walk_to(max(self.window.pruning.position, 0))
        else:
            self.mode = GROW
        self._say()

    def _say(self, text: str | None = None) -> None:
        if not self.active:
            return
        w = self.window
        tip = text
        if text is None:
            if self.mode == PRUNE and w.pruning.record is not None:
                n, k = len(w.pruning.walk), w.pruning.position
                text = f"Pruning: decision {k + 1} of {n}" if k < n else f"Pruned: all {n} made"
                tip = w.pruning.walk_label.text()
            else:
                text = (
                    f"Growing: step {w.growth.count}" if w.growth.count else "Growing: press Next"
                )
        self.overlay.said.setText(text)
        self.overlay.said.setToolTip(tip or text)
        self.overlay.mode.setText("Grow" if self.mode == PRUNE else "Prune")
        self.overlay.mode.setEnabled(self.mode == PRUNE or w.pruning.record is not None)
        self.overlay.play.setText("Pause" if w.growth.play_button.isChecked() else "Play")
        self.overlay.place()
