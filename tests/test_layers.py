"""The package's shape (docs/architecture.md): a short top level, no import cycle, every import going down
the floors, and a public surface that ``import selfexplain`` gives without loading numpy or torch."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

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


@functools.cache
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


def test_at_most_twelve_modules_and_eight_folders_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top
    folders = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert len(folders) <= 8, folders
    assert set(folders) == {part for parts in FLOORS for part in parts} - {p.removesuffix(".py") for p in top}


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The floors of docs/architecture.md, lowest first: the folders of selfexplain/ and the modules at its top. A
# module imports only from its own folder or from lower floors (function-local imports too); two parts on one
# floor never import each other.
FLOORS: list[tuple[str, ...]] = [
    ("errors",),
    ("settings",),
    ("support", "data"),
    ("core",),
    ("methods",),
    ("views",),
    ("cli_support",),
    ("lab", "batch", "gallery"),
    ("cli", "pipeline"),  # pipeline.py: load_model's old address, a re-export of core/pipeline.py for users
]
# The rooms inside a folder, in the same way (lowest first). In a folder not named here (lab/: faithfulness,
# anatomy, plausibility, sharpness, distill, measures) the rooms may use each other, never both ways.
ROOMS: dict[str, list[tuple[str, ...]]] = {
    "core": [("modeling", "formats"), ("inputs",), ("results",), ("pipeline",)],
    "methods": [("explainers", "training"), ("analysis",)],
}


def _above(levels: list[tuple[str, ...]], here: str, there: str) -> bool:
    level = {part: i for i, parts in enumerate(levels) for part in parts}
    return level[there] > level[here] or (level[there] == level[here] and here != there)


def _part(module: str, depth: int) -> str | None:
    parts = module.split(".")
    return parts[depth] if len(parts) > depth else None


def test_every_import_goes_down_the_floors() -> None:
    graph = import_graph(everything=True)  # function-local imports too: a floor knows nothing above it
    modules = [m for m in graph if m != "selfexplain"]
    assert {_part(m, 1) for m in modules} == {p for parts in FLOORS for p in parts}  # every part is placed
    for folder, rooms in ROOMS.items():
        inside = {_part(m, 2) for m in modules if _part(m, 1) == folder} - {None}
        assert inside == {room for parts in rooms for room in parts}, folder

    def wrong(module: str, dep: str) -> bool:
        here, there = _part(module, 1), _part(dep, 1)
        if here != there:
            return _above(FLOORS, here, there)
        rooms, a, b = ROOMS.get(here), _part(module, 2), _part(dep, 2)
        return rooms is not None and a is not None and b is not None and _above(rooms, a, b)

    # the root is left out: it names its public names lazily (and the notebook display's module)
    bad = sorted((m, d) for m, deps in graph.items() for d in deps if "selfexplain" not in (m, d) and wrong(m, d))
    assert bad == []


def _folder_graph(depth: int, folder: str | None = None) -> dict[str, set[str]]:
    """Parts at ``depth`` (1: the folders of selfexplain/; 2: the rooms of ``folder``) -> the parts they import."""
    graph: dict[str, set[str]] = {}
    for module, deps in import_graph(everything=True).items():
        if module == "selfexplain" or (folder and _part(module, 1) != folder) or _part(module, depth) is None:
            continue
        here = _part(module, depth)
        graph.setdefault(here, set())
        for dep in deps:
            there = _part(dep, depth)
            if dep != "selfexplain" and there not in (None, here) and (not folder or _part(dep, 1) == folder):
                graph[here].add(there)
    for deps in list(graph.values()):
        for dep in deps:
            graph.setdefault(dep, set())
    return graph


def test_no_two_folders_or_rooms_import_each_other() -> None:
    assert cycles(_folder_graph(1)) == []
    folders = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert {folder: cycles(_folder_graph(2, folder)) for folder in folders} == {folder: [] for folder in folders}


def test_load_model_keeps_its_old_address() -> None:
    from selfexplain.core import pipeline as core_pipeline
    from selfexplain.pipeline import SelfExplainer, load_model

    assert (load_model, SelfExplainer) == (core_pipeline.load_model, core_pipeline.SelfExplainer)


@pytest.mark.slow
def test_the_public_surface_resolves_lazily() -> None:
    assert sorted(selfexplain.__all__) == sorted(selfexplain._EXPORTS)
    code = (
        "import json, sys, selfexplain; heavy = [m for m in ('numpy', 'torch', 'plotly') if m in sys.modules]; "
        "missing = [n for n in selfexplain.__all__ if getattr(selfexplain, n, None) is None]; "
        "print(json.dumps([heavy, missing]))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[], []]  # nothing heavy on `import selfexplain`; every public name resolves
