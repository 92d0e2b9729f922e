"""The data table's structural edits: rows, columns, kinds and the target, each undoable.

The header's context menu and the Edit menu's row commands land here; every edit is a
command from :mod:`gui.table.table_commands` pushed on the document's undo stack.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMenu

from engine.data.table import IGNORED, KINDS
from engine.errors import ArborError
from gui.table.table_commands import (
    delete_column,
    delete_rows,
    duplicate_column,
    duplicate_rows,
    insert_column,
    insert_rows,
    move_column,
    move_row,
    rename_column,
    set_kind,
    set_target,
)


class TableEdits:
    """Edits of ``doc`` at the selection of ``table`` (a TablePanel), asking through ``dialogs``."""

    def __init__(self, doc, table, dialogs, parent_widget):
        self.doc, self.table, self.dialogs, self.parent_widget = doc, table, dialogs, parent_widget

    def push(self, make) -> None:
        try:
            command = make()
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self.doc.undo_stack.push(command)

    def insert_row(self) -> None:
        row, _ = self.table.current_source()
        self.push(lambda: insert_rows(self.doc, row + 1 if self.doc.n_rows else 0))

    def delete_selected_rows(self) -> None:
        rows = self.table.selected_rows()
        if rows:
            self.push(lambda: delete_rows(self.doc, rows))

    def duplicate_selected_rows(self) -> None:
        rows = self.table.selected_rows()
        if rows:
            self.push(lambda: duplicate_rows(self.doc, rows))

    def header_menu(self, col: int) -> QMenu:
        doc, push = self.doc, self.push
        name = doc.columns[col]
        menu = QMenu(self.parent_widget)
        for kind in KINDS:
            action = menu.addAction(f"Make {kind}")
            action.setCheckable(True)
            action.setChecked(doc.kinds.get(name) == kind)
            action.triggered.connect(lambda *_, k=kind: push(lambda: set_kind(doc, name, k)))
        target = menu.addAction("Set as target")
        target.setEnabled(name != doc.target and doc.kinds.get(name) != IGNORED)
        target.triggered.connect(lambda: push(lambda: set_target(doc, name)))
        menu.addSeparator()
        menu.addAction("Rename…").triggered.connect(lambda: self.rename(name))
        menu.addAction("Insert column…").triggered.connect(lambda: self.insert_column_at(col))
        menu.addAction("Duplicate column").triggered.connect(
            lambda: push(lambda: duplicate_column(doc, name))
        )
        menu.addAction("Move left").triggered.connect(
            lambda: push(lambda: move_column(doc, name, -1))
        )
        menu.addAction("Move right").triggered.connect(
            lambda: push(lambda: move_column(doc, name, 1))
        )
        menu.addAction("Delete column").triggered.connect(
            lambda: push(lambda: delete_column(doc, name))
        )
        menu.addSeparator()
        menu.addAction("Move selected row up").triggered.connect(lambda: self.move_row(-1))
        menu.addAction("Move selected row down").triggered.connect(lambda: self.move_row(1))
        return menu

    def move_row(self, step: int) -> None:
        row, _ = self.table.current_source()
        self.push(lambda: move_row(self.doc, row, step))

    def rename(self, name: str) -> None:
        new = self.dialogs.ask_text("Rename column", "New name:", name)
        if new and new != name:
            self.push(lambda: rename_column(self.doc, name, new))

    def insert_column_at(self, col: int) -> None:
        new = self.dialogs.ask_text("Insert column", "Name of the new column:", "new")
        if new:
            self.push(lambda: insert_column(self.doc, col + 1, new.strip()))

    def offer_nominal(self, row: int, col: int, message: str) -> None:
        """A numeric column refused text: offer to make it nominal."""
        name = self.doc.columns[col]
        if self.dialogs.ask_yes_no(
            f"{message}.\n\nMake {name!r} a nominal column so it can hold text?"
        ):
            self.push(lambda: set_kind(self.doc, name, "nominal"))
