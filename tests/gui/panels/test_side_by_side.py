"""The algorithms side by side: the view opens with a column per algorithm at one zoom, its
jump selects the first divergence in both trees, and pointing at a node lights the
corresponding path in the others."""

import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.side_by_side import compare
from gui.canvas.hovering import NodeHover
from gui.panels.side_by_side import SideBySideView


@pytest.fixture
def lenses_view(qtbot):
    view = SideBySideView()
    qtbot.addWidget(view)
    view.resize(1200, 600)
    view.show()
    view.show_result(compare(encode(load_sample("contact-lenses")), {}))
    return view


def test_columns_share_one_zoom_from_the_root(lenses_view):
    canvases = [c.canvas for c in lenses_view.columns]
    assert [c.algorithm for c in lenses_view.columns] == ["id3", "c45", "cart", "optimal"]
    assert [c.tree().n_nodes for c in canvases][:3] == [15, 10, 13]  # as grown
    assert (
        lenses_view.columns[3]
        .title.text()
        .endswith("; depth 3, the optimal tree's default (no max depth chosen)")
    )
    scales = {round(c.scale_factor(), 6) for c in canvases}
    assert len(scales) == 1
    canvases[0].zoom_in()
    assert {round(c.scale_factor(), 6) for c in canvases} == {round(canvases[0].scale_factor(), 6)}


def test_jump_selects_the_first_divergence_in_both_trees(lenses_view):
    lenses_view.pair.setCurrentIndex(1)  # ID3 and CART
    lenses_view.jump()
    id3, c45, cart = (c.canvas for c in lenses_view.columns[:3])
    assert id3.selected_node() == 3 and cart.selected_node() == 3  # normal tears, no astigmatism
    assert lenses_view.highlighted(2) == [0, 2, 3]
    assert "first part at tear-prod-rate = normal AND astigmatism = no" in (
        lenses_view.words.toPlainText()
    )
    assert "age" in lenses_view.words.toPlainText()


def test_pointing_at_a_node_lights_the_corresponding_path(lenses_view):
    id3 = lenses_view.columns[0].canvas
    id3.select_node(4)  # tear normal, astigmatism no, age young
    assert lenses_view.highlighted(0) == [0, 2, 3, 4]
    assert lenses_view.highlighted(2) == [0, 2, 3]  # CART parts at node 3: as far as it agrees
    hover = lenses_view.columns[2].canvas.findChild(NodeHover)
    hover.node_hovered.emit(5)  # CART: normal, no astigmatism, age presbyopic
    assert lenses_view.highlighted(0) == [0, 2, 3]  # ID3 splits age three ways there
    hover.node_hovered.emit(-1)  # off the nodes: the selection's path again
    assert lenses_view.highlighted(0) == [0, 2, 3, 4]
    lenses_view.stage.setCurrentIndex(1)  # pruned trees
    assert [c.canvas.tree().n_nodes for c in lenses_view.columns][:3] == [15, 7, 5]


def test_an_algorithm_that_cannot_grow_says_why(qtbot):
    view = SideBySideView()
    qtbot.addWidget(view)
    view.show_result(compare(encode(load_sample("iris")), {"max_depth": 2}))
    assert "ID3: not grown" in view.note.text() and "numeric" in view.note.text()
    assert view.columns[0].isHidden() and not view.columns[1].isHidden()
    assert view.pair.count() == 3 and view.pair.currentText() == "C4.5 and CART"
    view.jump()
    assert view.columns[1].canvas.selected_node() == 0
