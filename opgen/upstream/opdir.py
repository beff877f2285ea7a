"""One op dir (upstream's or one opgen generated) into its OpFacts: which file holds which registration."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import OpgenError
from .cmake import read_cmake
from .docs import read_products
from .models import AclnnHeader, DocProducts, OpDef, OpFacts, Proto
from .opdef import read_def
from .proto import read_protos
from .registrations import read_aclnn_header, read_registrations

CMAKE_FILES = ("CMakeLists.txt", "op_graph/CMakeLists.txt", "op_host/CMakeLists.txt", "op_kernel/CMakeLists.txt")
ACLNN_DIRS = ("op_api", "op_host/op_api")
_Reader = Callable[[str], bytes]


def parse_op_dir(op_dir: Path) -> OpFacts:
    """The registered and exported facts of an ops-nn op dir such as `activation/relu_grad_v2`."""
    if not op_dir.is_dir():
        raise OpgenError(f"{op_dir} is not a directory; pass an op dir such as <ops-nn>/activation/relu_grad_v2")
    files = tuple(sorted(p.relative_to(op_dir).as_posix() for p in op_dir.rglob("*") if p.is_file()))
    if not files:
        raise OpgenError(f"{op_dir} is empty; pass an op dir such as <ops-nn>/activation/relu_grad_v2")

    def read(rel: str) -> bytes:
        return (op_dir / rel).read_bytes()

    return OpFacts(
        files=files,
        protos=_protos(files, read),
        definition=_definition(files, read),
        registrations=tuple(r for f in files if _is_host_source(f) for r in read_registrations(read(f), f)),
        cmake=tuple(read_cmake(read(f), f) for f in CMAKE_FILES if f in files),
        aclnn=_aclnn(files, read),
        docs=_docs(files, read),
    )


def _protos(files: tuple[str, ...], read: _Reader) -> tuple[Proto, ...]:
    return tuple(p for f in files if f.startswith("op_graph/") and f.endswith("_proto.h")
                 for p in read_protos(read(f), f))


def _definition(files: tuple[str, ...], read: _Reader) -> OpDef | None:
    """The OpDef of op_host/*_def.cpp (the first that registers one)."""
    for f in files:
        if f.startswith("op_host/") and f.count("/") == 1 and f.endswith("_def.cpp"):
            found = read_def(read(f), f)
            if found is not None:
                return found
    return None


def _is_host_source(rel: str) -> bool:
    return rel.startswith("op_host/") and not rel.startswith("op_host/op_api/") and rel.endswith((".cpp", ".h"))


def _aclnn(files: tuple[str, ...], read: _Reader) -> tuple[AclnnHeader, ...]:
    return tuple(read_aclnn_header(read(f), f) for f in files
                 if f.rpartition("/")[0] in ACLNN_DIRS and f.rpartition("/")[2].startswith("aclnn_")
                 and f.endswith(".h"))


def _docs(files: tuple[str, ...], read: _Reader) -> tuple[DocProducts, ...]:
    found = []
    for f in files:
        if f == "README.md" or (f.startswith("docs/") and f.count("/") == 1 and f.endswith(".md")):
            products = read_products(read(f).decode("utf-8", errors="replace"), f)
            if products is not None:
                found.append(products)
    return tuple(found)
