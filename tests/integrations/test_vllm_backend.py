"""The backend's grammar as vLLM's engine drives it (accept, validate, roll back, fill a shared bitmask), without
loading a model: random walks under the filled bitmask always give schema-valid JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it in .venv-vllm")
torch = pytest.importorskip("torch")
jsonschema = pytest.importorskip("jsonschema")

from vllm.v1.structured_output.backend_types import StructuredOutputOptions  # noqa: E402

from extractor import Guards  # noqa: E402
from extractor.integrations.vllm import ExtractorGrammar  # noqa: E402
from extractor.integrations.vllm.spec import GrammarCache  # noqa: E402
from tests.masks.test_masks import small_vocab  # noqa: E402

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}, "age": {"type": "integer"}},
     "required": ["name", "age"], "additionalProperties": False},
    {"type": "array", "items": {"enum": ["red", "green", 7, None]}, "maxItems": 5},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                               "uniqueItems": True, "maxItems": 3}}, "required": ["tags"]},
]
PAD = 40
"""Bitmask columns beyond the vocabulary (vLLM's vocabulary size is the model's, often padded)."""


def _grammar(schema: dict, stops: tuple[int, ...] = (), guards: Guards | None = None) -> ExtractorGrammar:
    vocab = small_vocab("llama3")
    grammar, _ = GrammarCache(vocab).get(StructuredOutputOptions.JSON.name, json.dumps(schema))
    return ExtractorGrammar(grammar, np.array(stops, dtype=np.int64), guards)


def _allowed(g: ExtractorGrammar, width: int) -> np.ndarray:
    bitmask = torch.full((3, (width + 31) // 32), -1, dtype=torch.int32)
    g.fill_bitmask(bitmask, 1)
    words = bitmask[1].numpy().view(np.uint32)
    return np.flatnonzero((words[np.arange(width) // 32] >> (np.arange(width) % 32).astype(np.uint32)) & 1)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_random_walks_under_the_filled_bitmask_are_valid(schema: dict) -> None:
    g = _grammar(schema)
    rng, vocab = np.random.default_rng(3), g.grammar.vocab
    eos = min(vocab.eos_ids)
    for _ in range(20):
        g.reset()
        for _ in range(200):
            allowed = _allowed(g, vocab.size)
            ends = [t for t in allowed if t == eos]
            token = eos if ends and rng.random() < 0.3 else int(rng.choice(allowed))
            assert g.accept_tokens("r", [token])
            if g.is_terminated():
                break
        if g.is_terminated():
            jsonschema.validate(json.loads(bytes(g.matcher.output)), schema)


def test_validating_drafted_tokens_changes_nothing_and_stops_at_the_first_bad_one() -> None:
    g = _grammar(SCHEMAS[0])
    vocab = g.grammar.vocab
    ids = [vocab.tokens.index(bytes([b])) for b in b'{"name":"A","age":1}']
    g.accept_tokens("r", ids[:3])
    before = bytes(g.matcher.output)
    bad = vocab.tokens.index(b"x")
    assert g.validate_tokens(ids[3:8] + [bad] + ids[8:]) == ids[3:8]
    assert g.validate_tokens([*ids[3:], -1, -1]) == ids[3:]  # speculative padding
    assert bytes(g.matcher.output) == before


def _one_by_one(g: ExtractorGrammar, tokens: list[int]) -> list[int]:
    """Validation the plain way: each token taken, then all of them undone."""
    taken = 0
    for token in tokens:
        if token < 0 or not g._take(token):
            break
        taken += 1
    g._undo(taken)
    return tokens[:taken]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_validating_by_configuration_id_equals_taking_each_token_and_undoing_it(schema: dict) -> None:
    vocab = small_vocab("llama3")
    stop = vocab.tokens.index(b"\n")
    g = _grammar(schema, (stop,))
    rng, eos = np.random.default_rng(8), min(vocab.eos_ids)
    for _ in range(25):
        g.reset()
        for _ in range(int(rng.integers(0, 25))):
            going = [t for t in _allowed(g, vocab.size) if t != eos and t != stop]
            if not going:
                break
            g.accept_tokens("r", [int(rng.choice(going))])
        for _ in range(6):
            proposed: list[int] = []  # a run the grammar allows, walked and taken back, then spoiled somewhere
            for _ in range(int(rng.integers(1, 6))):
                allowed = _allowed(g, vocab.size)
                if g.is_terminated() or not len(allowed):
                    break
                proposed.append(int(rng.choice(allowed)))
                assert g.accept_tokens("r", proposed[-1:])
            g.rollback(len(proposed))
            at = int(rng.integers(0, len(proposed) + 1))
            proposed[at:at] = [int(rng.choice([eos, stop, -1, int(rng.integers(vocab.size))]))]
            before = bytes(g.matcher.output)
            assert g.validate_tokens(proposed) == _one_by_one(g, proposed)
            assert bytes(g.matcher.output) == before


def test_a_stop_token_is_allowed_only_where_the_output_is_complete_and_rolls_back() -> None:
    vocab = small_vocab("llama3")
    stop = vocab.tokens.index(b"\n")  # a user's stop token that is also text the layout could write
    g = _grammar(SCHEMAS[0], (stop,))
    ids = [vocab.tokens.index(bytes([b])) for b in b'{"name":"A","age":1}']
    g.accept_tokens("r", ids[:-1])
    assert stop not in _allowed(g, vocab.size + PAD)
    assert not g.accept_tokens("r", [stop]) and not g.is_terminated()
    g.accept_tokens("r", ids[-1:])
    assert stop in _allowed(g, vocab.size + PAD)
    assert g.accept_tokens("r", [stop]) and g.is_terminated()
    g.rollback(2)
    assert not g.is_terminated() and bytes(g.matcher.output) == b'{"name":"A","age":1'


def test_the_refusal_branch_rides_in_the_schema() -> None:
    g = _grammar({**SCHEMAS[0], "x-extractor": {"refusal": True}})
    vocab = g.grammar.vocab
    refusal = json.dumps({"error": "no person in the text"}, separators=(",", ":")).encode()
    g.matcher.advance_bytes(refusal)
    assert g.matcher.accepting() and min(vocab.eos_ids) in _allowed(g, vocab.size)


def test_guards_stop_a_repeated_item_and_survive_a_rollback() -> None:
    g = _grammar({"type": "array", "items": {"type": "string"}}, guards=Guards(fresh_items=False))
    vocab = g.grammar.vocab
    ids = [vocab.tokens.index(bytes([b])) for b in b'["ab","ab"']
    comma = vocab.tokens.index(b",")
    g.accept_tokens("r", ids)
    assert comma not in _allowed(g, vocab.size)  # a repeat ends the array
    g.rollback(3)  # back to '["ab","': the repeat is gone, so is the ban
    g.accept_tokens("r", [vocab.tokens.index(b"c"), vocab.tokens.index(b'"')])
    assert comma in _allowed(g, vocab.size)


def test_fresh_items_keep_a_repeat_from_being_written_and_survive_a_rollback() -> None:
    g = _grammar({"type": "array", "items": {"type": "string"}}, guards=Guards())
    vocab = g.grammar.vocab
    quote = vocab.tokens.index(b'"')
    g.accept_tokens("r", [vocab.tokens.index(bytes([b])) for b in b'["ab","ab'])
    assert quote not in _allowed(g, vocab.size)  # "ab" again is never completed
    g.rollback(1)  # back to '["ab","a': a fresh item may close
    g.accept_tokens("r", [vocab.tokens.index(b"c")])
    assert quote in _allowed(g, vocab.size)


GUARDED = [  # schemas where the guards decide: repeated items, looping strings, wrap-up within a budget
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}}}, "required": ["rows"]},
]


@pytest.mark.parametrize("schema", GUARDED, ids=range(len(GUARDED)))
@pytest.mark.parametrize("drafts", [1, 3])
def test_drafts_fed_then_taken_back_leave_the_same_masks_as_never_seeing_them(schema: dict, drafts: int) -> None:
    """A speculative step as vLLM runs it (validate the drafts, accept each to fill its row, roll back, accept
    what verification kept) restores the guard from its copy: each draft row is the row of a grammar walked
    there (`scout`), and after every step the masks are those of a grammar fed only the kept tokens (`plain`,
    never rolled back)."""
    guards = Guards(wrap_up=True, similar_items=2)
    fast, plain, scout = (_grammar(schema, guards=guards) for _ in range(3))
    fast.drafts = drafts
    for g in (fast, plain, scout):
        g.budget = 120
    rng, vocab = np.random.default_rng(11), fast.grammar.vocab
    eos, width = set(vocab.eos_ids), (vocab.size + 31) // 32
    for walk in range(6):
        for g in (fast, plain, scout):
            g.reset()
        while not plain.is_terminated():
            proposed, rows_wanted = [], []
            for _ in range(drafts):  # drafts walked ahead by the scout, the last one wrong on every other walk
                allowed = _allowed(scout, vocab.size)
                rows_wanted.append(set(allowed))
                going = [t for t in allowed if t not in eos] or list(allowed)
                proposed.append(int(rng.choice(going)))
                assert scout.accept_tokens("r", proposed[-1:])
                if scout.is_terminated():
                    break
            if walk % 2 and len(proposed) == drafts:
                proposed[-1] = int(rng.integers(vocab.size))
            valid = fast.validate_tokens(proposed)
            rows = torch.zeros((drafts + 1, width + 1), dtype=torch.int32)
            advanced = 0
            for j, token in enumerate(valid):
                fast.fill_bitmask(rows, j)
                got = rows[j].numpy().view(np.uint32)
                bits = (got[np.arange(vocab.size) // 32] >> (np.arange(vocab.size) % 32).astype(np.uint32)) & 1
                assert set(np.flatnonzero(bits)) == rows_wanted[j]
                if not fast.accept_tokens("r", [token]):
                    break
                advanced += 1
            fast.rollback(advanced)
            kept = valid[:max(1, len(valid) - 1)] if valid else [int(_allowed(plain, vocab.size)[0])]
            scout.rollback(scout.generated - plain.generated)
            for g in (fast, plain, scout):
                assert g.accept_tokens("r", kept)
            assert set(_allowed(fast, vocab.size)) == set(_allowed(plain, vocab.size))
        assert fast.is_terminated() and bytes(fast.matcher.output) == bytes(plain.matcher.output)


@pytest.mark.parametrize("budget", [12, 30, 64])
def test_with_a_budget_the_output_ends_complete_within_it(budget: int) -> None:
    """A walk that never chooses to stop (EOS only where nothing else is allowed) still ends complete within
    the request's `max_tokens`, rollbacks included: the guard wraps up along the shortest way out."""
    schema = {"type": "object", "properties": {"notes": {"type": "array", "items": {"type": "string"}}},
              "required": ["notes"]}
    g = _grammar(schema, guards=Guards(wrap_up=True))
    g.budget = budget
    rng, vocab = np.random.default_rng(5), g.grammar.vocab
    eos, rolled = set(vocab.eos_ids), False
    while not g.is_terminated():
        assert g.generated < budget
        allowed = _allowed(g, vocab.size)
        going = [t for t in allowed if t not in eos]
        assert g.accept_tokens("r", [int(rng.choice(going)) if going else int(allowed[0])])
        if g.generated == budget // 2 and not rolled:
            g.rollback(2)
            rolled = True
            g.accept_tokens("r", [int(rng.choice([t for t in _allowed(g, vocab.size) if t not in eos]))])
    jsonschema.validate(json.loads(bytes(g.matcher.output)), schema)


def test_the_plugin_gives_each_grammar_its_requests_token_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """vLLM compiles a grammar from the request's key alone; the plugin hands it the request's `max_tokens`
    in the same call, so wrap-up knows its budget before the first mask."""
    from types import SimpleNamespace

    from vllm.v1.structured_output import StructuredOutputManager

    from extractor.integrations.vllm.plugin import ENV, register

    for name in ("grammar_init", "_create_grammar", "grammar_bitmask"):  # restored after: register() patches them
        monkeypatch.setattr(StructuredOutputManager, name, getattr(StructuredOutputManager, name))
    monkeypatch.setenv(ENV, "1")
    register()
    made = _grammar(SCHEMAS[0], guards=Guards(wrap_up=True))
    backend = SimpleNamespace(compile_grammar=lambda kind, spec, stop_token_ids=None: made)
    request = SimpleNamespace(
        request_id="r", max_tokens=77, sampling_params=SimpleNamespace(all_stop_token_ids=set()),
        structured_output_request=SimpleNamespace(structured_output_key=(StructuredOutputOptions.JSON, "{}")))
    assert StructuredOutputManager._create_grammar(SimpleNamespace(backend=backend), request) is made
    assert made.budget == 77


def _manager(spec_tokens: int = 0):
    """A stand-in for vLLM's StructuredOutputManager holding what its mask step reads."""
    from types import SimpleNamespace

    from vllm.v1.structured_output import StructuredOutputManager

    width = (small_vocab("llama3").size + PAD + 31) // 32
    m = SimpleNamespace(
        _grammar_bitmask=None, _full_mask=torch.tensor(-1, dtype=torch.int32), fill_bitmask_parallel_threshold=128,
        backend=SimpleNamespace(allocate_token_bitmask=lambda n: torch.full((n, width), -1, dtype=torch.int32)),
        vllm_config=SimpleNamespace(num_speculative_tokens=spec_tokens, model_config=SimpleNamespace(is_diffusion=False),
                                    scheduler_config=SimpleNamespace(max_num_seqs=8)))
    m._fill_bitmasks = lambda batch: StructuredOutputManager._fill_bitmasks(m, batch)
    m._get_constraint_bounds = lambda request, tokens, *rest: request.bounds
    return m


def _requests(seed: int, drafts: int) -> tuple[dict, dict]:
    """Requests at random places (guarded, with extra stop tokens, finished, one not yet constrained: a reasoning
    model still thinking) and, with `drafts`, each one's scheduled drafts (right ones, a wrong one, -1 padding,
    none); built the same way for every seed, so two calls give two equal batches."""
    from types import SimpleNamespace

    from vllm.v1.structured_output import ConstraintBounds

    rng = np.random.default_rng(seed)
    requests, spec = {}, {}
    for i in range(6):
        schema = (SCHEMAS + GUARDED)[int(rng.integers(len(SCHEMAS) + len(GUARDED)))]
        g = _grammar(schema, stops=(3,) if i % 2 else (), guards=Guards(wrap_up=True) if i % 3 == 0 else None)
        g.budget, g.drafts = 40, drafts
        eos = set(g.grammar.vocab.eos_ids)
        for _ in range(int(rng.integers(0, 30))):
            allowed = [t for t in _allowed(g, g.grammar.vocab.size) if t not in eos or rng.random() < 0.2]
            if g.is_terminated() or not allowed:
                break
            assert g.accept_tokens("r", [int(rng.choice(allowed))])
        proposed = []
        bounds = ConstraintBounds(1, 1) if i == 4 else ConstraintBounds(0, 0)
        kind = int(rng.integers(4)) if drafts else -1
        if kind >= 0 and not g.is_terminated():
            allowed = [int(t) for t in _allowed(g, g.grammar.vocab.size) if t not in eos]
            proposed = [int(rng.choice(allowed))] * drafts if allowed else []  # right once at least
            if kind == 1:
                proposed[-1:] = [g.grammar.vocab.size - 1]  # (most likely) refused
            elif kind == 2:
                proposed[1:] = [-1] * (drafts - 1)
            elif kind == 3:
                proposed = []
        requests[f"r{i}"] = SimpleNamespace(structured_output_request=SimpleNamespace(grammar=g), bounds=bounds)
        spec[f"r{i}"] = proposed
    return requests, spec


@pytest.mark.parametrize("drafts", [0, 3])
@pytest.mark.parametrize("seed", range(4))
def test_the_batch_mask_step_writes_what_vllms_own_step_writes(monkeypatch: pytest.MonkeyPatch, seed: int,
                                                               drafts: int) -> None:
    """The manager's step with our batch fill (one C call for every row) against vLLM's own (a call per row), on
    equal batches; with drafts each request's rows are one per draft and the bonus row, and afterwards every
    grammar is where it was (its next rows equal)."""
    from vllm.v1.structured_output import StructuredOutputManager

    from extractor.integrations.vllm import fill

    own = StructuredOutputManager.grammar_bitmask
    monkeypatch.setattr(StructuredOutputManager, "grammar_bitmask", own)
    fill.patch(StructuredOutputManager)
    batched, calls, real = StructuredOutputManager.grammar_bitmask, [], fill.write_rows
    monkeypatch.setattr(fill, "write_rows", lambda *a: calls.append(1) or real(*a))
    ours, theirs = _requests(seed, drafts), _requests(seed, drafts)
    ids = list(ours[0])
    got = batched(_manager(drafts), ours[0], ids, ours[1])
    want = own(_manager(drafts), theirs[0], ids, theirs[1])
    assert calls == [1] and got.shape == want.shape
    assert got.shape[0] == len(ids) + sum(len(ours[1][r]) for r in ids)  # a row per draft, and the bonus row
    assert (got == want).all()
    for r in ids:
        a, b = ours[0][r].structured_output_request.grammar, theirs[0][r].structured_output_request.grammar
        assert bytes(a.matcher.output) == bytes(b.matcher.output)
        assert (a.row() == b.row()).all() if not a.is_terminated() else b.is_terminated()
    if not drafts:
        assert (got[4] == -1).all()  # not constrained yet


def test_a_batch_with_another_backends_request_takes_vllms_own_step(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from vllm.v1.structured_output import StructuredOutputManager

    from extractor.integrations.vllm import fill

    own = StructuredOutputManager.grammar_bitmask
    monkeypatch.setattr(StructuredOutputManager, "grammar_bitmask", own)
    fill.patch(StructuredOutputManager)
    calls = []
    monkeypatch.setattr(fill, "write_rows", lambda *a: calls.append(1))
    requests, spec = _requests(0, 0)
    other = SimpleNamespace(fill_bitmask=lambda bitmask, index: bitmask[index].fill_(7), is_terminated=lambda: False)
    requests["x"] = SimpleNamespace(structured_output_request=SimpleNamespace(grammar=other), bounds=requests["r0"].bounds)
    out = StructuredOutputManager.grammar_bitmask(_manager(), requests, list(requests), spec)
    assert not calls and (out[-1] == 7).all()


def test_a_refused_draft_is_logged_and_its_row_repeated(caplog: pytest.LogCaptureFixture) -> None:
    from extractor.integrations.vllm.fill import draft_rows

    g = _grammar(SCHEMAS[0])
    brace = g.grammar.vocab.tokens.index(b"{")
    rows: list = []
    with caplog.at_level("ERROR"):
        assert draft_rows(g, [brace, brace, brace], (0, 0), 5, rows, "req-7") == 9
    assert [i for i, _ in rows] == [5, 6, 7, 8] and rows[2][1] is rows[1][1] and rows[3][1] is rows[1][1]
    assert "rejected draft token" in caplog.text and "req-7" in caplog.text
    assert bytes(g.matcher.output) == b""  # the accepted draft taken back
