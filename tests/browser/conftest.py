"""Headless Chromium against the real stack: ``front_door`` (every game service and the players
service under gunicorn behind Caddy, over the session's real Redis) and, for the playground, the
real Celery worker that plays the bots.

The browser is Debian's ``/usr/bin/chromium`` (``LUDOTECA_CHROMIUM`` to use another), driven by
Playwright (the PyPI package; no browser of its own is ever downloaded: ``make install`` installs
Chromium with apt-get when it is missing). Each session gets a fresh profile directory; every
request a page makes is checked: anything that does not go to the front door on 127.0.0.1 is
refused and recorded (the pages must work offline), and every failed request is recorded.

Screenshots go to ``var/artifacts/screenshots/`` (``LUDOTECA_ARTIFACTS`` for another directory;
``var/`` is not committed); the test names say which is which, and a failed test leaves
``failed-<test>.png`` of the page as it was.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import FrontDoor
from playwright.sync_api import BrowserContext, Page, Playwright, Request, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("LUDOTECA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(os.environ.get("LUDOTECA_ARTIFACTS", ROOT / "var" / "artifacts")) / "screenshots"
WAIT_MS = 20_000  # Playwright's default for every action and wait; longer waits say so


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def chromium(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """Debian's Chromium, headless, with a fresh profile (closed at the end, failures included)."""
    if not CHROMIUM.is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make install` installs Debian's (apt-get install -y chromium)")
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
        headless=True, timeout=60_000, viewport={"width": 1280, "height": 1000}, service_workers="block")
    try:
        context.set_default_timeout(WAIT_MS)
        context.set_default_navigation_timeout(30_000)
        yield context
    finally:
        context.close()


@dataclass
class Traffic:
    """What a page asked for: every request, the ones refused (not to the front door) and the
    ones that failed, with the HTTP errors (status >= 400) among the answers."""

    origin: str
    sent: list[tuple[str, str]] = field(default_factory=list)  # (method, url)
    refused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    http_errors: list[str] = field(default_factory=list)

    def is_local(self, url: str) -> bool:
        door = urlsplit(self.origin)
        parts = urlsplit(url)
        return (parts.scheme, parts.hostname, parts.port) == (door.scheme, door.hostname, door.port)

    def route(self, route: Route) -> None:
        if self.is_local(route.request.url):
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort("blockedbyclient")

    def on_request(self, request: Request) -> None:
        self.sent.append((request.method, request.url))

    def on_failed(self, request: Request) -> None:
        self.failed.append(f"{request.method} {request.url}: {request.failure}")

    def paths(self, method: str) -> list[str]:
        return [urlsplit(url).path for m, url in self.sent if m == method]

    def assert_clean(self, allowed_errors: Callable[[str], bool] = lambda line: False) -> None:
        assert self.sent, "the page sent nothing"
        assert all(self.is_local(url) for _, url in self.sent), self.sent
        assert self.refused == [], self.refused
        assert self.failed == [], self.failed
        assert [e for e in self.http_errors if not allowed_errors(e)] == []


@dataclass
class Tab:
    page: Page
    traffic: Traffic
    errors: list[str]  # uncaught exceptions and console errors of the page

    def shot(self, name: str) -> Path:
        """A screenshot of the whole page, ``<ARTIFACTS>/<name>.png``."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]', '-', name)}.png"
        self.page.screenshot(path=str(path), full_page=True, timeout=30_000)
        return path


FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


@pytest.fixture()
def tab(chromium: BrowserContext, front_door: FrontDoor, request: pytest.FixtureRequest) -> Iterator[Tab]:
    """A new page whose every request is checked (see :class:`Traffic`); closed afterwards."""
    traffic = Traffic(front_door.url)
    page = chromium.new_page()
    errors: list[str] = []
    tab = Tab(page, traffic, errors)
    try:
        page.route("**/*", traffic.route)
        page.on("request", traffic.on_request)
        page.on("requestfailed", traffic.on_failed)
        page.on("response", lambda r: traffic.http_errors.append(f"{r.status} {r.request.method} {r.url}")
                if r.status >= 400 else None)
        page.on("pageerror", lambda err: errors.append(f"uncaught: {err}"))
        page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
        yield tab
        if request.node.stash.get(FAILED, False):
            try:
                tab.shot(f"failed-{request.node.name}")
            except PlaywrightError as err:  # a page that crashed: the failure says enough
                print(f"no screenshot of the failed page: {err}")
    finally:
        page.close()
