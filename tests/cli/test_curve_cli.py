"""``curve --learning | --bias-variance`` (issue 37): the engine's figures as JSON and text,
bad input as one line on stderr."""

import json

import pytest

from cli.main import main
from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.bias_variance import bias_variance
from engine.evaluate.learning_curve import learning_curve
from engine.settings import resolve


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_learning_curve_json_is_the_engines_with_the_users_options(capsys):
    code, out, err = run(
        capsys, "curve", "--sample", "iris", "--learning", "--folds", "3", "--steps", "3",
        "--max-depth", "2", "--seed", "7", "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    data = encode(load_sample("iris"))
    expected = learning_curve(data, resolve(max_depth=2, seed=7), folds=3, steps=3, seed=7)
    assert result == json.loads(json.dumps(expected.as_dict()))
    assert result["sizes"] == [33, 67, 100] and result["measure"] == "error rate"
    assert set(result) >= {"training_mean", "training_std", "validation_mean", "validation_std"}


def test_bias_variance_json_and_text(capsys):
    argv = ["curve", "--sample", "iris", "--bias-variance", "--values", "1,2", "--resamples", "3"]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    result = json.loads(out)
    expected = bias_variance(encode(load_sample("iris")), resolve(), values=[1, 2], resamples=3)
    assert result == json.loads(json.dumps(expected.as_dict()))
    assert result["loss"] == "0-1 loss" and result["values"] == [1, 2]
    for k in range(2):
        parts = result["noise_term"][k] + result["bias"][k] + result["variance"][k]
        assert result["error"][k] == pytest.approx(parts)
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "<- the chosen tree" in out and "search bias" in out
    assert "trees are grown unpruned, so max depth is their complexity" in out


def test_keep_pruning_is_passed_on_and_said(capsys):
    argv = ["curve", "--sample", "iris", "--bias-variance", "--vary", "leaves", "--values", "3,7"]
    code, out, err = run(capsys, *argv, "--resamples", "2", "--keep-pruning", "--json")
    assert code == 0, err
    result = json.loads(out)
    expected = bias_variance(
        encode(load_sample("iris")), resolve(), "leaves", [3, 7], resamples=2, keep_pruning=True
    )
    assert result == json.loads(json.dumps(expected.as_dict())) and result["keep_pruning"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--learning", "--resamples", "3"], "--resamples is not an option of --learning"),
        (["--learning", "--keep-pruning"], "--keep-pruning is not an option of --learning"),
        (["--bias-variance", "--values", "two"], "--values takes whole numbers"),
        (["--bias-variance", "--values", "0"], "at least 1"),
        (["--learning", "--folds", "1"], "at least 2 folds"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, extra, message):
    code, out, err = run(capsys, "curve", "--sample", "weather", *extra)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
