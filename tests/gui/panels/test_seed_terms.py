"""Issue 37 in the window: the Growth queue ranked by ΔI, and pseudocounts, each named by
seed 004's term."""

from tests.gui.conftest import train_and_wait


def test_growth_queue_ranks_by_delta_i_and_says_so(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.set_params({"algorithm": "cart", "growth": "best", "priority": "gain"})
    assert window.config.priority.isEnabled()
    growth = window.growth
    growth.start_over()
    for _ in range(3):
        assert growth.step()
    assert "ΔI" in growth.queue_title.text() and "seed 004" in growth.queue_title.text()
    assert growth.queue.horizontalHeaderItem(4).text() == "priority (ΔI)"
    rows = [[growth.queue.item(r, c).text() for c in range(5)] for r in range(3)]
    # ΔI itself is the key: the 6-row leaf (gain 0.2222) before the 48-row one (0.0408)
    assert [(r[2], r[3], r[4]) for r in rows] == [
        ("6", "0.2222", "0.2222"),
        ("48", "0.0408", "0.0408"),
        ("46", "0.0135", "0.0135"),
    ]
    window.config.set_params({"growth": "depth"})
    assert not window.config.priority.isEnabled()


def test_pseudocount_options_reach_the_tree_and_the_what_if_form(qtbot, window):
    config = window.config
    assert "seed 004" in config.pseudocount_note.text()
    config.set_params({"algorithm": "id3", "laplace": True})
    assert config.params()["laplace"] is True and config.params()["m_estimate"] is None
    train_and_wait(qtbot, window)
    assert window.controller.tree.pseudocounts == (1.0, 1.0)
    config.set_params({"laplace": False, "m_estimate": 2.0})
    assert config.params()["m_estimate"] == 2.0
    config.set_params({"laplace": True})
    assert "not both" in config.message.text()
    config.set_params({"laplace": False, "m_estimate": None})
    assert config.m_estimate.text() == "off" and config.message.text() == ""


def test_the_inspector_names_a_regression_leafs_point_estimate():
    import numpy as np
    import pandas as pd

    from engine.estimator import DecisionTree
    from gui.panels.inspector import summary_html

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": np.arange(20.0), "y": rng.exponential(2.0, 20)})
    for criterion, words in (("absolute_error", "median"), ("squared_error", "mean")):
        model = DecisionTree("cart", task="regression", criterion=criterion, max_depth=1)
        model.fit(frame)
        text = summary_html(model.tree_, 0, model.settings_)
        assert f"{words} " in text and "(the point estimate)" in text
    assert f"median {np.median(frame.y):.4g}"[:10] in summary_html(
        DecisionTree("cart", task="regression", criterion="absolute_error").fit(frame).tree_,
        0,
        DecisionTree("cart", task="regression", criterion="absolute_error").settings(),
    )
