"""The refusal screen's calibrated thresholds, in one place: `ExtractOptions`' defaults and the answer check read
them, and `benchmarks/calibrate_refusal.py` chooses them together."""

MIN_RELEVANCE = -5.56
"""The relevance score below which `extract` refuses a text without decoding: chosen together with the answer
check below by `benchmarks/calibrate_refusal.py --split dev --answers ...` with the embedded model (best refusal
F1 refusing at most 5% of answerable documents; any value between -5.63 and -5.49 scores the same there)."""

MAX_UNFOUNDED = 1.0
"""The share of an answer's identifying values found nowhere in the text at which a doubtful answer is refused:
all of them (chosen with MIN_RELEVANCE, DOUBTFUL and VALUELESS on the dev split, the short texts and the real
documents as constraints: benchmarks/results/refusal_rule_dev_values.md; three in four before texts writing no
value asked for were refused, benchmarks/results/refusal_rule_dev_short.md)."""

DOUBTFUL = 0.0
"""Relevance (nats) below which an answer is checked against the text: one above it reads as the target so
plainly that its values' grounding decides nothing (chosen with MIN_RELEVANCE and MAX_UNFOUNDED by
`benchmarks/calibrate_refusal.py --split dev --answers ...`)."""

VALUELESS = -1.0
"""Relevance (nats) below which a text that writes no value of any kind its target asks for is refused before
decoding (`ExtractOptions.require_values`; `refusing.unwritten`): chosen with the three above by
`benchmarks/calibrate_refusal.py --split dev --sets generated,short,real --answers ...` (refusal_rule_dev_values.md),
the highest of the grid (-2, -1, 0) refusing no answerable real dev document for it (a résumé exported from a job
board, its e-mail address a relay link and no year written, scores -0.57)."""
