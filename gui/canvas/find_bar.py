"""The find bar above the canvas: search the whole tree as you type, step through the matches."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

#: Typing pauses this long (ms) before a big tree is searched.
TYPING_PAUSE = 250


class FindBar(QWidget):
    """A line to type in, the match count, previous / next, and close (Esc).

    The canvas does the finding (``find``, ``find_next``, ``find_previous``, ``hits``); the bar
    asks it and says what it found.

    Signals
    -------
    closed() : the bar was closed (focus goes back to the canvas).
    """

    closed = Signal()

    def __init__(self, canvas, parent=None):
        super().__init__(parent)
        self.canvas = canvas
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("Find in the whole tree: attribute, value or class")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip(
            'Matches split attributes, branch conditions ("= sunny", "outlook = sunny", '
            '"<= 0.6") and leaves\' classes, collapsed parts included; Enter: next, '
            "Shift+Enter: previous, Esc: close"
        )
        self.count = QLabel()
        self.count.setMinimumWidth(110)
        self.previous_button = QToolButton()
        self.previous_button.setText("▲")
        self.previous_button.setToolTip("Previous match (Shift+F3)")
        self.next_button = QToolButton()
        self.next_button.setText("▼")
        self.next_button.setToolTip("Next match (F3)")
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Close the find bar (Esc)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(QLabel("Find:"))
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(close)
        self._timer = QTimer(self, singleShot=True, interval=TYPING_PAUSE)
        self._timer.timeout.connect(self.search)
        self.edit.textChanged.connect(lambda *_: self._timer.start())
        self.edit.returnPressed.connect(self._on_edit_return_pressed)
        self.previous_button.clicked.connect(self.previous)
        self.next_button.clicked.connect(self.next)
        close.clicked.connect(self.close_bar)
        self._searched: str | None = None
        self.hide()

    def open(self) -> None:
        """Show the bar with its text selected, ready to type."""
        self.canvas.prepare_find()
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def close_bar(self) -> None:
        self._timer.stop()
        self.hide()
        self.closed.emit()

    def search(self) -> list[int]:
        """Find the text now (typing waits for a pause); the first match is shown."""
        self._timer.stop()
        text = self.edit.text()
        self._searched = text
        hits = self.canvas.find(text)
        self._say()
        return hits

    def next(self) -> int:
        return self._step(self.canvas.find_next)

    def previous(self) -> int:
        return self._step(self.canvas.find_previous)

    def _step(self, move) -> int:
        if self._searched != self.edit.text() or self._timer.isActive():
            hits = self.search()  # the text changed since: find it first
            return hits[0] if hits else -1
        node_id = move()
        self._say()
        return node_id

    def _say(self) -> None:
        hits, at = self.canvas.hits()
        text = self.edit.text().strip()
        if not text:
            self.count.setText("")
            self.edit.setStyleSheet("")
        elif not hits:
            self.count.setText("no match")
            self.edit.setStyleSheet("QLineEdit { background: #FEE2E2; }")
        else:
            self.count.setText(f"{at + 1:,} of {len(hits):,}")
            self.edit.setStyleSheet("")
        self.previous_button.setEnabled(len(hits) > 1)
        self.next_button.setEnabled(len(hits) > 1)

    def reset(self) -> None:
        """A new tree: the old matches mean nothing now."""
        self._searched = None
        self.count.setText("")
        self.edit.setStyleSheet("")

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
        elif event.matches(QKeySequence.StandardKey.FindNext):
            self.next()
        elif event.matches(QKeySequence.StandardKey.FindPrevious):
            self.previous()
        else:
            super().keyPressEvent(event)

    def _on_edit_return_pressed(self) -> None:
        from PySide6.QtWidgets import QApplication

        if QApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.previous()
        else:
            self.next()
