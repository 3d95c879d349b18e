"""The scorer's command-line output, byte for byte, on every file its tests read: a check that a
change to ``scoring`` leaves what ``python -m scoring`` prints as it was.

1. ``record DIR [PYTEST ARGS]``: runs the tests (default ``tests/scoring``) with this module as a
   pytest plugin, which keeps every file the scorer reads (the bytes given to
   ``scoring.jsonl.read_jsonl``) and every ``python -m scoring`` a test runs (its arguments,
   the files it names copied) in DIR.
2. ``replay DIR OUT.jsonl``: runs, in one process, every recorded command and every command of
   the scorer on every recorded file as each of the subtasks (a bad inputs, gold and
   submission file in turn, beside the demo data's good ones) and writes argv, exit code,
   stdout and stderr of each as a line of OUT.jsonl. Run it once with the code before a change on the path
   (``PYTHONPATH=<a checkout of it>``) and once with the code after.
3. ``compare BEFORE.jsonl AFTER.jsonl``: every run the same, byte for byte, or the ones that differ.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo" / "data"
RECORDING_DIR = None  # set by ``record`` for the plugin (the same process)


def _keep(data: bytes) -> str:
    """The recorded file holding ``data`` (its name made from its hash), relative to the directory."""
    name = f"files/{hashlib.sha256(data).hexdigest()[:16]}.jsonl"
    path = RECORDING_DIR / name
    if not path.exists():
        path.write_bytes(data)
    return name


def pytest_configure(config) -> None:
    """Wrap the scorer's one reader of files and ``subprocess.run`` to record what they are given."""
    import scoring.jsonl

    reader = scoring.jsonl.read_jsonl

    def recording_read_jsonl(data, *args, **kwargs):
        if isinstance(data, (bytes, bytearray)):
            _keep(bytes(data))
        return reader(data, *args, **kwargs)

    import scoring.agreement
    import scoring.evaluate
    import scoring.sampling
    import scoring.validation

    for module in (scoring.jsonl, scoring.agreement, scoring.evaluate, scoring.sampling, scoring.validation):
        module.read_jsonl = recording_read_jsonl

    run = subprocess.run

    def recording_run(command, *args, **kwargs):
        if isinstance(command, (list, tuple)) and list(map(str, command[1:3])) == ["-m", "scoring"]:
            cwd = Path(kwargs.get("cwd") or ".")
            argv = []
            for argument in map(str, command[3:]):
                path = cwd / argument
                argv.append(_keep(path.read_bytes()) if path.is_file() else argument)
            with (RECORDING_DIR / "commands.jsonl").open("a") as commands:
                commands.write(json.dumps(argv) + "\n")
        return run(command, *args, **kwargs)

    subprocess.run = recording_run


def record(directory: Path, pytest_args: list[str]) -> int:
    global RECORDING_DIR
    import pytest

    RECORDING_DIR = directory.resolve()
    shutil.rmtree(RECORDING_DIR, ignore_errors=True)
    (RECORDING_DIR / "files").mkdir(parents=True)
    (RECORDING_DIR / "commands.jsonl").touch()
    return pytest.main(["-q", "-p", "no:cacheprovider", *(pytest_args or ["tests/scoring"])],
                       plugins=[sys.modules[__name__]])


def commands_on(name: str, key: str, inputs: str, gold: str) -> list[list[str]]:
    """The scorer's commands with the file ``name`` in each place a file is read (as inputs, as
    gold, as a submission), beside the subtask's good ``inputs`` and ``gold``."""
    return [
        ["check-inputs", key, name],
        ["check-inputs", key, inputs, "--gold", name],
        ["validate", key, name],
        ["validate", key, name, "--inputs", inputs],
        ["score", key, "--gold", gold, "--pred", name],
        ["score", key, "--gold", name, "--pred", gold],
    ]


def replay(directory: Path, out: Path) -> int:
    import os

    from scoring.__main__ import main
    from scoring.subtasks import SUBTASKS

    os.chdir(directory)
    runs = [json.loads(line) for line in Path("commands.jsonl").read_text().splitlines()]
    files = sorted(str(path) for path in Path("files").iterdir())
    for key in SUBTASKS:
        inputs, gold = DEMO / key / "dev.inputs.jsonl", next((DEMO / key).glob("dev.*gold.jsonl"))
        for name in files:
            runs += commands_on(name, key, str(inputs), str(gold))
    runs += [["sample", "--inputs", name, "--size", "2", "--seed", "1"] for name in files]
    refused = 0
    with out.open("w") as written:  # a line a run, flushed: a run cut short still compares what it did
        for argv in runs:
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    code = main(argv)
                except SystemExit as exit:
                    code = exit.code
            refused += code != 0
            written.write(json.dumps([argv, code, stdout.getvalue(), stderr.getvalue()], ensure_ascii=False) + "\n")
            written.flush()
    print(f"{len(runs)} runs on {len(files)} files ({refused} refused)")
    return 0


def _runs(path: Path) -> dict[str, list]:
    return {json.dumps(argv): rest for argv, *rest in map(json.loads, path.read_text().splitlines())}


def compare(before: Path, after: Path) -> int:
    """The runs both files hold (a replay cut short holds fewer), compared byte for byte."""
    old, new = _runs(before), _runs(after)
    both = old.keys() & new.keys()
    differing = sorted(argv for argv in both if old[argv] != new[argv])
    for argv in differing[:20]:
        print(f"differs: {argv}\n  before: {old[argv]!r}\n  after:  {new[argv]!r}")
    print(f"{len(old)} runs before, {len(new)} after, {len(both)} compared, {len(differing)} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "record":
        sys.exit(record(Path(rest[0]), rest[1:]))
    if command == "replay":
        sys.exit(replay(Path(rest[0]).resolve(), Path(rest[1]).resolve()))
    if command == "compare":
        sys.exit(compare(Path(rest[0]), Path(rest[1])))
    sys.exit(__doc__)
