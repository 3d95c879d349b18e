"""Annotator and adjudicator accounts made by organizers, without the admin or an e-mail server.

A new account has no usable password: the organizer hands its owner a one-time link to set
one (Django's password reset confirmation, with a PasswordResetTokenGenerator token). The
link is made when asked for and never stored; it stops working once a password is set (the
token covers the password hash) or after PASSWORD_RESET_TIMEOUT.

An organizer acts on annotator and adjudicator accounts only: a password link, deactivation or
a release of another organizer's or a superuser's account would let one organizer take over
(or lock out) the accounts that manage the campaign, so those are left to superusers.
"""

import csv
import secrets
from dataclasses import dataclass

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import Group, User
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotation.accounts.tokens import revoke_tokens
from annotation.core.errors import Refused
from annotation.core.files import SourceFile, decoded_lines
from annotation.core.problems import problem
from annotation.core.roles import ADJUDICATOR, ANNOTATOR, check_may_manage
from annotation.models import KeyPreference
from scoring.problems import Problem

# The roles an organizer gives here; organizers themselves are made with createsuperuser/the admin.
ACCOUNT_ROLES = (ANNOTATOR, ADJUDICATOR)


NAME_FIELD, EMAIL_FIELD = "name", "email"


_HEADER_NAMES = {NAME_FIELD, "e-mail", EMAIL_FIELD, "login", "username"}


@dataclass(frozen=True)
class NewAccount:
    user: User
    password_link: str  # a path on this site; shown once to the organizer




def new_password_link(account: User, *, by: User) -> str:
    """A fresh one-time password link for an existing account, made by ``by``."""
    check_may_manage(by, account)
    return password_link(account)


def password_link(user: User) -> str:
    """A fresh one-time link (path) at which the user sets their password."""
    return _password_links([user])[0]


def _password_links(users: list[User]) -> list[str]:
    """A fresh one-time link (path) for each user; the URL is reversed once for them all."""
    uid, token = "UIDB64", "TOKEN"  # neither is a uidb64 (base 64 of a number) nor a token (has a "-")
    form = reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
    prefix, rest = form.split(uid)
    middle, suffix = rest.split(token)
    return [
        f"{prefix}{urlsafe_base64_encode(force_bytes(user.pk))}{middle}{default_token_generator.make_token(user)}{suffix}"
        for user in users
    ]


def create_account(*, name: str, email: str, role: str) -> NewAccount:
    """One account, or Refused naming the faulty field."""
    cleaned, problems = _checked_rows([(None, name, email)], file=None)
    if problems:
        raise Refused(problems)
    return _create(cleaned, role)[0]


# Rows per statement when accounts are made and names looked up: far below PostgreSQL's 65,535
# parameters of one statement (a user row takes 11).
BATCH = 2000


def create_accounts_from_csv(*, source: SourceFile, role: str) -> list[NewAccount]:
    """Accounts from CSV lines "name,e-mail" (a header line of those words may come first);
    all or nothing. The file is read as a stream (an upload over the in-memory size from its
    temporary file), and the accounts are looked up and made in batches, whatever their number."""
    rows: list[tuple[int, str, str]] = []
    problems: list[Problem] = []
    with source.open() as stream:
        reader = csv.reader(decoded_lines(stream, source.name, problems))
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error:
                problems.append(problem("csv", "line", source.name, reader.line_num))
                break
            number = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if not rows and not problems and {cell.strip().lower() for cell in cells} <= _HEADER_NAMES:
                continue  # the header line
            if len(cells) != 2:
                problems.append(problem("columns", "line", source.name, number, count=len(cells)))
                continue
            rows.append((number, cells[0], cells[1]))
    cleaned, row_problems = _checked_rows(rows, file=source.name)
    problems += row_problems
    if not rows and not problems:
        problems.append(problem("empty/accounts", "file", source.name))
    if problems:
        raise Refused(sorted(problems, key=lambda problem: problem.line or 0))
    return _create(cleaned, role)


def _taken(names: list[str]) -> set[str]:
    """Those of ``names`` that are accounts already, looked up in batches."""
    taken: set[str] = set()
    for start in range(0, len(names), BATCH):
        taken.update(User.objects.filter(username__in=names[start:start + BATCH]).values_list("username", flat=True))
    return taken


def _checked_rows(rows: list[tuple[int | None, str, str]], file: str | None) -> tuple[list[tuple[str, str]], list[Problem]]:
    """(line, name, e-mail) rows as (name, e-mail) without surrounding spaces, and their
    problems (located at `file` and the line when there is a file)."""
    problems: list[Problem] = []
    cleaned: list[tuple[str, str]] = []
    seen: set[str] = set()
    rows = [(line, User.normalize_username(name.strip()), email.strip()) for line, name, email in rows]
    # Only names that could be accounts are looked up (a NUL cannot even be sent to PostgreSQL).
    taken = _taken([name for _, name, _ in rows if not _name_problems(name, set(), set())])
    email_length = User._meta.get_field("email").max_length
    for line, name, email in rows:
        found = _name_problems(name, taken, seen)
        if email:
            if "\x00" in email:
                found.append(problem("unstorable/account", EMAIL_FIELD))
            elif len(email) > email_length:
                found.append(problem("too_long/account", EMAIL_FIELD, max=email_length))
            else:
                try:
                    validate_email(email)
                except ValidationError:
                    found.append(problem("email", EMAIL_FIELD, email=email))
        problems += [problem.at(file, line) for problem in found] if file else found
        seen.add(name)
        cleaned.append((name, email))
    return cleaned, problems


def _create(rows: list[tuple[str, str]], role: str) -> list[NewAccount]:
    """The accounts, without a usable password, in the role's group; in batches, in one transaction."""
    if role not in ACCOUNT_ROLES:
        raise Refused.of("role", "role")
    group = Group.objects.get(name=role)
    # Unusable passwords as Django makes them ("!" and random characters), with one call for
    # the random part of each instead of one per character: tens of thousands are made at once.
    users = [
        User(username=name, email=User.objects.normalize_email(email),
             password=UNUSABLE_PASSWORD_PREFIX + secrets.token_urlsafe(30))
        for name, email in rows
    ]
    membership = User.groups.through
    with transaction.atomic():
        users = User.objects.bulk_create(users, batch_size=BATCH)
        membership.objects.bulk_create([membership(user_id=user.pk, group_id=group.pk) for user in users], batch_size=BATCH)
    links = _password_links(users)
    return [NewAccount(user=user, password_link=link) for user, link in zip(users, links, strict=True)]


def _name_problems(name: str, taken: set[str], seen: set[str]) -> list[Problem]:
    if not name:
        return [problem("required/account_name", NAME_FIELD)]
    if "\x00" in name:
        return [problem("unstorable/account", NAME_FIELD)]
    max_length = User._meta.get_field("username").max_length
    if len(name) > max_length:
        return [problem("too_long/account", NAME_FIELD, max=max_length)]
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError:
        return [problem("invalid/account_name", NAME_FIELD, name=name)]
    if name in taken:
        return [problem("exists/account", NAME_FIELD, name=name)]
    if name in seen:
        return [problem("duplicate/account", NAME_FIELD, name=name)]
    return []


def set_active(user: User, active: bool, *, by: User) -> None:
    """Deactivate (the account can no longer log in; its sessions and tokens are deleted) or
    activate again, by ``by``. Its answers and assignments stay; unanswered items can then be
    released."""
    check_may_manage(by, user)
    with transaction.atomic():
        user.is_active = active
        user.save(update_fields=["is_active"])
        if not active:
            end_sessions_and_tokens(user)


def end_sessions_and_tokens(user: User, *, keep_session: str | None = None) -> None:
    """Delete the user's sessions (but ``keep_session``, a session key) and API tokens: on
    deactivation (activating again brings none back) and when a password is set. A session
    names its user only inside its data, so the live sessions are read and each decoded."""
    live = Session.objects.filter(expire_date__gt=timezone.now()).exclude(session_key=keep_session or "")
    theirs = [
        session.session_key
        for session in live.iterator(chunk_size=BATCH)
        if session.get_decoded().get(SESSION_KEY) == str(user.pk)
    ]
    for start in range(0, len(theirs), BATCH):
        Session.objects.filter(session_key__in=theirs[start:start + BATCH]).delete()
    revoke_tokens(user)


def set_single_keys(user: User, on: bool) -> None:
    """Whether ``user``'s single-character shortcuts act without Alt, remembered for every page."""
    KeyPreference.objects.update_or_create(user=user, defaults={"single_keys": on})
