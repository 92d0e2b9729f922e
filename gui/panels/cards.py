"""A card of rich text (numbers and tables) for the inspector and the pruning walk-through."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel


class Card(QLabel):
    """Rich text whose paragraphs wrap and whose tables keep every column: the card is at
    least as wide as its widest table laid out as narrow as it goes (a cell's words wrap,
    no word is cut), and the inspector scrolls sideways only when narrower than that."""

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
            document.setHtml(_one_word_a_line(table))
            widest = max(widest, document.idealWidth())
        self.setMinimumWidth(int(widest) + 24 if widest else 0)


def _one_word_a_line(html: str) -> str:
    """``html`` with a line break at every space of its text (not within tags; ``&nbsp;``
    stays): laid out at its natural width, a table is as narrow as its cells' words allow."""
    return re.sub(r">([^<]*)<", lambda m: ">" + m.group(1).replace(" ", "<br>") + "<", html)
