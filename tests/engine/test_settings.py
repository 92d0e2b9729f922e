"""Learner options are declared once (engine/settings.py) and every front end follows the table."""

from __future__ import annotations

from dataclasses import fields

import pytest

from cli.main import build_parser
from engine import settings
from engine.errors import ArborError
from engine.settings import (
    OPTION,
    OPTIONS,
    Settings,
    choices_for,
    default,
    problem,
    resolve,
    why_not,
    why_nots,
)


def test_settings_has_one_field_per_option_in_the_tables_order_with_c45s_defaults():
    assert [f.name for f in fields(Settings)] == [o.name for o in OPTIONS]
    assert Settings() == resolve() == resolve(algorithm="c45")
    assert resolve(algorithm="id3") == Settings(
        algorithm="id3", criterion="entropy", min_samples_leaf=0.0, prune="none"
    )


def test_every_option_says_what_it_is_for_a_person():
    for option in OPTIONS:
        assert option.label and option.help and option.group in settings.GROUPS, option.name
        assert option.kind in ("choice", "bool", "int", "float", "text")
        if option.kind == "choice":
            labels = [c.label for c in option.choices]
            assert len(set(labels)) == len(labels) and all(labels)
        if option.optional:
            assert option.unset, option.name
    assert [c.label for c in OPTION["algorithm"].choices] == ["C4.5", "ID3", "CART", "Optimal"]


@pytest.mark.parametrize(
    ("algorithm", "task", "expected"),
    [
        (
            "id3",
            "classification",
            {"criterion": "entropy", "min_samples_leaf": 0.0, "prune": "none"},
        ),
        (
            "c45",
            "classification",
            {"criterion": "gain_ratio", "min_samples_leaf": 2.0, "prune": "pessimistic"},
        ),
        (
            "cart",
            "classification",
            {
                "criterion": "gini",
                "min_samples_leaf": 1.0,
                "prune": "cost-complexity",
                "cv_alpha": 10,
                "one_se": True,
            },
        ),
        (
            "cart",
            "regression",
            {
                "criterion": "squared_error",
                "min_samples_leaf": 1.0,
                "prune": "cost-complexity",
                "cv_alpha": 10,
                "one_se": True,
            },
        ),
    ],
)
def test_defaults_per_algorithm_and_task(algorithm, task, expected):
    assert {name: default(name, algorithm, task) for name in expected} == expected
    s = resolve(algorithm=algorithm, task=task)
    assert {name: getattr(s, name) for name in expected} == expected


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"algorithm": "c50"}, "algorithm must be one of c45, id3, cart, optimal; got 'c50'"),
        ({"max_depth": -1}, "max-depth must be at least 0; got -1"),
        ({"max_depth": 2.5}, "max-depth must be a whole number; got 2.5"),
        ({"max_leaves": 1}, "max-leaves must be at least 2; got 1"),
        ({"confidence": 0}, "confidence must be between 0 and 0.5; got 0"),
        ({"min_gain": float("nan")}, "min-gain must be at least 0; got nan"),
        ({"holdout": "a third"}, "holdout must be a number; got 'a third'"),
        (
            {"algorithm": "id3", "task": "regression"},
            "regression trees are CART trees; ID3 only classifies (use --algorithm cart)",
        ),
        (
            {"algorithm": "cart", "criterion": "gain_ratio"},
            "CART splits in two, so gain ratio does not apply",
        ),
        (
            {"algorithm": "cart", "task": "regression", "criterion": "gini"},
            "regression uses the squared_error criterion",
        ),
        ({"criterion": "squared_error"}, "squared_error is a regression criterion"),
        (
            {"algorithm": "id3", "prune": "pessimistic"},
            "pessimistic pruning is C4.5's; use cost-complexity or reduced-error with ID3",
        ),
        (
            {"prune": "cost-complexity"},
            "cost-complexity pruning is CART's; use pessimistic or reduced-error with C4.5",
        ),
    ],
)
def test_bad_options_get_one_clear_message(params, message):
    with pytest.raises(ArborError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve(**params)
    assert message in problem(params)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"algorithm": "cart", "prune": "cost-complexity", "alpha": 0.01},
        {"algorithm": "id3", "prune": "reduced-error"},
        {"algorithm": "cart", "task": "regression", "splitter": "exact"},
        {"algorithm": "optimal"},
    ],
)
def test_every_options_reason_at_once_is_each_ones_reason(params):
    assert why_nots(params) == {o.name: why_not(o.name, params) for o in OPTIONS}


def test_where_each_option_applies_and_why_not():
    cart_cc = {"algorithm": "cart", "prune": "cost-complexity"}
    assert why_not("confidence", {}) is None  # C4.5, pessimistic by default
    assert why_not("confidence", {"algorithm": "cart"}) == "Only for C4.5's pessimistic pruning"
    assert (
        why_not("confidence", {"prune": "reduced-error"}) == "Only for C4.5's pessimistic pruning"
    )
    assert why_not("alpha", cart_cc) is None
    assert why_not("one_se", cart_cc) is None  # CART cross-validates alpha by default
    assert (
        why_not("one_se", cart_cc | {"alpha": 0.01}) == "Needs CV folds for alpha"
    )  # an alpha of one's own
    assert why_not("one_se", cart_cc | {"cv_alpha": 5}) is None
    assert why_not("task", {"algorithm": "id3"}) == "Regression trees are CART trees"
    assert why_not("holdout", {"algorithm": "id3", "prune": "reduced-error"}) is None
    assert why_not("max_bins", {"splitter": "exact"}) == "Only for the histogram search"
    assert all(why_not(name, {}) is None for name in ("max_depth", "min_gain", "growth", "seed"))
    allowed = {c.value: reason for c, reason in choices_for("criterion", {"algorithm": "cart"})}
    assert allowed["gini"] is None and allowed["entropy"] is None
    assert allowed["gain_ratio"].startswith("CART splits in two")
    assert allowed["squared_error"].startswith("squared_error is a regression criterion")
    regression = {
        c.value
        for c, reason in choices_for("criterion", {"algorithm": "cart", "task": "regression"})
        if reason is None
    }
    assert regression == {"squared_error", "absolute_error"}


def test_the_command_line_takes_every_option_from_the_table():
    parser = build_parser()
    train = parser._subparsers._group_actions[0].choices["train"]
    actions = {a.dest: a for a in train._actions}
    for option in OPTIONS:
        action = actions[option.name]
        assert action.option_strings == [option.cli_flag]
        assert action.default is None and option.help in action.help
        if option.kind == "choice":
            assert tuple(action.choices) == option.values
    args = parser.parse_args(
        [
            "train",
            "x.csv",
            "--algorithm",
            "cart",
            "--max-depth",
            "3",
            "--min-gain",
            "0.01",
            "--no-subtree-raising",
            "--one-se",
            "--splitter",
            "histogram",
            "--max-bins",
            "64",
        ]
    )
    from cli.commands import learner

    assert learner(args).settings() == resolve(
        algorithm="cart",
        max_depth=3,
        min_gain=0.01,
        subtree_raising=False,
        one_se=True,
        splitter="histogram",
        max_bins=64,
    )
    help_text = train.format_help()
    assert (
        "(default c45: gain_ratio; id3: entropy; cart: gini; optimal: misclassification; "
        "regression: squared_error)" in " ".join(help_text.split())
    )
