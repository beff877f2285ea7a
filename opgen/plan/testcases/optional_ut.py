"""op_host UT cases with the optional input absent: the input left out of the tensor list and its IR
instance count 0 (the instance-number arguments of ops-nn's TilingContextPara / InfershapeContextPara), so
`GetOptionalInputDesc` returns nullptr as it does for a graph without it."""

from __future__ import annotations

from dataclasses import replace

from ..registry.tensors import TensorPlan
from .ut_cases import InfershapeCase, TilingCase


def instance_args(inputs: list[TensorPlan], absent: TensorPlan, outputs: list[TensorPlan]) -> str:
    """`{1, 1, 0}, {1}`: one instance per IR input and output, none for the absent one."""
    ins = ", ".join("0" if t.name == absent.name else "1" for t in inputs)
    return f"{{{ins}}}, {{{', '.join('1' for _ in outputs)}}}"


def absent_tiling_cases(cases: list[TilingCase], inputs: list[TensorPlan], absent: TensorPlan,
                        outputs: list[TensorPlan], key_offset: int) -> list[TilingCase]:
    """Each succeeding case again without the input; its expected key moves to the absent path's TPL value."""
    index = [t.name for t in inputs].index(absent.name)
    return [replace(c, name=f"{c.name}_without_{absent.name}", inputs=c.inputs[:index] + c.inputs[index + 1:],
                    tiling_key=c.tiling_key + key_offset,
                    instance_args="{}, " + instance_args(inputs, absent, outputs)) for c in cases if c.succeeds]


def absent_infershape_cases(cases: list[InfershapeCase], inputs: list[TensorPlan], absent: TensorPlan,
                            outputs: list[TensorPlan]) -> list[InfershapeCase]:
    """Each case again without the input: the outputs still take the shape of the inputs given."""
    index = [t.name for t in inputs].index(absent.name)
    return [replace(c, name=f"{c.name}_without_{absent.name}", inputs=c.inputs[:index] + c.inputs[index + 1:],
                    instance_args=instance_args(inputs, absent, outputs)) for c in cases]
