"""A tree fitted to the view says its nodes' headlines wherever they can be read (issue 38):
stacked and cut short with an ellipsis at no less than 7 px on screen, bare boxes only below."""

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF

import gui.canvas.tree_scene as tree_scene
import gui.drawing.nodes as nodes
from engine.data.arff import read_arff
from engine.estimator import DecisionTree
from gui.canvas.tree_canvas import TreeCanvas
from gui.drawing.figure_style import SCREEN
from gui.drawing.nodes import LOD_BOX, LOD_TEXT, MIN_TYPE_PX, short_headline

GLASS = Path(__file__).parents[2] / "fixtures" / "weka" / "data" / "glass.arff"


def test_a_headline_is_stacked_then_cut_short_and_never_below_the_minimum_type():
    rect = QRectF(0, 0, 150, 52)  # a leaf's box
    font, lines = short_headline("build wind non-float", rect, 0.35, SCREEN)
    assert font.pixelSize() * 0.35 >= MIN_TYPE_PX  # 7 px on screen, whatever the zoom
    assert lines == ("build wind", "non-float")  # two lines fit: the words stacked, not cut
    _, one = short_headline("build wind non-float", QRectF(0, 0, 100, 26), 0.35, SCREEN)
    assert len(one) == 1 and one[0].endswith("…")  # one line: cut short with an ellipsis
    assert short_headline("Ba", rect, 0.35, SCREEN)[1] == ("Ba",)
    assert short_headline("build wind non-float", rect, 0.05, SCREEN) is None  # too far out
    font, _ = short_headline("Ba", rect, 0.9, SCREEN)
    assert font.pixelSize() == SCREEN.title_px  # never smaller than the headline's own size


@pytest.fixture(scope="module")
def glass_tree():
    tree = DecisionTree().fit(read_arff(GLASS)).tree_
    assert tree.n_nodes >= 55
    return tree


@pytest.fixture
def painted(monkeypatch):
    """The headlines painted zoomed out, as (title, lines, on-screen type px)."""
    seen = []

    def record(painter, rect, title, lod, style):
        fitted = short_headline(title, rect, lod, style)
        if fitted is not None:
            seen.append((title, fitted[1], fitted[0].pixelSize() * lod))

    monkeypatch.setattr(nodes, "paint_short_headline", record)
    monkeypatch.setattr(tree_scene, "paint_short_headline", record)
    return seen


def test_fit_tree_on_a_59_node_tree_at_1280x720_draws_every_headline(qtbot, painted, glass_tree):
    tree = glass_tree
    canvas = TreeCanvas()
    canvas.resize(916, 645)  # the canvas of a 1280x720 window with its docks
    qtbot.addWidget(canvas)
    canvas.show()
    canvas.set_tree(tree)
    canvas.fit_to_window()
    scale = canvas.scale_factor()
    assert LOD_BOX <= scale < LOD_TEXT  # the full labels do not fit: the one-line level
    canvas.viewport().grab()
    titles = {item.title for item in canvas.tree_scene().items_by_id.values()}
    assert {title for title, _, _ in painted} == titles
    assert all(px >= MIN_TYPE_PX for _, _, px in painted)
    # Whole, or cut short to no less than a few letters and an ellipsis.
    assert all(
        " ".join(lines) == title or (lines[-1].endswith("…") and len("".join(lines)) >= 3)
        for title, lines, _ in painted
    )


def test_far_out_boxes_say_their_headlines_too(qtbot, painted, glass_tree):
    tree = glass_tree
    canvas = TreeCanvas()
    canvas.resize(600, 400)
    qtbot.addWidget(canvas)
    canvas.show()
    canvas.set_tree(tree)
    canvas.fit_to_window()
    canvas._zoom_by(0.25 / canvas.scale_factor())  # below LOD_BOX: the boxes item draws
    assert canvas.tree_scene().low_detail
    canvas.viewport().grab()
    assert painted and all(px >= MIN_TYPE_PX for _, _, px in painted)
