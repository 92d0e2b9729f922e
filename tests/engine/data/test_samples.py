"""The bundled samples: each loads by name with the shape, target, kinds and value orders the
seeds and Weka give it, and the README describes every one."""

import re
from pathlib import Path

import pandas as pd
import pytest

from engine.data.arff import read_arff
from engine.data.samples import load_sample, sample_names, sample_path
from engine.errors import ArborError

WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")
DATASETS = Path(__file__).resolve().parents[3] / "resources" / "datasets"

EXPECTED = {  # name: (rows, columns, target, {column: categories} for a few columns)
    "weather": (
        14,
        5,
        "play",
        {
            "outlook": ["sunny", "overcast", "rainy"],
            "temperature": ["hot", "mild", "cool"],
            "humidity": ["high", "normal"],
            "windy": ["TRUE", "FALSE"],
            "play": ["yes", "no"],
        },
    ),
    "weather-numeric": (
        14,
        5,
        "play",
        {"outlook": ["sunny", "overcast", "rainy"], "windy": ["TRUE", "FALSE"]},
    ),
    "restaurant": (
        12,
        11,
        "WillWait",
        {
            "Pat": ["None", "Some", "Full"],
            "Price": ["$", "$$", "$$$"],
            "Type": ["French", "Italian", "Thai", "Burger"],
            "Est": ["0-10", "10-30", "30-60", ">60"],
            "WillWait": ["Yes", "No"],
        },
    ),
    "toys": (
        16,
        3,
        "Fun",
        {"Color": ["red", "green", "blue"], "Players": ["1", "2", "3", "4"], "Fun": ["yes", "no"]},
    ),
    "contact-lenses": (24, 5, "contact-lenses", {"contact-lenses": ["soft", "hard", "none"]}),
    "iris": (150, 5, "class", {"class": ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]}),
}


def test_names_in_menu_order():
    assert sample_names() == list(EXPECTED)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_sample_loads(name):
    rows, columns, target, categories = EXPECTED[name]
    table = load_sample(name)
    assert table.frame.shape == (rows, columns) and table.target == target
    for column, values in categories.items():
        assert table.kinds[column] == "nominal"
        assert list(table.frame[column].cat.categories) == values, column
    assert not table.frame.isna().any().any() and table.notes == ()
    assert sample_path(name).is_file() and sample_path(name).parent == DATASETS


def test_numeric_samples_have_numeric_columns():
    numeric = load_sample("weather-numeric")
    assert numeric.frame["temperature"].tolist() == [
        85,
        80,
        83,
        70,
        68,
        65,
        64,
        72,
        69,
        75,
        75,
        72,
        81,
        71,
    ]
    assert numeric.frame["humidity"].tolist() == [
        85,
        90,
        86,
        96,
        80,
        70,
        65,
        95,
        70,
        80,
        70,
        90,
        75,
        91,
    ]
    assert [k for k, v in load_sample("iris").kinds.items() if v == "numeric"] == [
        "sepallength",
        "sepalwidth",
        "petallength",
        "petalwidth",
    ]


def as_text(table):
    return table.frame.astype(str).to_numpy().tolist()


def test_seed_tables_row_for_row(weather, restaurant, toys):
    assert as_text(load_sample("weather")) == as_text(weather)
    assert list(load_sample("weather").frame.columns) == list(weather.frame.columns)
    assert as_text(load_sample("restaurant")) == as_text(restaurant)
    assert list(load_sample("restaurant").frame.columns) == list(restaurant.frame.columns)
    assert as_text(load_sample("toys")) == as_text(toys)


def test_weather_numeric_shares_the_nominal_columns():
    nominal, numeric = load_sample("weather").frame, load_sample("weather-numeric").frame
    for column in ("outlook", "windy", "play"):
        pd.testing.assert_series_equal(nominal[column], numeric[column])


@pytest.mark.skipif(not WEKA_EXAMPLES.is_dir(), reason="Weka's example files are not installed")
@pytest.mark.parametrize(
    ("name", "weka_file"),
    [
        ("weather", "weather.nominal.arff"),
        ("weather-numeric", "weather.numeric.arff"),
        ("contact-lenses", "contact-lenses.arff"),
        ("iris", "iris.arff"),
    ],
)
def test_same_as_weka(name, weka_file):
    ours, weka = load_sample(name), read_arff(WEKA_EXAMPLES / weka_file)
    pd.testing.assert_frame_equal(ours.frame, weka.frame)
    assert dict(ours.kinds) == dict(weka.kinds)


def test_unknown_sample():
    with pytest.raises(
        ArborError, match="unknown sample 'x'; the samples are weather, weather-numeric, restaurant"
    ):
        load_sample("x")
    with pytest.raises(ArborError, match="unknown sample"):
        sample_path("weather.arff")


def test_readme_lists_every_sample_with_its_rows():
    readme = (DATASETS / "README.md").read_text()
    rows = dict(re.findall(r"^\| `([\w-]+)` \| (\d+) \|", readme, flags=re.MULTILINE))
    assert {name: int(n) for name, n in rows.items()} == {n: e[0] for n, e in EXPECTED.items()}
    assert sorted(p.name for p in DATASETS.glob("*.arff")) == sorted(
        sample_path(n).name for n in EXPECTED
    )
