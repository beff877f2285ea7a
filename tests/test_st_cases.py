"""The ST CSVs of the samples: several cores and tiles per SoC variant, edge values, higher ranks."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import GELU, GELU_DIR, RELU, RELU_DIR, SAMPLES

from opgen.plan.testcases.st_cases import read_st_value
from opgen.spec.load import load_spec
from opgen.spec.socs import SOCS, TILING_SOC_ALIASES

SPECS = [(RELU, RELU_DIR), (GELU, GELU_DIR)]
NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _rows(rel: str) -> list[dict[str, str]]:
    (path,) = (SAMPLES / rel / "tests" / "st").glob("*/ttk_kernel_*_st.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _tile_bound(rel: str, soc: str, dtype: str) -> int:
    """The most elements one UB tile can hold: the classic tiling's own table, else UB over one buffer each."""
    ub_bits = SOCS[soc].ub_bytes * 8
    tiling = next((SAMPLES / rel / "op_host").glob("*_tiling.cpp"), None)
    if tiling is not None:  # the classic tiling sizes the tile from the UB its basic API scratch leaves
        ge = {"float32": "DT_FLOAT", "float16": "DT_FLOAT16", "bfloat16": "DT_BF16"}[dtype]
        key = TILING_SOC_ALIASES.get(soc, soc).upper()
        row = re.search(rf"\{{\w+_TILING_KEY_{key}, ge::{ge}, (\d+), (\d+)\}}", tiling.read_text())
        assert row is not None, f"no tiling row for {soc} {dtype}"
        bits, scratch = int(row.group(1)), int(row.group(2))
        return (SOCS[soc].ub_bytes - scratch) * 8 // bits // 256 * 256
    row = next(r for r in _rows(rel) if read_st_value(r["output_dtypes"]) == (dtype,))
    names = read_st_value(row["input_dtypes"]) + read_st_value(row["output_dtypes"])
    bits = sum(1 if n == "uint1" else np.dtype(NUMPY.get(n, n)).itemsize * 8 for n in names)
    return ub_bits // bits


@pytest.mark.parametrize(("spec_path", "rel"), SPECS)
def test_every_soc_variant_has_a_row_over_all_its_cores_with_several_tiles(spec_path: Path, rel: str) -> None:
    spec = load_spec(spec_path).spec
    rows = _rows(rel)
    for platform in spec.platforms:
        soc = SOCS[platform.soc]
        mine = [r for r in rows if read_st_value(r["soc_series"] or "()") == (soc.short_version,)]
        assert mine, f"no ST row for {soc.name}"
        for row in mine:
            dtype = read_st_value(row["output_dtypes"])[0]
            elements = math.prod(read_st_value(row["output_shapes"])[0])
            assert elements >= soc.vector_cores * 2 * _tile_bound(rel, soc.name, dtype), row["testcase_name"]


@pytest.mark.parametrize(("spec_path", "rel"), SPECS)
def test_float_combinations_have_edge_rows_and_every_combination_the_5d_and_6d_shapes(spec_path: Path,
                                                                                     rel: str) -> None:
    spec = load_spec(spec_path).spec
    rows = _rows(rel)
    keys = set(spec.outputs[0].dtype_column(spec.combination_count))
    for key in keys:
        mine = [r for r in rows if read_st_value(r["output_dtypes"]) == (key,)]
        ranks = {len(read_st_value(r["output_shapes"])[0]) for r in mine}
        assert {5, 6} <= ranks, key
        if key not in NUMPY:
            continue
        values = [v for r in mine for rng in read_st_value(r["input_data_ranges"]) for v in rng]
        assert any(math.isnan(v) for v in values) and math.inf in values and -math.inf in values, key
        assert any(v == 0 and math.copysign(1, v) < 0 for v in values), f"{key}: no -0.0"
        info = ml_dtypes.finfo(NUMPY[key])
        cast = [abs(float(np.array(v, NUMPY[key]))) for v in values if v and math.isfinite(v)]
        assert any(0 < c < float(info.smallest_normal) for c in cast), f"{key}: no value that is a subnormal"


def test_st_values_read_as_the_kit_spells_them() -> None:
    value = read_st_value("((-1, 1, nan, -0.0, inf), (-inf, -inf))")
    assert math.isnan(value[0][2]) and value[0][4] == math.inf and value[1] == (-math.inf, -math.inf)
    assert math.copysign(1, value[0][3]) < 0
    with pytest.raises(ValueError, match="not a literal"):
        read_st_value("__import__('os').getcwd()")
