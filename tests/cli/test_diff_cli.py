"""``python main.py diff``: each pair's first divergence as JSON and as text."""

import json

from cli.main import main


def test_diff_json_gives_each_pairs_first_divergence_with_scores(capsys):
    assert main(["diff", "--sample", "weather", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [a["label"] for a in out["algorithms"]] == ["ID3", "C4.5", "CART", "Optimal"]
    grown = {
        (p["first"], p["second"]): p["divergence"] for p in out["pairs"] if p["stage"] == "grown"
    }
    assert grown[("id3", "c45")] is None
    root = grown[("id3", "cart")]
    assert (root["kind"], root["rule"], root["node"]) == ("shape", [], {"id3": 0, "cart": 0})
    top = root["rankings"]["id3"]["attributes"][0]
    assert (top["attribute"], top["score"], top["chosen"]) == ("outlook", 0.246750, True)


def test_diff_text_and_bad_tolerance(capsys):
    assert main(["diff", "--sample", "iris", "--max-depth", "2"]) == 0
    text = capsys.readouterr().out
    assert "ID3: not grown" in text and "first part at the root (attribute)" in text
    assert main(["diff", "--sample", "iris", "--tolerance", "3"]) == 2
    assert "--tolerance" in capsys.readouterr().err
