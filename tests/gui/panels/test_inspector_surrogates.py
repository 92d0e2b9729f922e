"""The inspector's competitors and surrogates (issue 33, item 2) against R's rpart, recorded
in tests/fixtures/rpart: the same competitors in the same order, rpart's ``improve`` being
the Gini gain times the node's rows; the surrogates with rpart's agreement and adjusted
agreement."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.fitting import fit_tree
from engine.settings import resolve
from gui.panels.inspector import node_html

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rpart"


def test_root_lists_rpart_s_competitors_and_surrogates():
    recorded = json.loads((FIXTURES / "recorded.json").read_text())["surrogates"]
    root = recorded["frame"][0]
    block = recorded["splits"][: 1 + root["ncompete"] + root["nsurrogate"]]
    rivals, stand_ins = block[1 : 1 + root["ncompete"]], block[1 + root["ncompete"] :]
    data = encode(make_table(pd.read_csv(FIXTURES / "surrogates.csv"), target="y"))
    settings = resolve(algorithm="cart", missing="surrogate", prune="none")
    text = re.sub("<[^>]+>", " ", node_html(fit_tree(data, settings), 0, data, settings))
    listed = re.findall(r"(\w+) (?:≤ \S+|\{[^}]*\} \| \{[^}]*\}): gini gain ([\d.]+)", text)
    assert [name for name, _ in listed] == [r["var"] for r in rivals]
    for (_, gain), r in zip(listed, rivals, strict=True):
        assert float(gain) == pytest.approx(r["improve"] / root["n"], abs=5e-4)
    rows = re.findall(
        r"(\w+) (?:&lt;|&gt;=|in) [^ ]+ goes as x1 &lt;= [\d.]+\s+([\d.]+)\s+([\d.]+)", text
    )
    assert [name for name, _, _ in rows] == [s["var"] for s in stand_ins]
    for (_, agreement, adjusted), s in zip(rows, stand_ins, strict=True):
        assert float(agreement) == pytest.approx(s["improve"], abs=5e-4)
        assert float(adjusted) == pytest.approx(s["adj"], abs=5e-4)
