"""What an installed opgen needs beyond its modules, and what the repository ships for pre-commit."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent


def test_every_opgen_package_is_listed_for_installation() -> None:
    """pyproject lists packages explicitly (the blueprints are mapped in as a package): a new subpackage
    missing from that list would be absent from a non-editable install."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "opgen").rglob("__init__.py")}
    assert on_disk <= set(config["packages"])
    assert config["package-dir"] == {"opgen._blueprints": "blueprints", "opgen._schemas": "schemas"}


def test_pre_commit_hook_asks_the_non_destructive_question() -> None:
    [hook] = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["entry"] == "opgen gen --check"  # up to date, hand edits allowed; never --force
    assert hook["language"] == "python"


def test_version_option_prints_the_package_version(run) -> None:
    from opgen import __version__

    result = run("--version")
    assert result.code == 0
    assert result.out == f"opgen {__version__}\n"
