"""Every question and message the window shows, in one replaceable object (tests swap it)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

DATA_FILTER = (
    "Data files (*.csv *.tsv *.tab *.txt *.arff *.xlsx *.parquet);;CSV (*.csv);;TSV (*.tsv);;"
    "ARFF (*.arff);;Excel (*.xlsx);;Parquet (*.parquet);;Arbor model (*.json);;"
    "Arbor project (*.arbor);;All files (*)"
)
SAVE_FILTER = "CSV (*.csv);;TSV (*.tsv);;ARFF (*.arff);;Excel (*.xlsx);;Parquet (*.parquet)"


def suggested_name(doc, suffix: str, tail: str = "") -> str:
    """A file name for something saved from ``doc``, after its data: ``credit-g.csv`` ->
    ``credit-g{tail}{suffix}`` (the project's or the sample's name when there is no data file)."""
    source = doc.path or doc.project_path if doc is not None else None
    stem = (
        Path(source).stem
        if source
        else (doc.sample_name if doc is not None else None) or "untitled"
    )
    return f"{stem}{tail}{suffix}"


class Dialogs:
    """Modal dialogs; each method returns the user's answer.

    File dialogs start in the folder of ``document``'s data file (or project), else in the last
    folder one was answered in (kept in ``settings`` when given)."""

    def __init__(self, parent: QWidget, document=None, settings=None):
        self.parent = parent
        self.document = document
        self.settings = settings
        self._last_folder = ""

    # ------------------------------------------------------------------ where file dialogs start
    def last_folder(self) -> str:
        if self.settings is not None:
            return str(self.settings.value("last_folder", "") or "")
        return self._last_folder

    def _remember_folder(self, path: str) -> None:
        folder = str(Path(path).parent)
        self._last_folder = folder
        if self.settings is not None:
            self.settings.setValue("last_folder", folder)

    def start_folder(self) -> str:
        """The open data file's folder, else the project's, else the last one used ("" for none)."""
        doc = self.document
        sources = (doc.path, doc.project_path) if doc is not None else ()
        for folder in [str(Path(s).parent) for s in sources if s] + [self.last_folder()]:
            if folder and Path(folder).is_dir():
                return folder
        return ""

    def _box(self, icon, text: str, buttons=QMessageBox.StandardButton.Ok) -> QMessageBox:
        box = QMessageBox(icon, "Arbor", text, buttons, self.parent)
        box.setTextFormat(
            Qt.TextFormat.PlainText
        )  # messages name files, columns, values: never markup
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
            self.parent,
            "Unsaved changes",
            f"The table has unsaved changes. Save them before {what}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        return {
            QMessageBox.StandardButton.Save: "save",
            QMessageBox.StandardButton.Discard: "discard",
        }.get(answer, "cancel")

    def ask_replace_or_queue(self, running: str, asked: str) -> str | None:
        """'replace', 'queue', or None (leave the running training alone, train nothing)."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Arbor",
            "A training is running. Replace it with this one, or queue this one to start "
            "when it ends?",
            parent=self.parent,
        )
        box.setInformativeText(f"Running: {running}\nAsked for: {asked}")
        replace = box.addButton("&Replace", QMessageBox.ButtonRole.DestructiveRole)
        replace.setToolTip("Cancel the running training and start this one")
        queue = box.addButton("&Queue", QMessageBox.ButtonRole.AcceptRole)
        queue.setToolTip(
            "Start this one when the running training ends (the status bar shows the queue)"
        )
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(queue)
        box.exec()
        return {replace: "replace", queue: "queue"}.get(box.clickedButton())

    def ask_yes_no(self, question: str) -> bool:
        box = self._box(
            QMessageBox.Icon.Question,
            question,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        )
        box.exec()
        return box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Yes

    def open_path(self, title: str = "Open data", filters: str = DATA_FILTER) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, title, self.start_folder(), filters)
        if path:
            self._remember_folder(path)
        return path or None

    def save_path(self, title: str, filters: str = SAVE_FILTER, suggested: str = "") -> str | None:
        """A path to save to; a bare ``suggested`` name is offered in :meth:`start_folder`."""
        folder = self.start_folder()
        if folder and not Path(suggested).is_absolute():
            suggested = str(Path(folder) / suggested) if suggested else folder
        path, _ = QFileDialog.getSaveFileName(self.parent, title, suggested, filters)
        if path:
            self._remember_folder(path)
        return path or None

    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        value, ok = QInputDialog.getText(self.parent, title, label, text=text)
        return value if ok else None

    def ask_choice(self, title: str, label: str, items: list[str], current: int = 0) -> str | None:
        """One of ``items``, picked from a list; None when cancelled."""
        value, ok = QInputDialog.getItem(self.parent, title, label, items, current, False)
        return value if ok else None
