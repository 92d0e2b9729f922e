"""Greedy against optimal (issue 35): one command trains CART's greedy tree and the optimal
tree of the same depth, then compares them with seed 000's sentence made concrete."""


def test_greedy_against_optimal_compares_the_pair(qtbot, window):
    c = window.controller
    c.set_options({"algorithm": "id3", "max_depth": 3}, 3, 1)
    with qtbot.waitSignal(c.pair_trained, timeout=60000) as pair:
        c.greedy_against_optimal()
    greedy, optimal = (c.runs[n] for n in pair.args)
    assert (greedy.settings.algorithm, optimal.settings.algorithm) == ("cart", "optimal")
    assert greedy.settings.max_depth == optimal.settings.max_depth == 3
    view = window.compare_window
    qtbot.waitUntil(lambda: view is not None and view.isVisible(), timeout=10000)
    rows = {view.table.verticalHeaderItem(r).text(): r for r in range(view.table.rowCount())}
    errors = [float(view.table.item(rows["Training errors"], k).text()) for k in (0, 1)]
    # Weather (14 rows): CART's greedy depth-3 tree misses 2 rows, the optimal one none.
    assert errors == [2, 0]
    assert view.note.isVisibleTo(view)
    assert view.note.text().startswith("Seed 000: finding the optimal tree is NP-hard")
    assert "the greedy CART tree makes 2 training errors, the optimal tree 0" in view.note.text()
    assert "Accuracy" in rows and "Leaves" in rows
