"""The tree as a PMML 4.4 TreeModel.

Missing values: Arbor sends an instance with a missing value down every branch,
weighted by the branches' shares of the training weight, and adds up the
class probabilities of the leaves it reaches, each times the product of the
shares on its way. In PMML that is ``missingValueStrategy="weightedConfidence"``
applied recursively: the siblings' confidences weighted by their ``recordCount``
proportions. (``aggregateNodes`` would add the leaves' raw record counts, which
weighs a deep leaf by its own size rather than by the branch shares.) Every
``ScoreDistribution`` carries the ``confidence`` Arbor predicts at that node, so
an empty leaf's borrowed prediction survives the export; regression trees
average the leaves' scores with the same weights.

A tree grown with ``--missing surrogate`` or ``majority`` sends such an instance down one
branch whole: each branch's predicate is then a ``surrogate`` CompoundPredicate, the split's
test, its surrogates' tests in order, and True on the majority branch (False on the other).
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import numpy as np

from engine.errors import ArborError
from engine.predict import class_codes, node_output
from engine.tree import MULTIWAY, THRESHOLD, Tree

NS = "http://www.dmg.org/PMML-4_4"


def _fmt(value: float) -> str:
    return repr(float(value))


def _count(value: float) -> str:
    """Counts in full: fractional weights set the missing-value shares."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _predicate(parent: ET.Element, tree: Tree, node, branch: int) -> None:
    split = node.split
    attr = tree.schema.attributes[split.attribute]
    if split.kind == THRESHOLD:
        op = "lessOrEqual" if branch == 0 else "greaterThan"
        ET.SubElement(
            parent, "SimplePredicate", field=attr.name, operator=op, value=_fmt(split.threshold)
        )
        return
    group = [attr.categories[c] for c in split.groups[branch]]
    if split.kind == MULTIWAY or len(group) == 1:
        ET.SubElement(parent, "SimplePredicate", field=attr.name, operator="equal", value=group[0])
        return
    _in_group(parent, attr.name, group)


def _routed(parent: ET.Element, tree: Tree, node, branch: int) -> None:
    """A branch's predicate when whole rows go down one branch (``--missing surrogate`` or
    ``majority``): PMML's ``surrogate`` operator takes the first of the split's test and its
    surrogates' that is not unknown, then True on the majority branch (False on the other)."""
    split = node.split
    either = ET.SubElement(parent, "CompoundPredicate", booleanOperator="surrogate")
    _predicate(either, tree, node, branch)
    for s in split.surrogates:
        attr = tree.schema.attributes[s.attribute]
        if s.threshold is not None:
            op = "lessThan" if branch == s.below else "greaterOrEqual"
            ET.SubElement(
                either, "SimplePredicate", field=attr.name, operator=op, value=_fmt(s.threshold)
            )
        elif s.groups[branch]:
            _in_group(either, attr.name, [attr.categories[c] for c in s.groups[branch]])
        else:  # every category it knows goes the other way
            ET.SubElement(either, "False")
    ET.SubElement(either, "True" if split.fractions[branch] == 1.0 else "False")


def _whole_rows(split) -> bool:
    """True when a row missing the split's attribute goes down one branch whole."""
    return len(split.fractions) == 2 and max(split.fractions) == 1.0


def _in_group(parent: ET.Element, field: str, group: list[str]) -> None:
    if any('"' in g or "\\" in g for g in group):
        # An Array escapes a quote as \" but has no escape for a backslash (a value ending in
        # one would swallow its closing quote), so such values are tested one by one.
        either = ET.SubElement(parent, "CompoundPredicate", booleanOperator="or")
        for g in group:
            ET.SubElement(either, "SimplePredicate", field=field, operator="equal", value=g)
        return
    pred = ET.SubElement(parent, "SimpleSetPredicate", field=field, booleanOperator="isIn")
    array = ET.SubElement(pred, "Array", n=str(len(group)), type="string")
    array.text = " ".join(f'"{g}"' for g in group)


# Characters XML 1.0 cannot hold at all, not even as character references.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _check_xml_names(tree: Tree) -> None:
    schema = tree.schema
    names = [schema.target, *(tree.classes or ())]
    for a in schema.attributes:
        names += [a.name, *a.categories]
    for name in names:
        bad = _NOT_XML.search(name)
        if bad:
            raise ArborError(
                f"PMML (XML) cannot hold the control character U+{ord(bad[0]):04X} "
                f"in the name or value {name!r}; rename it first"
            )


def to_pmml(tree: Tree) -> str:
    """PMML 4.4 XML text. Names and values are XML attributes, escaped by ElementTree."""
    _check_xml_names(tree)
    ET.register_namespace("", NS)
    root = ET.Element("PMML", version="4.4", xmlns=NS)
    header = ET.SubElement(root, "Header", description=f"Decision tree for {tree.schema.target}")
    ET.SubElement(header, "Application", name="Arbor", version="0.1")
    fields = ET.SubElement(root, "DataDictionary")
    attrs = list(tree.schema.attributes)
    for a in attrs:
        f = ET.SubElement(
            fields,
            "DataField",
            name=a.name,
            optype="categorical" if a.is_nominal else "continuous",
            dataType="string" if a.is_nominal else "double",
        )
        for c in a.categories:
            ET.SubElement(f, "Value", value=c)
    target = ET.SubElement(
        fields,
        "DataField",
        name=tree.schema.target,
        optype="continuous" if tree.is_regression else "categorical",
        dataType="double" if tree.is_regression else "string",
    )
    for c in tree.classes or ():
        ET.SubElement(target, "Value", value=c)
    fields.set("numberOfFields", str(len(attrs) + 1))
    model = ET.SubElement(
        root,
        "TreeModel",
        modelName="arbor",
        functionName="regression" if tree.is_regression else "classification",
        splitCharacteristic="binarySplit"
        if all(n.split is None or n.split.kind != MULTIWAY for n in tree.nodes())
        else "multiSplit",
        missingValueStrategy="weightedConfidence",
        noTrueChildStrategy="returnLastPrediction",
    )
    schema = ET.SubElement(model, "MiningSchema")
    for a in attrs:
        ET.SubElement(schema, "MiningField", name=a.name)
    ET.SubElement(schema, "MiningField", name=tree.schema.target, usageType="target")
    stack = [(tree.root, model, None, None)]
    while stack:
        node, xml_parent, predicate, fallback = stack.pop()
        output = node_output(tree, node, fallback)  # with the tree's pseudocounts, if any
        score = (
            _fmt(output)
            if tree.is_regression
            else tree.classes[int(class_codes(np.asarray(output)[None, :], "cart", tree.costs)[0])]
        )
        attrs_out = {"id": str(node.id), "score": score, "recordCount": _count(node.weight)}
        element = ET.SubElement(xml_parent, "Node", attrs_out)
        if predicate is None:
            ET.SubElement(element, "True")
        elif _whole_rows(predicate[0].split):
            _routed(element, tree, *predicate)
        else:
            _predicate(element, tree, *predicate)
        if not tree.is_regression:
            for c, v, p in zip(tree.classes, node.distribution, output, strict=True):
                extra = {"probability": _fmt(p)} if tree.pseudocounts else {}
                ET.SubElement(
                    element,
                    "ScoreDistribution",
                    value=c,
                    recordCount=_count(v),
                    confidence=_fmt(p),
                    **extra,
                )
        for b in reversed(range(len(node.children))):
            stack.append((node.children[b], element, (node, b), output))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
