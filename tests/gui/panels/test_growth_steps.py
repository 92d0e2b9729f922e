"""The Growth tab (issue 30): a node keeps its number as the tree grows, a log entry selects
and centres its node, the view frames the growing tree, and stepped C4.5 ends with its
collapse as a step of its own, so it ends where Train does."""

from PySide6.QtCore import QRectF

from tests.gui.conftest import train_and_wait


def _shown(qtbot, window):
    window.resize(1000, 640)
    window.show()
    qtbot.waitExposed(window)
    window.docks["Growth"].raise_()
    qtbot.wait(50)  # the docks take their sizes once the window is laid out


def _rule(tree, node_id):
    from engine.export.labels import condition

    return " AND ".join(condition(tree, a, b) for a, b in tree.path_to(node_id)[:-1])


def _all_in_view(canvas) -> bool:
    """No node even partly off the canvas."""
    seen = canvas.visible_scene_rect()
    return all(
        seen.contains(QRectF(item.sceneBoundingRect()))
        for item in canvas.tree_scene().items_by_id.values()
    )


def test_weather_node_numbers_stay_and_the_view_frames_the_tree(qtbot, window):
    _shown(qtbot, window)
    window.config.set_params({"algorithm": "id3"})
    growth, canvas = window.growth, window.canvas
    growth.start_over()
    rainy = []
    while growth.step():
        tree = window.controller.tree
        rainy.append(next(n.id for n in tree.nodes() if _rule(tree, n.id) == "outlook = rainy"))
        qtbot.waitUntil(lambda: _all_in_view(canvas), timeout=3000)  # framing may follow a resize
    assert rainy == [3, 3, 3]
    assert [growth.log.item(k, 0).text() for k in range(3)] == ["0", "1", "3"]
    assert "fully grown after 3 splits" in growth.status.text()


def test_a_log_entry_selects_and_centres_its_node(qtbot, window):
    _shown(qtbot, window)
    window.files.open_sample("iris", confirmed=True)
    window.config.set_params({"algorithm": "cart"})
    growth, canvas = window.growth, window.canvas
    growth.start_over()
    for _ in range(5):
        assert growth.step()
    canvas.zoom_in()
    canvas.zoom_in()
    canvas.zoom_in()
    last = int(growth.log.item(4, 0).text())
    canvas.centerOn(
        canvas.tree_scene().items_by_id[0]
    )  # the root in the middle, the last split away
    growth.log.selectRow(4)
    assert window.controller.selected == last and canvas.selected_node() == last
    item = canvas.tree_scene().items_by_id[last]
    centre = canvas.mapFromScene(item.sceneBoundingRect().center())
    middle = canvas.viewport().rect().center()
    assert abs(centre.x() - middle.x()) <= 2 and abs(centre.y() - middle.y()) <= 2


def test_stepped_c45_ends_with_its_collapse_where_training_ends(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.set_params({"algorithm": "c45"})
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    trained = window.controller.tree.n_leaves
    growth = window.growth
    growth.start_over()
    while growth.step():
        pass
    splits = growth.count
    assert growth.log.rowCount() == splits + 1
    assert growth.log.item(splits, 1).text() == "collapse: become leaves"
    tree = window.controller.tree
    assert tree.n_leaves == trained == 5
    assert "6 splits, then C4.5's collapse" in growth.status.text()
    growth.log.selectRow(splits)  # the collapse's entry selects the node made a leaf
    made_leaf = int(growth.log.item(splits, 0).text().split(",")[0])
    assert window.controller.selected == made_leaf and tree.node(made_leaf).is_leaf
    tip = growth.log.item(splits, 1).toolTip()
    assert "do not lower the training error" in tip and "7 leaves become 5" in tip
    # Ids kept through the collapse leave gaps: the last node is numbered past the count, and
    # the canvas (Find) still reaches it.
    last = max(n.id for n in tree.nodes())
    assert last >= tree.n_nodes and window.canvas.reveal(last)
