"""The arch35 kernel of an op whose recipe splits an input in halves along an axis (GLU grads), as upstream's
glu_grad and swi_glu_grad arch35 kernels are built.

The split input is viewed as rows of `[first | second]`, `rows` = the product of the dims before the axis and each
half `half` = (length along the axis / 2) x the product of the dims after it; every other tensor is rows of one
half, the output rows of both. A tile is `tileRows` rows of `tileCols` columns of a half: each half of the split
input is copied straight from its place in GM into its own UB buffer (a strided DataCopyPad: no copy of the input
is made), one register loop computes the output's two halves from them, and each is stored to its place the same
way. The host picks upstream's two shape modes: whole half-rows, several rows a tile, when one fits the buffer;
one row cut into chunks otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...spec.models import OpSpec
from ...spec.recipe import OPS, Step
from ..registry.attrs import AttrPlan
from ..registry.reserved import lower_camel, upper_camel
from ..registry.tensors import TensorPlan
from .lowering import lower
from .registers import TRAITS, RegisterLoop, duplicates, load_lines, register_loop, store_lines

# upstream glu_grad's arch35/glu_grad_tiling_key.h values for the SHAPE_MODE template argument
SHAPE_MODES = (("TPL_SMALL_SHAPE", 0), ("TPL_BIG_SHAPE", 1))


@dataclass(frozen=True)
class SplitBuffer:
    """One UB buffer of a tile: a recipe value, the GM tensor it is copied from or to, and where in a row."""

    value: str
    tensor: TensorPlan
    half: int  # 0 or 1: that half of a whole row; -1: the tensor is half-shaped, a row is the half
    queue: str  # the kernel's TQue member

    @property
    def pointer(self) -> str:
        return f"{'src' if self.tensor.role == 'input' else 'dst'}{upper_camel(self.value)}"

    @property
    def local(self) -> str:
        return f"{lower_camel(self.value)}Local"

    @property
    def row_length(self) -> str:
        """A row of the tensor in GM, in elements."""
        return "half" if self.half < 0 else "2 * half"

    @property
    def row_offset(self) -> str:
        """Where the buffer's part of a row starts, before the tile's column (a C++ prefix of `col`)."""
        return "half + " if self.half == 1 else ""

    @property
    def about(self) -> str:
        if self.half < 0:
            return f"{self.tensor.name}, whose rows are one half long"
        return f"the {('first', 'second')[self.half]} half of each row of {self.tensor.name}"


@dataclass(frozen=True)
class SplitKernel:
    split: TensorPlan  # the input split in halves
    joined: TensorPlan  # the output joined from halves
    axis: str  # the attr naming the axis
    loads: tuple[SplitBuffer, ...]  # in the loop's input order
    stores: tuple[SplitBuffer, ...]  # in the loop's output order
    function: str  # the vector function's name
    lines: tuple[str, ...]  # its C++ (traits, then the function), unindented
    axis_index: int  # the axis attr's place among the def's attrs
    axis_default: int
    cases: tuple[tuple[tuple[int, ...], int], ...] = ()  # the spec's test shapes of the split input with their axis

    @property
    def buffers(self) -> int:
        """UB buffers a tile takes (each BUFFER_NUM deep)."""
        return len(self.loads) + len(self.stores)

    def input_shapes(self, inputs: tuple[TensorPlan, ...], shape: tuple[int, ...],
                     axis: int) -> tuple[tuple[int, ...], ...]:
        """Each input's shape when the split input has `shape`: the others have it halved along `axis`."""
        halved = list(shape)
        halved[axis] //= 2
        return tuple(shape if t is self.split else tuple(halved) for t in inputs)

    @property
    def constants(self) -> tuple[tuple[str, int, str], ...]:
        """The host tiling's constants, as `split_tiling` computes with them: (name, value, why)."""
        return (("BUFFER_NUM", BUFFER_NUM, "the kernel's queues are double-buffered"),
                ("UB_BUFFERS", self.buffers, f"its queues: {self.queue_list}"),
                ("BLOCK_BYTES", BLOCK_BYTES, "a UB row is padded to whole blocks"),
                ("UB_RESERVED_BYTES", UB_RESERVED_BYTES, "UB left out of the tiles, as upstream glu_grad's"),
                ("MAX_TILE_ROWS", MAX_TILE_ROWS, "rows one DataCopyPad moves"),
                (self.axis_constant, self.axis_index, f"attr {self.axis}"))

    @property
    def kernel_constants(self) -> tuple[tuple[str, int, str], ...]:
        """The ones the kernel shares with the host tiling."""
        return tuple(c for c in self.constants if c[0] in ("BUFFER_NUM", "BLOCK_BYTES"))

    @property
    def axis_constant(self) -> str:
        return f"ATTR_{self.axis.upper()}_INDEX"

    @property
    def queue_list(self) -> str:
        return ", ".join(b.value for b in self.buffers_in_order)

    @property
    def ge_dtypes(self) -> tuple[str, ...]:
        """The split input's dtypes (every tensor's), each once, in its column order."""
        return tuple(dict.fromkeys(d.ge for d in self.split.dtypes))

    @property
    def dtype_names(self) -> str:
        return ", ".join(self.ge_dtypes)

    @property
    def dtype_refusal(self) -> str:
        """The C++ condition on which the tiling refuses the split input's dtype."""
        return " && ".join(f"dtype != ge::{ge}" for ge in self.ge_dtypes)

    def element_bytes(self, combination: int) -> int:
        """Bytes of an element of every tensor in a dtype combination (they share the split input's dtype)."""
        return self.split.dtypes[combination].size_bits // 8

    def buffer_elements(self, ub_bytes: int, combination: int) -> int:
        """Elements one UB buffer of the host tiling holds: a half-row past it takes the big-shape mode."""
        return tile_buffer_bytes(self.buffers, ub_bytes) // self.element_bytes(combination)

    @property
    def other_tensors(self) -> tuple[TensorPlan, ...]:
        """The tensors whose dtype and shape the tiling checks against the split input's."""
        return tuple(t for t in self.gm_tensors if t is not self.split)

    @property
    def expected_shape(self) -> dict[str, str]:
        """Per other tensor, the C++ shape it must have: the split input's (the output) or with the axis halved."""
        return {t.name: "splitShape" if t is self.joined else "halved" for t in self.other_tensors}

    @property
    def shape_rule(self) -> dict[str, str]:
        return {t.name: (f"{t.name} must have the shape of {self.split.name}" if t is self.joined else
                         f"{t.name} must have the shape of {self.split.name} with {self.axis} halved")
                for t in self.other_tensors}

    @property
    def buffers_in_order(self) -> tuple[SplitBuffer, ...]:
        return self.loads + self.stores

    @property
    def shape_modes(self) -> tuple[tuple[str, int], ...]:
        return SHAPE_MODES

    @property
    def shape_mode_list(self) -> str:
        return ", ".join(name for name, _ in SHAPE_MODES)

    @property
    def c_types(self) -> tuple[str, ...]:
        """The TPL DATATYPE values: the split input's dtypes, in its column order."""
        return tuple(f"C_{ge}" for ge in self.ge_dtypes)

    @property
    def dtype_decl(self) -> str:
        """T is the split input's dtype (every tensor has it)."""
        return (f"ASCENDC_TPL_DATATYPE_DECL(T, {', '.join(self.c_types)}, "
                f"ASCENDC_TPL_INPUT({self.split.index}))")

    @property
    def init_params(self) -> str:
        return ", ".join(f"GM_ADDR {t.name}" for t in self.gm_tensors)

    @property
    def init_args(self) -> str:
        return ", ".join(t.name for t in self.gm_tensors)

    @property
    def call_args(self) -> str:
        """The vector function's UB addresses: the stores, then the loads."""
        return ", ".join(f"(__ubuf__ T*){b.local}.GetPhyAddr()" for b in (*self.stores, *self.loads))

    @property
    def gm_tensors(self) -> tuple[TensorPlan, ...]:
        """The tensors the kernel addresses, each once, inputs first in def order."""
        seen = {b.tensor.name: b.tensor for b in (*self.loads, *self.stores)}
        return tuple(sorted(seen.values(), key=lambda t: (t.role != "input", t.index)))


def split_kernel(spec: OpSpec, tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...],
                 attrs: tuple[AttrPlan, ...]) -> SplitKernel:
    """The kernel of a recipe the spec check let through: one split input, one joined output. Every step is a
    register step (erf too, in the Pade form of the 16-bit fused DAGs: there is no DAG node to leave it to)."""
    op_type = spec.op_type
    by_name = {t.name: t for t in tensors}
    halves = {s.out: (str(s.args[0]), 0 if s.op == "first_half" else 1) for s in steps if OPS[s.op].along == "half"}
    (join,) = [s for s in steps if OPS[s.op].along == "join"]
    axis = str(join.args[2])
    joined_halves = {str(join.args[0]): 0, str(join.args[1]): 1}
    made = {s.out: s for s in lower(steps, "split") if not OPS[s.op].along}
    loop = register_loop(tuple(joined_halves), made)
    loads = []
    for value in loop.inputs:
        source, half = halves.get(value, (value, -1))
        loads.append(SplitBuffer(value, by_name[source], half, f"inQueue{upper_camel(value)}"))
    stores = tuple(SplitBuffer(value, by_name[join.out], half, f"outQueue{upper_camel(value)}")
                   for value, half in joined_halves.items())
    split = by_name[next(iter(halves.values()))[0]]
    function = f"{op_type}Compute"
    (attr,) = [a for a in attrs if a.name == axis]
    default = int(attr.value)
    cases = tuple((tuple(s), default) for s in spec.tests.shapes) + tuple(
        (tuple(c.shape), c.axis) for c in spec.tests.axis_cases)
    return SplitKernel(split, by_name[join.out], axis, tuple(loads), stores, function,
                       _function_lines(function, loop, tuple(loads), stores), attr.index, default, cases)


def _function_lines(name: str, loop: RegisterLoop, loads: tuple[SplitBuffer, ...],
                    stores: tuple[SplitBuffer, ...]) -> tuple[str, ...]:
    """`name<T>(dst..., src..., attrs..., count)`: the loop over `count` elements of UB, every tensor of type T."""
    params = [f"__ubuf__ T* {b.pointer}" for b in (*stores, *loads)] + [f"float attr{upper_camel(a)}"
                                                                         for a in loop.attrs] + ["uint32_t count"]
    lines = [*TRAITS, "",
             f"// {', '.join(loop.outputs)}: the recipe's register steps, one MicroAPI loop over the tile",
             "template <typename T>", f"__aicore__ inline void {name}({', '.join(params)})", "{",
             "    constexpr uint32_t lanes = AscendC::VECTOR_REG_WIDTH / sizeof(float);",
             "    uint16_t loops = AscendC::CeilDivision(count, lanes);"]
    lines += [f"    AscendC::MicroAPI::RegTensor<T> {loop.regs[b.value]}Packed;" for b in loads]
    lines.append("    AscendC::MicroAPI::RegTensor<T> outPacked;")
    lines += [f"    AscendC::MicroAPI::RegTensor<float> {reg};" for reg in loop.float_registers]
    lines += [f"    AscendC::MicroAPI::MaskReg {mask};" for mask in ("mask", *loop.preds)]
    lines += ["    __VEC_SCOPE__", "    {"]
    lines += [f"        {line}" for line in duplicates(loop)]
    lines += ["        for (uint16_t i = 0; i < loops; i++) {",
              "            mask = AscendC::MicroAPI::UpdateMask<float>(count);"]
    for b in loads:
        lines += [f"            {line}" for line in load_lines(b.value, loop.regs[b.value], "T",
                                                               f"{b.pointer} + i * lanes")]
    lines += [f"            {line}" for line in loop.body]
    for b in stores:
        lines += [f"            {line}" for line in store_lines(b.value, loop.regs[b.value], "T",
                                                                f"{b.pointer} + i * lanes", "outPacked")]
    lines += ["        }", "    }", "}"]
    return tuple(lines)


# the host tiling's constants (blueprints/arch35_split's op_host tiling prints the same numbers)
BUFFER_NUM = 2
BLOCK_BYTES = 32
UB_RESERVED_BYTES = 8 * 1024  # upstream glu_grad's RESERVED_SIZE_8K (op_host/glu_grad_tiling.cpp:24)
MAX_TILE_ROWS = 4095
DTYPE_KEY_BITS = 8  # ASCENDC_TPL_DATATYPE_DECL's width in the key (asc-devkit template_argument.h)


def tile_buffer_bytes(buffers: int, ub_bytes: int) -> int:
    """One UB buffer of the host tiling: the UB less the reserve, over every queue's BUFFER_NUM slots, in whole
    blocks."""
    return (ub_bytes - UB_RESERVED_BYTES) // (buffers * BUFFER_NUM) // BLOCK_BYTES * BLOCK_BYTES


@dataclass(frozen=True)
class SplitTiling:
    """What the host tiling computes for one launch: its key's shape mode, the used cores, the tiling data."""

    shape_mode: int
    used_cores: int
    fields: tuple[int, ...]  # the tiling data struct's fields, in order

    def key(self, dtype_code: int) -> int:
        """asc-devkit's EncodeTilingKey of (T, SHAPE_MODE): the 8-bit dtype, then the mode's index above it."""
        return dtype_code | self.shape_mode << DTYPE_KEY_BITS

    @staticmethod
    def mode_of(key: int) -> str:
        """The shape mode a key selects (upstream glu_grad's UT: float16 small-shape 1, bfloat16 big-shape 283)."""
        index = key >> DTYPE_KEY_BITS
        return SHAPE_MODES[index][0] if index < len(SHAPE_MODES) else f"unknown mode {index}"


TILING_FIELDS = ("rows", "half", "tileRows", "tileCols", "colTiles", "totalTiles", "tilesPerCore")


def split_tiling(shape: tuple[int, ...], axis: int, element_bytes: int, buffers: int, ub_bytes: int,
                 cores: int) -> SplitTiling:
    """The generated host tiling's formula (SplitIntoTiles), for the UTs' expected values."""
    axis = axis + len(shape) if axis < 0 else axis
    rows = math.prod(shape[:axis])
    half = shape[axis] // 2 * math.prod(shape[axis + 1:])
    buffer_bytes = tile_buffer_bytes(buffers, ub_bytes)
    row_bytes = -(-half * element_bytes // BLOCK_BYTES) * BLOCK_BYTES
    if row_bytes <= buffer_bytes:
        tile_rows = min(buffer_bytes // row_bytes, -(-rows // cores), MAX_TILE_ROWS)
        mode, tile_cols, col_tiles, total = 0, half, 1, -(-rows // tile_rows)
    else:
        tile_rows, tile_cols = 1, buffer_bytes // element_bytes
        col_tiles = -(-half // tile_cols)
        mode, total = 1, rows * col_tiles
    per_core = -(-total // cores)
    return SplitTiling(mode, -(-total // per_core), (rows, half, tile_rows, tile_cols, col_tiles, total, per_core))
