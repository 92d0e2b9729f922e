"""A pyqtgraph plot made the first time it is needed (issue 29).

A pyqtgraph plot costs a few hundredths of a second to make (its view box's menu, its axes),
and the window has several a person may never look at; every start of the app and every
test that builds a window paid for them all. A :class:`LazyPlot` stands where the plot goes
and makes it the first time the plot is asked for (``.plot``) or the holder is first shown,
so the window looks the same and opens faster.

What a plot shows can wait too (:meth:`LazyPlot.paint`): a training redraws the Evaluation
curves and the pruning walk's errors, most often in tabs behind others; drawn into a hidden
pyqtgraph plot, they cost a training more than its tree did on small tables. Such a drawing
runs when the plot is shown, or when anything asks for the plot (``.plot``), so whoever
reads it finds it drawn.
"""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsScene,
    QGraphicsView,
    QGraphicsWidget,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gui.drawing import palette
from gui.theme import theme_plots

_unmade_hints: tuple[QSize, QSize] | None = None


def _view_hints() -> tuple[QSize, QSize]:
    """The size hint and minimum size hint of a pyqtgraph view not shown yet: Qt works them
    out from the view's frame, scroll bars, scene rectangle (640 × 480: a new widget's size)
    and screen, so a plain view set up the same way gives them without pyqtgraph's cost."""
    global _unmade_hints
    if _unmade_hints is None:
        scene = QGraphicsScene()
        view = QGraphicsView(scene)
        view.setFrameShape(QFrame.Shape.NoFrame)
        view.setSceneRect(QRectF(0, 0, 640, 480))
        _unmade_hints = (view.sizeHint(), view.minimumSizeHint())
    return _unmade_hints


def _lay_out(view: pg.GraphicsView) -> None:
    """Lay out the view's items now, as a turn of the event loop did for a plot made with the
    window before it drew: a range set with pyqtgraph's own padding depends on the size of the
    view box then (the pruning plot's leaves axis). Only this view's layouts: the window's own
    are left to the event loop, as before."""
    widgets = [item for item in view.scene().items() if isinstance(item, QGraphicsWidget)]
    for _ in range(4):  # laying out one level can change the room of the one above
        # QGraphicsWidget.layout: pyqtgraph's items have an attribute of that name.
        pending = [
            layout
            for w in widgets
            if (layout := QGraphicsWidget.layout(w)) is not None and not layout.isActivated()
        ]
        if not pending:
            return
        for layout in pending:
            layout.activate()


class LazyPlot(QWidget):
    """Holds a pyqtgraph widget made by ``make()`` on first use, then passed to ``setup`` (once)
    for what hangs off it: legends, lines, axis labels, signals.

    Until then it asks the layout for the room the plot would (``hint``: the size hint of a
    ``make`` that overrides it), so docks and scroll areas are laid out as with the plot.
    """

    def __init__(
        self,
        setup: Callable[[pg.GraphicsView], None],
        make: Callable[[], pg.GraphicsView] = pg.PlotWidget,
        hint: QSize | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self._setup, self._make, self._hint = setup, make, hint
        self._plot: pg.GraphicsView | None = None
        self._pending: Callable[[], None] | None = None  # a drawing waiting for the plot
        self._making = False
        self.setSizePolicy(
            QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding
        )  # as pyqtgraph's
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        """Whether the plot has been made."""
        return self._plot is not None

    @property
    def plot(self) -> pg.GraphicsView:
        """The plot, made (and set up) now if it was not yet, with any drawing waiting for it
        drawn."""
        if self._plot is None:
            self._making = True  # set up and laid out before any drawing waiting is drawn
            try:
                self._plot = self._make()
                self._setup(self._plot)
                _lay_out(self._plot)
                self.layout().addWidget(self._plot)
                if palette.current() is palette.DARK:  # made after the theme was applied
                    theme_plots(self, palette.DARK)
                if self.isVisible():  # shown now, not on the next turn of the event loop
                    self._plot.show()
                self.updateGeometry()
            finally:
                self._making = False
        if self._pending is not None and not self._making:
            draw, self._pending = self._pending, None
            draw()  # it asks for .plot again: nothing is pending by then
        return self._plot

    @property
    def waiting(self) -> bool:
        """Whether a drawing waits for the plot to be shown or asked for."""
        return self._pending is not None

    def paint(self, draw: Callable[[], None] | None) -> None:
        """Run ``draw`` (which draws on ``.plot``) now if the plot is on screen, else when it
        is shown or asked for; a newer drawing replaces one still waiting (it would clear it).
        None: nothing to draw, a drawing waiting is dropped."""
        if draw is not None and self.isVisible():
            self._pending = None
            draw()
        else:
            self._pending = draw

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Shown: the plot (empty axes until there is something to draw) is needed now."""
        if self._plot is None or self._pending is not None:
            _ = self.plot
        super().showEvent(event)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        if self._plot is not None:
            return super().sizeHint()
        return self._hint if self._hint is not None else _view_hints()[0]

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        if self._plot is not None:
            return super().minimumSizeHint()
        return _view_hints()[1]
