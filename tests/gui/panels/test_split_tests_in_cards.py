"""The candidate splits' significance tests (issue 33) in the inspector's pinned cards and in
its copied HTML, as in its on-screen table: the weather root's outlook by hand is chi² 3.547
on 2 degrees of freedom, p = exp(-3.547 / 2)."""

from __future__ import annotations

import math
from dataclasses import replace

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.fitting import fit_tree
from engine.settings import resolve
from gui.panels.inspector import Inspector, candidate_rows, table_html

WEATHER = "resources/datasets/weather.arff"


def _weather():
    data = encode(read_table(WEATHER), "classification")
    settings = resolve(algorithm="c45")
    return fit_tree(data, settings), data, settings


def _row(html: str, name: str) -> str:
    start = html.index(f"<td>{name}")
    return html[start : html.index("</tr>", start)]


def test_the_copied_table_has_the_tests_columns_escaped():
    tree, data, settings = _weather()
    rows = candidate_rows(tree, 0, data, settings)
    html = table_html(rows)
    for header in ("chi²", "<th>G</th>", "<th>df</th>", "<th>p</th>", "p<br>adj.", "p(G)<br>adj."):
        assert header in html
    assert "p adjusted (Bonferroni" in html  # what "adj." means, as the header's tooltip says
    outlook = _row(html, "outlook")
    p = math.exp(-3.546667 / 2)
    assert "<td align=right>3.547</td>" in outlook and "<td align=right>2</td>" in outlook
    assert f"<td align=right>{p:.3g}</td>" in outlook
    named = [replace(rows[0], name="<b>x</b> & y"), *rows[1:]]  # a user's name: text, not markup
    assert "&lt;b&gt;x&lt;/b&gt; &amp; y" in table_html(named) and "<b>x" not in table_html(named)


def test_a_pinned_card_shows_the_tests(qtbot):
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.set_context(*_weather())
    inspector.pin_node(0)
    card = inspector._pins.itemAt(0).widget()
    text = card.text() if hasattr(card, "text") else card.findChild(object).text()
    assert "chi²" in text and "3.547" in _row(text, "outlook")
