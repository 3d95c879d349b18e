"""What the data commands share: reading files, finding datasets and users, reporting problems."""

from pathlib import Path

from django.contrib.auth.models import User
from django.core.management.base import CommandError, OutputWrapper

from annotation.models import Dataset
from annotation.services.importing import SourceFile
from scoring.problems import Problem


def read_source(path: str) -> SourceFile:
    """The file at ``path``, read line by line by the import (any size)."""
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    return SourceFile(name=Path(path).name, path=path)


def get_dataset(name: str) -> Dataset:
    try:
        return Dataset.objects.get(name=name)
    except Dataset.DoesNotExist:
        raise CommandError(f"no dataset named {name!r}") from None


def get_user(username: str) -> User:
    try:
        return User.objects.get(username=username)
    except User.DoesNotExist:
        raise CommandError(f"no user named {username}") from None


def get_users(usernames: str) -> list[User]:
    """Users from a comma-separated list of usernames, in that order; unknown names refused."""
    names = [name.strip() for name in usernames.split(",") if name.strip()]
    found = {user.username: user for user in User.objects.filter(username__in=names)}
    unknown = [name for name in names if name not in found]
    if unknown:
        raise CommandError(f"no user named {', '.join(unknown)}")
    return [found[name] for name in names]


def refuse_with_problems(stderr: OutputWrapper, problems: list[Problem], what: str) -> CommandError:
    """Print every problem, one a line, and return the error that ends the command (exit 1)."""
    for problem in problems:
        stderr.write(str(problem))
    count = len(problems)
    return CommandError(f"{count} problem{'s' if count != 1 else ''}; {what}")
