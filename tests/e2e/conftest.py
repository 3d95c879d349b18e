"""Browser tests: pytest-playwright driving Debian's Chromium against the live server.

Fixtures for every browser test:
- `login(page, user, password=DEFAULT_PASSWORD)`: log in through the real login form.
- `page_errors`: the uncaught script errors of the test's `page`.
- `screen(width)`: a page on a touch screen `width` CSS px wide (see tests/e2e/layout.py).
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
def page_errors(page: Page) -> list[str]:
    """The uncaught script errors of the test's `page`, as they happen."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.fixture
def open_item(live_server) -> Callable[[Page, str], None]:
    def open_page(page: Page, path: str) -> None:
        page.goto(live_server.url + path)
        page.wait_for_function("() => window.Polis !== undefined")  # the page's script is ready

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


@pytest.fixture
def screen(browser, record_foreign_requests) -> Iterator[Callable[[int], Page]]:
    """`screen(width)`: a page in a new browser context of a touch screen (a phone, or a
    tablet) `width` CSS px wide, as a mobile browser lays pages out. Closed at the end; the
    test fails if it requested any host other than the live server."""
    contexts: list[BrowserContext] = []
    recorded: list[list[str]] = []

    def open_screen(width: int) -> Page:
        context = browser.new_context(
            viewport={"width": width, "height": max(640, round(width * 16 / 9))},
            has_touch=True,
            is_mobile=True,
            device_scale_factor=2,
        )
        contexts.append(context)
        recorded.append(record_foreign_requests(context))
        return context.new_page()

    yield open_screen
    for context in contexts:
        context.close()
    foreign = [url for urls in recorded for url in urls]
    assert not foreign, f"the page requested other hosts than the live server: {foreign}"
