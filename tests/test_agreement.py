"""Judge-panel agreement statistics on a hand-computed panel (analysis.agreement).

Five judge questions (units), one per goal, three judges:

    unit  judge_1  judge_2    judge_3        majority  category
    u1    Yes      Yes        Yes            1         Cooperation
    u2    Yes      Yes        No             1         Cooperation
    u3    No       No         No             0         Competition
    u4    Yes      No         No             0         Competition
    u5    Yes      Perhaps?   I cannot tell  1 (one readable vote)  Competition

Fleiss' κ (u1-u4, the complete units): P_i = 1, 1/3, 1, 1/3 -> P̄ = 2/3; p(yes) = 6/12 -> P_e = 1/2;
κ = (2/3 - 1/2) / (1/2) = 1/3.
Krippendorff's α (nominal; u5 has one readable value and is not pairable): coincidences
o_11 = 4, o_00 = 4, o_10 = o_01 = 2, n = 12; D_o = 4/12, D_e = 2·6·6 / (12·11) = 6/11;
α = 1 - (1/3) / (6/11) = 7/18.
Cohen's κ: judge_1/judge_2 p_o = 3/4, p_e = 3/4·1/2 + 1/4·1/2 = 1/2 -> 1/2;
judge_1/judge_3 p_o = 1/2, p_e = 3/4·1/4 + 1/4·3/4 = 3/8 -> 1/5; judge_2/judge_3 p_o = 3/4,
p_e = 1/2 -> 1/2.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from agentsense.analysis.agreement import (
    cohen,
    cohen_pairs,
    fleiss,
    group_agreement,
    judge_matrix,
    kripp_alpha,
    panel_agreement,
    panel_vote,
    panel_votes,
    unreadable_shares,
)
from agentsense.analysis.sample_rows import ANSWER_COLUMNS
from agentsense.sense.scorers.answer_reading import robust_yes

JUDGES = {
    "judge_1": ["Yes", "Yes", "No", "Yes", "Yes"],
    "judge_2": ["Yes", "Yes.", "No", "No", "Perhaps?"],
    "judge_3": ["Yes", "No", "No", "No", "I cannot tell"],
}
CATEGORIES = ["Cooperation", "Cooperation", "Competition", "Competition", "Competition"]
SELF = ["Yes", "Yes", "Yes", "No"]  # goals 1-4; goal 5 has no self answer
OTHER = ["No", "Maybe later"]  # goals 1-2


def row(goal: int, kind: str, asker: str, answer: str) -> dict[str, Any]:
    reading = robust_yes(answer)
    return {
        "log": "run.eval",
        "id": "s1",
        "epoch": 1,
        "template_id": "t1",
        "character": "Ada",
        "goal_index": goal,
        "category": CATEGORIES[goal],
        "kind": kind,
        "asker": asker,
        "model": asker if kind == "judge" else "agent",
        "item": 0,
        "answer": answer,
        "reading": math.nan if reading is None else float(reading),
        "unreadable": reading is None,
    }


@pytest.fixture
def answers() -> pd.DataFrame:
    rows = [
        row(goal, "judge", judge, answer)
        for judge, votes in JUDGES.items()
        for goal, answer in enumerate(votes)
    ]
    rows += [row(goal, "self", "Ada", answer) for goal, answer in enumerate(SELF)]
    rows += [row(goal, "other", "Bo", answer) for goal, answer in enumerate(OTHER)]
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def test_fleiss_kappa_hand_computed(answers: pd.DataFrame) -> None:
    assert fleiss(judge_matrix(answers)) == pytest.approx(1 / 3)


def test_krippendorff_alpha_hand_computed(answers: pd.DataFrame) -> None:
    assert kripp_alpha(judge_matrix(answers)) == pytest.approx(7 / 18)


def test_cohen_kappa_of_each_pair_hand_computed(answers: pd.DataFrame) -> None:
    pairs = cohen_pairs(judge_matrix(answers)).set_index(["judge_a", "judge_b"])
    assert pairs.loc[("judge_1", "judge_2"), "cohen_kappa"] == pytest.approx(1 / 2)
    assert pairs.loc[("judge_1", "judge_3"), "cohen_kappa"] == pytest.approx(1 / 5)
    assert pairs.loc[("judge_2", "judge_3"), "cohen_kappa"] == pytest.approx(1 / 2)
    assert set(pairs["units"]) == {4}  # u5 lacks a readable vote of judge_2 and judge_3


def test_agreement_with_the_majority_and_over_confidence(answers: pd.DataFrame) -> None:
    stats = panel_agreement(answers).iloc[0]
    assert stats["judges"] == 3 and stats["units"] == 5
    # Majorities 1, 1, 0, 0, 1. judge_1 [1,1,0,1,1] -> 4/5; judge_2 [1,1,0,0] -> 1; judge_3 3/4.
    assert stats["agree_majority_judge_1"] == pytest.approx(4 / 5)
    assert stats["agree_majority_judge_2"] == pytest.approx(1.0)
    assert stats["agree_majority_judge_3"] == pytest.approx(3 / 4)
    # Self [1,1,1,0] against [1,1,0,0]: 3/4 agree; yes-rate 3/4 vs 1/2 -> over-confidence 1/4.
    assert stats["self_agreement"] == pytest.approx(3 / 4)
    assert stats["self_overconfidence"] == pytest.approx(1 / 4)
    # Other: "No" on an achieved goal; "Maybe later" is unreadable and left out.
    assert stats["other_agreement"] == pytest.approx(0.0)
    # Answering yes to everything agrees with 3 of the 5 goal majorities.
    assert stats["always_yes_agreement"] == pytest.approx(3 / 5)
    assert stats["always_no_agreement"] == pytest.approx(2 / 5)
    assert stats["fleiss_kappa"] == pytest.approx(1 / 3)
    assert stats["mean_cohen_kappa"] == pytest.approx((1 / 2 + 1 / 5 + 1 / 2) / 3)


def test_per_category_fleiss_kappa(answers: pd.DataFrame) -> None:
    # Cooperation = u1, u2: P̄ = (1 + 1/3) / 2 = 2/3; p(yes) = 5/6 -> P_e = 25/36 + 1/36 = 13/18;
    # κ = (2/3 - 13/18) / (5/18) = -1/5.
    by = panel_agreement(answers, by_category=True).set_index("category")
    assert by.loc["Cooperation", "fleiss_kappa"] == pytest.approx(-1 / 5)
    assert by.loc["Cooperation", "units"] == 2 and by.loc["Competition", "units"] == 3


def test_unreadable_shares_per_judge_and_asker(answers: pd.DataFrame) -> None:
    shares = unreadable_shares(answers).set_index("who")["unreadable"]
    assert shares["judge_1"] == 0.0
    assert shares["judge_2"] == pytest.approx(1 / 5)
    assert shares["judge_3"] == pytest.approx(1 / 5)
    assert shares["self"] == 0.0
    assert shares["other"] == pytest.approx(1 / 2)


def test_single_judge_has_no_panel_statistics(answers: pd.DataFrame) -> None:
    alone = answers[(answers["kind"] != "judge") | (answers["asker"] == "judge_1")]
    stats = panel_agreement(alone).iloc[0]
    assert math.isnan(stats["fleiss_kappa"]) and math.isnan(stats["krippendorff_alpha"])
    assert stats["agree_majority_judge_1"] == 1.0  # trivially: it is the majority
    assert not math.isnan(stats["self_agreement"])


def test_unanimous_panel_alpha_is_not_estimable() -> None:
    matrix = pd.DataFrame({"judge_1": [1.0, 1.0], "judge_2": [1.0, 1.0]})
    assert math.isnan(kripp_alpha(matrix))
    assert math.isnan(fleiss(matrix))


FIXTURE = Path(__file__).parent / "fixtures" / "cohen-kappa" / "sklearn_values.json"


def test_cohen_kappa_is_scikit_learns_to_the_last_digit() -> None:
    """Every value scikit-learn gave before issue 52 removed it, on the judge panels of stand-in
    logs and the hand panels (the fixture says how it was made), exactly: NaN where undefined."""
    cases = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 20 and any(case["sklearn"] is None for case in cases)

    def series(values: list[int | None]) -> pd.Series:
        return pd.Series([math.nan if v is None else float(v) for v in values])

    for case in cases:
        got = cohen(series(case["first"]), series(case["second"]))
        want = math.nan if case["sklearn"] is None else case["sklearn"]
        assert got == want or (math.isnan(got) and math.isnan(want)), (case["source"], got, want)


def test_panel_votes_are_panel_vote_of_each_question() -> None:
    """The vectorised panel majority (rows of a matrix, groups of votes) is `panel_vote`'s:
    ties and questions with no readable vote are NaN."""
    rng = np.random.default_rng(2)
    votes = rng.integers(0, 2, (300, 4)).astype(float)
    votes[rng.random(votes.shape) < 0.3] = math.nan
    matrix = pd.DataFrame(votes)
    expected = [panel_vote(list(row)) for row in votes]
    assert panel_votes(matrix).tolist() == pytest.approx(expected, nan_ok=True)
    long = matrix.stack(future_stack=True).rename("vote").reset_index()
    grouped = panel_votes(long.groupby("level_0")["vote"])
    assert grouped.tolist() == pytest.approx(expected, nan_ok=True)
    assert {0.0, 1.0} <= set(grouped.dropna()) and grouped.isna().any()


def random_answers(seed: int) -> pd.DataFrame:
    """Three runs of random goals: 2-4 judges (ties, unreadable votes), self and other answers
    on some goals, categories (one missing), a run without self answers, one without judges."""
    rng = np.random.default_rng(seed)
    readings = [1.0, 0.0, math.nan]
    rows = []
    for log in ("a.eval", "b.eval", "c.eval"):
        judges = 0 if log == "c.eval" else int(rng.integers(2, 5))
        for goal in range(int(rng.integers(5, 12))):
            base = {"log": log, "id": f"s{goal % 3}", "epoch": 1, "template_id": "t1"}
            base |= {"character": "Ada", "goal_index": goal, "item": 0, "answer": "-"}
            base["category"] = rng.choice(["Cooperation", "Competition", None])
            asked = [("judge", f"judge_{k + 1}") for k in range(judges)]
            asked += [("self", "Ada")] * (log != "b.eval" and rng.random() < 0.7)
            asked += [("other", "Bo")] * (rng.random() < 0.6)
            for kind, asker in asked:
                reading = readings[int(rng.choice(3, p=[0.45, 0.4, 0.15]))]
                rows.append(
                    base
                    | {"kind": kind, "asker": asker, "model": asker, "reading": reading}
                    | {"unreadable": math.isnan(reading)}
                )
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("by_category", [False, True])
def test_panel_agreement_is_each_group_taken_alone(seed: int, by_category: bool) -> None:
    """The self/other and always-yes rows taken for all groups at once are those of each group
    read on its own (`group_agreement` of the group's answers alone)."""
    answers = random_answers(seed)
    keys = ["log", "category"] if by_category else ["log"]
    table = panel_agreement(answers, by_category)
    frame = answers.assign(category=answers["category"].fillna("(none)"))
    alone = pd.DataFrame(
        [
            {**dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)), **stats}
            for key, part in frame.groupby(keys, sort=True)
            if (stats := group_agreement(part))
        ]
    )
    assert len(table) >= 3
    assert table["self_agreement"].notna().any() and table["self_agreement"].isna().any()
    pd.testing.assert_frame_equal(table, alone, check_exact=True)
