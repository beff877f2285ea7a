"""protobuf built with `_GLIBCXX_USE_CXX11_ABI=0`: ops-nn forces ABI 0 on every UT object, so the system's
libprotobuf (ABI 1) cannot be linked. The source is Debian's source package of the system protoc's version
(fetched with `apt-get source` through a private deb-src list, so the machine's apt setup is untouched);
the generated `.pb.cc` files then match the library. Cached in its own entry, apart from every prefix."""

from __future__ import annotations

import os
import re
import shutil
import tarfile
from pathlib import Path

from ..check.bounded import TOOL_TIMEOUT, run_bounded, run_tool
from ..errors import OpgenError
from ..jobs import JOBS
from ..locks import held_lock
from .layout import PROTOBUF_VERSION

ABI0 = "-D_GLIBCXX_USE_CXX11_ABI=0"
# Release appends -O3 after CMAKE_CXX_FLAGS, which undid the -O1 asked for: descriptor.cc took 50% more CPU
RELEASE_FLAGS = "-DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG"
HOW_TO_GET = ("protobuf's source: `apt-get source --download-only protobuf` with a deb-src line for the "
              f"Debian suite that ships protobuf {PROTOBUF_VERSION}, or put protobuf-{PROTOBUF_VERSION}.tar.gz "
              "(its orig tarball) in the protobuf cache dir")


def library(entry: Path) -> Path:
    return entry / "lib" / "libprotobuf.a"


def include_dir(entry: Path) -> Path:
    return entry / "include"


def _deb_src_list(work: Path) -> Path:
    """The machine's Debian sources turned into deb-src entries, in a list of our own."""
    lines: list[str] = []
    for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        text = path.read_text(errors="replace")
        for stanza in text.split("\n\n"):
            if re.search(r"^Types:.*\bdeb\b", stanza, re.M) and "debian" in stanza:
                lines.append(re.sub(r"^Types:.*$", "Types: deb-src", stanza.strip(), flags=re.M) + "\n")
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*.list"))]:
        if path.is_file():
            debs = [line for line in path.read_text(errors="replace").splitlines() if line.startswith("deb ")]
            lines += ["deb-src " + line[4:] + "\n" for line in debs if "debian" in line]
    if not lines:
        raise OpgenError("no Debian apt source configured; get " + HOW_TO_GET)
    listing = work / "apt" / "opgen.sources"
    listing.parent.mkdir(parents=True, exist_ok=True)
    listing.write_text("\n".join(lines))
    return listing


def fetch_source(work: Path) -> Path:
    """The orig tarball of protobuf PROTOBUF_VERSION, from a Debian source package."""
    tarball = work / f"protobuf_{PROTOBUF_VERSION}.orig.tar.gz"
    if tarball.is_file():
        return tarball
    listing = _deb_src_list(work)
    lists = work / "apt" / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    options = ["-o", f"Dir::Etc::SourceList={os.devnull}", "-o", f"Dir::Etc::SourceParts={listing.parent}",
               "-o", f"Dir::State::Lists={lists}"]
    pinned = f"protobuf={_debian_version(work, options)}"
    done = run_bounded(["apt-get", *options, "source", "--download-only", pinned], cwd=work, timeout=TOOL_TIMEOUT)
    if done.returncode != 0:
        raise OpgenError(f"apt-get source {pinned} failed ({done.stderr.strip()[-300:]}); get " + HOW_TO_GET)
    if not tarball.is_file():
        raise OpgenError(f"apt-get source gave no {tarball.name}; get " + HOW_TO_GET)
    return tarball


def _debian_version(work: Path, options: list[str]) -> str:
    """The Debian version of the source package carrying PROTOBUF_VERSION (the system protoc's)."""
    run_bounded(["apt-get", *options, "update"], cwd=work, timeout=TOOL_TIMEOUT)
    shown = run_bounded(["apt-cache", *options, "showsrc", "protobuf"], timeout=TOOL_TIMEOUT).stdout
    versions = re.findall(r"^Version: (\S+)", shown, re.M)
    for version in versions:
        if version.split(":")[-1].startswith(PROTOBUF_VERSION + "-"):
            return str(version)
    raise OpgenError(f"no protobuf {PROTOBUF_VERSION} source package (have: {versions}); get " + HOW_TO_GET)


def build_protobuf(entry: Path, jobs: int = JOBS) -> Path:
    """libprotobuf.a (ABI 0, PIC) and its headers under `entry`; kept once built. The prefix and the kernel tier's
    host tiling both ask for it, from two tiers of one check at once: one builds, the other waits and reads."""
    if library(entry).is_file():
        return entry
    with held_lock(entry.with_name(entry.name + ".lock")):
        if library(entry).is_file():
            return entry
        return _build(entry, jobs)


def _build(entry: Path, jobs: int) -> Path:
    work = entry.with_name(entry.name + ".build")
    work.mkdir(parents=True, exist_ok=True)
    tarball = fetch_source(work)
    src = work / f"protobuf-{PROTOBUF_VERSION}"
    if not src.is_dir():
        with tarfile.open(tarball) as archive:
            archive.extractall(work, filter="data")
    build = work / "build"
    run_tool(["cmake", "-S", str(src / "cmake"), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
              f"-DCMAKE_CXX_FLAGS={ABI0} -O1 -w", RELEASE_FLAGS, "-Dprotobuf_BUILD_TESTS=OFF",
              "-Dprotobuf_BUILD_PROTOC_BINARIES=OFF", "-Dprotobuf_BUILD_SHARED_LIBS=OFF",
              "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-Dprotobuf_WITH_ZLIB=OFF"])
    run_tool(["nice", "-n", "10", "ninja", "-C", str(build), f"-j{jobs}", "libprotobuf"])
    staged = entry.with_name(entry.name + ".part")
    shutil.rmtree(staged, ignore_errors=True)
    (staged / "lib").mkdir(parents=True)
    shutil.copytree(src / "src", include_dir(staged), ignore=shutil.ignore_patterns("*.cc", "*test*"))
    shutil.copyfile(build / "libprotobuf.a", library(staged))
    staged.rename(entry)
    return entry
