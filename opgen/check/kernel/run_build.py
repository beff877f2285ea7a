"""Build a kernel into a CPU executable for the kernel tier's run level.

One unit per (SoC, dtype combination): kernel-compile's wrapper of the op's kernel entry (`wrapper_source`,
the derived intrinsic declarations, the same flags), plus a launcher with the entry's argument count, opgen's
CPU model (`cpu_model/intrinsics.h`) and bindings that define each declared intrinsic the model covers by
forwarding to it. Linked with the model's runtime. A declared intrinsic the model does not cover aborts naming
itself when a launch reaches it; a symbol nothing declares leaves the link failing by name. Cached under
`cache_root()`: the runtime object per (model sources, CANN sources, arch), each executable per (its sources, model,
flags), a failed build with the declarations it saw (`intrinsics.declarations_digest`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tempfile
from importlib import resources
from pathlib import Path

from ... import progress
from ...cann_sources import CannSources, cache_root, keep_file
from ...plan import RenderPlan
from ..bounded import run_bounded, run_tool
from ..confined import ConfinedCompile, compile_confined
from .build import KernelVariant, compile_command, wrapper_source
from .dag_run import launcher_source
from .intrinsics import HEADER, declarations_digest, intrinsic_dir, learn
from .pch import pch_dir, with_pch
from .tpl_launch import TplLauncher, UpstreamEntry, plain_launcher

OPTIMIZE = "-O1"
TIMEOUT = 600
MAX_ROUNDS = 40
BINDINGS = "opgen_model_bindings.h"
# headers that stand before the CANN sources' own for upstream's kernels (each says why it is needed on the CPU)
UPSTREAM_SHIMS = Path(__file__).parent / "cpu_model" / "upstream"
_DECLARATION = re.compile(r"^template <typename\.\.\. Args> (?P<ret>[\w:]+) (?P<name>\w+)\((?P<params>.*)\);$", re.M)
_MODELLED = re.compile(r"^OPGEN_[A-Z_0-9]+\((\w+)[,)]", re.M)
_REGISTER_FUNCTION = re.compile(r"^int64_t (\w+)\(Args&&\.\.\.", re.M)
# the register-form models (asc-devkit passes vector/predicate registers to the intrinsics there): arch 3002's
# dav_m300 (regs3002.h) and arch 3510's reg_compute (regs3510*.h). Their names bind to opgen_reg, not opgen_model; the
# wrapper includes an arch's first header, which includes the others
REGISTER_MODEL = {3002: "regs3002", 3510: "regs3510"}
# the runtime's units: the launch (globals, GM, main) and the closed symbols the tikicpulib stand-in shares
RUNTIME_UNITS = ("runtime", "closed_symbols")
_UNDEFINED = re.compile(r"undefined reference to `(?:[\w:<>,* ]+ )?([A-Za-z_]\w*)(?:<[^`]*>)?\(")
_UNRESOLVED = re.compile(r"undefined reference to `([^']+)'")


@dataclasses.dataclass(frozen=True)
class KernelBuild:
    executable: Path | None
    problem: str  # why there is no executable ("" when there is one)
    missing: tuple[str, ...] = ()  # intrinsics the CPU model lacks
    stopped: bool = False  # a compile the bound stopped (killed, out of time or memory): never remembered


def model_dir() -> Path:
    return Path(str(resources.files("opgen.check.kernel") / "cpu_model"))


def model_key() -> str:
    digest = hashlib.sha256()
    for path in sorted(model_dir().iterdir()):
        if path.suffix in (".h", ".cpp"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def modelled_names(arch: int = 0) -> dict[str, str]:
    """The intrinsics the model's headers define (each is one OPGEN_*(name, ...) line) -> the namespace holding
    them: the memory-form model's, and on an arch with a register-form model that one's, which wins."""
    register = REGISTER_MODEL.get(arch)
    registers = {prefix: sorted(model_dir().glob(f"{prefix}*.h")) for prefix in REGISTER_MODEL.values()}
    names = {name: "opgen_model" for path in model_dir().glob("*.h")
             if not any(path in paths for paths in registers.values()) for name in _MODELLED.findall(path.read_text())}
    for path in registers.get(register or "", []):
        text = path.read_text()
        names.update((n, "opgen_reg") for n in _MODELLED.findall(text) + _REGISTER_FUNCTION.findall(text))
    return names


def bindings_source(declarations: str, arch: int = 0) -> str:
    """For each declared intrinsic the model covers, a definition of exactly that declaration (the derived
    header may type the leading pointer parameters; on a reference arch the rest are forwarding references)
    forwarding every argument to the model and counting the call (cpu_model/cost.h). Every other declared one
    aborts naming itself when a launch reaches it (the row is SKIPPED naming it): a kernel whose other paths
    use it (a BroadcastSch schedule the launch does not take) still runs."""
    modelled = modelled_names(arch)
    lines = ["// opgen: definitions of the declared intrinsics the CPU model covers", "#pragma once",
             "#include <utility>"]
    for match in _DECLARATION.finditer(declarations):
        name, params = match.group("name"), [p.strip() for p in match.group("params").split(",")]
        typed = [f"{p} p{k}" for k, p in enumerate(params[:-1])]
        rest = params[-1].removesuffix(" args")
        signature = f"template <typename... Args> {match.group('ret')} {name}({', '.join([*typed, rest + ' args'])})"
        if name not in modelled or match.group("ret") != "int64_t":  # reached at run time: the launch is SKIPPED
            lines.append(f'{signature} {{ opgen_cpu::Unmodelled("{name}"); }}')
            continue
        forwarded = "std::forward<Args>(args)..." if "&&" in rest else "args..."
        names = [f"p{k}" for k in range(len(typed))] + [forwarded]
        lines.append(f"{signature} "
                     f'{{ static uint64_t& calls = opgen_cpu::CallCounter("{name}"); ++calls; '
                     f"return {modelled[name]}::{name}({', '.join(names)}); }}")
    return "\n".join(lines) + "\n"


def run_wrapper(plan: RenderPlan, variant: KernelVariant, entry: Path, *, upstream: UpstreamEntry | None = None,
                launcher: TplLauncher | None = None) -> str:
    """kernel-compile's wrapper of the entry, then the launcher, the model and its bindings. `upstream`: ops-nn's own
    kernel (the oracle), whose DAGs and TPL arguments the plan does not name, whose tiling struct its host may
    declare, and which may use bisheng's builtin `float32_t` (the CPU-debug stubs typedef it on arches 3003/3113
    only); `launcher`: the tree's own template entry, launched by the TPL arguments its keys decode to."""
    chosen = upstream.launcher if upstream is not None else launcher
    if chosen is not None:
        variant = dataclasses.replace(variant, instantiations=chosen.instantiations)
        source = chosen.source
    elif variant.family.is_dag:
        source = launcher_source(plan, variant)
    else:
        source = plain_launcher(plan.name, entry_arg_count(plan)).source
    register = REGISTER_MODEL.get(variant.arch.npu_arch)
    return "\n".join([
        *(["typedef float float32_t;", upstream.tiling_structs] if upstream is not None else []),
        wrapper_source(plan, entry, variant, upstream.tiling_default if upstream is not None else None),
        source,
        '#include "intrinsics.h"',
        *([f'#include "{register}.h"'] if register else []),
        f'#include "{BINDINGS}"',
        "",
    ])


def entry_arg_count(plan: RenderPlan) -> int:
    """The kernel entry's parameters: the tensors, the workspace, the tiling."""
    return len(plan.inputs) + len(plan.outputs) + 2


def op_entry(variant: KernelVariant) -> Path:
    """The kernel entry the op compiler builds for the variant's family, relative to op_kernel."""
    return Path(variant.family.kernel_entry).relative_to("op_kernel")


def runtime_object(sources: CannSources, variant: KernelVariant, op_dir: Path) -> Path | str:
    """The model's runtime compiled for the variant's arch (cached), or why it did not compile."""
    target = (cache_root() / "cpu-model" /
              f"runtime-{model_key()}-{sources.content_key('asc-devkit', 'asc-tools')}-{variant.arch.npu_arch}.o")
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="opgen-runtime-") as scratch, \
            progress.step(f"CPU model: runtime for arch {variant.arch.npu_arch}"):
        objects = [Path(scratch) / f"{unit}.o" for unit in RUNTIME_UNITS]
        for unit, obj in zip(RUNTIME_UNITS, objects, strict=True):
            done = _compile(sources, variant, op_dir, model_dir() / f"{unit}.cpp", obj, Path(scratch), False)
            if done.returncode != 0:
                return "the CPU model's runtime did not compile: " + _first_error(done.stderr, op_dir)
        part = target.with_name(f"{target.name}.part{os.getpid()}")
        run_tool(["ld", "-r", *map(str, objects), "-o", str(part)])
        part.rename(target)
    return target


def build_kernel(sources: CannSources, variant: KernelVariant, op_dir: Path, plan: RenderPlan, *,
                 upstream: UpstreamEntry | None = None, launcher: TplLauncher | None = None) -> KernelBuild:
    """The executable of one variant of the op's kernel, or why there is none (`upstream`, `launcher`: see
    run_wrapper)."""
    stubs = intrinsic_dir(sources, variant.arch)
    if stubs is None:
        return KernelBuild(None, "a toolkit's intrinsics are its tikicpulib's; the run level uses opgen's model "
                                 "with the open sources only (--cann-src)")
    wrapper = run_wrapper(plan, variant, op_entry(variant), upstream=upstream, launcher=launcher)
    digest = hashlib.sha256("\0".join([model_key(), wrapper,
                                       *variant.defines,
                                       str(variant.arch.npu_arch)]).encode())
    if upstream is not None:
        for path in sorted(UPSTREAM_SHIMS.rglob("*.h")):
            digest.update(path.read_bytes())
    kernel_dir = op_dir / "op_kernel"
    for path in sorted(kernel_dir.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(kernel_dir)).encode() + b"\0" + path.read_bytes())
    declared = declarations_digest((stubs / HEADER).read_bytes())
    target = cache_root() / "kernel-run" / f"{plan.name}-{variant.arch.npu_arch}-{variant.combination.index}-" \
                                           f"{digest.hexdigest()[:16]}"
    failed = target.with_suffix(".failed.json")
    if target.is_file():
        return KernelBuild(target, "")
    runtime = runtime_object(sources, variant, op_dir)
    if isinstance(runtime, str):  # the model's own build, not the op's: never remembered as the op's failure
        return KernelBuild(None, runtime)
    known = json.loads(failed.read_text()) if failed.is_file() else {}
    if known.get("declarations") == declared:  # the same sources failed before: the same answer, without the compile
        return KernelBuild(None, known["problem"], tuple(known["missing"]))
    with progress.step(f"{plan.name}: build the {variant.label} kernel on the CPU model"):
        build = _build(sources, variant, op_dir, plan, target, runtime, upstream, launcher)
    if build.executable is None and not build.stopped:
        failed.parent.mkdir(parents=True, exist_ok=True)
        failed.write_text(json.dumps({"problem": build.problem, "missing": list(build.missing),
                                      "declarations": declared}))
    return build


def _build(sources: CannSources, variant: KernelVariant, op_dir: Path, plan: RenderPlan,
           target: Path, runtime: Path, upstream: UpstreamEntry | None, launcher: TplLauncher | None) -> KernelBuild:
    with tempfile.TemporaryDirectory(prefix="opgen-run-build-") as scratch:
        wrapper = Path(scratch) / f"{plan.name}_run.cpp"
        wrapper.write_text(run_wrapper(plan, variant, op_dir / "op_kernel" / op_entry(variant), upstream=upstream,
                                       launcher=launcher))
        obj = Path(scratch) / "kernel.o"
        compiled = _compile(sources, variant, op_dir, wrapper, obj, Path(scratch), upstream is not None)
        if compiled.refusal is not None:
            return KernelBuild(None, "compile: " + compiled.refusal, stopped=compiled.bounded)
        if compiled.returncode != 0:
            return KernelBuild(None, "compile: " + _first_error(compiled.stderr, op_dir))
        exe = Path(scratch) / "kernel"
        linked = run_bounded(["g++", str(obj), str(runtime), "-o", str(exe)], timeout=TIMEOUT)
        if linked.failure is not None:
            return KernelBuild(None, f"link: g++ {linked.failure}", stopped=True)
        if linked.returncode != 0:
            missing = tuple(sorted(set(_UNDEFINED.findall(linked.stderr)) & _declared(sources, variant)))
            if missing:
                return KernelBuild(None, "the CPU model lacks " + ", ".join(missing), missing)
            unresolved = sorted(set(_UNRESOLVED.findall(linked.stderr)))
            return KernelBuild(None, "link: undefined " + "; ".join(unresolved[:5]) if unresolved
                               else "link: " + _first_error(linked.stderr, op_dir))
        keep_file(exe, target)
    return KernelBuild(target, "")


def _compile(sources: CannSources, variant: KernelVariant, op_dir: Path, unit: Path, out: Path,
             scratch: Path, upstream: bool) -> ConfinedCompile:
    """Compile `unit` to an object, learning missing intrinsic declarations as the compile level does; upstream's
    kernel with UPSTREAM_SHIMS first on the include path."""
    rounds = 0
    while True:
        stubs = intrinsic_dir(sources, variant.arch)
        (scratch / BINDINGS).write_text(bindings_source((stubs / HEADER).read_text() if stubs is not None else "",
                                                        variant.arch.npu_arch))
        shims = (f"-I{UPSTREAM_SHIMS}",) if upstream else ()
        mode = ("-c", OPTIMIZE, *shims, f"-I{model_dir()}", f"-I{scratch}", "-o", str(out))
        pch = None if upstream else pch_dir("g++", variant, sources, stubs, (OPTIMIZE, f"-I{model_dir()}"))
        command = ["nice", "-n", "10", *with_pch(compile_command("g++", unit, variant, sources, op_dir, stubs, mode),
                                                  pch)]
        done = compile_confined(command, "g++", [op_dir, sources.root, scratch, *([stubs] if stubs else [])],
                                timeout=TIMEOUT)
        rounds += 1
        if done.refusal is not None or done.returncode == 0 or rounds == MAX_ROUNDS \
                or not learn(sources, variant.arch, done.stderr):
            return done


def _declared(sources: CannSources, variant: KernelVariant) -> set[str]:
    stubs = intrinsic_dir(sources, variant.arch)
    text = (stubs / HEADER).read_text() if stubs is not None else ""
    return {m.group("name") for m in _DECLARATION.finditer(text)}


def _first_error(stderr: str, op_dir: Path) -> str:
    """The first error lines, the op's own files first, paths relative to the op dir."""
    lines = [line for line in stderr.splitlines() if "error" in line]
    own = [line.replace(f"{op_dir}/", "") for line in lines if str(op_dir) in line]
    return "; ".join((own or lines)[:3]) or (stderr.strip().splitlines() or ["no output"])[-1]
