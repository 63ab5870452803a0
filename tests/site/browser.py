"""What the browser tests share: the system Chromium under Playwright, and a page on which nothing may go wrong.

Without Chromium (Debian's ``chromium``) or Playwright, a test module importing this is
skipped, except in CI (``CI`` set, as .ci/run sets it), where it fails: there they must run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterator

import pytest

IN_CI = bool(os.environ.get("CI"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    if IN_CI:
        raise
    pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)

if CHROMIUM is None:
    if IN_CI:
        pytest.fail("CI is set but there is no chromium: .ci/run installs Debian's chromium", pytrace=False)
    pytest.skip("no chromium on PATH (apt-get install chromium); CI runs these tests", allow_module_level=True)

ACTION_MS = 120_000
"""How long a page action or wait may take before it fails (Playwright's default is 30 s): a bound only a
broken page reaches, far above what a busy machine's Chromium needs."""
EXPECT_MS = 60_000
"""The same for ``expect(...)`` (Playwright's default is 5 s). Neither is ever waited out by a passing test."""
expect.set_options(timeout=EXPECT_MS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, tmp_path: Path) -> Iterator[Page]:
    """A page on which no script error, console error or dialog (an injected alert) may happen; when one
    does, a screenshot is saved and its path printed."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(ACTION_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on("dialog", lambda dialog: (errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    page.errors = errors  # type: ignore[attr-defined]
    yield page
    if errors:
        shot = tmp_path / "console-errors.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
    context.close()
    assert errors == [], errors
