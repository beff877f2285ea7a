"""The README's first lines: the two commands a newcomer runs stay true (the specs exist and render; the test
command is the one CI runs)."""

from __future__ import annotations

import shlex
from pathlib import Path

from conftest import ROOT


def _first_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_two_commands_open_the_readme() -> None:
    install, tests = _first_block()
    assert "pip install -e '.[check]'" in install and "opgen gen" in install
    assert tests.endswith("python -m pytest")
    assert "python -m pytest" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_first_command_renders_the_samples_it_names(run, tmp_path: Path) -> None:
    install, _ = _first_block()
    words = shlex.split(install.split("&&")[-1])
    assert words[:2] == ["opgen", "gen"]
    specs = [w for w in words[2:] if not w.startswith("-")]
    assert specs and all((ROOT / s).is_file() for s in specs)
    result = run("gen", *(ROOT / s for s in specs), "-o", tmp_path / "out", "--record-dir", tmp_path / "record")
    assert result.code == 0, result.err
    assert len(list((tmp_path / "out").rglob("*_def.cpp"))) == len(specs)
