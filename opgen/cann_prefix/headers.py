"""The prefix's headers: symlink trees of the open sources laid out where an installed toolkit has them,
so ops-nn's cmake (which only knows toolkit paths) finds every include without copying a file."""

from __future__ import annotations

import os
from pathlib import Path

# (source dir under --cann-src, dir under x86_64-linux): merged in order, the first writer of a file wins
HEADER_TREES: tuple[tuple[str, str], ...] = (
    ("metadef/inc/external", "include"),
    ("ge/inc/graph_metadef/external", "include"),
    ("ge/inc/external", "include"),
    ("runtime/include/external", "include"),
    ("libboundscheck/include", "include"),
    ("runtime/pkg_inc/platform", "include/platform"),
    ("runtime/pkg_inc/base", "include/toolchain"),
    ("opbase/include/nnopbase/aclnn", "include/aclnn"),
    ("opbase/include/nnopbase", "include/aclnn"),
    ("asc-devkit/include/adv_api", "include/tiling"),
    ("asc-devkit/include/utils/tiling", "include/tiling"),
    ("asc-devkit/include/utils/tiling", "include/ascendc/host_api/tiling"),
    ("metadef/pkg_inc", "pkg_inc"),
    ("runtime/pkg_inc", "pkg_inc"),
    ("opbase/pkg_inc", "pkg_inc"),
    ("metadef/inc/external", "include/external"),
    ("runtime/include/dfx", "include"),
    ("ge/inc/graph_metadef/external", "include/external"),
    ("metadef/inc/external/asc", "include"),
    ("runtime/pkg_inc/aicpu_sched/common", "pkg_inc"),
)
# single headers a toolkit also has in a second place
HEADER_LINKS: tuple[tuple[str, str], ...] = (
    ("asc-devkit/include/utils/tiling/platform/platform_ascendc.h", "include/platform/platform_ascendc.h"),
    ("asc-devkit/include/utils/tiling/platform/platform_ascendc_log.h", "include/platform/platform_ascendc_log.h"),
)


def merge_tree(src: Path, dst: Path) -> int:
    """Link every file of `src` into `dst` (dirs made real), keeping files already there; returns links made."""
    made = 0
    for dirpath, _dirs, files in os.walk(src):
        target = dst / Path(dirpath).relative_to(src)
        target.mkdir(parents=True, exist_ok=True)
        for name in files:
            link = target / name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(Path(dirpath) / name)
                made += 1
    return made


def lay_out_headers(cann_src: Path, prefix: Path) -> None:
    """Fill `prefix/x86_64-linux/{include,pkg_inc}` and the toolkit's top-level links to them."""
    arch = prefix / "x86_64-linux"
    for source, dest in HEADER_TREES:
        if (cann_src / source).is_dir():
            merge_tree(cann_src / source, arch / dest)
    for source, dest in HEADER_LINKS:
        link = arch / dest
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink() and (cann_src / source).is_file():
            link.symlink_to(cann_src / source)
    for name in ("include", "pkg_inc", "lib64"):
        (arch / name).mkdir(parents=True, exist_ok=True)
        top = prefix / name
        if not top.is_symlink():
            top.symlink_to(Path("x86_64-linux") / name)


def link_kernel_tiling(stage: Path, prefix: Path) -> None:
    """asc-devkit's generated `kernel_tiling/kernel_tiling.h` (the kernel tier's stage makes it with asc-devkit's own
    script) where a toolkit's include dir has it: adv_api tiling headers an op's host tiling includes need it."""
    link = prefix / "x86_64-linux" / "include" / "kernel_tiling"
    if not link.is_symlink() and not link.exists():
        link.symlink_to(stage / "kernel_tiling")
