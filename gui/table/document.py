"""The table being edited: a frame, its column kinds and target, its file, and undo.

Every change goes through a ``QUndoCommand`` on :attr:`DataDocument.undo_stack`;
the commands call the small mutators here. Values are coerced by the engine's
rules (a numeric column holds numbers or missing; a nominal column holds
category strings), and :meth:`snapshot` hands an immutable Table to training.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from engine.data.table import (
    IGNORED,
    MISSING_TOKENS,
    NOMINAL,
    NUMERIC,
    Table,
    copy_on_write,
    make_table,
)
from engine.errors import ArborError

#: Undo keeps this many steps (table and tree edits together; the oldest go first). A tree edit
#: holds the tree before and after it, a structural table edit the table before and after, so
#: without a bound a long session would keep every tree ever edited (README: Undo).
UNDO_LIMIT = 100


def coerce(value, kind: str):
    """A typed cell value for ``kind``; raises ArborError with a message for bad text."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return np.nan
    text = str(value).strip()
    if text in MISSING_TOKENS:
        return np.nan
    if kind == NUMERIC:
        try:
            number = float(text)
        except ValueError:
            raise ArborError(f"{text!r} is not a number") from None
        if not np.isfinite(number):
            raise ArborError(f"{text!r} is not a finite number")
        return number
    return text


class DataDocument(QObject):
    """The open table.

    Signals
    -------
    reset() : a different table was loaded (or the structure changed).
    loaded() : a different table was loaded (after ``reset``); views forget their sort and filter.
    cells_changed(int, int, int, int) : top, left, bottom, right of changed cells.
    columns_changed() : kinds, names or the target changed.
    modified_changed(bool) : unsaved changes appeared or were saved.
    """

    reset = Signal()
    loaded = Signal()
    cells_changed = Signal(int, int, int, int)
    columns_changed = Signal()
    modified_changed = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)  # only possible while the stack is empty
        self.undo_stack.cleanChanged.connect(self._on_undo_stack_clean_changed)
        self.frame = pd.DataFrame()
        self.kinds: dict[str, str] = {}
        self.target: str | None = None
        self.path: str | None = None
        self.project_path: str | None = (
            None  # the project the window's work was opened from or saved to
        )
        self.notes: tuple[str, ...] = ()
        self.sample_name: str | None = None
        # The tree on screen, and the one the project at ``project_path`` holds: a training or
        # a pruning replaces the tree without an undo step, and leaves the project behind.
        self._tree = None
        self._saved_tree = None
        self._nodes_moved = False  # nodes dragged since the project was saved (it keeps the layout)

    def _on_undo_stack_clean_changed(self, clean: bool) -> None:
        self.modified_changed.emit(self.modified)

    # ------------------------------------------------------------------ loading
    def load(self, table: Table, path: str | None) -> None:
        self.frame = table.frame.copy()
        self.kinds = dict(table.kinds)
        self.target = table.target
        self.path = path
        self.project_path = None
        self.notes = tuple(table.notes)
        self._tree = self._saved_tree = None
        self._nodes_moved = False
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.reset.emit()
        self.loaded.emit()
        self.modified_changed.emit(False)

    def new_blank(self, rows: int = 10, columns: int = 3) -> None:
        names = [f"attribute{i + 1}" for i in range(columns - 1)] + ["class"]
        frame = pd.DataFrame({n: [np.nan] * rows for n in names})
        kinds = {n: NOMINAL for n in names}
        self.load(make_table(frame.astype(object), target="class", kinds=kinds), None)

    @property
    def modified(self) -> bool:
        """Work the file or project at hand does not hold: table or tree edits since the
        last save and, for a project, a tree trained or pruned or nodes dragged since."""
        return self.table_modified or (
            self.project_path is not None
            and (self._tree is not self._saved_tree or self._nodes_moved)
        )

    @property
    def table_modified(self) -> bool:
        """Edits on the undo stack since the last save (hand edits of the tree among them)."""
        return not self.undo_stack.isClean()

    def nodes_moved(self) -> None:
        """Nodes were dragged on the canvas: a project's layout is behind."""
        if self.project_path is not None and not self._nodes_moved:
            self._nodes_moved = True
            self.modified_changed.emit(True)

    def tree_shown(self, tree) -> None:
        """The window now shows ``tree``; a project's title says whether it holds it."""
        self._tree = tree
        self.modified_changed.emit(self.modified)

    def mark_saved(self, path: str) -> None:
        self.path, self.sample_name, self.project_path = path, None, None
        self.undo_stack.setClean()
        self.modified_changed.emit(False)

    def mark_project_saved(self, path: str) -> None:
        """The table (as it is) is kept in the project at ``path``: nothing is unsaved."""
        self.project_path, self.sample_name = path, None
        self._saved_tree, self._nodes_moved = self._tree, False
        self.undo_stack.setClean()
        self.modified_changed.emit(False)

    def mark_restored(self, project_path: str | None) -> None:
        """The work was restored after a crash: the project it belongs to (Save writes there)
        is ``project_path``; none of it is saved."""
        self.project_path = project_path
        self._saved_tree = None
        self.undo_stack.resetClean()
        self.modified_changed.emit(True)

    def snapshot(self) -> Table:
        """An immutable Table of the current contents (safe to hand to a worker thread)."""
        return self.snapshot_later()()

    def snapshot_later(self) -> Callable[[], Table]:
        """:meth:`snapshot`'s table, made when the function returned is called (on a worker
        thread). The contents as they are now are kept by a shallow copy, which pandas'
        copy-on-write keeps when the table is edited afterwards; making the table can copy a
        million rows (a cell edit splits the numbers' block, and the table joins them into one
        again: 170 ms at 1,000,000 x 8), which then stays off the window's thread. Without
        copy-on-write (pandas 2 by default) the table is made now."""
        if self.frame.shape[1] == 0:
            raise ArborError("the table has no columns")
        later = copy_on_write()
        frame, target, kinds, path = (
            self.frame.copy(deep=False) if later else self.frame,
            self.target,
            dict(self.kinds),
            self.path,
        )

        def make() -> Table:
            return make_table(frame, target=target, kinds=kinds, source=path)

        if later:
            return make
        table = make()
        return lambda: table

    # ------------------------------------------------------------------ reading
    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @frame.setter
    def frame(self, frame: pd.DataFrame) -> None:
        # The table view asks for the size tens of thousands of times a second while scrolling;
        # cells change in place, but the shape only with a new frame.
        self._frame, self._shape, self._names = frame, frame.shape, frame.columns.tolist()
        self._readers: dict[int, object] = {}

    @property
    def n_rows(self) -> int:
        return self._shape[0]

    @property
    def columns(self) -> list[str]:
        return list(self._names)

    @property
    def n_columns(self) -> int:
        return self._shape[1]

    def column_name(self, col: int) -> str:
        return self._names[col]

    def value(self, row: int, col: int):
        reader = self._readers.get(col)
        if reader is None:
            reader = self._readers[col] = _reader(self._frame.iloc[:, col])
        return reader(row)

    # ------------------------------------------------------------------ mutators (used by commands)
    def set_cell(self, row: int, col: int, value) -> None:
        name = self.frame.columns[col]
        series = self.frame[name]
        if (
            isinstance(series.dtype, pd.CategoricalDtype)
            and not pd.isna(value)
            and value not in series.cat.categories
        ):
            self.frame[name] = series.cat.add_categories([value])
        self.frame.iat[row, col] = value
        self._readers.pop(col, None)
        self.cells_changed.emit(row, col, row, col)

    def set_block(self, top: int, left: int, values: list[list]) -> None:
        for r, row in enumerate(values):
            for c, v in enumerate(row):
                name = self.frame.columns[left + c]
                series = self.frame[name]
                if (
                    isinstance(series.dtype, pd.CategoricalDtype)
                    and not pd.isna(v)
                    and v not in series.cat.categories
                ):
                    self.frame[name] = series.cat.add_categories([v])
                self.frame.iat[top + r, left + c] = v
                self._readers.pop(left + c, None)
        if values:
            self.cells_changed.emit(top, left, top + len(values) - 1, left + len(values[0]) - 1)

    def replace_state(self, frame: pd.DataFrame, kinds: dict, target: str | None) -> None:
        self.frame, self.kinds, self.target = frame, dict(kinds), target
        self.reset.emit()
        self.columns_changed.emit()

    def state(self) -> tuple[pd.DataFrame, dict, str | None]:
        return self.frame.copy(), dict(self.kinds), self.target

    # ------------------------------------------------------------------ helpers for commands
    def converted(self, name: str, kind: str) -> pd.Series:
        """``name``'s values as ``kind`` (raises ArborError naming the first bad value)."""
        table = (
            make_table(
                self.frame[[name]], target=name if kind != IGNORED else None, kinds={name: kind}
            )
            if kind != IGNORED
            else None
        )
        if table is None:
            return self.frame[name]
        return table.frame[name]


def _reader(series: pd.Series):
    """A cell getter for one column from plain arrays: ``frame.iat`` costs microseconds a cell,
    and scrolling a big table asks for thousands of cells a frame."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        labels = series.cat.categories.tolist()
        return lambda row: labels[codes[row]] if codes[row] >= 0 else np.nan
    values = series.to_numpy(dtype=object if series.dtype == object else None)
    return values.__getitem__
