"""A confusion matrix as a captioned heat map that scrolls when it has many classes."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.export.labels import number
from gui.plain_text import plain_tip


class ConfusionView(QWidget):
    """Rows are actual classes, columns predicted; each cell tinted by its share of its row
    (blue on the diagonal, orange off it), so a 19-class matrix reads at a glance."""

    def __init__(self, parent=None, letters: bool = False):
        """``letters``: name the predicted columns a, b, c… and the rows "a = class", as Weka
        does, so a matrix of long class names is as narrow as its counts (the Compare window,
        where two matrices share the room of one)."""
        super().__init__(parent)
        self.letters = letters
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.table, 1)

    def show_matrix(self, classes, confusion: np.ndarray, target: str, title: str = "") -> None:
        k = len(classes)
        self.caption.setText(
            f"{escape(title)}{' — ' if title else ''}rows: actual <b>{escape(target)}</b>, "
            "columns: predicted"
        )
        self.table.clear()
        self.table.setRowCount(k)
        self.table.setColumnCount(k)
        if self.letters:
            names = [_letter(i) for i in range(k)]
            self.table.setHorizontalHeaderLabels(names)
            self.table.setVerticalHeaderLabels(
                [f"{n} = {c}" for n, c in zip(names, classes, strict=True)]
            )
            for j, c in enumerate(classes):
                self.table.horizontalHeaderItem(j).setToolTip(plain_tip(f"predicted {c}"))
        else:
            self.table.setHorizontalHeaderLabels([f"→ {c}" for c in classes])
            self.table.setVerticalHeaderLabels(list(classes))
        totals = confusion.sum(axis=1)
        for i in range(k):
            for j in range(k):
                value = confusion[i, j]
                item = QTableWidgetItem(number(round(float(value), 2)))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                share = value / totals[i] if totals[i] > 0 else 0.0
                if value > 0:
                    base = QColor("#0072B2") if i == j else QColor("#E69F00")
                    base.setAlphaF(0.15 + 0.6 * share)
                    item.setBackground(base)
                item.setToolTip(
                    plain_tip(
                        f"actual {classes[i]}, predicted {classes[j]}: "
                        f"{number(round(float(value), 2))} ({100 * share:.1f}% of actual {classes[i]})"
                    )
                )
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()

    def needed_size(self) -> QSize:
        """The room the whole matrix takes, caption (at that width) and scroll bars' room included."""
        t = self.table
        bar = t.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        width = (
            t.verticalHeader().sizeHint().width()
            + t.horizontalHeader().length()
            + 2 * t.frameWidth()
            + bar
        )
        height = (
            t.horizontalHeader().sizeHint().height()
            + t.verticalHeader().length()
            + 2 * t.frameWidth()
            + bar
        )
        caption = self.caption.heightForWidth(width)
        spacing = self.layout().spacing()
        return QSize(width, height + max(caption, self.caption.sizeHint().height()) + spacing)


def _letter(i: int) -> str:
    """a, b, … z, aa, ab, …: Weka's names for the classes of a confusion matrix."""
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = chr(ord("a") + r) + name
    return name
