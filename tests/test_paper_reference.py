"""The paper's published numbers (agentsense/sense/reference/paper.csv) against the paper's own
text, and the serving-name mapping (agentsense/sense/reference/models.csv and a user's file).

The tables' text is tests/fixtures/paper_tables.txt, quoted verbatim from the paper, so the
check needs no copy of the paper at CI time. Each cell is parsed out of that excerpt by its
column's position under the printed header and compared with the data file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentsense.engine.errors import ReportError
from agentsense.sense.reference.model_names import ENV, paper_model
from agentsense.sense.reference.paper import PaperCell, cell, published_cells, read_cells

EXCERPT = Path(__file__).parent / "fixtures" / "paper_tables.txt"
GAP = " (gap to Table 1)"

# Each table's columns in printed order, with their group headers (the data file's names).
COLUMNS: dict[str, list[str]] = {
    "1": [
        "Goal / Self",
        "Goal / Other",
        "Goal / Judge / GPT-4o",
        "Goal / Judge / Qwen2.5",
        "Goal / Judge / Llama-3",
        "Goal / Judge / Average",
        "Goal / Judge / Majority",
        "Goal / PSI ↓",
        "Info / Acc.",
        "Info / PSI ↓",
    ],
    "2": ["Script Acc.", "Blind Acc."],
    "6": ["Acc."],
    "7": [
        "Self / mean",
        "Self / std",
        "Other / mean",
        "Other / std",
        "Judge_mean / GPT",
        "Judge_mean / Qwen",
        "Judge_mean / Llama",
        "Judge_mean / Average",
        "Judge_mean / Majority",
        "Judge_std / Majority",
        "Info / mean",
        "Info / std",
    ],
}
# The models the paper lists in each table (counted from the excerpt in the test below).
MODELS_PER_TABLE = {"1": 11, "2": 11, "6": 6, "7": 11}
# Table 7 prints four of its cells as 'mean+gap%': one value each, plus its gap to Table 1.
GAPS_PER_ROW = 4
CELLS_PER_TABLE = {"1": 110, "2": 22, "6": 6, "7": 11 * (12 + GAPS_PER_ROW)}

# (table, model, column, the text printed in that cell): read from the excerpt, not typed here.
SAMPLE = [
    ("1", "Llama-2-7b", "Goal / Self", "83.38"),
    ("1", "Qwen2.5-14b", "Goal / Judge / GPT-4o", r"\ul88.43"),
    ("1", "GPT-4o", "Goal / Judge / Majority", "88.36"),
    ("1", "Llama-3-8B", "Goal / PSI ↓", "12.85"),
    ("1", "Mistral-7b", "Info / Acc.", "66.59"),
    ("1", "Qwen2.5-14b", "Info / PSI ↓", r"\ul14.81"),
    ("2", "GPT-3.5-turbo", "Script Acc.", "0.07"),
    ("2", "Llama-2-70b", "Blind Acc.", "0.40"),
    ("2", "Qwen2.5-72b", "Blind Acc.", "0.60"),
    ("6", "GPT-4-turbo", "Acc.", "0.80"),
    ("6", "Llama-3-8b", "Acc.", "0.72"),
    ("6", "GPT-4o", "Acc.", "0.82"),
    ("7", "Llama-2-13b", "Judge_mean / Majority", "35.20+13.87%"),
    ("7", "GPT-3.5-turbo", "Self / mean", "96.04+6.53%"),
    ("7", "Qwen2.5-7b", "Info / std", "3.26"),
    ("7", "Llama-3-70b", "Judge_std / Majority", "0.24"),
    ("7", "Mistral-7b", "Judge_mean / Llama", "76.81"),
    ("7", "GPT-4o", "Other / std", "0.30"),
]


# --- the excerpt -------------------------------------------------------------------------------


def _cells(line: str) -> list[str]:
    """A table line's cells; the caption the text runs on after the last row is dropped."""
    line = re.sub(r"\s*Table \d+:.*$", "", line)
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _blocks() -> dict[str, list[str]]:
    """Each table's lines in the excerpt, keyed by the number its caption names."""
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in EXCERPT.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue  # the fixture's own comments and the gaps between tables
        current.append(line)
        if caption := re.search(r"Table (\d+):", line):
            blocks[caption[1]] = current
            current = []
    return blocks


NUMBER = re.compile(r"(\\ul)?-?\d+\.\d+([+-]\d+\.\d+%)?")


def excerpt_rows(table: str) -> dict[str, list[str]]:
    """Model -> its printed cells, for the lines of `table` whose cells are all numbers."""
    rows = {}
    for line in _blocks()[table]:
        name, *values = _cells(line)
        if values and all(NUMBER.fullmatch(v) for v in values):
            rows[name] = values
    return rows


def excerpt_header(table: str) -> list[str]:
    """The printed leaf headers, the line after 'Models' for Table 7 (its groups are above)."""
    lines = [_cells(line) for line in _blocks()[table]]
    at = next(i for i, cells in enumerate(lines) if cells[0] in ("Models", "Model"))
    leaf = lines[at + 1] if table == "7" else lines[at][1:]
    return [c.replace(r"$\downarrow$", "↓") for c in leaf]


def printed_values(text: str) -> list[float]:
    """'35.20+13.87%' -> [35.2, 13.87]; '\\ul88.43' -> [88.43]."""
    found = NUMBER.fullmatch(text)
    assert found, text
    value, gap = text.removeprefix(r"\ul").removesuffix("%"), found[2]
    if gap:
        value = value.removesuffix(gap.removesuffix("%"))
    return [float(value)] + ([float(gap.removesuffix("%"))] if gap else [])


def excerpt_cells(table: str) -> dict[tuple[str, str], float]:
    """(model, column) -> value of every cell the excerpt prints for `table`."""
    found = {}
    for model, values in excerpt_rows(table).items():
        assert len(values) == len(COLUMNS[table]), (table, model, values)
        for column, text in zip(COLUMNS[table], values, strict=True):
            numbers = printed_values(text)
            found[model, column] = numbers[0]
            if len(numbers) == 2:
                found[model, column + GAP] = numbers[1]
    return found


def data_cells(table: str) -> dict[tuple[str, str], PaperCell]:
    return {(c.row, c.column): c for c in published_cells() if c.table == table}


# --- the published numbers ---------------------------------------------------------------------


def test_the_excerpt_prints_the_columns_the_data_names() -> None:
    for table, columns in COLUMNS.items():
        assert excerpt_header(table) == [c.rpartition(" / ")[2] for c in columns], table


@pytest.mark.parametrize(("table", "model", "column", "printed"), SAMPLE)
def test_a_sample_cell_matches_the_paper(table: str, model: str, column: str, printed: str) -> None:
    text = excerpt_rows(table)[model][COLUMNS[table].index(column)]
    assert text == printed  # the parser reads the cell meant
    found = cell(table, model, column)
    assert found is not None
    assert found.value == printed_values(text)[0]
    if "%" in printed:
        gap = cell(table, model, column + GAP)
        assert gap is not None and gap.value == printed_values(text)[1]


def test_the_sample_spans_every_table() -> None:
    assert len(SAMPLE) >= 15
    assert {table for table, *_ in SAMPLE} == set(COLUMNS)


@pytest.mark.parametrize("table", sorted(COLUMNS))
def test_every_model_of_a_table_has_every_value(table: str) -> None:
    models = excerpt_rows(table)
    assert len(models) == MODELS_PER_TABLE[table]
    data = data_cells(table)
    assert {model for model, _ in data} == set(models)
    assert len(data) == CELLS_PER_TABLE[table]
    assert {key: c.value for key, c in data.items()} == excerpt_cells(table)


def test_the_data_file_holds_only_the_four_tables() -> None:
    assert len(published_cells()) == sum(CELLS_PER_TABLE.values())


def _unit(table: str, column: str) -> str:
    if table in ("2", "6"):
        return "fraction"
    if column.endswith(GAP):
        return "percent change"
    return "percentage points" if ("PSI" in column or "std" in column) else "percent"


def test_units() -> None:
    for found in published_cells():
        assert found.unit == _unit(found.table, found.column), found
        if found.unit == "fraction":
            assert 0 <= found.value <= 1, found
        if found.unit == "percent":
            assert 0 <= found.value <= 100, found


def test_lookup_ignores_case_spacing_and_the_arrow() -> None:
    found = cell(1, "llama-3-8b", "goal /  psi")
    assert found is not None and (found.row, found.value) == ("Llama-3-8B", 12.85)
    assert cell("6", "Llama-3-8B", "Acc.") == cell("6", "Llama-3-8b", "Acc.")
    assert cell("1", "GPT-4-turbo", "Goal / Self") is None  # Table 6 only
    assert cell("3", "GPT-4o", "Acc.") is None


def test_a_bad_line_names_its_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "paper.csv"
    bad.write_text(
        "table,row,column,value,unit\n1,GPT-4o,Goal / Self,88.46,percent\n"
        "1,GPT-4o,Goal / Other,8x,percent\n",
        encoding="utf-8",
    )
    with pytest.raises(ReportError, match=r"paper\.csv, line 3: field 'value'.*'8x'"):
        read_cells(bad)
    bad.write_text("table,row,column,value,unit\n5,GPT-4o,Acc.,1,percent\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"line 2: field 'table'"):
        read_cells(bad)
    bad.write_text("table,row,column,value\n1,GPT-4o,Acc.,1\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"line 1: the header"):
        read_cells(bad)


# --- model names -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_user_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)


@pytest.mark.parametrize(
    ("serving", "paper"),
    [
        ("meta-llama/Meta-Llama-3-8B-Instruct", "Llama-3-8B"),
        ("Qwen/Qwen2.5-72B-Instruct", "Qwen2.5-72b"),
        ("gpt-4o-2024-05-13", "GPT-4o"),
        ("vllm/meta-llama/Meta-Llama-3-8B-Instruct", "Llama-3-8B"),
        ("openai/gpt-4o", "GPT-4o"),
        ("hf/mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7b"),
        ("together/meta-llama/Llama-2-70b-chat-hf", "Llama-2-70b"),
        ("openai-api/deepseek/GPT-3.5-TURBO", "GPT-3.5-turbo"),
        ("vllm/qwen2.5-14b", "Qwen2.5-14b"),  # the paper's own name
    ],
)
def test_serving_names_resolve(serving: str, paper: str) -> None:
    assert paper_model(serving) == paper
    assert cell("1", paper, "Goal / Self") is not None


@pytest.mark.parametrize("name", ["gpt-5", "vllm/meta-llama/Llama-3.1-8B-Instruct", "meta-llama"])
def test_an_unknown_name_is_none(name: str) -> None:
    assert paper_model(name) is None


def _names_file(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_user_file_adds_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = _names_file(
        tmp_path / "mine.csv", "# my deployments", "serving_name,paper_model", "my-qwen,qwen2.5-72B"
    )
    assert paper_model("vllm/my-qwen", extra=extra) == "Qwen2.5-72b"
    assert paper_model("vllm/my-qwen") is None
    monkeypatch.setenv(ENV, str(extra))
    assert paper_model("vllm/MY-QWEN") == "Qwen2.5-72b"
    assert paper_model("openai/gpt-4o") == "GPT-4o"  # the packaged names stay


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (("name,model", "x,GPT-4o"), r"line 1: found 'name,model' where the header belongs"),
        (("serving_name,paper_model", "x,GPT-4o,extra"), r"line 2: .*Fix: write it as"),
        (("serving_name,paper_model", "", "x,"), r"line 3: .*Fix: write it as"),
        (("serving_name,paper_model", "x,GPT-5"), r"line 2: 'GPT-5' is not a model.*Fix: .*GPT-4o"),
        (
            ("serving_name,paper_model", "x,GPT-4o", "X,Mistral-7b"),
            r"line 3: 'X' is mapped to GPT-4o on line 2 and to Mistral-7b here\. Fix:",
        ),
    ],
)
def test_a_malformed_user_file_is_refused(
    tmp_path: Path, lines: tuple[str, ...], message: str
) -> None:
    bad = _names_file(tmp_path / "names.csv", *lines)
    with pytest.raises(ReportError, match=message) as refused:
        paper_model("gpt-4o", extra=bad)
    assert str(bad) in str(refused.value)


def test_a_missing_file_named_by_the_variable_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "absent.csv"))
    with pytest.raises(ReportError, match=rf"absent\.csv: no such .*from {ENV}.*Fix:"):
        paper_model("gpt-4o")
