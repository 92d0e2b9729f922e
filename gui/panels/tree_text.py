"""The tree on screen as text to read and copy: J48's indented layout with n/errors at each
leaf, one IF-THEN rule per leaf, or the simplified (C4.5rules-style) rule set."""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.session.jobs import Job, run_aside

VIEWS = ("Tree (J48 layout)", "Rules", "Simplified rules")
TIPS = (
    "One line per branch as Weka's J48 prints it; a leaf shows (instances/errors) on the training rows",
    "One IF-THEN rule per leaf, with (correct/covered) training rows",
    "C4.5rules: each rule generalised by the pessimistic error, grouped by class (fewest false "
    "positives first), a default rule; the first rule that fires decides",
)


def tree_text(view: str, tree, data, settings) -> str:
    """The text of one of ``VIEWS`` (rules need the training rows: ``data``)."""
    from engine.export.text import summary, to_text

    if view == VIEWS[0] or data is None:
        note = (
            ""
            if view == VIEWS[0]
            else "(Rules need the rows the tree was trained on; showing the tree.)\n\n"
        )
        return f"{note}{to_text(tree)}\n{summary(tree)}"
    from engine.export.rule_set import accuracy_note, rules_text, simplify_rules, to_rules

    rules = to_rules(tree, data)
    if view == VIEWS[2]:
        confidence = settings.confidence if settings is not None else 0.25
        rules = simplify_rules(tree, rules, data, confidence)
        return f"{rules_text(tree, rules)}\n{accuracy_note(tree, rules, data)}\n"
    return rules_text(tree, rules)


class TreeTextPanel(QWidget):
    """Text of the controller's tree on screen, worked out off the GUI thread when the panel shows."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.controller = None
        self.view = QComboBox()
        self.view.addItems(list(VIEWS))
        for k, tip in enumerate(TIPS):
            self.view.setItemData(k, tip, 3)  # Qt.ToolTipRole
        self.view.setToolTip("What to show: the tree as indented text, or as rules")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFont("DejaVu Sans Mono", 9))
        self.text.setPlaceholderText("Train a tree (F5) to see it as text.")
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the whole text to the clipboard")
        self.copy_button.clicked.connect(self.copy)
        self.status = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.view, 1)
        top.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.status)
        self._dirty = True
        self._job: Job | None = None
        self.view.currentIndexChanged.connect(lambda *_: self._invalidate())

    def bind(self, controller) -> None:
        self.controller = controller
        controller.tree_changed.connect(lambda *_: self._invalidate())

    def _invalidate(self) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Work the text out again for the tree on screen (a big tree's in the background)."""
        self._dirty = False
        if self._job is not None:
            self._job.cancel()  # the text of a tree or view no longer wanted: stop working it out
            self._job = None
        c = self.controller
        tree = c.tree if c is not None else None
        if tree is None:
            self.text.setPlainText("")
            self.status.setText("")
            return
        view, data, settings = self.view.currentText(), c.data, c.settings
        if tree.n_nodes <= 2000 and view != VIEWS[2]:
            self._show(tree_text(view, tree, data, settings), tree)
            return
        self.status.setText(f"Working out the text of {tree.n_nodes:,} nodes…")
        job = Job("Tree as text", lambda monitor: tree_text(view, tree, data, settings))
        self._job = job
        job.finished.connect(lambda text, j=job: self._job is j and self._show(text, tree))
        job.failed.connect(
            lambda message, _details, j=job: self._job is j and self.status.setText(message)
        )
        run_aside(job)

    def _show(self, text: str, tree) -> None:
        self._job = None
        self.text.setPlainText(text)
        self.status.setText(f"{text.count(chr(10)):,} lines · {tree.n_leaves:,} leaves")

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())
        if self.controller is not None:
            self.controller.say(
                f"Copied the {self.view.currentText().split(' (')[0].lower()} as text"
            )

    def plain_text(self) -> str:
        return self.text.toPlainText()
