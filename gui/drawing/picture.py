"""The whole tree as one picture: the legend at the top left and the tree beside it, painted
with QPainter from the layout alone, so a file can be drawn without a window.

Nodes, edges and ghosts are painted by the same functions the canvas's items call, in the
order the canvas stacks them (edges, then ghosts, then nodes), and the picture covers what
the canvas's scene covers, so an image looks like the screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QGuiApplication, QPainter, QPen

from engine.tree import Tree
from gui.drawing import palette
from gui.drawing.edges import edge_label, edges_bounds, paint_curves, paint_label
from gui.drawing.figure_style import SCREEN, FigureStyle
from gui.drawing.ghosts import (
    GHOST_FILL,
    GHOST_OPACITY,
    ghost_centres,
    ghost_marks,
    ghosts_bounds,
    paint_ghosts,
)
from gui.drawing.node_plots import NO_ROWS
from gui.drawing.nodes import LOD_TEXT, is_dashed, level_of_detail, paint_node, shares
from gui.drawing.plan import ScenePlan, plan_scene

MARGIN = 24.0
SWATCH = 12.0  # the legend's squares


@dataclass(frozen=True)
class Picture:
    """A laid-out tree with its ghosts, and the rectangle its drawing covers (layout units);
    ``plots`` the data of each node's plot by node id, when the style draws plots (None: the
    rows are not at hand)."""

    plan: ScenePlan
    ghosts: list
    ghost_edges: list
    ghost_centres: list
    bounds: QRectF
    plots: dict | None = None

    @property
    def tree(self) -> Tree:
        return self.plan.tree

    @property
    def style(self) -> FigureStyle:
        return self.plan.style


def gui_app() -> QGuiApplication:
    """The application fonts and painters need; a widget-free one when none runs yet."""
    return QGuiApplication.instance() or QGuiApplication([])


def picture(
    tree: Tree,
    orientation: str = "top-down",
    style: FigureStyle = SCREEN,
    ghosts: bool = False,
    plots: dict | None = None,
) -> Picture:
    """The whole ``tree`` laid out to be painted (on the GUI thread: it measures with the
    style's shared metrics); ``plots``: each node's plot data, by node id
    (:func:`engine.export.node_data.nodes_data`), drawn when the style's labels say so."""
    gui_app()
    return picture_of(plan_scene(tree, orientation, (), style, ghosts), plots)


def picture_of(plan: ScenePlan, plots: dict | None = None) -> Picture:
    """The picture of a laid-out tree (a plan as laid out, or stretched to fill a page)."""
    marks, edges = ghost_marks(plan) if plan.ghosts else ([], [])
    centres = ghost_centres(marks, plan.positions.__getitem__)
    return Picture(plan, marks, edges, centres, _bounds(plan, marks, centres), plots)


def _bounds(plan: ScenePlan, marks: list, centres: list) -> QRectF:
    # As the canvas's scene measures its items: each node's box with a 3-unit margin (room
    # for a selected border), the edges with room for their labels, and the ghosts.
    rect = QRectF()
    if plan.positions:
        xy = np.array(list(plan.positions.values()), dtype=np.float64)
        size = np.array([plan.sizes[i] for i in plan.positions], dtype=np.float64)
        left_top = xy + (-size / 2 - 3)
        right_bottom = left_top + (size + 6)
        (x0, y0), (x1, y1) = left_top.min(axis=0), right_bottom.max(axis=0)
        rect = QRectF(x0, y0, x1 - x0, y1 - y0)
    rect = rect.united(edges_bounds(plan.edge_geometry.boxes))
    return rect.united(ghosts_bounds(marks, centres)) if marks else rect


def paint_tree(painter: QPainter, pic: Picture) -> None:
    """The tree in layout units, at the painter's current transform (its scale sets the detail)."""
    plan, style = pic.plan, pic.style
    lod = level_of_detail(painter.worldTransform())
    painter.save()
    geometry = plan.edge_geometry
    paint_curves(painter, geometry.path)
    if lod >= LOD_TEXT:
        painter.setFont(style.edge_font)
        metrics = style.edge_metrics
        for k, (_, _, text) in enumerate(plan.edges):
            shown, box = edge_label(text, geometry.anchors[k], geometry.room[k], metrics)
            if shown:
                paint_label(painter, shown, box)
    painter.restore()
    if pic.ghosts:
        painter.save()
        paint_ghosts(
            painter,
            pic.ghosts,
            pic.ghost_edges,
            pic.ghost_centres,
            lambda owner: (*plan.positions[owner], *plan.sizes[owner]),
            style,
            lod,
            plan.orientation == "top-down",
        )
        painter.restore()
    tree = plan.tree
    plots = pic.plots if pic.plots is not None else {}
    missing = None if pic.plots is not None else NO_ROWS
    for node_id, (x, y) in plan.positions.items():
        node = plan.nodes[node_id]
        (w, h), (title, lines) = plan.sizes[node_id], plan.texts[node_id]
        class_shares, majority = shares(tree, node)
        painter.save()
        painter.translate(x, y)
        paint_node(
            painter,
            QRectF(-w / 2, -h / 2, w, h),
            title,
            lines,
            class_shares,
            tree,
            majority,
            style,
            lod,
            dashed=is_dashed(node),
            plot=plots.get(node_id, missing),
        )
        painter.restore()


def legend_entries(pic: Picture) -> list[tuple[str, object]]:
    """What the legend explains, in order: each class's colour (when bars show them), then
    every mark the picture uses (the dashed border of a node pruning cut or raised)."""
    tree = pic.tree
    entries: list[tuple[str, object]] = []
    if not tree.is_regression and _classes_coloured(pic.style):
        entries += [(name, palette.class_colour(k)) for k, name in enumerate(tree.classes)]
    if pic.plan.dashed:
        entries.append(("pruned here", "dashed"))
    if pic.ghosts:
        entries.append(("cut by pruning", "ghost"))
    return entries


def _legend_title(pic: Picture) -> str:
    tree = pic.tree
    return tree.schema.target if not tree.is_regression and _classes_coloured(pic.style) else ""


def _classes_coloured(style: FigureStyle) -> bool:
    """Whether nodes show classes by colour (the bar, or the plots), for the legend to name."""
    return style.labels.bar or style.labels.plots


def legend_size(pic: Picture) -> QSizeF:
    """Room the legend takes on the left (none when there is nothing to explain)."""
    entries = legend_entries(pic)
    if not entries:
        return QSizeF(0, 0)
    metrics = QFontMetricsF(pic.style.legend_font)
    texts = [name for name, _ in entries] + [_legend_title(pic)]
    line = max(metrics.height(), SWATCH) + 6
    return QSizeF(
        SWATCH + 26 + max(metrics.horizontalAdvance(t) for t in texts), line * (len(entries) + 1)
    )


def _legend(painter: QPainter, pic: Picture, x: float, y: float) -> None:
    entries = legend_entries(pic)
    if not entries:
        return
    font = pic.style.legend_font
    painter.setFont(font)
    # The device's own metrics: a baseline placed from them sits where the device draws it.
    metrics = QFontMetricsF(font, painter.device())
    line = max(QFontMetricsF(font).height(), SWATCH) + 6
    centre_shift = (metrics.ascent() - metrics.descent()) / 2  # baseline below a line's middle

    def text_at(tx: float, middle: float, text: str) -> None:
        painter.setPen(palette.TEXT)
        painter.drawText(QPointF(tx, middle + centre_shift), text)

    text_at(x, y + line / 2, _legend_title(pic))
    for k, (name, mark) in enumerate(entries):
        middle = y + line * (k + 1) + line / 2
        square = QRectF(x, middle - SWATCH / 2, SWATCH, SWATCH)
        if mark in ("dashed", "ghost"):
            painter.setBrush(GHOST_FILL if mark == "ghost" else Qt.BrushStyle.NoBrush)
            painter.setOpacity(GHOST_OPACITY if mark == "ghost" else 1.0)
            painter.setPen(QPen(palette.NODE_BORDER, 1.2, Qt.PenStyle.DashLine))
            painter.drawRect(square)
            painter.setOpacity(1.0)
        else:
            painter.fillRect(square, mark)
        text_at(x + SWATCH + 8, middle, name)


def natural_size(pic: Picture) -> tuple[float, float]:
    """The picture's own size in pixels (points): the tree, the legend and the margins."""
    source, legend = pic.bounds, legend_size(pic)
    return (
        source.width() + 2 * MARGIN + legend.width(),
        max(source.height(), legend.height()) + 2 * MARGIN,
    )


def render(pic: Picture, painter: QPainter, target: QRectF, background: QColor | None) -> None:
    """The legend at the top left and the tree beside it, scaled to fit ``target``."""
    source = pic.bounds
    if background is not None:
        painter.fillRect(target, background)
    natural_w, natural_h = natural_size(pic)
    k = min(target.width() / natural_w, target.height() / natural_h)
    painter.save()
    painter.translate(
        target.left() + (target.width() - natural_w * k) / 2,
        target.top() + (target.height() - natural_h * k) / 2,
    )
    painter.scale(k, k)
    inner = QRectF(MARGIN + legend_size(pic).width(), MARGIN, source.width(), source.height())
    painter.save()
    painter.setClipRect(inner, Qt.ClipOperation.IntersectClip)
    painter.translate(inner.left() - source.left(), inner.top() - source.top())
    paint_tree(painter, pic)
    painter.restore()
    _legend(painter, pic, 10, 8)
    painter.restore()


def smallest_text_pt(pic: Picture, page_width_pt: float) -> float:
    """The smallest type in the picture, in points, when it is ``page_width_pt`` wide."""
    natural_w, _ = natural_size(pic)
    style = pic.style
    return min(style.body_px, style.edge_px, style.legend_px) * page_width_pt / natural_w
