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
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

import numpy as np

from engine.predict import node_output
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
        ET.SubElement(parent, "SimplePredicate", field=attr.name, operator=op, value=_fmt(split.threshold))
        return
    group = [attr.categories[c] for c in split.groups[branch]]
    if split.kind == MULTIWAY or len(group) == 1:
        ET.SubElement(parent, "SimplePredicate", field=attr.name, operator="equal", value=group[0])
        return
    pred = ET.SubElement(parent, "SimpleSetPredicate", field=attr.name, booleanOperator="isIn")
    array = ET.SubElement(pred, "Array", n=str(len(group)), type="string")
    array.text = " ".join('"' + g.replace('"', '\\"') + '"' for g in group)


def to_pmml(tree: Tree) -> str:
    """PMML 4.4 XML text."""
    ET.register_namespace("", NS)
    root = ET.Element("PMML", version="4.4", xmlns=NS)
    header = ET.SubElement(root, "Header", description=f"Decision tree for {tree.schema.target}")
    ET.SubElement(header, "Application", name="Arbor", version="0.1")
    fields = ET.SubElement(root, "DataDictionary")
    attrs = list(tree.schema.attributes)
    for a in attrs:
        f = ET.SubElement(fields, "DataField", name=a.name,
                          optype="categorical" if a.is_nominal else "continuous",
                          dataType="string" if a.is_nominal else "double")
        for c in a.categories:
            ET.SubElement(f, "Value", value=c)
    target = ET.SubElement(fields, "DataField", name=tree.schema.target,
                           optype="continuous" if tree.is_regression else "categorical",
                           dataType="double" if tree.is_regression else "string")
    for c in tree.classes or ():
        ET.SubElement(target, "Value", value=c)
    fields.set("numberOfFields", str(len(attrs) + 1))
    model = ET.SubElement(root, "TreeModel", modelName="arbor",
                          functionName="regression" if tree.is_regression else "classification",
                          splitCharacteristic="binarySplit" if all(
                              n.split is None or n.split.kind != MULTIWAY for n in tree.nodes())
                          else "multiSplit",
                          missingValueStrategy="weightedConfidence", noTrueChildStrategy="returnLastPrediction")
    schema = ET.SubElement(model, "MiningSchema")
    for a in attrs:
        ET.SubElement(schema, "MiningField", name=a.name)
    ET.SubElement(schema, "MiningField", name=tree.schema.target, usageType="target")
    stack = [(tree.root, model, None, None)]
    while stack:
        node, xml_parent, predicate, fallback = stack.pop()
        output = node_output(tree, node, fallback)
        score = _fmt(output) if tree.is_regression else tree.classes[int(np.argmax(output))]
        attrs_out = {"id": str(node.id), "score": score, "recordCount": _count(node.weight)}
        element = ET.SubElement(xml_parent, "Node", attrs_out)
        if predicate is None:
            ET.SubElement(element, "True")
        else:
            _predicate(element, tree, *predicate)
        if not tree.is_regression:
            for c, v, p in zip(tree.classes, node.distribution, output, strict=True):
                ET.SubElement(element, "ScoreDistribution", value=c, recordCount=_count(v),
                              confidence=_fmt(p))
        for b in reversed(range(len(node.children))):
            stack.append((node.children[b], element, (node, b), output))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

