"""Reading answers: yes/no to goal questions, and a choice to MCQs.

`official_*` functions reproduce the official parsers to the letter (`SENSE/utils/metric.py`),
checked against every row of the recorded parser table. The corrected yes/no reading returns None
for answers it cannot read, so they are counted and excluded rather than scored as "no".
"""

from __future__ import annotations

import re
import string

from agentsense.sense.protocol import OptionMark

# Official MCQ option-mark patterns (`SingleChoiceMetric.__init__`).
_MARK_PATTERN: dict[str, re.Pattern[str]] = {
    "upper": re.compile(r"\([A-Z]\)"),
    "lower": re.compile(r"\([a-z]\)"),
    "number": re.compile(r"\([1-9]\)"),
    "all": re.compile(r"\([1-9A-Za-z]\)"),
}

# The official label map merges all three alphabets, whatever the option mark.
_LABEL_INDEX: dict[str, int] = {
    **{letter: i for i, letter in enumerate(string.ascii_uppercase)},
    **{letter: i for i, letter in enumerate(string.ascii_lowercase)},
    **{digit: i for i, digit in enumerate("123456789")},
}

_LEADING_LABEL = re.compile(r"[A-Z]\)|[A-Z]\..+")
_ANY_LABEL = re.compile(r"[A-Z]\)|[A-Z]\.")

# Corrected yes/no: optional markup and one leading "Someone:" label, then a yes or a no word.
_ROBUST_YES_NO = re.compile(
    r"""^[\s"'*_`>#(\[-]*(?:[\w .-]{1,40}:\s*)?[\s"'*_`(\[]*(yes|no)\b""", re.IGNORECASE
)


def official_yes(answer: str) -> int:
    """Official goal reading: yes iff the answer contains the case-sensitive substring `Yes`."""
    return 1 if "Yes" in answer else 0


def robust_yes(answer: str) -> int | None:
    """Corrected goal reading: a leading yes/no word, any case; None when there is none."""
    match = _ROBUST_YES_NO.match(answer)
    if match is None:
        return None
    return 1 if match.group(1).lower() == "yes" else 0


def _match_option_text(prediction: str, options: list[str]) -> int | None:
    if _LEADING_LABEL.match(prediction):
        prediction = _ANY_LABEL.sub("", prediction).strip()
    for index, option in enumerate(options):
        others = options[:index] + options[index + 1 :]
        if option == prediction:
            return index
        if option in prediction and not any(other in prediction for other in others):
            return index
        if prediction in option and not any(prediction in other for other in others):
            return index
    return None


def official_choice(prediction: str, options: list[str] | None, mark: OptionMark) -> int | None:
    """The option index the official parser reads from an MCQ answer (None: format error)."""
    labels = _MARK_PATTERN[mark].findall(prediction)
    if labels:
        return _LABEL_INDEX[labels[0][1]]
    if len(prediction) == 1 or (len(prediction) == 2 and prediction[1] == "."):
        return _LABEL_INDEX.get(prediction.replace(".", ""))
    if options and prediction:
        return _match_option_text(prediction, options)
    return None
