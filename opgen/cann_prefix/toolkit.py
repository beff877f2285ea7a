"""The non-header parts of the toolkit shape that ops-nn's configure checks: version markers, cmake
packages and stand-ins for closed or unbuilt tools. Each stand-in is named in `STUBS` so a report can say
which behaviour is missing when a UT needs it."""

from __future__ import annotations

from pathlib import Path

VERSION = "9.1.0"  # ops-nn's configure wants >= 8.5 for each package below
VERSIONED = ("runtime", "opbase", "bisheng-compiler", "asc-devkit", "asc-tools", "metadef", "ge-executor")
# prefix path -> what stands in there and why it is enough
STUBS: dict[str, str] = {
    "x86_64-linux/bin/gen_esb": "GE's ES generator: configure needs the path, op_host UTs never run it",
    "x86_64-linux/ccec_compiler/bin/bisheng": "the closed device compiler: configure with --experimental needs "
    "the file, op_host UTs never run it",
    "tools/tikicpulib/lib/cmake/tikicpulib-config.cmake": "find_package(tikicpulib) succeeds; the tikicpulib::<soc> "
    "targets are opgen's CPU model, from the file OPGEN_TIKICPULIB_TARGETS names (opgen/check/kernel/tikicpulib.py)",
}
_TOOL_SCRIPT = "#!/bin/sh\necho 'opgen cann_prefix stand-in: {name} is not available here' >&2\nexit 1\n"
_TIKICPULIB = """# opgen cann_prefix stand-in: the kernel UT targets come from opgen's CPU model, prepared per run
set(tikicpulib_FOUND TRUE)
if(DEFINED ENV{OPGEN_TIKICPULIB_TARGETS})
    include("$ENV{OPGEN_TIKICPULIB_TARGETS}")
endif()
"""


def _link(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink():
        link.unlink()
    link.symlink_to(target)


def lay_out_toolkit(cann_src: Path, prefix: Path) -> None:
    """Write version markers, link the cmake packages and write the stand-ins (rerun-safe)."""
    for pkg in VERSIONED:
        info = prefix / "share/info" / pkg / "version.info"
        info.parent.mkdir(parents=True, exist_ok=True)
        info.write_text(f"Version={VERSION}\n")
    asc_cmake = cann_src / "asc-devkit/cmake/asc"
    _link(prefix / "compiler/tikcpp/ascendc_kernel_cmake", asc_cmake)
    _link(prefix / "x86_64-linux/tikcpp/ascendc_kernel_cmake", asc_cmake)
    _link(prefix / "x86_64-linux/include/ge/cmake", cann_src / "ge/cmake")
    # asc-devkit installed: the kernel UTs' include dir (asc/include) and the tensor_api ops-nn copies from asc/impl
    _link(prefix / "x86_64-linux/asc", cann_src / "asc-devkit")
    for rel in STUBS:
        path = prefix / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = _TIKICPULIB if rel.endswith(".cmake") else _TOOL_SCRIPT.format(name=path.name)
        path.write_text(text)
        if not rel.endswith(".cmake"):
            path.chmod(0o755)
    if not (prefix / "bin").is_symlink():
        (prefix / "bin").symlink_to("x86_64-linux/bin")
