#!/usr/bin/env bash
# Mutation testing of the scoring core (docs/testing.md): mutmut mutates the functions below, one
# mutant at a time, and runs the fast in-process tests that call the mutated function
# (pyproject.toml, [tool.mutmut]). Then prints the killed share per module.
# Not part of .ci/run: it takes 9-11 minutes on two busy cores.
#   scripts/mutation.sh                a fresh run (JOBS=2 mutants at once), then the table
#   scripts/mutation.sh --update-docs  a fresh run, then the table written into docs/testing.md
#                                      with the commit and the sha256 of the files measured
#   scripts/mutation.sh --resume       continue a run that was stopped, then print the table
# Exits 1 when a survivor is not listed as equivalent in docs/testing.md, or a listed name is
# not confirmed by the run (scripts/mutation_table.py).
set -euo pipefail
cd "$(dirname "$0")/.."

# The scoring core, by mutmut's function names (<module>.x_<function>, <module>.xǁ<class>ǁ<method>).
FUNCTIONS=(
    'agentsense.sense.metrics.*'
    'agentsense.sense.scorers.goal.x_majority__mutmut_*'
    'agentsense.sense.scorers.goal.x_judge_mean__mutmut_*'
    'agentsense.sense.scorers.goal.x__values__mutmut_*'
    'agentsense.sense.scorers.goal.x_goal_scores__mutmut_*'
    'agentsense.sense.scorers.goal.x_combine__mutmut_*'
    'agentsense.sense.scorers.goal.x_goal_reader__mutmut_*'
    'agentsense.sense.scorers.goal.x_score_goals__mutmut_*'
    'agentsense.engine.roles.x_judge_panel__mutmut_*'
    'agentsense.sense.scorers.answer_reading.*'
    'agentsense.sense.scorers.mcq.*'
    'agentsense.engine.scene_loop.x_speaker_order__mutmut_*'
    'agentsense.engine.scene_loop.xǁFixedOrderǁ*'
    'agentsense.engine.conversation.x_visible_text__mutmut_*'
    'agentsense.engine.conversation.x_seat_message__mutmut_*'
    'agentsense.engine.conversation.x_history__mutmut_*'
    'agentsense.engine.conversation.x_request__mutmut_*'
    'agentsense.engine.conversation.x_prompt__mutmut_*'
    'agentsense.engine.conversation.xǁSeatViewsǁ*'
    'agentsense.sense.interview.xǁInterviewerǁrequest__mutmut_*'
    'agentsense.engine.request_format.x_provider__mutmut_*'
    'agentsense.engine.request_format.x_role_models__mutmut_*'
    'agentsense.engine.request_format.x_merging_models__mutmut_*'
    'agentsense.engine.request_format.x_task_warning__mutmut_*'
    'agentsense.analysis.log_merge.x_signature__mutmut_*'
    'agentsense.analysis.log_merge.x__best_version__mutmut_*'
    'agentsense.analysis.log_merge.x_latest_versions__mutmut_*'
    'agentsense.analysis.log_merge.x__owners__mutmut_*'
    'agentsense.analysis.log_merge.x__merged_run__mutmut_*'
    'agentsense.analysis.log_merge.x__join_unscored__mutmut_*'
    'agentsense.analysis.log_merge.x_merge_logs__mutmut_*'
    'agentsense.report.frames.x__with_templates__mutmut_*'
    'agentsense.report.frames.x__average__mutmut_*'
    'agentsense.report.frames.x_scene_units__mutmut_*'
    'agentsense.report.frames.x_character_units__mutmut_*'
)

mode="${1:-}"
case "$mode" in
    "" | --update-docs)
        rm -rf mutants
        # The commit and the files' content measured, before mutmut copies them (mutants/).
        python scripts/mutation_table.py --snapshot "${FUNCTIONS[@]}"
        ;;
    --resume) ;;
    *) echo "usage: scripts/mutation.sh [--update-docs | --resume]" >&2; exit 2 ;;
esac

unset PYTHONPATH  # mutmut puts mutants/src first on the path itself
nice -n 10 mutmut run --max-children "${JOBS:-2}" "${FUNCTIONS[@]}" || true
python scripts/mutation_table.py --finish
if [[ "$mode" == --update-docs ]]; then
    python scripts/mutation_table.py --update-docs
else
    python scripts/mutation_table.py
fi
