"""How a node looks: its words, its box's size and colours, and the painting of it.

The canvas's node items and the image export paint through :func:`paint_node`, so a node
looks the same on screen and in a file. The detail follows the zoom: below ``LOD_BOX`` the
box tinted by the majority class, below ``LOD_TEXT`` the plain box, above that everything.
Below ``LOD_TEXT`` the box still says its headline (the split attribute, or a leaf's class or
value) whenever it can be read: type no smaller than :data:`MIN_TYPE_PX` on screen, stacked on
as many lines as the box holds and cut short with an ellipsis (:func:`short_headline`), so a
tree fitted to the view is not a field of bare boxes (issue 38). What the lines say and the
type sizes come from a :class:`gui.drawing.figure_style.FigureStyle`.
"""

from __future__ import annotations

from functools import cache
from math import ceil, floor, sqrt

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen, QTransform

from engine.export.labels import attribute_name, predicted
from engine.export.node_labels import node_lines
from engine.tree import Node, Tree
from gui.drawing import palette
from gui.drawing.figure_style import SCREEN, FigureStyle
from gui.drawing.node_plots import paint_plot, plot_size

LOD_BOX, LOD_TEXT = 0.3, 0.55
#: The smallest on-screen type (pixels) a zoomed-out node's headline is drawn at; a box too
#: small for it on screen stays bare.
MIN_TYPE_PX = 7.0
#: A headline cut shorter than this many characters (the ellipsis included) says nothing.
MIN_CHARS = 3
PAD_X, PAD_Y, BAR_H = 10.0, 6.0, 7.0
#: Room between the lines of text and a node's plot.
PLOT_GAP = 4.0
#: The bar of a node with no class weight to share out (the light palette's).
EMPTY_BAR = QColor("#E5E7EB")


def empty_bar() -> QColor:
    """The bar of a node with no class weight, in the palette in force."""
    return QColor(palette.current().empty_bar)


def headline(tree: Tree, node: Node, parent: Node | None) -> str:
    if node.is_leaf:
        return predicted(tree, node, parent)
    return attribute_name(tree, node)


def node_texts(
    tree: Tree, node: Node, parent: Node | None, hidden: int = 0, style: FigureStyle = SCREEN
) -> tuple[str, tuple[str, ...]]:
    """The headline and the lines under it."""
    return headline(tree, node, parent), tuple(node_lines(tree, node, style.labels, hidden))


def node_size(
    tree: Tree,
    node: Node,
    parent: Node | None,
    hidden: int = 0,
    texts: tuple[str, tuple[str, ...]] | None = None,
    style: FigureStyle = SCREEN,
    metrics=None,
    plot: bool | None = None,
) -> tuple[float, float]:
    """Width and height of a node's box; ``metrics`` (title, body) measure off the GUI thread
    (:func:`new_metrics`), where the style's shared ones must not be used. ``plot``: room for
    the node's plot (default: as the style's labels say; what pruning cut is drawn without)."""
    head, lines = texts or node_texts(tree, node, parent, hidden, style)
    title_metrics, body_metrics = metrics or (style.title_metrics, style.body_metrics)
    width = (
        max(
            72.0,
            title_metrics.horizontalAdvance(head),
            *(body_metrics.horizontalAdvance(line) for line in lines),
        )
        + 2 * PAD_X
    )
    height = title_metrics.height() + len(lines) * body_metrics.height() + 2 * PAD_Y
    if style.labels.bar:
        height += BAR_H + 4
    if style.labels.plots if plot is None else plot:
        plot_w, plot_h = plot_size(style.body_px)
        width = max(width, plot_w + 2 * PAD_X)
        height += plot_h + PLOT_GAP
    return width, height


def new_metrics(style: FigureStyle = SCREEN) -> tuple[QFontMetricsF, QFontMetricsF]:
    """Title and body metrics of their own, for a thread that measures text."""
    return QFontMetricsF(QFont(style.title_font)), QFontMetricsF(QFont(style.body_font))


def shares(tree: Tree, node: Node) -> tuple[list[float], int]:
    """Each class's share of the node (empty for regression or no weight) and the majority
    class's index (-1: no weight)."""
    # Plain floats: thousands of nodes are drawn at once, and numpy per node costs more than it saves.
    dist = node.distribution.tolist()
    total = sum(dist)
    return (
        [v / total for v in dist] if total > 0 and not tree.is_regression else [],
        dist.index(max(dist)) if total > 0 else -1,
    )


def is_dashed(node: Node) -> bool:
    """Pruned or raised by C4.5: drawn with a dashed border."""
    return bool(node.stats.get("pruned") or node.stats.get("raised"))


def tint(tree: Tree, majority: int) -> QColor:
    """A node's colour: its majority class's (``majority`` -1: none, or a regression tree)."""
    if majority < 0:
        return palette.REGRESSION if tree.is_regression else palette.NODE_FILL
    return palette.class_colour(majority)


def box_colour(tree: Tree, majority: int) -> QColor:
    """The fill of the bare box a node is drawn as when zoomed far out."""
    tinted = QColor(tint(tree, majority))
    tinted.setAlpha(150)
    return tinted


def level_of_detail(transform: QTransform) -> float:
    """How much a painter with ``transform`` enlarges: what Qt's graphics items are told as
    their level of detail (QStyleOptionGraphicsItem, a widgets class, computes it the same)."""
    if transform.type().value <= QTransform.TransformationType.TxTranslate.value:
        return 1.0
    return sqrt(
        transform.map(QLineF(0, 0, 1, 0)).length() * transform.map(QLineF(0, 0, 0, 1)).length()
    )


def paint_node(
    painter: QPainter,
    rect: QRectF,
    title: str,
    lines: tuple[str, ...],
    class_shares: list[float],
    tree: Tree,
    majority: int,
    style: FigureStyle,
    lod: float,
    *,
    selected: bool = False,
    highlighted: bool = False,
    dashed: bool = False,
    plot=None,
) -> None:
    """A node's box in ``rect``, with as much as ``lod`` leaves room for; ``plot`` the data of
    its plot when the style's labels draw one (see :func:`gui.drawing.node_plots.paint_plot`),
    drawn wherever the box is more than a bare box."""
    colours = palette.current()
    border = QPen(
        palette.SELECTED if selected else palette.NODE_BORDER,
        2.5 if selected else colours.border_px,
    )
    if dashed:
        border.setStyle(Qt.PenStyle.DashLine)
    painter.setPen(border)
    if lod < LOD_BOX:
        painter.setBrush(QBrush(box_colour(tree, majority)))
        painter.drawRect(rect)
        paint_short_headline(painter, rect, title, lod, style)
        return
    painter.setBrush(QBrush(palette.HIGHLIGHT if highlighted else palette.NODE_FILL))
    painter.drawRoundedRect(rect, 6, 6)
    detail = lod >= LOD_TEXT
    if detail:
        paint_words(painter, rect, title, lines, style)
    elif not style.labels.plots:  # a plot fills the box: it says more than its name would
        paint_short_headline(painter, rect, title, lod, style)
    if detail and style.labels.bar:
        paint_bar(
            painter,
            bar_rect(rect),
            class_shares,
            None if class_shares else (palette.REGRESSION if tree.is_regression else empty_bar()),
        )
    if style.labels.plots:  # a picture still reads where words are too small to
        paint_plot(painter, plot_rect(rect, style), plot, style.body_font if detail else None)


def paint_words(
    painter: QPainter, rect: QRectF, title: str, lines: tuple[str, ...], style: FigureStyle
) -> None:
    """The headline at the top of ``rect`` and the lines under it, centred."""
    title_h = style.title_metrics.height()
    top = rect.top() + PAD_Y
    painter.setPen(palette.TEXT)
    painter.setFont(style.title_font)
    painter.drawText(
        QRectF(rect.left(), top, rect.width(), title_h), Qt.AlignmentFlag.AlignCenter, title
    )
    if not lines:
        return
    body_h = style.body_metrics.height()
    painter.setFont(style.body_font)
    painter.setPen(palette.MUTED)
    for k, line in enumerate(lines):
        painter.drawText(
            QRectF(rect.left(), top + title_h + k * body_h, rect.width(), body_h),
            Qt.AlignmentFlag.AlignCenter,
            line,
        )


@cache
def _headline_font(px: int) -> tuple[QFont, QFontMetricsF]:
    font = QFont(SCREEN.title_font)
    font.setPixelSize(px)
    return font, QFontMetricsF(font)


def headline_font(lod: float, style: FigureStyle) -> tuple[QFont, QFontMetricsF]:
    """The font a zoomed-out headline is drawn in: :data:`MIN_TYPE_PX` on screen at ``lod``,
    or the headline's own size where that is bigger."""
    return _headline_font(max(style.title_px, ceil(MIN_TYPE_PX / max(lod, 1e-3))))


def headline_room(lod: float, style: FigureStyle) -> tuple[float, float]:
    """The smallest box (width, height in scene units) that says its headline at ``lod``."""
    _, metrics = headline_font(lod, style)
    return MIN_CHARS * metrics.averageCharWidth() + 4, metrics.height() + 2


def short_headline(
    title: str, rect: QRectF, lod: float, style: FigureStyle
) -> tuple[QFont, tuple[str, ...]] | None:
    """How a node zoomed out below ``LOD_TEXT`` says its headline in ``rect``: the font (no
    smaller on screen than :data:`MIN_TYPE_PX`, nor than the headline's own size) and the lines
    (the words stacked on as many lines as the box holds, the last cut short with an ellipsis).
    None where the box, on screen, is too small to hold :data:`MIN_CHARS` readable characters."""
    if lod <= 0 or not title:
        return None
    font, metrics = headline_font(lod, style)
    min_w, min_h = headline_room(lod, style)
    if rect.width() < min_w or rect.height() < min_h:
        return None
    room = rect.width() - 4
    rows = floor((rect.height() - 2) / metrics.height())
    lines = _stacked(title, metrics, room, rows)
    if len(lines) == 1 and len(lines[0]) < min(MIN_CHARS, len(title)):
        return None
    return font, lines


def _stacked(title: str, metrics: QFontMetricsF, room: float, rows: int) -> tuple[str, ...]:
    """``title``'s words on at most ``rows`` lines no wider than ``room``; what is left over
    goes on the last line, cut short with an ellipsis."""
    words, lines = title.split(), []
    while words and len(lines) < rows - 1:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(f"{line} {words[0]}") <= room:
            line += " " + words.pop(0)
        if metrics.horizontalAdvance(line) > room:  # one long word: cut it, keep the rest
            words.insert(0, line)
            break
        lines.append(line)
    if words:
        lines.append(metrics.elidedText(" ".join(words), Qt.TextElideMode.ElideRight, room))
    return tuple(line for line in lines if line)


def paint_short_headline(
    painter: QPainter, rect: QRectF, title: str, lod: float, style: FigureStyle
) -> None:
    """The headline as :func:`short_headline` fits it, centred in ``rect`` (nothing where it can't)."""
    fitted = short_headline(title, rect, lod, style)
    if fitted is None:
        return
    font, lines = fitted
    painter.setFont(font)
    painter.setPen(palette.TEXT)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "\n".join(lines))


def bar_rect(rect: QRectF) -> QRectF:
    """Where the class-distribution bar sits in a node's box."""
    return QRectF(
        rect.left() + PAD_X, rect.bottom() - PAD_Y - BAR_H, rect.width() - 2 * PAD_X, BAR_H
    )


def plot_rect(rect: QRectF, style: FigureStyle) -> QRectF:
    """Where a node's plot sits in its box: at the bottom, over the bar when there is one."""
    _, plot_h = plot_size(style.body_px)
    bottom = rect.bottom() - PAD_Y - (BAR_H + 4 if style.labels.bar else 0.0)
    return QRectF(rect.left() + PAD_X, bottom - plot_h, rect.width() - 2 * PAD_X, plot_h)


def paint_bar(
    painter: QPainter, bar: QRectF, class_shares: list[float], empty: QColor | None = None
) -> None:
    """Each class's share as a stretch of its colour; a bar of ``empty`` (or none) without shares."""
    painter.setPen(Qt.PenStyle.NoPen)
    if not class_shares:
        if empty is not None:
            painter.setBrush(empty)
            painter.drawRect(bar)
        return
    x = bar.left()
    for k, share in enumerate(class_shares):
        if share <= 0:
            continue
        w = bar.width() * share
        painter.setBrush(palette.class_colour(k))
        painter.drawRect(QRectF(x, bar.top(), w, bar.height()))
        x += w
