"""Undoable edits of the table. Cell edits store just the cells; structural edits store
the table before and after (the frame is copied once per structural edit)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from PySide6.QtGui import QUndoCommand

from engine.data.table import IGNORED, NOMINAL
from engine.errors import ArborError
from gui.table.document import DataDocument


class SetCellCommand(QUndoCommand):
    def __init__(self, doc: DataDocument, row: int, col: int, value):
        super().__init__(f"Edit {doc.columns[col]}")
        self.doc, self.row, self.col, self.new = doc, row, col, value
        self.old = doc.value(row, col)

    def redo(self) -> None:
        self.doc.set_cell(self.row, self.col, self.new)

    def undo(self) -> None:
        self.doc.set_cell(self.row, self.col, self.old)


class PasteCommand(QUndoCommand):
    def __init__(self, doc: DataDocument, top: int, left: int, values: list[list]):
        super().__init__(f"Paste {len(values)} x {len(values[0]) if values else 0}")
        self.doc, self.top, self.left, self.new = doc, top, left, values
        self.old = [
            [doc.value(top + r, left + c) for c in range(len(row))] for r, row in enumerate(values)
        ]

    def redo(self) -> None:
        self.doc.set_block(self.top, self.left, self.new)

    def undo(self) -> None:
        self.doc.set_block(self.top, self.left, self.old)


class StateCommand(QUndoCommand):
    """A structural edit: ``change(frame, kinds, target)`` returns the new state."""

    def __init__(self, doc: DataDocument, text: str, change: Callable):
        super().__init__(text)
        self.doc = doc
        self.before = doc.state()
        frame, kinds, target = doc.state()
        self.after = change(frame, kinds, target)

    def redo(self) -> None:
        frame, kinds, target = self.after
        self.doc.replace_state(frame.copy(), kinds, target)

    def undo(self) -> None:
        frame, kinds, target = self.before
        self.doc.replace_state(frame.copy(), kinds, target)


def _blank_rows(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    blank = pd.DataFrame({c: pd.Series([np.nan] * n, dtype=frame[c].dtype) for c in frame.columns})
    return blank


def insert_rows(doc: DataDocument, at: int, n: int = 1) -> StateCommand:
    def change(frame, kinds, target):
        top, bottom = frame.iloc[:at], frame.iloc[at:]
        return pd.concat([top, _blank_rows(frame, n), bottom], ignore_index=True), kinds, target

    return StateCommand(doc, f"Insert {n} row(s)", change)


def delete_rows(doc: DataDocument, rows: list[int]) -> StateCommand:
    def change(frame, kinds, target):
        return frame.drop(index=frame.index[sorted(rows)]).reset_index(drop=True), kinds, target

    return StateCommand(doc, f"Delete {len(rows)} row(s)", change)


def duplicate_rows(doc: DataDocument, rows: list[int]) -> StateCommand:
    def change(frame, kinds, target):
        last = max(rows) + 1
        copies = frame.iloc[sorted(rows)]
        out = pd.concat([frame.iloc[:last], copies, frame.iloc[last:]], ignore_index=True)
        return out, kinds, target

    return StateCommand(doc, f"Duplicate {len(rows)} row(s)", change)


def move_row(doc: DataDocument, row: int, step: int) -> StateCommand:
    def change(frame, kinds, target):
        order = list(range(len(frame)))
        dest = max(0, min(len(frame) - 1, row + step))
        order.insert(dest, order.pop(row))
        return frame.iloc[order].reset_index(drop=True), kinds, target

    return StateCommand(doc, "Move row", change)


def insert_column(doc: DataDocument, at: int, name: str) -> StateCommand:
    if name in doc.columns:
        raise ArborError(f"there is already a column named {name!r}")

    def change(frame, kinds, target):
        frame.insert(at, name, pd.Categorical([np.nan] * len(frame), categories=[]))
        return frame, {**kinds, name: NOMINAL}, target

    return StateCommand(doc, f"Insert column {name}", change)


def delete_column(doc: DataDocument, name: str) -> StateCommand:
    if name == doc.target:
        raise ArborError(f"{name!r} is the target; choose another target before deleting it")

    def change(frame, kinds, target):
        return frame.drop(columns=[name]), {k: v for k, v in kinds.items() if k != name}, target

    return StateCommand(doc, f"Delete column {name}", change)


def duplicate_column(doc: DataDocument, name: str) -> StateCommand:
    new = f"{name} copy"
    k = 2
    while new in doc.columns:
        new, k = f"{name} copy {k}", k + 1

    def change(frame, kinds, target):
        frame.insert(frame.columns.get_loc(name) + 1, new, frame[name].copy())
        return frame, {**kinds, new: kinds[name]}, target

    return StateCommand(doc, f"Duplicate column {name}", change)


def move_column(doc: DataDocument, name: str, step: int) -> StateCommand:
    def change(frame, kinds, target):
        cols = list(frame.columns)
        i = cols.index(name)
        cols.insert(max(0, min(len(cols) - 1, i + step)), cols.pop(i))
        return frame[cols], kinds, target

    return StateCommand(doc, f"Move column {name}", change)


def rename_column(doc: DataDocument, old: str, new: str) -> StateCommand:
    new = new.strip()
    if not new:
        raise ArborError("a column name cannot be empty")
    if new in doc.columns and new != old:
        raise ArborError(f"there is already a column named {new!r}")

    def change(frame, kinds, target):
        frame = frame.rename(columns={old: new})
        kinds = {(new if k == old else k): v for k, v in kinds.items()}
        return frame, kinds, new if target == old else target

    return StateCommand(doc, f"Rename {old} to {new}", change)


def set_kind(doc: DataDocument, name: str, kind: str) -> StateCommand:
    if kind == IGNORED and name == doc.target:
        raise ArborError(f"{name!r} is the target and cannot be ignored")
    values = doc.converted(name, kind)  # raises ArborError naming a bad value

    def change(frame, kinds, target):
        frame[name] = values
        return frame, {**kinds, name: kind}, target

    return StateCommand(doc, f"Make {name} {kind}", change)


def set_target(doc: DataDocument, name: str) -> StateCommand:
    if doc.kinds.get(name) == IGNORED:
        raise ArborError(f"{name!r} is ignored; make it nominal or numeric first")

    def change(frame, kinds, target):
        return frame, kinds, name

    return StateCommand(doc, f"Predict {name}", change)
