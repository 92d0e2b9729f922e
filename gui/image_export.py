"""The whole tree as PNG, SVG or PDF, drawn by the canvas's own scene (works headless)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from engine.atomic import write_atomic
from engine.errors import ArborError
from engine.tree import Tree
from gui import palette
from gui.tree_scene import TreeScene

FORMATS = (".png", ".svg", ".pdf")
MARGIN = 24.0


def _app() -> QApplication:
    return QApplication.instance() or QApplication([])


def _legend(painter: QPainter, tree: Tree, origin_x: float, origin_y: float) -> None:
    if tree.is_regression:
        return
    painter.setFont(QFont("DejaVu Sans", 9))
    painter.setPen(palette.TEXT)
    painter.drawText(QRectF(origin_x, origin_y, 300, 16), Qt.AlignmentFlag.AlignLeft, tree.schema.target)
    for k, name in enumerate(tree.classes):
        y = origin_y + 18 * (k + 1)
        painter.fillRect(QRectF(origin_x, y + 3, 10, 10), palette.class_colour(k))
        painter.drawText(QRectF(origin_x + 16, y, 300, 16), Qt.AlignmentFlag.AlignLeft, name)


def legend_width(tree: Tree) -> float:
    """Room the legend takes on the left (none for regression)."""
    if tree.is_regression:
        return 0.0
    metrics = QFontMetricsF(QFont("DejaVu Sans", 9))
    return 36 + max(metrics.horizontalAdvance(t) for t in (*tree.classes, tree.schema.target))


def render(scene: TreeScene, painter: QPainter, target: QRectF, background: QColor | None) -> None:
    source = scene.itemsBoundingRect()
    if background is not None:
        painter.fillRect(target, background)
    inner = target.adjusted(MARGIN + legend_width(scene.tree), MARGIN, -MARGIN, -MARGIN)
    scene.render(painter, inner, source, Qt.AspectRatioMode.KeepAspectRatio)
    _legend(painter, scene.tree, target.left() + 10, target.top() + 8)


def _prepared(tree: Tree, orientation: str) -> tuple[TreeScene, float, float]:
    """A scene of the whole tree for export (vector-friendly: no pixmap caching) and its size."""
    _app()
    scene = TreeScene()
    scene.build(tree, orientation=orientation)
    scene.set_caching(False)
    source = scene.itemsBoundingRect()
    width = source.width() + 2 * MARGIN + legend_width(tree)
    height = max(source.height(), 20.0 * (len(tree.classes or ()) + 1)) + 2 * MARGIN
    return scene, width, height


#: Qt's raster painter works in 16-bit device coordinates; and a quarter of a billion pixels
#: is a gigabyte of memory before the PNG is even compressed.
MAX_SIDE, MAX_PIXELS = 32_767, 250_000_000


def _raster(scene: TreeScene, width: float, height: float, scale: float, transparent: bool) -> QImage:
    size = QSize(int(width * scale), int(height * scale))
    if max(size.width(), size.height()) > MAX_SIDE or size.width() * size.height() > MAX_PIXELS:
        raise ArborError(
            f"the whole tree is {size.width():,} x {size.height():,} pixels at {scale:g}x, more than "
            f"a picture can hold (at most {MAX_SIDE:,} a side and {MAX_PIXELS // 10**6} million in "
            "all); export it as SVG or PDF, or at a smaller scale")
    image = QImage(size, QImage.Format.Format_ARGB32)
    if image.isNull():
        raise ArborError(f"not enough memory for a {size.width():,} x {size.height():,} picture; "
                         "export it as SVG or PDF, or at a smaller scale")
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    painter.scale(scale, scale)
    render(scene, painter, QRectF(0, 0, width, height), None if transparent else QColor("white"))
    painter.end()
    return image


def tree_image(tree: Tree, scale: float = 2.0, transparent: bool = False,
               orientation: str = "top-down") -> QImage:
    """The whole tree as an image in memory (for the clipboard)."""
    return _raster(*_prepared(tree, orientation), scale, transparent)


def save_image(tree: Tree, path: str | Path, scale: float = 2.0, transparent: bool = False,
               orientation: str = "top-down") -> None:
    """Draw the whole ``tree`` to ``path``; the extension picks PNG, SVG or PDF."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ArborError(f"cannot draw an image as {suffix or '(no extension)'}; use .png, .svg or .pdf")
    scene, width, height = _prepared(tree, orientation)
    background = None if transparent else QColor("white")

    def draw(target_path: Path) -> None:
        if suffix == ".png":
            image = _raster(scene, width, height, scale, transparent)
            if not image.save(str(target_path), "PNG"):
                raise ArborError(f"could not write {path}")
        elif suffix == ".svg":
            generator = QSvgGenerator()
            generator.setFileName(str(target_path))
            generator.setSize(QSize(int(width), int(height)))
            generator.setViewBox(QRectF(0, 0, width, height))
            generator.setTitle(f"Decision tree for {tree.schema.target}")
            painter = QPainter(generator)
            render(scene, painter, QRectF(0, 0, width, height), background)
            painter.end()
        else:
            writer = QPdfWriter(str(target_path))
            writer.setPageSize(QPageSize(QSizeF(width, height), QPageSize.Unit.Point))
            writer.setPageMargins(QMarginsF(0, 0, 0, 0))
            writer.setResolution(72)
            painter = QPainter(writer)
            render(scene, painter, QRectF(0, 0, width, height), background)
            painter.end()

    write_atomic(path, draw)
