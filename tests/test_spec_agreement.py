"""The files of each sample say what its spec says: read back from the generated text, not the plan."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from conftest import GELU, GELU_DIR, RELU, RELU_DIR, SAMPLES

from opgen.check.readers import read_binary_json, read_def, read_proto, read_source, read_st_csv
from opgen.check.syntax import cpp_syntax_errors
from opgen.spec.load import load_spec
from opgen.spec.models import OpSpec

CASES = [(RELU, RELU_DIR), (GELU, GELU_DIR)]


def _combinations(spec: OpSpec) -> list[tuple[str, ...]]:
    count = spec.combination_count
    return list(zip(*(t.dtype_column(count) for t in spec.tensors), strict=True))


@pytest.mark.parametrize(("spec_path", "rel"), CASES)
def test_def_proto_json_and_st_agree_with_the_spec(spec_path: Path, rel: str) -> None:
    spec = load_spec(spec_path).spec
    op_dir = SAMPLES / rel
    name = spec.snake_name
    definition = read_def(read_source(op_dir, f"op_host/{name}_def.cpp"))  # type: ignore[arg-type]
    assert [(t.name, t.dtypes) for t in definition.tensors] == [
        (t.name, t.dtype_column(spec.combination_count)) for t in spec.tensors]
    assert [soc for soc, _ in definition.socs] == [p.soc for p in spec.platforms]

    proto = {t.name: t for t in read_proto(read_source(op_dir, f"op_graph/{name}_proto.h"))}  # type: ignore[arg-type]
    for tensor in spec.tensors:
        if isinstance(tensor.proto_dtypes, str):  # a named class: the proto spells that class
            assert proto[tensor.name].group == tensor.proto_dtypes
        else:
            assert proto[tensor.name].dtypes == frozenset(
                tensor.proto_dtypes or tensor.dtype_column(spec.combination_count))

    for platform in spec.platforms:
        op_type, entries = read_binary_json(op_dir / f"op_host/config/{platform.soc}/{name}_binary.json")
        assert op_type == spec.op_type
        assert [e.dtypes for e in entries] == _combinations(spec)
        assert len({e.bin_filename for e in entries}) == len(entries)

    rows = read_st_csv(next(op_dir.glob(f"tests/st/*/ttk_kernel_{name}_st.csv")))
    assert {row.dtypes for row in rows} == set(_combinations(spec))
    for dtypes in _combinations(spec):  # every combination runs every test shape of the spec
        key = dtypes[len(spec.inputs)]
        shape_rows = {r.testcase for r in rows if r.dtypes == dtypes and r.testcase.startswith(f"{name}_{key}_0")}
        assert len(shape_rows) >= len(spec.tests.shapes), dtypes


def test_arch35_tpl_macros_and_tiling_dispatch_cover_the_output_dtypes() -> None:
    op_dir = SAMPLES / RELU_DIR
    struct = (op_dir / "op_kernel/arch35/relu_grad_v2_tiling_struct.h").read_text()
    declared = re.search(r"ASCENDC_TPL_DTYPE_DECL\(dType, ([^)]*)\)", struct)
    assert declared is not None
    tiling = (op_dir / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp").read_text()
    dispatched = re.findall(r"outputDtype == ge::(DT_\w+)\) \{\s*dType = (TPL_\w+);", tiling)
    assert [tpl for _, tpl in dispatched] == [d.strip() for d in declared.group(1).split(",")]
    assert [ge for ge, _ in dispatched] == ["DT_BF16", "DT_FLOAT16", "DT_FLOAT", "DT_INT8", "DT_INT32", "DT_UINT8"]
    kernel = (op_dir / "op_kernel/relu_grad_v2_apt.cpp").read_text()
    assert re.findall(r"dType == (TPL_\w+)", kernel) == [tpl for _, tpl in dispatched]


def test_classic_tiling_table_and_kernel_keys_follow_the_spec() -> None:
    spec = load_spec(GELU).spec
    op_dir = SAMPLES / GELU_DIR
    tiling = (op_dir / "op_host/gelu_grad_tiling.cpp").read_text()
    rows = re.findall(r"\{GELU_GRAD_TILING_KEY_(\w+), ge::(DT_\w+), \d+, \d+\}", tiling)
    assert rows == [(p.soc.upper(), d) for p in spec.platforms for d in ("DT_FLOAT", "DT_FLOAT16", "DT_BF16")]
    kernel = (op_dir / "op_kernel/gelu_grad.cpp").read_text()
    assert [int(k) for k in re.findall(r"TILING_KEY_IS\((\d+)\)", kernel)] == [p.tiling_key for p in spec.platforms]


@pytest.mark.parametrize("rel", [RELU_DIR, GELU_DIR])
def test_every_file_parses_json_csv_python_and_cpp_after_macro_expansion(rel: str) -> None:
    op_dir = SAMPLES / rel
    files = [p for p in op_dir.rglob("*") if p.is_file() and ".opgen" not in p.parts]
    for path in files:
        if path.suffix == ".json":
            json.loads(path.read_text())
        elif path.suffix in (".cpp", ".h"):
            assert cpp_syntax_errors(path) == [], path
    golden = importlib.util.spec_from_file_location("golden_under_test", op_dir / "tests/assets/golden.py")
    assert golden is not None and golden.loader is not None
    module = importlib.util.module_from_spec(golden)
    golden.loader.exec_module(module)
    key = Path(rel).name
    assert callable(getattr(module, module.__golden__["kernel"][key]))
