"""Our ARFF reader and writer: the syntax Weka's files use, their edge cases, and every error
message with its line number."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.data.arff import parse_arff, quote, read_arff, to_arff
from engine.data.table import make_table
from engine.errors import ArborError

WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")


def arff(tmp_path, text, name="d.arff", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


TRICKY = """% a comment, then a blank line

@RELATION 'my data'
@Attribute 'out look' {sunny, 'over cast' ,rainy}   % trailing comment
@ATTRIBUTE "temp" REAL
@attribute count INTEGER
@attribute note STRING
@attribute when date "yyyy-MM-dd"
@attribute play{yes,no}

@DATA
sunny, 85, 1, 'hello, world', 2024-01-02, no
  'over cast',?,2,x,?,yes
% a comment among the rows

rainy , 70.5 ,3,"say \\"hi\\"\\n",2024-01-02,yes % and one after a row
sunny,-1e3,4,'it\\'s',2023-12-31,no
"""


def test_quotes_comments_case_and_kinds(tmp_path):
    table = read_arff(arff(tmp_path, TRICKY))
    frame = table.frame
    assert list(frame.columns) == ["out look", "temp", "count", "note", "when", "play"]
    assert dict(table.kinds) == {
        "out look": "nominal",
        "temp": "numeric",
        "count": "numeric",
        "note": "nominal",
        "when": "nominal",
        "play": "nominal",
    }
    assert table.target == "play"
    assert list(frame["out look"].cat.categories) == ["sunny", "over cast", "rainy"]
    assert frame["out look"].tolist() == ["sunny", "over cast", "rainy", "sunny"]
    assert frame["temp"].tolist()[2:] == [70.5, -1000.0] and np.isnan(frame["temp"][1])
    assert frame["note"].tolist() == ["hello, world", "x", 'say "hi"\n', "it's"]
    assert list(frame["note"].cat.categories) == ["hello, world", "x", 'say "hi"\n', "it's"]
    assert list(frame["when"].cat.categories) == ["2024-01-02", "2023-12-31"]
    assert frame["when"].isna().tolist() == [False, True, False, False]
    assert any("date attribute(s) when read as nominal text" in n for n in table.notes)


def test_declared_order_is_kept_even_for_unused_values(tmp_path):
    text = (
        "@relation r\n@attribute a {c, b, a, unused}\n@attribute y {no, yes}\n@data\na,yes\nb,no\n"
    )
    frame = read_arff(arff(tmp_path, text)).frame
    assert list(frame["a"].cat.categories) == ["c", "b", "a", "unused"]
    assert list(frame["y"].cat.categories) == ["no", "yes"]


def test_question_mark_missing_unless_quoted(tmp_path):
    text = (
        "@relation r\n@attribute a {'?', x, NA}\n@attribute b string\n@data\n?,?\n'?','?'\nNA,NA\n"
    )
    frame = read_arff(arff(tmp_path, text)).frame
    assert frame["a"].tolist()[1:] == ["?", "NA"] and pd.isna(frame["a"][0])
    assert frame["b"].tolist()[1:] == ["?", "NA"] and pd.isna(frame["b"][0])


def test_sparse_rows(tmp_path):
    text = """@relation s
@attribute a numeric
@attribute b numeric
@attribute c {x, y}
@attribute d string
@data
{1 5, 2 y, 3 'a, b'}
{0 2}
{ }
{1 ?, 3 "q"}
"""
    frame = read_arff(arff(tmp_path, text)).frame
    assert frame["a"].tolist() == [0, 2, 0, 0]
    assert frame["b"].tolist()[:3] == [5, 0, 0] and np.isnan(frame["b"][3])
    assert frame["c"].tolist() == ["y", "x", "x", "x"]  # left out = the first declared value
    assert frame["d"].tolist()[0] == "a, b" and frame["d"].isna().tolist() == [
        False,
        True,
        True,
        False,
    ]


def test_windows_line_endings_bom_and_latin1(tmp_path):
    text = "@relation r\r\n@attribute a {caf\xe9, b}\r\n@data\r\ncaf\xe9\r\nb\r\n"
    utf8 = read_arff(arff(tmp_path, "\ufeff" + text, "u.arff"))
    assert utf8.frame["a"].tolist() == ["caf\xe9", "b"] and utf8.notes == ()
    latin = read_arff(arff(tmp_path, text, "l.arff", "latin-1"))
    assert latin.frame["a"].tolist() == ["caf\xe9", "b"]
    assert any("l.arff is not UTF-8; it was read as Latin-1" in n for n in latin.notes)


def test_header_only_file_has_no_rows_but_its_declarations(tmp_path):
    table = read_arff(
        arff(tmp_path, "@relation r\n@attribute a {x,y}\n@attribute n numeric\n@data\n")
    )
    assert table.frame.shape == (0, 2)
    assert list(table.frame["a"].cat.categories) == ["x", "y"]
    assert dict(table.kinds) == {"a": "nominal", "n": "numeric"}


def test_kind_overrides_and_target(tmp_path):
    path = arff(
        tmp_path,
        "@relation r\n@attribute n {1,2}\n@attribute id numeric\n@attribute c {p,q}\n@data\n1,7,p\n",
    )
    table = read_arff(path, target="n", kinds={"id": "ignored", "n": "numeric"})
    assert table.target == "n" and dict(table.kinds) == {
        "n": "numeric",
        "id": "ignored",
        "c": "nominal",
    }


WEATHER_HEADER = """@relation weather
% the header takes eight lines
@attribute outlook {sunny, overcast, rainy}
@attribute temperature numeric
@attribute humidity numeric
@attribute play {yes, no}

@data
"""


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            "sunny,85,85,no\n" * 3 + "sunny,85,85,FALSE,no\n",
            "weather.arff line 12: 5 values, expected 4",
        ),
        ("sunny,85,no\n", "weather.arff line 9: 3 values, expected 4"),
        (
            "sunny,85,85,no\nfoggy,1,2,no\n",
            "weather.arff line 10: value 'foggy' of 'outlook' is not among its declared values \\{sunny, overcast, rainy\\}",
        ),
        (
            "sunny,85,85,no\nsunny,hot,85,no\n",
            "line 10: 'temperature' is numeric but 'hot' is not a number",
        ),
        ("sunny,85,85,'no\n", r"line 9: a quote \(\'\) is not closed"),
        ("sunny,85,85,'no'x\n", "line 9: unexpected text beside the quoted 'no'"),
        ("{0 sunny, 9 1}\n", "line 9: sparse index 9 is past the last attribute"),
        ("{0 sunny, 1}\n", "line 9: a sparse entry must be 'INDEX VALUE'"),
        ("{0 sunny}, {2}\n", r"line 9: a sparse row is one \{...\} \(instance weights"),
        ("sunny,{85},85,no\n", "line 9: unexpected '{' in a list of values"),
        ("{0 sunny, 1 2\n", r"line 9: a sparse row is one \{...\}"),
    ],
)
def test_bad_rows_name_their_line(tmp_path, rows, message):
    with pytest.raises(ArborError, match=message):
        read_arff(arff(tmp_path, WEATHER_HEADER + rows, "weather.arff"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "@relation r\n@attribute a blob\n@data\n",
            "line 2: unknown attribute type 'blob' for 'a'",
        ),
        (
            "@relation r\n@attribute a relational\n@data\n",
            "line 2: unknown attribute type 'relational'",
        ),
        ("@relation r\n@attribute a numeric\n", "r.arff is not an ARFF file: it has no @data line"),
        ("", "no @data line"),
        ("hello\n", "r.arff line 1: expected @relation, @attribute or @data, found 'hello'"),
        ("a,b\n1,2\n", "line 1: expected @relation"),
        ("@relation r\n@data\n", "line 2: @data comes before any @attribute"),
        ("@relation r\n@attribute a {x,y\n@data\n", "line 2: the value list of 'a' is not closed"),
        (
            "@relation r\n@attribute a {x,x}\n@data\n",
            "line 2: the value list of 'a' has an empty or repeated",
        ),
        ("@relation r\n@attribute a {x,,y}\n@data\n", "the value list of 'a' has an empty"),
        (
            "@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n",
            "line 3: attribute 'a' is declared twice",
        ),
        ("@relation r\n@attribute a\n@data\n", "line 2: an @attribute needs a name and a type"),
        (
            "@relation r\n@attribute a numeric extra\n@data\n",
            "unexpected 'extra' after the type of 'a'",
        ),
        ("@relation r\n@attribute 'a numeric\n@data\n", "line 2: a quote"),
    ],
)
def test_bad_headers(tmp_path, text, message):
    with pytest.raises(ArborError, match=message):
        read_arff(arff(tmp_path, text, "r.arff"))


def test_binary_garbage(tmp_path):
    path = tmp_path / "g.arff"
    path.write_bytes(b"\x00\x01\x02" * 50)
    with pytest.raises(ArborError, match="g.arff is not a text table"):
        read_arff(path)


def test_quote():
    assert quote("sunny") == "sunny"
    assert quote("0-10") == "0-10" and quote("$$") == "$$" and quote(">60") == ">60"
    assert quote("") == "''" and quote("?") == "'?'"
    assert quote("a b") == "'a b'" and quote("a,b") == "'a,b'" and quote("{x}") == "'{x}'"
    assert quote("50%") == "'50%'" and quote('say "hi"') == "'say \"hi\"'"
    assert quote("it's") == "'it\\'s'" and quote("a\\b") == "'a\\\\b'"
    assert quote("two\nlines\tand\r") == "'two\\nlines\\tand\\r'"


def test_writer_output():
    frame = pd.DataFrame(
        {"n a": [85.0, np.nan, 0.1], "w": ["x", None, "it's"], "p": ["yes", "no", "yes"]}
    )
    table = make_table(frame, categories={"w": ["it's", "x"], "p": ["no", "yes"]})
    assert to_arff(table, "my rel") == (
        "@relation 'my rel'\n\n"
        "@attribute 'n a' numeric\n"
        "@attribute w {'it\\'s', x}\n"
        "@attribute p {no, yes}\n\n"
        "@data\n"
        "85,x,yes\n"
        "?,?,no\n"
        "0.1,'it\\'s',yes\n"
    )


def test_writer_ignored_and_valueless_columns_become_numeric_or_string():
    frame = pd.DataFrame(
        {"id": [1.0, 2.0], "tag": ["a", "b"], "none": [None, None], "y": ["p", "q"]}
    )
    table = make_table(frame, kinds={"id": "ignored", "tag": "ignored", "none": "nominal"})
    text = to_arff(table)
    assert "@attribute id numeric\n@attribute tag string\n@attribute none string\n" in text
    back, kinds, _ = parse_arff(text, "x.arff")
    assert back["tag"].tolist() == ["a", "b"] and back["none"].isna().all()
    assert kinds == {"id": "numeric", "tag": "nominal", "none": "nominal", "y": "nominal"}


value = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(value, min_size=1, max_size=5, unique=True).filter(lambda v: "" not in v),
    numbers=st.lists(st.floats(allow_nan=True, allow_infinity=False), min_size=1, max_size=6),
    data=st.data(),
)
def test_write_then_parse_gives_the_same_table(values, numbers, data):
    picks = data.draw(
        st.lists(st.sampled_from([*values, None]), min_size=len(numbers), max_size=len(numbers))
    )
    nominal = pd.Series(pd.Categorical(picks, categories=values))
    table = make_table(pd.DataFrame({"x": numbers, "v": nominal}))
    frame, kinds, _ = parse_arff(to_arff(table), "t.arff")
    assert kinds == {"x": "numeric", "v": "nominal"}
    assert list(frame["v"].cat.categories) == values
    pd.testing.assert_series_equal(frame["v"], table.frame["v"], check_names=False)
    np.testing.assert_array_equal(frame["x"].to_numpy(), table.frame["x"].to_numpy())


@pytest.mark.skipif(not WEKA_EXAMPLES.is_dir(), reason="Weka's example files are not installed")
@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("soybean.arff", (683, 36)),
        ("labor.arff", (57, 17)),
        ("credit-g.arff", (1000, 21)),
        ("ReutersGrain-test.arff", (604, 2)),
        ("supermarket.arff", (4627, 217)),
    ],
)
def test_weka_example_files(name, shape):
    table = read_arff(WEKA_EXAMPLES / name)
    assert table.frame.shape == shape
    if name == "soybean.arff":  # declared with a space: "same-lst-two-yrs, same-lst-sev-yrs}"
        assert "same-lst-sev-yrs" in table.frame["crop-hist"].cat.categories
    if name.startswith("Reuters"):  # quoted texts with \n escapes
        assert "\n" in table.frame["Text"].iloc[0]
