"""The interactive page in a real headless Chromium (issue 36), driven through Selenium: it
loads with no console errors, shows every node, and a row typed into its form gets
``predict``'s class and ``predict_proba``'s probabilities, missing values included.

Only with ``-m browser``; skipped without Chromium, its driver or Selenium
(``apt-get install chromium chromium-driver``)."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.export.html_page import page_model, to_html

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (BROWSER and DRIVER):
    pytest.skip("Chromium and chromedriver are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def _open(browser, tmp_path, model):
    path = tmp_path / "tree.html"
    path.write_text(to_html(model.tree_, model.settings_.algorithm), encoding="utf-8")
    browser.get(path.as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    return browser


def _type_row(browser, model, row: dict) -> tuple[str, np.ndarray]:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.find_element(By.ID, "clear-row").click()
    for k, attribute in enumerate(model.schema_.attributes):
        field = browser.find_element(By.CSS_SELECTOR, f'[data-attribute="{k}"]')
        value = row.get(attribute.name)
        if value is None:
            continue
        if attribute.is_nominal:
            Select(field).select_by_value(str(attribute.categories.index(value)))
        else:
            field.send_keys(repr(float(value)))
    browser.find_element(By.CSS_SELECTOR, "#row-form button[type=submit]").click()
    label = browser.find_element(By.ID, "prediction").get_attribute("data-value")
    cells = browser.find_elements(By.CSS_SELECTOR, "#probabilities td.p")
    return label, np.array([float(c.get_attribute("data-p")) for c in cells])


def _check_rows(browser, model, frame: pd.DataFrame):
    for record in frame.to_dict("records"):
        row = {k: (None if pd.isna(v) else v) for k, v in record.items()}
        label, proba = _type_row(browser, model, row)
        one = pd.DataFrame([record])
        assert label == str(model.predict(one)[0])
        np.testing.assert_allclose(proba, model.predict_proba(one)[0], rtol=0, atol=1e-12)
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def _with_holes(frame: pd.DataFrame, target: str, seed: int) -> pd.DataFrame:
    """``frame``'s rows with about a third of their values missing (C4.5's fractional routing)."""
    rng = np.random.default_rng(seed)
    out = frame.drop(columns=[target]).astype(object)
    out = out.mask(rng.random(out.shape) < 0.35)
    return out


def test_weather_rows_get_predicts_answers(browser, tmp_path):
    table = load_sample("weather")
    model = DecisionTree(algorithm="c45", min_samples_leaf=1).fit(table)
    _open(browser, tmp_path, model)
    stats = browser.find_element("id", "stats")
    assert int(stats.get_attribute("data-nodes")) == model.tree_.n_nodes
    assert browser.execute_script("return window.arbor.shown()") == model.tree_.n_nodes
    nodes = page_model(model.tree_)["nodes"]
    texts = zip(nodes["head"], nodes["edge"], nodes["cond"], strict=True)
    expected = sum("windy" in "\n".join(t).lower() for t in texts)
    browser.find_element("id", "search").send_keys("Windy")
    assert browser.find_element("id", "found").text == f"{expected} found"
    rows = pd.concat(
        [table.frame.drop(columns=["play"]).head(5), _with_holes(table.frame, "play", 1)]
    )
    _check_rows(browser, model, rows.head(12))


def _at(browser, row: int):
    """The pointer over node ``row`` (pre-order) of the page's canvas."""
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = browser.find_element("id", "tree")
    x, y = browser.execute_script(f"return window.arbor.place({row})")
    size = canvas.size
    return ActionChains(browser).move_to_element_with_offset(
        canvas, int(x - size["width"] / 2), int(y - size["height"] / 2)
    )


def test_hover_shows_counts_and_rule_and_a_click_collapses(browser, tmp_path):
    model = DecisionTree(algorithm="id3").fit(load_sample("weather"))
    _open(browser, tmp_path, model)
    nodes = page_model(model.tree_)["nodes"]
    leaf = 2  # pre-order: the root, humidity, then humidity's first leaf
    assert nodes["parent"][leaf] == 1 and nodes["attribute"][leaf] == -1
    _at(browser, leaf).perform()
    tip = browser.find_element("id", "tip")
    assert tip.is_displayed()
    assert "IF outlook = sunny AND humidity = high" in tip.text
    assert "no: 3 (100.0%)" in tip.text
    _at(browser, 1).click().perform()
    assert browser.execute_script("return window.arbor.shown()") == 6
    _at(browser, 1).click().perform()
    assert browser.execute_script("return window.arbor.shown()") == 8


def test_a_word_in_a_number_field_is_refused_with_a_message(browser, tmp_path):
    from selenium.webdriver.common.by import By

    model = DecisionTree(algorithm="c45").fit(load_sample("iris"))
    _open(browser, tmp_path, model)
    browser.find_element(By.CSS_SELECTOR, '[data-attribute="0"]').send_keys("tall")
    browser.find_element(By.CSS_SELECTOR, "#row-form button[type=submit]").click()
    message = browser.find_element(By.ID, "row-error").text
    assert message.startswith("Not a number: sepallength.")
    assert browser.find_elements(By.ID, "prediction") == []


def test_laplace_rows_get_predicts_probabilities(browser, tmp_path):
    """With pseudocounts the page gives predict's probabilities, not the leaves' class shares."""
    table = load_sample("weather")
    model = DecisionTree(algorithm="id3", laplace=True).fit(table)
    _open(browser, tmp_path, model)
    rows = pd.concat(
        [table.frame.drop(columns=["play"]).head(4), _with_holes(table.frame, "play", 3)]
    )
    _check_rows(browser, model, rows.head(10))


def test_iris_numeric_rows_with_missing_values(browser, tmp_path):
    table = load_sample("iris")
    model = DecisionTree(algorithm="c45").fit(table)
    _open(browser, tmp_path, model)
    assert (
        int(browser.find_element("id", "stats").get_attribute("data-nodes")) == model.tree_.n_nodes
    )
    frame = table.frame.iloc[::15]
    rows = pd.concat([frame.drop(columns=[table.target]), _with_holes(frame, table.target, 2)])
    _check_rows(browser, model, rows)


def test_a_5000_node_tree_loads_and_collapses(browser, tmp_path):
    rng = np.random.default_rng(0)
    n = 9000
    frame = pd.DataFrame(rng.random((n, 4)), columns=list("abcd"))
    frame["y"] = np.where(rng.random(n) < 0.5, "p", "q")
    model = DecisionTree(algorithm="cart", prune="none").fit(make_table(frame))
    nodes = model.tree_.n_nodes
    assert nodes > 4000
    _open(browser, tmp_path, model)
    assert int(browser.find_element("id", "stats").get_attribute("data-nodes")) == nodes
    assert browser.execute_script("window.arbor.collapse(3); return window.arbor.shown()") == 7
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_cart_classes_and_regression_means(browser, tmp_path):
    table = load_sample("weather-numeric")
    model = DecisionTree(algorithm="cart", prune="none").fit(table)
    _open(browser, tmp_path, model)
    _check_rows(browser, model, _with_holes(table.frame, "play", 3).head(6))

    frame = table.frame.drop(columns=["play"])
    regression = DecisionTree(algorithm="cart", task="regression", prune="none")
    regression.fit(make_table(frame), target="temperature")
    _open(browser, tmp_path, regression)
    for record in _with_holes(frame, "temperature", 4).head(6).to_dict("records"):
        row = {k: (None if pd.isna(v) else v) for k, v in record.items()}
        value, proba = _type_row(browser, regression, row)
        assert len(proba) == 0
        expected = regression.predict(pd.DataFrame([record]))[0]
        assert float(value) == pytest.approx(expected, rel=1e-12)


def test_hostile_names_show_as_text_and_run_nothing(browser, tmp_path):
    from selenium.webdriver.common.by import By

    attack = ["</script><script>window.pwned=1</script>", '<img src=x onerror="window.pwned=1">']
    rows = [(attack[k % 2], float(k), attack[0] if k > 5 else "<!--") for k in range(12)]
    frame = pd.DataFrame(rows, columns=[attack[1], "x\u2028y", attack[0]])
    model = DecisionTree(algorithm="cart").fit(make_table(frame))
    _open(browser, tmp_path, model)
    assert browser.execute_script("return window.pwned") is None
    assert browser.title == f"Decision tree: {attack[0]}"
    legend = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#legend .entry span + span")]
    assert sorted(legend) == sorted(model.tree_.classes)
    names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#fields .name")]
    assert names[0] == attack[1]
