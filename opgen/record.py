"""The `.opgen/` record kept in every generated op dir: what it was made from, and the pristine files.

`opgen regen` three-way merges against the pristine copies, so they must be exactly what was rendered.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .plan import RenderPlan

RECORD_DIR = ".opgen"
MANIFEST = f"{RECORD_DIR}/manifest.json"
SPEC_COPY = f"{RECORD_DIR}/spec.yaml"
PRISTINE = f"{RECORD_DIR}/pristine"


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

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            opgen_version=str(data["opgen_version"]), op_type=str(data["op_type"]), name=str(data["name"]),
            category=str(data["category"]), experimental=bool(data["experimental"]),
            socs=tuple(data["socs"]), spec_file=str(data["spec_file"]), files=dict(data["files"]),
        )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def with_record(plan: RenderPlan, spec_text: str, files: dict[str, bytes]) -> dict[str, bytes]:
    """The rendered files plus their `.opgen/` record, ready to write as one tree."""
    manifest = {
        "opgen_version": plan.opgen_version, "op_type": plan.op_type, "name": plan.name, "category": plan.category,
        "experimental": plan.experimental, "socs": [s.name for s in plan.socs], "spec_file": plan.spec_file,
        "files": {path: sha256(data) for path, data in sorted(files.items())},
    }
    record = {
        MANIFEST: (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode(),
        SPEC_COPY: spec_text.encode(),
    }
    record.update({f"{PRISTINE}/{path}": data for path, data in files.items()})
    return dict(sorted({**files, **record}.items()))
