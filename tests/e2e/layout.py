"""Checks that a page fits a narrow screen, for the browser tests of every annotator and
adjudicator page (the `screen` fixture in conftest.py opens a touch screen of a given width).

- `assert_fits(page, apart=[(a, b), ...], actions=[...])`: all three checks below.
- `assert_no_horizontal_scroll(page)`: the document is no wider than the viewport.
- `assert_apart(page, a, b)`: no box of an element matching CSS selector `a` overlaps one matching `b`.
- `assert_reachable(page, selector)`: every element matching `selector` can be tapped: once
  scrolled into view it lies inside the viewport's width and is the topmost element at its centre.
"""

from collections.abc import Iterable

from playwright.sync_api import Page

PHONE = 360  # CSS px: the narrowest phone screen the pages are made for
TABLET = 768  # at and above it, the discourse editor shows the unit list beside the tree


def assert_no_horizontal_scroll(page: Page) -> None:
    widths = page.evaluate(
        "() => ({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth})"
    )
    # A mobile browser widens its layout viewport to content that does not fit (and zooms
    # out), so the document is held to the screen's width too.
    screen = page.viewport_size["width"]
    if widths["scroll"] > min(widths["client"], screen):
        raise AssertionError(
            f"{page.url}: {widths['scroll']} px wide on a {screen} px screen, beyond it: {sticking_out(page, screen)}"
        )


def sticking_out(page: Page, width: int) -> list[str]:
    """The innermost elements whose right edge lies beyond `width` (the first few)."""
    return page.evaluate(
        """(width) => {
        const out = [...document.body.querySelectorAll("*")].filter((element) => element.getBoundingClientRect().right > width + 0.5);
        const innermost = out.filter((element) => !out.some((other) => other !== element && element.contains(other)));
        const name = (element) => element.tagName.toLowerCase() + (element.id ? "#" + element.id : "")
          + [...element.classList].map((c) => "." + c).join("");
        return innermost.slice(0, 5).map((element) => `${name(element.parentElement)} > ${name(element)} (${Math.round(element.getBoundingClientRect().right)} px)`);
    }""",
        width,
    )


def assert_apart(page: Page, first: str, second: str) -> None:
    overlaps = page.evaluate(
        """([first, second]) => {
        const boxes = (selector) => [...document.querySelectorAll(selector)]
          .map((element) => element.getBoundingClientRect()).filter((box) => box.width > 0 && box.height > 0);
        const found = [];
        for (const a of boxes(first)) for (const b of boxes(second)) {
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) found.push([a.toJSON(), b.toJSON()]);
        }
        return {found, counts: [boxes(first).length, boxes(second).length]};
    }""",
        [first, second],
    )
    assert overlaps["counts"][0] and overlaps["counts"][1], f"{page.url}: nothing shown for {first} or {second}"
    assert not overlaps["found"], f"{page.url}: {first} overlaps {second}: {overlaps['found'][:2]}"


def assert_reachable(page: Page, selector: str) -> None:
    elements = page.locator(selector)
    assert elements.count(), f"{page.url}: no {selector}"
    for index in range(elements.count()):
        element = elements.nth(index)
        element.scroll_into_view_if_needed()
        problem = element.evaluate(
            """(element) => {
            const box = element.getBoundingClientRect();
            if (box.width === 0 || box.height === 0) return "not shown";
            if (box.left < 0 || box.right > Math.min(document.documentElement.clientWidth, innerWidth) + 0.5) {
              return `outside the viewport's width (${box.left}..${box.right})`;
            }
            const line = element.getClientRects()[0]; // a link broken over lines: its first line
            const top = document.elementFromPoint(line.left + line.width / 2, line.top + line.height / 2);
            if (!top || !(element === top || element.contains(top) || top.contains(element) && top.tagName === "LABEL")) {
              return `covered by ${top && top.outerHTML.slice(0, 80)}`;
            }
            return null;
        }"""
        )
        assert problem is None, f"{page.url}: {selector} #{index + 1} {problem}"


def assert_fits(page: Page, apart: Iterable[tuple[str, str]] = (), actions: Iterable[str] = ()) -> None:
    assert_no_horizontal_scroll(page)
    for first, second in apart:
        assert_apart(page, first, second)
    for selector in actions:
        assert_reachable(page, selector)
    assert_no_horizontal_scroll(page)  # scrolling actions into view must not have widened it
