"""axe-core (shipped by axe-playwright-python, pinned in requirements.txt) over a page of the
browser tests: `violations(page, rules=None)` -> one line per violation and node, empty when the
page conforms to the WCAG 2.2 A/AA rules that axe checks automatically.

Only violations count: axe's "incomplete" results (contrast over an image, say) are left to the
checks done by hand (README, "Accessibility")."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

# The WCAG 2.0, 2.1 and 2.2 success criteria of levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# The rules whose outcome depends on the viewport's width: run again at 360 px.
LAYOUT_RULES = ["target-size", "scrollable-region-focusable"]

_axe = Axe()


def violations(page: Page, rules: list[str] | None = None) -> list[str]:
    run_only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": WCAG_TAGS}
    # target-size is a WCAG 2.2 AA rule that axe tags "wcag22aa"; run by name it needs no tag.
    results = _axe.run(page, options={"runOnly": run_only, "resultTypes": ["violations"]})
    found = []
    for violation in results.response["violations"]:
        for node in violation["nodes"]:
            found.append(f"{violation['id']} ({violation['impact']}): {' '.join(map(str, node['target']))}: "
                         f"{node['failureSummary'].splitlines()[-1].strip()}")
    return found
