"""`decode/kept.py`: rows the model read before, kept so that a row beginning the same way reads only the rest; a
decoding run whose prompt begins as a kept row feeds only what follows it, and writes what it writes fed whole."""

from __future__ import annotations

import pytest

from extractor import ExtractOptions
from extractor.decode.kept import KeptRows, kept_rows

LONGEST = [  # (kept rows, a new row, the most it may reuse) -> tokens reused
    ([list(range(40))], list(range(40)) + [7, 8], None, 40),
    ([list(range(40))], list(range(20)) + [9], None, 0),  # fewer than SHARED
    ([list(range(40)), list(range(35)) + [1]], list(range(38)) + [2], None, 38),  # the longest shared
    ([list(range(50))], list(range(40)), 39, 39),  # a beginning of a kept row, its last token read anew
    ([list(range(50))], list(range(50)), 20, 0),  # capped below SHARED
    ([], list(range(40)), None, 0),
]


@pytest.mark.parametrize("kept,row,most,reused", LONGEST)
def test_a_row_reuses_the_longest_beginning_kept(kept, row, most, reused):
    store = KeptRows(1 << 20)
    for key in kept:
        store.rows.put(tuple(key), ([], key), 8)
    base, n = store.longest(row, most)
    assert n == reused and (base is None) == (reused == 0)


def test_a_forgotten_row_is_not_reused():
    store = KeptRows(1 << 20)
    store.rows.put(tuple(range(40)), ([], None), 8)
    store.forget(list(range(40)))
    assert store.longest(list(range(41))) == (None, 0) and store.rows.bytes == 0


def test_an_empty_row_is_refused_by_name():
    with pytest.raises(ValueError, match="empty row"):
        KeptRows(1 << 20).read(None, [])  # type: ignore[arg-type]  (refused before the model is touched)


SYSTEM = ("Extract information from the user's text as JSON with these fields:\n- name: the party's name, as "
          "written in the text\nCopy values exactly as written in the text.\n\n")
BEGINNINGS = [  # rows read one after another: each that begins as one before reads only its rest
    [SYSTEM + "Acme Widgets, based in Lyon, employs 240 people.", SYSTEM + "Acme Widgets was founded in 1998.",
     SYSTEM + "Acme"],
    [SYSTEM + "A B C", SYSTEM + "A", SYSTEM],  # one row the beginning of another; one all of another's beginning
]


@pytest.mark.parametrize("texts", BEGINNINGS)
def test_rows_that_begin_alike_read_as_each_read_alone(model_extractor, texts):
    import torch

    lm = model_extractor.lm
    rows = [lm.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    shared, alone = KeptRows(1 << 30), []
    for row in rows:
        store = KeptRows(1 << 30)
        alone.append(store.read(lm, row)[1])
    together = [shared.read(lm, row)[1] for row in rows]
    assert len(shared.rows) == len(rows)
    for a, b in zip(together, alone):
        assert torch.allclose(a.float(), b.float(), atol=2e-3)


def _whole(lm, row, body):
    """log p(body | row), the row and body fed as one sequence and read off a whole log-softmax (the reference)."""
    import torch

    ids = row + body
    with torch.inference_mode():
        logits = lm.model(input_ids=torch.tensor([ids], device=lm.device)).logits[0, len(row) - 1:-1]
    return float(logits.float().log_softmax(-1).gather(-1, torch.tensor(body)[:, None]).sum())


BODIES = [['{"name": "Acme Widgets"}', '{"name": "Lyon"}', '{"name": null}'], ['{"name": "Acme"}'], ["", " x"]]


@pytest.mark.parametrize("bodies", BODIES)
def test_the_bodies_read_side_by_side_have_their_likelihoods_read_alone(model_extractor, bodies):
    from extractor.decode.relevance import continuations

    lm = model_extractor.lm
    row = lm.tokenizer(SYSTEM + "Acme Widgets, based in Lyon.", add_special_tokens=False)["input_ids"]
    ids = [lm.tokenizer(b, add_special_tokens=False)["input_ids"] for b in bodies]
    kept_rows(lm, "prompts").forget(row)
    got = continuations(lm, row, ids)
    kept_rows(lm, "prompts").forget(row)
    assert got == pytest.approx([_whole(lm, row, b) if b else 0.0 for b in ids], abs=2e-3)


TEXTS = ["Ann Lee, head of sales at Nordwind AG, ann@nordwind.example.", "Bob Ray (bob@ray.example) runs Ray Ltd."]


@pytest.mark.parametrize("text", TEXTS)
def test_a_prompt_kept_before_is_not_fed_again_and_the_answer_is_the_same(model_extractor, text):
    """A run whose prompt was kept feeds its last token only (what its first step reads) and writes what the run
    fed whole writes."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "company": {"type": "string"}},
              "required": ["name", "company"]}
    lm, opts = model_extractor.lm, ExtractOptions(max_tokens=40)
    whole, fed = model_extractor.extract(schema, text, opts, with_usage=True)
    prompt = model_extractor.prompt_ids(schema, text, [], opts)
    store = kept_rows(lm, "prompts")
    store.read(lm, prompt)
    try:
        again, reused = model_extractor.extract(schema, text, opts, with_usage=True)
    finally:
        store.forget(prompt)
    assert again == whole and fed.cached_tokens == 0 and reused.cached_tokens == len(prompt) - 1
