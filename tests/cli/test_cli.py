"""The command-line contract: sub-commands, --json keys, one-line errors with exit status 2."""

import json
from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("train", "evaluate", "predict", "explain", "path", "baseline"):
        assert command in out


def test_baseline_on_weather(capsys):
    result = run_json(capsys, "baseline", "--sample", "weather")
    assert (
        result["zero_r_errors"],
        result["one_r_attribute"],
        result["one_r_errors"],
        result["n"],
    ) == (5, "outlook", 4, 14)
    code, out, _ = run(capsys, "baseline", "--sample", "weather")
    assert "0-R: predict play = yes: 5/14 errors" in out
    assert "1-R: on outlook: 4/14 errors" in out


def test_train_json_keys(capsys):
    result = run_json(capsys, "train", "--sample", "weather", "--algorithm", "id3")
    assert (result["n_nodes"], result["n_leaves"], result["depth"]) == (8, 5, 2)
    assert result["train_accuracy"] == 1.0
    assert result["tree"]["format"] == "arbor-tree" and len(result["tree"]["nodes"]) == 8


def test_train_text_is_like_weka(capsys):
    code, out, _ = run(capsys, "train", "--sample", "weather")
    assert code == 0
    assert "outlook = sunny\n|   humidity = high: no (3.0)" in out
    assert "Number of Leaves  : \t5" in out and "Size of the tree : \t8" in out


def test_regression_reports_rmse(capsys):
    result = run_json(
        capsys,
        "train",
        "--sample",
        "weather-numeric",
        "--target",
        "humidity",
        "--algorithm",
        "cart",
        "--task",
        "regression",
        "--max-depth",
        "2",
        "--prune",
        "none",
    )
    assert "train_rmse" in result and result["depth"] == 2


def test_explain_root_and_node(capsys):
    result = run_json(capsys, "explain", "--sample", "weather", "--algorithm", "id3")
    gains = {a["name"]: round(a["info_gain"], 3) for a in result["attributes"]}
    assert gains == {"outlook": 0.247, "temperature": 0.029, "humidity": 0.152, "windy": 0.048}
    for row in result["attributes"]:
        assert set(row) >= {
            "name",
            "entropy_before",
            "mean_info",
            "info_gain",
            "split_info",
            "gain_ratio",
            "gini_gain",
        }
    node = run_json(capsys, "explain", "--sample", "weather", "--algorithm", "id3", "--node", "1")
    chosen = [a["name"] for a in node["attributes"] if a["chosen"]]
    assert chosen == ["humidity"]


def test_explain_text_names_thresholds_rule_and_why_not(capsys, tmp_path):
    # Full names (no cut at 15 characters), numeric thresholds, the node's rule and rows.
    frame = load_sample_frame("iris").rename(columns={"petallength": "petal length in centimetres"})
    data = tmp_path / "iris.csv"
    frame.to_csv(data, index=False)
    code, out, _ = run(capsys, "explain", str(data), "--algorithm", "cart", "--node", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == 'Node 2: "petal length in centimetres" > 2.45'  # quoted as exports quote it
    assert lines[1] == "100 rows (Iris-setosa 0, Iris-versicolor 50, Iris-virginica 50)"
    row = next(line for line in lines if line.startswith("petal length in centimetres "))
    assert "<= 4.75" in row and not row.endswith("*")
    assert next(line for line in lines if line.startswith("petalwidth ")).endswith(" *")
    # ID3 at outlook = sunny: outlook is used above, and the table says so.
    code, out, _ = run(
        capsys, "explain", "--sample", "weather", "--algorithm", "id3", "--node", "1"
    )
    assert out.splitlines()[:2] == ["Node 1: outlook = sunny", "5 rows (yes 2, no 3)"]
    assert next(line for line in out.splitlines() if line.startswith("outlook ")).endswith(" -")
    assert "  outlook: already split on above" in out
    node = run_json(capsys, "explain", "--sample", "weather", "--algorithm", "id3", "--node", "1")
    assert node["rule"] == "outlook = sunny" and node["n"] == 5
    assert node["class_counts"] == {"yes": 2, "no": 3}
    reasons = {a["name"]: a["reason"] for a in node["attributes"]}
    assert reasons == {"outlook": "used", "temperature": None, "humidity": None, "windy": None}
    # C4.5 at the weather-numeric root: the thresholds gain less than their MDL charge.
    root = run_json(capsys, "explain", "--sample", "weather-numeric")
    reasons = {a["name"]: a["reason"] for a in root["attributes"]}
    assert reasons == {
        "outlook": None,
        "temperature": "no gain (MDL)",
        "humidity": "no gain (MDL)",
        "windy": None,
    }
    # They show the cut weighed and its gain before the charge: temperature <= 83 leaves
    # 9 yes / 4 no against 1 no, 0.940 - 13/14 x 0.891 = 0.113, less than log2(cuts) / 14.
    temperature = next(a for a in root["attributes"] if a["name"] == "temperature")
    assert temperature["threshold"] == 83 and round(temperature["info_gain"], 3) == 0.113


def load_sample_frame(name):
    from engine.data.samples import load_sample

    return load_sample(name).frame


def test_save_then_predict(capsys, tmp_path):
    model = tmp_path / "m.json"
    run_json(capsys, "train", "--sample", "weather", "--save", str(model))
    from engine.data.samples import sample_path

    result = run_json(capsys, "predict", str(model), str(sample_path("weather")))
    assert result["predictions"][:3] == ["no", "no", "yes"]
    out_csv = tmp_path / "p.csv"
    code, _, _ = run(capsys, "predict", str(model), "--sample", "weather", "--output", str(out_csv))
    assert code == 0 and "predicted play" in out_csv.read_text().splitlines()[0]


def test_evaluate_cross_validation_is_deterministic(capsys):
    a = run_json(capsys, "evaluate", "--sample", "iris", "--folds", "5", "--seed", "3")
    b = run_json(capsys, "evaluate", "--sample", "iris", "--folds", "5", "--seed", "3")
    assert a == b
    assert set(a) >= {"accuracy", "accuracy_std", "confusion_matrix", "classes"}
    assert 0.85 < a["accuracy"] <= 1.0
    assert sum(map(sum, a["confusion_matrix"])) == 150


def test_evaluate_with_wekas_folds_counts_as_j48(capsys):
    # J48 -t glass.arff -x 10 -s 2: 157 of 214 correct (tests/fixtures/weka/recorded.json)
    glass = str(ROOT / "tests" / "fixtures" / "weka" / "data" / "glass.arff")
    result = run_json(capsys, "evaluate", glass, "--weka-folds", "--seed", "2")
    assert round(result["accuracy"] * 214) == 157
    assert result["method"] == "10-fold cross-validation (Weka's folds, seed 2)"
    code, _, err = run(capsys, "evaluate", glass, "--weka-folds", "--split", "60")
    assert code == 2 and err.count("\n") == 1 and "--weka-folds" in err


def test_path_json(capsys):
    result = run_json(capsys, "path", "--sample", "iris", "--algorithm", "cart")
    assert result["alphas"][0] == 0.0 and result["n_leaves"][-1] == 1
    assert len(result["alphas"]) == len(result["impurities"]) == len(result["n_leaves"])


def test_path_is_carts_whatever_the_default_algorithm(capsys):
    # Without --algorithm it is CART's path (not C4.5's tree under CART's name) ...
    plain = run_json(capsys, "path", "--sample", "iris")
    assert plain == run_json(capsys, "path", "--sample", "iris", "--algorithm", "cart")
    assert plain["algorithm"] == "cart" and plain["n_leaves"][0] == 9
    code, out, _ = run(capsys, "path", "--sample", "iris")
    assert out.startswith(
        "CART's cost-complexity pruning path (gini; the unpruned tree has 9 leaves)"
    )
    # ... and another algorithm is refused in one line.
    for algorithm, name in (("c45", "C4.5"), ("id3", "ID3")):
        code, _, err = run(capsys, "path", "--sample", "weather", "--algorithm", algorithm)
        assert code == 2 and err.strip() == (
            f"arbor path: error: path is CART's cost-complexity pruning path; {name} has none "
            "(leave out --algorithm, or use --algorithm cart)"
        )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["baseline", "no/such/file.csv"], "no such file"),
        (["baseline", "--sample", "nope"], "nope"),
        (["train", "--sample", "weather", "--target", "colour"], "unknown target column 'colour'"),
        (
            ["train", "--sample", "weather-numeric", "--algorithm", "id3"],
            "ID3 handles nominal attributes only",
        ),
        (["train", "--sample", "weather", "--confidence", "0.9"], "confidence must be between"),
        (["train"], "no data"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_unknown_extension(capsys, tmp_path):
    bad = tmp_path / "data.xyz"
    bad.write_text("a,b\n1,2\n")
    code, _, err = run(capsys, "baseline", str(bad))
    assert code == 2 and ".xyz" in err


def test_main_py_runs_the_cli_in_a_fresh_process(capsys, weather_fit):
    """``python main.py train --sample weather``, the fresh process that
    tests/cli/test_startup.py reads for what it imports (a second one cost 0.6 s of CPU)."""
    code, _, out = weather_fit
    assert code == 0, out.stderr
    assert out.stdout.startswith("C4.5 tree") and "Number of Leaves  : \t5" in out.stdout
    # A refusal through main.py's main, in this process (a second interpreter cost a second;
    # tests/cli/test_cli_hardening.py runs refusals through main.py as a script).
    import main as script

    assert script.main(["train", "missing.csv"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arbor train: error: ") and "missing.csv" in err and err.count("\n") == 1


def test_train_exports_every_format(capsys, tmp_path):
    from PySide6.QtGui import QImage

    paths = {k: tmp_path / f"t.{k}" for k in ("md", "dot", "pmml", "py", "png", "svg", "pdf")}
    argv = [
        "train",
        "--sample",
        "iris",
        "--rules",
        str(paths["md"]),
        "--dot",
        str(paths["dot"]),
        "--pmml",
        str(paths["pmml"]),
        "--python",
        str(paths["py"]),
        "--image",
        str(paths["png"]),
        "--image-scale",
        "1",
        "--transparent",
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    for key in ("md", "dot", "pmml", "py", "png"):
        assert paths[key].stat().st_size > 100
    assert QImage(str(paths["png"])).pixelColor(1, 1).alpha() == 0
    for key in ("svg", "pdf"):
        assert run(capsys, "train", "--sample", "iris", "--image", str(paths[key]))[0] == 0
        assert paths[key].stat().st_size > 1000
    code, _, err = run(capsys, "train", "--sample", "iris", "--image", str(tmp_path / "t.bmp"))
    assert code == 2 and "use .png, .svg or .pdf" in err
