"""Where the CANN sources are: the open repos side by side (`--cann-src`, `OPGEN_CANN_SRC`) or an installed
toolkit (`--cann`, `OPGEN_CANN`). Every tier that compiles against CANN (headers, kernel, ut) and `validate`
asks this module for include dirs, so no user writes a list of 33 dirs by hand.

A toolkit is used only when asked for; `ASCEND_HOME_PATH` alone never switches it on, because a half-set
environment would silently change what `opgen check` proves.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .errors import OpgenError
from .kernel_tiling_def import read_regular, write_kernel_tiling_header

SRC_ENV = "OPGEN_CANN_SRC"
TOOLKIT_ENV = "OPGEN_CANN"

# folder name -> where to get it (the repository a `git clone` takes)
REPOSITORIES: dict[str, str] = {
    "ops-nn": "https://gitcode.com/cann/ops-nn.git",
    "ops-math": "https://gitcode.com/cann/ops-math.git",
    "metadef": "https://gitcode.com/cann/metadef.git",
    "ge": "https://gitcode.com/cann/ge.git",
    "opbase": "https://gitcode.com/cann/opbase.git",
    "runtime": "https://gitcode.com/cann/runtime.git",
    "asc-devkit": "https://gitcode.com/cann/asc-devkit.git",
    "asc-tools": "https://gitcode.com/cann/asc-tools.git",
    "libboundscheck": "https://gitee.com/openeuler/libboundscheck.git",
    "json": "https://github.com/nlohmann/json.git",
    "googletest": "https://github.com/google/googletest.git",
}
# what each use needs, and a file whose presence shows the repo is really there (not an empty dir)
MARKERS: dict[str, str] = {
    "ops-nn": "common/inc/op_host",
    "ops-math": "common/inc/external",
    "metadef": "inc/external/exe_graph",
    "ge": "inc/graph_metadef/external",
    "opbase": "pkg_inc/op_common",
    "runtime": "include/external",
    "asc-devkit": "include/utils/tiling/template_argument.h",
    "asc-tools": "cpudebug/include",
    "libboundscheck": "include/securec.h",
    "json": "single_include",
    "googletest": "googletest/include/gtest/gtest.h",
}
Use = Literal["headers", "kernel", "ut", "upstream"]
NEEDS: dict[Use, tuple[str, ...]] = {
    "upstream": ("ops-nn",),
    "headers": ("ops-nn", "ops-math", "metadef", "ge", "opbase", "runtime", "asc-devkit", "libboundscheck", "json"),
    "kernel": ("ops-nn", "opbase", "runtime", "asc-devkit", "asc-tools", "libboundscheck"),
    "ut": ("ops-nn", "ops-math", "metadef", "ge", "opbase", "runtime", "asc-devkit", "libboundscheck", "json",
           "googletest"),
}
ADV_API_LINKS = "impl/adv_api/cmake/kernel_headers.cmake"
KERNEL_SOURCE_DIR = "tbe_ascendc/op"  # stage dir standing where ops-nn's kernel build puts an op's kernel sources
STAGE_FORMAT = 4  # bump when the stage's layout changes: a stage of another layout is rebuilt (4: kernel_tiling.h
# derived by opgen, so a stage whose header the sources' script wrote is never reused)
_INSTALL_LINK = re.compile(
    r"CREATE_LINK\s+(\S+)\s+\$\{ASCENDC_INSTALL_BASE_PATH\}/asc/include/adv_api/(\S+?)\s+SYMBOLIC")


@dataclass(frozen=True)
class CannSources:
    """One resolved set of CANN sources. `kind` says which, `origin` which flag or variable named it."""

    kind: Literal["src", "toolkit"]
    root: Path
    origin: str

    @property
    def description(self) -> str:
        what = "open sources" if self.kind == "src" else "CANN toolkit"
        return f"{what} at {self.root} (from {self.origin})"

    def repo(self, name: str) -> Path:
        """A repo folder of an open-sources root."""
        return self.root / name

    def missing(self, use: Use) -> list[str]:
        """The repos `use` needs that are absent, each with how to get it; empty for a toolkit."""
        if self.kind == "toolkit":
            return []
        return [f"{name} (git clone {REPOSITORIES[name]} {self.root / name})"
                for name in NEEDS[use] if not (self.root / name / MARKERS[name]).exists()]

    def require(self, use: Use) -> CannSources:
        """Self, or OpgenError naming every missing repo and how to get it."""
        absent = self.missing(use)
        if absent:
            raise OpgenError(f"the {use} tier needs these repos in {self.root}: " + "; ".join(absent))
        return self

    def host_include_dirs(self, *, op_api: bool = False) -> list[Path]:
        """Include dirs for host files (def, infershape, tiling, proto; `op_api=True`: the aclnn wrapper)."""
        if self.kind == "toolkit":
            return _toolkit_dirs(self.root, op_api=op_api)
        r = self.root
        stage = stage_dir(self)
        dirs = [
            *_under(r / "opbase", "include", "include/op_common", "include/op_common/op_host",
                    "include/op_common/op_graph", "pkg_inc", "pkg_inc/op_common"),
            *_under(r / "metadef", "inc/external/asc", "inc/external", "inc/external/exe_graph", "inc", "pkg_inc"),
            *_under(r / "ge", "inc/graph_metadef/external", "inc/graph_metadef", "inc/external"),
            *_under(r / "runtime", "pkg_inc", "pkg_inc/runtime", "include/dfx", "include/external"),
            *_under(r / "asc-devkit", "include", "include/utils"),
            stage, stage / "tiling",
            r / "libboundscheck" / "include", r / "json" / "single_include",
            *_under(r / "ops-nn", ".", "common/inc", "common/inc/op_host", "common/inc/op_api"),
        ]
        if op_api:
            dirs += [r / "ops-math" / "common/inc/external", r / "ops-nn" / "common/stub/op_api",
                     *_under(r / "opbase", "include/nnopbase", "include/aclnnop"),
                     r / "runtime" / "pkg_inc/aicpu_sched/common"]
        return dirs

    def kernel_include_dirs(self) -> list[Path]:
        """Include dirs of an AscendC CPU-debug kernel build, in the order KERNEL-CHECK measured; the dir
        of intrinsic declarations (a toolkit's stub_fun.h, or opgen's derived one) goes before these."""
        if self.kind == "toolkit":
            t = self.root
            return [p for p in (t / "tools/tikicpulib/lib/include", t / "include", t / "include/ascendc",
                                t / "compiler/tikcpp/tikcfw", t / "compiler/tikcpp/tikcfw/impl",
                                t / "compiler/tikcpp/tikcfw/interface", t / "pkg_inc", t / "pkg_inc/op_common",
                                t / "include/op_common") if p.is_dir()]
        r, a = self.root, self.root / "asc-devkit"
        stage = stage_dir(self)
        return [
            r / "asc-tools" / "cpudebug/include",
            a / "include",
            *_under(a / "impl", "adv_api", "basic_api", "c_api", "simt_api", "utils"),
            *_under(a / "include", "adv_api", "adv_api/matmul", "aicpu_api", "basic_api", "c_api", "simt_api",
                    "utils", "tensor_api"),
            a,
            stage,
            r / "runtime" / "include/external",
            r / "libboundscheck" / "include",
            r / "ops-nn" / "common/inc",
            stage / KERNEL_SOURCE_DIR,
            *_under(r / "opbase", "pkg_inc/op_common", "pkg_inc", "include/op_common", "include"),
        ]

    def content_key(self, *names: str) -> str:
        """A hash of the named repos' files (path, size, mtime): caches built from them are keyed by it.
        Computed once per process: the sources do not change under one `opgen` run."""
        return _content_key(self.kind, self.root, names)


@functools.cache
def _content_key(kind: str, root: Path, names: tuple[str, ...]) -> str:
    digest = hashlib.sha256(kind.encode())
    for top in [root / n for n in names] if kind == "src" else [root]:
        digest.update(str(top).encode())
        for path in sorted(_files(top)):
            stat = path.stat()
            digest.update(f"{path.relative_to(top)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def resolve_sources(cann_src: Path | None = None, cann: Path | None = None,
                    env: Mapping[str, str] | None = None) -> CannSources | None:
    """The sources the user named: a flag first, then OPGEN_CANN_SRC, then OPGEN_CANN; None when nothing is
    named. OpgenError (exit 2) when a named place is not a directory or both kinds are given."""
    env = os.environ if env is None else env
    if cann_src is not None and cann is not None:
        raise OpgenError("pass either --cann-src (open sources) or --cann (a toolkit), not both")
    if cann_src is not None:
        return _sources("src", cann_src, "--cann-src")
    if cann is not None:
        return _sources("toolkit", cann, "--cann")
    if env.get(SRC_ENV):
        return _sources("src", Path(env[SRC_ENV]), SRC_ENV)
    if env.get(TOOLKIT_ENV):
        return _sources("toolkit", Path(env[TOOLKIT_ENV]), TOOLKIT_ENV)
    return None


def enable_hint(tier: str) -> str:
    """The one command that turns a SKIPPED source-dependent tier on."""
    return (f"no CANN sources: run `export {SRC_ENV}=DIR` (the open repos side by side, docs/check.md "
            f"'Getting the CANN sources') or pass --cann-src DIR / --cann TOOLKIT to run the {tier} tier")


CACHE_ENV = "OPGEN_CACHE"


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """Where every build opgen keeps lives (prefix, stage, CPU model, kernel builds, the watcher): OPGEN_CACHE,
    else $XDG_CACHE_HOME/opgen, else ~/.cache/opgen."""
    env = os.environ if env is None else env
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "opgen"


def keep_file(built: Path, target: Path) -> None:
    """Put a built file at its place in the cache whole: a reader sees the old one, none, or the new one, never a
    part, whichever process or thread wrote it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f"{target.name}.part{os.getpid()}-{threading.get_ident()}")
    shutil.copy2(built, part)
    part.replace(target)


def stage_dir(sources: CannSources) -> Path:
    """asc-devkit's headers at the paths an installed toolkit has them, plus `kernel_tiling/kernel_tiling.h`
    (derived by opgen, nothing in the sources is run); built once per asc-devkit content, in the user's cache dir."""
    devkit = sources.repo("asc-devkit")
    stage = cache_root() / "cann-stage" / f"{sources.content_key('asc-devkit')}-v{STAGE_FORMAT}"
    if (stage / "kernel_tiling" / "kernel_tiling.h").is_file():
        return stage
    part = stage.with_name(f"{stage.name}.part{os.getpid()}-{threading.get_ident()}")  # tiers stage in threads
    shutil.rmtree(part, ignore_errors=True)
    (part / "ascendc/host_api/tiling").mkdir(parents=True)
    (part / "tiling").mkdir()
    (part / "kernel_tiling").mkdir()
    (part / "ascendc/host_api/tiling/template_argument.h").symlink_to(
        devkit / "include/utils/tiling/template_argument.h")
    for entry in sorted((devkit / "include/adv_api").iterdir()):
        (part / "tiling" / entry.name).symlink_to(entry)
    (part / "tiling/platform").symlink_to(devkit / "include/utils/tiling/platform")
    (part / "tiling/context").symlink_to(devkit / "include/utils/context")
    (part / "platform").symlink_to(devkit / "include/utils/tiling/platform")
    # ops-nn's kernel build copies common/inc/op_kernel to tbe/ascendc/inc beside the op dirs it compiles
    # (cmake/gen_ops_info.cmake), so kernels include "../inc/platform.h"; a dir beside it resolves that
    (part / KERNEL_SOURCE_DIR).mkdir(parents=True)
    (part / KERNEL_SOURCE_DIR).parent.joinpath("inc").symlink_to(sources.root / "ops-nn/common/inc/op_kernel")
    _adv_api_lib(devkit, part / "lib")
    try:
        write_kernel_tiling_header(devkit / "include/adv_api", part / "kernel_tiling/kernel_tiling.h")
    except OpgenError:
        shutil.rmtree(part, ignore_errors=True)
        raise
    try:
        part.rename(stage)
    except OSError:  # another process finished the same stage first
        shutil.rmtree(part, ignore_errors=True)
    return stage


def _adv_api_lib(devkit: Path, lib: Path) -> None:
    """`lib/`: the toolkit's `tikcpp/tikcfw/lib`, which is asc-devkit's include/adv_api plus the links its install
    adds (impl/adv_api/cmake/kernel_headers.cmake, e.g. `matmul_intf.h` at the top): kernels include `lib/<name>.h`.
    Every dir on a link's path is a real dir of links here, so nothing is written into the sources."""
    source = devkit / "include/adv_api"
    _mirror(source, lib)
    text = read_regular(str(devkit / ADV_API_LINKS))
    for rel, dest in _INSTALL_LINK.findall(text):
        link = lib / dest
        for depth in range(1, len(Path(dest).parts)):  # each parent a real dir mirroring its source
            part = Path(*Path(dest).parts[:depth])
            _mirror(source / part, lib / part)
        target = (source / Path(dest).parent / rel).resolve()
        if target.exists() and not link.is_symlink() and not link.exists():
            link.symlink_to(target)


def _mirror(source: Path, dest: Path) -> None:
    """`dest` as a real dir whose entries link to `source`'s (replacing a link to `source` itself)."""
    if dest.is_symlink():
        dest.unlink()
    if dest.is_dir():
        return
    dest.mkdir(parents=True)
    for entry in sorted(source.iterdir()) if source.is_dir() else []:
        (dest / entry.name).symlink_to(entry)


def _sources(kind: Literal["src", "toolkit"], root: Path, origin: str) -> CannSources:
    if not root.is_dir():
        raise OpgenError(f"{origin}: {root} is not a directory")
    return CannSources(kind, root.resolve(), origin)


def _under(base: Path, *rels: str) -> list[Path]:
    return [base / rel if rel != "." else base for rel in rels]


def _toolkit_dirs(root: Path, *, op_api: bool) -> list[Path]:
    rels = ["include", "include/op_common", "include/op_common/op_host", "include/op_common/op_graph",
            "include/external", "pkg_inc", "pkg_inc/op_common", "pkg_inc/runtime", "include/ascendc/host_api",
            "include/tiling"]
    if op_api:
        rels += ["include/aclnn", "include/aclnnop", "include/nnopbase", "pkg_inc/aicpu_sched/common"]
    return [root / rel for rel in rels if (root / rel).is_dir()]


def _files(root: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file():
                yield path
