"""Words for splits, branches and leaves, shared by every text-like exporter and the views.

Names and values come from data files, so they may hold anything. :func:`shown` prints one
as it is when it cannot be misread in a rule (``outlook = sunny``), else as a JSON string
(``"a = b"``, ``"two\\nlines"``), so every export reads back unambiguously.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from engine.predict import class_codes, node_output
from engine.tree import MULTIWAY, SUBSET, THRESHOLD, Node, Tree


def number(value: float) -> str:
    """A number as people write it: no trailing zeros, at most 6 significant decimals."""
    if value is None or math.isnan(value):  # math, not numpy: called for every node of a big tree
        return "?"
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# Characters that delimit something in one export or another (quotes, escapes, sets, the
# ": " of J48's text, Markdown's table bars and code spans), and words that are operators.
_DELIMITERS = re.compile(r"""["'\\{},|`:]""")
_OPERATOR_WORDS = frozenset({"AND", "THEN", "IF", "OTHERWISE", "in"})
_OPERATOR = re.compile(r"[<>=!]+")


def _plain(text: str) -> bool:
    if not text or text != text.strip() or "  " in text or not text.isprintable():
        return False
    if _DELIMITERS.search(text):
        return False
    return not any(w in _OPERATOR_WORDS or _OPERATOR.fullmatch(w) for w in text.split(" "))


def _escape(char: str) -> str:
    if char in '"\\':
        return "\\" + char
    if char.isprintable() or char == " ":
        return char
    special = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if special:
        return special
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells characters beyond the BMP as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def shown(text: str) -> str:
    """A name or value as exports print it: as it is when plain, else a JSON string literal.

    >>> shown("sunny"), shown("over cast"), shown(">60"), shown("a = b"), shown('say "hi"\\n')
    ('sunny', 'over cast', '>60', '"a = b"', '"say \\\\"hi\\\\"\\\\n"')
    """
    return _shown(str(text))


@lru_cache(maxsize=4096)
def _shown(text: str) -> str:
    # Kept: a big tree's boxes show the same few attribute and class names tens of thousands
    # of times, and the check for plain text is a regular expression or two each.
    return text if _plain(text) else '"' + "".join(map(_escape, text)) + '"'


def candidate_split(row, at_most: str = "<=") -> str:
    """The split an attribute row of the explain table scored: its threshold, its two
    groups, one branch per value, or nothing where the attribute cannot split."""
    if row.threshold is not None:
        return f"{at_most} {number(row.threshold)}"
    if row.groups is not None:
        return " | ".join("{" + ", ".join(g) + "}" for g in row.groups)
    return "" if row.reason is not None else "per value"


def surrogate_condition(tree: Tree, node: Node, surrogate) -> str:
    """Where a surrogate of ``node``'s split sends a row, in the split's words:
    'age < 30.5 goes as spend <= 12', 'region in {town} goes as spend <= 12'."""
    attr = tree.schema.attributes[surrogate.attribute]
    if surrogate.threshold is not None:
        branch, test = surrogate.below, f"< {number(surrogate.threshold)}"
    else:
        branch = 0 if surrogate.groups[0] else 1
        group = (shown(attr.categories[c]) for c in surrogate.groups[branch])
        test = "in {" + ", ".join(group) + "}"
    primary = f"{attribute_name(tree, node)} {branch_condition(tree, node, branch)}"
    return f"{shown(attr.name)} {test} goes as {primary}"


def attribute_name(tree: Tree, node: Node) -> str:
    return shown(tree.schema.attributes[node.split.attribute].name)


def branch_condition(tree: Tree, node: Node, branch: int) -> str:
    """The test on an edge without the attribute name: '= sunny', '<= 75', 'in {a, b}'."""
    split = node.split
    if split.kind == THRESHOLD:
        return f"{'<=' if branch == 0 else '>'} {number(split.threshold)}"
    categories = tree.schema.attributes[split.attribute].categories
    group = [shown(categories[c]) for c in split.groups[branch]]
    if split.kind == MULTIWAY or (split.kind == SUBSET and len(group) == 1):
        return f"= {group[0]}"
    return "in {" + ", ".join(group) + "}"


def condition(tree: Tree, node: Node, branch: int) -> str:
    return f"{attribute_name(tree, node)} {branch_condition(tree, node, branch)}"


def predicted(tree: Tree, node: Node, fallback: Node | None = None) -> str:
    """A leaf's class (or mean); an empty leaf predicts its parent's."""
    if tree.is_regression:
        value = node.value if node.weight > 0 or fallback is None else fallback.value
        return number(value)
    if tree.costs:  # the class of least expected cost, as predict picks it
        return tree.classes[int(class_codes(node_output(tree, node)[None, :], None, tree.costs)[0])]
    dist = node.distribution
    if dist.sum() <= 0 and fallback is not None:
        dist = fallback.distribution
    return tree.classes[int(dist.argmax())]


def errors(tree: Tree, node: Node) -> float:
    """Training weight a leaf gets wrong (regression: 0; the count is what matters)."""
    if tree.is_regression:
        return 0.0
    if node.weight > 0 and tree.costs:  # the weight of the classes other than the one predicted
        said = class_codes(node_output(tree, node)[None, :], None, tree.costs)[0]
        return float(node.distribution.sum() - node.distribution[said])
    return float(node.distribution.sum() - node.distribution.max()) if node.weight > 0 else 0.0
