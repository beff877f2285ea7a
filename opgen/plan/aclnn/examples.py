"""Data of the example programs (aclnn two-phase call and GE IR graph): one dtype combination, typed host buffers."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.models import OpSpec
from ..registry.tensors import DtypeCombination, TensorPlan
from .aclnn_order import in_api_order, leading_names


@dataclass(frozen=True)
class ExampleTensor:
    name: str  # the aclnn parameter (aclnn example) or op tensor (graph example)
    tensor: str
    host: str  # C++ element type on the host
    acl: str  # aclDataType
    ge: str  # ge::DataType
    elements: str  # host element count expression over `elements`
    fill: str  # value of element i
    role: str
    proto: str = ""  # the tensor's REG_OP name (the GE IR example's set_input_<proto>)


@dataclass(frozen=True)
class ExamplePlan:
    dtype: str  # the combination the examples run, by its first output dtype
    shape: str
    tensors: tuple[ExampleTensor, ...]  # aclnn parameters in API order
    graph_inputs: tuple[ExampleTensor, ...]  # op inputs in def order (GE IR example)
    leading: tuple[str, ...] = ()  # the inputs' and scalars' arguments in the API's order

    @property
    def inputs(self) -> tuple[ExampleTensor, ...]:
        return tuple(t for t in self.tensors if t.role == "input")

    @property
    def outputs(self) -> tuple[ExampleTensor, ...]:
        return tuple(t for t in self.tensors if t.role == "output")

    @property
    def call_args(self) -> str:
        return ", ".join([*self.leading, *(t.name for t in self.outputs)])


def example_plan(spec: OpSpec, by_name: dict[str, TensorPlan], combos: tuple[DtypeCombination, ...]) -> ExamplePlan:
    combo = next((c for c in combos if c.key.name == "float32"), combos[0])
    api = spec.aclnn.inputs + spec.aclnn.outputs if spec.aclnn else ()
    params = [(p.name, by_name[p.tensor]) for p in api]
    return ExamplePlan(
        dtype=combo.key.name, shape=", ".join(map(str, spec.tests.shapes[0])),
        tensors=tuple(_example_tensor(name, tensor, combo) for name, tensor in params),
        graph_inputs=tuple(_example_tensor(t.name, by_name[t.name], combo) for t in spec.inputs),
        leading=tuple(in_api_order(spec.aclnn, leading_names(spec.aclnn))) if spec.aclnn else (),
    )


def _example_tensor(name: str, tensor: TensorPlan, combo: DtypeCombination) -> ExampleTensor:
    dtype = tensor.dtypes[combo.index]
    if tensor.is_bits:
        elements, fill = "(elements + 7) / 8", "0xA5"
    elif dtype.is_float and dtype.host == "float":
        elements, fill = "elements", "0.25f * static_cast<float>(i % 16) - 2.0f"
    elif dtype.is_float:
        elements, fill = "elements", "0x3C00" if dtype.name == "float16" else "0x3F80"  # 1.0 as bits
    else:
        elements, fill = "elements", f"static_cast<{dtype.host}>(i % 7)"
    if tensor.role == "output":
        fill = "0"
    return ExampleTensor(name, tensor.name, dtype.host, dtype.acl, dtype.ge, elements, fill, tensor.role,
                         tensor.proto_name)
