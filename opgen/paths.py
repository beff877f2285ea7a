"""Locations of the files opgen ships beside its package."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BLUEPRINTS = PROJECT_ROOT / "blueprints"
CLANG_FORMAT_STYLE = BLUEPRINTS / "clang-format.yaml"
