"""How what pruning cut looks: faint boxes, words and dashed edges below the leaves it left.

A ghost is (owner leaf id, offset from that leaf's centre, size, headline, lines, class
shares); a ghost edge is (ghost index, parent ghost index or None for the owner leaf, branch
text). Each ghost keeps its offset from its leaf, so on the canvas it follows a dragged leaf.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

from gui.drawing import palette
from gui.drawing.nodes import (
    LOD_TEXT,
    bar_rect,
    node_size,
    node_texts,
    paint_bar,
    paint_words,
    shares,
)

GHOST_FILL = QColor("#F3F4F6")
GHOST_OPACITY = 0.45


def ghost_marks(plan) -> tuple[list, list]:
    """The ghosts and ghost edges of a :class:`gui.drawing.plan.ScenePlan` that shows them."""
    ghosts, edges = [], []
    index = {key: k for k, (key, *_rest) in enumerate(plan.ghosts)}
    for k, (key, owner, parent_key, text, node, parent) in enumerate(plan.ghosts):
        ox, oy = plan.positions[owner]
        x, y = plan.ghost_at[key]
        head, lines = node_texts(plan.tree, node, parent, 0, plan.style)
        size = node_size(plan.tree, node, parent, 0, (head, lines), plan.style, plot=False)
        ghosts.append((owner, (x - ox, y - oy), size, head, lines, shares(plan.tree, node)[0]))
        edges.append((k, None if len(parent_key) == 1 else index[parent_key], text))
    return ghosts, edges


def ghost_centres(ghosts: list, owner_at) -> list[tuple[float, float]]:
    """Each ghost's centre, given ``owner_at(leaf id)``, where its leaf's centre is now."""
    centres = []
    for owner, (dx, dy), *_rest in ghosts:
        x, y = owner_at(owner)
        centres.append((x + dx, y + dy))
    return centres


def ghosts_bounds(ghosts: list, centres: list) -> QRectF:
    """What the ghosts cover, with room for their edges' labels."""
    rect = QRectF()
    for (_, _, (w, h), *_rest), (x, y) in zip(ghosts, centres, strict=True):
        rect = rect.united(QRectF(x - w / 2, y - h / 2, w, h))
    return rect.adjusted(-80, -40, 80, 20)


def paint_ghosts(
    painter: QPainter,
    ghosts: list,
    edges: list,
    centres: list,
    owner_box,
    style,
    lod: float,
    vertical: bool,
) -> None:
    """The ghosts at ``centres``, hung by their edges from their leaves (``owner_box(leaf id)``:
    the leaf's centre and size, x, y, w, h)."""
    painter.setOpacity(GHOST_OPACITY)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    detail = lod >= LOD_TEXT
    for k, parent, text in edges:
        x1, y1 = centres[k]
        w1, h1 = ghosts[k][2]
        if parent is None:
            px, py, pw, ph = owner_box(ghosts[k][0])
        else:
            (px, py), (pw, ph) = centres[parent], ghosts[parent][2]
        path = QPainterPath()
        if vertical:
            start, end = QPointF(px, py + ph / 2), QPointF(x1, y1 - h1 / 2)
            mid = (start.y() + end.y()) / 2
            path.moveTo(start)
            path.cubicTo(QPointF(start.x(), mid), QPointF(end.x(), mid), end)
            anchor = QPointF(end.x(), mid + (end.y() - mid) * 0.45)
        else:
            start, end = QPointF(px + pw / 2, py), QPointF(x1 - w1 / 2, y1)
            mid = (start.x() + end.x()) / 2
            path.moveTo(start)
            path.cubicTo(QPointF(mid, start.y()), QPointF(mid, end.y()), end)
            anchor = QPointF(mid + (end.x() - mid) * 0.5, end.y() - 9)
        painter.setPen(QPen(palette.EDGE, 1.2, Qt.PenStyle.DashLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        if detail:
            painter.setFont(style.edge_font)
            painter.setPen(palette.MUTED)
            width = style.edge_metrics.horizontalAdvance(text) + 8
            painter.drawText(
                QRectF(anchor.x() - width / 2, anchor.y() - 9, width, 18),
                Qt.AlignmentFlag.AlignCenter,
                text,
            )
    for (_, _, (w, h), title, lines, class_shares), (x, y) in zip(ghosts, centres, strict=True):
        box = QRectF(x - w / 2, y - h / 2, w, h)
        painter.setPen(QPen(palette.NODE_BORDER, 1.2, Qt.PenStyle.DashLine))
        painter.setBrush(GHOST_FILL)
        painter.drawRoundedRect(box, 6, 6)
        if not detail:
            continue
        paint_words(painter, box, title, lines, style)
        if style.labels.bar and class_shares:
            paint_bar(painter, bar_rect(box), class_shares)
