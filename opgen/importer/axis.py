"""What `opgen import` writes for an op that works along an axis attr.

ops-nn's GLU family (glu_grad, swi_glu_grad, ge_glu_grad_v2, ...) registers the axis it splits along as
`Attr("dim")...Int(-1)`; its softmax family registers the axis it reduces along as `axes` or `axis` (mostly a
ListInt). A `dim` Int is imported as a split op (kernel arch35_split, a placeholder recipe that splits the input
infershape copies); any other axis attr is refused until opgen has reduce kernels.
"""

from __future__ import annotations

from collections.abc import Callable

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..errors import OpgenError
from ..upstream import OpFacts
from ..upstream.models import DefAttr

SPLIT_AXIS = "dim"
_REDUCE_AXES = {"axis", "axes"}


def split_axis(facts: OpFacts, where: Callable[[str], str]) -> DefAttr | None:
    """The `dim` Int attr a GLU-family op splits along; an axis attr it reduces along is refused at `where(name)`,
    the file:line registering it."""
    definition = facts.definition
    assert definition is not None
    for attr in definition.attrs:
        if attr.name == SPLIT_AXIS and attr.type == "Int":
            return attr
        if attr.name.lower() in _REDUCE_AXES | {SPLIT_AXIS}:
            raise OpgenError(f"{definition.op_type} takes the axis attr {attr.name!r} ({attr.type}): it reduces its "
                             "inputs along an axis (softmax family), which opgen has no kernel for yet; ops split "
                             "in halves along a `dim` Int attr (GLU family) are imported", where=where(attr.name))
    return None


def split_placeholder(split: str, outputs: list[str], axis: str, note: str) -> CommentedMap:
    """A recipe that only shapes the tree: each output joins the two halves of `split` along `axis`, times zero."""
    steps = CommentedSeq([f"a = first_half({split}, {axis})", f"b = second_half({split}, {axis})",
                          "za = muls(a, 0.0)", "zb = muls(b, 0.0)"])
    steps += [f"{name} = join_halves(za, zb, {axis})" for name in outputs]
    steps.yaml_set_start_comment(f"{note}; these steps only shape the tree (the split input is the one infershape "
                                 "copies)", indent=4)
    return CommentedMap(dtype="float32", variants={"default": steps})


def split_infershape(infershape: CommentedMap, inputs: list[str]) -> CommentedMap:
    """A split op's outputs take the shape of the input it splits (the gradient of a split input has its shape):
    the one upstream's infershape copies, else the first input, with a comment to check it."""
    if infershape.get("rule") == "same_as_input":
        return infershape
    data = CommentedMap(rule="same_as_input", input=inputs[0])
    data.yaml_add_eol_comment("imported: upstream's infershape copies no single input's shape; name the input the "
                              "op splits", "input")
    return data
