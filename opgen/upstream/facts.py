"""Committed upstream facts: the parsed facts of chosen ops-nn op dirs, as JSON under one dir with the ops-nn
commit they came from, so tests (and a later tier) compare against upstream without the CANN sources.

Layout: `<out>/SOURCE.json` ({"ops_nn_commit": ..., "op_dirs": [...]}) and `<out>/<op dir>.json` per op dir
(`activation/elu_grad_v2.json`). Only derived facts are written: names, enumerators, values, signatures, paths;
no upstream comment, prose or header text.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ..errors import OpgenError
from ..paths import SAMPLE_SPECS
from .models import OpFacts
from .opdir import parse_op_dir

SOURCE = "SOURCE.json"


def sample_op_dirs(ops_nn: Path) -> list[str]:
    """The op dirs of opgen's sample specs that ops-nn has: `<category>/<op>` and `experimental/<category>/<op>`."""
    from ..spec.load import load_spec

    found = []
    for path in sorted(SAMPLE_SPECS.glob("*.yaml")):
        spec = load_spec(path).spec
        for rel in (f"{spec.category}/{spec.snake_name}", f"experimental/{spec.category}/{spec.snake_name}"):
            if (ops_nn / rel).is_dir():
                found.append(rel)
    return found


def ops_nn_commit(ops_nn: Path) -> str:
    """The commit an ops-nn checkout is at (`git rev-parse HEAD`)."""
    done = subprocess.run(["git", "-C", str(ops_nn), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise OpgenError(f"{ops_nn} is not a git checkout; pass --commit with the ops-nn commit its files are at")
    return done.stdout.strip()


def extract(ops_nn: Path, out: Path, op_dirs: list[str], commit: str) -> list[Path]:
    """Parse each op dir and write its facts (every dir parsed before anything is written); returns the files."""
    if not (ops_nn / "CMakeLists.txt").is_file() or not op_dirs:
        raise OpgenError(f"{ops_nn} is not an ops-nn checkout with the requested op dirs; pass the ops-nn root")
    facts = {rel: parse_op_dir(ops_nn / rel) for rel in op_dirs}
    if (out.exists() and not (out / SOURCE).is_file()) and any(out.iterdir()):
        raise OpgenError(f"{out} holds other files; pass an empty dir or an earlier facts dir (with {SOURCE})")
    for old in out.rglob("*.json") if out.exists() else ():
        old.unlink()
    written = [_write(out / SOURCE, {"ops_nn_commit": commit, "op_dirs": op_dirs})]
    for rel, one in facts.items():
        written.append(_write(out / f"{rel}.json", one.model_dump(mode="json")))
    return written


def load_facts(facts_dir: Path) -> tuple[str, dict[str, OpFacts]]:
    """(ops-nn commit, op dir -> facts) of a facts dir."""
    source = json.loads((facts_dir / SOURCE).read_text(encoding="utf-8"))
    return source["ops_nn_commit"], {
        rel: OpFacts.model_validate_json((facts_dir / f"{rel}.json").read_text(encoding="utf-8"))
        for rel in source["op_dirs"]}


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
