"""A one-line label that ends in "…" when its room is narrower than its text."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """Plain text on one line, cut with "…" to the label's width.

    ``text()`` is the whole text, as set. When it is cut, the tooltip starts with the whole
    text, above whatever tooltip was set. Both are shown as plain text: a status message may
    hold a file, column or class name, which must not be read as markup.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._text = ""
        self._tip = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        # A label asks for its whole text's width; in a status bar beside permanent widgets
        # that pushes them off a small screen. This one takes the room it is given.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(60)

    def text(self) -> str:  # noqa: D102 - QLabel's, for the whole text
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._text = text
        self._refit()

    def setToolTip(self, tip: str) -> None:  # noqa: N802 - Qt's name
        self._tip = tip
        self._refit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._refit()

    def _refit(self) -> None:
        shown = self.fontMetrics().elidedText(
            self._text, Qt.TextElideMode.ElideRight, max(self.contentsRect().width(), 0)
        )
        super().setText(shown)
        lines = [self._text] if shown != self._text else []
        lines += [self._tip] if self._tip else []
        super().setToolTip(
            "<p style='white-space:pre-wrap'>"
            + "<br>".join(html.escape(line) for line in lines)
            + "</p>"
            if lines
            else ""
        )
