"""Sample trees generated once per session, copied (mtimes kept) into each test's tmp dir."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from opgen.generate import render_specs, write_ops
from opgen.record import RECORD_DIR

from .support import SCHEMAS, without_ascend350, without_bf16

SPEC_NAMES = {"gelu": "gelu_grad.yaml", "relu": "relu_grad_v2.yaml"}
# template name -> (spec key, edit of the spec it is generated from)
TEMPLATES: dict[str, list[tuple[str, Callable[[str], str] | None]]] = {
    "samples": [("gelu", None), ("relu", None)],
    "gelu_nobf": [("gelu", without_bf16)],
    "relu_no350": [("relu", without_ascend350)],
}


def write_spec(directory: Path, key: str, edit: Callable[[str], str] | None = None) -> Path:
    """A copy of a sample spec under its own name (the record remembers the spec file name)."""
    directory.mkdir(parents=True, exist_ok=True)
    text = (SCHEMAS / SPEC_NAMES[key]).read_text(encoding="utf-8")
    path = directory / SPEC_NAMES[key]
    path.write_text(edit(text) if edit else text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _records_beside_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regen tests keep records where opgen puts them by default: beside each spec (tmp/specs/.opgen)."""
    monkeypatch.delenv("OPGEN_RECORD_DIR", raising=False)


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    roots = {}
    for name, specs in TEMPLATES.items():
        base = tmp_path_factory.mktemp(name)
        paths = [write_spec(base / "specs", key, edit) for key, edit in specs]
        write_ops(base / "out", render_specs(paths), force=False)
        roots[name] = base / "out"
    return roots


@pytest.fixture
def tree(tmp_path: Path, templates: dict[str, Path]) -> Callable[[str], Path]:
    """A private copy of a template output root, and of the records beside its specs (tmp/specs/.opgen):
    the output root and the spec dir keep their relative places, so the records still name the copies."""

    def copy(name: str) -> Path:
        root = tmp_path / "out"
        shutil.copytree(templates[name], root)
        shutil.copytree(templates[name].parent / "specs" / RECORD_DIR, tmp_path / "specs" / RECORD_DIR)
        return root

    return copy


@pytest.fixture
def spec(tmp_path: Path) -> Callable[..., Path]:
    """`spec("gelu", edit)`: the sample spec copied to tmp (optionally edited), ready to regen from."""

    def make(key: str, edit: Callable[[str], str] | None = None) -> Path:
        return write_spec(tmp_path / "specs", key, edit)

    return make
