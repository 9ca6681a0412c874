"""A real browser for the page tests: Debian's headless Chromium, driven by
Selenium through Debian's chromedriver (`.ci/deps` installs both; nothing
is downloaded). With SHESHBESH_SCREENSHOTS=DIR the tests leave screenshots
there."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def start(profile: Path) -> webdriver.Chrome:
    for p in (CHROMIUM, CHROMEDRIVER):
        if not p.exists():
            pytest.fail(f"{p} is missing: `bash .ci/deps` installs chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage", "--window-size=1300,900",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator[webdriver.Chrome]:
    driver = start(tmp_path_factory.mktemp("chromium"))
    yield driver
    driver.quit()


def shoot(driver: webdriver.Chrome, name: str) -> None:
    folder = os.environ.get("SHESHBESH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def drawn(element) -> bool:
    size = element.size
    return element.is_displayed() and size["width"] > 0 and size["height"] > 0
