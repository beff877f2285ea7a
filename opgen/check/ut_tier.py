"""ut tier: the op's generated UTs against ops-nn's own UT framework, built from the open CANN sources.

op_host UTs (infershape + tiling): ops-nn builds one executable per compute unit (`build.sh -u --ophost
--soc=X`); so does this tier. It compiles the op's host sources (def, infershape, tiling, plus each SoC's
tiling dir such as `op_host/arch35`) and the UTs under `tests/ut/op_host` (plus the same sub-dirs) once, and
ops-nn's `tiling_case_executor.cpp` once per SoC with that SoC baked in; per SoC it links them against the
cached framework (`ophost_ut_framework`) and, only with `--allow-exec`, runs the executable through
`run_tree_code`.
op_api UTs compile with `-fsyntax-only` against `tests/ut/op_api/op_api_ut_common`; kernel UTs are not
built here (they need the kernel tier's CPU stand-ins).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..cann_sources import CannSources, enable_hint
from ..errors import OpgenError
from ..plan import RenderPlan
from ..spec.socs import SOCS
from .headers import compile_command, inside_op_dir, op_relative
from .items import CheckItem, bad, ok, skipped
from .ophost_build import OphostBuild, executor_socs, gxx_error, ophost_sources
from .ophost_ut_framework import TILING_EXECUTOR, build_framework
from .trust import Trust, run_tree_code

TIER = "ut"
RUN_TIMEOUT = 300.0
_FAILURE_AT = re.compile(r"^(?P<where>[^\s:]+):(?P<line>\d+)(?:: Failure)?", re.M)


def ut_tier(op_dir: Path, plan: RenderPlan, sources: CannSources | None, trust: Trust,
            *, jobs: int = 2) -> list[CheckItem]:
    if sources is None:
        return [skipped("op_host UTs", enable_hint(TIER))]
    if sources.kind == "toolkit":
        return [skipped("op_host UTs", "the ut tier builds from the open sources (--cann-src); a toolkit's "
                                       "prebuilt libraries are not linked here")]
    missing = sources.missing("ut")
    if missing:
        return [skipped("op_host UTs", "missing CANN sources: " + "; ".join(missing))]
    for tool in ("g++", "gcc", "ar", "protoc"):
        if shutil.which(tool) is None:
            return [skipped("op_host UTs", f"{tool} not found on PATH (Debian: apt-get install g++ "
                                           "protobuf-compiler libprotobuf-dev)")]
    op_dir = op_dir.resolve()
    try:
        framework = build_framework(sources, jobs=jobs)
    except OpgenError as error:
        return [bad("op_host UT framework", str(error))]
    how = f"built in {framework.seconds:.0f}s" if framework.seconds else "cached"
    items = [ok("op_host UT framework", f"{how} at {framework.root}", seconds=round(framework.seconds, 1))]
    executor_source = sources.repo("ops-nn") / "tests/ut/common" / TILING_EXECUTOR
    known = executor_socs(executor_source)
    runnable = [soc.name for soc in plan.socs if soc.name in known]
    items += [skipped(f"op_host UTs ({soc.name})", f"ops-nn's {TILING_EXECUTOR} knows no {soc.name}: no "
                                                   "platform to run its tiling on")
              for soc in plan.socs if soc.name not in known]
    with tempfile.TemporaryDirectory(prefix="opgen-ut-") as scratch:
        build = OphostBuild(op_dir, framework, executor_source, Path(scratch), jobs)
        items += build.compile_all(runnable)
        for soc in runnable:
            others = [t.suite for t in plan.ophost_ut.tiling_suites if t.soc != soc]
            items += _link_and_run(build, soc, others, trust)
        items += _op_api_syntax(op_dir, sources, jobs)
    items.append(skipped("kernel UTs", "not built by the ut tier: they need tikicpulib or the kernel tier's "
                                       "CPU stand-ins (see the kernel tier)"))
    return items


def _link_and_run(build: OphostBuild, soc: str, other_suites: Sequence[str], trust: Trust) -> list[CheckItem]:
    """Link (and, trusted, run) one SoC's executable; the op's other SoCs' tiling suites are filtered
    out, as their expectations are for another platform."""
    if not ophost_sources(build.op_dir, SOCS[soc].arch)[1]:
        return [skipped(f"op_host UTs ({soc})", "no tests/ut/op_host/test_*_{tiling,infershape}.cpp")]
    keys = build.keys(soc, tests=True)
    exe, problem = build.link(keys, f"ophost_ut_{soc}")
    if exe is None:
        if problem.startswith("not linked"):
            return [skipped(f"op_host UTs run ({soc})", problem)]
        return [bad(f"op_host UT link ({soc})", problem)]
    items = [ok(f"op_host UT link ({soc})", f"{len(keys) - 1} op and UT objects against the framework")]
    if not trust.allow_exec:
        items.append(skipped(f"op_host UTs run ({soc})", trust.refusal(f"the op_host UT executable ({soc})")))
    else:
        items.append(_run(exe, build.op_dir, soc, other_suites, build.work))
    return items


def _run(exe: Path, op_dir: Path, soc: str, other_suites: Sequence[str], work: Path) -> CheckItem:
    report = work / "gtest.json"
    command = [str(exe), f"--gtest_output=json:{report}"]
    if other_suites:
        command.append("--gtest_filter=-" + ":".join(f"{suite}.*" for suite in other_suites))
    done = run_tree_code(command, timeout=RUN_TIMEOUT)
    label = f"op_host UTs run ({soc})"
    if done.timed_out:
        return bad(label, f"the UT executable ran longer than {RUN_TIMEOUT:.0f}s")
    if not report.is_file():
        tail = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        return bad(label, f"the UT executable ended (exit {done.returncode}) before reporting: {tail}")
    results = json.loads(report.read_text(encoding="utf-8"))
    total = int(results.get("tests", 0))
    failed = int(results.get("failures", 0))
    problems = [_failure(case, suite["name"], op_dir) for suite in results.get("testsuites", [])
                for case in suite.get("testsuite", []) if case.get("failures")]
    figures = {"tests": total, "passed": total - failed, "failed": failed}
    if problems or done.returncode != 0:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        return bad(label, shown or f"exit code {done.returncode}", **figures)
    if total == 0:
        return bad(label, "the executable ran no test", **figures)
    return ok(label, f"{total} tests passed", **figures)


def _failure(case: dict[str, object], suite: str, op_dir: Path) -> str:
    """`file:line: Suite.case: message`: where the failed assertion is when it is in the op's UT, else the
    line of the op's test case (ExecuteTestCase asserts inside ops-nn's executor) with the assertion's place."""
    failures = case.get("failures")
    text = str(failures[0].get("failure", "")) if isinstance(failures, list) and failures else ""
    message = " ".join(line.strip() for line in text.splitlines()[1:] if line.strip())[:400]
    where = _FAILURE_AT.search(text)
    name = f"{suite}.{case.get('name')}"
    if where is not None and inside_op_dir(where.group("where"), op_dir):
        return f"{op_relative(where.group('where'), op_dir)}:{where.group('line')}: {name}: {message}"
    asserted = f" (at {Path(where.group('where')).name}:{where.group('line')})" if where is not None else ""
    if isinstance(case.get("file"), str) and case.get("line"):
        return f"{op_relative(str(case['file']), op_dir)}:{case['line']}: {name}: {message}{asserted}"
    return f"{name}: {message or 'failed'}{asserted}"


def op_api_ut_dirs(sources: CannSources) -> list[Path]:
    """Include dirs of ops-nn's op_api UT target: its stub dir first (opdev/platform.h with SocVersionManager),
    then the UT framework, googletest and the real op_api headers."""
    common = sources.repo("ops-nn") / "tests/ut/op_api"
    return [common / "stub", common / "op_api_ut_common/inc", common,
            sources.repo("googletest") / "googletest/include", *sources.host_include_dirs(op_api=True)]


def _op_api_syntax(op_dir: Path, sources: CannSources, jobs: int) -> list[CheckItem]:
    files = sorted((op_dir / "tests/ut/op_api").glob("test_*.cpp"))
    if not files:
        return [skipped("op_api UTs", "no tests/ut/op_api/test_*.cpp")]
    dirs = op_api_ut_dirs(sources)
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        errors = list(pool.map(lambda f: gxx_error(compile_command(
            "g++", op_dir, f.relative_to(op_dir).as_posix(), "op_api", dirs), op_dir, sources.root), files))
    items = []
    for path, error in zip(files, errors, strict=True):
        label = f"{path.relative_to(op_dir).as_posix()} compiles (op_api, -fsyntax-only)"
        items.append(ok(label) if error is None else bad(label, error))
    items.append(skipped("op_api UTs run", "not run: the op_api UT executable also links opbase's nnopbase "
                                           "(104 more sources), ops-math's opapi_math stub and ops-nn's "
                                           "op_api_ut_common, which this tier does not build yet"))
    return items
