"""The dtypes ops-nn knows, with every spelling each file of a tree needs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dtype:
    """One tensor dtype and its names in each place of an ops-nn tree."""

    name: str  # binary JSON / TTK CSV / NumPy spelling
    ge: str  # ge::DataType enumerator (def, proto, tiling, aclnn)
    kernel: str  # AscendC C++ type in kernels
    tpl: str  # TPL_* macro of the arch35 tiling struct
    tpl_code: int
    size_bits: int
    is_float: bool
    acl: str  # aclDataType enumerator (aclnn examples and UT)
    host: str  # C++ type holding one element (or its bits) on the host in examples


_TABLE = (
    Dtype("float16", "DT_FLOAT16", "half", "TPL_FP16", 1, 16, True, "ACL_FLOAT16", "uint16_t"),
    Dtype("bfloat16", "DT_BF16", "bfloat16_t", "TPL_BF16", 2, 16, True, "ACL_BF16", "uint16_t"),
    Dtype("float32", "DT_FLOAT", "float", "TPL_FP32", 3, 32, True, "ACL_FLOAT", "float"),
    Dtype("int8", "DT_INT8", "int8_t", "TPL_INT8", 4, 8, False, "ACL_INT8", "int8_t"),
    Dtype("uint8", "DT_UINT8", "uint8_t", "TPL_UINT8", 5, 8, False, "ACL_UINT8", "uint8_t"),
    Dtype("int32", "DT_INT32", "int32_t", "TPL_INT32", 6, 32, False, "ACL_INT32", "int32_t"),
    Dtype("int16", "DT_INT16", "int16_t", "TPL_INT16", 7, 16, False, "ACL_INT16", "int16_t"),
    Dtype("int64", "DT_INT64", "int64_t", "TPL_INT64", 8, 64, False, "ACL_INT64", "int64_t"),
    Dtype("uint16", "DT_UINT16", "uint16_t", "TPL_UINT16", 9, 16, False, "ACL_UINT16", "uint16_t"),
    Dtype("uint32", "DT_UINT32", "uint32_t", "TPL_UINT32", 10, 32, False, "ACL_UINT32", "uint32_t"),
    Dtype("uint64", "DT_UINT64", "uint64_t", "TPL_UINT64", 11, 64, False, "ACL_UINT64", "uint64_t"),
    Dtype("bool", "DT_BOOL", "bool", "TPL_BOOL", 12, 8, False, "ACL_BOOL", "uint8_t"),
    Dtype("uint1", "DT_UINT1", "uint1_t", "TPL_UINT1", 13, 1, False, "ACL_UINT1", "uint8_t"),
)

MASK_DTYPES = frozenset({"uint1", "bool", "uint8"})  # dtypes a select mask input may have
DTYPES: dict[str, Dtype] = {d.name: d for d in _TABLE}
ALIASES: dict[str, str] = {"fp16": "float16", "half": "float16", "bf16": "bfloat16", "fp32": "float32",
                           "float": "float32"}


# Dtypes a graph proto may admit although no opgen kernel computes them (upstream LeakyReluGrad's proto takes
# DT_DOUBLE, SigmoidGrad's UnaryDataType complex): allowed in proto_dtypes, refused in def columns.
PROTO_ONLY_DTYPES: dict[str, Dtype] = {d.name: d for d in (
    Dtype("float64", "DT_DOUBLE", "double", "", 0, 64, True, "ACL_DOUBLE", "double"),
    Dtype("complex64", "DT_COMPLEX64", "", "", 0, 64, False, "ACL_COMPLEX64", ""),
    Dtype("complex128", "DT_COMPLEX128", "", "", 0, 128, False, "ACL_COMPLEX128", ""),
)}
PROTO_DTYPES: dict[str, Dtype] = DTYPES | PROTO_ONLY_DTYPES
PROTO_ALIASES: dict[str, str] = {"double": "float64", "fp64": "float64"}


def canonical_dtype(name: str) -> str:
    """The canonical spelling of a dtype a kernel computes, or ValueError naming the known ones."""
    key = ALIASES.get(name, name)
    if PROTO_ALIASES.get(key, key) in PROTO_ONLY_DTYPES:
        raise ValueError(f"{name!r} is admitted only in proto_dtypes: no opgen kernel computes it (AscendC has no "
                         f"{PROTO_ALIASES.get(key, key)} vector math); list it under proto_dtypes and keep dtypes to "
                         "the columns the kernel computes")
    if key not in DTYPES:
        known = ", ".join(sorted(DTYPES))
        raise ValueError(f"unknown dtype {name!r}; use one of: {known} (aliases: fp16, bf16, fp32)")
    return key


def canonical_proto_dtype(name: str) -> str:
    """A dtype of a proto's TensorType list: a kernel dtype or one the proto only admits (float64, complex)."""
    key = PROTO_ALIASES.get(name, name)
    return key if key in PROTO_ONLY_DTYPES else canonical_dtype(name)


def _ge(*names: str) -> frozenset[str]:
    return frozenset(f"DT_{n}" for n in names)


# The named ge::TensorType classes of metadef's graph/types.h a proto may use instead of a list, by the
# ge::DataType enumerators each admits (DT_DOUBLE, complex and quantized types included though opgen's
# kernels never take them).
PROTO_TYPE_CLASSES: dict[str, frozenset[str]] = {
    "RealNumberType": _ge("DOUBLE", "FLOAT", "FLOAT16", "INT16", "INT32", "INT64", "INT8", "UINT16", "UINT32",
                          "UINT64", "UINT8", "BF16"),
    "NumberType": _ge("COMPLEX128", "COMPLEX64", "DOUBLE", "FLOAT", "FLOAT16", "INT16", "INT32", "INT64", "INT8",
                      "QINT32", "QINT8", "QUINT8", "UINT16", "UINT32", "UINT64", "UINT8", "BF16", "COMPLEX32"),
    "BasicType": _ge("COMPLEX128", "COMPLEX64", "DOUBLE", "FLOAT", "FLOAT16", "INT16", "INT32", "INT64", "INT8",
                     "QINT16", "QINT32", "QINT8", "QUINT16", "QUINT8", "UINT16", "UINT32", "UINT64", "UINT8",
                     "BF16", "COMPLEX32"),
    "OrdinaryType": _ge("BOOL", "COMPLEX128", "COMPLEX64", "DOUBLE", "FLOAT", "FLOAT16", "INT16", "INT32", "INT64",
                        "INT8", "UINT16", "UINT32", "UINT64", "UINT8", "BF16", "COMPLEX32"),
    "FloatingDataType": _ge("DOUBLE", "FLOAT", "FLOAT16"),
    "IntegerDataType": _ge("INT16", "INT32", "INT64", "INT8", "UINT16", "UINT32", "UINT64", "UINT8"),
    "SignedDataType": _ge("INT16", "INT32", "INT64", "INT8"),
    "UnsignedDataType": _ge("UINT16", "UINT32", "UINT64", "UINT8"),
    "IndexNumberType": _ge("INT32", "INT64"),
    "UnaryDataType": _ge("COMPLEX128", "COMPLEX64", "DOUBLE", "FLOAT", "FLOAT16", "BF16", "COMPLEX32"),
    "FLOAT": _ge("FLOAT", "FLOAT16", "BF16"),
    "ALL": _ge("BOOL", "COMPLEX128", "COMPLEX64", "DOUBLE", "FLOAT", "FLOAT16", "INT16", "INT32", "INT64", "INT8",
               "QINT16", "QINT32", "QINT8", "QUINT16", "QUINT8", "RESOURCE", "STRING", "UINT16", "UINT32",
               "UINT64", "UINT8", "BF16", "COMPLEX32"),
}


def proto_admits(written: str | tuple[str, ...]) -> frozenset[str]:
    """The ge::DataType enumerators a proto type admits: a class, or a list of classes and dtypes."""
    entries = (written,) if isinstance(written, str) else written
    return frozenset().union(*(PROTO_TYPE_CLASSES.get(e) or {PROTO_DTYPES[e].ge} for e in entries))


def expanded_proto_dtypes(written: str | tuple[str, ...]) -> tuple[str, ...]:
    """The opgen dtypes a proto type admits, listed entries first in their order, then each class's in table order."""
    entries = (written,) if isinstance(written, str) else written
    found: list[str] = []
    for entry in entries:
        admitted = PROTO_TYPE_CLASSES.get(entry)
        found += [entry] if admitted is None else [d for d, t in PROTO_DTYPES.items() if t.ge in admitted]
    return tuple(dict.fromkeys(found))
