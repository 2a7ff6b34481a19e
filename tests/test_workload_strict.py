"""Workload files are strict (docs/workloads.md): no value is coerced, "ANY" is
only the word, ranks and ids are range-checked, a path that is no .toml/.json
is refused as such; each refusal is one line naming the field. The examples of
docs/workloads.md load as written."""
import copy
import json
import re
from pathlib import Path

import pytest
from rrcheck.checker.model import workloads as W
from rrcheck.checker.model.workload_file import build

from rrcheck.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]

# P0 and P1 exchange one message each way. Each case below changes one value to
# one that a lenient reader would coerce into a *valid* workload (true -> 1,
# 1.0 -> 1, "no" -> false, -1 -> ANY), so only strictness refuses it.
GOOD = {"determinism": "deterministic", "nodes": [0, 1],
        "process": [{"program": [{"op": "send", "to": 1}, {"op": "recv", "from": 1}]},
                    {"program": [{"op": "recv", "from": 0}, {"op": "send", "to": 0}]}]}


def changed(path: str, value) -> dict:
    """GOOD with the field at ``path`` (as an error names it) set to ``value``."""
    doc = copy.deepcopy(GOOD)
    *up, last = [int(k) if k.isdigit() else k for k in path.split(".")]
    node = doc
    for k in up:
        node = node[k]
    node[last] = value
    return doc


REFUSED = [
    # (id, field set, value, the field as the line names it, what the line also says)
    ("from=-1", "process.1.program.0.from", -1, "process.1.program.0.from = -1", 'written "ANY", not -1'),
    ("from=true", "process.0.program.1.from", True, "process.0.program.1.from = true", "not another process"),
    ("from='any'", "process.0.program.1.from", "any", 'process.0.program.1.from = "any"', 'write "ANY" in capitals'),
    ("to=1.0", "process.0.program.0.to", 1.0, "process.0.program.0.to = 1.0", "without a decimal point"),
    ("to=true", "process.0.program.0.to", True, "process.0.program.0.to = true", "not numbers"),
    ("to='1'", "process.0.program.0.to", "1", 'process.0.program.0.to = "1"', "without quotes"),
    ("to=5 out of range", "process.0.program.0.to", 5, "process.0.program.0.to = 5", "from 0 to 1 other than 0"),
    ("to=self", "process.0.program.0.to", 0, "process.0.program.0.to = 0", "not another process"),
    ("fifo='no'", "fifo", "no", 'fifo = "no"', "true or false"),
    ("fifo=0", "fifo", 0, "fifo = 0", "true or false"),
    ("send tag='3'", "process.0.program.0.tag", "3", 'process.0.program.0.tag = "3"', "without quotes"),
    ("send tag='ANY'", "process.0.program.0.tag", "ANY", 'process.0.program.0.tag = "ANY"',
     'only a recv\'s from and tag take "ANY"'),
    ("recv tag=-1", "process.1.program.0.tag", -1, "process.1.program.0.tag = -1", 'MPI_ANY_TAG is written "ANY"'),
    ("recv tag=2.0", "process.1.program.0.tag", 2.0, "process.1.program.0.tag = 2.0", "without a decimal point"),
    ("node id -1", "nodes.1", -1, "nodes.1 = -1", "a node id, an integer from 0 to 1"),
    ("node id 2 of 2 processes", "nodes.1", 2, "nodes.1 = 2", "a node id, an integer from 0 to 1"),
    ("node id 1.0", "nodes.1", 1.0, "nodes.1 = 1.0", "a node id"),
    ("group id true", "groups", [0, True], "groups.1 = true", "a group id"),
    ("nondet choices=2.0", "process.0.program.1", {"op": "nondet", "choices": 2.0},
     "process.0.program.1.choices = 2.0", "from 2 to 8"),
    ("collective root='0'", "process.0.program.1", {"op": "barrier", "root": "0"},
     'process.0.program.1.root = "0"', "without quotes"),
]


@pytest.mark.parametrize("path,value,named,says", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_value_that_is_not_what_the_field_holds_is_refused_naming_the_field(path, value, named, says, tmp_path):
    f = tmp_path / "w.json"
    f.write_text(json.dumps(changed(path, value)))
    with pytest.raises(UsageError) as e:
        W.make(str(f))
    line = str(e.value)
    assert "\n" not in line and line.startswith(f"{f}: {named} is not "), line
    assert says in line, line


@pytest.mark.parametrize("name", ["w.yaml", "w.yml", "w", "sub/w"])
def test_a_path_that_is_no_toml_or_json_file_is_refused_as_such(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    Path(name).write_text(json.dumps(GOOD))        # a good document: only the name is wrong
    with pytest.raises(UsageError, match=rf"^--workload {re.escape(name)}: a workload file ends in \.toml or \.json$"):
        W.make(name)


def test_a_name_with_no_file_behind_it_is_still_an_unknown_built_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="unknown workload 'nosuch'"):
        W.make("nosuch")
    assert W.make("ring").name == "ring"


def test_the_good_document_loads():
    assert build(copy.deepcopy(GOOD), "w.json").determinism == "deterministic"


# -- the examples -------------------------------------------------------------------

def doc_examples() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", (ROOT / "docs" / "workloads.md").read_text(), re.DOTALL)


def test_the_docs_show_a_grouped_an_unordered_and_a_collective_workload():
    texts = doc_examples()
    assert len(texts) == 3
    assert any("groups = " in t for t in texts)
    assert any("fifo = false" in t for t in texts)
    assert any('op = "reduce"' in t or 'op = "barrier"' in t for t in texts)


@pytest.mark.parametrize("i", range(3))
def test_each_example_of_the_docs_loads_and_so_does_the_document_it_embeds(i, tmp_path):
    text = doc_examples()[i]
    name = re.search(r'^name = "(.+)"', text, re.MULTILINE).group(1)
    f = tmp_path / f"{name}.toml"
    f.write_text(text)
    w = W.make(str(f))
    assert w.name == name
    assert build(w.spec, "the counterexample's workload").programs == w.programs   # the embedded document too


@pytest.mark.parametrize("f", sorted((ROOT / "examples").glob("*.toml")), ids=lambda f: f.name)
def test_each_example_file_loads(f):
    assert W.make(str(f)).n >= 2
