"""selfexplain.settings: every SELFEXPLAIN_* setting's default and parsing, read at call time; no other module
reads one; importing the pages changes no setting; README's table lists them all."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from selfexplain import settings
from selfexplain.errors import USER_ERRORS, InvalidInputError

ROOT = Path(__file__).resolve().parents[1]
VARIABLES = (
    "SELFEXPLAIN_MAX_CHARS",
    "SELFEXPLAIN_MODELS_DIR",
    "SELFEXPLAIN_RESTRICT_MODELS",
    "SELFEXPLAIN_HUB",
    "SELFEXPLAIN_FUSED",
    "SELFEXPLAIN_CACHE",
    "SELFEXPLAIN_CACHE_MB",
    "SELFEXPLAIN_HOME",
    "SELFEXPLAIN_DB_URL",
)
TEST_ONLY = ("SELFEXPLAIN_TEST_PG_URL", "SELFEXPLAIN_ACCELERATE_TEST")


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No SELFEXPLAIN_ setting (nor XDG_DATA_HOME) in the environment."""
    for name in (*VARIABLES, "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_defaults(bare: pytest.MonkeyPatch) -> None:
    assert settings.max_chars() == 100_000 == settings.DEFAULT_MAX_INPUT_CHARS
    assert settings.models_dir() is None
    assert settings.restrict_models() is False
    assert settings.hub() is True
    assert settings.fused() is True
    assert settings.cache_dir() == Path.home() / ".cache" / "selfexplain"
    assert settings.cache_mb() == 64 == settings.DEFAULT_CACHE_MB
    assert settings.home() == Path.home() / ".local" / "share" / "selfexplain"
    assert settings.db_url() is None


def test_max_chars(bare: pytest.MonkeyPatch) -> None:
    for raw, value in (("250_000", 250_000), (" 1,000 ", 1000), ("1", 1), ("", 100_000), ("  ", 100_000)):
        bare.setenv("SELFEXPLAIN_MAX_CHARS", raw)
        assert settings.max_chars() == value
    for bad in ("0", "-5", "lots", "1.5"):
        bare.setenv("SELFEXPLAIN_MAX_CHARS", bad)
        with pytest.raises(InvalidInputError) as caught:
            settings.max_chars()
        assert isinstance(caught.value, USER_ERRORS)  # the pages show it; the CLI exits 2
        assert str(caught.value) == (
            f"SELFEXPLAIN_MAX_CHARS must be a whole number of characters, at least 1 (got {bad!r})"
        )


def test_max_chars_override_restores_the_variable(bare: pytest.MonkeyPatch) -> None:
    with settings.max_chars_override(40):
        assert settings.max_chars() == 40
    assert "SELFEXPLAIN_MAX_CHARS" not in os.environ
    bare.setenv("SELFEXPLAIN_MAX_CHARS", "7")
    with settings.max_chars_override(40):
        assert settings.max_chars() == 40
    assert os.environ["SELFEXPLAIN_MAX_CHARS"] == "7"


def test_flags(bare: pytest.MonkeyPatch) -> None:
    for raw, value in (("1", True), ("TRUE", True), ("yes", True), ("0", False), ("no", False), ("", False)):
        bare.setenv("SELFEXPLAIN_RESTRICT_MODELS", raw)
        assert settings.restrict_models() is value
    for raw, value in (("0", False), (" False ", False), ("NO", False), ("1", True), ("", True), ("off", False)):
        bare.setenv("SELFEXPLAIN_HUB", raw)
        assert settings.hub() is value
    for raw, value in (("0", False), ("1", True), ("", True), ("false", False), (" 0", False), ("On", True)):
        bare.setenv("SELFEXPLAIN_FUSED", raw)
        assert settings.fused() is value
    for name in ("SELFEXPLAIN_RESTRICT_MODELS", "SELFEXPLAIN_HUB", "SELFEXPLAIN_FUSED"):  # one strict reader
        bare.setenv(name, "maybe")
        with pytest.raises(InvalidInputError, match=f"{name} must be one of 1, true, yes, on, 0, false, no, off"):
            settings.flag(name, True)


def test_paths_and_urls(bare: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bare.setenv("SELFEXPLAIN_MODELS_DIR", str(tmp_path / "models"))
    assert settings.models_dir() == tmp_path / "models"
    bare.setenv("SELFEXPLAIN_MODELS_DIR", "")
    assert settings.models_dir() is None
    bare.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "cache"))
    assert settings.cache_dir() == tmp_path / "cache"
    bare.setenv("SELFEXPLAIN_CACHE", "")
    assert settings.cache_dir() == Path.home() / ".cache" / "selfexplain"
    bare.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert settings.home() == tmp_path / "xdg" / "selfexplain"
    bare.setenv("SELFEXPLAIN_HOME", "~/gallery")
    assert settings.home() == Path.home() / "gallery"
    bare.setenv("SELFEXPLAIN_DB_URL", "  sqlite:///x.db ")
    assert settings.db_url() == "sqlite:///x.db"
    bare.setenv("SELFEXPLAIN_DB_URL", "   ")
    assert settings.db_url() is None


def test_cache_mb(bare: pytest.MonkeyPatch) -> None:
    for raw, value in (("128", 128), (" 8 ", 8), ("", 64), ("lots", 64), ("1.5", 64), ("0", 1), ("-3", 1), ("²", 64)):
        bare.setenv("SELFEXPLAIN_CACHE_MB", raw)
        assert settings.cache_mb() == value
    from selfexplain.support.byte_cache import cache_budget_bytes

    bare.setenv("SELFEXPLAIN_CACHE_MB", "3")
    assert cache_budget_bytes() == 3 * 2**20


def test_app_defaults_leave_the_operators_choice(bare: pytest.MonkeyPatch) -> None:
    settings.apply_app_defaults()
    assert settings.restrict_models() is True and settings.hub() is False
    bare.setenv("SELFEXPLAIN_RESTRICT_MODELS", "0")
    bare.setenv("SELFEXPLAIN_HUB", "1")
    settings.apply_app_defaults()
    assert settings.restrict_models() is False and settings.hub() is True


def test_every_reader_goes_through_the_accessors(bare: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The modules that used to read the environment themselves see a change at once (nothing cached)."""
    from selfexplain.core.modeling.model_folders import models_folders, restricted
    from selfexplain.core.modeling.native_cache import cache_root
    from selfexplain.core.modeling.native_spans import fusion_allowed
    from selfexplain.gallery.location import database_url, gallery_home
    from selfexplain.support.limits import max_input_chars

    bare.setenv("SELFEXPLAIN_MAX_CHARS", "12")
    bare.setenv("SELFEXPLAIN_MODELS_DIR", str(tmp_path))
    bare.setenv("SELFEXPLAIN_RESTRICT_MODELS", "yes")
    bare.setenv("SELFEXPLAIN_FUSED", "0")
    bare.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "c"))
    bare.setenv("SELFEXPLAIN_HOME", str(tmp_path / "h"))
    bare.setenv("SELFEXPLAIN_DB_URL", "sqlite://")
    assert max_input_chars() == 12
    assert models_folders()[0] == tmp_path and restricted()
    assert not fusion_allowed()
    assert cache_root() == tmp_path / "c" / "native"
    assert gallery_home() == tmp_path / "h" and database_url() == "sqlite://"


def sources() -> list[Path]:
    return [
        ROOT / "app.py",
        ROOT / "serve.py",
        *sorted((ROOT / "selfexplain").rglob("*.py")),
        *sorted((ROOT / "pages").rglob("*.py")),
    ]


def is_environment(node: ast.AST) -> bool:
    """``os.environ``, ``os.getenv``, or ``environ`` / ``getenv`` imported from os."""
    if isinstance(node, ast.Attribute):
        return node.attr in ("environ", "getenv") and isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id in ("environ", "getenv")


def setting_reads(source: str) -> list[int]:
    """Lines where ``source`` touches the environment with a SELFEXPLAIN_ name: a literal, or a constant
    that holds one (defined in the file or in selfexplain.settings), anywhere in the expression around
    the ``os.environ`` / ``os.getenv`` use."""
    tree = ast.parse(source)
    constants = {name for name, value in vars(settings).items() if isinstance(value, str) and "SELFEXPLAIN_" in value}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str) and node.value.value.startswith("SELFEXPLAIN_"):
                constants |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found = []
    for node in ast.walk(tree):
        if not is_environment(node):
            continue
        expression = node  # the whole expression around it, up to its statement
        while not isinstance(parents.get(expression), (ast.stmt, type(None))):
            expression = parents[expression]
        statement = parents.get(expression)
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            expression = statement  # os.environ[NAME] = value: the name is in the target
        for part in ast.walk(expression):
            literal = isinstance(part, ast.Constant) and isinstance(part.value, str) and "SELFEXPLAIN_" in part.value
            if literal or (isinstance(part, ast.Name) and part.id in constants):
                found.append(node.lineno)
                break
    return found


def test_the_scan_finds_reads() -> None:
    for source in (
        'import os\nx = os.environ.get("SELFEXPLAIN_HUB", "1")',
        'import os\nNAME = "SELFEXPLAIN_X"\nx = os.environ.get(NAME, "").strip()',
        'import os\nif "SELFEXPLAIN_FUSED" in os.environ:\n    pass',
        'from os import getenv\nx = getenv("SELFEXPLAIN_HOME")',
        'import os\nos.environ["SELFEXPLAIN_MAX_CHARS"] = "3"',
        "import os\nx = os.environ[MAX_CHARS_VARIABLE]",
    ):
        assert setting_reads(source) != [], source
    assert setting_reads('import os\nx = os.environ.get("CC")') == []


def test_no_module_but_settings_reads_a_setting() -> None:
    offenders = {
        str(path.relative_to(ROOT)): lines
        for path in sources()
        if path != ROOT / "selfexplain" / "settings.py" and (lines := setting_reads(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}, f"read SELFEXPLAIN_ settings through selfexplain.settings: {offenders}"


def test_readme_table_lists_every_setting() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Settings") :]
    rows = re.findall(r"^\| `(SELFEXPLAIN_[A-Z_]+)` \|", table, flags=re.MULTILINE)
    assert sorted(rows) == sorted(VARIABLES + TEST_ONLY)
    named = set(re.findall(r"SELFEXPLAIN_[A-Z_]+", (ROOT / "selfexplain" / "settings.py").read_text(encoding="utf-8")))
    assert named == set(VARIABLES + TEST_ONLY)


PROBE = """
import importlib, os, pkgutil, sys
before = dict(os.environ)
import pages.ui
if dict(os.environ) != before:
    sys.exit("importing pages.ui changed os.environ")
import pages.parts
for package in (pages.ui, pages.parts):
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
names = {k for k in set(before) | set(os.environ) if k.startswith("SELFEXPLAIN_")}
changed = sorted(k for k in names if before.get(k) != os.environ.get(k))
if changed:
    sys.exit(f"importing the pages' helpers changed {changed}")
print("unchanged")
"""


@pytest.mark.slow
def test_importing_the_pages_helpers_changes_no_setting() -> None:
    """Run in a fresh interpreter: the test process has imported them already. Third-party libraries the
    helpers import (torch, matplotlib) set variables of their own; no SELFEXPLAIN_ one may change."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFEXPLAIN_")}
    shown = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert shown.stdout.strip().endswith("unchanged")
