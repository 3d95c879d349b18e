"""The site loads in a real browser from the live server alone."""

import re

from playwright.sync_api import Page, expect

from tests.factories import make_user


def failed_responses(page: Page) -> list[str]:
    failures: list[str] = []
    page.on("response", lambda response: response.status >= 400 and failures.append(f"{response.status} {response.url}"))
    page.on("requestfailed", lambda request: failures.append(f"failed {request.url}"))
    return failures


def test_admin_login_page_loads_from_the_live_server_alone(page: Page, live_server, foreign_requests):
    failures = failed_responses(page)

    page.goto(f"{live_server.url}/admin/login/")

    expect(page.locator("#id_username")).to_be_visible()
    expect(page.locator("#id_password")).to_be_visible()
    assert failures == []
    assert foreign_requests == []


def test_home_page_after_login_loads_from_the_live_server_alone(page: Page, live_server, login, foreign_requests):
    annotator = make_user("annotator")
    failures = failed_responses(page)

    login(page, annotator)

    expect(page).to_have_url(re.compile(rf"^{re.escape(live_server.url)}/"))
    expect(page.locator("header .username")).to_have_text(annotator.username)
    # The project's stylesheet arrived and applies (app.css lays the top bar out in flex).
    expect(page.locator("header.topbar")).to_have_css("display", "flex")
    assert failures == []
    assert foreign_requests == []


def test_pages_have_an_icon_and_favicon_ico_leads_to_it(page: Page, live_server):
    failed: list[str] = []
    page.on("response", lambda response: response.status >= 400 and failed.append(f"{response.status} {response.url}"))
    page.goto(f"{live_server.url}/accounts/login/")
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert page.request.get(live_server.url + icon).ok
    response = page.request.get(f"{live_server.url}/favicon.ico")
    assert response.ok and response.headers["content-type"].startswith("image/svg+xml")
    assert failed == []
