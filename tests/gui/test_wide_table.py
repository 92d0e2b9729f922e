"""A wide table in the window (issue 31, item 12): it opens, trains to its one informative
column, and the What-if form holds a row per attribute (built aside: rows added to a form on
screen cost time in proportion to those already there, and 5,000 froze the window)."""

import numpy as np
import pandas as pd

from tests.gui.conftest import train_and_wait


def test_a_wide_table_opens_trains_and_fills_the_what_if_form(qtbot, window, tmp_path):
    pair = np.arange(6) // 2  # rows 2k, 2k+1 differ only in key and class
    frame = pd.DataFrame(
        {
            f"a{j}": [f"{(p + j) % 5}.5" if j % 2 else "xyz"[(p + j) % 3] for p in pair]
            for j in range(999)
        }
    )
    frame.insert(500, "key", ["p", "q"] * 3)
    frame["class"] = ["yes", "no"] * 3
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    assert window.files.open_path(str(path), confirmed=True)
    assert not window.dialogs.errors and window.doc.n_columns == 1001
    window.controller.set_options({"algorithm": "cart"}, 0, 1)
    train_and_wait(qtbot, window)
    tree = window.controller.tree
    assert tree.n_leaves == 2 and tree.schema.attributes[tree.root.split.attribute].name == "key"
    qtbot.waitUntil(lambda: len(window.what_if.inputs) == 1000, timeout=60000)
    assert window.what_if.form.rowCount() == 1000
