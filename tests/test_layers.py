"""The package's shape (docs/architecture.md): a short top level, no import cycle, every import going down
the floors, and a public surface that ``import selfexplain`` gives without loading numpy or torch."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import selfexplain

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "selfexplain"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runs_at_import(body: list[ast.stmt]):
    """Import statements a module runs when imported (not in functions, not under ``if TYPE_CHECKING:``)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            checking = "TYPE_CHECKING" in ast.unparse(node.test)
            yield from _runs_at_import(node.orelse if checking else node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from _runs_at_import(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                yield from _runs_at_import(handler.body)
        elif isinstance(node, ast.With):
            yield from _runs_at_import(node.body)


def import_graph(everything: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (with the packages above them, whose ``__init__`` runs too;
    a module's own packages, which run before it, are left out). ``everything``: function-local and
    ``TYPE_CHECKING`` imports as well."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        base = name if path.name == "__init__.py" else name.rpartition(".")[0]
        own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        edges: set[str] = set()
        for node in nodes if everything else _runs_at_import(tree.body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                source = node.module or ""
                if node.level:
                    anchor = base.split(".")[: len(base.split(".")) - node.level + 1]
                    source = ".".join([*anchor, *([node.module] if node.module else [])])
                subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [source, *subs]
            for target in targets:
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    dep = ".".join(parts[:i])
                    if dep in modules and dep != name and (dep == target or dep not in own):
                        edges.add(dep)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_at_most_twelve_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The floors of docs/architecture.md, lowest first: a module imports only from lower floors (or its own
# package); only the feature wings, on one floor, may import each other (never in a cycle).
FLOORS: list[tuple[str, ...]] = [
    ("errors",),
    ("settings",),
    ("support", "data"),
    ("modeling", "formats"),
    ("inputs",),
    ("results",),
    ("pipeline",),
    ("explainers", "training"),
    ("analysis",),
    ("views",),
    ("cli_support",),
    ("faithfulness", "anatomy", "sharpness", "plausibility", "distill", "batch", "gallery"),
    ("cli",),
]
WINGS = FLOORS[-2]


def test_every_import_goes_down_the_floors() -> None:
    floor = {part: level for level, parts in enumerate(FLOORS) for part in parts}

    def part(module: str) -> str:
        return module.split(".")[1]

    graph = import_graph(everything=True)  # function-local imports too: a floor knows nothing above it
    assert {part(m) for m in graph if m != "selfexplain"} == set(floor)  # every part of the package is placed

    def above(module: str, dep: str) -> bool:
        here, there = floor[part(module)], floor[part(dep)]
        return there > here or (there == here and part(module) != part(dep) and part(module) not in WINGS)

    # the root is left out: it names its public names lazily (and the notebook display's module)
    wrong = sorted((m, d) for m, deps in graph.items() for d in deps if "selfexplain" not in (m, d) and above(m, d))
    assert wrong == []


def test_the_public_surface_resolves_lazily() -> None:
    assert sorted(selfexplain.__all__) == sorted(selfexplain._EXPORTS)
    code = (
        "import json, sys, selfexplain; heavy = [m for m in ('numpy', 'torch', 'plotly') if m in sys.modules]; "
        "missing = [n for n in selfexplain.__all__ if getattr(selfexplain, n, None) is None]; "
        "print(json.dumps([heavy, missing]))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[], []]  # nothing heavy on `import selfexplain`; every public name resolves
