"""The whole tree as PNG, SVG or PDF, painted as the canvas paints it, with no widgets: the command
line needs only a QGuiApplication."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator

from engine.atomic import write_atomic
from engine.errors import ArborError, printable
from engine.tree import Tree
from gui.drawing import palette
from gui.drawing.figure_style import FAMILIES, SCREEN, SLIDE, FigureStyle
from gui.drawing.picture import Picture, natural_size, picture, picture_of, render, smallest_text_pt
from gui.drawing.plan import stretched

FORMATS = (".png", ".svg", ".pdf")
#: A slide: 16:9, 10 inches wide, in points; a PNG slide is 1920 pixels wide.
SLIDE_PAGE = QSizeF(720.0, 405.0)
SLIDE_PNG_WIDTH = 1920
#: A slide spreads a tree's nodes apart at most this many times as far, to fill its page.
MAX_STRETCH = 3.0
#: Below this size on a 10-inch slide, text is hard to read from the back of a room.
SLIDE_MIN_PT = 10.0
#: Qt's raster painter works in 16-bit device coordinates; and a quarter of a billion pixels
#: is a gigabyte of memory before the PNG is even compressed.
MAX_SIDE, MAX_PIXELS = 32_767, 250_000_000


def _raster(pic: Picture, size: QSize, transparent: bool) -> QImage:
    if max(size.width(), size.height()) > MAX_SIDE or size.width() * size.height() > MAX_PIXELS:
        raise ArborError(
            f"the whole tree is {size.width():,} x {size.height():,} pixels, more than "
            f"a picture can hold (at most {MAX_SIDE:,} a side and {MAX_PIXELS // 10**6} million in "
            "all); export it as SVG or PDF, or at a smaller scale"
        )
    image = QImage(size, QImage.Format.Format_ARGB32)
    if image.isNull():
        raise ArborError(
            f"not enough memory for a {size.width():,} x {size.height():,} picture; "
            "export it as SVG or PDF, or at a smaller scale"
        )
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    render(
        pic,
        painter,
        QRectF(0, 0, size.width(), size.height()),
        None if transparent else QColor(palette.current().paper),
    )
    painter.end()
    return image


def _page(pic: Picture, slide: bool) -> QSizeF:
    """The page in points (SVG and PDF) or pixels at scale 1: the picture's own size, or a slide."""
    if slide:
        return QSizeF(SLIDE_PAGE)
    return QSizeF(*natural_size(pic))


def _picture(
    tree: Tree, orientation: str, style: FigureStyle, slide: bool, ghosts: bool, plots=None
) -> Picture:
    """The picture to draw; for a slide, in whichever orientation draws it larger on the page.

    A slide's page is fixed (16:9) and its type scales with the tree: iris top-down is tall
    and used half the page's width, its type shrinking with it, where drawn left to right it
    fills the page (issue 30). The orientation asked for wins a tie.
    """
    if not slide:
        return picture(tree, orientation, style, ghosts, plots)
    style = SLIDE.with_labels(style.labels)
    other = "left-to-right" if orientation == "top-down" else "top-down"
    return filling(
        max((picture(tree, o, style, ghosts, plots) for o in (orientation, other)), key=page_scale)
    )


def filling(pic: Picture) -> Picture:
    """``pic`` spread out to the slide page's shape: nodes move apart along the side that
    would leave the page empty (type keeps its size), at most :data:`MAX_STRETCH` times."""
    width, height = natural_size(pic)
    page = SLIDE_PAGE.width() / SLIDE_PAGE.height()
    spans = (
        pic.plan.centres.max(axis=0) - pic.plan.centres.min(axis=0)
        if pic.plan.n_shown
        else (0.0, 0.0)
    )
    if width / height < page and spans[0] > 0:
        across, down = min(1 + (page * height - width) / spans[0], MAX_STRETCH), 1.0
    elif width / height > page and spans[1] > 0:
        across, down = 1.0, min(1 + (width / page - height) / spans[1], MAX_STRETCH)
    else:
        return pic
    return picture_of(stretched(pic.plan, across, down), pic.plots)


def page_scale(pic: Picture) -> float:
    """How large ``pic`` is drawn on a slide page: points per layout unit."""
    width, height = natural_size(pic)
    return min(SLIDE_PAGE.width() / width, SLIDE_PAGE.height() / height)


def tree_image(
    tree: Tree,
    scale: float = 2.0,
    transparent: bool = False,
    orientation: str = "top-down",
    style: FigureStyle = SCREEN,
    slide: bool = False,
    ghosts: bool = False,
    plots: dict | None = None,
) -> QImage:
    """The whole tree as an image in memory (for the clipboard)."""
    pic = _picture(tree, orientation, style, slide, ghosts, plots)
    return _raster(pic, _pixels(pic, scale, slide), transparent)


def _pixels(pic: Picture, scale: float, slide: bool) -> QSize:
    if slide:
        return QSize(
            SLIDE_PNG_WIDTH, round(SLIDE_PNG_WIDTH * SLIDE_PAGE.height() / SLIDE_PAGE.width())
        )
    page = _page(pic, False)
    return QSize(int(page.width() * scale), int(page.height() * scale))


def save_image(
    tree: Tree,
    path: str | Path,
    scale: float = 2.0,
    transparent: bool = False,
    orientation: str = "top-down",
    style: FigureStyle = SCREEN,
    slide: bool = False,
    ghosts: bool = False,
    plots: dict | None = None,
) -> str | None:
    """Draw the whole ``tree`` to ``path``; the extension picks PNG, SVG or PDF.

    ``style`` says what nodes show and ``ghosts`` whether what pruning cut is drawn (the
    canvas's options); ``plots`` each node's plot data by node id
    (:func:`engine.export.node_data.nodes_data`), for a style whose labels draw plots; ``slide`` draws on a 16:9 page 10 inches wide (PNG: 1920 pixels) with
    type for a slide, top-down or left to right as fills the page better. Returns a note when the text comes out too small to read on such a
    slide, else None.
    """
    draw, note = image_writer(
        tree, path, scale, transparent, orientation, style, slide, ghosts, plots
    )
    write_atomic(path, draw)
    return note


def image_writer(
    tree: Tree,
    path: str | Path,
    scale: float = 2.0,
    transparent: bool = False,
    orientation: str = "top-down",
    style: FigureStyle = SCREEN,
    slide: bool = False,
    ghosts: bool = False,
    plots: dict | None = None,
):
    """What :func:`save_image` does, short of writing: the function that draws the image
    into a file it is given, and the note :func:`save_image` returns. The format and the
    picture are checked and laid out here, so a caller writing several files can refuse
    them all before any is written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ArborError(
            f"cannot draw an image as {suffix or '(no extension)'}; use .png, .svg or .pdf"
        )
    pic = _picture(tree, orientation, style, slide, ghosts, plots)
    page = _page(pic, slide)
    background = None if transparent else QColor(palette.current().paper)

    def draw(target_path: Path) -> None:
        # Every format is drawn into memory and written by Python: Qt's own file writers
        # report a full disk badly (libpng prints "Write Error" to stderr; QPdfWriter fails
        # silently and leaves a truncated file), while a Python write raises one OSError that
        # the atomic writer turns into one line.
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if suffix == ".png":
            image = _raster(pic, _pixels(pic, scale, slide), transparent)
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
            render(pic, painter, QRectF(0, 0, page.width(), page.height()), background)
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
            render(pic, painter, QRectF(0, 0, page.width(), page.height()), background)
            painter.end()
            del writer  # the document is complete in the buffer once its writer is gone
            data = bytes(buffer.data())
        _write_bytes(target_path, data)

    if slide:
        smallest = smallest_text_pt(pic, SLIDE_PAGE.width())
        if smallest < SLIDE_MIN_PT:
            return draw, (
                f"on a 10-inch slide the smallest text is {smallest:.1f} pt (under "
                f"{SLIDE_MIN_PT:g} pt): collapse subtrees, or show fewer labels"
            )
    return draw, None


def _write_bytes(target_path: Path, data: bytes) -> None:
    """The one place a picture reaches the disk (a test stands a full disk in for it)."""
    target_path.write_bytes(data)


def with_font_fallbacks(svg: bytes) -> bytes:
    """Qt's SVG names one font family; add generic fallbacks so any viewer finds a sans font."""
    families = ", ".join(f"'{f}'" if " " in f else f for f in FAMILIES)
    return re.sub(rb'font-family="[^"]*"', f'font-family="{families}"'.encode(), svg)
