"""The study page's pay and bonus figures on a case worked by hand (tests/studies/organizer.py).

Completed: p1 in 15 min, p2 in 30 min, p3 in 20 min; p4 at work; p5 a test entry and p6 left
out by the reconciliation (neither counted). Control answers: p1 k1 right, k2 right, k3 (the
attention check) wrong; p2 k1 right; p3 none.

Paid 3.00 per participant: pay 3.00 each; effective hourly pay 3.00 ÷ 0.25 h = 12.00 (p1),
3.00 ÷ 0.5 h = 6.00 (p2, under the minimum of 9.00), 3.00 ÷ 1/3 h = 9.00 (p3, not under it).
Median time of the counted completed: 20 min; the study's hourly pay 3.00 ÷ 1/3 h = 9.00;
completion rate 3 of 4 counted = 0.75. Paid 12.00 per hour: 3.00, 6.00, 4.00, the hourly pay
12.00 each and the study's. Bonus 0.10 per control item right: 0.20 (p1), 0.10 (p2), 0.00
(p3); 0.50 for control accuracy at least 0.75: p1's 2/3 none, p2's 1/1 0.50, p3 (no control
answer) none."""

from decimal import Decimal

import pytest
from django.urls import reverse

from annotation.models import Study, StudyRefusal
from annotation.studies.selectors import participant_rows, study_figures
from tests.factories import make_user
from tests.studies.organizer import worked_study
from tests.studies.panel import panel_id

pytestmark = pytest.mark.django_db

D = Decimal


def by_name(rows):
    return {row.participant.user.username.removeprefix("study-"): row for row in rows}


def test_per_participant_pay_and_effective_hourly_pay_with_the_warning_under_the_minimum():
    study = worked_study()
    rows = by_name(participant_rows(study))
    assert [(rows[n].pay, rows[n].hourly, rows[n].below_minimum) for n in ("p1", "p2", "p3")] == [
        (D("3.00"), D("12.00"), False), (D("3.00"), D("6.00"), True), (D("3.00"), D("9.00"), False)]
    assert (rows["p4"].pay, rows["p4"].hourly, rows["p4"].seconds) == (None, None, None)
    assert [rows[n].answered for n in ("p1", "p2", "p3")] == [2, 0, 0]
    assert (rows["p1"].control_right, rows["p1"].control_answered, rows["p1"].attention_failed) == (2, 3, 1)
    assert rows["p1"].control_accuracy == pytest.approx(2 / 3) and rows["p3"].control_accuracy is None
    assert rows["p1"].active_ms == 5 * 60_000  # two items and three control items, a minute each


def test_per_hour_pay():
    study = worked_study(pay_basis=Study.PayBasis.HOUR, pay_amount=D("12.00"))
    rows = by_name(participant_rows(study))
    assert [(rows[n].pay, rows[n].hourly) for n in ("p1", "p2", "p3")] == [
        (D("3.00"), D("12.00")), (D("6.00"), D("12.00")), (D("4.00"), D("12.00"))]
    assert study_figures(study, list(rows.values())).hourly == D("12.00")


def test_the_studys_median_time_effective_hourly_pay_and_completion_rate():
    study = worked_study()
    figures = study_figures(study, participant_rows(study))
    assert (figures.entered, figures.completed, figures.working, figures.test_entries, figures.left_out) == (4, 3, 1, 1, 1)
    assert figures.median_seconds == 20 * 60 and figures.hourly == D("9.00") and not figures.below_minimum
    assert figures.completion_rate == 0.75


@pytest.mark.parametrize("rule, amount, threshold, bonuses", [
    (Study.BonusRule.PER_CONTROL, "0.10", None, ["0.20", "0.10", "0.00"]),
    (Study.BonusRule.THRESHOLD, "0.50", 0.75, ["0.00", "0.50", "0.00"]),
])
def test_both_bonus_rules(rule, amount, threshold, bonuses):
    study = worked_study(bonus_rule=rule, bonus_amount=D(amount), bonus_threshold=threshold)
    rows = by_name(participant_rows(study))
    assert [rows[n].bonus for n in ("p1", "p2", "p3")] == [D(bonus) for bonus in bonuses]


def test_the_page_shows_the_figures_and_warns_under_the_minimum(client):
    study = worked_study(minimum_hourly_rate=D("10.00"))
    StudyRefusal.objects.create(study=study, panel_id=panel_id(77), panel_session="s77",
                                reason=StudyRefusal.Reason.OTHER_SESSION)
    client.force_login(make_user("organizer"))
    response = client.get(reverse("organizer_study", args=[study.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="study-below-minimum"' in page and "9.00 GBP" in page
    # p2 and p3 (9.00 < 10.00; p1 12.00 not) and the study's own warning.
    assert page.count("below the minimum hourly rate") == 3
    assert 'id="median-time">20.0<' in page and 'id="completion-rate">0.75<' in page
    assert 'id="study-hourly">9.00 GBP<' in page
    # Test entries and the left out apart; panel ids on no participant row.
    assert 'id="participants-tests"' in page and 'id="participants-left-out"' in page
    assert panel_id(1) not in page
    # The refused entry listed; the places left: 6 items × k 2, no answer through routing, and
    # p4 at work with no quota of routing's.
    assert f"<td>{panel_id(77)}</td><td>the id entered before, in another session</td>" in page
    assert "12 places left" in page


def test_no_warning_at_or_above_the_minimum(client):
    study = worked_study()
    client.force_login(make_user("organizer"))
    page = client.get(reverse("organizer_study", args=[study.pk])).content.decode()
    assert 'id="study-below-minimum"' not in page
    assert page.count("below the minimum hourly rate") == 1  # p2 only
