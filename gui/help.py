"""The Help menu's pages: the keyboard shortcuts (generated from the action table) and the user guide."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from gui.actions import ACTIONS

#: The user guide, as the repository holds it (docs/ sits beside the gui package in a source tree;
#: an installed package carries no docs, so the guide is then only named).
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "window.md"
GUIDE_NAME = "docs/window.md"


def action_name(spec) -> str:
    """An action's menu text without its mnemonic and ellipsis: ``"&Open…"`` -> ``"Open"``."""
    return spec.text.replace("&", "").replace("…", "").strip()


def shortcut_rows() -> list[tuple[str, str, str]]:
    """(name, shortcuts as this platform spells them, description) of every action that has a shortcut."""
    rows = []
    for spec in ACTIONS:
        keys = [
            QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in spec.shortcuts
        ]
        keys = [k for k in keys if k]  # a standard key this platform does not bind spells as ""
        if keys:
            rows.append((action_name(spec), ", ".join(keys), spec.tip or action_name(spec)))
    # The side bar's buttons carry their own keys (gui/side_bar.py), bound to the Nth button
    # of whichever panels the bar holds, so they are no row of the actions table.
    first, last = (
        QKeySequence(f"Alt+{k}").toString(QKeySequence.SequenceFormat.NativeText) for k in (1, 9)
    )
    rows.append(
        (
            "Side-bar panel 1 to 9",
            f"{first} … {last}",
            "With the panels collapsed to a side bar: show the bar's first, second, ... panel "
            "over the tree; the same key again hides it",
        )
    )
    return rows


class ShortcutsDialog(QDialog):
    """Every action with a shortcut: its name, its keys and what it does."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts — Arbor")
        rows = shortcut_rows()
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Action", "Shortcut", "What it does"])
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)  # plain text, never markup
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                item.setToolTip(text if c == 2 else "")
                self.table.setItem(r, c, item)
        self.table.verticalHeader().hide()
        # Rows follow the wrapped description at the column's final width, not the one before layout.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(820, 560)

    def rows(self) -> list[tuple[str, str, str]]:
        """What the table shows, row by row."""
        return [
            tuple(self.table.item(r, c).text() for c in range(3))
            for r in range(self.table.rowCount())
        ]


def open_guide(dialogs, guide: Path | None = None) -> bool:
    """Open the user guide (``GUIDE`` unless given) in the desktop's viewer; where it is not at
    hand, say where it is."""
    guide = guide or GUIDE
    if guide.is_file():
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(guide))):
            return True
        dialogs.info(f"Could not open a viewer for the user guide; it is the file {guide}")
        return False
    dialogs.info(
        f"The user guide is {GUIDE_NAME} in Arbor's source repository "
        "(this installation carries no copy of it)."
    )
    return False
