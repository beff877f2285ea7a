"""Kernel tier, compile level: every op_kernel translation unit, for every binary variant (SoC x dtype
combination) and every tiling key / ASCENDC_TPL_SEL combination, compiles in AscendC CPU-debug mode against the
real asc-devkit headers, instantiated the way the op compiler does (`build.py`).

What it proves: every AscendC API call the kernel makes exists, takes those argument types for that dtype on that
arch (typed intrinsic declarations), and every tiling field it reads exists. What it cannot: anything about
values or ordering (that is the run level). Compiling is not executing: this level needs no `--allow-exec`.

Each result is cached by a hash of (wrapper source, the op's kernel files, the command, the CANN sources), with the
op dir's and the sources' paths named, not spelled: an unchanged variant is never recompiled, in a copy of the op
either; a failure is kept with the intrinsic declarations it saw (`_cached`); variants compile in parallel.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ... import progress
from ...cann_sources import CannSources, cache_root, enable_hint
from ...jobs import JOBS
from ...plan import RenderPlan
from ..confined import compile_confined
from ..headers import inside_op_dir, op_relative
from ..items import CheckItem, Figure, bad, ok, skipped
from .build import KernelVariant, compile_command, kernel_sources, kernel_variants, wrapper_source
from .intrinsics import declarations_digest, intrinsic_dir, learn
from .pch import pch_dir, with_pch

TIER = "kernel"
LEVEL = "compile"
TIMEOUT = 600.0
MAX_ROUNDS = 8  # derivation rounds: each declares what the previous compile showed missing
KERNEL_REPOS = ("asc-devkit", "asc-tools", "opbase", "runtime", "libboundscheck", "ops-nn/common/inc")
_ERROR = re.compile(r"^(?P<where>[^:\n]+):(?P<line>\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(?P<message>.*)$", re.M)
_FRAME = re.compile(r"^(?:In file included from |\s+from )?(?P<where>[^:\n ]+):(?P<line>\d+)(?::\d+)?[:,]", re.M)


@dataclass(frozen=True)
class Compiled:
    passed: bool
    error: str
    seconds: float
    cached: bool = False


def kernel_tier(op_dir: Path, plan: RenderPlan, sources: CannSources | None, *, compiler: str = "g++",
                jobs: int = JOBS) -> list[CheckItem]:
    """One row per (SoC, dtype combination, level); SKIPPED rows say why (no sources, unmapped SoC)."""
    if sources is None:
        return [skipped(f"kernel {LEVEL}", enable_hint(TIER))]
    absent = sources.missing("kernel")
    if absent:
        return [skipped(f"kernel {LEVEL}", "the kernel tier needs: " + "; ".join(absent))]
    exe = shutil.which(compiler)
    if exe is None:
        return [skipped(f"kernel {LEVEL}", f"{compiler} not found on PATH")]
    op_dir = op_dir.resolve()
    tus = kernel_sources(op_dir)
    if not tus:
        return [skipped(f"kernel {LEVEL}", "no .cpp under op_kernel (see structure)")]
    variants = kernel_variants(plan)
    runnable = [v for v in variants if isinstance(v, KernelVariant)]
    tree_key = _tree_key(op_dir)
    sources_key = sources.content_key(*KERNEL_REPOS) if sources.kind == "src" else sources.content_key()

    def units(variant: KernelVariant) -> list[Path]:
        """The variant's family entry: one family's kernel never compiles with another's SoC settings."""
        return [tu for tu in tus if tu.relative_to(op_dir).as_posix() == variant.family.kernel_entry]

    def one(variant: KernelVariant) -> list[Compiled]:
        return [compile_variant(exe, op_dir, plan, tu, variant, sources, f"{tree_key}{sources_key}")
                for tu in units(variant)]

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, runnable))
    items: list[CheckItem] = []
    for variant in variants:
        if not isinstance(variant, KernelVariant):
            soc, reason = variant
            items.append(skipped(f"{soc} {LEVEL}", reason))
            continue
        done = results[next(i for i, v in enumerate(runnable) if v is variant)]
        label = f"{variant.label} {LEVEL}"
        if not done:
            items.append(bad(label, f"{variant.family.kernel_entry} missing: the {variant.family.name} kernel "
                                    "family's entry (see structure)"))
            continue
        variant_tus = units(variant)
        figures: dict[str, Figure] = {"level": LEVEL, "seconds": round(sum(c.seconds for c in done), 2),
                   "instantiations": len(variant.instantiations) * len(variant_tus), "npu_arch": variant.arch.npu_arch}
        failed = [(tu, c) for tu, c in zip(variant_tus, done, strict=True) if not c.passed]
        if failed:
            items.append(bad(label, "; ".join(c.error for _, c in failed), **figures))
        else:
            cached = all(c.cached for c in done)
            what = (f"{len(variant_tus)} unit(s) compile, {figures['instantiations']} instantiation(s), arch "
                    f"{variant.arch.npu_arch}, {figures['seconds']} s")
            items.append(ok(label, what + (" (cached)" if cached else ""), **figures))
    return items


def compile_variant(exe: str, op_dir: Path, plan: RenderPlan, tu: Path, variant: KernelVariant,
                    sources: CannSources, inputs_key: str) -> Compiled:
    """Compile one unit of one variant, learning missing intrinsic declarations as it goes; cached."""
    start = time.perf_counter()
    wrapper_text = wrapper_source(plan, tu, variant)
    with tempfile.TemporaryDirectory(prefix="opgen-kernel-") as scratch:
        wrapper = Path(scratch) / "opgen_kernel_wrapper.cpp"
        wrapper.write_text(wrapper_text, encoding="utf-8")
        for attempt in range(MAX_ROUNDS):
            stubs = intrinsic_dir(sources, variant.arch)
            used = _stub_text(stubs)
            command = ["nice", "-n", "10", *compile_command(exe, wrapper, variant, sources, op_dir, stubs)]
            key = _key(inputs_key, wrapper_text, command, wrapper, _places(op_dir, sources, stubs))
            hit = _cached(key, used)
            if hit is not None:
                return Compiled(hit.passed, hit.error, time.perf_counter() - start, cached=True)
            reach = [op_dir, sources.root, Path(scratch), *([stubs] if stubs else [])]
            again = f", again with what round {attempt} declared" if attempt else ""
            with progress.step(f"{plan.name}: compile {variant.label} ({tu.name}{again})"):
                # the precompiled header changes how long the compile takes, not its answer: not in the key
                pch = pch_dir(exe, variant, sources, stubs)
                done = compile_confined(with_pch(command, pch), exe, reach, timeout=TIMEOUT)
            if done.refusal is not None:
                return Compiled(False, f"{tu.name}: {done.refusal}", time.perf_counter() - start)
            if done.returncode == 0:
                break
            # retry when this output taught something new, or another variant's did since this compile began
            if not learn(sources, variant.arch, done.stderr) and _stub_text(stubs) == used:
                break
        passed = done.returncode == 0
        error = "" if passed else f"{kernel_error(done.stderr, op_dir, wrapper)}"
    result = Compiled(passed, error, time.perf_counter() - start)
    _store(key, result, used)
    return result


def kernel_error(output: str, op_dir: Path, wrapper: Path) -> str:
    """The first error at the op's file:line: where g++ points into asc-devkit, the innermost frame of the
    instantiation chain ("required from") or include chain inside the op dir, with the CANN location after."""
    match = _ERROR.search(output)
    if match is None:
        lines = [line for line in output.splitlines() if line.strip()]
        return lines[-1] if lines else "failed without a message"
    message = match.group("message").strip()
    count = len(_ERROR.findall(output))
    suffix = f" [{count} errors in all]" if count > 1 else ""
    where = match.group("where")
    if inside_op_dir(where, op_dir):
        return f"{op_relative(where, op_dir)}:{match.group('line')}: {message}{suffix}"
    block = output[output.rfind("\n\n", 0, match.start()) + 1: match.start()]
    frames = [m for m in _FRAME.finditer(block) if inside_op_dir(m.group("where"), op_dir)]
    cann = f"{Path(where).name}:{match.group('line')}"
    if Path(where).resolve() == wrapper.resolve():
        cann = "the op compiler's wrapper of the kernel entry"
    if frames:
        first = frames[0]
        return f"{op_relative(first.group('where'), op_dir)}:{first.group('line')}: {message} (in {cann}){suffix}"
    return f"{cann}: {message}{suffix}"


def _tree_key(op_dir: Path) -> str:
    """A hash of the op's files a kernel build can include (everything but tests, docs and examples)."""
    digest = hashlib.sha256()
    for path in sorted(op_dir.rglob("*")):
        rel = path.relative_to(op_dir)
        if not path.is_file() or rel.parts[0] in ("tests", "docs", "examples", ".opgen"):
            continue
        digest.update(f"{rel.as_posix()}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _places(op_dir: Path, sources: CannSources, stubs: Path | None) -> dict[str, str]:
    """Where the inputs lie -> a name for them: a compile may read only the op dir, the sources and the
    declarations (confined.py), and the key hashes their contents, so a copy of the op at another path, or the
    same sources elsewhere, finds its answer."""
    return {str(op_dir): f"<parent>/{op_dir.name}", str(op_dir.parent): "<parent>", str(sources.root): "<cann>",
            **({str(stubs): "<declarations>"} if stubs is not None else {})}


def _key(inputs_key: str, wrapper_text: str, command: list[str], wrapper: Path, places: dict[str, str]) -> str:
    """The declarations are not in the key: every compile learns into them, so keying on them dropped every answer
    of an arch each time any op taught it a name (see _cached)."""
    def placeless(text: str) -> str:
        for path in sorted(places, key=len, reverse=True):
            text = text.replace(path, places[path])
        return text

    digest = hashlib.sha256(inputs_key.encode())
    digest.update(placeless(wrapper_text).encode())
    digest.update(placeless("\0".join(c for c in command if c != str(wrapper))).encode())
    return digest.hexdigest()[:24]


def _stub_text(stubs: Path | None) -> bytes:
    return (stubs / "stub_fun.h").read_bytes() if stubs is not None else b""


def _cache_file(key: str) -> Path:
    return cache_root() / "kernel-compile" / f"{key}.json"


def _cached(key: str, declarations: bytes) -> Compiled | None:
    """A pass stands whatever was declared since (declarations only grow, each a name no header defines); a failure
    only under the declarations it saw, as more may make the unit compile."""
    path = _cache_file(key)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if not data["passed"] and data.get("declarations") != declarations_digest(declarations):
        return None
    return Compiled(bool(data["passed"]), str(data["error"]), float(data["seconds"]), cached=True)


def _store(key: str, result: Compiled, declarations: bytes) -> None:
    path = _cache_file(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.part{os.getpid()}")
    part.write_text(json.dumps({"passed": result.passed, "error": result.error, "seconds": result.seconds,
                                "declarations": declarations_digest(declarations)}), encoding="utf-8")
    part.replace(path)
