"""`opgen prepare`: says up front what it will build and about how long, builds the prefix and the CPU model for the
arches of the ops named (the bundled samples' by default), and is one clear message, exit 2, on bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from opgen.cann_prefix import build, layout
from opgen.cann_sources import CannSources
from opgen.check.kernel import run_build, tikicpulib
from opgen.prepare import prepare_cache

ROOT = Path(__file__).resolve().parents[1]


def _prepare(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opgen", "prepare", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **env}, check=False)


def test_without_sources_it_says_how_to_name_them(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "OPGEN_CANN_SRC"}
    done = subprocess.run([sys.executable, "-m", "opgen", "prepare"], cwd=ROOT, capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 2
    assert "pass --cann-src DIR or set OPGEN_CANN_SRC" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_repos_are_named_before_anything_is_built(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "ops-nn").mkdir(parents=True)
    done = _prepare("--cann-src", str(src), env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "OPGEN_CACHE": ""})
    assert done.returncode == 2
    assert "git clone" in done.stderr and "metadef" in done.stderr
    assert not (tmp_path / "cache").exists()


def _fake_sources(root: Path) -> CannSources:
    for name, marker in layout.PREFIX_SOURCES.items():
        (root / name / marker).parent.mkdir(parents=True, exist_ok=True)
        (root / name / marker).touch()
    return CannSources("src", root, "test")


def test_it_announces_then_builds_the_prefix_and_each_arch_of_the_samples(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The builds themselves are stubbed (a cold prefix takes 6-10 min): what prepare asks for, and says, is real."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("OPGEN_CACHE", "")
    asked: list[str] = []

    def fake_prefix(sources: CannSources, cache: Path, jobs: int = 2) -> build.Prefix:
        asked.append("prefix")
        return build.Prefix(cache / "prefix", 12.0)

    def fake_runtime(sources: CannSources, variant: run_build.KernelVariant, op_dir: Path) -> Path:
        asked.append(f"runtime {variant.arch.npu_arch}")
        return tmp_path / "runtime.o"

    def fake_tikicpulib(sources: CannSources, socs: dict[str, object], c_sec: Path) -> Path:
        asked.append(f"tikicpulib {','.join(sorted(socs))}")
        return tmp_path / "targets.cmake"

    monkeypatch.setattr(build, "build_prefix", fake_prefix)
    monkeypatch.setattr(run_build, "runtime_object", fake_runtime)
    monkeypatch.setattr(tikicpulib, "prepare", fake_tikicpulib)
    prepare_cache(_fake_sources(tmp_path / "src"), [])
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("opgen: will build the toolkit-shaped prefix at ")
    assert "about 6-10 min on 2 otherwise idle cores" in lines[0]
    assert lines[1].startswith("opgen: will build opgen's CPU model for arch ")
    arches = sorted(a.split()[1] for a in asked if a.startswith("runtime"))
    assert asked[0] == "prefix" and len(arches) >= 2 and all(f" {arch}" in lines[1] for arch in arches)
    assert any(a.startswith("tikicpulib ") for a in asked)
    assert lines[-1].startswith("opgen: prepared: ")
