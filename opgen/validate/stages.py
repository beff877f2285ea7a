"""The build.sh command lines for each validate stage, checked against upstream ops-nn build.sh.

Line numbers below refer to build.sh at hicann/ops-nn e5c3fa932.
- `--pkg` and `-u` cannot share a call (check_param, 481-492), so the package and every UT run
  are separate invocations.
- `-u` with `--ophost/--opapi/--opgraph/--opkernel` picks that UT kind (set_ut_mode, 610-663);
  build.sh would accept several kinds at once, but ops-nn's docs run one kind per call and one per
  call tells the user which kind broke.
- `--ops=` is allowed with `--ophost/--opapi` only together with `-u` (476-479).
- `--soc=` is honoured by every mode (assemble_cmake_args, 1119-1146); UTs compile for it and an
  example looks in `examples/arch35|arch22|arch20/` by it (1615-1623).
- `--experimental` switches CMake to `experimental/<category>` (func.cmake add_category_subdirectory)
  and the example `find` to experimental paths (1606-1614), so every stage passes it for such ops.
- `--run_example <op> eager cust` takes positionals (set_example_opt, 1029-1042) and must come first.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from ..errors import OpgenError
from .opinfo import OpInfo


class Stage(str, Enum):
    CHECK = "check"
    PREFIX = "prefix"  # never asked for: validate adds it when build.sh runs against the open sources' prefix
    PKG = "pkg"
    UT = "ut"
    EXAMPLE = "example"


DEFAULT_STAGES = (Stage.CHECK, Stage.PKG, Stage.UT)
STAGE_ORDER = tuple(Stage)
# tests/ut/<dir> in the op -> build.sh UT selector (RELEASE_TARGETS line 12, --opkernel line 898)
UT_KINDS = (("op_host", "--ophost"), ("op_graph", "--opgraph"), ("op_api", "--opapi"), ("op_kernel", "--opkernel"))
# build_example's per-SoC example subdirs (1615-1623)
EXAMPLE_ARCH_DIRS = {"ascend950": "arch35", "ascend350": "arch35", "ascend910b": "arch22", "ascend310p": "arch20"}
VENDOR = "custom"


@dataclass(frozen=True)
class Step:
    """One subprocess: `opgen check` or one build.sh call."""

    stage: Stage
    label: str
    build_args: tuple[str, ...]  # build.sh arguments; empty for the check and prefix steps
    unserved: str | None = None  # why this machine cannot run it (SKIPPED with this reason)


def ordered(requested: list[Stage] | None) -> tuple[Stage, ...]:
    """Stages run in pipeline order whatever order the flags came in; default check, pkg, ut."""
    if not requested:
        return DEFAULT_STAGES
    return tuple(s for s in STAGE_ORDER if s in requested)


def ut_kinds(op_dir: Path) -> tuple[str, ...]:
    """The UT selectors this op has sources for."""
    return tuple(flag for sub, flag in UT_KINDS if (op_dir / "tests" / "ut" / sub).is_dir())


def has_example(op_dir: Path, soc: str) -> bool:
    """Whether build.sh's example `find` will see an eager example (it exits 0 when it sees none)."""
    dirs = [op_dir / "examples"]
    if soc in EXAMPLE_ARCH_DIRS:
        dirs.append(op_dir / "examples" / EXAMPLE_ARCH_DIRS[soc])
    return any(any(d.glob("test_aclnn_*.cpp")) for d in dirs)


def plan_steps(op: OpInfo, op_dir: Path, soc: str, stages: tuple[Stage, ...], jobs: int) -> tuple[Step, ...]:
    """Every subprocess validate will start, in order; bad combinations fail here, before any build."""
    exp = ("--experimental",) if op.experimental else ()
    steps: list[Step] = []
    for stage in stages:
        if stage is Stage.CHECK:
            steps.append(Step(stage, "check", ()))
        elif stage is Stage.PKG:
            args = ("--pkg", *exp, f"--soc={soc}", f"--ops={op.name}", f"-j{jobs}")
            steps.append(Step(stage, "pkg", args))
        elif stage is Stage.UT:
            kinds = ut_kinds(op_dir)
            if not kinds:
                raise OpgenError("--stage ut: the op has no tests/ut/op_host|op_api|op_kernel dir", where=str(op_dir))
            for kind in kinds:
                args = ("-u", kind, f"--ops={op.name}", f"--soc={soc}", *exp, f"-j{jobs}")
                steps.append(Step(stage, f"ut {kind.removeprefix('--')}", args))
        else:
            if not has_example(op_dir, soc):
                raise OpgenError(
                    f"--stage example: no examples/test_aclnn_*.cpp build.sh would run for {soc}", where=str(op_dir)
                )
            args = ("--run_example", op.name, "eager", "cust", f"--vendor_name={VENDOR}", f"--soc={soc}", *exp)
            steps.append(Step(stage, "example", args))
    return tuple(steps)
