"""`agentsense report`: tables, figures and statistics from real logs of the demo set."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.scorer import match
from inspect_ai.solver import generate
from scipy import stats as sps

from agentsense.analysis.log_reader import load_runs
from agentsense.analysis.sample_rows import mcq_target
from agentsense.analysis.stats import mean_ci, variance_test
from agentsense.cli import main
from agentsense.engine.errors import ReportError
from agentsense.report.frames import build_units
from agentsense.report.labels import Labels, apply_labels
from agentsense.report.sections.profile_sensitivity import abnormal_templates
from agentsense.report.tables import scene_breakdown
from agentsense.sense.dataset.samples import load_scenarios
from agentsense.tasks import blind, full, goal, pairwise
from agentsense_logs import labeller

JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b", "standin/persona/judge-c"]
A, B = "standin/persona/a", "standin/persona/b"
S1, S2, R1 = "standin/persona/s1", "standin/persona/s2", "standin/persona/r1"
TWO_PER_TEMPLATE = [100 * t + k for t in range(1, 9) for k in (1, 2)]
WITH_MCQ = [101, 102, 301, 302, 501, 502, 801, 802]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CATEGORIES = {
    "Information Acquisition",
    "Information Provision",
    "Relationship Building",
    "Relationship Maintenance",
    "Identity Recognition",
    "Cooperation",
    "Competition",
    "Conflict Resolution",
}


def run(task: Task, model: str, log_dir: Path, **kwargs: Any) -> EvalLog:
    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none", **kwargs)
    assert log.status == "success"
    return log


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    root = tmp_path_factory.mktemp("report-logs")
    judges = {"judge": JUDGES}
    made = {
        A: run(
            full(dataset="demo", max_messages=5),
            A,
            root,
            model_roles=judges,
            sample_id=TWO_PER_TEMPLATE,
        ),
        B: run(
            full(dataset="demo", max_messages=5),
            B,
            root,
            model_roles=judges,
            sample_id=TWO_PER_TEMPLATE,
        ),
        "blind": run(blind(dataset="demo", epochs=2), A, root, sample_id=WITH_MCQ),
    }
    for sender in (S1, S2):
        made[sender] = run(
            pairwise(dataset="demo", max_messages=5),
            "standin/persona/agent",
            root,
            model_roles={**judges, "sender": sender, "receiver": R1},
            sample_id=[101, 102, 301, 302],
        )
    return made


@pytest.fixture(scope="module")
def log_dir(logs: dict[str, EvalLog]) -> Path:
    return Path(logs[A].location).parent


@pytest.fixture(scope="module")
def out(log_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "out"
    assert main(["report", str(log_dir), "--out", str(folder)]) == 0
    return folder


def table_one(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "table1.csv").set_index("run")


def scene_values(log: EvalLog, key: str, scorer: str = "goal_and_mcq") -> dict[Any, list[float]]:
    values: dict[Any, list[float]] = defaultdict(list)
    for sample in log.samples or []:
        value = sample.scores[scorer].value[key]  # type: ignore[index]
        if not math.isnan(value):
            values[sample.id].append(value)
    return values


def psi_by_hand(log: EvalLog, key: str) -> float:
    """Per-template sample std of the scene values, averaged over the templates."""
    by_template: dict[Any, list[float]] = defaultdict(list)
    for sample in log.samples or []:
        value = sample.scores["goal_and_mcq"].value[key]  # type: ignore[index]
        if not math.isnan(value):
            by_template[(sample.metadata or {})["template_id"]].append(value)
    return statistics.fmean(statistics.stdev(v) for v in by_template.values() if len(v) > 1)


def metric(log: EvalLog, key: str, name: str) -> float:
    assert log.results is not None
    (score,) = [s for s in log.results.scores if s.name == key]
    return float(score.metrics[name].value)


# --- Table 1 -----------------------------------------------------------------------------------


def test_table_one_has_a_row_per_model_and_pair_and_named_judges(out: Path) -> None:
    table = table_one(out)
    assert set(table.index) == {A, B, f"{S1} × {R1}", f"{S2} × {R1}"}
    assert table.loc[A, "kind"] == "homogeneous" and table.loc[f"{S1} × {R1}", "kind"] == "pairwise"
    for judge in JUDGES:
        assert f"judge: {judge}_mean" in table.columns
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "## Table 1" in markdown and f"| {S1} × {R1} | pairwise |" in markdown


def test_table_one_matches_the_log_metrics(out: Path, logs: dict[str, EvalLog]) -> None:
    table = table_one(out)
    for model in (A, B):
        row, log = table.loc[model], logs[model]
        for key in ("self", "other", "judge_mean", "judge_majority", "mcq_accuracy"):
            assert math.isclose(row[f"{key}_mean"], metric(log, key, "mean"))
        assert math.isclose(
            row["judge: standin/persona/judge-b_mean"], metric(log, "judge_2", "mean")
        )
        # Every template has 2 scenes here, so the report's PSI is the official PSI.
        assert math.isclose(row["goal_psi_mean"], psi_by_hand(log, "judge_majority"))
        assert math.isclose(row["mcq_psi_mean"], psi_by_hand(log, "mcq_accuracy"))
        assert row["judge_majority_n"] == len(TWO_PER_TEMPLATE) and row["mcq_accuracy_n"] == len(
            WITH_MCQ
        )


def test_confidence_intervals_are_clustered_by_template(
    out: Path, logs: dict[str, EvalLog]
) -> None:
    # Issue #13 changed the report's intervals from scene-level Student-t to template-clustered:
    # mean ± t(C - 1) * sqrt(C/(C - 1) * sum_g (sum_{i in g} (y_i - mean))^2) / n.
    row = table_one(out).loc[A]
    per_scene = scene_values(logs[A], "judge_majority")
    template = {s.id: (s.metadata or {})["template_id"] for s in logs[A].samples or []}
    values = np.array([statistics.fmean(v) for v in per_scene.values()])
    groups = [template[i] for i in per_scene]
    mean, n = values.mean(), len(values)
    sums = defaultdict(float)
    for value, group in zip(values, groups, strict=True):
        sums[group] += value - mean
    count = len(sums)
    se = math.sqrt(sum(x * x for x in sums.values()) * count / (count - 1)) / n
    # Issue #20: the Wilson interval at the effective sample size p(1 - p) / SE², t on C - 1 df,
    # so it cannot leave [0, 1].
    critical, size = sps.t.ppf(0.975, count - 1), mean * (1 - mean) / se**2
    z2 = critical**2 / size
    center = (mean + z2 / 2) / (1 + z2)
    half = critical * math.sqrt(mean * (1 - mean) / size + z2 / (4 * size)) / (1 + z2)
    assert math.isclose(row["judge_majority_ci_low"], center - half)
    assert math.isclose(row["judge_majority_ci_high"], center + half)
    naive = sps.t.interval(0.95, n - 1, loc=mean, scale=sps.sem(values))
    assert not math.isclose(row["judge_majority_ci_low"], naive[0])


def test_blind_accuracy_sits_next_to_the_real_one(out: Path, logs: dict[str, EvalLog]) -> None:
    table = table_one(out)
    per_scene = scene_values(logs["blind"], "blind_mcq_accuracy", "blind_mcq")
    assert all(len(v) == 2 for v in per_scene.values())  # two epochs, averaged per scene
    expected = statistics.fmean(statistics.fmean(v) for v in per_scene.values())
    assert math.isclose(table.loc[A, "blind_mcq_accuracy_mean"], expected)
    assert table.loc[A, "blind_mcq_accuracy_n"] == len(WITH_MCQ)
    assert table.loc[B, "blind_mcq_accuracy_n"] == 0
    leakage = pd.read_csv(out / "leakage.csv").set_index("run")
    assert list(leakage.index) == [A]


# --- breakdowns --------------------------------------------------------------------------------


def test_category_breakdown_counts_every_goal(out: Path) -> None:
    frame = pd.read_csv(out / "by_category.csv")
    part = frame[(frame["group"] == A) & (frame["metric"] == "judge_majority")]
    assert set(part["category"]) == CATEGORIES
    goals = sum(
        len(c.goals)
        for s in load_scenarios("demo")
        if s.sample_idx in TWO_PER_TEMPLATE
        for c in s.characters
    )
    assert part["n"].sum() == goals
    over = pd.read_csv(out / "overconfidence.csv")
    assert set(over["metric"]) == {"overconfidence"} and set(over["category"]) == CATEGORIES


def test_scene_breakdowns(out: Path) -> None:
    participants = pd.read_csv(out / "by_participants.csv")
    assert set(participants.loc[participants["group"] == A, "n_characters"]) == {2, 3, 4, 5}
    types = pd.read_csv(out / "by_scenario_type.csv")
    assert set(types["scenario_type"]) == {"personal domain", "small society", "large society"}
    rounds = pd.read_csv(out / "by_rounds.csv")
    assert set(rounds["rounds"]) == {5}


def test_goal_rows_reproduce_the_scene_scores(logs: dict[str, EvalLog]) -> None:
    runs = load_runs([logs[A].location])
    goals = (
        runs.goals.groupby(["id", "character"])[["self", "judge_majority"]]
        .mean()
        .groupby("id")
        .mean()
    )
    scenes = runs.scenes.set_index("id")
    for key in ("self", "judge_majority"):
        assert np.allclose(goals[key].sort_index(), scenes.loc[goals.index, key].sort_index())


def test_attacker_and_defender(out: Path, logs: dict[str, EvalLog]) -> None:
    table = pd.read_csv(out / "attack_defence.csv").set_index("model")
    correct = []
    for log in (logs[A],):
        for sample in log.samples or []:
            answers = sample.scores["goal_and_mcq"].metadata["mcq_answers"]  # type: ignore[index, union-attr]
            correct += [float(a["reading"] == a["correct"]) for a in answers]
    assert math.isclose(table.loc[A, "attack_mean"], statistics.fmean(correct))
    # In a homogeneous run every probed secret is the same model's: defence = 1 - attack.
    assert math.isclose(table.loc[A, "defence_mean"], 1 - statistics.fmean(correct))
    assert {S1, S2, R1} <= set(table.index)


def test_sender_receiver_matrices(out: Path) -> None:
    pairs = pd.read_csv(out / "pairs.csv").set_index("sender")
    assert list(pairs.index) == [S1, S2] and list(pairs.columns) == [
        f"{R1}_{p}" for p in ("mean", "ci_low", "ci_high", "n")
    ]
    assert (pairs[f"{R1}_n"] == 4).all()
    for name in ("pairs_senders.csv", "pairs_receivers.csv"):
        assert (pd.read_csv(out / name)[f"{R1}_n"] == 4).all()


# --- profile sensitivity -----------------------------------------------------------------------


def test_chi_square_test_of_app_d6(out: Path, logs: dict[str, EvalLog]) -> None:
    tests = pd.read_csv(out / "sensitivity_tests.csv")
    values = {k: v[0] for k, v in scene_values(logs[A], "judge_majority").items()}
    population = np.var(list(values.values()))
    row = tests[(tests["group"] == A) & (tests["template_id"] == 3)].iloc[0]
    template = [values[301], values[302]]
    chi2 = (len(template) - 1) * np.var(template, ddof=1) / population
    p = 2 * min(sps.chi2.cdf(chi2, 1), sps.chi2.sf(chi2, 1))
    assert math.isclose(row["chi2"], chi2) and math.isclose(row["p"], min(1.0, p))
    assert row["rejected"] == (p < 0.05)
    abnormal = pd.read_csv(out / "abnormal_templates.csv")
    for template_row in abnormal.itertuples():
        part = tests[tests["template_id"] == template_row.template_id].dropna(subset=["p"])
        assert template_row.abnormal == ((part["p"] < 0.05).sum() > len(part) / 2)
    assert "Abnormal templates:" in (out / "report.md").read_text(encoding="utf-8")


def test_abnormal_means_rejected_by_more_than_half_the_runs() -> None:
    tests = pd.DataFrame(
        {
            "group": ["m1", "m2", "m3", "m1", "m2", "m3"],
            "template_id": [1, 1, 1, 2, 2, 2],
            "p": [0.01, 0.02, 0.5, 0.01, 0.5, 0.5],
            "rejected": [True, True, False, True, False, False],
        }
    )
    result = abnormal_templates(tests).set_index("template_id")
    assert result.loc[1, "abnormal"] and not result.loc[2, "abnormal"]
    assert result.loc[1, "rejections"] == 2 and result.loc[1, "runs_tested"] == 3


def test_variance_test_matches_its_formula() -> None:
    values = [0.2, 0.9, 0.4, 0.8, 0.1]
    result = variance_test(values, population_variance=0.01)
    chi2 = 4 * np.var(values, ddof=1) / 0.01
    assert math.isclose(result.chi2, chi2) and math.isclose(result.p, 2 * sps.chi2.sf(chi2, 4))
    assert math.isnan(variance_test([0.5], 0.1).p) and math.isnan(variance_test(values, 0.0).p)


# --- figures -----------------------------------------------------------------------------------


def test_figures_are_valid_pngs(out: Path) -> None:
    records = json.loads((out / "figures.json").read_text(encoding="utf-8"))
    files = {record["file"] for record in records}
    assert files == {
        "overall.png",
        "by_category.png",
        "overconfidence.png",
        "by_scenario_type.png",
        "by_participants.png",
        "by_rounds.png",
        "pairs.png",
        "pairs_senders.png",
        "pairs_receivers.png",
        "attack_defence.png",
        "sensitivity.png",
        "judge_agreement.png",  # issue #13: pairwise judge agreement
    }
    for name in files:
        path = out / "figures" / name
        assert path.read_bytes()[:8] == PNG_MAGIC
        image = matplotlib.image.imread(path)
        assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 300
        assert f"figures/{name}" in (out / "report.md").read_text(encoding="utf-8")


def test_figures_show_the_expected_series(out: Path) -> None:
    records = {r["file"]: r for r in json.loads((out / "figures.json").read_text(encoding="utf-8"))}
    category = records["by_category.png"]
    assert [p["title"] for p in category["panels"]] == ["Self", "Other", "Judge majority"]
    groups = {A, B, f"{S1} × {R1}", f"{S2} × {R1}"}
    assert set(category["panels"][2]["series"]) == groups
    assert set(category["panels"][2]["x"]) == CATEGORIES
    csv = pd.read_csv(out / "by_category.csv")
    shown = dict(zip(category["panels"][2]["x"], category["panels"][2]["series"][A], strict=True))
    for row in csv[(csv["group"] == A) & (csv["metric"] == "judge_majority")].itertuples():
        assert shown[row.category]["n"] == row.n and math.isclose(
            shown[row.category]["mean"], row.mean
        )
        assert shown[row.category]["low"] <= row.mean <= shown[row.category]["high"]
    heatmap = records["pairs.png"]["panels"][0]
    assert heatmap["rows"] == [S1, S2] and heatmap["columns"] == [R1]
    attack = records["attack_defence.png"]["panels"][0]
    assert set(attack["series"]) == {"attack", "defence"}


# --- settings, labels, errors ------------------------------------------------------------------


def test_mixed_protocols_are_refused_unless_allowed(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    corrected = run(
        goal(dataset="demo", protocol="corrected", max_messages=5),
        A,
        tmp_path,
        model_roles={"judge": JUDGES},
        sample_id=[101],
    )
    runs = load_runs([logs[A].location, corrected.location])
    with pytest.raises(ReportError, match="mode: 'corrected'"):
        build_units(runs)
    units = build_units(runs, allow_mixed=True)
    assert set(units.scenes["group"]) == {f"{A} [mode=official]", f"{A} [mode=corrected]"}
    assert main(["report", logs[A].location, corrected.location, "--out", str(tmp_path / "x")]) == 2


def test_rounds_split_rows_without_mixing(logs: dict[str, EvalLog], tmp_path: Path) -> None:
    short = run(
        full(dataset="demo", max_messages=3),
        A,
        tmp_path,
        model_roles={"judge": JUDGES},
        sample_id=[101, 102],
    )
    units = build_units(load_runs([logs[A].location, short.location]))
    assert set(units.scenes["group"]) == {f"{A} [rounds=5]", f"{A} [rounds=3]"}
    frame = scene_breakdown(units, "rounds")
    assert set(frame["rounds"]) == {3, 5}


def test_labels_override_the_records(logs: dict[str, EvalLog]) -> None:
    runs = load_runs([logs[A].location])
    goal_row = runs.goals.iloc[0]
    labels = Labels(
        scenario_types={str(i): "custom" for i in TWO_PER_TEMPLATE[:4]},
        goal_categories={str(goal_row["id"]): {goal_row["character"]: {goal_row["goal"]: "Other"}}},
    )
    apply_labels(runs, labels)
    assert (runs.scenes["scenario_type"] == "custom").sum() == 4
    assert runs.goals.iloc[0]["category"] == "Other" and runs.goals.iloc[1]["category"] != "Other"


def test_cli_errors_are_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    other = run(
        Task(dataset=[Sample(input="Say hi", target="hi")], solver=generate(), scorer=match()),
        A,
        tmp_path / "other",
    )
    assert main(["report", other.location, "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err
    assert "Not AgentSense logs" in error and "Traceback" not in error


# --- units -------------------------------------------------------------------------------------


def test_mean_ci_is_the_t_interval() -> None:
    values = [0.1, 0.5, 0.4, 0.9, 0.7]
    result = mean_ci(values)
    low, high = sps.t.interval(0.95, 4, loc=np.mean(values), scale=sps.sem(values))
    assert math.isclose(result.low, low) and math.isclose(result.high, high) and result.n == 5
    single = mean_ci([0.3, math.nan])
    assert single.n == 1 and single.mean == 0.3 and math.isnan(single.low)
    assert mean_ci([]).n == 0


def test_mcq_targets() -> None:
    scenes = {s.sample_idx: s for s in load_scenarios("demo")}
    pair = scenes[101]
    asker = pair.characters[0]
    assert mcq_target(pair, asker.name, asker.info_reason_questions[0]) == pair.names[1]
    team = scenes[301]  # three characters: the question names its target
    for character in team.characters:
        item = character.info_reason_questions[0]
        target = mcq_target(team, character.name, item)
        assert target is not None and target != character.name and target in item.question
    explicit = item.model_copy(update={"question": "Whose plan is it?"})
    explicit.__pydantic_extra__ = {"target": team.names[0]}
    assert mcq_target(team, team.names[2], explicit) == team.names[0]
    unnamed = item.model_copy(update={"question": "What is the secret?"})
    assert mcq_target(team, team.names[0], unnamed) is None


# --- labelling ---------------------------------------------------------------------------------


def test_labelling_task_and_export(tmp_path: Path) -> None:
    from agentsense.report.labels import read_labels
    from agentsense.tasks import labelling

    log = run(
        labelling(dataset="demo"),
        "standin/persona/agent",
        tmp_path,
        sample_id=[101, 203, 301],
        model_roles={"labeller": labeller()},
    )
    scenes = {s.sample_idx: s for s in load_scenarios("demo")}
    for sample in log.samples or []:
        scene, value = scenes[sample.id], sample.scores["label_agreement"].value  # type: ignore[index]
        assert value["type_agreement"] == float(scene.scenario_type == "small society")  # type: ignore[index]
        goals = [g.category for c in scene.characters for g in c.goals]
        assert math.isclose(value["category_agreement"], goals.count("Cooperation") / len(goals))  # type: ignore[index]
        roles = list((scene.roles or {}).values())
        assert math.isclose(value["role_agreement"], roles.count("sender") / len(roles))  # type: ignore[index]
    labels_file, dataset_file = tmp_path / "labels.json", tmp_path / "labelled.jsonl"
    assert (
        main(
            ["labels", log.location, "--out", str(labels_file), "--dataset-out", str(dataset_file)]
        )
        == 0
    )
    labels = read_labels(labels_file)
    assert labels.scenario_types == {
        "101": "small society",
        "203": "small society",
        "301": "small society",
    }
    assert set(labels.goal_categories["301"]) == set(scenes[301].names)
    records = [json.loads(line) for line in dataset_file.read_text(encoding="utf-8").splitlines()]
    assert all(set(r["roles"].values()) == {"sender"} for r in records)
    assert all(
        g["category"] == "Cooperation" for r in records for c in r["characters"] for g in c["goals"]
    )
    assert main(["labels", str(tmp_path / "nope.eval"), "--out", str(labels_file)]) == 2


# --- issue #13: judge reliability, uncertainty, baselines --------------------------------------


def test_judge_reliability_section(out: Path, log_dir: Path, logs: dict[str, EvalLog]) -> None:
    from agentsense.analysis import goal_answers, panel_agreement

    report = (out / "report.md").read_text()
    assert "## Judge reliability" in report and "figures/judge_agreement.png" in report
    assert (out / "figures" / "judge_agreement.png").read_bytes().startswith(PNG_MAGIC)
    table = pd.read_csv(out / "judge_agreement.csv").set_index("run")
    expected = panel_agreement(goal_answers([logs[A].location])).iloc[0]
    for column in ("fleiss_kappa", "krippendorff_alpha", "self_agreement", "other_agreement"):
        assert math.isclose(table.loc[A, column], expected[column]), column
    assert table.loc[A, "judges"] == 3
    # One judge question per goal here: every judge answered each, so units = judge answers / 3.
    answers = goal_answers([logs[A].location])
    assert table.loc[A, "units"] == (answers["kind"] == "judge").sum() / 3
    pairs = pd.read_csv(out / "judge_pairs.csv")
    square = pairs[pairs["run"] == A].set_index("judge_a")[JUDGES]  # judges named by model
    assert list(square.index) == JUDGES
    assert np.allclose(square.to_numpy(), square.to_numpy().T)
    assert np.allclose(np.diag(square.to_numpy()), 1.0)
    shares = pd.read_csv(out / "unreadable.csv")
    assert set(shares[shares["run"] == A]["judge"].dropna()) == {"judge_1", "judge_2", "judge_3"}
    by_category = pd.read_csv(out / "judge_agreement_by_category.csv")
    assert set(by_category[by_category["run"] == A]["category"]) == CATEGORIES


def test_uncertainty_section_sets_clustered_beside_naive(
    out: Path, logs: dict[str, EvalLog]
) -> None:
    widths = pd.read_csv(out / "uncertainty.csv")
    row = widths[(widths["group"] == A) & (widths["metric"] == "judge_majority")].iloc[0]
    table = table_one(out).loc[A]
    reported = (table["judge_majority_ci_high"] - table["judge_majority_ci_low"]) / 2
    assert math.isclose(row["half_width"], reported)
    values = [statistics.fmean(v) for v in scene_values(logs[A], "judge_majority").values()]
    assert math.isclose(row["naive_half_width"], mean_ci(values).half_width)
    assert row["templates"] == 8 and row["n"] == len(TWO_PER_TEMPLATE)
    psi = widths[(widths["group"] == A) & (widths["metric"] == "goal_psi")].iloc[0]
    assert psi["method"] == "bootstrap" and psi["half_width"] > 0


def test_trivial_baselines(out: Path, logs: dict[str, EvalLog]) -> None:
    table = pd.read_csv(out / "baselines.csv")
    rows = table[table["group"] == A].set_index("metric")
    assert rows.loc["judge_majority", "always_yes"] == 1.0
    assert rows.loc["judge_majority", "always_no"] == 0.0
    assert rows.loc["mcq_accuracy", "chance"] == 0.25  # every demo MCQ has 4 options
    blind_scenes = scene_values(logs["blind"], "blind_mcq_accuracy", "blind_mcq")
    expected = statistics.fmean(statistics.fmean(v) for v in blind_scenes.values())
    assert math.isclose(rows.loc["mcq_accuracy", "blind"], expected)
    for metric, row in rows.iterrows():
        low, high = row["score_ci_low"], row["score_ci_high"]
        flagged = str(row["flags"]) if isinstance(row["flags"], str) else ""
        assert ("≤ chance" in flagged) == (not low > 0.25 if metric == "mcq_accuracy" else False)
        assert ("≥ always-yes" in flagged) == (
            not high < 1.0 if metric != "mcq_accuracy" else False
        )
