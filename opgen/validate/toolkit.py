"""Find the CANN toolkit and the host tools ops-nn's build needs, before anything is placed or built.

What is checked, and where ops-nn needs it:
- ASCEND_HOME_PATH: build.sh 138-149 derives every include/lib path from it; cmake/dependencies.cmake
  12-13 makes it ASCEND_DIR. `--cann DIR` sources `DIR/set_env.sh`, which sets it.
- `<arch>-linux/include/acl/acl.h`: cmake/modules/Findruntime.cmake stops with FATAL_ERROR without it.
- `<arch>-linux/tikcpp/ascendc_kernel_cmake` or `compiler/tikcpp/ascendc_kernel_cmake`:
  `find_package(ASC REQUIRED ...)` in cmake/dependencies.cmake 61-78.
- `tools/tikicpulib/lib/cmake` for UTs: `find_package(tikicpulib REQUIRED)`, dependencies.cmake 89-92.
- python3/gcc/cmake always, pigz and dos2unix for `--pkg`, dos2unix for `--opkernel`: build.sh line 37
  runs install_deps.sh check_dependencies_silent (425-511) with the same versions.
- the custom vendor package for the example: build.sh build_single_example 1542-1565 links against
  `$ASCEND_CUSTOM_OPP_PATH` or `$ASCEND_HOME_PATH/opp/vendors/custom_nn`, plus g++.
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import OpgenError
from .stages import VENDOR, Stage, Step

INSTALL_CANN = (
    "install the CANN toolkit (Ascend-cann-toolkit_<version>_linux-<arch>.run --install), then "
    "`source <install_path>/cann/set_env.sh` or pass --cann <install_path>/cann"
)
INSTALL_DEPS = "run `bash install_deps.sh` in the ops-nn checkout"
# host tool -> minimum version (install_deps.sh 443-448); None: only needs to be on PATH
TOOLS: dict[str, str | None] = {
    "python3": "3.7.0",
    "gcc": "7.3.0",
    "cmake": "3.16.0",
    "pigz": "2.4",
    "dos2unix": None,
    "g++": None,
}


@dataclass(frozen=True)
class Toolkit:
    """Where the toolkit is, and the set_env.sh to source before build.sh (None: already sourced)."""

    home: Path
    set_env: Path | None

    def command(self, build_args: tuple[str, ...]) -> list[str]:
        """argv running build.sh; with --cann, `source set_env.sh && bash build.sh ...` in one bash."""
        if self.set_env is None:
            return ["bash", "build.sh", *build_args]
        script = 'set_env=$1; shift; args=("$@"); set --; source "$set_env" && exec bash build.sh "${args[@]}"'
        return ["bash", "-c", script, "bash", str(self.set_env), *build_args]

    def display(self, build_args: tuple[str, ...]) -> str:
        """The command as a user would type it."""
        build = shlex.join(["bash", "build.sh", *build_args])
        return build if self.set_env is None else f"source {shlex.quote(str(self.set_env))} && {build}"


def detect(cann: Path | None, steps: tuple[Step, ...]) -> Toolkit:
    """One OpgenError listing every missing piece with how to get it; nothing runs until all are there."""
    set_env = None
    if cann is None:
        env: Mapping[str, str] = dict(os.environ)
    else:
        set_env = (cann / "set_env.sh").resolve()
        if not set_env.is_file():
            raise OpgenError(f"--cann {cann}: no set_env.sh there; {INSTALL_CANN}")
        env = _sourced_env(set_env)
    home_str = env.get("ASCEND_HOME_PATH", "")
    if not home_str:
        after = f"sourcing {set_env}" if set_env else "checking the environment"
        raise OpgenError(f"CANN toolkit not found: ASCEND_HOME_PATH is not set after {after}; {INSTALL_CANN}")
    home = Path(home_str)
    missing = _missing_pieces(home, env, {s.stage for s in steps}, {a for s in steps for a in s.build_args})
    if missing:
        lines = "\n".join(f"  - {what}: {how}" for what, how in missing)
        raise OpgenError(f"the build environment is incomplete (ASCEND_HOME_PATH={home}):\n{lines}")
    return Toolkit(home=home, set_env=set_env)


def _sourced_env(set_env: Path) -> dict[str, str]:
    script = 'source "$1" >/dev/null 2>&1 || exit 97; env -0'
    proc = subprocess.run(["bash", "-c", script, "bash", str(set_env)], capture_output=True, check=False)
    if proc.returncode != 0:
        raise OpgenError(f"`source {set_env}` failed (exit {proc.returncode}); {INSTALL_CANN}")
    pairs = (item.split("=", 1) for item in proc.stdout.decode(errors="replace").split("\0") if "=" in item)
    return {key: value for key, value in pairs}


def _missing_pieces(home: Path, env: Mapping[str, str], stages: set[Stage], args: set[str]) -> list[tuple[str, str]]:
    missing: list[tuple[str, str]] = []
    if not home.is_dir():
        return [(f"CANN toolkit dir {home}", INSTALL_CANN)]
    arch_dir = home / f"{platform.machine()}-linux"
    if not (arch_dir / "include" / "acl" / "acl.h").is_file():
        missing.append((f"CANN runtime headers ({arch_dir}/include/acl/acl.h)", INSTALL_CANN))
    asc = [arch_dir / "tikcpp" / "ascendc_kernel_cmake", home / "compiler" / "tikcpp" / "ascendc_kernel_cmake"]
    if not any(p.is_dir() for p in asc):
        missing.append((f"Ascend C kernel CMake package ({asc[0]})", INSTALL_CANN))
    if Stage.UT in stages and not (home / "tools" / "tikicpulib" / "lib" / "cmake").is_dir():
        missing.append((f"tikicpulib for UTs ({home}/tools/tikicpulib/lib/cmake)", INSTALL_CANN))
    if Stage.EXAMPLE in stages and not _vendor_installed(home, env):
        missing.append(
            (
                f"the {VENDOR} op package for the example ({home}/opp/vendors/{VENDOR}_nn)",
                f"run --stage pkg, then install build_out/cann-ops-nn-{VENDOR}_linux-<arch>.run",
            )
        )
    tools = ["python3", "gcc", "cmake"]  # detect() only runs when some build.sh step will
    tools += ["pigz", "dos2unix"] if "--pkg" in args else []
    tools += ["dos2unix"] if "--opkernel" in args and "dos2unix" not in tools else []
    tools += ["g++"] if Stage.EXAMPLE in stages else []
    missing += [(f"{tool} {problem}", INSTALL_DEPS) for tool in tools if (problem := _tool_problem(tool, env))]
    return missing


def _vendor_installed(home: Path, env: Mapping[str, str]) -> bool:
    return bool(env.get("ASCEND_CUSTOM_OPP_PATH")) or (home / "opp" / "vendors" / f"{VENDOR}_nn").is_dir()


def _tool_problem(tool: str, env: Mapping[str, str]) -> str | None:
    """None when `tool` is on the build's PATH and new enough, else what is wrong with it."""
    minimum = TOOLS[tool]
    path = shutil.which(tool, path=env.get("PATH", ""))
    if path is None:
        return "(not on PATH)" if minimum is None else f"(>= {minimum}, not on PATH)"
    if minimum is None:
        return None
    found = _version(path, dict(env))
    if found is None or _as_tuple(found) < _as_tuple(minimum):
        return f"(>= {minimum}, found {found or 'unknown version'})"
    return None


def _version(path: str, env: dict[str, str]) -> str | None:
    """Last dotted number on the first line of `tool --version`, as install_deps.sh reads it."""
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, env=env, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = next((ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()), "")
    match = re.search(r"(\d+(?:\.\d+)+)(?!.*\d+\.\d)", first)
    return match.group(1) if match else None


def _as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())
