"""The training set: activation-grad specs of ops-nn beyond the two samples, rendered into generated_samples/.
Their registered and exported facts are compared with upstream's by the upstream tier (tests/upstream/test_tier.py,
over the facts committed in tests/upstream_facts)."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, SCHEMAS, snapshot

from opgen.generate import render_specs
from opgen.spec.load import load_spec

SAMPLE_SPECS = {"relu_grad_v2", "gelu_grad"}
TRAINING = sorted(p.stem for p in SCHEMAS.glob("*.yaml") if p.stem not in SAMPLE_SPECS)


def test_there_are_at_least_ten_training_specs() -> None:
    assert len(TRAINING) >= 10


@pytest.fixture(scope="module")
def rendered() -> dict[str, dict[str, bytes]]:
    return {op.plan.name: op.files for op in render_specs([SCHEMAS / f"{n}.yaml" for n in TRAINING])}


@pytest.mark.parametrize("name", TRAINING)
def test_training_samples_are_in_sync_with_their_specs(name: str, rendered: dict[str, dict[str, bytes]]) -> None:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    committed = snapshot(SAMPLES / spec.category / spec.snake_name)
    assert committed == rendered[name], "run: opgen gen --force schemas/*.yaml -o generated_samples"
