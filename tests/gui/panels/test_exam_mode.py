"""Exam mode (issue 35): Step asks for the split before showing it; a wrong pick is marked
wrong and then shown, a right one scores; the node asked about keeps its numbers hidden in
the inspector until then. File > Worksheet writes the printable sheet."""

from gui.panels.cards import Card


def test_a_wrong_pick_is_marked_then_shown_and_a_right_pick_scores(qtbot, window):
    window.config.set_params({"algorithm": "id3"})
    window.act["exam_mode"].trigger()
    growth, exam = window.growth, window.growth.exam
    assert growth.exam_on and not exam.isHidden() and not growth.play_button.isEnabled()
    assert growth.step()  # the root alone, asked about
    assert growth.count == 0 and exam.question.node_id == 0
    assert window.controller.selected == 0
    assert "Exam mode: this node's candidate splits show" in window.inspector.text()
    assert "0.247" not in window.inspector.text()
    cards = set(window.inspector.findChildren(Card))
    window.inspector.pin_node(0)  # nor does pinning the node show them
    (pinned,) = set(window.inspector.findChildren(Card)) - cards
    assert "Exam mode" in pinned.text() and "0.247" not in pinned.text()
    assert growth.step() and growth.count == 0  # Step waits for the answer
    assert exam.hint().startswith("Compare the entropies of the children")
    exam.pick("windy")
    verdict = exam.check()
    assert not verdict.right and "Arbor splits on outlook (0.247)" in verdict.words
    assert growth.count == 1 and exam.score.text() == "Score 0 / 1 · 1 hint"
    tree = window.controller.tree
    assert tree.schema.attributes[tree.root.split.attribute].name == "outlook"
    assert "0.247" in window.inspector.text()  # shown now, with the inspector's numbers
    assert growth.step()  # the next node: sunny, which ID3 splits on humidity
    question = exam.question
    assert (question.node_id, question.table[question.attribute].name) == (1, "humidity")
    exam.pick("humidity")
    assert exam.check().right
    assert exam.score.text() == "Score 1 / 2 · 1 hint" and growth.count == 2
    window.act["exam_mode"].trigger()  # off: Play comes back
    assert growth.play_button.isEnabled() and exam.isHidden()


def test_file_worksheet_writes_the_pdf(qtbot, window, tmp_path):
    window.exports.ask_worksheet = lambda: (3, 8, "cart")
    window.dialogs.replies["save_path"].append(str(tmp_path / "sheet"))
    window.act["worksheet"].trigger()
    written = tmp_path / "sheet.pdf"
    assert written.read_bytes().startswith(b"%PDF")
    assert window.dialogs.errors == []


def test_the_worksheet_question_offers_the_window_algorithm_and_a_seed(qtbot):
    from gui.session.worksheet_options import WorksheetOptions

    dialog = WorksheetOptions(None, seed=4, algorithm="cart")
    qtbot.addWidget(dialog)
    assert dialog.values() == (4, 10, "cart")
    dialog.rows.setValue(99)  # the spin box keeps to what a worksheet allows
    assert dialog.values()[1] == 14


def _actions(menu):
    return {a.text(): a for a in menu.actions() if a.text()}


def test_the_asked_node_menu_hides_its_ranked_splits_until_the_pick_is_checked(qtbot, window):
    window.config.set_params({"algorithm": "id3"})
    window.act["exam_mode"].trigger()
    growth, exam, modelling = window.growth, window.growth.exam, window.modelling
    assert growth.step() and exam.question.node_id == 0
    tree = window.controller.tree
    menu = modelling.menu(0)  # the right-click on the asked leaf
    split_menu = next(a.menu() for a in menu.actions() if a.menu() is not None)
    assert not split_menu.isEnabled() and "check your pick first" in split_menu.title()
    assert split_menu.actions() == []  # no ranked candidates, no gains: nothing to read off
    shown = _actions(menu)
    assert not shown["Grow subtree here"].isEnabled() and not shown["Grow one level"].isEnabled()
    modelling.split(0, 0)  # a hand split by another way in (the Regions panel's) waits too
    modelling.grow(0, 1)
    assert window.controller.tree is tree and window.dialogs.errors == []
    assert "Node 0: exam mode asks how it splits" in window.status_label.text()
    exam.pick("outlook")
    assert exam.check().right
    assert modelling.sealed == -1
    # Checked: the root's children are leaves again to split by hand, with their ranking.
    leaf = next(n.id for n in window.controller.tree.nodes() if n.is_leaf)
    split_menu = next(a.menu() for a in modelling.menu(leaf).actions() if a.menu() is not None)
    assert split_menu.isEnabled() and "information gain" in split_menu.actions()[0].text()
