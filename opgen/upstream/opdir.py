"""One op dir (upstream's or one opgen generated) into its OpFacts: which file holds which registration."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..errors import OpgenError
from ..files import read_regular
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
    files = _files(op_dir)
    if not files:
        raise OpgenError(f"{op_dir} is empty; pass an op dir such as <ops-nn>/activation/relu_grad_v2")

    def read(rel: str) -> bytes:
        return read_regular(op_dir / rel)

    return OpFacts(
        files=files,
        protos=_protos(files, read),
        definition=_definition(files, read),
        registrations=tuple(r for f in files if _is_host_source(f) for r in read_registrations(read(f), f)),
        cmake=tuple(read_cmake(read(f), f) for f in CMAKE_FILES if f in files),
        aclnn=_aclnn(files, read),
        docs=_docs(files, read),
    )


def _files(op_dir: Path) -> tuple[str, ...]:
    """The op dir's regular files (relative POSIX paths). A symlink is followed only while it stays inside the
    op dir: one leading out (a def.cpp linked to another op's, or to /etc) is refused, never read."""
    root = op_dir.resolve()
    found = []
    for top, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = Path(top, name)
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                raise OpgenError(f"{path} is a symlink to {path.resolve()}, outside the op dir {root}; import reads "
                                 "only the op dir's own files: replace the link with a copy, or remove it")
            if name in filenames and path.is_file():
                found.append(path.relative_to(root).as_posix())
    return tuple(sorted(found))


def is_def_file(rel: str) -> bool:
    """`op_host/<op>_def.cpp`: where an op dir registers its OpDef."""
    return rel.startswith("op_host/") and rel.count("/") == 1 and rel.endswith("_def.cpp")


def _protos(files: tuple[str, ...], read: _Reader) -> tuple[Proto, ...]:
    return tuple(p for f in files if f.startswith("op_graph/") and f.endswith("_proto.h")
                 for p in read_protos(read(f), f))


def _definition(files: tuple[str, ...], read: _Reader) -> OpDef | None:
    """The OpDef of op_host/*_def.cpp (the first that registers one)."""
    for f in files:
        if is_def_file(f):
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
