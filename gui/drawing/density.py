"""Nodes too small to see as boxes, drawn as their density: one pixel per area, more opaque
where more nodes are, in the colour of the class most of them predict. The overview draws a
big tree so, and the canvas too when zoomed out until its boxes are under a pixel or two.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage

#: Boxes narrower than this (pixels, on average) are drawn as density instead.
DENSITY_BELOW = 2.0


def density_image(
    boxes: np.ndarray,
    colours: list[tuple[QColor, np.ndarray]],
    source: QRectF,
    width: int,
    height: int,
) -> QImage:
    """Node density over ``source`` as a ``width`` x ``height`` image: each pixel in the colour
    of the class most of its nodes predict, more opaque where more nodes are.

    ``boxes`` are the nodes' (left, top, right, bottom); ``colours`` gives each class's colour
    and its rows of ``boxes``. Counted with arrays: 60,000 nodes take milliseconds.
    """
    width, height = max(int(width), 1), max(int(height), 1)
    centre = (boxes[:, :2] + boxes[:, 2:]) / 2
    x = ((centre[:, 0] - source.left()) / source.width() * width).astype(np.intp).clip(0, width - 1)
    y = (
        ((centre[:, 1] - source.top()) / source.height() * height)
        .astype(np.intp)
        .clip(0, height - 1)
    )
    cells = y * width + x
    counts = np.zeros((max(len(colours), 1), height * width))
    rgb = np.zeros((max(len(colours), 1), 3))
    for k, (colour, rows) in enumerate(colours):
        counts[k] = np.bincount(cells[rows], minlength=height * width)
        rgb[k] = (colour.red(), colour.green(), colour.blue())
    total = counts.sum(axis=0)
    # A node's dot spreads to its neighbours' pixels: a level of the tree reads as a band.
    total = np.maximum(total, np.roll(total, 1) * 0.5)
    image = np.zeros((height * width, 4), dtype=np.uint8)
    image[:, :3] = rgb[counts.argmax(axis=0)].astype(np.uint8)
    if total.max() > 0:
        alpha = np.where(total > 0, 90 + 165 * np.log1p(total) / np.log1p(total.max()), 0)
        image[:, 3] = alpha.astype(np.uint8)
    data = np.ascontiguousarray(image.reshape(height, width, 4))
    return QImage(data.data, width, height, width * 4, QImage.Format.Format_RGBA8888).copy()
