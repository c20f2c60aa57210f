"""backend_replay's grouping of backends into processes (the replay itself runs in tests/integrations, where vLLM
is installed): our backends share process-wide caches, so no two of them may run in one process."""

import pytest

from benchmarks.backend_replay import groups

CASES = [
    (["extractor", "xgrammar", "guidance", "extractor-unguarded"],
     [["extractor", "xgrammar", "guidance"], ["extractor-unguarded", "xgrammar"]]),
    (["extractor", "extractor-unguarded"], [["extractor"], ["extractor-unguarded"]]),
    (["extractor-unguarded", "guidance"], [["extractor-unguarded", "guidance"]]),
    (["xgrammar", "guidance"], [["xgrammar", "guidance"]]),
    (["extractor"], [["extractor"]]),
]


@pytest.mark.parametrize("names,expected", CASES)
def test_each_of_our_backends_runs_in_a_process_of_its_own(names, expected):
    made = groups(names)
    assert made == expected
    for group in made:
        assert sum(name.startswith("extractor") for name in group) <= 1
    assert sorted(n for g in made for n in g if n.startswith("extractor")) == sorted(
        n for n in names if n.startswith("extractor"))


@pytest.mark.parametrize("argv", [["--mix", "0"], ["--batches", "16,-1"], ["--batches", "x"]])
def test_a_batch_size_that_could_never_run_is_refused(argv, capsys):
    from benchmarks.backend_replay import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "batch" in capsys.readouterr().err
