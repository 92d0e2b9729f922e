"""Model > Regrow on edit: with a trained tree on screen, editing a cell trains again (after a
pause in the typing, on the training worker) and says what changed in the tree's structure:
splits added, removed or changed, where. Undo is an edit like any other, so undoing regrows
the tree back."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

#: Milliseconds of quiet after the last edit before the tree regrows.
DEBOUNCE_MS = 600


class RegrowOnEdit(QObject):
    """Regrows on cell edits while on; ``changed(text)`` says what the regrowth changed.

    ``train`` is the window's Train (it checks the options and asks about a running job).
    """

    changed = Signal(str)

    def __init__(self, controller, train, parent=None):
        super().__init__(parent)
        self.controller, self.train = controller, train
        self.on = False
        self.last = ""  # what the last regrowth changed, in words
        self._before = None  # the tree before the regrowth under way
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self._regrow)
        controller.doc.cells_changed.connect(lambda *_: self._edited())
        controller.tree_changed.connect(lambda tree, _select: self._arrived(tree))

    def set_on(self, on: bool) -> None:
        self.on = on
        if not on:
            self._timer.stop()
            self._before = None

    def _edited(self) -> None:
        if self.on and self.controller.tree is not None:
            self._timer.start()  # again: the regrowth waits for a pause in the edits

    def _regrow(self) -> None:
        c = self.controller
        if not self.on or c.tree is None:
            return
        if c.busy:  # a training (or its cross-validation) still running: regrow after it
            self._timer.start()
            return
        self._before = (c.tree, c.data)
        if self.train() is None:
            self._before = None  # refused (the options have a problem, said already)

    def _arrived(self, tree) -> None:
        if self._before is None or tree is None or tree is self._before[0]:
            return
        from engine.evaluate.tree_match import (
            THRESHOLD_TOLERANCE,
            attribute_ranges,
            change_words,
            structural_changes,
        )

        before, data = self._before
        self._before = None
        slack = attribute_ranges(data) * THRESHOLD_TOLERANCE if data is not None else ()
        changes = structural_changes(before, tree, slack)
        if not changes:
            text = "Regrown after the edit: the same splits"
        else:
            words = change_words(before, tree, changes)
            text = f"Regrown after the edit: {len(changes)} change(s); " + "; ".join(words)
        self.last = text
        self.changed.emit(text)
        self.controller.say(text)
