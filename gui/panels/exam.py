"""Exam mode's box in the Growth panel: the student names the split before Arbor shows its
own, asks for hints, and keeps a running score. The marking is the engine's
(:mod:`engine.learn.exam`); this widget only asks and shows."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
)

from engine.learn.exam import Question, Verdict, hints, judge
from engine.learn.explain import REASONS
from gui.plain_text import plain_label

NO_CUT = "the attribute is nominal: no cut to give"


class ExamBox(QGroupBox):
    """Asks one :class:`engine.learn.exam.Question` at a time; Check marks the pick.

    Signals
    -------
    answered(object) : the :class:`engine.learn.exam.Verdict` of the pick just checked.
    """

    answered = Signal(object)

    def __init__(self, parent=None):
        super().__init__("Exam", parent)
        self.question: Question | None = None
        self.right = self.asked = self.hints_taken = 0
        self._hints: tuple[str, ...] = ()
        self._hint_given = 0
        self.prompt = plain_label()
        self.prompt.setWordWrap(True)
        self.attribute = QComboBox()
        self.attribute.setToolTip("The attribute you think the algorithm splits this node on")
        self.cut = QComboBox()
        self.cut.setEditable(True)
        self.cut.setToolTip(
            "For a numeric attribute, the cut: rows at most this value go left. Pick one of the "
            "candidate cuts or type a number; any cut that sends the rows the same way as "
            "Arbor's is right"
        )
        self.cut.lineEdit().setPlaceholderText("cut: rows <= it go left")
        self.check_button = QPushButton("Check")
        self.check_button.setShortcut(QKeySequence("Ctrl+Return"))
        self.check_button.setToolTip(
            "Mark your pick, then show Arbor's split and its numbers (Ctrl+Return)"
        )
        self.hint_button = QPushButton("Hint")
        self.hint_button.setShortcut(QKeySequence("Ctrl+H"))
        self.hint_button.setToolTip(
            "A hint: first what to compare, then two attributes ranked (Ctrl+H); the score "
            "counts the hints taken"
        )
        self.score = QLabel()
        self.score.setToolTip("Right picks out of the questions answered, and hints taken")
        self.feedback = plain_label()
        self.feedback.setWordWrap(True)
        grid = QGridLayout()
        grid.addWidget(QLabel("Attribute"), 0, 0)
        grid.addWidget(self.attribute, 0, 1)
        grid.addWidget(QLabel("Cut"), 1, 0)
        grid.addWidget(self.cut, 1, 1)
        grid.setColumnStretch(1, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.check_button)
        buttons.addWidget(self.hint_button)
        buttons.addStretch(1)
        buttons.addWidget(self.score)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        layout.addWidget(self.feedback)
        self.attribute.currentIndexChanged.connect(self._on_attribute_current_index_changed)
        self.check_button.clicked.connect(self.check)
        self.hint_button.clicked.connect(self.hint)
        self.clear()
        self._show_score()

    # ------------------------------------------------------------------ asking
    def ask(self, question: Question, words: str) -> None:
        """Put ``question`` (the node to split, said in ``words``) to the student."""
        self.question = question
        self._hints, self._hint_given = hints(question), 0
        self.prompt.setText(words)
        self.attribute.blockSignals(True)
        self.attribute.clear()
        for row in question.table:
            self.attribute.addItem(row.name)
        self.attribute.setCurrentIndex(-1)
        self.attribute.blockSignals(False)
        self._on_attribute_current_index_changed(-1)
        self.feedback.setText("Pick the attribute (and, if numeric, the cut), then Check.")
        for w in (self.attribute, self.check_button, self.hint_button):
            w.setEnabled(True)

    def clear(self) -> None:
        """No question open."""
        self.question = None
        self.prompt.setText("Press Step: you pick each split before Arbor shows its own.")
        self.attribute.clear()
        self.cut.clear()
        for w in (self.attribute, self.cut, self.check_button, self.hint_button):
            w.setEnabled(False)

    def reset_score(self) -> None:
        self.right = self.asked = self.hints_taken = 0
        self._show_score()

    def pick(self, name: str, cut: str = "") -> None:
        """Choose an attribute by name (and type a cut), as the student would."""
        self.attribute.setCurrentIndex(self.attribute.findText(name))
        self.cut.setEditText(cut)

    # ------------------------------------------------------------------ marking
    def check(self) -> Verdict | None:
        q = self.question
        if q is None:
            return None
        j = self.attribute.currentIndex()
        if j < 0:
            self.feedback.setText("Pick an attribute first.")
            return None
        threshold = None
        if j in q.values:
            text = self.cut.currentText().strip()
            try:
                threshold = float(text)
            except ValueError:
                self.feedback.setText(
                    f"{q.table[j].name} is numeric: give a cut, a number such as "
                    f"{q.values[j][len(q.values[j]) // 2]:g} (not {text!r})."
                    if text
                    else f"{q.table[j].name} is numeric: give a cut too."
                )
                return None
        verdict = judge(q, j, threshold)
        self.asked += 1
        self.right += verdict.right
        self._show_score()
        self.feedback.setText(verdict.words + "\n" + self._numbers())
        self.clear_question_only()
        self.answered.emit(verdict)
        return verdict

    def clear_question_only(self) -> None:
        """The question answered: its controls off, its feedback left in view."""
        self.question = None
        for w in (self.attribute, self.cut, self.check_button, self.hint_button):
            w.setEnabled(False)

    def hint(self) -> str | None:
        if self.question is None or self._hint_given >= len(self._hints):
            return None
        text = self._hints[self._hint_given]
        self._hint_given += 1
        self.hints_taken += 1
        self._show_score()
        self.feedback.setText(
            "\n".join(f"Hint {k + 1}: {h}" for k, h in enumerate(self._hints[: self._hint_given]))
        )
        self.hint_button.setEnabled(self._hint_given < len(self._hints))
        return text

    def _numbers(self) -> str:
        """Every attribute's figures at the node, as the inspector shows them."""
        q = self.question
        lines = []
        for j, row in enumerate(q.table):
            if row.reason is not None:  # explain's zeros would read as a score
                lines.append(f"{row.name}: cannot split here ({REASONS[row.reason]})")
                continue
            mark = " ◀ Arbor" if row.chosen else ""
            charged = (
                f" (after the MDL charge: gain {q.penalised[j][0]:.3f}, "
                f"ratio {q.penalised[j][1]:.3f})"
                if j in q.penalised
                else ""
            )
            lines.append(
                f"{row.name}: gain {row.info_gain:.3f}, gain ratio {row.gain_ratio:.3f}, "
                f"Gini gain {row.gini_gain:.3f}{charged}{mark}"
            )
        return "\n".join(lines)

    def _show_score(self) -> None:
        hints_words = f" · {self.hints_taken} hint{'s' if self.hints_taken != 1 else ''}"
        self.score.setText(
            f"Score {self.right} / {self.asked}{hints_words if self.hints_taken else ''}"
        )

    def _on_attribute_current_index_changed(self, j: int) -> None:
        q = self.question
        self.cut.clear()
        numeric = q is not None and j in q.values
        self.cut.setEnabled(numeric)
        self.cut.lineEdit().setPlaceholderText(
            NO_CUT if q is not None and j >= 0 and not numeric else "cut: rows <= it go left"
        )
        if numeric:
            for t in q.cuts.get(j, ()):
                self.cut.addItem(f"{t:g}")
            self.cut.setCurrentIndex(-1)
            self.cut.setEditText("")
