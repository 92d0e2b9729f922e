"""At 1024x700 every combo box of the Algorithm panel shows its text whole: "Cost-complexity",
not "Cost-complexity (C", and "Normal (J48)", not "Normal approximat" (issue 30, item 5);
a shortened item keeps its full label in its tooltip."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

from engine.settings import OPTIONS
from gui.panels.algorithm import SHORT_LABELS, Choice


def _usable_width(box: QComboBox) -> int:
    """The width the combo box draws its current text in (its frame, arrow and margins off)."""
    option = QStyleOptionComboBox()
    box.initStyleOption(option)
    return (
        box.style()
        .subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, box
        )
        .width()
    )


def test_at_1024x700_every_algorithm_combo_shows_every_item_whole(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window._size_docks()
    window.docks["Algorithm"].raise_()
    qtbot.wait(20)
    boxes = window.config.findChildren(QComboBox)
    assert len(boxes) == 10, boxes
    for box in boxes:
        metrics = box.fontMetrics()
        for i in range(box.count()):  # every item, as each can be the current one
            box.setCurrentIndex(i)
            text = box.currentText()
            assert metrics.horizontalAdvance(text) <= _usable_width(box), (text, _usable_width(box))


def test_a_shortened_item_keeps_its_full_label_in_its_tooltip(qtbot):
    labels = {}
    for option in OPTIONS:
        if option.kind != "choice":
            continue
        box = Choice(option.name)
        qtbot.addWidget(box)
        for i, choice in enumerate(option.choices):
            labels[choice.label] = box.itemText(i)
            assert box.itemData(i) == choice.value
            tip = box.itemData(i, Qt.ItemDataRole.ToolTipRole) or ""
            if choice.label in SHORT_LABELS:
                assert tip.startswith(choice.label), tip
    assert labels["Cost-complexity (CART)"] == "Cost-complexity"
    assert labels["Normal approximation (J48)"] == "Normal (J48)"
    assert set(SHORT_LABELS) <= set(labels)  # no entry outlives its label


def test_at_1024x700_the_right_docks_tabs_are_not_elided(qtbot, window):
    from PySide6.QtWidgets import QTabBar

    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window._size_docks()

    def tabs_whole():  # a tab narrower than it asks for elides its title
        bars = [
            b
            for b in window.findChildren(QTabBar)
            if b.isVisible()
            and {"Inspector", "Pruning"} <= {b.tabText(i) for i in range(b.count())}
        ]
        return bars and all(
            bar.tabRect(i).width() >= bar.tabSizeHint(i).width()
            for bar in bars
            for i in range(bar.count())
        )

    qtbot.waitUntil(lambda: window.canvas.width() >= 400 and tabs_whole(), timeout=3000)
