"""python -m scoring validate|check-inputs|score|compare|annotators|holm|agreement|majority|dawid-skene|sample: see scoring/README.md."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from scoring.agreement import ReadAnswers, agreement_figures, figures_text, normalised_majority_answer, read_answers
from scoring.annotators import group_figures
from scoring.dawid_skene import dawid_skene_answers, not_offered_reason, offered
from scoring.evaluate import compare_files, read_gold, read_predictions, score_files
from scoring.sampling import SampleTooLarge, draw_sample, read_sample_inputs
from scoring.significance import holm
from scoring.subtasks import SUBTASKS
from scoring.validation import check_gold, check_inputs, check_submission, sorted_by_line, submission_line


class FileUnreadable(Exception):
    pass


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise FileUnreadable(f"{path}: cannot read: {error.strerror}") from None


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _report(problems, stream=None) -> None:  # None: the current sys.stdout
    for problem in problems:
        print(problem, file=stream)


def validate(args) -> int:
    inputs = None
    if args.inputs:
        inputs, input_problems = check_inputs(args.subtask, _read(args.inputs), args.inputs)
        if input_problems:
            _report(input_problems)
            return 1
    records, problems = check_submission(args.subtask, _read(args.file), args.file, inputs, args.partial)
    if problems:
        _report(problems)
        return 1
    print(f"{args.file}: valid {args.subtask} submission, {_count(len(records), 'answer')}")
    return 0


def check_inputs_command(args) -> int:
    records, problems = check_inputs(args.subtask, _read(args.inputs), args.inputs)
    if args.gold and not problems:
        gold, problems = check_gold(args.subtask, _read(args.gold), args.gold, records)
    if problems:
        _report(problems)
        return 1
    gold_note = f" and {args.gold}" if args.gold else ""
    print(f"{args.inputs}{gold_note}: valid {args.subtask} inputs, {_count(len(records), 'item')}")
    return 0


def _warn_if_synthetic(gold: str) -> None:
    if "SYNTHETIC" in gold:
        print(f"warning: {gold} is synthetic gold (its name contains SYNTHETIC): "
              "the score says nothing about the benchmark", file=sys.stderr)


def _print_metrics(scored, as_json: bool) -> int:
    if scored.errors:
        _report(scored.errors)
        return 1
    _report(scored.answer_faults, sys.stderr)
    if as_json:
        print(json.dumps(scored.metrics, ensure_ascii=False))
    else:
        for name, value in _flatten(scored.metrics):
            print(f"{name}: {value:.4f}" if isinstance(value, float) else f"{name}: {value}")
    return 0


def _items_file(args) -> tuple[bytes, str] | None:
    return (_read(args.items), args.items) if args.items else None


def score(args) -> int:
    _warn_if_synthetic(args.gold)
    scored = score_files(args.subtask, _read(args.gold), args.gold, _read(args.pred), args.pred,
                         args.only_answered, args.ci, args.seed, items_file=_items_file(args))
    return _print_metrics(scored, args.json)


def compare(args) -> int:
    if len(args.pred) != 2:
        print("compare needs --pred exactly twice: --pred A --pred B", file=sys.stderr)
        return 2
    _warn_if_synthetic(args.gold)
    (name_a, name_b) = args.pred
    scored = compare_files(args.subtask, _read(args.gold), args.gold, (_read(name_a), name_a), (_read(name_b), name_b),
                           args.only_answered, args.ci, args.seed, items_file=_items_file(args),
                           test_rounds=args.test_rounds)
    return _print_metrics(scored, args.json)


def annotators(args) -> int:
    repeated = sorted({name for name in args.pred if args.pred.count(name) > 1})
    if repeated:
        print(f"--pred names {', '.join(repeated)} more than once: each file is one annotator", file=sys.stderr)
        return 2
    _warn_if_synthetic(args.gold)
    subtask = SUBTASKS[args.subtask]
    gold, errors = read_gold(subtask, _read(args.gold), args.gold)
    gold_ids = {record.get("id") for record in gold}
    files, faults = [], []
    for name in [*args.pred, *([args.model] if args.model else [])]:
        pred, pred_errors, pred_faults = read_predictions(subtask, _read(name), name, gold_ids)
        files.append((name, pred))
        errors += sorted_by_line(pred_errors)
        faults += sorted_by_line(pred_faults)
    if errors:
        _report(errors)
        return 1
    _report(faults, sys.stderr)
    model = files.pop()[1] if args.model else None
    figures = group_figures(subtask, gold, files, model, args.ci, args.seed)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        for name, value in _flatten(figures):
            print(f"{name}: {value:.4f}" if isinstance(value, float) else f"{name}: {value}")
    return 0


def holm_command(args) -> int:
    adjusted = holm(args.p_values)
    if args.json:
        print(json.dumps({"m": len(adjusted), "p_values": args.p_values, "adjusted": adjusted}))
    else:
        for p_value, adjusted_p in zip(args.p_values, adjusted):
            print(f"{p_value:g} -> {adjusted_p:g}")
    return 0


def _p_value(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"a p-value is between 0 and 1, not {text}")
    return number


def _non_negative(text: str) -> int:
    number = int(text)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {number}")
    return number


def _add_interval_arguments(command) -> None:
    command.add_argument("--ci", type=_non_negative, default=0, metavar="N",
                         help="add a 95%% percentile-bootstrap interval from N resamples of the gold lines (default 0: none)")
    command.add_argument("--seed", type=int, default=0, help="seed of the resamples (default 0)")


def _add_unit_arguments(command, answered_help: str) -> None:
    """--only-answered or --items FILE: which gold lines are the units."""
    units = command.add_mutually_exclusive_group()
    units.add_argument("--only-answered", action="store_true", help=answered_help)
    units.add_argument("--items", metavar="FILE",
                       help="score exactly the gold items listed in FILE, one id a line (answered or not)")


def _read_answers(args) -> ReadAnswers:
    """The inputs and the --pred files; file-level errors and answer faults on standard error."""
    files = [(name, _read(name)) for name in args.pred]
    read = read_answers(args.subtask, _read(args.inputs), args.inputs, files)
    _report(read.faults, sys.stderr)
    _report(read.errors, sys.stderr)
    return read


def agreement(args) -> int:
    read = _read_answers(args)
    if read.table is None:
        return 1
    print(figures_text(agreement_figures(args.subtask, read.table), args.json))
    return 0


def _write_submission(args, answers) -> tuple[int, int] | None:
    """Write the items' answers (item id -> (answer or None, reason)) as a submission to
    ``args.output``, the items without one on stderr; (answers written, items), or None when
    the file cannot be written (said on stderr)."""
    lines = []
    for item_id, (answer, reason) in answers.items():
        if answer is None:
            print(f"{item_id}: {reason}", file=sys.stderr)
        else:
            lines.append(submission_line(args.subtask, item_id, answer))
    data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    try:
        Path(args.output).write_text(data, encoding="utf-8")
    except OSError as error:
        print(f"{args.output}: cannot write: {error.strerror}", file=sys.stderr)
        return None
    return len(lines), len(answers)


def majority(args) -> int:
    read = _read_answers(args)
    if read.table is None:
        return 1
    table = read.table
    written = _write_submission(args, {item["id"]: normalised_majority_answer(args.subtask, table.answers_of(item["id"]), item)
                                       for item in table.items})
    if written is None:
        return 1
    print(f"{args.output}: {_count(written[0], 'majority answer')} of {_count(written[1], 'item')}")
    return 0


def dawid_skene(args) -> int:
    if not offered(SUBTASKS[args.subtask]):
        print(not_offered_reason(SUBTASKS[args.subtask]), file=sys.stderr)
        return 2
    read = _read_answers(args)
    if read.table is None:
        return 1
    found = dawid_skene_answers(args.subtask, read.table, args.pred)
    written = _write_submission(args, found.answers)
    if written is None:
        return 1
    figures = found.figures()
    if args.json:
        print(json.dumps({"output": args.output, "n_answers": written[0], "n_items": written[1], **figures},
                         ensure_ascii=False))
        return 0
    print(f"{args.output}: {_count(written[0], 'Dawid–Skene answer')} of {_count(written[1], 'item')}")
    print(f"iterations: {figures['iterations']} (at most {figures['max_iterations']})")
    print(f"classes: {', '.join(figures['classes'])}")
    for row in figures["annotators"]:
        accuracy = "none (no answer)" if row["accuracy"] is None else f"{row['accuracy']:.4f}"
        print(f"{row['annotator']}: estimated accuracy {accuracy} ({_count(row['n_answers'], 'answer')})")
    return 0


def sample(args) -> int:
    records, problems = read_sample_inputs(_read(args.inputs), args.inputs)
    if problems:
        _report(problems)
        return 1
    try:
        drawn = draw_sample(records, args.size, args.seed, args.stratify)
    except SampleTooLarge:
        print(f"{args.inputs}: --size {args.size} is more than its {_count(len(records), 'item')}", file=sys.stderr)
        return 1
    for item_id in drawn.ids:
        print(item_id)
    return 0


def _flatten(metrics: dict, prefix: str = ""):
    for name, value in metrics.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scoring", description="Validate and score PoLiS submissions.")
    commands = parser.add_subparsers(dest="command", required=True)

    command = commands.add_parser("validate", help="check a submission file")
    command.add_argument("subtask", choices=list(SUBTASKS))
    command.add_argument("file")
    command.add_argument("--inputs", help="inputs.jsonl: every input id must be answered exactly once")
    command.add_argument("--partial", action="store_true", help="with --inputs: answering a subset is allowed")
    command.set_defaults(run=validate)

    command = commands.add_parser("check-inputs", help="check an inputs file (and its gold)")
    command.add_argument("subtask", choices=list(SUBTASKS))
    command.add_argument("inputs")
    command.add_argument("--gold")
    command.set_defaults(run=check_inputs_command)

    command = commands.add_parser("score", help="score a submission against gold")
    command.add_argument("subtask", choices=list(SUBTASKS))
    command.add_argument("--gold", required=True)
    command.add_argument("--pred", required=True)
    command.add_argument("--json", action="store_true", help="print one JSON object; its 'score' is the main metric")
    _add_unit_arguments(command, "score only the gold items the submission answers")
    _add_interval_arguments(command)
    command.set_defaults(run=score)

    command = commands.add_parser("compare", help="compare two submissions on the same gold")
    command.add_argument("subtask", choices=list(SUBTASKS))
    command.add_argument("--gold", required=True)
    command.add_argument("--pred", required=True, action="append", metavar="PRED", help="given twice: A, then B")
    command.add_argument("--json", action="store_true", help="print one JSON object: score_a, score_b, diff (A - B)")
    _add_unit_arguments(command, "score both only on the gold items A answers")
    _add_interval_arguments(command)
    command.add_argument("--test-rounds", type=_non_negative, default=0, metavar="R",
                         help="add a paired randomization test of R rounds (seeded with --seed) and McNemar's test "
                              "(default 0: no test)")
    command.set_defaults(run=compare)

    command = commands.add_parser("annotators", help="annotators as a group: mean annotator, spread, two-way interval")
    command.add_argument("subtask", choices=list(SUBTASKS))
    command.add_argument("--gold", required=True)
    command.add_argument("--pred", required=True, nargs="+", metavar="FILE", help="one submission file per annotator")
    command.add_argument("--model", metavar="FILE", help="a model's submission: adds the mean paired difference")
    command.add_argument("--json", action="store_true", help="print one JSON object")
    _add_interval_arguments(command)
    command.set_defaults(run=annotators)

    command = commands.add_parser("holm", help="Holm's adjusted p-values of several tests")
    command.add_argument("p_values", nargs="+", type=_p_value, metavar="P")
    command.add_argument("--json", action="store_true", help="print one JSON object: m, p_values, adjusted")
    command.set_defaults(run=holm_command)

    command = commands.add_parser("sample", help="a seeded sample of an inputs file's ids, one a line")
    command.add_argument("--inputs", required=True, help="a JSON Lines file, each line with a unique string id")
    command.add_argument("--size", required=True, type=_non_negative, metavar="n", help="how many ids to draw")
    command.add_argument("--seed", required=True, type=_non_negative, metavar="S", help="seed of the permutation (0 or more)")
    command.add_argument("--stratify", metavar="FIELD", help="a top-level field: each of its values gets its share")
    command.set_defaults(run=sample)

    for name, run, description in (
        ("agreement", agreement, "agreement between several submission files (one per annotator)"),
        ("majority", majority, "the majority answer of several submission files, as a submission"),
        ("dawid-skene", dawid_skene, "the Dawid-Skene answers of several submission files, as a submission, "
                                     "and each file's estimated accuracy"),
    ):
        command = commands.add_parser(name, help=description)
        command.add_argument("subtask", choices=list(SUBTASKS))
        command.add_argument("--inputs", required=True, help="inputs.jsonl the submissions answer")
        command.add_argument("--pred", required=True, nargs="+", metavar="FILE", help="two or more submission files")
        if name != "majority":
            command.add_argument("--json", action="store_true", help="print one JSON object")
        if name != "agreement":
            command.add_argument("-o", "--output", required=True, help=f"where to write the {name} submission")
        command.set_defaults(run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "validate" and args.partial and not args.inputs:
        print("--partial needs --inputs", file=sys.stderr)
        return 2
    if args.command in ("agreement", "majority", "dawid-skene") and len(args.pred) < 2:
        print("--pred needs two or more files", file=sys.stderr)
        return 2
    try:
        return args.run(args)
    except FileUnreadable as error:
        print(error)
        return 1
    except BrokenPipeError:
        # The reader (e.g. `| head`) stopped reading: point stdout at devnull so that
        # the interpreter's final flush does not raise again (Python docs, "SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
