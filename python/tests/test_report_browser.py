"""The `annotate --html` report in a real browser.

Debian's headless Chromium, driven by Selenium through Debian's
chromedriver (`.ci/deps` installs both; nothing is downloaded), opens the
report of a real 5-point match: it loads without script errors, its graph
and every mistake's diagram are drawn, a graph point jumps to its
decision, the hidden rows open on request, and the graph fits a narrow
window. With SHESHBESH_SCREENSHOTS=DIR the test leaves screenshots there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from browser import browser, drawn, shoot  # noqa: F401 (a fixture)
from conftest import MATCHES


@pytest.fixture(scope="module")
def report(cli, tmp_path_factory) -> Path:
    page = tmp_path_factory.mktemp("report") / "match.html"
    code, _, err = cli.run("annotate", str(MATCHES / "05_galaxy_5pt_match2430002.mat"),
                           "--ply", "0", "--html", str(page), "--quiet")
    assert code == 0, err
    return page


def test_the_report_loads_and_draws_its_graph_and_diagrams(browser, report):
    browser.get(report.as_uri())
    assert browser.title == "Sheshbesh analysis: lasse vs fcamilovski, 5-point match"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
    graph = browser.find_element(By.ID, "graph")
    assert drawn(graph)
    dots = graph.find_elements(By.CSS_SELECTOR, "circle")
    assert len(dots) > 100
    mistakes = browser.find_elements(By.CSS_SELECTOR, "div.m")
    boards = browser.find_elements(By.CSS_SELECTOR, "div.m svg.board")
    assert len(mistakes) > 10 and len(boards) == len(mistakes)
    assert all(drawn(b) for b in boards)
    # Each diagram has its cube; checker mistakes their dice and arrows.
    assert len(browser.find_elements(By.CSS_SELECTOR, "div.m svg.board g.cube")) > 0
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.candidates")) > 0
    shoot(browser, "report-top")
    browser.execute_script("arguments[0].scrollIntoView()", boards[0])
    shoot(browser, "report-diagram")


def test_a_graph_point_jumps_to_its_decision(browser, report):
    browser.get(report.as_uri())
    links = browser.find_elements(By.CSS_SELECTOR, "#graph a")
    # A point of a marked decision: it links to the decision's diagram.
    # SVG links: the attribute as written (`#g2m26p1checker`).
    link = next(a for a in links if a.get_dom_attribute("href").startswith("#g"))
    target = link.get_dom_attribute("href")[1:]
    link.find_element(By.CSS_SELECTOR, "circle").click()
    assert browser.execute_script("return location.hash") == f"#{target}"
    top = browser.execute_script(
        "return document.getElementById(arguments[0]).getBoundingClientRect().top", target)
    assert abs(top) < 5, f"#{target} is at {top} px, not at the top of the window"


def test_hidden_rows_open_on_request_and_the_graph_fits_a_narrow_window(browser, report):
    browser.get(report.as_uri())
    minor = browser.find_elements(By.CSS_SELECTOR, "tr.minor")
    assert minor and not any(r.is_displayed() for r in minor)
    browser.find_element(By.CSS_SELECTOR, "label[for=every]").click()
    assert all(r.is_displayed() for r in minor)
    browser.set_window_size(600, 900)
    width = browser.find_element(By.ID, "graph").size["width"]
    body = browser.execute_script("return document.body.clientWidth")
    assert 0 < width <= body, (width, body)
    shoot(browser, "report-narrow")
    browser.set_window_size(1300, 900)
