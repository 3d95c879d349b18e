"""What assistive technology relies on, in Chromium: the live regions that announce a save, a
refusal and a flag stay the same nodes; every item that opens is announced by its heading (the
focus goes there, or to the answer field described by it); a resolved flag keeps the focus;
in forced colours (Windows high contrast) mentions, the selected discourse unit, the primary
button and the progress bar stay visible."""

import re

import pytest
from playwright.sync_api import Page, expect

from annotation.models import Flag, KeyPreference
from tests.e2e.layout import assert_fits
from tests.e2e.test_narrow_screens import ITEM_ACTIONS, RECORDS, WIDGET_ACTIONS
from tests.factories import DEFAULT_PASSWORD, make_user
from tests.item_pages import assigned_items

LIVE_REGIONS = ("save-status", "answer-problems", "flag-status")


def remember_live_regions(page: Page) -> None:
    page.evaluate("(ids) => { window.liveRegions = ids.map((id) => document.getElementById(id)); }", list(LIVE_REGIONS))


def live_regions_kept(page: Page) -> list[str]:
    """The ids of the live regions that are no longer the nodes remembered (replaced)."""
    return page.evaluate(
        "(ids) => ids.filter((id, index) => document.getElementById(id) !== window.liveRegions[index])",
        list(LIVE_REGIONS),
    )


def test_a_save_a_refusal_and_a_flag_change_the_live_regions_text_only(page: Page, open_items):
    open_items("numerals", [RECORDS["numerals"], {**RECORDS["numerals"], "id": "second"}])
    for region, role in (("#save-status", "status"), ("#flag-status", "status"), ("#answer-problems", "alert")):
        expect(page.locator(region)).to_have_attribute("role", role)
    remember_live_regions(page)

    field = page.locator("#numeral-answer")
    field.fill("12")  # digits: the server refuses the save
    field.press("Enter")
    expect(page.locator("#answer-problems li")).not_to_have_count(0)
    expect(page.locator("#save-status")).to_contain_text(re.compile("Not saved"))
    assert live_regions_kept(page) == []

    field.fill("dwanaście")  # a draft, saved by the autosave
    expect(page.locator("#save-status")).to_contain_text(re.compile("Draft saved"))
    expect(page.locator("#answer-problems")).to_be_empty()
    assert live_regions_kept(page) == []

    page.locator("#action-flag").click()
    page.locator("#flag-comment").fill("Dwie formy są poprawne.")
    page.locator("#flag-dialog").get_by_role("button", name=re.compile("Send the flag")).click()
    expect(page.locator("#flag-status")).to_contain_text("Thank you")
    assert live_regions_kept(page) == []


def test_every_opened_item_is_announced_by_its_heading(page: Page, open_items):
    """Commas and discourse have no answer field to start in: the heading takes the focus after
    save & next, skip and previous; a widget that focuses its field has it described by the heading."""
    for subtask in ("commas", "discourse"):
        first, second = open_items(subtask, [RECORDS[subtask], {**RECORDS[subtask], "id": "second"}])
        heading = page.locator("#item-heading")
        expect(heading).to_be_focused()
        expect(heading).to_contain_text("Item 1 of 2")
        page.locator("#action-skip").click()  # a page load
        expect(page).to_have_url(re.compile(r"/2/$"))
        expect(heading).to_be_focused()
        expect(heading).to_contain_text("Item 2 of 2")
        page.locator("#action-previous").click()
        expect(heading).to_contain_text("Item 1 of 2")
        expect(heading).to_be_focused()
        if subtask == "commas":
            page.locator(".comma-slot").first.click()
            page.locator("#action-save").click()  # save & next: swapped in, no page load
            expect(heading).to_contain_text("Item 2 of 2")
            expect(heading).to_be_focused()

    open_items("wsd", [RECORDS["wsd"], {**RECORDS["wsd"], "id": "second"}])
    page.locator('.wsd-card[data-choice="B"]').click()
    page.locator("#action-save").click()
    expect(page.locator("#item-heading")).to_contain_text("Item 2 of 2")
    card = page.locator(".wsd-card").first
    expect(card).to_be_focused()
    expect(card).to_have_attribute("aria-describedby", re.compile(r"\bitem-heading\b"))


def test_the_focus_stays_on_a_flag_the_organizer_resolves(page: Page, open_items, login, live_server):
    (item,) = open_items("wsd", [RECORDS["wsd"]])
    flag = Flag.objects.create(item=item.item, raised_by=item.annotator, comment="Niejasne")
    page.context.clear_cookies()
    login(page, make_user("organizer"))
    page.goto(f"{live_server.url}/organize/{item.item.dataset_id}/")
    row = page.locator(f"#flag-{flag.pk}")
    row.get_by_role("button", name="Resolve").click()
    expect(row).to_contain_text("resolved")
    expect(row.locator("p[autofocus]")).to_be_focused()


# An element stands out in forced colours when its background differs from the page's, or it
# has a visible edge (border or outline), and its text stays readable on its background.
LOOKS = """(element) => {
  const rgba = (value) => (value.match(/[\\d.]+/g) || []).map(Number);
  const opaque = (value) => { const c = rgba(value); return c.length === 3 || (c.length === 4 && c[3] > 0); };
  const behind = (node) => { while (node && !opaque(getComputedStyle(node).backgroundColor)) node = node.parentElement;
    return node ? getComputedStyle(node).backgroundColor : "rgb(255, 255, 255)"; };
  const luminance = (value) => { const [r, g, b] = rgba(value).slice(0, 3).map((c) => c / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const style = getComputedStyle(element);
  const background = behind(element), page = behind(element.parentElement);
  const edge = (parseFloat(style.borderTopWidth) > 0 && style.borderTopStyle !== "none" && contrast(style.borderTopColor, page) > 3)
    || (parseFloat(style.outlineWidth) > 0 && style.outlineStyle !== "none" && contrast(style.outlineColor, page) > 3);
  return { standsOut: background !== page || edge, text: contrast(style.color, background),
           background, page, edge, outline: style.outlineStyle + " " + style.outlineWidth };
}"""


def assert_stands_out(page: Page, selector: str) -> None:
    elements = page.locator(selector)
    assert elements.count(), f"nothing matches {selector}"
    for index in range(elements.count()):
        looks = elements.nth(index).evaluate(LOOKS)
        assert looks["standsOut"] and looks["text"] >= 4.5, f"{selector} #{index + 1} in forced colours: {looks}"


def test_forced_colours_keep_mentions_the_selected_unit_the_primary_button_and_progress_visible(page: Page, open_items):
    page.emulate_media(forced_colors="active", color_scheme="dark")
    open_items("coreference", [RECORDS["coreference"]])
    assert_stands_out(page, ".coref-context mark.mention")
    assert_stands_out(page, ".coref-candidate mark.mention")
    assert_stands_out(page, "#action-save")
    assert_stands_out(page, ".progress-bar")

    open_items("discourse", [RECORDS["discourse"]])
    page.locator('.du-row[data-number="2"] .du-text').click()
    selected = page.locator(".du-row.is-selected").evaluate(LOOKS)
    other = page.locator('.du-row[data-number="3"]').evaluate(LOOKS)
    assert selected["outline"] != other["outline"] or selected["background"] != other["background"], (selected, other)


def test_single_key_shortcuts_can_be_turned_off_for_alt_and_the_choice_is_remembered(page: Page, open_items, open_item):
    item, second = open_items("wsd", [RECORDS["wsd"], {**RECORDS["wsd"], "id": "second"}])
    page.keyboard.press("?")
    page.locator("#single-keys-off").click()
    page.wait_for_function("() => window.Polis !== undefined")
    assert not KeyPreference.objects.get(user=item.annotator).single_keys
    open_item(page, item.url)  # remembered: another page load, the same setting
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("b")
    expect(page.locator(".wsd-card[aria-checked=true]")).to_have_count(0)
    page.keyboard.press("Alt+b")
    expect(page.locator('.wsd-card[data-choice="B"]')).to_have_attribute("aria-checked", "true")
    expect(page.locator("#action-skip kbd")).to_have_text("Alt+Shift+S")
    # The hints printed on the cards and the buttons say Alt too; "Enter" and "F1" stay alone.
    expect(page.locator('.wsd-card[data-choice="B"] .choice-keys kbd')).to_have_text(["Alt+B", "Alt+2"])
    expect(page.locator("#action-save kbd")).to_have_text("Enter")
    page.keyboard.press("Enter")  # the next item is swapped in: its hints are marked as well
    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    expect(page.locator('.wsd-card[data-choice="A"] .choice-keys kbd')).to_have_text(["Alt+A", "Alt+1"])
    page.keyboard.press("Alt+Shift+Slash")  # Alt+?
    expect(page.locator("#keys-help")).to_be_visible()
    expect(page.locator("#keys-list")).to_contain_text("Alt+B")
    page.locator("#single-keys-on").click()
    page.wait_for_function("() => window.Polis !== undefined")
    assert KeyPreference.objects.get(user=item.annotator).single_keys


def test_screen_readers_get_names_and_states(page: Page, open_items):
    """What the audit heard: comma markers that said only "pressed", eight head buttons all
    named "head", words read "1Atmosfera", nameless dialogs, 21 relation Tab stops."""
    open_items("commas", [RECORDS["commas"]])
    marker = page.locator('.comma-slot[data-marker="2"]')
    for state in ("no comma", "comma required", "comma optional", "no comma"):
        expect(marker).to_have_accessible_name(f"Position 2: {state}")
        marker.click()
    expect(page.locator("button.comma-slot[aria-pressed]")).to_have_count(0)
    expect(page.locator(".language-switch [aria-current=true]")).to_have_text("EN")

    open_items("discourse", [RECORDS["discourse"]])
    heads = page.locator(".du-set-head")
    names = {heads.nth(index).evaluate("(button) => button.getAttribute('aria-label')") for index in range(heads.count())}
    assert len(names) == heads.count() == 10, names
    page.locator('.du-row[data-number="2"] .du-text').click()
    expect(page.locator('.du-row[data-number="2"]')).to_have_attribute("aria-current", "true")
    expect(page.locator(".du-row[aria-current]")).to_have_count(1)
    expect(page.get_by_role("combobox", name="Relation")).to_have_count(1)
    expect(page.locator('.relation-option:not([tabindex="-1"])')).to_have_count(0)
    page.keyboard.press("?")
    expect(page.get_by_role("dialog", name="Keys")).to_be_visible()
    page.keyboard.press("Escape")
    page.locator("#action-flag").click()
    expect(page.get_by_role("dialog", name="Flag this item")).to_be_visible()
    page.keyboard.press("Escape")

    open_items("morphosyntax", [RECORDS["morphosyntax"]])
    page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]').click()
    expect(page.locator('.morph-word[data-index="0"]')).to_have_accessible_name("Atmosfera, 1")


# WCAG 1.4.12: the spacing a reader may set, as the W3C's text-spacing bookmarklet sets it.
TEXT_SPACING = """* { line-height: 1.5 !important; letter-spacing: .12em !important; word-spacing: .16em !important; }
p { margin-bottom: 2em !important; }"""


@pytest.mark.parametrize("subtask", list(RECORDS))
def test_the_item_page_keeps_every_action_with_a_readers_text_spacing(browser, live_server, subtask):
    """A reader's style sheet (its own, so the page's Content-Security-Policy is bypassed for it)
    widens letters, words and lines: nothing scrolls sideways and every action stays reachable."""
    first, second = assigned_items(subtask, [RECORDS[subtask], {**RECORDS[subtask], "id": "second"}])
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.locator("input[name=username]").fill(first.annotator.get_username())
    page.locator("input[name=password]").fill(DEFAULT_PASSWORD)
    page.locator("input[name=password]").press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(live_server.url + second.url)
    page.wait_for_function("() => window.Polis !== undefined")
    page.add_style_tag(content=TEXT_SPACING)
    assert page.evaluate("getComputedStyle(document.body).wordSpacing") != "0px"  # the reader's sheet applies
    assert_fits(page, actions=ITEM_ACTIONS + WIDGET_ACTIONS[subtask])
    context.close()


# Each element the Tab key reaches: how it looks focused and once the focus has left it.
RECORD_FOCUS = """() => {
  const look = (element) => { const s = getComputedStyle(element);
    return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor, s.borderWidth, s.backgroundColor].join(" "); };
  const name = (element) => element.tagName.toLowerCase() + (element.id ? "#" + element.id : "")
    + [...element.classList].map((c) => "." + c).join("");
  window.focusWalk = [];
  document.addEventListener("focusin", (event) => {
    const entry = { name: name(event.target), focused: look(event.target) };
    window.focusWalk.push(entry);
    event.target.addEventListener("focusout", () => requestAnimationFrame(() => { entry.left = look(event.target); }), { once: true });
  });
}"""


@pytest.mark.parametrize("subtask", list(RECORDS))
def test_the_tab_key_walks_every_item_page_with_a_visible_focus_and_no_trap(
    page: Page, open_items, live_server, subtask
):
    """WCAG 2.1.2 and 2.4.7: Tab alone goes through the whole page from its first link and out
    of it (no trap), and every element it reaches looks different while focused."""
    _first, second = open_items(subtask, [RECORDS[subtask], {**RECORDS[subtask], "id": "second"}])
    page.goto(live_server.url + second.url)  # the second: it has every action
    page.wait_for_load_state("networkidle")
    page.evaluate(RECORD_FOCUS)
    page.locator("a.brand").focus()
    stops = page.evaluate("""() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
        .filter((element) => element.tabIndex >= 0 && !element.disabled && element.checkVisibility({ visibilityProperty: true })
                 && !element.closest('dialog:not([open]), [inert]')).length""")
    for _ in range(stops + 1):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement === document.body"):
            break
    # The last element is left for the browser's own controls: it keeps its look, unjudged.
    walk = page.evaluate("window.focusWalk")[:-1]
    names = [entry["name"] for entry in walk]
    assert len(names) >= stops - 1, f"Tab reached only {names} of {stops} stops"  # all but the last, unjudged
    assert names.count(names[0]) <= 2, f"Tab came back round without leaving the page (a trap?): {names}"
    unseen = [entry["name"] for entry in walk if "left" in entry and entry["left"] == entry["focused"]]
    assert not unseen, f"no visible focus on {unseen}"
