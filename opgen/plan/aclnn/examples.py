"""Data of the example programs (aclnn two-phase call and GE IR graph): one dtype combination, typed host buffers."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...spec.models import OpSpec
from ..kernel.split import SplitKernel
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
    halved: bool = False  # a split op's half-shaped tensor: the example's shape with the axis halved

    @property
    def shape(self) -> str:
        """The aclnn example's shape variable for it."""
        return "halvedShape" if self.halved else "shape"

    @property
    def dims(self) -> str:
        """The GE IR example's."""
        return "halvedDims" if self.halved else "dims"


@dataclass(frozen=True)
class ExamplePlan:
    dtype: str  # the combination the examples run, by its first output dtype
    shape: str
    tensors: tuple[ExampleTensor, ...]  # aclnn parameters in API order
    graph_inputs: tuple[ExampleTensor, ...]  # op inputs in def order (GE IR example)
    leading: tuple[str, ...] = ()  # the inputs' and scalars' arguments in the API's order
    halved_shape: str = ""  # a split op: the shape with the axis halved (its half-shaped tensors')

    @property
    def inputs(self) -> tuple[ExampleTensor, ...]:
        return tuple(t for t in self.tensors if t.role == "input")

    @property
    def outputs(self) -> tuple[ExampleTensor, ...]:
        return tuple(t for t in self.tensors if t.role == "output")

    @property
    def call_args(self) -> str:
        return ", ".join([*self.leading, *(t.name for t in self.outputs)])


def example_plan(spec: OpSpec, by_name: dict[str, TensorPlan], combos: tuple[DtypeCombination, ...],
                 split: SplitKernel | None = None) -> ExamplePlan:
    """`split`: the op splits an input along an axis; its other tensors take the shape with the axis halved."""
    combo = next((c for c in combos if c.key.name == "float32"), combos[0])
    api = spec.aclnn.inputs + spec.aclnn.outputs if spec.aclnn else ()
    params = [(p.name, by_name[p.tensor]) for p in api]
    shape = tuple(spec.tests.shapes[0])
    halved = split.input_shapes(tuple(t for t in by_name.values() if t is not split.split), shape,
                                split.axis_default)[0] if split else ()
    whole = {split.split.name, split.joined.name} if split else set(by_name)

    def example(name: str, tensor: TensorPlan) -> ExampleTensor:
        made = _example_tensor(name, tensor, combo)
        return made if tensor.name in whole else replace(made, halved=True, elements="elements / 2")

    return ExamplePlan(
        dtype=combo.key.name, shape=", ".join(map(str, shape)), halved_shape=", ".join(map(str, halved)),
        tensors=tuple(example(name, tensor) for name, tensor in params),
        graph_inputs=tuple(example(t.name, by_name[t.name]) for t in spec.inputs),
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
