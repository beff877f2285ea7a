"""Locations of the files opgen ships beside its code: the blueprints and the sample specs.

An installed opgen carries them inside the package (`opgen/_blueprints`, `opgen/_schemas`, mapped from the
checkout's `blueprints/` and `schemas/` by pyproject.toml); a checkout (or an editable install) uses those
dirs themselves.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE.parent


def _shipped(packaged: str, in_checkout: str) -> Path:
    inside = PACKAGE / packaged
    return inside if inside.is_dir() else PROJECT_ROOT / in_checkout


BLUEPRINTS = _shipped("_blueprints", "blueprints")
SAMPLE_SPECS = _shipped("_schemas", "schemas")
CLANG_FORMAT_STYLE = BLUEPRINTS / "clang-format.yaml"
