"""The `agentsense` command: `report` (the paper's tables and figures from logs), `compare` (a
paired regression gate for CI), `labels` (a labels file from an `agentsense/labelling` log) and
`scenarios` (a dataset from `agentsense/construct` logs), `annotate` (judges against human
labels), `stats` (a dataset's counts) and `eval-parts` (a task as N processes, parts.py).

Each command is one row of `COMMANDS`: the function adding its options and the function running
it, whose docstring is its help (first paragraph: the line in the list of commands; the rest: the
description above its options).

Exit status: 0 success (compare: no significant regression), 1 compare found a regression
(eval-parts: a part failed), 2 usage or input error, or the command's extra not installed
(`EXTRA_OF`; a message, no traceback).
"""

from __future__ import annotations

import argparse
import inspect
import logging
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path

from agentsense import parts
from agentsense.sense.score_keys import HEADLINE

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_ERROR = 2


def _logs(parser: argparse.ArgumentParser, help: str, nargs: str = "+") -> None:
    parser.add_argument("logs", nargs=nargs, metavar="LOG_OR_DIR", help=help)


def _flag(parser: argparse.ArgumentParser, name: str, help: str) -> None:
    parser.add_argument(name, action="store_true", help=help)


def _positive_int(text: str) -> int:
    """A count of 1 or more (argparse's error names the option)."""
    value = int(text) if text.strip().isdigit() else 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def _merge_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scorer",
        metavar="NAME",
        help="read this scoring of re-judged logs (e.g. goal_completion1, appended by `inspect "
        "score --action append`); default: all scorings, the newest first",
    )
    _flag(
        parser,
        "--prefer-newest",
        "a sample in several logs of one run with different scores: keep the newest "
        "log's (default: refuse)",
    )


def report_options(parser: argparse.ArgumentParser) -> None:
    _logs(parser, "log files or folders of logs", "*")
    parser.add_argument("--out", required=True, type=Path, help="output folder (created if needed)")
    _merge_options(parser)
    _flag(parser, "--no-figures", "tables and text only (faster, no PNGs)")
    _flag(parser, "--allow-mixed", "put runs made with different protocol settings side by side")
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        default=[],
        help="labels file (JSON) from `agentsense labels`, and/or a filled annotation sheet (CSV) "
        "from `agentsense annotate` (repeatable)",
    )
    parser.add_argument(
        "--sensitivity-metric",
        default=HEADLINE,
        help=f"scene score tested for abnormal templates (default: {HEADLINE})",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )
    parser.add_argument("--scan", type=Path, help="an Inspect Scout scan of the logs (SCAN_DIR)")
    parser.add_argument(
        "--processes",
        type=_positive_int,
        metavar="N",
        help="processes reading the logs and drawing the figures (default: one per core, at "
        "most 4, for 8 MB of logs or more, else 1; 1: all in this process)",
    )


def run_report(args: argparse.Namespace) -> int:
    """tables, figures and statistics from AgentSense logs

    Write report.md, CSV tables and PNG figures from AgentSense logs."""
    from agentsense.engine.console import wrapped
    from agentsense.engine.errors import ReportError
    from agentsense.report.out_folder import check_out

    if not args.logs:
        raise ReportError("no log given: pass log files or folders of logs (e.g. logs/).")
    check_out(args.out)
    from agentsense.report.assemble import write_report
    from agentsense.report.document import ReportOptions

    sheets = [path for path in args.labels if path.suffix.lower() == ".csv"]
    labels = [path for path in args.labels if path not in sheets]
    if len(sheets) > 1 or len(labels) > 1:
        raise ReportError("--labels: at most one labels file (JSON) and one sheet (CSV).")
    options = ReportOptions(
        out=args.out,
        allow_mixed=args.allow_mixed,
        labels=labels[0] if labels else None,
        annotations=sheets[0] if sheets else None,
        sensitivity_metric=args.sensitivity_metric,
        alpha=args.alpha,
        scorer=args.scorer,
        prefer_newest=args.prefer_newest,
        figures=not args.no_figures,
        scan=args.scan,
        processes=args.processes,
    )
    report = write_report(args.logs, options)
    for line in report.unfinished:
        print(wrapped(line, "UNFINISHED: "))
    for line in report.runs:
        print(f"Run: {line}")
    for note in report.notes:
        print(f"Note: {note}")
    for line in report.left_out():
        print(f"Left out: {line}")
    print(
        f"Wrote {args.out / 'report.md'}: {len(report.sections)} sections, "
        f"{len(report.tables)} tables, {len(report.figures)} figures."
    )
    return EXIT_OK


def compare_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "sides",
        nargs="*",
        metavar="BASE NEW",
        help="baseline and new: a log or a folder each (or use --base/--new for several)",
    )
    for side, name in (("--base", "baseline"), ("--new", "new")):
        parser.add_argument(
            side, nargs="+", default=[], metavar="LOG_OR_DIR", help=f"{name} logs of one run"
        )
    _merge_options(parser)
    parser.set_defaults(usage_error=parser.error)
    parser.add_argument(
        "--metric",
        dest="metrics",
        action="append",
        default=[],
        help="score key to test (repeatable; default: judge_majority, mcq_accuracy, "
        "blind_mcq_accuracy, those scored in both)",
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        default=0.0,
        help="allowed drop of the mean, as a fraction (0.02 = 2 points; default 0)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )
    parser.add_argument(
        "--test",
        choices=["t", "wilcoxon"],
        default="t",
        help="one-sided regression test (default: t)",
    )
    _flag(
        parser,
        "--allow-mixed",
        "compare runs whose dataset, protocol, seed, judge panel, cast or pairing differ",
    )
    _flag(parser, "--allow-task-change", "compare runs of different tasks")
    _flag(
        parser,
        "--allow-incomplete",
        "compare even if a run did not finish or NEW lacks samples of BASE",
    )
    parser.add_argument("--csv", type=Path, help="also write the comparison as CSV")
    parser.add_argument(
        "--against",
        choices=["paper"],
        help="gate LOGS against the paper's published values instead of BASE (docs/reference.md)",
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=0.0,
        metavar="POINTS",
        help="--against paper: also pass a cell within this many percentage points (default 0)",
    )


def compare_sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """BASE NEW as two positionals, or --base ... --new ... (several logs or folders each).
    A wrong combination is a usage error (usage and one line, exit 2)."""
    if args.sides and (args.base or args.new):
        args.usage_error("give BASE NEW as two arguments or with --base/--new, not both")
    if args.sides:
        if len(args.sides) != 2:
            args.usage_error(
                f"expected BASE NEW (2 arguments), got {len(args.sides)}; for several logs per "
                "side use --base LOG_OR_DIR... --new LOG_OR_DIR..."
            )
        return [args.sides[0]], [args.sides[1]]
    if not (args.base and args.new):
        args.usage_error("give BASE NEW, or --base LOG_OR_DIR... and --new LOG_OR_DIR...")
    return list(args.base), list(args.new)


def run_compare(args: argparse.Namespace) -> int:
    """paired regression test of NEW against BASE (CI gate)

    Pair samples by (id, epoch) and test whether NEW is worse than BASE by more than
    --max-drop."""
    from agentsense.engine.console import wrapped
    from agentsense.report.compare import CompareOptions, compare, comparison_frame, comparison_text

    # every option of the comparison is the flag of the same name
    if args.against == "paper":
        from agentsense.report.paper import gate

        logs = [*args.sides, *args.base, *args.new]
        text, passed = gate(logs, args.margin, args.scorer, args.prefer_newest)
        print(text)
        return EXIT_OK if passed else EXIT_REGRESSION
    options = CompareOptions(**{f.name: getattr(args, f.name) for f in fields(CompareOptions)})
    base, new = compare_sides(args)
    comparison = compare(base, new, options)
    print(comparison_text(comparison, options))
    print(
        "\n"
        + wrapped(
            f"{comparison.pairs} paired samples; {comparison.base_only} only in BASE, "
            f"{comparison.new_only} only in NEW."
        )
    )
    for note in comparison.notes:
        print(wrapped(note, "Note: "))
    if args.csv is not None:
        comparison_frame(comparison).to_csv(args.csv, index=False)
    untested = [r.metric for r in comparison.results if math.isnan(r.result.p_regression)]
    if untested and not args.allow_incomplete:
        print(
            wrapped(
                f"UNTESTED: {', '.join(untested)} (no regression test: fewer than 2 templates "
                "or pairs). The gate cannot pass on them: evaluate more templates, or pass "
                "--allow-incomplete."
            ),
            file=sys.stderr,
        )
        return EXIT_ERROR
    failed = [r.metric for r in comparison.results if r.regression]
    if failed:
        print(
            wrapped(
                f"REGRESSION: {', '.join(failed)} dropped by more than {args.max_drop:g} "
                f"(p < {args.alpha:g})."
            )
        )
        return EXIT_REGRESSION
    print("No significant regression.")
    return EXIT_OK


def labels_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="log of agentsense/labelling")
    parser.add_argument("--out", required=True, type=Path, help="labels file to write (JSON)")
    parser.add_argument(
        "--dataset-out",
        type=Path,
        help="also write the labelled scenes as JSONL (with roles, categories, types)",
    )


def run_labels(args: argparse.Namespace) -> int:
    """export the labels of an agentsense/labelling log

    Write the labels of an agentsense/labelling log as JSON (for `agentsense report
    --labels`)."""
    from agentsense.report.labels import export_labels

    count = export_labels(args.log, args.out, args.dataset_out)
    print(f"Wrote the labels of {count} scenes to {args.out}.")
    return EXIT_OK


def scenarios_options(parser: argparse.ArgumentParser) -> None:
    _logs(parser, "construct logs or folders of logs", "+")
    parser.add_argument("--out", type=Path, help="dataset file to write (JSONL)")
    parser.add_argument("--review", type=Path, help="write a validation sheet (CSV) to fill")
    parser.add_argument("--accept", type=Path, help="apply a filled validation sheet (CSV)")


def run_scenarios(args: argparse.Namespace) -> int:
    """export the scenarios built by agentsense/construct as a dataset (JSONL)

    Write the scenarios of agentsense/construct logs as a JSONL dataset (official schema plus
    provenance), validated before it is written; optionally write or apply a human-validation
    sheet (paper App. A.3)."""
    from agentsense.construction.export import export_scenarios, summary
    from agentsense.engine.errors import ReportError

    if args.out is None and args.review is None:
        raise ReportError("give --out FILE.jsonl and/or --review FILE.csv")
    export = export_scenarios(args.logs, args.out, args.review, args.accept)
    print("\n".join(summary(export)))
    if args.review is not None:
        print(f"Wrote the validation sheet {args.review}.")
    if args.out is not None:
        print(f"Wrote {len(export.records)} scenarios to {args.out} (validated).")
    return EXIT_OK


def args_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", nargs="?", metavar="TASK", help="e.g. full (default: all)")


def run_args(args: argparse.Namespace) -> int:
    """list a task's arguments (-T name=value) with types, defaults and meaning

    List the task arguments of agentsense/TASK (or of every task)."""
    from agentsense.arguments import arguments_text
    from agentsense.tasks import __all__ as task_names

    names = [args.task] if args.task else list(task_names)
    print("\n\n".join(arguments_text(name.removeprefix("agentsense/")) for name in names))
    return EXIT_OK


def annotate_options(parser: argparse.ArgumentParser) -> None:
    _logs(parser, "logs of agentsense/goal, full or pairwise", "+")
    parser.add_argument(
        "--out", required=True, type=Path, help="sheet to write (CSV), or with --labels a folder"
    )
    parser.add_argument("--labels", type=Path, metavar="SHEET", help="a filled sheet (CSV)")
    parser.add_argument(
        "--sample",
        type=Path,
        metavar="FILE",
        help="the sheet's sample record (default: SHEET.sample.json beside the sheet)",
    )
    # Defaults (100 scenes as the paper, seed 0, 3 annotators) live in analysis.annotation,
    # which imports pandas: resolved in run_annotate so the CLI starts fast.
    parser.add_argument("--scenes", type=int, help="scenes to sample (default 100, as the paper)")
    parser.add_argument("--seed", type=int, help="sampling seed (default 0)")
    parser.add_argument(
        "--annotators",
        type=int,
        help="empty annotator columns in the sheet (default 3; add or remove freely)",
    )
    _merge_options(parser)


def run_annotate(args: argparse.Namespace) -> int:
    """judges against human labels (paper App. D.1, Table 6)

    Without --labels: sample judged scenes and write a sheet to fill (CSV, one row per judge
    question). With --labels: read the filled sheet and write each judge's agreement with the
    people, and the annotators' own."""
    from agentsense.analysis import annotation
    from agentsense.analysis.log_reader import load_runs
    from agentsense.report.annotate import (
        human_agreement,
        sample_path,
        write_agreement,
        write_sheet,
    )

    runs = load_runs(args.logs, args.scorer, args.prefer_newest)
    if args.labels is None:
        seed = annotation.DEFAULT_SEED if args.seed is None else args.seed
        scenes = annotation.DEFAULT_SCENES if args.scenes is None else args.scenes
        annotators = annotation.DEFAULT_ANNOTATORS if args.annotators is None else args.annotators
        sheet, record = write_sheet(runs, args.out, scenes, seed, annotators)
        print(
            f"Wrote {args.out}: {len(sheet)} goal questions of {len(record['scenes'])} scenes "
            f"(seed {seed}; {record['scenes_available']} judged scenes available), "
            f"{annotators} empty annotator column(s); the sample is recorded in "
            f"{sample_path(args.out)}."
        )
        return EXIT_OK
    result = human_agreement(runs, args.labels, args.sample)
    files = write_agreement(result, args.out)
    print((args.out / "annotation.md").read_text(encoding="utf-8"))
    print(f"Wrote {', '.join(str(f) for f in files)}.")
    return EXIT_OK


def stats_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dataset", metavar="DATASET", help="demo, official, official_roles, or a JSONL file"
    )
    parser.add_argument("--out", type=Path, help="folder for stats.md, the CSVs and the figure")


def run_stats(args: argparse.Namespace) -> int:
    """a dataset's counts per source script (paper Table 3, Figure 4a)

    Count templates, scenarios, characters, goals by ERG category, scenario types, private
    information and MCQs per source script (or the dataset); print them as Markdown and, with
    --out, write stats.md, CSVs and a figure."""
    from agentsense.report.dataset_counts import counts_markdown, dataset_counts, write_counts

    result = dataset_counts(args.dataset)  # a bad dataset file: an error listing every bad record
    print(counts_markdown(result))
    if args.out is not None:
        files = write_counts(result, args.out)
        print(f"Wrote {', '.join(str(f) for f in files)}.")
    return EXIT_OK


Options = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, tuple[Options, Run]] = {
    "report": (report_options, run_report),
    "compare": (compare_options, run_compare),
    "labels": (labels_options, run_labels),
    "scenarios": (scenarios_options, run_scenarios),
    "args": (args_options, run_args),
    "annotate": (annotate_options, run_annotate),
    "stats": (stats_options, run_stats),
    "eval-parts": (parts.options, parts.run),
}
# The extra each command needs beyond the core (engine/extras.py): the commands that build
# frames, tables or figures. Checked before the command runs, so nothing is written.
EXTRA_OF: dict[str, str] = {
    "report": "report",
    "compare": "report",
    "labels": "report",
    "annotate": "report",
    "stats": "report",
}


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="agentsense", description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)
    for name, (options, run) in COMMANDS.items():
        help, _, description = inspect.cleandoc(run.__doc__ or name).partition("\n\n")
        options(commands.add_parser(name, help=help, description=description or help))
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from agentsense.engine.errors import PrerequisiteError, ReportError
    from agentsense.engine.extras import require_extra
    from agentsense.engine.sheets import SheetError

    # Inspect logs while it reads logs: its lines kept off the command's output but for errors,
    # for the command's duration (the process's settings are left as they were).
    logger = logging.getLogger("inspect_ai")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        if args.command in EXTRA_OF:
            require_extra(EXTRA_OF[args.command], "this command")
        return COMMANDS[args.command][1](args)
    # bad input to a command (a dataset's bad records, a sheet's bad rows): its message alone
    except (ReportError, PrerequisiteError, SheetError) as error:
        print(f"agentsense {args.command}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    # the reader of the output went away (`agentsense args | head`): nothing is lost; stdout is
    # pointed at /dev/null so that Python's flush at exit does not raise again
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        logger.setLevel(level)


if __name__ == "__main__":
    sys.exit(main())
