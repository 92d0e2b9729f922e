"""The legend and the overview never cover a node: each takes a free corner or hides until one
is free; a huge tree's overview is a usable strip drawn as node density (issue 30, item 4)."""

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QMouseEvent

from engine.estimator import DecisionTree
from gui.canvas.overview import MIN_MARK, MIN_SIDE, density_image, picture_size
from gui.canvas.tree_canvas import TreeCanvas
from gui.drawing import palette


@pytest.fixture(scope="module")
def random_tree():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(800, 3)), columns=list("abc"))
    frame["y"] = np.where(rng.random(800) < 0.5, "p", "q")
    return DecisionTree(algorithm="cart", prune="none").fit(frame).tree_


@pytest.fixture
def view(qtbot, random_tree):
    canvas = TreeCanvas()
    canvas.resize(900, 600)
    qtbot.addWidget(canvas)
    canvas.show()
    canvas.set_tree(random_tree)
    return canvas


def node_rects(canvas):
    """Every node shown that is in view, as viewport rectangles."""
    port = canvas.viewport().rect()
    rects = [
        canvas.mapFromScene(item.sceneBoundingRect()).boundingRect()
        for item in canvas.tree_scene().items_by_id.values()
    ]
    return [r for r in rects if r.intersects(port)]


def assert_nothing_covered(canvas):
    nodes = node_rects(canvas)
    for name, rect in canvas.overlay_rects().items():
        assert not any(rect.intersects(n) for n in nodes), name


def corner_of(rect, port):
    return (rect.left() < 20 or rect.right() > port.width() - 20) and (
        rect.top() < 20 or rect.bottom() > port.height() - 20
    )


def test_overlays_leave_corners_with_nodes_and_hide_while_no_place_is_free(view):
    view.zoom_in()
    view.zoom_in()
    assert set(view.overlay_rects()) == {"legend", "overview"}
    assert_nothing_covered(view)
    view.reset_zoom()  # nodes at full size
    scene = view.tree_scene()
    port = view.viewport().rect()
    nodes = iter(list(scene.items_by_id)[::-1])

    def put(points):
        for point in points:
            where = view.mapToScene(point)
            scene.move_node(next(nodes), where.x(), where.y())

    w, h = port.width(), port.height()
    put(
        [QPoint(70, 45), QPoint(w - 70, 45), QPoint(70, h - 45), QPoint(w - 70, h - 45)]
    )  # each corner
    rects = view.overlay_rects()
    assert set(rects) == {"legend", "overview"}  # moved along the edges, not hidden
    assert not any(corner_of(r, port) for r in rects.values())
    assert_nothing_covered(view)
    put([QPoint(x, y) for x in range(70, w, 60) for y in (45, h - 45)])  # the top and bottom edges
    put([QPoint(x, y) for y in range(45, h, 40) for x in (70, w - 70)])  # the left and right edges
    assert view.overlay_rects() == {}  # no place is free: hidden rather than over a node
    scene.reset_layout()
    view.fit_to_window()
    assert "legend" in view.overlay_rects()  # room again: back
    assert_nothing_covered(view)


def test_panning_and_finding_never_put_an_overlay_on_a_node(view):
    view.zoom_in()
    view.zoom_in()
    bars = view.horizontalScrollBar(), view.verticalScrollBar()
    shown = set()
    for fx in np.linspace(0, 1, 7):
        for fy in np.linspace(0, 1, 4):
            for bar, f in zip(bars, (fx, fy), strict=True):
                bar.setValue(round(bar.minimum() + f * (bar.maximum() - bar.minimum())))
            assert_nothing_covered(view)
            shown |= set(view.overlay_rects())
    assert shown == {"legend", "overview"}  # they were not simply hidden throughout
    for _ in range(5):
        assert view.find_next() >= 0 if view.find("q") else True
        assert_nothing_covered(view)


def test_a_huge_wide_tree_has_a_usable_overview():
    # 60,000 nodes side by side: a tree a thousand times wider than tall.
    n = 60_000
    source = QRectF(0, 0, n * 50.0, 3000.0)
    width, height = picture_size(source)
    assert height >= MIN_SIDE and width >= 200  # a strip, not a hairline
    x = np.arange(n) * 50.0
    y = (np.arange(n) % 30) * 100.0
    boxes = np.column_stack([x, y, x + 40, y + 30])
    classes = [(palette.class_colour(k), np.flatnonzero(np.arange(n) % 2 == k)) for k in (0, 1)]
    image = density_image(boxes, classes, source, round(width), round(height))
    alpha = np.array(
        [
            [image.pixelColor(i, j).alpha() for i in range(image.width())]
            for j in range(image.height())
        ]
    )
    assert image.width() == round(width) and image.height() == round(height)
    assert (alpha > 0).sum(
        axis=1
    ).max() > 0.9 * image.width()  # every level's band across the width


def test_the_overview_of_a_big_tree_shows_density_and_a_grabbable_view_mark(view, qtbot):
    view.zoom_in()
    view.zoom_in()
    overview = view.overview
    assert overview.isVisible()
    assert overview.height() >= MIN_SIDE
    assert overview.density  # hundreds of leaves across 208 pixels: too small for boxes
    mark = overview.view_mark()
    assert mark.width() >= MIN_MARK and mark.height() >= MIN_MARK
    assert overview.picture_rect().contains(mark.center())
    before = view.visible_scene_rect().center()
    target = overview.picture_rect().bottomLeft() + QPointF(4, -4)
    qtbot.mousePress(overview, Qt.MouseButton.LeftButton, pos=mark.center().toPoint())
    overview.mouseMoveEvent(
        QMouseEvent(
            QEvent.Type.MouseMove,
            target,
            overview.mapToGlobal(target),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
    )  # dragged: the view follows
    assert view.visible_scene_rect().center().x() < before.x()


def test_a_fitted_view_stays_fitted_when_the_canvas_changes_size(view, qtbot):
    """A tree shown before the window was laid out (a restore at start) fills the canvas it gets."""
    view.resize(300, 200)
    small = view.scale_factor()
    view.resize(900, 600)
    assert view.scale_factor() > small
    assert view.visible_scene_rect().contains(view.tree_scene().content_rect())
    view.zoom_in()  # the person took the view over: a resize leaves it alone
    zoomed = view.scale_factor()
    view.resize(600, 400)
    assert view.scale_factor() == zoomed
