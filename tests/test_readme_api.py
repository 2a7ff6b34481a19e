"""README's Python example, run as written (a doctest): the API it shows is
the one that ships, and it means what the command line means."""
from __future__ import annotations

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    failed, tried = doctest.testfile(str(ROOT / "README.md"), module_relative=False, verbose=False,
                                     optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failed == 0


def test_api_searches_what_the_cli_searches(tmp_path, monkeypatch, capsys):
    from rrcheck import check
    from rrcheck.cli import main
    monkeypatch.chdir(tmp_path)
    c = check("sbml", "ring")
    assert main(["check", "sbml", "--workload", "ring", "--json", "--no-progress"]) == 0
    import json
    cli = json.loads(capsys.readouterr().out)
    assert (c.scenario.label(), c.result.states, c.result.transitions) == \
        (cli["scenario"], cli["states"], cli["transitions"])
