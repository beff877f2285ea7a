"""Build a classic kernel into a CPU executable: the op's own op_kernel sources, a wrapper that fills the tiling
struct from the tiling argument and defines the intrinsics with opgen's CPU model, and the model's runtime.

Everything is cached under `cache_root()`: the runtime object per (model sources, asc-devkit content, arch),
each kernel executable per (its sources, model, flags). A name the model lacks is a link error; the build
result names every such intrinsic.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..cann_sources import CannSources, cache_root
from ..plan import RenderPlan
from ..plan.tensors import DtypeCombination
from .kernel_run_decls import HEADER, compile_learning, declarations_dir

COMMON_DEFINES = ("-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=0", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1",
                  "-DASCENDC_DUMP=0", "-D__CCE_KT_TEST__=1", "-DASCENDC_TPL_KERNEL")
# SoC -> (arch, vector-core defines), as asc-devkit's own CPU-debug tests build them
ARCHES: dict[str, tuple[str, tuple[str, ...]]] = {
    "ascend910b": ("2201", ("-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__DAV_C220_VEC__", "-D__DAV_VEC__",
                            "-D__NPU_ARCH__=2201")),
    "ascend310b": ("3002", ("-D__CCE_AICORE__=300", "-D__DAV_M300__", "-D__DAV_VEC__", "-D__NPU_ARCH__=3002")),
}
OPTIMIZE = "-O1"
COMPILE_TIMEOUT = 600
_UNDEFINED = re.compile(r"undefined reference to `(?:[\w:<>,* ]+ )?([A-Za-z_]\w*)(?:<[^`]*>)?\(")


@dataclass(frozen=True)
class KernelBuild:
    executable: Path | None
    problem: str  # why there is no executable ("" when there is one)
    missing: tuple[str, ...] = ()  # intrinsics the CPU model lacks


def model_dir() -> Path:
    return Path(str(resources.files("opgen.check") / "cpu_model"))


def model_key() -> str:
    digest = hashlib.sha256()
    for path in sorted(model_dir().iterdir()):
        if path.suffix in (".h", ".cpp"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def wrapper_source(plan: RenderPlan) -> str:
    """The translation unit of one run build: the op's kernel entry, a launcher with its argument count, and
    the model's intrinsic definitions after it (so every call the kernel makes binds to them)."""
    args = len(plan.inputs) + len(plan.outputs) + 2  # tensors, workspace, tiling
    call = ", ".join(f"args[{k}]" for k in range(args))
    return "\n".join([
        "// opgen kernel run wrapper",
        "#include <cstring>",
        '#include "kernel_operator.h"',
        "#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \\",
        "    tiling_struct tiling_data;                                              \\",
        "    std::memcpy(&tiling_data, (const void*)(tiling_arg), sizeof(tiling_struct))",
        f'#include "{plan.name}.cpp"',
        f'extern "C" void opgen_launch(uint8_t* const* args) {{ {plan.name}({call}); }}',
        '#include "intrinsics.h"',
        "",
    ])


def _flags(sources: CannSources, soc: str, decls: Path | str) -> list[str]:
    _, defines = ARCHES[soc]
    dirs = [str(decls), str(model_dir()), *(str(d) for d in sources.kernel_include_dirs())]
    return [*COMMON_DEFINES, *defines, "-w", *(f"-I{d}" for d in dirs)]


def runtime_object(sources: CannSources, soc: str, decls: Path) -> Path:
    arch, _ = ARCHES[soc]
    target = cache_root() / "cpu-model" / f"runtime-{model_key()}-{sources.content_key('asc-devkit')}-{arch}.o"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f"{target.name}.part{os.getpid()}")
        done = compile_learning(decls, ["nice", "-n", "10", "g++", *_flags(sources, soc, decls), OPTIMIZE, "-c",
                                        str(model_dir() / "runtime.cpp"), "-o", str(part)], COMPILE_TIMEOUT)
        if done.returncode != 0:
            raise RuntimeError(f"the CPU model's runtime did not compile: {_errors(done.stderr, None)}")
        part.rename(target)
    return target


def build_kernel(sources: CannSources, soc: str, op_dir: Path, plan: RenderPlan,
                 combo: DtypeCombination) -> KernelBuild:
    """The executable of `combo`'s variant of the op's kernel for `soc`, or why there is none."""
    op_kernel = op_dir / "op_kernel"
    decls = declarations_dir(sources, ARCHES[soc][0])
    flags = [*_flags(sources, soc, decls), *_dtype_defines(plan, combo), f"-I{op_kernel}", OPTIMIZE]
    digest = hashlib.sha256("\0".join([model_key(), wrapper_source(plan), *flags]).encode())
    for path in sorted(op_kernel.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(op_kernel)).encode() + b"\0" + path.read_bytes())
    digest.update((decls / HEADER).read_bytes())
    target = cache_root() / "kernel-run" / f"{plan.name}-{soc}-{combo.key.name}-{digest.hexdigest()[:16]}"
    if target.is_file():
        return KernelBuild(target, "")
    failed = target.with_suffix(".failed.json")
    if failed.is_file():  # the same sources failed before: the same answer, without the compile
        known = json.loads(failed.read_text())
        return KernelBuild(None, known["problem"], tuple(known["missing"]))
    build = _build(sources, soc, op_dir, plan, flags, decls, target)
    if build.executable is None:
        failed.parent.mkdir(parents=True, exist_ok=True)
        failed.write_text(json.dumps({"problem": build.problem, "missing": list(build.missing)}))
    return build


def _build(sources: CannSources, soc: str, op_dir: Path, plan: RenderPlan, flags: list[str], decls: Path,
           target: Path) -> KernelBuild:
    try:
        runtime = runtime_object(sources, soc, decls)
    except RuntimeError as error:
        return KernelBuild(None, str(error))
    with tempfile.TemporaryDirectory(prefix="opgen-run-build-") as scratch:
        wrapper = Path(scratch) / f"{plan.name}_run.cpp"
        wrapper.write_text(wrapper_source(plan))
        obj = Path(scratch) / "kernel.o"
        compiled = compile_learning(decls, ["nice", "-n", "10", "g++", *flags, "-c", str(wrapper), "-o", str(obj)],
                                    COMPILE_TIMEOUT)
        if compiled.returncode != 0:
            return KernelBuild(None, "compile: " + _errors(compiled.stderr, op_dir))
        linked = _run(["g++", str(obj), str(runtime), "-o", str(Path(scratch) / "kernel")])
        if linked.returncode != 0:
            missing = tuple(sorted(set(_UNDEFINED.findall(linked.stderr))))
            if missing:
                return KernelBuild(None, "the CPU model lacks " + ", ".join(missing), missing)
            unresolved = sorted(set(re.findall(r"undefined reference to `([^']+)'", linked.stderr)))
            return KernelBuild(None, "link: undefined " + "; ".join(unresolved[:5]) if unresolved
                               else "link: " + _errors(linked.stderr, op_dir))
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f"{target.name}.part{os.getpid()}")
        shutil.copy2(Path(scratch) / "kernel", part)
        part.rename(target)
    return KernelBuild(target, "")


def _dtype_defines(plan: RenderPlan, combo: DtypeCombination) -> list[str]:
    defines = []
    for tensor in (*plan.inputs, *plan.outputs):
        dtype = tensor.dtypes[combo.index]
        defines += [f"-D{tensor.macro}={dtype.kernel}", f"-DORIG_{tensor.macro}={dtype.ge}",
                    f"-DFORMAT_{tensor.macro.removeprefix('DTYPE_')}=FORMAT_ND"]
    return defines


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["nice", "-n", "10", *argv], capture_output=True, text=True, errors="replace",
                          timeout=COMPILE_TIMEOUT, check=False)


def _errors(stderr: str, op_dir: Path | None) -> str:
    """The first error lines, the op's own files first, paths relative to the op dir."""
    lines = [line for line in stderr.splitlines() if "error" in line]
    if op_dir is not None:
        own = [line.replace(f"{op_dir}/", "") for line in lines if str(op_dir) in line]
        lines = own or lines
    return "; ".join(lines[:3]) or (stderr.strip().splitlines() or ["no output"])[-1]
