"""`schema -o FILE` and `import -o FILE` put their file in place whole or not at all: a write that fails half
way (a full disk, a file size limit) leaves the old file as it was, or no file, never a truncated prefix."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OP_DIR = ROOT / "generated_samples/activation/softsign_grad"
LIMIT = 1000  # bytes a file may grow to in the run below: less than the schema and an imported spec


def _run_limited(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`opgen ARGS` in a process whose files cannot grow past LIMIT bytes: its write fails part way, as on a
    full disk (EFBIG instead of ENOSPC)."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "opgen", *map(str, args)], capture_output=True, text=True,
                          env=env, preexec_fn=limit, timeout=120, check=False)


def test_schema_write_failing_half_way_keeps_the_old_file(tmp_path: Path) -> None:
    committed = tmp_path / "opspec.schema.json"
    committed.write_text('{"old": "schema"}\n')
    result = _run_limited("schema", "-o", committed)
    assert result.returncode == 2, result.stderr
    assert "File too large" in result.stderr and "Traceback" not in result.stderr
    assert committed.read_text() == '{"old": "schema"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opspec.schema.json"]  # no temp file left


def test_import_write_failing_half_way_leaves_no_file_and_the_retry_works(tmp_path: Path) -> None:
    spec = tmp_path / "softsign_grad.yaml"
    result = _run_limited("import", OP_DIR, "-o", spec)
    assert result.returncode == 2, result.stderr
    assert "File too large" in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # no 0-byte spec that the retry would refuse
    retry = subprocess.run([sys.executable, "-m", "opgen", "import", str(OP_DIR), "-o", str(spec)],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert retry.returncode == 0, retry.stderr
    assert spec.read_text().startswith("op_type: SoftsignGrad\n")


def test_schema_refuses_to_write_over_a_dir_or_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("mine\n")
    (tmp_path / "link.json").symlink_to(target)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args, why in ((("schema", "-o", tmp_path), "is not a regular file"),
                      (("schema", "-o", tmp_path / "link.json"), "is a symlink")):
        result = subprocess.run([sys.executable, "-m", "opgen", *map(str, args)], capture_output=True, text=True,
                                env=env, check=False)
        assert result.returncode == 2 and why in result.stderr, result.stderr
    assert target.read_text() == "mine\n" and (tmp_path / "link.json").is_symlink()
