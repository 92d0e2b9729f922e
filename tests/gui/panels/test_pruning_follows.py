"""The Pruning tab follows the tree on screen (issue 30): after CART trains, pruned at the
cross-validated alpha, the slider and its marker stand at that alpha, not at 0."""

from engine.prune.cost_complexity import prune_to_step
from tests.gui.conftest import train_and_wait


def test_after_cart_trains_the_slider_stands_at_the_tree_on_screen(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value("cart")
    window.config.cv_folds.setValue(0)
    assert window.config.cv_alpha.value() == 10  # alpha by 10-fold CV, CART's default
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    panel, tree = window.pruning, window.controller.tree
    k = panel.slider.value()
    assert k > 0 and tree.n_leaves < panel.full.n_leaves  # pruned, and the slider says so
    assert prune_to_step(panel.full, panel.path, int(panel.steps[k])).n_leaves == tree.n_leaves
    assert panel.marker.value() == float(panel._x()[k])
    assert (
        f"{tree.n_leaves} leaves" in panel.info.text() and "cross-validation" in panel.info.text()
    )
    assert window.controller.tree is tree  # showing the slider's place put no other tree on screen


def test_a_set_alpha_is_where_the_slider_stands(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value("cart")
    window.config.cv_folds.setValue(0)
    window.config.cv_alpha.setValue(0)
    window.config.alpha.setValue(0.02)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    panel = window.pruning
    k = panel.slider.value()
    assert panel.alphas[k] <= 0.02 and (k + 1 == len(panel.alphas) or panel.alphas[k + 1] > 0.02)
    assert (
        prune_to_step(panel.full, panel.path, int(panel.steps[k])).n_leaves
        == window.controller.tree.n_leaves
    )
