"""What the data commands share: one base class, and argument types that find datasets and users.

Exit codes: 0 done; 1 refused (every problem printed on stderr, one a line, and nothing
changed); 2 bad arguments, an unknown dataset or user among them (with the usage line).
"""

from argparse import ArgumentTypeError
from pathlib import Path

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.models import Campaign, Dataset
from scoring.problems import Problem


def source_file(path: str) -> SourceFile:
    """Argument type: the file at ``path``, read line by line by the import (any size)."""
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise ArgumentTypeError(f"cannot read {path}: {error.strerror}") from None
    return SourceFile(name=Path(path).name, path=path)


def dataset_named(name: str) -> Dataset:
    """Argument type: the dataset of that name."""
    try:
        return Dataset.objects.get(name=name)
    except Dataset.DoesNotExist:
        raise ArgumentTypeError(f"no dataset named {name!r}") from None


def campaign_named(name: str) -> Campaign:
    """Argument type: the campaign of that name."""
    try:
        return Campaign.objects.get(name=name)
    except Campaign.DoesNotExist:
        raise ArgumentTypeError(f"no campaign named {name!r}") from None


def user_named(username: str) -> User:
    """Argument type: the user of that username."""
    return users_named(username)[0]


def users_named(usernames: str) -> list[User]:
    """Argument type: users from a comma-separated list of usernames, in that order."""
    names = [name.strip() for name in usernames.split(",") if name.strip()]
    found = {user.username: user for user in User.objects.filter(username__in=names)}
    unknown = [name for name in names if name not in found]
    if unknown or not names:
        raise ArgumentTypeError(f"no user named {', '.join(unknown) or repr(usernames)}")
    return [found[name] for name in names]


def add_dataset_and_annotator(parser) -> None:
    """The arguments of a command about one annotator's answers in one dataset."""
    parser.add_argument("dataset", type=dataset_named, help="dataset name")
    parser.add_argument("--annotator", type=user_named, required=True, help="username")


class DataCommand(BaseCommand):
    """A command whose service may refuse: ``run`` does the work; a refusal prints its problems
    and ends the command with exit code 1, saying what was not done (``refused_outcome``)."""

    refused_outcome = "nothing changed"

    def handle(self, *args, **options) -> None:
        try:
            self.run(**options)
        except Refused as refused:
            raise self.refuse(refused.problems) from None

    def run(self, **options) -> None:
        raise NotImplementedError

    def refuse(self, problems: list[Problem]) -> CommandError:
        """Print every problem, one a line, and return the error that ends the command (exit 1)."""
        for problem in problems:
            self.stderr.write(str(problem))
        count = len(problems)
        return CommandError(f"{count} problem{'s' if count != 1 else ''}; {self.refused_outcome}")
