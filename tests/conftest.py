"""Suite-wide rules.

With CI=true nothing may be skipped: a test that would skip (no PostgreSQL, no
browser, ...) is reported as a failure instead, so CI cannot pass by skipping.
Every test starts in the default language: a page asked for in Polish leaves Polish active
in the thread, which would make what a later test reads depend on the order of tests.
"""

import os

import pytest
from django.utils import translation

IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where nothing may be skipped: {reason}"
    return report


@pytest.fixture(autouse=True)
def default_language():
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def refusals_name_their_codes(monkeypatch):
    """Every refusal a test provokes names the code of each of its problems (the API's ``codes``):
    a problem the app raises with a ready message and no code fails the test that provokes it."""
    from annotation.core.errors import Refused

    made = Refused.__init__

    def checked(refused, problems):
        made(refused, problems)
        uncoded = [str(problem) for problem in problems if not problem.code]
        assert not uncoded, f"problems without a code: {uncoded}"

    monkeypatch.setattr(Refused, "__init__", checked)
