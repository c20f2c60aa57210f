"""The refusal screen's calibrated thresholds, in one place: `ExtractOptions`' defaults and the answer check read
them, and `benchmarks/calibrate_refusal.py` chooses them together."""

MIN_RELEVANCE = -5.56
"""The relevance score below which `extract` refuses a text without decoding: chosen together with the answer
check below by `benchmarks/calibrate_refusal.py --split dev --answers ...` with the embedded model (best refusal
F1 refusing at most 5% of answerable documents; any value between -5.63 and -5.49 scores the same there)."""

MAX_UNFOUNDED = 0.75
"""The share of an answer's identifying values found nowhere in the text at which a doubtful answer is refused:
three in four (chosen with MIN_RELEVANCE and DOUBTFUL on the dev split, with the short texts' scores as a
constraint: benchmarks/results/refusal_rule_dev_short.md)."""

DOUBTFUL = 0.0
"""Relevance (nats) below which an answer is checked against the text: one above it reads as the target so
plainly that its values' grounding decides nothing (chosen with MIN_RELEVANCE and MAX_UNFOUNDED by
`benchmarks/calibrate_refusal.py --split dev --answers ...`)."""
