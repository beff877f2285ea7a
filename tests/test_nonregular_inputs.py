"""A fifo or a device where opgen reads a spec or a record file is refused by its type (exit 2, one message),
never opened for a read that blocks; a spec read through /dev (stdin) never gets its record written there.
Each run is a real process with a timeout: a run that blocks fails the test instead of hanging it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GELU, GELU_DIR, snapshot

ROOT = Path(__file__).resolve().parent.parent


def _opgen(*args: str | Path, stdin: int | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPGEN_RECORD_DIR"}  # records beside the spec
    return subprocess.run([sys.executable, "-m", "opgen", *map(str, args)], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT)}, stdin=stdin, cwd=cwd, timeout=60, check=False)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """specs/gelu_grad.yaml generated into out/, its record in specs/.opgen (copied by each test)."""
    base = tmp_path_factory.mktemp("generated")
    (base / "specs").mkdir()
    shutil.copy(GELU, base / "specs")
    assert _opgen("gen", base / "specs/gelu_grad.yaml", "-o", base / "out").returncode == 0
    return base


@pytest.fixture
def work(generated: Path, tmp_path: Path) -> Path:
    shutil.copytree(generated, tmp_path / "w", symlinks=True)
    return tmp_path / "w"


@pytest.mark.parametrize("args", [("regen",), ("regen", "--dry-run"), ("gen", "--force"), ("gen",)])
def test_a_fifo_for_the_manifest_is_a_damaged_record(work: Path, args: tuple[str, ...]) -> None:
    record = work / "specs/.opgen" / GELU_DIR
    (record / "manifest.json").unlink()
    os.mkfifo(record / "manifest.json")
    out = work / ("fresh" if args == ("gen",) else "out")  # plain gen refuses an existing op dir before reading
    before = snapshot(work)
    result = _opgen(*args, work / "specs/gelu_grad.yaml", "-o", out)
    assert result.returncode == 2, result.stderr
    assert f"damaged record: {record / 'manifest.json'} is a fifo" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert snapshot(work) == before and (record / "manifest.json").is_fifo() and not (work / "fresh").exists()


@pytest.mark.parametrize("rel", ["spec.yaml", "pristine/op_host/gelu_grad_def.cpp"])
def test_a_fifo_among_the_record_files_is_never_read(work: Path, rel: str) -> None:
    path = work / "specs/.opgen" / GELU_DIR / rel
    path.unlink()
    os.mkfifo(path)
    result = _opgen("regen", "--dry-run", work / "specs/gelu_grad.yaml", "-o", work / "out")
    if rel == "spec.yaml":  # the record's spec copy is not needed to merge: the dry run goes on
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 2 and "has a damaged record" in result.stderr, result.stderr


def test_a_fifo_as_the_spec_is_refused_by_its_type(work: Path) -> None:
    os.mkfifo(work / "pipe.yaml")
    result = _opgen("gen", work / "pipe.yaml", "-o", work / "fresh")
    assert result.returncode == 2
    assert "pipe.yaml: the spec is a fifo (named pipe), not a regular file" in result.stderr
    assert "cat > op.yaml" in result.stderr and not (work / "fresh").exists()


def test_a_spec_from_stdin_never_puts_its_record_in_dev(work: Path) -> None:
    spec = work / "specs/gelu_grad.yaml"
    with spec.open("rb") as redirected:  # `opgen gen /dev/stdin < gelu_grad.yaml`
        result = _opgen("gen", "/dev/stdin", "-o", work / "fresh", stdin=redirected.fileno())
    assert result.returncode == 2
    assert "/dev/stdin: the spec is read through /dev" in result.stderr and "--record-dir" in result.stderr
    assert not (work / "fresh").exists() and not Path("/dev/.opgen").exists()
    with spec.open("rb") as redirected:
        result = _opgen("gen", "/dev/stdin", "-o", work / "fresh", "--record-dir", work / "records",
                        stdin=redirected.fileno())
    assert result.returncode == 0, result.stderr
    assert (work / "records" / GELU_DIR / "manifest.json").is_file() and (work / "fresh" / GELU_DIR).is_dir()
    piped = subprocess.Popen(["cat", str(spec)], stdout=subprocess.PIPE)  # `cat gelu_grad.yaml | opgen gen ...`
    assert piped.stdout is not None
    result = _opgen("gen", "/dev/stdin", "-o", work / "piped", "--record-dir", work / "records2",
                    stdin=piped.stdout.fileno())
    piped.stdout.close()
    piped.wait()
    assert result.returncode == 2 and "/dev/stdin: the spec is a fifo (named pipe)" in result.stderr
    assert not (work / "piped").exists() and not (work / "records2").exists()
