"""The inspector's node card fits its dock at 1024x700 (issue 30): C4.5's pruning decision
at the weather root is shown in a compact form (short heads, a legend, wrapped option
names), so the inspector needs no sideways scroll bar, and every estimate is still shown."""

import re

from engine.prune.record import LEAF
from tests.gui.conftest import train_and_wait


def test_at_1024x700_the_root_card_of_c45_weather_fits_the_inspector(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window._size_docks()
    window.config.algorithm.set_value("c45")
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)  # the weather data
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.docks["Inspector"].raise_()
    window.controller.select_node(0)
    qtbot.wait(50)
    card, area = window.inspector.current, window.inspector.scroll
    html = card.text()
    assert "Pruning" in html and "est.: estimated errors" in html
    assert card.minimumWidth() <= area.viewport().width()
    assert not area.horizontalScrollBar().isVisible()
    # Every pessimistic estimate of the decision is in the card's text.
    tree = window.controller.tree
    text = re.sub(r"<[^>]+>", " ", html)
    for decision in tree.pruning.decisions_at(tree, 0):
        for option in decision.options:
            assert f"{option.total:.3f}" in text
            for share in option.parts:
                assert f"{share.estimate:.3f}" in text
                if option.kind == LEAF or share.leaves == 1:
                    assert f"{share.rate:.3f}" in text


def test_the_compact_form_shows_the_same_numbers_as_the_walk_through(qtbot):
    from engine import DecisionTree
    from engine.data.samples import load_sample
    from gui.panels.pruning_text import node_pruning_html

    tree = DecisionTree(algorithm="c45").fit(load_sample("weather"), record=True).tree_

    def numbers(html):
        return re.findall(r"\d+\.\d{3}", re.sub(r"<table.*?>|</table>.*", "", html, flags=re.S))

    full, compact = node_pruning_html(tree, 0), node_pruning_html(tree, 0, compact=True)
    assert "estimated errors" in full and "est." not in full
    assert numbers(compact) == numbers(full) and len(numbers(full)) >= 10
    assert "<th>est.</th>" in compact and "p: the upper confidence bound" in compact
