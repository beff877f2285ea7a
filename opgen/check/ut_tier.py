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
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..cann_sources import CannSources, enable_hint
from ..errors import OpgenError
from ..plan import RenderPlan
from ..spec.socs import SOCS
from .bounded import compile_memory, compile_timeout, run_bounded
from .confined import compile_confined
from .headers import compile_command, first_error, inside_op_dir, op_relative
from .items import CheckItem, bad, ok, skipped
from .ophost_ut_framework import TILING_EXECUTOR, Framework, build_framework
from .trust import Trust, run_tree_code

TIER = "ut"
TIMEOUT = 600.0
RUN_TIMEOUT = 300.0
_FAILURE_AT = re.compile(r"^(?P<where>[^\s:]+):(?P<line>\d+)(?:: Failure)?", re.M)
_EXECUTOR_SOC = re.compile(r'\{"(ascend\w+|kirin\w+|mc\d+)",\s*"')


@dataclass(frozen=True)
class Source:
    rel: str  # relative to the op dir
    flags: tuple[str, ...]


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
    executor_socs = set(_EXECUTOR_SOC.findall(executor_source.read_text(encoding="utf-8", errors="replace")))
    runnable = [soc.name for soc in plan.socs if soc.name in executor_socs]
    items += [skipped(f"op_host UTs ({soc.name})", f"ops-nn's {TILING_EXECUTOR} knows no {soc.name}: no "
                                                   "platform to run its tiling on")
              for soc in plan.socs if soc.name not in executor_socs]
    with tempfile.TemporaryDirectory(prefix="opgen-ut-") as scratch:
        build = _OphostBuild(op_dir, framework, executor_source, Path(scratch), jobs)
        items += build.compile_all(runnable)
        for soc in runnable:
            others = [t.suite for t in plan.ophost_ut.tiling_suites if t.soc != soc]
            items += build.link_and_run(soc, others, trust)
        items += _op_api_syntax(op_dir, sources, jobs)
    items.append(skipped("kernel UTs", "not built by the ut tier: they need tikicpulib or the kernel tier's "
                                       "CPU stand-ins (see the kernel tier)"))
    return items


def ophost_sources(op_dir: Path, tiling_dir: str | None) -> tuple[list[Source], list[Source]]:
    """(host sources, UT sources) ops-nn compiles into the op_host UT of a compute unit with `tiling_dir`."""
    host_dirs = [op_dir / "op_host", *([op_dir / "op_host" / tiling_dir] if tiling_dir else [])]
    ut_root = op_dir / "tests/ut/op_host"
    ut_dirs = [ut_root, *([ut_root / tiling_dir] if tiling_dir else [])]
    host = []
    for folder in host_dirs:
        for path in sorted(folder.glob("*.cpp")):
            role = "OP_TILING" if "tiling" in path.name else "OP_PROTO"
            host.append(Source(path.relative_to(op_dir).as_posix(),
                               (f'-DOPS_UTILS_LOG_SUB_MOD_NAME="{role}"', "-DDISABLE_COMPILE_V1")))
    tests = [Source(p.relative_to(op_dir).as_posix(), ("-fno-access-control",))
             for folder in ut_dirs for pattern in ("test_*_tiling.cpp", "test_*_infershape.cpp")
             for p in sorted(folder.glob(pattern))]
    return host, tests


class _OphostBuild:
    """One op's op_host UT build: every source compiled once (host and UT objects do not depend on the SoC),
    ops-nn's tiling executor once per SoC, then one executable per SoC."""

    def __init__(self, op_dir: Path, framework: Framework, executor_source: Path, work: Path, jobs: int) -> None:
        self.op_dir, self.framework, self.executor_source, self.work, self.jobs = (
            op_dir, framework, executor_source, work, jobs)
        own = [op_dir / "op_host", op_dir / "op_graph", op_dir, op_dir.parent]
        self.base = [*framework.flags, *(f"-I{d}" for d in (*own, *framework.include_dirs))]
        self.objects: dict[str, Path | None] = {}

    def compile_all(self, socs: Sequence[str]) -> list[CheckItem]:
        sources = {s.rel: s for soc in socs for group in ophost_sources(self.op_dir, SOCS[soc].arch) for s in group}
        jobs: list[tuple[str, list[str]]] = [
            (rel, [*self.base, *s.flags, "-c", str(self.op_dir / rel)]) for rel, s in sources.items()]
        jobs += [(f"{TILING_EXECUTOR}@{soc}", [*self.base, f"-DBUILD_SOC_VERSION={soc}", "-fno-access-control",
                                               "-c", str(self.executor_source)]) for soc in socs]
        with ThreadPoolExecutor(max_workers=max(self.jobs, 1)) as pool:
            errors = list(pool.map(lambda job: self._compile(*job), jobs))
        items = []
        for (key, _), error in zip(jobs, errors, strict=True):
            label = f"{key.replace('@', ' (')})" if "@" in key else key
            items.append(ok(f"{label} compiles") if error is None else bad(f"{label} compiles", error))
        return items

    def _compile(self, key: str, command: list[str]) -> str | None:
        out = self.work / (key.replace("/", "__") + ".o")
        error = _gxx(["g++", *command, "-o", str(out)], None if "@" in key else self.op_dir)
        self.objects[key] = out if error is None else None
        return error

    def link_and_run(self, soc: str, other_suites: Sequence[str], trust: Trust) -> list[CheckItem]:
        """Link (and, trusted, run) one SoC's executable; the op's other SoCs' tiling suites are filtered
        out, as their expectations are for another platform."""
        host, tests = ophost_sources(self.op_dir, SOCS[soc].arch)
        if not tests:
            return [skipped(f"op_host UTs ({soc})", "no tests/ut/op_host/test_*_{tiling,infershape}.cpp")]
        wanted = [s.rel for s in (*host, *tests)] + [f"{TILING_EXECUTOR}@{soc}"]
        objects = [self.objects.get(key) for key in wanted]
        if any(obj is None for obj in objects):
            return [skipped(f"op_host UTs run ({soc})", "not linked: a source above did not compile")]
        exe = self.work / f"ophost_ut_{soc}"
        link = ["g++", "-o", str(exe), *map(str, self.framework.whole_objects), *map(str, objects),
                # metadef and graph each carry AscendString/TypeUtils (two shared libraries upstream, where
                # the first loaded wins); as archives the first definition wins the same way
                "-Wl,--allow-multiple-definition",
                # whole archives: graph and error-manager functions are referenced weakly, which never pulls
                # a member out of an archive (shared libraries upstream resolve them at load time)
                "-Wl,--whole-archive", *map(str, self.framework.archives), "-Wl,--no-whole-archive",
                "-lprotobuf", "-lpthread", "-ldl"]
        linked = _gxx(link, self.op_dir)
        if linked is not None:
            return [bad(f"op_host UT link ({soc})", linked)]
        items = [ok(f"op_host UT link ({soc})", f"{len(objects) - 1} op and UT objects against the framework")]
        if not trust.allow_exec:
            items.append(skipped(f"op_host UTs run ({soc})", trust.refusal(f"the op_host UT executable ({soc})")))
        else:
            items.append(_run(exe, self.op_dir, soc, other_suites, self.work))
        return items


def _gxx(command: Sequence[str], op_dir: Path | None) -> str | None:
    """None when the compiler succeeded, else its first error (op-relative `file:line: message`)."""
    if op_dir is not None:  # a compile of tree files: bounded, its includes confined to the tree and -I dirs
        done = compile_confined(["nice", "-n", "10", *command], "g++", [op_dir], timeout=TIMEOUT)
        if done.refusal is not None:
            return done.refusal
        if done.returncode == 0:
            return None
        output = done.stderr
    else:
        run = run_bounded(["nice", "-n", "10", *command], timeout=compile_timeout(TIMEOUT), memory=compile_memory(),
                          env={**os.environ, "LC_ALL": "C"})
        if run.failure is not None:
            return f"g++ {run.failure}"
        if run.returncode == 0:
            return None
        output = run.stderr
    output = output.replace(" -Werror", "")
    if op_dir is None:
        return first_error(output, Path("/nonexistent"))
    linker = [line.split(": ", 1)[-1] for line in output.splitlines()
              if "undefined reference" in line or "multiple definition" in line]
    if linker:
        return f"{linker[0]} [{len(linker)} linker errors in all]"
    return first_error(output, op_dir)


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
        errors = list(pool.map(lambda f: _gxx(compile_command(
            "g++", op_dir, f.relative_to(op_dir).as_posix(), "op_api", dirs), op_dir), files))
    items = []
    for path, error in zip(files, errors, strict=True):
        label = f"{path.relative_to(op_dir).as_posix()} compiles (op_api, -fsyntax-only)"
        items.append(ok(label) if error is None else bad(label, error))
    items.append(skipped("op_api UTs run", "not run: the op_api UT executable also links opbase's nnopbase "
                                           "(104 more sources), ops-math's opapi_math stub and ops-nn's "
                                           "op_api_ut_common, which this tier does not build yet"))
    return items
