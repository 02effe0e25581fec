"""Speaker selection (docs/protocol.md §2.2-2.3): a uniformly random start, then each turn a
uniformly random character other than the previous speaker; seeded per sample and epoch."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from agentsense.engine.conversation import scene_rng
from agentsense.engine.scene_loop import speaker_order
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.protocol import Protocol
from agentsense.sense.simulation import turn_plan

NAMES = {
    2: ["AliceGreene", "BobSmith"],
    3: ["AliceGreene", "BobSmith", "CarolJones"],
    4: ["AliceGreene", "BobSmith", "CarolJones", "DavidLee"],
    5: ["AliceGreene", "BobSmith", "CarolJones", "DavidLee", "EveMoss"],
}


def plan(
    names: list[str], seed: int, sample_id: int | str = "s1", epoch: int = 1, n: int = 14
) -> tuple[str, list[str]]:
    return speaker_order(names, n, scene_rng(seed, sample_id, epoch, "speakers"))


@pytest.mark.parametrize("n_characters", [2, 3, 4, 5])
def test_never_the_same_speaker_twice_in_a_row(n_characters: int) -> None:
    names = NAMES[n_characters]
    for seed in range(100):
        start, order = plan(names, seed)
        assert len(order) == 14
        sequence = [start, *order]
        assert set(sequence) <= set(names)
        for previous, current in itertools.pairwise(sequence):
            assert previous != current, (seed, sequence)


def test_two_characters_strictly_alternate() -> None:
    for seed in range(50):
        start, order = plan(NAMES[2], seed)
        other = "BobSmith" if start == "AliceGreene" else "AliceGreene"
        # greeting by start, then other, start, other, ...: 7 model turns each
        assert order == [other, start] * 7
        assert Counter(order) == {start: 7, other: 7}


def test_zero_turns() -> None:
    start, order = plan(NAMES[3], 0, n=0)
    assert start in NAMES[3]
    assert order == []


@pytest.mark.parametrize("n_characters", [2, 4])
def test_start_speaker_is_roughly_uniform_over_seeds(n_characters: int) -> None:
    names = NAMES[n_characters]
    draws = 400
    starts = Counter(plan(names, seed)[0] for seed in range(draws))
    assert set(starts) == set(names)
    expected = draws / n_characters
    for name in names:
        # loose: within 35% of the expected count (about 4 standard deviations)
        assert abs(starts[name] - expected) < 0.35 * expected, starts


def test_start_speaker_varies_over_sample_ids_and_epochs() -> None:
    names = NAMES[4]
    by_sample = Counter(plan(names, 0, sample_id=i)[0] for i in range(200))
    by_epoch = Counter(plan(names, 0, epoch=e)[0] for e in range(1, 201))
    assert set(by_sample) == set(names)
    assert set(by_epoch) == set(names)


def test_next_speaker_is_roughly_uniform_among_the_others() -> None:
    names = NAMES[4]
    transitions: dict[str, Counter[str]] = defaultdict(Counter)
    for seed in range(300):
        start, order = plan(names, seed)
        sequence = [start, *order]
        for previous, current in itertools.pairwise(sequence):
            transitions[previous][current] += 1
    assert set(transitions) == set(names)
    for previous, following in transitions.items():
        total = sum(following.values())
        assert previous not in following
        assert set(following) == set(names) - {previous}
        for count in following.values():
            # each of the 3 others about 1/3 of the time
            assert abs(count / total - 1 / 3) < 0.07, (previous, following)


def test_same_seed_sample_and_epoch_give_the_same_order() -> None:
    names = NAMES[3]
    assert plan(names, 7, "scene-9", 2) == plan(names, 7, "scene-9", 2)
    first = scene_rng(7, "scene-9", 2, "speakers")
    second = scene_rng(7, "scene-9", 2, "speakers")
    assert [first.random() for _ in range(5)] == [second.random() for _ in range(5)]


def test_different_seeds_samples_epochs_and_purposes_differ() -> None:
    names = NAMES[3]
    base = plan(names, 0, "s1", 1)
    assert plan(names, 1, "s1", 1) != base
    assert plan(names, 0, "s2", 1) != base
    assert plan(names, 0, "s1", 2) != base
    orders = {tuple([start, *order]) for start, order in (plan(names, seed) for seed in range(30))}
    assert len(orders) == 30
    a = scene_rng(0, "s1", 1, "speakers").random()
    b = scene_rng(0, "s1", 1, "option-marks").random()
    assert a != b


def test_every_model_gets_the_same_order_for_the_same_seed(tmp_path: Path) -> None:
    """Two models that answer differently meet the same speakers, turn for turn, per seed."""
    from inspect_ai import eval

    def speakers(model: str, seed: int) -> list[list[str]]:
        (log,) = eval(
            "agentsense/goal",
            task_args={"dataset": "demo", "max_messages": 8, "seed": seed},
            sample_id=[501, 701],  # 4 and 5 characters: the order is really drawn
            model=model,
            log_dir=str(tmp_path / f"{model.replace('/', '-')}-{seed}"),
            display="none",
        )
        assert log.status == "success" and log.samples
        return [[t["speaker"] for t in s.store["Conversation:turns"]] for s in log.samples]

    agent = speakers("standin/persona/agent", seed=3)
    assert speakers("standin/parity/other-model", seed=3) == agent
    assert speakers("standin/persona/agent", seed=4) != agent


def scenario(extra: dict[str, object] | None = None) -> Scenario:
    characters = [
        {
            "name": name,
            "profile": "p",
            "goals": [
                {
                    "goal": f"To win {name}.",
                    "eval_questions": {"self": [{"obj": name, "question": "q"}], "others": []},
                }
            ],
        }
        for name in NAMES[3]
    ]
    data: dict[str, object] = {
        "sample_idx": 5,
        "template_idx": 1,
        "background": "b",
        "description": "d",
        "characters": characters,
    }
    data.update(extra or {})
    return Scenario.model_validate(data)


def test_turn_plan_draws_a_seeded_order() -> None:
    scene = scenario()
    protocol = Protocol(max_messages=15)
    start, order = turn_plan(scene, protocol, seed=0, sample_id=5, epoch=1)
    assert (start, order) == turn_plan(scene, protocol, seed=0, sample_id=5, epoch=1)
    assert len(order) == 14
    assert (start, order) == plan(NAMES[3], 0, 5, 1)
    short = turn_plan(scene, Protocol(max_messages=5), seed=0, sample_id=5, epoch=1)
    assert len(short[1]) == 4


def test_turn_plan_replays_a_recorded_order() -> None:
    order = ["BobSmith", "CarolJones", "BobSmith"]
    scene = scenario({"start_speaker": "AliceGreene", "speaker_order": order})
    assert turn_plan(scene, Protocol(max_messages=4), seed=123, sample_id=5, epoch=3) == (
        "AliceGreene",
        order,
    )
