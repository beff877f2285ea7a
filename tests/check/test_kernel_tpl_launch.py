"""The launcher of upstream's template entries: tiling keys decoded into template arguments as asc-devkit's
EncodeTilingKey encodes them, the kernel-side tiling structs derived from a host TILING_DATA_DEF, and the harness
the host driver takes from an op's own tiling UT. Pure functions: no sources needed."""

from __future__ import annotations

from pathlib import Path

from opgen.check.kernel.host_tiling import TilingHarness
from opgen.check.kernel.tpl_launch import (
    TplArg,
    _uint_values,
    kernel_tiling_structs,
    launch_call,
    registered_tiling_struct,
    template_arguments,
    tpl_launcher,
)

BRC_MODES = (1, 2, 101, 102, 103, 104, 109, 201, 202, 301, 302, 303, 304, 305, 999)
LEAKY = (TplArg("schMode", "UINT", 16, BRC_MODES), TplArg("dType", "DTYPE", 8, ()))


def test_a_key_decodes_to_each_arguments_value_uint_by_index_dtype_by_value() -> None:
    """Hand-encoded: schMode 202 is index 8 of the list in 16 bits, then dType 3 in the next 8 bits."""
    key = 8 | 3 << 16
    assert template_arguments(LEAKY, key) == (202, 3)
    assert template_arguments(LEAKY, 0) == (1, 0)


def test_a_key_outside_the_declaration_decodes_to_nothing() -> None:
    assert template_arguments(LEAKY, 15) is None  # index 15 of a 15-value list
    assert template_arguments(LEAKY, 1 << 24) is None  # bits above the declared widths


def test_ranges_and_mixes_expand_as_parse_tpl_uint_value_does() -> None:
    ui_range, ui_list, ui_mix = 0, 1, 2  # template_argument.h's ASCENDC_TPL_UI_RANGE, _LIST, _MIX
    assert _uint_values([ui_list, 4, 9, 2], ui_range, ui_list, ui_mix) == (4, 9, 2)
    assert _uint_values([ui_range, 2, 0, 2, 10, 11], ui_range, ui_list, ui_mix) == (0, 1, 2, 10, 11)
    assert _uint_values([ui_mix, 1, 5, 6, 40, 41], ui_range, ui_list, ui_mix) == (5, 6, 40, 41)


def test_the_launcher_instantiates_only_the_decoded_keys_and_types_a_typename_parameter() -> None:
    args = (TplArg("D_T_X", "DTYPE", 8, ()), TplArg("BUFFER_MODE", "UINT", 8, (0, 1)))
    launcher = tpl_launcher("op", 3, args, [0 | 1 << 8, 0 | 1 << 8, 1], (True, False), {0: "float", 1: "half"})
    assert launcher.instantiations == ("&op<half, 0ULL>", "&op<float, 1ULL>")  # by key
    assert "case 256ULL: op<float, 1ULL>(args[0], args[1], args[2]); return;" in launcher.source
    assert "case 1ULL: op<half, 0ULL>(args[0], args[1], args[2]); return;" in launcher.source


def test_only_the_pipe_less_schedule_gets_a_stand_in_pipe() -> None:
    assert launch_call("k<202ULL>", "a", 202) == "{ AscendC::TPipe opgen_absent_pipe; k<202ULL>(a); }"
    assert launch_call("k<201ULL>", "a", 201) == "k<201ULL>(a);"


def test_a_host_tiling_def_becomes_the_plain_struct_the_kernel_reads(tmp_path: Path) -> None:
    (tmp_path / "op_host").mkdir()
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_host/x_tiling_def.h").write_text(
        "constexpr int64_t X_DIMS = 8;\nBEGIN_TILING_DATA_DEF(XTilingData)\nTILING_DATA_FIELD_DEF(int64_t, total);\n"
        "TILING_DATA_FIELD_DEF_ARR(uint32_t, 4, parts);\nTILING_DATA_FIELD_DEF_ARR(int64_t, X_DIMS, dims);\n"
        "END_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(X, XTilingData)\n")
    (tmp_path / "op_kernel/x.cpp").write_text("GET_TILING_DATA_WITH_STRUCT(XTilingData, t, tiling);\n")
    assert kernel_tiling_structs(tmp_path) == (
        "#include <cstdint>\nstruct XTilingData {\n    int64_t total;\n    uint32_t parts[4];\n"
        "    int64_t dims[8];\n};")
    assert registered_tiling_struct(tmp_path, "X", tmp_path / "op_kernel/x.cpp") == "XTilingData"
    (tmp_path / "op_kernel/x.h").write_text("struct XTilingData { int64_t total; };\n")
    assert kernel_tiling_structs(tmp_path) == ""  # the kernel defines its own


def test_the_host_driver_includes_what_the_ops_own_tiling_ut_includes(tmp_path: Path) -> None:
    tests = tmp_path / "tests/ut/op_host/arch35"
    tests.mkdir(parents=True)
    (tests / "test_x_tiling.cpp").write_text(
        '#include <gtest/gtest.h>\n#include "atvoss/broadcast/broadcast_tiling.h"\n'
        '#include "../../../../op_host/arch35/x_tiling.h"\n'
        "TEST(x, y) {\n    Ops::Base::BroadcastCompileInfo compile_info;\n}\n")
    harness = TilingHarness.of_tests(tmp_path, "arch35")
    assert harness == TilingHarness(("op_host/arch35/x_tiling.h",), "Ops::Base::BroadcastCompileInfo",
                                    ("atvoss/broadcast/broadcast_tiling.h",))


def test_without_a_tiling_ut_the_registered_compile_info_is_declared_by_the_driver(tmp_path: Path) -> None:
    (tmp_path / "op_host/arch35").mkdir(parents=True)
    (tmp_path / "op_host/arch35/x_tiling.cpp").write_text(
        "struct XCompileInfo {};\nIMPL_OP_OPTILING(X).Tiling(T).TilingParse<XCompileInfo>(P);\n")
    assert TilingHarness.of_tests(tmp_path, "arch35") == TilingHarness((), "XCompileInfo")
