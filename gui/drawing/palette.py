"""Colours: one consistent, colour-blind-friendly colour per class index."""

from __future__ import annotations

from PySide6.QtGui import QColor

# Okabe-Ito, then a few more distinct hues for many-class targets.
CLASS_COLOURS = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
    "#882255",
    "#44AA99",
    "#117733",
    "#332288",
]
REGRESSION = QColor("#5B8DB8")
NODE_FILL = QColor("#FFFFFF")
NODE_BORDER = QColor("#5F6B7A")
SELECTED = QColor("#D55E00")
HIGHLIGHT = QColor("#FFE08A")
EDGE = QColor("#8A94A3")
TEXT = QColor("#1E2430")
MUTED = QColor("#6B7280")


def class_colour(index: int) -> QColor:
    if index < len(CLASS_COLOURS):
        return QColor(CLASS_COLOURS[index])
    return QColor.fromHsv((index * 47) % 360, 150, 200)
