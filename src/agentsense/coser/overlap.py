"""BLEU and ROUGE-L of the simulated conversation against the book's, on CoSER's 0-1 scale.

CoSER used NLTK's `sentence_bleu` and the `rouge` package, unpinned (coser-gca.md §3.7); its
stored values could not be reproduced with any version. Here:

- BLEU: sacrebleu `BLEU(lowercase=True, tokenize="13a", smooth_method="none",
  effective_order=True)` sentence score / 100: BLEU up to 4-grams with brevity penalty and no
  smoothing (NLTK's default method0; `effective_order` only matters for texts shorter than 4
  tokens); lower-cased as CoSER; the mteval-13a tokeniser instead of NLTK's Punkt + Treebank
  (no data download).
- ROUGE-L: rouge-score `RougeScorer(["rougeL"])` F-measure: the LCS of the two whole texts,
  its default tokeniser (lower-cases, splits on non-alphanumerics), no stemming; CoSER's
  `rouge` package was case-sensitive and summary-level on `.`-split sentences.

An empty simulation scores 0 on both (CoSER's `rouge` raises).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rouge_score.rouge_scorer import RougeScorer
    from sacrebleu.metrics.bleu import BLEU


# Imported on first use (the `gca` extra): rouge-score pulls in NLTK (and with it SciPy, pandas
# and scikit-learn when they are installed, ~3 s), which every `inspect eval agentsense/...`
# would otherwise load with the task registry.
@cache
def _bleu() -> BLEU:
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(lowercase=True, tokenize="13a", smooth_method="none", effective_order=True)


@cache
def _rouge() -> RougeScorer:
    from rouge_score.rouge_scorer import RougeScorer

    return RougeScorer(["rougeL"], use_stemmer=False)


def bleu(simulation: str, reference: str) -> float:
    if not simulation.strip():
        return 0.0
    return float(_bleu().sentence_score(simulation, [reference]).score) / 100


def rouge_l(simulation: str, reference: str) -> float:
    if not simulation.strip():
        return 0.0
    return float(_rouge().score(reference, simulation)["rougeL"].fmeasure)
