"""Text from a data file shown as text: Qt lays out a label or a tooltip that looks like HTML
as HTML, so a column named ``<img src=x>`` would be drawn as an image and ``<b>x</b>`` in bold.

Labels that show names or values are :func:`plain_label` (Qt's plain-text format); a
tooltip is always taken as HTML when it looks like HTML, so one holding data goes through
:func:`plain_tip`. Rich labels and tooltips that mix markup with data escape the data
(``html.escape``) where they are built.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui's namespace
from PySide6.QtWidgets import QLabel


def plain_tip(text: str) -> str:
    """A tooltip that shows ``text`` as it is. Text Qt would not take as HTML is returned
    unchanged; text it would is escaped inside a paragraph that keeps its line breaks."""
    if not GuiQt.mightBeRichText(text):
        return text
    return (
        "<p style='white-space:pre-wrap'>"
        + "<br>".join(escape(line) for line in text.split("\n"))
        + "</p>"
    )


def plain_label(text: str = "", parent=None) -> QLabel:
    """A label that shows ``text``, and whatever text it is given later, as plain text."""
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
