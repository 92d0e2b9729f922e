"""Watching the algorithm work: grow the tree one split at a time (Step, or Play at a speed)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from engine.errors import ArborError
from engine.learn.growth import grow_steps
from engine.tree import Tree


class GrowthPanel(QWidget):
    """Step / Play / Reset over :func:`engine.learn.growth.grow_steps`.

    Signals
    -------
    step_taken(object, int) : the tree so far and the id of the node just split.
    finished() : the tree is fully grown.
    """

    step_taken = Signal(object, int)
    finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._steps = None
        self._schema = None
        self.count = 0
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip("Grow one split (depth-first as ID3's recursion, or best-first "
                                    "through the priority queue, as the Growth option says)")
        self.play_button = QPushButton("Play")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip("Keep stepping at the chosen speed")
        self.reset_button = QPushButton("Start over")
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(1, 20)
        self.speed.setValue(4)
        self.speed.setToolTip("Steps per second")
        self.status = QLabel("Press Step to grow the tree split by split.")
        self.status.setWordWrap(True)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.step)
        self.step_button.clicked.connect(self.step)
        self.play_button.toggled.connect(self._on_play_button_toggled)
        self.reset_button.clicked.connect(self.reset)
        self.speed.valueChanged.connect(lambda v: self._timer.setInterval(int(1000 / v)))
        row = QHBoxLayout()
        for w in (self.step_button, self.play_button, self.reset_button):
            row.addWidget(w)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(QLabel("Speed"))
        layout.addWidget(self.speed)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self._source = None

    def bind(self, controller) -> None:
        """Grow from the controller's table and options; each step goes on screen."""
        from gui.controller import STEPPED

        self.set_source(controller.growth_source)
        self.step_taken.connect(lambda tree, expanded: controller.show_tree(tree, expanded, STEPPED))
        controller.result_changed.connect(lambda *_: self.reset())

    def set_source(self, source) -> None:
        """``source()`` returns (encoded data, settings) to grow from, or raises ArborError."""
        self._source = source
        self.reset()

    def reset(self) -> None:
        self._timer.stop()
        self.play_button.setChecked(False)
        self._steps, self.count = None, 0
        self.status.setText("Press Step to grow the tree split by split.")

    def step(self) -> bool:
        if self._steps is None:
            if self._source is None:
                return False
            try:
                data, settings = self._source()
            except ArborError as err:
                self.status.setText(f"Cannot grow: {err}")
                return False
            self._schema = data.schema
            self._steps = grow_steps(data, settings)
        try:
            root, expanded = next(self._steps)
        except StopIteration:
            self._timer.stop()
            self.play_button.setChecked(False)
            self.status.setText(f"Done: the tree is fully grown after {self.count} splits.")
            self.finished.emit()
            return False
        self.count += 1
        tree = Tree(root, self._schema)
        node = tree.node(expanded)
        name = tree.schema.attributes[node.split.attribute].name
        self.status.setText(f"Step {self.count}: split node {expanded} on {name} "
                            f"(gain {node.stats.get('gain', 0):.3f}).")
        self.step_taken.emit(tree, expanded)
        return True

    def _on_play_button_toggled(self, on: bool) -> None:
        if on:
            self._timer.start(int(1000 / self.speed.value()))
        else:
            self._timer.stop()
