"""The flat arrays prune, route and predict exactly as the node objects did (issue 39).

Each case's trees, pruning records, cost-complexity paths, alpha choices, predictions (with
and without missing values) and cross-validated outputs are compared with the digests the
node-object code recorded (:mod:`tests.engine.prune.same_trees`).
"""

from __future__ import annotations

import json

import pytest

from tests.engine.prune.same_trees import FIXTURE, QUICK, case

RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", QUICK)
def test_the_same_as_the_node_objects(name):
    dataset, learner = name.split("/")
    assert case(dataset, learner) == RECORDED[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(RECORDED) - set(QUICK)))
def test_every_example_the_same_as_the_node_objects(name):
    dataset, learner = name.split("/")
    assert case(dataset, learner) == RECORDED[name]
