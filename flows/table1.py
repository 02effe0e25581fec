"""The paper's Table 1 (and Table 2's blind column) as one Inspect Flow spec (docs/usage.md,
"Table 1 in one command"):

    flow run flows/table1.py                      # the official data, every scene
    agentsense report logs/table1 --out report    # Table 1, the paper's value beside each cell

Each evaluated model is on a server of its own. A model named `openai-api/<service>/<name>` is
sent to `<SERVICE>_BASE_URL` with the key in `<SERVICE>_API_KEY` (Inspect's OpenAI-compatible
provider; the service upper-cased, `-` as `_`): set those variables (in the environment or a
`.env` Flow reads) rather than writing URLs or keys here, so that no key reaches the spec or a
log. GPT-4o and GPT-3.5-turbo are OpenAI's (OPENAI_API_KEY). A model that also judges (Qwen2.5-72b,
Llama-3-70b) is the same server in both roles. Edit LAB_MODELS for your own three.

tests/test_flow_table1.py runs this file as it is, offline, every model a name on the stub.
"""

from inspect_flow import FlowModel, FlowOptions, FlowSpec, FlowTask

# The 11 models of the paper's Table 1, in its order -> the Inspect model that serves each
# (`agentsense/sense/reference/models.csv` maps these names back to the paper's for the report).
PAPER_MODELS = {
    "GPT-4o": "openai/gpt-4o",
    "GPT-3.5-turbo": "openai/gpt-3.5-turbo",
    "Mistral-7b": "openai-api/mistral-7b/mistralai/Mistral-7B-Instruct-v0.3",
    "Llama-2-7b": "openai-api/llama2-7b/meta-llama/Llama-2-7b-chat-hf",
    "Qwen2.5-7b": "openai-api/qwen25-7b/Qwen/Qwen2.5-7B-Instruct",
    "Llama-3-8b": "openai-api/llama3-8b/meta-llama/Meta-Llama-3-8B-Instruct",
    "Llama-2-13b": "openai-api/llama2-13b/meta-llama/Llama-2-13b-chat-hf",
    "Qwen2.5-14b": "openai-api/qwen25-14b/Qwen/Qwen2.5-14B-Instruct",
    "Llama-2-70b": "openai-api/llama2-70b/meta-llama/Llama-2-70b-chat-hf",
    "Llama-3-70b": "openai-api/llama3-70b/meta-llama/Meta-Llama-3-70B-Instruct",
    "Qwen2.5-72b": "openai-api/qwen25-72b/Qwen/Qwen2.5-72B-Instruct",
}
# A lab's own models beside the paper's: LAB_A_BASE_URL / LAB_A_API_KEY, and so on.
LAB_MODELS = [
    "openai-api/lab-a/our-org/model-a",
    "openai-api/lab-b/our-org/model-b",
    "openai-api/lab-c/our-org/model-c",
]
# The paper's judge panel (Section 4.1), on the `judge` role of every scored task.
JUDGES = [PAPER_MODELS["GPT-4o"], PAPER_MODELS["Qwen2.5-72b"], PAPER_MODELS["Llama-3-70b"]]
# `full`: the conversations, interviews, MCQs and the panel (Table 1); `blind`: the MCQs from
# the scenario alone (Table 2's blind column, the report's leakage baseline). Blind has no judge.
TASKS = {"agentsense/full": {"judge": JUDGES}, "agentsense/blind": {}}
MODELS = [*PAPER_MODELS.values(), *LAB_MODELS]  # the evaluated models, the paper's first


def server_variables(base_url: str, api_key: str) -> dict[str, str]:
    """The variables Inspect reads for each model's server (OPENAI_* for `openai/`,
    `<SERVICE>_BASE_URL` / `_API_KEY` for `openai-api/<service>/...`), every one set to one
    server: how tests/test_flow_table1.py and benchmarks/table1_scale.py point all at the stub."""
    env = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": api_key}
    for model in MODELS:
        provider, service, *_ = model.split("/")
        if provider == "openai-api":
            prefix = service.upper().replace("-", "_")
            env |= {f"{prefix}_BASE_URL": base_url, f"{prefix}_API_KEY": api_key}
    return env


def table1(dataset: str = "official", max_tasks: int = 4) -> FlowSpec:
    """Every model on every task of TASKS, on `dataset` (`flow run ... --arg dataset=demo`).
    `max_tasks`: models' tasks at a time in the one process (docs/throughput.md)."""
    return FlowSpec(
        log_dir="../logs/table1",  # from this file's folder; `--log-dir` overrides it
        execution_type="inproc",  # the current environment; `flow run --venv` builds one
        options=FlowOptions(max_tasks=int(max_tasks)),
        tasks=[
            FlowTask(
                name=task,
                args={"dataset": dataset},
                model=FlowModel(name=model),
                model_roles=dict(roles) or None,
            )
            for model in MODELS
            for task, roles in TASKS.items()
        ],
    )
