"""Which sources the prefix is built from, the key its cache is stored under, and where that cache lives.

The key is a hash of each source repo's git HEAD (or, outside git, its marker file's size and mtime), so a
changed source gives a new prefix and an unchanged one is reused. protobuf is keyed on its own version only:
a prefix rebuild must not rebuild it (it is the slowest step).
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from ..cann_sources import REPOSITORIES
from ..errors import OpgenError

# repo folder -> a file showing it is really there (as laid out by the sources dir)
PREFIX_SOURCES: dict[str, str] = {
    "ops-nn": "build.sh",
    "ops-tensor": "CMakeLists.txt",
    "cmake": "third_party",
    "metadef": "inc/external/exe_graph",
    "ge": "inc/graph_metadef/external",
    "opbase": "pkg_inc/op_common",
    "runtime": "include/external",
    "asc-devkit": "include/utils/tiling/template_argument.h",
    "libboundscheck": "include/securec.h",
    "json": "include",
    "googletest": "googletest/include/gtest/gtest.h",
}
EXTRA_REPOSITORIES = {
    "ops-tensor": "https://gitcode.com/cann/ops-tensor.git",
    "cmake": "https://gitcode.com/cann/cmake.git (at the tag ops-nn pins in cmake/third_party/fetch_cann_cmake.cmake)",
}
PROTOBUF_VERSION = "3.21.12"


def missing_sources(src: Path) -> list[str]:
    """One line per absent repo, naming the folder and how to get it."""
    lines = []
    for name, marker in PREFIX_SOURCES.items():
        if not (src / name / marker).exists():
            where = REPOSITORIES.get(name) or EXTRA_REPOSITORIES[name]
            lines.append(f"{src / name} (no {marker}): git clone {where} {src / name}")
    return lines


def check_sources(src: Path) -> None:
    """Raise one message listing every missing repo, before anything is built or written."""
    missing = missing_sources(src)
    if missing:
        raise OpgenError("--cann-src is missing sources the prefix needs:\n  " + "\n  ".join(missing))


def _repo_state(repo: Path, marker: str) -> str:
    if (repo / ".git").exists():
        done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=False)
        if done.returncode == 0:
            return done.stdout.strip()
    stat = (repo / marker).stat()
    return f"nogit:{stat.st_size}:{stat.st_mtime_ns}"


def sources_key(src: Path) -> str:
    """A short hash of every prefix source's state: the cache entry's name."""
    digest = hashlib.sha256()
    for name, marker in sorted(PREFIX_SOURCES.items()):
        digest.update(f"{name}={_repo_state(src / name, marker)}\n".encode())
    return digest.hexdigest()[:16]


def prefix_dir(cache: Path, src: Path, version: str) -> Path:
    """Where the prefix for these sources (and this prefix layout `version`) is, or will be, built."""
    return cache / "cann-prefix" / f"{sources_key(src)}-{version}"


def protobuf_dir(cache: Path) -> Path:
    """protobuf's own cache entry, outside every prefix so a prefix rebuild keeps it."""
    return cache / f"protobuf-{PROTOBUF_VERSION}-abi0"


def is_built(prefix: Path) -> bool:
    """A cache hit: the build wrote its completion stamp last."""
    return (prefix / "BUILT").is_file()
