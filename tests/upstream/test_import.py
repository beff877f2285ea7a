"""`opgen import` of each sample op: the imported spec equals the hand-written one on the registered facts
(names, dtype columns per SoC, attrs, SoCs, aclnn API), but where the hand-written spec differs from upstream
on purpose (listed below with the reason). Reads ops-nn when OPGEN_CANN_SRC is set, else the generated trees,
which the same parser reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CANN_SRC, Result
from ruamel.yaml import YAML

from opgen.importer import import_spec
from opgen.plan import build_plan
from opgen.spec.load import load_spec

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "tests" / "upstream_facts"
OPS = sorted(p.relative_to(FACTS).with_suffix("").as_posix() for p in FACTS.rglob("*.json") if p.name != "SOURCE.json")
SCHEMAS = {build_plan(s.spec, s.path.name).rel_dir: s.path
           for s in map(load_spec, sorted((ROOT / "schemas").glob("*.yaml")))}

_ACLNN_ELSEWHERE = "ops-nn declares this aclnn API outside the op dir, which is all the import reads"
# upstream -> sample spec differences, each the sample's on purpose (docs/training-set.md); only the sources show them
DIFFERENCES = {
    "activation/hard_swish_grad_v2": {
        "socs": "no ascend910 (its kernel needs aligned DataCopy) and no mc62 (no SoC opgen knows)"},
    "activation/relu_grad_v2": {"socs": "ascend350 stays: the source document names it"},
    "activation/relu6_grad": {"aclnn": _ACLNN_ELSEWHERE},
    "activation/softplus_grad": {"aclnn": _ACLNN_ELSEWHERE},
    "activation/softsign_grad": {"aclnn": _ACLNN_ELSEWHERE},
}


def _source(rel: str) -> Path | None:
    base = Path(CANN_SRC) / "ops-nn" if CANN_SRC else ROOT / "generated_samples"
    return base / rel if (base / rel).is_dir() else None


def registered(data: dict[str, Any]) -> dict[str, Any]:
    """The facts an op dir registers, from spec data (the imported YAML or a hand-written spec)."""
    given = {t["name"]: [t["dtypes"]] if isinstance(t["dtypes"], str) else t["dtypes"]
             for t in [*data["inputs"], *data["outputs"]]}
    width = max(len(d) for d in given.values())

    def columns(tensors: list[dict[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
        """One dtype for every column is written once; the order of the columns is no fact."""
        full = {n: d * (width if len(d) == 1 else 1) for n, d in given.items()}
        order = sorted(range(width), key=lambda k: tuple(d[k] for d in full.values()))
        return [(t["name"], tuple(full[t["name"]][k] for k in order)) for t in tensors]

    return {
        "op_type": data["op_type"], "category": data["category"], "experimental": bool(data.get("experimental")),
        "inputs": columns(data["inputs"]), "outputs": columns(data["outputs"]),
        "attrs": [(a["name"], a["type"], a.get("default")) for a in data.get("attrs", ())],
        "socs": sorted(p["soc"] for p in data["platforms"]),
        "aclnn": (data.get("aclnn") or {}).get("api"),
    }


@pytest.mark.parametrize("rel", OPS)
def test_import_equals_the_hand_written_spec_on_registered_facts(rel: str) -> None:
    source = _source(rel)
    if source is None or rel not in SCHEMAS:
        pytest.skip(f"no op dir {rel} to import, or no sample spec of it")
    imported = registered(YAML(typ="safe").load(import_spec(source)))
    written = registered(YAML(typ="safe").load(SCHEMAS[rel].read_text(encoding="utf-8")))
    diff = {k: (imported[k], written[k]) for k in imported if imported[k] != written[k]}
    assert set(diff) == (set(DIFFERENCES.get(rel, {})) if CANN_SRC else set()), diff


def test_opgen_import_writes_a_spec_whose_placeholders_fail_check(run: Callable[..., Result], tmp_path: Path) -> None:
    spec = tmp_path / "leaky_relu_grad.yaml"
    assert run("import", ROOT / "generated_samples/activation/leaky_relu_grad", "-o", spec).code == 0
    again = run("import", ROOT / "generated_samples/activation/leaky_relu_grad", "-o", spec)
    assert again.code == 2 and "already exists" in again.err
    missing = run("import", tmp_path / "nowhere")
    assert missing.code == 2 and "not a directory; pass an ops-nn op dir" in missing.err
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    checked = run("check", tmp_path / "out/activation/leaky_relu_grad", "--tier", "numerics")
    assert checked.code == 1
    assert "numerics unchecked: no reference" in checked.out
