"""The inspector's splits table shows each candidate's chi-squared, G and adjusted p-values,
with the correction rule in the header's tooltip (issue 33, item 5)."""

from __future__ import annotations

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.learn.explain import attribute_table
from engine.settings import resolve
from gui.panels.splits_table import SplitsTable


def test_tests_columns(qtbot):
    data = encode(read_table("resources/datasets/weather.arff"), "classification")
    rows = attribute_table(data, resolve(algorithm="c45"))
    table = SplitsTable((("info_gain", "info\ngain", "information gain"),), "#FFE08A", "#888888")
    qtbot.addWidget(table)
    table.show_rows(rows, lambda r, f: f"{getattr(r, f):.3f}", "")
    t = table.table
    heads = [t.horizontalHeaderItem(k).text() for k in range(t.columnCount())]
    assert heads[:4] == ["info\ngain", "chi²", "G", "df"]
    names = [t.verticalHeaderItem(i).text() for i in range(t.rowCount())]
    outlook = names.index("outlook")
    cells = [t.item(outlook, k).text() for k in range(t.columnCount())]
    assert cells[:4] == ["0.247", "3.547", "4.789", "2"]
    assert cells[5] == "0.17"  # one branch per category: no multiplier, exp(-3.547 / 2)
    assert "Bonferroni" in t.horizontalHeaderItem(heads.index("p\nadj.")).toolTip()
