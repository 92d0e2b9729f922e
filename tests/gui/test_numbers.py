"""Every number on screen says what it is, what it belongs to, and whether it is out of date."""

from dataclasses import replace

import pytest

from engine.evaluate.evaluation import cross_validate, evaluate_tree
from gui.controller import CV_ALPHA, EDITED, PRUNED
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``); each test opens
    the table and sets the options it trains with."""
    return shared_window


def _trained(qtbot, window, **options):
    for name, value in options.items():
        widget = getattr(window.config, name)
        widget.set_value(value) if hasattr(widget, "set_value") else widget.setValue(value)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.figures is not None)
    return window.controller


def test_figures_are_labelled_with_how_they_were_measured(qtbot, window):
    c = _trained(qtbot, window)
    text = window.results.text()
    for label in (
        "Training set",
        "10-fold cross-validation",
        "0-R: predict yes",
        "1-R: on outlook",
        "± is the standard deviation of the accuracy over the 10 folds",
        "each fold tests 1 or 2 rows",
    ):
        assert label in text, label
    cv = c.figures.cv
    assert cv.tree.accuracy == pytest.approx(6 / 14)  # 42.86%, as J48 -x 10 would not say: 14 rows
    assert "42.86% ± 47.14" in text and "64.29%" in text
    caption = window.results.confusion.caption.text()
    assert (
        "10-fold cross-validation" in caption
        and "rows: actual" in caption
        and "columns: predicted" in caption
    )


def test_results_are_marked_out_of_date_until_retrained(qtbot, window):
    c = _trained(qtbot, window)
    assert c.stale == () and "Out of date" not in window.results.text()
    window.model.setData(window.model.index(0, 0), "overcast")
    assert c.stale == ("the table was edited after this tree was made",)
    assert "Out of date" in window.results.text() and not window.results.summary.isEnabled()
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: c.stale == ())
    window.config.max_depth.setValue(1)
    assert c.stale == ("the options changed after training",)
    window.config.no_depth_limit.setChecked(True)  # back as trained
    assert c.stale == ()
    window.config.seed.setValue(7)
    assert "the cross-validation folds or seed changed after training" in c.stale


def test_a_pruned_tree_gets_its_own_figures_and_its_cross_validation(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    c = _trained(qtbot, window, algorithm="cart", prune="none", cv_folds=10)
    trained, settings, data = c.tree, c.settings, c.data
    window.pruning.slider.setValue(window.pruning.slider.maximum() - 2)
    tree, alpha = c.tree, float(window.pruning.alphas[window.pruning.slider.value()])
    assert c.origin == PRUNED and tree.n_leaves < trained.n_leaves
    assert c.figures.training.tree.accuracy == evaluate_tree(tree, data).accuracy
    assert (
        c.figures.cv is None and window.results.cv_button.isVisible() is window.results.isVisible()
    )
    assert f"pruned at alpha = {alpha:.4g}" in window.results.text()
    job = c.cross_validate_tree()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    qtbot.waitUntil(lambda: c.figures.cv is not None)
    expected = cross_validate(
        data, replace(settings, prune="cost-complexity", alpha=alpha, cv_alpha=None), 10, 1
    )
    assert c.figures.cv.tree.accuracy == expected.accuracy
    assert c.figures.cv.refit == "options"
    assert "10-fold cross-validation" in window.results.text()
    window.pruning.slider.setValue(
        0
    )  # back to the full tree, and to the pruned one: its CV is kept
    window.pruning.slider.setValue(window.pruning.slider.maximum() - 2)
    assert c.figures.cv is not None and c.figures.cv.tree.accuracy == expected.accuracy


def test_the_cv_choice_of_alpha_is_said_on_screen(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    c = _trained(qtbot, window, algorithm="cart", prune="none", cv_folds=0)
    job = c.cross_validate_alpha()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    qtbot.waitUntil(lambda: c.origin == CV_ALPHA)
    assert "pruned at the cross-validated alpha" in window.results.text()


def test_a_hand_edit_gets_training_figures_and_a_structure_cross_validation(qtbot, window):
    c = _trained(qtbot, window, algorithm="id3", cv_folds=0)
    window.modelling.make_leaf(1)
    assert c.origin == EDITED and c.recipe is None
    assert c.figures.training.tree.accuracy == pytest.approx(
        12 / 14
    )  # sunny a leaf "no": 2 of 5 wrong
    job = c.cross_validate_tree()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    qtbot.waitUntil(lambda: c.figures.cv is not None)
    assert c.figures.cv.refit == "structure"
    assert "kept this tree's splits and re-counted its leaves" in window.results.text()
    window.doc.undo_stack.undo()  # the trained tree again, with the training's figures
    assert c.figures is c.result.figures


def test_a_nineteen_class_confusion_matrix_is_all_there(qtbot, window):
    from tests.gui.test_fit import SOYBEAN

    assert window.files.open_path(str(SOYBEAN), confirmed=True)
    window.config.cv_folds.setValue(3)
    train_and_wait(qtbot, window, timeout=120000)
    qtbot.waitUntil(lambda: window.controller.figures is not None)
    table = window.results.confusion.table
    assert table.rowCount() == table.columnCount() == 19
    total = sum(float(table.item(i, j).text()) for i in range(19) for j in range(19))
    assert total == 683
    assert "rows: actual" in window.results.confusion.caption.text()
