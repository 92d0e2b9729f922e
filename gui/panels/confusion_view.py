"""A confusion matrix as a captioned heat map that scrolls when it has many classes."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
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

    def __init__(self, parent=None):
        super().__init__(parent)
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
