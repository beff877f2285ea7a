"""The op_host UT cases as the blueprints print them: one tensor, one infershape case, one tiling case.

Their own module so that every module deriving cases (ophost_tests, attr_cases, optional_ut) imports them
from below rather than from each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TensorCase:
    shape: str  # C++ initializer of the dims
    dtype: str  # ge::DataType enumerator


@dataclass(frozen=True)
class InfershapeCase:
    name: str
    inputs: tuple[TensorCase, ...]
    outputs: tuple[str, ...]  # dtypes; the executor starts every output with an empty shape
    expect: str  # GRAPH_SUCCESS | GRAPH_FAILED
    output_shapes: tuple[str, ...]
    instance_args: str = ""  # IR instance numbers, given when an optional input is absent
    soc: str = ""  # the short SoC version the case sets first (an infershape branching on the SoC), "" none


@dataclass(frozen=True)
class TilingCase:
    name: str
    inputs: tuple[TensorCase, ...]
    outputs: tuple[TensorCase, ...]
    expect: str
    tiling_key: int = 0
    block_dim: int = 0
    tiling_data: str = ""  # ExecuteTestCase's text of the tiling data (int64 words), "" where not computed
    fields: tuple[tuple[str, int], ...] = ()  # arch35: EleBaseTilingDataV2 fields computed here
    workspaces: str = ""
    instance_args: str = ""  # attrs and IR instance numbers, given when an optional input is absent
    classic_fields: tuple[int, ...] = ()  # classic: the values of TILING_FIELDS, which tiling_data prints
    ub_align: int = 0  # arch35: ElewiseTiling's ubFormer alignment (elements): 256 bytes of the DAG's narrowest dtype
    attr_checks: tuple[tuple[str, str], ...] = ()  # arch35: (tiling struct field, expected C++ literal) per attr

    @property
    def succeeds(self) -> bool:
        return self.expect == "GRAPH_SUCCESS"
