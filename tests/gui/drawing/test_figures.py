"""Figures for slides: node label options, a legend aligned in every format with every mark it
uses, type sized in pixels (the same in PNG, SVG and PDF), SVG font fallbacks, a slide preset."""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.export.node_labels import NodeLabels, node_lines, weka_counts
from engine.growth import grow
from engine.settings import resolve
from engine.tree import Tree
from gui.drawing import image, picture
from gui.drawing.figure_style import SCREEN, SLIDE

SVG = "{http://www.w3.org/2000/svg}"


def _toys_tree(toys):
    data = encode(toys.with_kinds(Players="ignored"))
    return Tree(grow(data, resolve(algorithm="id3")), data.schema)


def test_node_lines_weka_counts_percentages(toys):
    tree = _toys_tree(toys)
    root, red, _, blue = tree.root, *tree.root.children
    assert weka_counts(root) == "(16.0/1.0)" and weka_counts(red) == "(6.0)"
    everything = NodeLabels(n=True, weka=True, counts=True, percent=True)
    assert node_lines(tree, root, everything) == [
        "n = 16",
        "(16.0/1.0)",
        "yes 15 (94%) · no 1 (6%)",
    ]
    assert node_lines(tree, root, NodeLabels(n=False, percent=True)) == ["yes 94% · no 6%"]
    assert node_lines(tree, blue, NodeLabels(n=False, counts=True)) == ["no 1"]
    assert node_lines(tree, root, NodeLabels(n=False), hidden=3) == ["+3 hidden"]
    assert node_lines(tree, root, NodeLabels(), hidden=3) == ["n = 16   +3 hidden"]
    assert NodeLabels.parse("weka, bar") == NodeLabels(n=False, weka=True, bar=True)
    assert NodeLabels.parse("") == NodeLabels(n=False, bar=False)
    assert NodeLabels.parse(NodeLabels().names()) == NodeLabels()


def test_many_classes_wrap_and_say_how_many_more():
    table = load_sample("iris")
    tree = DecisionTree(algorithm="cart", max_depth=1).fit(table).tree_
    lines = node_lines(tree, tree.root, NodeLabels(n=False, counts=True))
    assert lines == ["Iris-setosa 50 · Iris-versicolor 50 · Iris-virginica 50"]
    from engine.export import node_labels

    old = node_labels.PER_LINE, node_labels.MAX_LINES
    node_labels.PER_LINE, node_labels.MAX_LINES = 1, 2
    try:
        lines = node_lines(tree, tree.root, NodeLabels(n=False, counts=True))
    finally:
        node_labels.PER_LINE, node_labels.MAX_LINES = old
    assert lines == ["Iris-setosa 50", "Iris-versicolor 50 · +1 more"]


def _svg_elements(path):
    """(tag, attributes, text, (dx, dy)) for every rect and text, with their groups' translation."""
    out = []

    def walk(element, dx, dy):
        transform = element.get("transform", "")
        match = re.match(r"matrix\(1,0,0,1,([-\d.e]+),([-\d.e]+)\)", transform)
        if match:
            dx, dy = dx + float(match[1]), dy + float(match[2])
        if element.tag in (SVG + "rect", SVG + "text"):
            out.append(
                (element.tag[len(SVG) :], element.attrib, (element.text or "").strip(), dx, dy)
            )
        for child in element:
            walk(child, dx, dy)

    walk(ET.parse(path).getroot(), 0.0, 0.0)
    return out


def test_svg_legend_text_sits_on_its_square_and_fonts_have_fallbacks(tmp_path, qapp):
    tree = DecisionTree(algorithm="c45").fit(load_sample("iris")).tree_
    path = tmp_path / "tree.svg"
    image.save_image(tree, path)
    elements = _svg_elements(path)
    texts = {
        text: (float(a["x"]) + dx, float(a["y"]) + dy, float(a["font-size"]))
        for tag, a, text, dx, dy in elements
        if tag == "text"
    }
    squares = [
        (float(a["x"]) + dx, float(a["y"]) + dy, float(a["width"]), float(a["height"]))
        for tag, a, _, dx, dy in elements
        if tag == "rect" and float(a["width"]) == float(a["height"]) == picture.SWATCH
    ]
    assert len(squares) == 3  # one per class
    for name, (x, y, w, h) in zip(tree.classes, sorted(squares, key=lambda s: s[1]), strict=True):
        tx, baseline, size = texts[name]
        assert tx > x + w  # beside its square
        assert y <= baseline <= y + h  # the baseline inside the square's height ...
        middle = baseline - 0.36 * size  # ... and the letters' middle at the square's middle
        assert abs(middle - (y + h / 2)) < 1.5
    # Type in pixels: the SVG says the sizes the canvas measures boxes with.
    sizes = {float(a["font-size"]) for tag, a, *_ in elements if tag == "text"}
    assert sizes == {SCREEN.title_px, SCREEN.body_px}  # edges as large as the counts
    svg = path.read_text()
    families = set(re.findall(r'font-family="([^"]*)"', svg))
    assert families == {"'DejaVu Sans', Verdana, Arial, Helvetica, sans-serif"}


def test_legend_shows_the_dashed_pruned_mark_only_when_used(tmp_path, qapp):
    pruned = DecisionTree(algorithm="c45").fit(load_sample("toys")).tree_  # the root pruned
    grown = DecisionTree(algorithm="c45", prune="none").fit(load_sample("toys")).tree_
    for tree, expected in ((pruned, True), (grown, False)):
        path = tmp_path / "t.svg"
        image.save_image(tree, path)
        assert ("pruned here" in path.read_text()) is expected
    # No bar: the class colours appear nowhere, so the legend leaves them out too.
    image.save_image(grown, path, style=SCREEN.with_labels(NodeLabels(weka=True, bar=False)))
    text = path.read_text()
    assert ">(16.0/1.0)<" in text and ">(6.0)<" in text and ">yes<" in text
    assert not any(
        float(a["width"]) == picture.SWATCH for tag, a, *_ in _svg_elements(path) if tag == "rect"
    )


def test_slide_preset_pages(tmp_path, qapp, weather):
    tree = DecisionTree(algorithm="id3").fit(weather).tree_
    assert image.save_image(tree, tmp_path / "s.png", slide=True) is None
    png = QImage(str(tmp_path / "s.png"))
    assert (png.width(), png.height()) == (1920, 1080)
    image.save_image(tree, tmp_path / "s.svg", slide=True)
    root = ET.parse(tmp_path / "s.svg").getroot()
    assert root.get("viewBox") == "0 0 720 405"
    sizes = {
        float(a["font-size"]) for tag, a, *_ in _svg_elements(tmp_path / "s.svg") if tag == "text"
    }
    assert min(sizes) == SLIDE.body_px
    image.save_image(tree, tmp_path / "s.pdf", slide=True)
    pdf = (tmp_path / "s.pdf").read_bytes()
    assert re.search(rb"/MediaBox \[0 0 720(\.0+)? 405(\.0+)?\]", pdf)
    # The weather tree's smallest type, 18 px on a picture this wide, is readable at 10 inches.
    whole = picture.picture(tree, "top-down", SLIDE)
    assert picture.smallest_text_pt(whole, 720) >= image.SLIDE_MIN_PT


def test_slide_preset_says_when_a_tree_is_too_big_for_a_slide(tmp_path, qapp):
    table = load_sample("iris")
    tree = DecisionTree(algorithm="cart").fit(table).tree_
    note = image.save_image(tree, tmp_path / "s.svg", slide=True)
    whole = picture.picture(tree, "top-down", SLIDE)
    smallest = picture.smallest_text_pt(whole, 720)
    if smallest >= image.SLIDE_MIN_PT:
        pytest.skip("this tree fits a slide")
    assert note == (
        f"on a 10-inch slide the smallest text is {smallest:.1f} pt (under 10 pt): "
        "collapse subtrees, or show fewer labels"
    )


@pytest.mark.parametrize("suffix", [".png", ".pdf", ".svg"])
def test_a_full_disk_is_one_line_and_leaves_nothing(
    tmp_path, qapp, weather, monkeypatch, capfd, suffix
):
    """Every format is drawn into memory and written by Python: a full disk is one OSError,
    said once (no libpng 'Write Error' on stderr, no truncated PDF left behind)."""
    import errno

    from engine.errors import ArborError

    tree = DecisionTree(algorithm="id3").fit(weather).tree_

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(image, "_write_bytes", full)
    target = tmp_path / f"tree{suffix}"
    with pytest.raises(ArborError) as raised:
        image.save_image(tree, target)
    message = str(raised.value)
    assert "no space left on device" in message.lower() and "\n" not in message
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary is left
    err = capfd.readouterr().err
    assert "libpng" not in err and "Write Error" not in err


def test_pictures_drawn_in_memory_are_whole_files(tmp_path, qapp, weather):
    tree = DecisionTree(algorithm="id3").fit(weather).tree_
    image.save_image(tree, tmp_path / "t.png")
    image.save_image(tree, tmp_path / "t.pdf")
    png, pdf = (tmp_path / "t.png").read_bytes(), (tmp_path / "t.pdf").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and b"IEND" in png[-12:]
    assert not QImage(str(tmp_path / "t.png")).isNull()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.pdf", "t.png"]


def test_the_command_line_draws_without_the_windows_widgets(tmp_path):
    # A fresh interpreter: this one has the tests' QApplication, so QtWidgets is loaded already.
    code = (
        "import sys; from cli.main import main; status = main(sys.argv[1:]); "
        "sys.exit(status or ('PySide6.QtWidgets' in sys.modules and 'QtWidgets was imported'))"
    )
    target = tmp_path / "tree.png"
    run = subprocess.run(
        [sys.executable, "-c", code, "train", "--sample", "weather", "--image", str(target)],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert run.returncode == 0, run.stderr
    assert not QImage(str(target)).isNull()
