"""The app's own problems (those the scorer does not find): one table of their texts
(``MESSAGES``) and ``problem``, which makes one from its template and parameters.

As in ``scoring.problems``, a template is a problem's code, or ``code/variant`` where one
code has several wordings; its text is English with %(name)s placeholders filled with the
problem's ``params``. The English texts are the catalogue's msgids
(locale/pl/LC_MESSAGES/django.po): a problem's message is its template's text in the
language of the request, so the page, the API and the command say the same in Polish or in
English, and the API's ``codes`` name each one. A template is never one of the scorer's
(a test holds the two tables apart)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_noop as _

from scoring.problems import Problem

# The most problems a page lists (an import keeps as many, and counts the rest).
MAX_LISTED_PROBLEMS = 1000

MESSAGES: dict[str, str] = {
    # Uploads and request parameters (annotation.core).
    "upload_too_large": _(
        "The largest file this page takes is %(size)s; import a larger one with the command "
        "“manage.py import_items” (see the README)."
    ),
    # The server's own answers (polis_site.errors).
    "database_unreachable": _(
        "The database cannot be reached at the moment. Nothing was lost; please try again in a few seconds."
    ),
    "no_such_endpoint": _("There is no such endpoint or object in the API."),
    # Request parameters and posted forms (annotation.core.parameters, annotation.core.http).
    "unstorable/parameter": _("holds the character U+0000, which no name or id holds."),
    "too_deep/posted": _("is nested too deeply"),
    # The refusals of annotation.core.errors.
    "dataset_frozen": _("This dataset is frozen: its answers can no longer be changed."),
    "stale_version": _(
        "This answer was changed in another tab or browser since you opened it "
        "(it is now at version %(version)s), so your change was not saved. "
        "Reload the page to see the current answer."
    ),
    "item_withdrawn": _("This item was withdrawn by the organizer: it needs no answer."),
    "not_adjudicator_here": _("You annotate items of this dataset, so you cannot adjudicate it."),
    "claimed_by_other": _("Another adjudicator is working on this item; it was not saved."),
    "stale_decision": _(
        "This item was settled again since you opened it (it is now at version %(version)s), "
        "so your decision was not saved. Reload the page to see the current decision."
    ),
    "nothing_to_export": _("The %(source)s export of %(dataset)s has nothing in it (%(left_out)s items left out)."),
    "not_yours_to_manage": _("%(name)s is an organizer or a superuser: only a superuser can change that account."),
    "not_qualified": _(
        "You have not passed this dataset's training round yet, so its items are closed to you. "
        "Finish the training round; if your score was below the threshold, an organizer can let "
        "you try again or release you."
    ),
    # The sizes and values the app stores (annotation.subtasks.limits, annotation.core.storable and
    # the subtasks' answer_limits): of an answer, an item record, a comment.
    "too_deep/value": _("is nested too deeply: at most %(max)d levels"),
    "too_long/text": _("is too long: at most %(max)d characters"),
    "too_many/entries": _("has too many entries: at most %(max)d"),
    "unknown_marker/position": _("names a position outside 1..%(count)d"),
    "unstorable/value": _(
        "holds the character U+0000, an unpaired surrogate or a number too large (or NaN), which cannot be stored"
    ),
    # Importing a dataset (annotation.datasets.importing).
    "too_long/line": _("longer than %(max)d bytes"),
    "answer_in_input": _("is an answer or gold field: an input line must not carry it"),
    "more_problems": _("and %(count)d more problems not listed"),
    "other_subtask": _("this looks like a %(subtask)s file, not a %(expected)s one: check the subtask and the file"),
    "unknown_subtask": _("is not a known subtask (known: %(keys)s)"),
    "empty": _("holds no records"),
    "gold_given": _(
        "item “%(id)s” has gold already, which is never replaced here (a correction belongs to the "
        "gold audit)"
    ),
    "partial_gold": _(
        "items without gold: %(missing)d (the first: %(first)s); a gold file must cover every item, "
        "unless it is marked partial (the other items' gold can then be added later)"
    ),
    "too_long/id": _("longer than %(max)d characters"),
    "too_long/file_name": _("the file name is too long"),
    "required/dataset_name": _("a dataset needs a name"),
    "too_long/dataset_name": _("a dataset name has at most %(max)d characters"),
    "exists/dataset": _("a dataset named “%(name)s” exists already; choose another name"),
    # A dataset's sample (annotation.datasets.sampling).
    "sample_too_large": _("a sample of %(size)d items asked of %(dataset)s, which has %(count)d"),
    "sample_without_seed": _("a sample needs a seed"),
    "sample_after_assignment": _(
        "%(dataset)s has items assigned already: its sample is set before the first assignment"
    ),
    # Routing (annotation.datasets.routing, annotation.annotate.routing).
    "routing_after_answers": _(
        "%(dataset)s has answers already: fixed queues or routing, answers per item and the pilot "
        "are chosen before the first answer"
    ),
    "routing_without_k": _("routing needs the number of answers per item (k), 1 or more"),
    # Panel studies (annotation.studies).
    "study_no_participant_id": _("The link holds no participant id. Please open the study from the panel's page."),
    "study_malformed_participant_id": _(
        "The participant id in the link is not one the panel gives (expected: %(pattern)s). "
        "Please open the study from the panel's page."
    ),
    "study_wrong_study_id": _("The link belongs to another study of the panel. Please open the study from the panel's page."),
    "study_paused": _("The study is paused at the moment. Please try again later."),
    "study_closed": _("The study is closed: it takes no more participants."),
    "study_not_entered": _("This participant id has not entered the study yet."),
    "study_other_session": _(
        "This participant id entered the study before, in another browser or session, so it cannot "
        "enter again here. If this is your id, go back to the browser you started in, or contact the researchers."
    ),
    # A study's set-up, reconciliation and payment files (annotation.studies.services, selectors).
    "study_name_exists": _("a study named %(name)s exists already; choose another name"),
    "study_no_dataset": _("A study needs a dataset, with its quota of items per participant."),
    "study_one_dataset": _("A study without a campaign has one dataset; choose a campaign for several in order."),
    "study_outside_campaign": _("%(dataset)s is not a dataset of the campaign %(campaign)s."),
    "study_dataset_twice": _("%(dataset)s is given twice: each dataset is one step of the study."),
    "study_not_routed": _(
        "%(dataset)s gives fixed queues: a study's datasets need routing on, with k answers per item "
        "(set them on the dataset's page)."
    ),
    "study_steps_fixed": _(
        "Participants have entered the study already, so its datasets, their order and quotas stay as they are."
    ),
    "study_pattern": _("is not a regular expression that compiles: %(error)s"),
    "study_return_link": _("must hold {code}, where the participant's code goes, e.g. %(example)s"),
    "study_parameters_same": _("the participant, study and session parameters need three different names"),
    "study_bonus_amount": _("the bonus rule needs its amount, 0 or more"),
    "study_bonus_threshold": _("the bonus for control accuracy needs its threshold, a share between 0 and 1"),
    "study_attention_item": _("%(ids)s: no control item of the study's datasets has this id"),
    "study_export_empty": _("holds no header line: expected the panel's submissions export"),
    "study_export_column": _("the header has no column %(column)s (the panel's submissions export has it)"),
    "study_export_cells": _("has %(count)d cells where the header has %(expected)d"),
    "study_export_no_id": _("is empty: every line of the export names its participant"),
    "study_nothing_in_file": _("No counted participant belongs in this file yet, so there is nothing to download."),
    "study_ids_deleted": _("The panel ids were deleted after payment: there is nothing to pay."),
    "routing_bad_number": _("%(value)s is not a whole number of 1 or more"),
    "pilot_too_large": _("a pilot of %(size)d items asked of a sample of %(count)d items"),
    "pilot_without_routing": _("a pilot, a quota and reservations are settings of routing: turn routing on first"),
    "not_routed": _("%(dataset)s gives fixed queues, not the next item: open its items by position"),
    # Assigning items (annotation.datasets.assigning).
    "per_item_too_small": _("annotators per item must be at least 1"),
    "too_few_annotators": _("%(per_item)d annotators per item need at least %(per_item)d annotators; %(given)d given"),
    "no_other_annotator": _("no other annotator can take item %(item)s: %(annotators)s have it already; add annotators"),
    "no_annotators": _("no annotators given"),
    "annotator_twice": _("an annotator is named twice"),
    "annotator_adjudicated": _("%(name)s has adjudicated in %(dataset)s and so cannot annotate it"),
    "annotator_sees_gold": _("%(name)s can see the gold of %(dataset)s and so cannot annotate it"),
    "annotator_inactive": _("%(name)s is not an active account"),
    "not_annotator": _("%(name)s is not in the annotator group"),
    # Deleting, archiving and restoring (annotation.datasets.removing).
    "deleted_meanwhile": _("“%(name)s” was deleted meanwhile."),
    "has_work": _(
        "“%(name)s” holds work (answers: %(answers)d, training answers: %(training)d, adjudications: "
        "%(adjudications)d), so it is not deleted: archive it instead."
    ),
    "answered_while_deleted": _("“%(name)s” got answers while it was being deleted, so it was not deleted: "
                                "archive it instead."),
    "pool_started": _(
        "The pool “%(name)s” (%(pool)s) has been started (answers: %(answers)d), so it is not replaced: "
        "archive it, then import the new one."
    ),
    "archived_already": _("“%(name)s” is archived already."),
    "not_archived": _("“%(name)s” is not archived."),
    "pool_of_kind_exists": _("“%(name)s” has another pool of this kind now (%(pool)s): archive that one first."),
    # Accounts from a CSV file (annotation.accounts.services).
    "csv": _("cannot be read as CSV (a cell too long, or a quote not closed)."),
    "columns": _("needs two columns, name and e-mail; it has %(count)d."),
    "empty/accounts": _("holds no accounts."),
    "encoding/csv": _("is not UTF-8 text (byte %(offset)d)."),
    "unstorable/account": _("holds the character U+0000, which cannot be stored."),
    "too_long/account": _("is longer than %(max)d characters."),
    "email": _("“%(email)s” is not an e-mail address."),
    "role": _("must be annotator or adjudicator."),
    "required/account_name": _("is empty."),
    "invalid/account_name": _("“%(name)s” may hold only letters, digits and @ . + - _."),
    "exists/account": _("an account named “%(name)s” exists already."),
    "duplicate/account": _("“%(name)s” is given twice."),
    # Answers (annotation.answers.refusals) and the item page (annotation.annotate.services).
    "no_answer": _("Nothing is chosen or typed yet."),
    "not_object/answer": _("The answer must be a JSON object with the answer fields."),
    "submitted_already": _("This answer is already submitted: save a change with “Save & next”."),
    "required/comment": _("Say in a comment what is wrong with this item."),
    "unstorable/comment": _("The comment holds the character U+0000, which cannot be stored: remove it."),
    "too_long/comment": _("The comment is too long: at most %(limit)s characters."),
    # Training and control pools (annotation.training.services).
    "type/explanation": _("must be text"),
    "unstorable/explanation": _("must not hold U+0000"),
    "pool_kind": _("A pool is a training or a control pool."),
    "pool_of_pool": _("“%(name)s” is itself a pool: choose the dataset it serves."),
    "pool_subtask": _("The pool's subtask must be that of “%(name)s”: %(subtask)s."),
    "required/pool_gold": _("A pool needs its gold file."),
    "pool_exists": _(
        "“%(name)s” has its pool already (%(pool)s): replace it (while no one has started it), or archive it first."
    ),
    "shared_input": _("“%(id)s” is also an id in %(where)s: a pool's items must be others"),
    "shared_input/text": _("“%(id)s” has the same text as “%(other)s” in %(where)s: a pool's items must be others"),
    "threshold": _("The threshold is a share between 0 and 1, e.g. 0.8."),
    "control_rate": _("One control item in N positions needs N of at least 2 (0: none)."),
    "control_seed": _("The seed is at most 100 characters of text."),
    "explanation_of_real_item": _("Only training items have explanations."),
    "unstorable/explanation_text": _("The explanation holds the character U+0000, which cannot be stored: remove it."),
    "not_training_item": _("This is not an item of the dataset's training round."),
    "round_over": _("This training round is over; its answers can no longer change."),
    "answered_already": _("This training item is answered already."),
    "round_not_started": _("%(name)s has not started the training round yet."),
    "round_in_progress": _("%(name)s has a training round in progress already."),
    "no_items_here": _("%(name)s has no items of this dataset."),
    # Adjudication (annotation.adjudicate.services).
    "unstorable/note": _("The note holds the character U+0000, which cannot be stored: remove it."),
    "item_withdrawn/decision": _("This item was withdrawn: it needs no decision."),
    "not_ready": _("This item is not ready for adjudication: its annotators are still at work."),
    "not_submitted_answer": _("That answer is not a submitted answer of this item."),
    "no_majority": _("This item has no majority answer."),
    "decision_source": _("Choose an answer, the majority or your own edited answer."),
    # Models, campaigns and exports (annotation.results).
    "required/model_name": _("Give the model a name."),
    "too_long/model_name": _("The model name is too long."),
    "unstorable/model_name": _("The model name holds a character that cannot be stored."),
    "exists/model": _("This dataset already has a model named %(name)s."),
    "required/campaign_name": _("Give the campaign a name."),
    "subtask_twice": _("%(first)s and %(second)s are both %(subtask)s datasets: a campaign has one dataset per subtask."),
    "human_source": _("%(source)s is not a human source; expected one of %(sources)s."),
    "exists/campaign": _("A campaign named %(name)s exists already."),
    "unknown_source": _("unknown source %(source)s; expected annotator:NAME, majority, dawid-skene, adjudicated or all"),
    "fill": _("fill %(fill)s is not available for %(source)s; only majority can be filled, from adjudicated"),
    "exclude": _("only majority, dawid-skene and adjudicated can leave annotators out, not %(source)s"),
    "dawid_skene_not_offered": _(
        "the Dawid–Skene source is not offered for %(subtask)s: its answers are specific to each item "
        "(no set of classes is shared across items)"
    ),
    "format": _("format %(format)s is not available for %(source)s; submissions are jsonl, all is jsonl or csv"),
    "no_such_user": _("no user named %(name)s"),
    # The gold audit (annotation.datasets.auditing).
    "audit_decision": _("Choose a decision: %(kinds)s."),
    "required/audit_note": _("Say why: a decision of the gold audit needs a note."),
    "gold_line": _("The corrected gold must be one JSON object: the item's gold line."),
    "unstorable/gold": _("The corrected gold holds a character or number that cannot be stored."),
    "gold_id": _("The corrected gold line must keep the item's id “%(id)s”."),
    "not_in_audit": _("Item “%(id)s” is not in the gold audit: its answers do not stand against its gold."),
    "gold_unchanged": _("The corrected gold equals the gold in force: record that the gold stands instead."),
}


# A table's text: English with placeholders, or (singular, plural) said by the ``count`` parameter.
Text = str | tuple[str, str]


def problem_from(messages: Mapping[str, Text], template: str, field: str = "", file: str | None = None,
                 line: int | None = None, **params: object) -> Problem:
    """The problem of ``template`` (a key of the table ``messages``: this module's ``MESSAGES`` or
    a subtask's own, annotation/subtasks/<key>/answers.py) about ``field`` with ``params``: its
    code is the template's part before any "/", its message the template's text in the
    request's language (a list parameter said as its items joined by ", ")."""
    said = {name: ", ".join(map(str, value)) if isinstance(value, list) else value for name, value in params.items()}
    text = messages[template]
    # A table's texts are the catalogue's msgids; a plural pair is kept in the catalogue by hand
    # (not a literal ngettext call, so makemessages does not find it: a test holds it translated).
    translated = ngettext(*text, params["count"]) if isinstance(text, tuple) else gettext(text)
    return Problem(field, translated % said, template.partition("/")[0], file, line,
                   MappingProxyType(dict(params)), template)


def problem(template: str, field: str = "", file: str | None = None, line: int | None = None,
            **params: object) -> Problem:
    """The app's problem of ``template`` (a key of ``MESSAGES``): ``problem_from`` this table."""
    return problem_from(MESSAGES, template, field, file, line, **params)
