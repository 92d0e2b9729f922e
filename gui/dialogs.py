"""Every question and message the window shows, in one replaceable object (tests swap it)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

DATA_FILTER = ("Data files (*.csv *.tsv *.tab *.txt *.arff *.xlsx *.parquet);;CSV (*.csv);;TSV (*.tsv);;"
               "ARFF (*.arff);;Excel (*.xlsx);;Parquet (*.parquet);;Arbor model (*.json);;"
               "Arbor project (*.arbor);;All files (*)")
SAVE_FILTER = "CSV (*.csv);;TSV (*.tsv);;ARFF (*.arff);;Excel (*.xlsx);;Parquet (*.parquet)"


class Dialogs:
    """Modal dialogs; each method returns the user's answer."""

    def __init__(self, parent: QWidget):
        self.parent = parent

    def _box(self, icon, text: str, buttons=QMessageBox.StandardButton.Ok) -> QMessageBox:
        box = QMessageBox(icon, "Arbor", text, buttons, self.parent)
        box.setTextFormat(Qt.TextFormat.PlainText)  # messages name files, columns, values: never markup
        return box

    def error(self, message: str, details: str = "") -> None:
        box = self._box(QMessageBox.Icon.Warning, message)
        if details:
            box.setDetailedText(details)
        box.exec()

    def info(self, message: str) -> None:
        self._box(QMessageBox.Icon.Information, message).exec()

    def ask_unsaved(self, what: str) -> str:
        """'save', 'discard' or 'cancel'."""
        answer = QMessageBox.question(
            self.parent, "Unsaved changes", f"The table has unsaved changes. Save them before {what}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel)
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

    def ask_replace_or_queue(self, running: str, asked: str) -> str | None:
        """'replace', 'queue', or None (leave the running training alone, train nothing)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Arbor",
                          "A training is running. Replace it with this one, or queue this one to start "
                          "when it ends?", parent=self.parent)
        box.setInformativeText(f"Running: {running}\nAsked for: {asked}")
        replace = box.addButton("&Replace", QMessageBox.ButtonRole.DestructiveRole)
        replace.setToolTip("Cancel the running training and start this one")
        queue = box.addButton("&Queue", QMessageBox.ButtonRole.AcceptRole)
        queue.setToolTip("Start this one when the running training ends (the status bar shows the queue)")
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(queue)
        box.exec()
        return {replace: "replace", queue: "queue"}.get(box.clickedButton())

    def ask_yes_no(self, question: str) -> bool:
        box = self._box(QMessageBox.Icon.Question, question,
                        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.exec()
        return box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Yes

    def open_path(self, title: str = "Open data", filters: str = DATA_FILTER) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, title, "", filters)
        return path or None

    def save_path(self, title: str, filters: str = SAVE_FILTER, suggested: str = "") -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, title, suggested, filters)
        return path or None

    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        value, ok = QInputDialog.getText(self.parent, title, label, text=text)
        return value if ok else None
