"""evals/bench_vectors.py: the delete benchmark runs end to end and reports per strategy."""

from evals.bench import main


def test_the_vectors_benchmark_reports_both_strategies_and_the_rebuild_loses_nothing(settings, capsys):
    assert main(["vectors", "--docs", "3", "--chunks", "4", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "in place" in out
    assert "rebuild   unreachable after each round (of 12): [0, 0]" in out
    assert "emptying 3 documents (12 vectors): one by one" in out and "at once" in out


def test_the_vectors_benchmark_refuses_an_empty_run(settings, capsys):
    assert main(["vectors", "--rounds", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
