"""Browser tests: pytest-playwright driving Debian's Chromium against the live server.

Fixtures for every browser test:
- `login(page, user, password=DEFAULT_PASSWORD)`: log in through the real login form.
- `open_item(page, path)`: open an item page of the live server and wait for its script.
- `open_items(subtask, records)`: the records as one dataset assigned in input order to a new
  annotator, logged in, with the first item open in `page`; returns the `AssignedItem`s
  (tests/item_pages.py: `.url`, `.annotator`, `.stored()` reads the stored answer).
- `foreign_requests`: URLs the test's `page` (its whole browser context) requested
  from any host other than the live server; `record_foreign_requests(context)` does
  the same for a context a test opens itself. Every test that uses `page` also fails
  if its page made such a request, whether or not it asks for the list.

If Chromium cannot start, the tests fail; they are never skipped.
"""

import re
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import AbstractBaseUser
from playwright.sync_api import BrowserContext, Page, expect

from tests.factories import DEFAULT_PASSWORD
from tests.item_pages import AssignedItem, assigned_items

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(pytestconfig: pytest.Config) -> dict:
    # Debian's Chromium, never a browser downloaded by `playwright install`.
    return {
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
        "headless": not pytestconfig.getoption("--headed"),
    }


@pytest.fixture(scope="session", autouse=True)
def _allow_database_next_to_the_browser() -> Iterator[None]:
    # Playwright's sync API runs an event loop in the test thread; Django refuses
    # database calls from such a thread unless told that this is intended.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture
def login(live_server) -> Callable[..., None]:
    def log_in(page: Page, user: AbstractBaseUser, password: str = DEFAULT_PASSWORD) -> None:
        response = page.goto(f"{live_server.url}/accounts/login/")
        assert response is not None and response.ok, f"the login page answered {response and response.status}"
        page.locator("input[name=username]").fill(user.get_username())
        page.locator("input[name=password]").fill(password)
        page.locator("input[name=password]").press("Enter")
        # A refused login stays on the login page.
        expect(page).not_to_have_url(re.compile(r"/accounts/login/"))

    return log_in


@pytest.fixture
def open_item(live_server) -> Callable[[Page, str], None]:
    def open_page(page: Page, path: str) -> None:
        page.goto(live_server.url + path)
        page.wait_for_function("window.Polis !== undefined")  # the page's script is ready

    return open_page


@pytest.fixture
def open_items(page: Page, login, open_item) -> Callable[[str, list[dict]], list[AssignedItem]]:
    def open_first(subtask: str, records: list[dict]) -> list[AssignedItem]:
        items = assigned_items(subtask, records)
        login(page, items[0].annotator)
        open_item(page, items[0].url)
        return items

    return open_first


@pytest.fixture
def record_foreign_requests(live_server) -> Callable[[BrowserContext], list[str]]:
    own_host = urlsplit(live_server.url).netloc

    def record(context: BrowserContext) -> list[str]:
        urls: list[str] = []

        def on_request(request) -> None:
            parts = urlsplit(request.url)
            if parts.scheme in {"http", "https", "ws", "wss"} and parts.netloc != own_host:
                urls.append(request.url)

        context.on("request", on_request)
        return urls

    return record


@pytest.fixture
def foreign_requests(page: Page, record_foreign_requests) -> list[str]:
    return record_foreign_requests(page.context)


@pytest.fixture(autouse=True)
def _no_foreign_requests(request: pytest.FixtureRequest) -> Iterator[None]:
    if "page" not in request.fixturenames:
        yield
        return
    urls = request.getfixturevalue("foreign_requests")
    yield
    assert not urls, f"the page requested other hosts than the live server: {urls}"
