"""The upstream parser on a small hand-written op dir: each registered fact read as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.errors import OpgenError
from opgen.upstream import OpFacts, parse_op_dir
from opgen.upstream.cmake import read_cmake
from opgen.upstream.docs import read_products
from opgen.upstream.opdef import read_def
from opgen.upstream.proto import read_protos

from .fixture_op import FILES, write_op


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> OpFacts:
    return parse_op_dir(write_op(tmp_path_factory.mktemp("foo_grad")))


def test_the_file_set_is_every_file_relative_and_sorted(facts: OpFacts) -> None:
    assert facts.files == tuple(sorted(FILES))


def test_proto_tensors_keep_order_kind_and_written_type(facts: OpFacts) -> None:
    proto = facts.proto
    assert proto is not None and proto.op_type == "FooGrad"
    assert [(t.kind, t.name) for t in proto.tensors] == [
        ("INPUT", "dy"), ("OPTIONAL_INPUT", "x"), ("DYNAMIC_INPUT", "xs"), ("OUTPUT", "z")]
    dy, x, xs, z = (t.type for t in proto.tensors)
    assert (dy.written, dy.symbol, dy.form, dy.dtypes) == ('"T"', "T", "list", ("DT_FLOAT", "DT_FLOAT16"))
    assert proto.datatypes["T"].written == "TensorType({DT_FLOAT16, DT_FLOAT})"
    assert (x.written, x.form, x.classes) == ("TensorType::RealNumberType()", "class", ("RealNumberType",))
    assert "DT_INT64" in x.dtypes and "DT_BOOL" not in x.dtypes
    assert xs.form == "mixed" and xs.dtypes == ("DT_DOUBLE", "DT_FLOAT", "DT_FLOAT16")
    assert (z.written, z.listed) == ("TensorType({DT_BF16, DT_FLOAT16})", ("DT_BF16", "DT_FLOAT16"))


def test_proto_attrs_keep_kind_type_and_default_as_written(facts: OpFacts) -> None:
    assert facts.proto is not None
    assert [(a.kind, a.name, a.type, a.default) for a in facts.proto.attrs] == [
        ("REQUIRED_ATTR", "mode", "String", None), ("ATTR", "alpha", "Float", "1.0f / 6.0f"),
        ("ATTR", "tag", "String", '"none"')]


def test_def_tensors_columns_and_flags(facts: OpFacts) -> None:
    definition = facts.definition
    assert definition is not None and definition.op_type == "FooGrad"
    dy, x, z = definition.tensors
    assert (dy.direction, dy.name, dy.param_type) == ("Input", "dy", "REQUIRED")
    assert dy.data_type == ("DT_FLOAT16", "DT_FLOAT")  # the file's `kDy` list, resolved
    assert dy.flags == {"AutoContiguous": ""}
    assert (x.param_type, x.unknown_shape_format, x.flags) == ("OPTIONAL", None, {"ValueDepend": "OPTIONAL"})
    assert (z.direction, z.format) == ("Output", ("FORMAT_ND", "FORMAT_ND"))


def test_def_attrs_with_attr_type_type_and_default(facts: OpFacts) -> None:
    assert facts.definition is not None
    assert [(a.name, a.attr_type, a.type, a.default) for a in facts.definition.attrs] == [
        ("mode", "REQUIRED", "String", None), ("alpha", "OPTIONAL", "Float", "1.0f / 6.0f"),
        ("tag", None, "String", '"none"')]


def test_def_socs_map_to_their_config_as_it_stood_at_add_config(facts: OpFacts) -> None:
    definition = facts.definition
    assert definition is not None
    assert list(definition.socs) == ["ascend910b", "ascend910_93", "ascend910", "ascend950"]
    assert definition.socs["ascend910b"] is None and definition.socs["ascend910_93"] is None  # the op's own
    small, big = definition.socs["ascend910"], definition.socs["ascend950"]
    assert small is not None and big is not None
    assert small.flags == {"DynamicCompileStaticFlag": "true", "PrecisionReduceFlag": "false"}
    assert [(t.name, t.data_type) for t in small.tensors] == [("dy", ("DT_FLOAT",))]
    assert big.flags == {"DynamicCompileStaticFlag": "true"}  # PrecisionReduceFlag came after AddConfig
    assert big.extend_cfg_info == {"opFile.value": "foo_grad_apt", "opInterface.value": "foo_grad"}
    assert definition.other_calls == ("this->AICore().SetCheckSupport(CheckFoo)",)


def test_infershape_and_tiling_registrations(facts: OpFacts) -> None:
    by_macro = {r.macro: r for r in facts.registrations}
    infer = by_macro["IMPL_OP_INFERSHAPE"]
    assert (infer.file, infer.op_type) == ("op_host/foo_grad_infershape.cpp", "FooGrad")
    assert infer.call("InferShape") == "Ops::Base::InferShape4Elewise"
    assert infer.call("InferDataType") == "InferDtypeFoo"
    tiling = by_macro["IMPL_OP_OPTILING"]
    assert tiling.calls == (("Tiling", "TilingFoo"), ("TilingParse", "TilingPrepareFoo"))
    assert tiling.call("InferShape") is None


def test_aclnn_functions_with_typed_ordered_params_and_export(facts: OpFacts) -> None:
    (header,) = facts.aclnn
    assert header.file == "op_host/op_api/aclnn_foo_backward.h"
    first = header.function("aclnnFooBackwardGetWorkspaceSize")
    second = header.function("aclnnFooBackward")
    assert first is not None and second is not None
    assert (first.return_type, first.aclnn_api, second.aclnn_api) == ("aclnnStatus", True, False)
    assert [(p.type, p.name) for p in first.params] == [
        ("const aclTensor*", "gradOutput"), ("const aclScalar*", "alpha"), ("char*", "mode"), ("bool", "flag"),
        ("aclTensor*", "out"), ("uint64_t*", "workspaceSize"), ("aclOpExecutor**", "executor")]
    assert second.params[-1].type == "const aclrtStream"


def test_cmake_calls_with_keywords_and_expanded_support_lists(facts: OpFacts) -> None:
    root, kernel = facts.cmake
    assert root.file == "CMakeLists.txt" and kernel.file == "op_kernel/CMakeLists.txt"
    assert root.variables == {"SUPPORT_COMPUTE_UNIT": ("ascend910b", "ascend950"),
                              "SUPPORT_TILING_DIR": ("arch22", "arch35")}
    (modules,) = root.calls  # add_subdirectory is no registration
    assert modules.command == "add_modules_sources"
    assert modules.args["OPTYPE"] == ("foo_grad",) and modules.args["ACLNNTYPE"] == ("aclnn_exclude",)
    assert modules.args["COMPUTE_UNIT"] == ("ascend910b", "ascend950")
    assert modules.args["TILING_DIR"] == ("arch22", "arch35") and modules.args["DISABLE_IN_OPP"] == ("TRUE",)
    assert modules.args["HOSTNAME"] == ("${OPHOST_NAME}",)  # not set in the file: kept as written
    assert [c.args for c in kernel.calls] == [
        {"COMPUTE_UNITS": ("ascend910b",)},
        {"KERNEL_SRC": ("arch35/foo_grad.cpp",), "COMPUTE_UNITS": ("ascend950",), "AUTO_SYNC": ("false",),
         "OPTIONS": ("--a=1", "--b")}]


def test_docs_product_rows_from_a_table_and_a_list(facts: OpFacts) -> None:
    readme, doc = facts.docs
    assert readme.file == "README.md"
    assert [(r.product, r.supported) for r in readme.rows] == [
        ("Ascend 950PR/Ascend 950DT", True), ("Atlas A2 训练系列产品/Atlas A2 推理系列产品", False)]
    assert [(r.product, r.supported) for r in doc.rows] == [
        ("Ascend 950PR/Ascend 950DT", True), ("Atlas 训练系列产品", False)]


def test_a_doc_without_a_product_section_has_no_table() -> None:
    assert read_products("# Op\n\nonly prose\n", "README.md") is None


def test_facts_are_frozen_and_round_trip_through_json(facts: OpFacts) -> None:
    with pytest.raises(ValueError):
        facts.files = ()  # type: ignore[misc]
    assert OpFacts.model_validate_json(facts.model_dump_json()) == facts


def test_an_unclosed_namespace_still_yields_the_reg_op() -> None:
    (proto,) = read_protos(b"namespace ge {\nREG_OP(A)\n .INPUT(x, TensorType({DT_FLOAT}))\n"
                           b" .OUTPUT(y, TensorType({DT_FLOAT}))\n .OP_END_FACTORY_REG(A)\n", "p.h")
    assert [t.name for t in proto.tensors] == ["x", "y"]


def test_a_bare_type_class_name_expands_like_its_tensor_type_form() -> None:
    (proto,) = read_protos(b"REG_OP(A).INPUT(x, TensorType(FloatingDataType)).OP_END_FACTORY_REG(A);", "p.h")
    assert proto.tensors[0].type.classes == ("FloatingDataType",)


@pytest.mark.parametrize(("source", "message"), [
    (b'REG_OP(A).INPUT(x, "T").OP_END_FACTORY_REG(A);', 'no .DATATYPE(T, ...) declares it'),
    (b"REG_OP(A).INPUT(x, TensorType::NoSuchType()).OP_END_FACTORY_REG(A);", "PROTO_TYPE_CLASSES"),
    (b"REG_OP(A).INPUT(x, TensorType(SOME_MACRO)).OP_END_FACTORY_REG(A);", "no DT_* or TensorType class"),
    (b"REG_OP(A).INPUT(x, TensorType({DT_FLOAT})).FANCY(y).OP_END_FACTORY_REG(A);", ".FANCY(...)"),
])
def test_a_proto_the_parser_cannot_read_is_one_clear_error(source: bytes, message: str) -> None:
    with pytest.raises(OpgenError) as raised:
        read_protos(source, "op_graph/a_proto.h")
    assert message in str(raised.value) and str(raised.value).startswith("op_graph/a_proto.h: ")


def test_add_config_of_an_undeclared_config_is_an_error() -> None:
    source = b'namespace ops { class A : public OpDef { public: explicit A(const char* n) : OpDef(n) {\n' \
             b'this->AICore().AddConfig("ascend950", cfg); } }; OP_ADD(A); }'
    with pytest.raises(OpgenError, match="no `OpAICoreConfig cfg;` before it"):
        read_def(source, "d.cpp")


def test_a_config_initialised_from_a_call_keeps_the_call() -> None:
    source = b'namespace ops { class A : public OpDef { public: explicit A(const char* n) : OpDef(n) {\n' \
             b'OpAICoreConfig c = MakeConfig(); c.PrecisionReduceFlag(true);\n' \
             b'this->AICore().AddConfig("kirinx90", c); } }; OP_ADD(A); }'
    definition = read_def(source, "d.cpp")
    assert definition is not None
    config = definition.socs["kirinx90"]
    assert config is not None and config.initializer == "MakeConfig()"
    assert config.flags == {"PrecisionReduceFlag": "true"}


def test_a_file_without_an_opdef_has_no_definition() -> None:
    assert read_def(b"int main() { return 0; }", "d.cpp") is None


def test_cmake_keeps_positional_arguments_of_other_commands() -> None:
    found = read_cmake(b"add_graph_plugin_sources()\nadd_foo(a ${B} [[c d]])\n", "CMakeLists.txt")
    assert [(c.command, c.args) for c in found.calls] == [
        ("add_graph_plugin_sources", {}), ("add_foo", {"": ("a", "${B}", "c d")})]


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p])
def test_a_missing_or_empty_dir_is_one_clear_error(tmp_path: Path, make: object) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(OpgenError, match="pass an op dir such as"):
        parse_op_dir(target)
