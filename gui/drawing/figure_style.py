"""How a tree is drawn: type sizes and what each node says, for the screen and for slides.

Sizes are in pixels, not points: a QFont in points is as many device units as the
device's dots per inch make it (13.3 on a 96-dpi screen or image, 10 in a 72-dpi SVG or
PDF), while the boxes are measured on the screen, so text shrank inside its box in every
vector export. A pixel size is the same number of units on every device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from PySide6.QtGui import QFont, QFontMetricsF

from engine.export.node_labels import NodeLabels

#: The family asked for, then what to use where it is missing (SVG viewers take the list).
FAMILIES = ("DejaVu Sans", "Verdana", "Arial", "Helvetica", "sans-serif")


@dataclass(frozen=True)
class FigureStyle:
    """Type sizes (pixels) and node labels; frozen, so fonts and metrics are cached per style."""

    title_px: int = 13
    body_px: int = 12
    edge_px: int = 12  # edge conditions as large as the counts they lead to
    legend_px: int = 12
    labels: NodeLabels = field(default_factory=NodeLabels)

    def with_labels(self, labels: NodeLabels) -> FigureStyle:
        return FigureStyle(self.title_px, self.body_px, self.edge_px, self.legend_px, labels)

    @property
    def title_font(self) -> QFont:
        return _font(self.title_px, True)

    @property
    def body_font(self) -> QFont:
        return _font(self.body_px, False)

    @property
    def edge_font(self) -> QFont:
        return _font(self.edge_px, False)

    @property
    def legend_font(self) -> QFont:
        return _font(self.legend_px, False)

    @property
    def title_metrics(self) -> QFontMetricsF:
        return _metrics(self.title_px, True)

    @property
    def body_metrics(self) -> QFontMetricsF:
        return _metrics(self.body_px, False)

    @property
    def edge_metrics(self) -> QFontMetricsF:
        return _metrics(self.edge_px, False)


@cache
def _font(px: int, bold: bool) -> QFont:
    font = QFont()
    font.setFamilies(list(FAMILIES))
    font.setPixelSize(px)
    font.setWeight(QFont.Weight.Bold if bold else QFont.Weight.Normal)
    return font


@cache
def _metrics(px: int, bold: bool) -> QFontMetricsF:
    return QFontMetricsF(_font(px, bold))


#: The canvas and ordinary exports.
SCREEN = FigureStyle()
#: For a slide: a 16:9 page 10 inches wide (720 x 405 points) read from across a room.
SLIDE = FigureStyle(title_px=20, body_px=18, edge_px=18, legend_px=18)
