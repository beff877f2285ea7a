"""The prefix's cache key, cache location and missing-source messages (offline, no build)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opgen.cann_prefix import layout
from opgen.cann_sources import cache_root
from opgen.errors import OpgenError


def _fake_sources(root: Path) -> Path:
    for name, marker in layout.PREFIX_SOURCES.items():
        path = root / name / marker
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    return root


def test_complete_sources_pass_the_check(tmp_path: Path) -> None:
    layout.check_sources(_fake_sources(tmp_path))


def test_missing_repo_is_named_with_how_to_get_it(tmp_path: Path) -> None:
    src = _fake_sources(tmp_path)
    (src / "metadef" / layout.PREFIX_SOURCES["metadef"]).unlink()
    with pytest.raises(OpgenError) as err:
        layout.check_sources(src)
    text = str(err.value)
    assert "metadef" in text and "git clone https://gitcode.com/cann/metadef.git" in text
    assert len(layout.missing_sources(src)) == 1


def test_key_is_stable_and_changes_with_a_source(tmp_path: Path) -> None:
    src = _fake_sources(tmp_path)
    first = layout.sources_key(src)
    assert layout.sources_key(src) == first
    marker = src / "runtime" / layout.PREFIX_SOURCES["runtime"]
    marker.write_text("changed source")
    os.utime(marker, ns=(1, 1))
    assert layout.sources_key(src) != first


def test_real_sources_are_complete(cann_src: Path) -> None:
    assert layout.missing_sources(cann_src) == []


def test_cache_root_order(tmp_path: Path) -> None:
    assert cache_root({"OPGEN_CACHE": str(tmp_path / "c"), "XDG_CACHE_HOME": "/x"}) == tmp_path / "c"
    assert cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "opgen"


def test_hit_and_miss_and_protobuf_kept_apart(tmp_path: Path) -> None:
    src = _fake_sources(tmp_path / "src")
    cache = tmp_path / "cache"
    prefix = layout.prefix_dir(cache, src, "v1")
    assert not layout.is_built(prefix)
    prefix.mkdir(parents=True)
    (prefix / "BUILT").write_text("")
    assert layout.is_built(prefix)
    assert layout.protobuf_dir(cache).parent == cache
    assert layout.prefix_dir(cache, src, "v1") not in layout.protobuf_dir(cache).parents
    assert layout.prefix_dir(cache, src, "v2") != prefix  # a new layout version builds apart


def test_headers_are_linked_where_a_toolkit_has_them(tmp_path: Path) -> None:
    from opgen.cann_prefix.headers import lay_out_headers

    src = tmp_path / "src"
    (src / "metadef/inc/external/graph").mkdir(parents=True)
    (src / "metadef/inc/external/graph/types.h").write_text("// metadef")
    (src / "ge/inc/external/graph").mkdir(parents=True)
    (src / "ge/inc/external/graph/types.h").write_text("// ge")
    (src / "runtime/pkg_inc/base").mkdir(parents=True)
    (src / "runtime/pkg_inc/base/dlog_pub.h").write_text("")
    prefix = tmp_path / "ascend"
    lay_out_headers(src, prefix)
    types = prefix / "include/graph/types.h"
    assert types.read_text() == "// metadef"  # the first tree wins
    assert (prefix / "include/toolchain/dlog_pub.h").is_symlink()
    assert (prefix / "pkg_inc/base/dlog_pub.h").exists()
    lay_out_headers(src, prefix)  # a second run changes nothing and does not fail


def test_toolkit_markers_packages_and_stand_ins(tmp_path: Path) -> None:
    import subprocess

    from opgen.cann_prefix.toolkit import STUBS, lay_out_toolkit

    prefix = tmp_path / "ascend"
    lay_out_toolkit(tmp_path / "src", prefix)
    lay_out_toolkit(tmp_path / "src", prefix)  # rerun-safe
    assert (prefix / "share/info/metadef/version.info").read_text() == "Version=9.1.0\n"
    assert (prefix / "compiler/tikcpp/ascendc_kernel_cmake").is_symlink()
    assert all((prefix / rel).is_file() for rel in STUBS)
    ran = subprocess.run([str(prefix / "bin/gen_esb")], capture_output=True, text=True, check=False)
    assert ran.returncode == 1 and "not available" in ran.stderr
    assert (prefix / "x86_64-linux/asc").resolve() == (tmp_path / "src/asc-devkit").resolve()


def test_the_tikicpulib_config_defines_the_targets_the_run_names(tmp_path: Path) -> None:
    """ops-nn's find_package(tikicpulib) reads the prefix's config; the kernel UT targets come from the file
    OPGEN_TIKICPULIB_TARGETS names (prepared per run), and without it find_package still succeeds."""
    import os
    import subprocess

    from opgen.cann_prefix.toolkit import lay_out_toolkit
    from opgen.check.kernel.tikicpulib import ENV

    prefix = tmp_path / "ascend"
    lay_out_toolkit(tmp_path / "src", prefix)
    targets = tmp_path / "targets.cmake"
    targets.write_text('message(STATUS "opgen targets for ascend910b1")\n')
    probe = tmp_path / "probe.cmake"
    probe.write_text(f'include("{prefix}/tools/tikicpulib/lib/cmake/tikicpulib-config.cmake")\n'
                     'message(STATUS "found=${tikicpulib_FOUND}")\n')

    def configure(env: dict[str, str]) -> str:
        done = subprocess.run(["cmake", "-P", str(probe)], capture_output=True, text=True, check=True, env=env)
        return done.stdout + done.stderr

    base = {k: v for k, v in os.environ.items() if k != ENV}
    assert "opgen targets for ascend910b1" in configure({**base, ENV: str(targets)})
    alone = configure(base)
    assert "found=TRUE" in alone and "opgen targets" not in alone


def test_workspace_is_a_git_copy_with_its_neighbours(tmp_path: Path) -> None:
    from opgen.cann_prefix.workspace import make_workspace

    src = tmp_path / "src"
    for name in ("ops-nn", "opbase", "ops-tensor"):
        (src / name).mkdir(parents=True)
        (src / name / "CMakeLists.txt").write_text(name)
    ops_nn = make_workspace(src, tmp_path / "out")
    assert (ops_nn / ".git").is_dir() and (ops_nn / "CMakeLists.txt").read_text() == "ops-nn"
    assert (ops_nn / "../../ops-base/CMakeLists.txt").read_text() == "opbase"
    assert (ops_nn / "../ops-tensor/CMakeLists.txt").read_text() == "ops-tensor"
    assert make_workspace(src, tmp_path / "out") == ops_nn  # reused


def test_a_scratch_copy_left_changed_by_a_killed_run_is_put_back(tmp_path: Path) -> None:
    """Killed while its op was placed, a run left the generated op over upstream's and upstream's in the build
    dir's backup: every later run in that slot stopped on 'a backup from an interrupted validate'."""
    from opgen.cann_prefix.workspace import make_workspace

    src = tmp_path / "src"
    for name in ("ops-nn", "opbase", "ops-tensor"):
        (src / name).mkdir(parents=True)
        (src / name / "CMakeLists.txt").write_text(name)
    (src / "ops-nn" / ".gitignore").write_text("build/\n")
    (src / "ops-nn/activation/gelu").mkdir(parents=True)
    (src / "ops-nn/activation/gelu/gelu.cpp").write_text("upstream")
    ops_nn = make_workspace(src, tmp_path / "out")
    (ops_nn / "build/.opgen_backup/activation__gelu").mkdir(parents=True)
    (ops_nn / "build/objects.o").write_text("kept")
    (ops_nn / "activation/gelu/gelu.cpp").write_text("generated")
    (ops_nn / "activation/new_op").mkdir()
    (ops_nn / "activation/new_op/new_op.cpp").write_text("generated")
    assert make_workspace(src, tmp_path / "out") == ops_nn
    assert (ops_nn / "activation/gelu/gelu.cpp").read_text() == "upstream"
    assert not (ops_nn / "activation/new_op").exists() and not (ops_nn / "build/.opgen_backup").exists()
    assert (ops_nn / "build/objects.o").read_text() == "kept"


def test_third_party_copies_are_where_ops_nn_cmake_looks(tmp_path: Path) -> None:
    from opgen.cann_prefix.third_party import lay_out_copies

    src = tmp_path / "src"
    (src / "cmake" / "third_party").mkdir(parents=True)
    (src / "cmake" / "third_party" / "json.cmake").write_text("# j\n")
    (src / "json" / "include" / "nlohmann").mkdir(parents=True)
    (src / "json" / "include" / "nlohmann" / "json.hpp").write_text("// h\n")
    third = tmp_path / "third_party"
    lay_out_copies(src, third)
    assert (third / "cann-cmake" / "third_party" / "json.cmake").read_text() == "# j\n"
    assert (third / "lib_cache" / "json" / "include" / "nlohmann" / "json.hpp").is_file()


@pytest.mark.skipif(not os.environ.get("OPGEN_BUILD_PREFIX"), reason="builds googletest (~20 s): OPGEN_BUILD_PREFIX=1")
def test_gtest_is_built_with_abi0_where_cann_cmake_finds_it(cann_src: Path, tmp_path: Path) -> None:
    import subprocess

    from opgen.cann_prefix.third_party import build_gtest

    dest = build_gtest(cann_src, tmp_path / "tp", tmp_path / "build")
    assert dest == tmp_path / "tp" / "lib_cache" / "gtest"
    symbols = subprocess.run(["nm", "-C", str(dest / "lib" / "libgtest.a")], capture_output=True, text=True).stdout
    # ABI 0 spells std::string without the __cxx11 inline namespace
    assert "std::string" in symbols or "std::basic_string" in symbols
    assert "__cxx11" not in symbols


def test_dlog_sink_exports_both_linkages_and_empty_libraries_exist(tmp_path: Path) -> None:
    import shutil
    import subprocess

    from opgen.cann_prefix.stub_libs import EMPTY_LIBRARIES, build_stub_libraries

    if not shutil.which("g++"):
        pytest.skip("needs g++")
    build_stub_libraries(tmp_path / "lib64", tmp_path / "work")
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(tmp_path / "lib64" / "libunified_dlog.so")],
                             capture_output=True, text=True).stdout
    assert " DlogRecord\n" in symbols + "\n" and "_Z10DlogRecordiiPKcz" in symbols
    assert " CheckLogLevel" in symbols
    assert all((tmp_path / "lib64" / f"lib{name}.so").is_file() for name in EMPTY_LIBRARIES)
