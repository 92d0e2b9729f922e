"""A card of rich text (numbers and tables) for the inspector and the pruning walk-through."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel


class Card(QLabel):
    """Rich text whose paragraphs wrap and whose tables keep every column: the card is at
    least as wide as its widest table, and the inspector scrolls sideways when narrower."""

    def __init__(self, html: str):
        super().__init__()
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setStyleSheet(
            "QLabel { background: white; border: 1px solid #D0D5DD; border-radius: 4px;"
            " padding: 6px; }"
        )
        self.setText(html)

    def setText(self, html: str) -> None:  # noqa: N802 - Qt override
        super().setText(html)
        widest = 0.0
        for table in re.findall(r"<table.*?</table>", html, flags=re.S):
            document = QTextDocument()
            document.setDefaultFont(self.font())
            document.setHtml(table)
            widest = max(widest, document.idealWidth())
        self.setMinimumWidth(int(widest) + 24 if widest else 0)
