"""opgen's record of each op: what it was made from, and the pristine files `opgen regen` merges against.

The record lives outside the op dir (so an op dir can be copied into ops-nn as it is) and outside the output
root: by default beside the spec, `<spec dir>/.opgen/<rel_dir>/`, or under `--record-dir DIR` as `DIR/<rel_dir>/`.
Its manifest names the op dir it describes (relative to the record), so a record is found from the spec
(gen, regen) or from the op dir (check, validate: see `find_record`). Older opgen kept it in `<op dir>/.opgen/`;
`opgen regen` moves such a record out.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import OpgenError
from .files import NotRegularFile, read_regular
from .spec.license_from import KEPT_DIR

if TYPE_CHECKING:
    from .plan import RenderPlan

RECORD_DIR = ".opgen"
RECORD_DIR_ENV = "OPGEN_RECORD_DIR"  # default for --record-dir
MANIFEST = "manifest.json"
SPEC_COPY = "spec.yaml"
PRISTINE = "pristine"


@dataclass(frozen=True)
class Manifest:
    opgen_version: str
    op_type: str
    name: str
    category: str
    experimental: bool
    socs: tuple[str, ...]
    spec_file: str
    files: dict[str, str]  # path in the op dir -> sha256 of the rendered bytes
    op_dir: str | None  # the op dir, relative to the record dir; None in an old in-dir record

    @classmethod
    def from_json(cls, data: Any) -> Manifest:
        if not isinstance(data, dict):
            raise TypeError("a manifest is a JSON object")
        op_dir = data.get("op_dir")
        return cls(
            opgen_version=str(data["opgen_version"]), op_type=str(data["op_type"]), name=str(data["name"]),
            category=str(data["category"]), experimental=bool(data["experimental"]),
            socs=tuple(data["socs"]), spec_file=str(data["spec_file"]), files=dict(data["files"]),
            op_dir=None if op_dir is None else str(op_dir),
        )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_root(spec_path: Path, record_dir: Path | None) -> Path:
    """Where the records of a spec's ops go: `--record-dir`, else `.opgen/` beside the spec. A spec read through
    /dev or /proc (`/dev/stdin < op.yaml`) has no folder of its own: its record never goes there."""
    if record_dir is not None:
        return record_dir
    folder = Path(os.path.normpath(spec_path.parent.absolute()))
    if any(place in _SYSTEM_DIRS for place in (folder, *folder.parents, folder.resolve(), *folder.resolve().parents)):
        raise OpgenError(f"the spec is read through {folder}, which is no place for its record (.opgen/ beside the "
                         "spec); pass --record-dir DIR (or set OPGEN_RECORD_DIR), or pass the spec file itself",
                         where=str(spec_path))
    return spec_path.parent / RECORD_DIR


_SYSTEM_DIRS = frozenset({Path("/dev"), Path("/proc"), Path("/sys")})


def legacy_record(op_dir: Path) -> Path:
    """Where opgen before 0.2 kept the record: inside the op dir."""
    return op_dir / RECORD_DIR


def record_files(plan: RenderPlan, spec_text: str, files: dict[str, bytes], *, op_dir: Path,
                 record: Path, license_file: tuple[str, str] | None = None,
                 license_blocks: dict[str, str] | None = None) -> dict[str, bytes]:
    """The record of one render (paths relative to the record dir). A spec's license file lies beside its
    copy at the same relative path, so the copy's `license_header_file` resolves there."""
    manifest = {
        "opgen_version": plan.opgen_version, "op_type": plan.op_type, "name": plan.name, "category": plan.category,
        "experimental": plan.experimental, "socs": [s.name for s in plan.socs], "spec_file": plan.spec_file,
        "op_dir": Path(os.path.relpath(op_dir.absolute(), record.absolute())).as_posix(),
        "files": {path: sha256(data) for path, data in sorted(files.items())},
    }
    out = {MANIFEST: (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode(), SPEC_COPY: spec_text.encode()}
    out.update({f"{PRISTINE}/{path}": data for path, data in files.items()})
    if license_file is not None:
        rel, text = license_file
        if rel in out or rel.split("/")[0] in (PRISTINE, MANIFEST, SPEC_COPY):
            raise OpgenError(f"license_header_file {rel!r} would take the place of the record's own "
                             f"{rel.split('/')[0]}; name the header file otherwise")
        out[rel] = text.encode()
    for style, header in (license_blocks or {}).items():  # so the spec copy loads without the checkout
        out[f"{KEPT_DIR}/{style}.txt"] = (header + "\n").encode()
    return dict(sorted(out.items()))


def read_manifest(record: Path) -> Manifest | None:
    """None when missing or not a manifest (`null`, nested past the parser's depth, fields missing). A manifest
    that is no regular file (a fifo would block the read forever) is refused: opgen never makes one."""
    try:
        raw = read_regular(record / MANIFEST)
    except NotRegularFile as error:
        raise OpgenError(f"damaged record: {error.path} is {error.kind}, not a manifest opgen wrote; move it "
                         f"away (or delete the record {record}) and run again") from None
    except OSError:
        return None
    try:
        return Manifest.from_json(json.loads(raw))
    except (ValueError, KeyError, TypeError, RecursionError):
        return None


def describes(record: Path, op_dir: Path) -> bool:
    """Whether the record's manifest names this op dir."""
    manifest = read_manifest(record)
    if manifest is None or manifest.op_dir is None:
        return False
    return same_dir(record / manifest.op_dir, op_dir)


def find_record(op_dir: Path, record_dir: Path | None = None) -> Path | None:
    """The record of an op dir, found by the op's path: `record_dir/<rel_dir>` when given; else in
    $OPGEN_RECORD_DIR, then, walking up from the op dir, in every `.opgen/` (and `*/.opgen/`, like
    `schemas/.opgen/`) holding `<rel_dir>` whose manifest names this op dir; else an old in-dir record."""
    op_dir = Path(os.path.normpath(op_dir.absolute()))  # `op/op_host/..` is `op`
    tails = [Path(*op_dir.parts[-n:]) for n in (3, 2) if len(op_dir.parts) > n]
    roots: list[Path] = []
    if record_dir is not None:
        roots.append(record_dir)
    else:
        if os.environ.get(RECORD_DIR_ENV):
            roots.append(Path(os.environ[RECORD_DIR_ENV]))
        for ancestor in op_dir.absolute().parents:
            roots.append(ancestor / RECORD_DIR)
            try:
                roots.extend(sorted(child / RECORD_DIR for child in ancestor.iterdir()
                                    if (child / RECORD_DIR).is_dir()))
            except OSError:
                continue
    for root in roots:
        for tail in tails:
            if (root / tail / MANIFEST).is_file() and describes(root / tail, op_dir):
                return root / tail
    legacy = legacy_record(op_dir)
    return legacy if (legacy / MANIFEST).is_file() and record_dir is None else None


def same_dir(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a.absolute()) == os.path.normpath(b.absolute())
