"""ops-nn's own UT entry, `build.sh -u --ophost`, `--opapi` or `--opkernel`, run on a scratch git copy of the sources'
ops-nn against the prefix: a generated op is placed where ops-nn's cmake scans (validate's placement, restored after),
and the gtest counts are read from the log. The users' checkouts are never touched.

A passing run is remembered under the prefix (keyed by the sources and the prefix): upstream's op_host and op_api runs
by op and SoC, a tree's by the content of every file its kind of build reads (`_tree_memo`), so a check of the same
files, or of a kernel fault for the op_host and op_api builds, gives that run's answer without building again."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from .. import progress
from ..cann_sources import CannSources
from ..check.bounded import run_bounded
from ..jobs import JOBS
from ..locks import try_lock
from ..validate.checkout import open_checkout
from ..validate.errors_map import PathMapper, first_error
from ..validate.opinfo import read_op_info
from ..validate.placement import placed, plan_placement
from . import workspace
from .build import Prefix
from .framework import HOST_READ_KERNEL_HEADERS

TIMEOUT = 3600.0
UPSTREAM_RUNS = "upstream-runs"
TREE_RUNS = "tree-runs"
TREE_RUNS_FORMAT = "1"  # bump when how build.sh is run changes: remembered tree runs are run again
_UNREAD_TOPS = ("docs", "examples", ".opgen")
SCRATCH = "scratch"  # <prefix>/scratch/<n>/: one workspace per run at once (scratch_slot)
LAST_OP = "last_op"
_STAMP = r"^(?:\[\d{4}-\d\d-\d\d [\d:]+\] )?"  # build.sh stamps each line it relays
_RAN = re.compile(_STAMP + r"\[==========\] (\d+) tests? from \d+ test (?:suites?|cases?) ran", re.M)
_PASSED = re.compile(_STAMP + r"\[  PASSED  \] (\d+) tests?", re.M)
_FAILED_NAME = re.compile(_STAMP + r"\[  FAILED  \] (\S+?\.\S+?)(?:, where|$)", re.M)
UtKind = Literal["ophost", "opapi", "opkernel"]  # build.sh's selector
# ops-nn's name for each kind: its UT dir is tests/ut/<name>, the exe build.sh builds and runs nn_<name>_ut (the kernel
# UT's with the SoC appended)
UT_NAMES: dict[UtKind, str] = {"ophost": "op_host", "opapi": "op_api", "opkernel": "op_kernel"}


@dataclass(frozen=True)
class UtRun:
    kind: UtKind
    op: str
    soc: str
    returncode: int
    ran: int
    passed: int
    failed: tuple[str, ...]  # the failing tests' names, each once
    seconds: float
    log: Path
    error: str = ""  # the log's first error, at the op's own file and line where it is in the op
    cached: bool = False  # a passing run remembered for this prefix (_upstream_memo, _tree_memo), not run again

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.ran > 0 and self.passed == self.ran and not self.failed


def gtest_counts(text: str) -> tuple[int, int, tuple[str, ...]]:
    """(tests ran, tests passed, failing test names) summed over every gtest run in a log."""
    ran = sum(int(n) for n in _RAN.findall(text))
    passed = sum(int(n) for n in _PASSED.findall(text))
    failed = tuple(dict.fromkeys(_FAILED_NAME.findall(text)))
    return ran, passed, failed


def run_ut(prefix: Prefix, sources: CannSources, *, kind: UtKind, op: str, soc: str, op_dir: Path | None = None,
           experimental: bool = False, rel_dir: str | None = None, jobs: int = JOBS,
           env: Mapping[str, str] | None = None) -> UtRun:
    """`build.sh -u --<kind> --ops=<op> --soc=<soc>` in the scratch copy, with `op_dir` (a generated op)
    placed over upstream's op of that name for the run, or upstream's own op when `op_dir` is None. `rel_dir`: where
    the op's spec puts it in ops-nn (`[experimental/]<category>/<op>`), which decides `--experimental`; without it,
    `experimental` does for upstream's op, and the op's record or else its path for `op_dir`. `env`: more for
    build.sh's environment (the kernel UTs' tikicpulib stand-in)."""
    if rel_dir is not None:
        experimental = Path(rel_dir).parts[0] == "experimental"
    placed_at = None if op_dir is None else Path(rel_dir) if rel_dir is not None else read_op_info(op_dir).rel_dir
    memo = _upstream_memo(prefix, kind, op, soc, experimental) if op_dir is None or placed_at is None else \
        _tree_memo(prefix, kind, soc, op_dir, placed_at, env or {})
    if memo is not None and memo.is_file():
        return _remembered(memo)
    whose = f"{op} upstream" if op_dir is None else op
    with scratch_slot(prefix, op) as scratch, progress.step(f"{whose}: build.sh -u --{kind} --soc={soc}"):
        ops_nn = workspace.make_workspace(sources.root, scratch)
        log = scratch / f"ut_{kind}_{op}_{soc}{'_upstream' if op_dir is None else ''}.log"  # both runs' logs kept
        if op_dir is None or placed_at is None:
            run = _run(prefix, ops_nn, kind, op, soc, experimental, jobs, log, env or {})
            if memo is not None and run.ok:
                _remember(memo, run)
            return run
        placement = plan_placement(open_checkout(ops_nn), placed_at, op_dir, force=True)
        with placed(placement, keep=False):
            run = _run(prefix, ops_nn, kind, placed_at.name, soc, placed_at.parts[0] == "experimental", jobs, log,
                       env or {})
        if memo is not None and run.ok:
            _remember(memo, run)
    if run.ok:
        return run
    found = first_error(log.read_text(encoding="utf-8", errors="replace").splitlines(), 1,
                        PathMapper(ops_nn, placement.target, op_dir))
    if found is None:
        return run
    where = found.op_file.relative_to(op_dir).as_posix() if found.op_file else found.file
    at = f"{where}:{found.line}: " if where and found.line else ""
    return replace(run, error=f"{at}{found.message}")


def _upstream_memo(prefix: Prefix, kind: UtKind, op: str, soc: str, experimental: bool) -> Path | None:
    """Where upstream's passing op_host / op_api run is remembered: the sanity rows depend only on the sources and
    the prefix (whose dir is keyed by both), so a warm check does not rebuild and rerun them. Kernel UTs are not
    remembered: their tikicpulib stand-in changes apart from the prefix."""
    if kind == "opkernel":
        return None
    return prefix.root / UPSTREAM_RUNS / f"{kind}-{op}-{soc}{'-experimental' if experimental else ''}.json"


def _tree_memo(prefix: Prefix, kind: UtKind, soc: str, op_dir: Path, placed_at: Path,
               env: Mapping[str, str]) -> Path:
    """Where a tree's passing run is remembered: keyed by where it is placed, the SoC, build.sh's extra environment
    (the kernel UTs' tikicpulib stand-in) and every file of the tree the kind's build may read."""
    digest = hashlib.sha256("\0".join([TREE_RUNS_FORMAT, kind, soc, placed_at.as_posix(),
                                       *sorted(f"{k}={v}" for k, v in env.items())]).encode())
    for path in sorted(op_dir.rglob("*")):
        rel = path.relative_to(op_dir)
        if path.is_file() and _read_by(kind, rel):
            digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return prefix.root / TREE_RUNS / f"{kind}-{placed_at.name}-{soc}-{digest.hexdigest()[:24]}.json"


def _read_by(kind: UtKind, rel: Path) -> bool:
    if rel.parts[0] in _UNREAD_TOPS:
        return False
    if kind == "opkernel":
        return True
    # op_host and op_api builds read neither the kernel sources (but the headers the host includes) nor the kernel UTs
    kernel_source = rel.parts[0] == "op_kernel" and not HOST_READ_KERNEL_HEADERS.search(rel.name)
    return not kernel_source and rel.parts[:3] != ("tests", "ut", "op_kernel")


def _remember(memo: Path, run: UtRun) -> None:
    memo.parent.mkdir(parents=True, exist_ok=True)
    log = memo.with_suffix(".log")
    shutil.copyfile(run.log, log)
    fields = {**asdict(run), "log": str(log), "failed": list(run.failed)}
    part = memo.with_name(f"{memo.name}.part{os.getpid()}")
    part.write_text(json.dumps(fields), encoding="utf-8")
    part.rename(memo)


def _remembered(memo: Path) -> UtRun:
    fields = json.loads(memo.read_text(encoding="utf-8"))
    return UtRun(**{**fields, "log": Path(fields["log"]), "failed": tuple(fields["failed"]), "cached": True,
                    "seconds": 0.0})


@contextmanager
def scratch_slot(prefix: Prefix, op: str) -> Iterator[Path]:
    """A scratch workspace dir no other run is using, held for the block: checks of different ops run build.sh at
    once, each in its own copy, instead of queueing on one. The slot `op` used last comes first (its build dir has
    the op's objects), then any free one; a new slot (a fresh copy of ops-nn) only when every one is busy."""
    base = prefix.root / SCRATCH
    base.mkdir(parents=True, exist_ok=True)
    known = sorted(int(p.name) for p in base.iterdir() if p.is_dir() and p.name.isdigit())
    preferred = sorted(known, key=lambda n: (_last_op(base / str(n)) != op, n))
    for number in itertools.chain(preferred, (n for n in itertools.count() if n not in known)):
        handle = try_lock(base / f"{number}.lock")
        if handle is None:
            continue
        with handle:
            slot = base / str(number)
            slot.mkdir(exist_ok=True)
            (slot / LAST_OP).write_text(op + "\n", encoding="utf-8")
            yield slot
        return


def _last_op(slot: Path) -> str:
    try:
        return (slot / LAST_OP).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def _freshen(ops_nn: Path, kind: UtKind, op: str) -> None:
    """Make sees a placed or restored op by mtime, and both keep their old ones: touch the op's files so
    its objects are rebuilt, and drop the UT exe so it is relinked and run (its post-build step runs it)."""
    for op_dir in (*ops_nn.glob(f"*/{op}"), *ops_nn.glob(f"experimental/*/{op}")):
        for path in op_dir.rglob("*"):
            if path.is_file():
                path.touch()
    for exe in (ops_nn / "build").rglob(f"nn_{UT_NAMES[kind]}_ut*"):
        if exe.is_file():
            exe.unlink()


def _run(prefix: Prefix, ops_nn: Path, kind: UtKind, op: str, soc: str, experimental: bool, jobs: int,
         log: Path, extra_env: Mapping[str, str]) -> UtRun:
    _freshen(ops_nn, kind, op)
    argv = ["nice", "-n", "10", "bash", "build.sh", "-u", f"--{kind}", f"--ops={op}", f"--soc={soc}",
            *(["--experimental"] if experimental else []), f"-j{jobs}", *prefix.build_sh_flags]
    env = {**os.environ, **prefix.build_sh_env(), **extra_env}
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as out:
        out.write("$ " + " ".join(argv) + "\n")
        out.flush()
        done = run_bounded(argv, timeout=TIMEOUT, cwd=ops_nn, env=env, output=out)
    if done.timed_out:
        raise subprocess.TimeoutExpired(argv, TIMEOUT)
    seconds = time.perf_counter() - start
    ran, passed, failed = gtest_counts(log.read_text(encoding="utf-8", errors="replace"))
    return UtRun(kind, op, soc, done.returncode, ran, passed, failed, seconds, log)
