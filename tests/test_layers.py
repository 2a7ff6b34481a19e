"""The package's layers (docs/design.md, "The layers"): imports run one way,
from the CLI down to the protocols, and no module imports itself back through
others. Every import counts, a function's lazy one too: a cycle broken only by
importing late is still a cycle a reader must hold in their head."""
import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Lowest first. A module may import its own room and the rooms of lower ranks;
# rooms of one rank stand side by side and never import each other (the engines).
ROOMS = [
    (0, "foundation", ("rrcheck.errors", "rrcheck.files", "rrcheck.mpi", "rrcheck.options", "rrcheck.clock")),
    (1, "protocols", ("rrcheck.protocols",)),
    (1, "grouping", ("rrcheck.grouping",)),
    (2, "model", ("rrcheck.checker.model", "rrcheck.checker")),
    (3, "invariants", ("rrcheck.checker.invariants",)),
    (4, "traces", ("rrcheck.checker.traces",)),
    (5, "explicit", ("rrcheck.checker.explicit",)),
    (5, "stateful", ("rrcheck.checker.stateful",)),
    (5, "symbolic", ("rrcheck.checker.symbolic",)),
    (5, "tla", ("rrcheck.checker.tla",)),
    (6, "runtime", ("rrcheck.runtime",)),
    (7, "predict", ("rrcheck.runtime.predict",)),
    (8, "cli", ("rrcheck.cli", "rrcheck", "rrcheck.__main__")),
]


def modules() -> dict[str, Path]:
    """Every module of the installed package, by name, from pyproject's package-dir."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = cfg["package-dir"]
    found = {}
    for pkg in cfg["packages"]:
        top = max((p for p in dirs if pkg == p or pkg.startswith(p + ".")), key=len)
        folder = ROOT / dirs[top] / Path(*pkg[len(top):].split(".")[1:])
        for f in folder.glob("*.py"):
            found[pkg if f.stem == "__init__" else f"{pkg}.{f.stem}"] = f
    return found


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the project's modules it imports (``from P import m`` is an
    import of the module P.m when there is one, of P otherwise)."""
    edges = {}
    for name, path in mods.items():
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        out = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    out.add(t)
        edges[name] = out
    return edges


def room(module: str) -> tuple[int, str]:
    best = max(((len(p), rank, label) for rank, label, prefixes in ROOMS for p in prefixes
                if module == p or (module.startswith(p + ".") and p != "rrcheck")), default=None)
    assert best is not None, f"{module} is in no room: add it to ROOMS and to docs/design.md's map"
    return best[1], best[2]


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph():
    return imports(modules())


def test_layers_every_module_is_found(graph):
    assert {"rrcheck.checker.explicit.explore", "rrcheck.checker.model.system", "rrcheck.protocols.base",
            "rrcheck.runtime.predict.smt", "rrcheck.cli.check", "rrcheck.errors"} <= set(graph)
    assert "rrcheck.checker.invariants" in graph["rrcheck.checker.explicit.explore"]


def test_layers_no_import_cycle(graph):
    assert cycles(graph) == []


def test_layers_imports_run_down(graph):
    wrong = []
    for src, targets in graph.items():
        (r, a) = room(src)
        for t in targets:
            (q, b) = room(t)
            if q > r or (q == r and a != b):
                wrong.append(f"{src} ({a}) imports {t} ({b})")
    assert wrong == []


def test_layers_the_check_can_fail():
    """A cycle and an upward arrow, made up, are both seen."""
    made = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert cycles(made) == [["a", "b", "c"]]
    assert room("rrcheck.checker.model.system") < room("rrcheck.checker.explicit.explore")
    assert room("rrcheck.checker.explicit.explore")[0] == room("rrcheck.checker.tla.run")[0]
