"""Model > Regrow on edit: with a trained tree on screen, editing a cell trains again (after a
pause in the typing, on the training worker) and says what changed in the tree's structure:
splits added, removed or changed, where. Undo is an edit like any other, so undoing regrows
the tree back.

When the options have a problem (or the training fails), it says so once in the status bar,
never in a dialog per edit, and stops regrowing until the options change or a training of
the user's own finishes."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

#: Milliseconds of quiet after the last edit before the tree regrows.
DEBOUNCE_MS = 600


class RegrowOnEdit(QObject):
    """Regrows on cell edits while on; ``changed(text)`` says what the regrowth changed.

    ``problem()`` says why the options cannot train (the Algorithm panel's check), or None.
    """

    changed = Signal(str)

    def __init__(self, controller, problem, parent=None):
        super().__init__(parent)
        self.controller, self.problem = controller, problem
        self.on = False
        self.last = ""  # what the last regrowth changed (or why it stopped), in words
        # The options regrowing stopped at, after a problem (None: it goes on).
        self.halted = None
        self._before = None  # the tree before the regrowth under way
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self._regrow)
        controller.doc.cells_changed.connect(lambda *_: self._edited())
        controller.tree_changed.connect(lambda tree, _select: self._arrived(tree))
        # A training finishing while stopped is the user's own: its options train.
        controller.result_changed.connect(lambda result: result is not None and self._resume())

    def set_on(self, on: bool) -> None:
        self.on = on
        self._resume()
        if not on:
            self._timer.stop()
            self._before = None

    def _resume(self) -> None:
        self.halted = None

    def _halt(self, reason: str) -> None:
        """Stop regrowing, said once: each edit after it stays quiet until things change."""
        self.halted = self.controller.options
        self._before = None
        self.last = (
            f"Regrow on edit stopped: {reason.rstrip('.')}. It regrows again once the options "
            "change or you train (F5)."
        )
        self.controller.say(self.last)

    def _edited(self) -> None:
        if self.on and self.controller.tree is not None:
            self._timer.start()  # again: the regrowth waits for a pause in the edits

    def _regrow(self) -> None:
        c = self.controller
        if not self.on or c.tree is None:
            return
        if self.halted is not None:
            if self.halted == c.options:
                return  # stopped, and said so once already
            self._resume()
        if c.busy:  # a training (or its cross-validation) still running: regrow after it
            self._timer.start()
            return
        problem = self.problem()
        if problem:
            self._halt(problem)
            return
        self._before = (c.tree, c.data)
        if c.train(on_failure=self._halt) is None and self.halted is None:
            self._before = None  # not started (the same training runs already, said so)

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
