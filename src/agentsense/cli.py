"""The `agentsense` command: `report` (the paper's tables and figures from logs), `compare` (a
paired regression gate for CI) and `labels` (a labels file from an `agentsense/labelling` log).

Exit status: 0 success (compare: no significant regression), 1 compare found a regression,
2 usage or input error (a message, no traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_ERROR = 2


def _report_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "report",
        help="tables, figures and statistics from AgentSense logs",
        description="Write report.md, CSV tables and PNG figures from AgentSense logs.",
    )
    parser.add_argument(
        "logs", nargs="+", metavar="LOG_OR_DIR", help="log files or folders of logs"
    )
    parser.add_argument("--out", required=True, type=Path, help="output folder (created if needed)")
    parser.add_argument(
        "--allow-mixed",
        action="store_true",
        help="put runs made with different protocol settings side by side",
    )
    parser.add_argument("--labels", type=Path, help="labels file (JSON) from `agentsense labels`")
    parser.add_argument(
        "--sensitivity-metric",
        default="judge_majority",
        help="scene score tested for abnormal templates (default: judge_majority)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )


def _compare_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "compare",
        help="paired regression test of NEW against BASE (CI gate)",
        description="Pair samples by (id, epoch) and test whether NEW is worse "
        "than BASE by more than --max-drop.",
    )
    parser.add_argument("base", metavar="BASE", help="baseline log (or folder with one run)")
    parser.add_argument("new", metavar="NEW", help="new log (or folder with one run)")
    parser.add_argument(
        "--metric",
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
    parser.add_argument(
        "--allow-mixed", action="store_true", help="compare runs made with different settings"
    )
    parser.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="compare even if a run did not finish or NEW lacks samples of BASE",
    )
    parser.add_argument("--csv", type=Path, help="also write the comparison as CSV")


def _labels_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "labels",
        help="export the labels of an agentsense/labelling log",
        description="Write the labels of an agentsense/labelling log as JSON "
        "(for `agentsense report --labels`).",
    )
    parser.add_argument("log", metavar="LOG", help="log of agentsense/labelling")
    parser.add_argument("--out", required=True, type=Path, help="labels file to write (JSON)")
    parser.add_argument(
        "--dataset-out",
        type=Path,
        help="also write the labelled scenes as JSONL (with roles, categories, types)",
    )


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="agentsense", description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)
    _report_parser(commands)
    _compare_parser(commands)
    _labels_parser(commands)
    return root


def run_report(args: argparse.Namespace) -> int:
    from .report.build import ReportOptions, write_report

    options = ReportOptions(
        out=args.out,
        allow_mixed=args.allow_mixed,
        labels=args.labels,
        sensitivity_metric=args.sensitivity_metric,
        alpha=args.alpha,
    )
    report = write_report(args.logs, options)
    print(
        f"Wrote {args.out / 'report.md'}: "
        f"{len(report.tables)} tables, {len(report.figures)} figures."
    )
    return EXIT_OK


def run_compare(args: argparse.Namespace) -> int:
    from .report.compare import CompareOptions, compare, comparison_frame, comparison_table

    options = CompareOptions(
        metrics=args.metric,
        max_drop=args.max_drop,
        alpha=args.alpha,
        test=args.test,
        allow_mixed=args.allow_mixed,
        allow_incomplete=args.allow_incomplete,
    )
    comparison = compare([args.base], [args.new], options)
    print(comparison_table(comparison, options))
    print(
        f"\n{comparison.pairs} paired samples; {comparison.base_only} only in BASE, "
        f"{comparison.new_only} only in NEW."
    )
    for note in comparison.notes:
        print(f"Note: {note}")
    if args.csv is not None:
        comparison_frame(comparison).to_csv(args.csv, index=False)
    failed = [r.metric for r in comparison.results if r.regression]
    if failed:
        print(
            f"REGRESSION: {', '.join(failed)} dropped by more than {args.max_drop:g} "
            f"(p < {args.alpha:g})."
        )
        return EXIT_REGRESSION
    print("No significant regression.")
    return EXIT_OK


def run_labels(args: argparse.Namespace) -> int:
    from .tasks.labelling import export_labels

    count = export_labels(args.log, args.out, args.dataset_out)
    print(f"Wrote the labels of {count} scenes to {args.out}.")
    return EXIT_OK


COMMANDS = {"report": run_report, "compare": run_compare, "labels": run_labels}


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    os.environ.setdefault("INSPECT_LOG_LEVEL", "error")
    from .report.errors import ReportError

    try:
        return COMMANDS[args.command](args)
    except ReportError as error:
        print(f"agentsense {args.command}: error: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
