"""The whole tree as PNG, SVG or PDF, drawn by the canvas's own scene (works headless)."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QPointF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPageSize, QPainter, QPdfWriter, QPen
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from engine.atomic import write_atomic
from engine.errors import ArborError, printable
from engine.tree import Tree
from gui.canvas.tree_scene import TreeScene
from gui.drawing import palette
from gui.drawing.figure_style import FAMILIES, SCREEN, SLIDE, FigureStyle

FORMATS = (".png", ".svg", ".pdf")
MARGIN = 24.0
#: A slide: 16:9, 10 inches wide, in points; a PNG slide is 1920 pixels wide.
SLIDE_PAGE = QSizeF(720.0, 405.0)
SLIDE_PNG_WIDTH = 1920
#: Below this size on a 10-inch slide, text is hard to read from the back of a room.
SLIDE_MIN_PT = 10.0
SWATCH = 12.0  # the legend's squares


def _app() -> QApplication:
    return QApplication.instance() or QApplication([])


def legend_entries(scene: TreeScene) -> list[tuple[str, object]]:
    """What the legend explains, in order: each class's colour (when bars show them), then
    every mark the picture uses (the dashed border of a node pruning cut or raised)."""
    tree = scene.tree
    entries: list[tuple[str, object]] = []
    if not tree.is_regression and scene.style.labels.bar:
        entries += [(name, palette.class_colour(k)) for k, name in enumerate(tree.classes)]
    if any(item.is_dashed() for item in scene.items_by_id.values()):
        entries.append(("pruned here", "dashed"))
    if scene.ghosts_item is not None:
        entries.append(("cut by pruning", "ghost"))
    return entries


def _legend_title(scene: TreeScene) -> str:
    tree = scene.tree
    return tree.schema.target if not tree.is_regression and scene.style.labels.bar else ""


def legend_size(scene: TreeScene) -> QSizeF:
    """Room the legend takes on the left (none when there is nothing to explain)."""
    entries = legend_entries(scene)
    if not entries:
        return QSizeF(0, 0)
    metrics = QFontMetricsF(scene.style.legend_font)
    texts = [name for name, _ in entries] + [_legend_title(scene)]
    line = max(metrics.height(), SWATCH) + 6
    return QSizeF(SWATCH + 26 + max(metrics.horizontalAdvance(t) for t in texts),
                  line * (len(entries) + 1))


def _legend(painter: QPainter, scene: TreeScene, x: float, y: float) -> None:
    entries = legend_entries(scene)
    if not entries:
        return
    font = scene.style.legend_font
    painter.setFont(font)
    # The device's own metrics: a baseline placed from them sits where the device draws it.
    metrics = QFontMetricsF(font, painter.device())
    line = max(QFontMetricsF(font).height(), SWATCH) + 6
    centre_shift = (metrics.ascent() - metrics.descent()) / 2  # baseline below a line's middle

    def text_at(tx: float, middle: float, text: str) -> None:
        painter.setPen(palette.TEXT)
        painter.drawText(QPointF(tx, middle + centre_shift), text)

    text_at(x, y + line / 2, _legend_title(scene))
    for k, (name, mark) in enumerate(entries):
        middle = y + line * (k + 1) + line / 2
        square = QRectF(x, middle - SWATCH / 2, SWATCH, SWATCH)
        if mark in ("dashed", "ghost"):
            painter.setBrush(QColor("#F3F4F6") if mark == "ghost" else Qt.BrushStyle.NoBrush)
            painter.setOpacity(0.45 if mark == "ghost" else 1.0)
            painter.setPen(QPen(palette.NODE_BORDER, 1.2, Qt.PenStyle.DashLine))
            painter.drawRect(square)
            painter.setOpacity(1.0)
        else:
            painter.fillRect(square, mark)
        text_at(x + SWATCH + 8, middle, name)


def render(scene: TreeScene, painter: QPainter, target: QRectF, background: QColor | None) -> None:
    """The legend at the top left and the tree beside it, scaled to fit ``target``."""
    source = scene.itemsBoundingRect()
    if background is not None:
        painter.fillRect(target, background)
    natural_w, natural_h = _natural(scene)
    k = min(target.width() / natural_w, target.height() / natural_h)
    painter.save()
    painter.translate(target.left() + (target.width() - natural_w * k) / 2,
                      target.top() + (target.height() - natural_h * k) / 2)
    painter.scale(k, k)
    inner = QRectF(MARGIN + legend_size(scene).width(), MARGIN, source.width(), source.height())
    scene.render(painter, inner, source, Qt.AspectRatioMode.KeepAspectRatio)
    _legend(painter, scene, 10, 8)
    painter.restore()


def _natural(scene: TreeScene) -> tuple[float, float]:
    """The picture's own size in pixels (points): the tree, the legend and the margins."""
    source = scene.itemsBoundingRect()
    legend = legend_size(scene)
    return (source.width() + 2 * MARGIN + legend.width(),
            max(source.height(), legend.height()) + 2 * MARGIN)


def _prepared(tree: Tree, orientation: str, style: FigureStyle, ghosts: bool = False) -> TreeScene:
    """A scene of the whole tree for export (vector-friendly: no pixmap caching)."""
    _app()
    scene = TreeScene()
    scene.build(tree, orientation=orientation, style=style, ghosts=ghosts)
    scene.set_caching(False)
    return scene


def smallest_text_pt(scene: TreeScene, page_width_pt: float) -> float:
    """The smallest type in the picture, in points, when it is ``page_width_pt`` wide."""
    natural_w, _ = _natural(scene)
    style = scene.style
    return min(style.body_px, style.edge_px, style.legend_px) * page_width_pt / natural_w


#: Qt's raster painter works in 16-bit device coordinates; and a quarter of a billion pixels
#: is a gigabyte of memory before the PNG is even compressed.
MAX_SIDE, MAX_PIXELS = 32_767, 250_000_000


def _raster(scene: TreeScene, size: QSize, transparent: bool) -> QImage:
    if max(size.width(), size.height()) > MAX_SIDE or size.width() * size.height() > MAX_PIXELS:
        raise ArborError(
            f"the whole tree is {size.width():,} x {size.height():,} pixels, more than "
            f"a picture can hold (at most {MAX_SIDE:,} a side and {MAX_PIXELS // 10**6} million in "
            "all); export it as SVG or PDF, or at a smaller scale")
    image = QImage(size, QImage.Format.Format_ARGB32)
    if image.isNull():
        raise ArborError(f"not enough memory for a {size.width():,} x {size.height():,} picture; "
                         "export it as SVG or PDF, or at a smaller scale")
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    render(scene, painter, QRectF(0, 0, size.width(), size.height()),
           None if transparent else QColor("white"))
    painter.end()
    return image


def _page(scene: TreeScene, slide: bool) -> QSizeF:
    """The page in points (SVG and PDF) or pixels at scale 1: the picture's own size, or a slide."""
    if slide:
        return QSizeF(SLIDE_PAGE)
    return QSizeF(*_natural(scene))


def tree_image(tree: Tree, scale: float = 2.0, transparent: bool = False,
               orientation: str = "top-down", style: FigureStyle = SCREEN,
               slide: bool = False, ghosts: bool = False) -> QImage:
    """The whole tree as an image in memory (for the clipboard)."""
    scene = _prepared(tree, orientation, SLIDE.with_labels(style.labels) if slide else style, ghosts)
    return _raster(scene, _pixels(scene, scale, slide), transparent)


def _pixels(scene: TreeScene, scale: float, slide: bool) -> QSize:
    if slide:
        return QSize(SLIDE_PNG_WIDTH, round(SLIDE_PNG_WIDTH * SLIDE_PAGE.height() / SLIDE_PAGE.width()))
    page = _page(scene, False)
    return QSize(int(page.width() * scale), int(page.height() * scale))


def save_image(tree: Tree, path: str | Path, scale: float = 2.0, transparent: bool = False,
               orientation: str = "top-down", style: FigureStyle = SCREEN,
               slide: bool = False, ghosts: bool = False) -> str | None:
    """Draw the whole ``tree`` to ``path``; the extension picks PNG, SVG or PDF.

    ``style`` says what nodes show and ``ghosts`` whether what pruning cut is drawn (the
    canvas's options); ``slide`` draws on a 16:9 page 10 inches wide (PNG: 1920 pixels) with
    type for a slide. Returns a note when the text comes out too small to read on such a
    slide, else None.
    """
    draw, note = image_writer(tree, path, scale, transparent, orientation, style, slide, ghosts)
    write_atomic(path, draw)
    return note


def image_writer(tree: Tree, path: str | Path, scale: float = 2.0, transparent: bool = False,
                 orientation: str = "top-down", style: FigureStyle = SCREEN,
                 slide: bool = False, ghosts: bool = False):
    """What :func:`save_image` does, short of writing: the function that draws the image
    into a file it is given, and the note :func:`save_image` returns. The format and the
    scene are checked and laid out here, so a caller writing several files can refuse
    them all before any is written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ArborError(f"cannot draw an image as {suffix or '(no extension)'}; use .png, .svg or .pdf")
    scene = _prepared(tree, orientation, SLIDE.with_labels(style.labels) if slide else style, ghosts)
    page = _page(scene, slide)
    background = None if transparent else QColor("white")

    def draw(target_path: Path) -> None:
        # Every format is drawn into memory and written by Python: Qt's own file writers
        # report a full disk badly (libpng prints "Write Error" to stderr; QPdfWriter fails
        # silently and leaves a truncated file), while a Python write raises one OSError that
        # the atomic writer turns into one line.
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if suffix == ".png":
            image = _raster(scene, _pixels(scene, scale, slide), transparent)
            if not image.save(buffer, "PNG"):
                raise ArborError(f"could not draw {printable(str(path))} as a PNG picture")
            data = bytes(buffer.data())
        elif suffix == ".svg":
            generator = QSvgGenerator()
            generator.setOutputDevice(buffer)
            generator.setResolution(72)  # a unit is a point, so the page is as wide as a PDF's
            generator.setSize(QSize(round(page.width()), round(page.height())))
            generator.setViewBox(QRectF(0, 0, page.width(), page.height()))
            generator.setTitle(f"Decision tree for {tree.schema.target}")
            painter = QPainter(generator)
            render(scene, painter, QRectF(0, 0, page.width(), page.height()), background)
            painter.end()
            data = with_font_fallbacks(bytes(buffer.data()))
        else:
            writer = QPdfWriter(buffer)
            writer.setPageSize(QPageSize(page, QPageSize.Unit.Point))
            writer.setPageMargins(QMarginsF(0, 0, 0, 0))
            writer.setResolution(72)
            painter = QPainter()
            if not painter.begin(writer):
                raise ArborError(f"could not draw {printable(str(path))} as a PDF document")
            render(scene, painter, QRectF(0, 0, page.width(), page.height()), background)
            painter.end()
            del writer  # the document is complete in the buffer once its writer is gone
            data = bytes(buffer.data())
        _write_bytes(target_path, data)

    if slide:
        smallest = smallest_text_pt(scene, SLIDE_PAGE.width())
        if smallest < SLIDE_MIN_PT:
            return draw, (f"on a 10-inch slide the smallest text is {smallest:.1f} pt (under "
                          f"{SLIDE_MIN_PT:g} pt): collapse subtrees, or show fewer labels")
    return draw, None


def _write_bytes(target_path: Path, data: bytes) -> None:
    """The one place a picture reaches the disk (a test stands a full disk in for it)."""
    target_path.write_bytes(data)


def with_font_fallbacks(svg: bytes) -> bytes:
    """Qt's SVG names one font family; add generic fallbacks so any viewer finds a sans font."""
    families = ", ".join(f"'{f}'" if " " in f else f for f in FAMILIES)
    return re.sub(rb'font-family="[^"]*"', f'font-family="{families}"'.encode(), svg)
