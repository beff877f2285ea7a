"""The blueprints stay copier templates: copier's own `run_copy` renders them to exactly opgen's bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GELU, RELU, snapshot

from opgen.paths import BLUEPRINTS
from opgen.plan import build_plan
from opgen.render import render_blueprint
from opgen.spec.load import load_spec


@pytest.mark.parametrize("spec", [RELU, GELU], ids=["relu_grad_v2", "gelu_grad"])
def test_copier_renders_every_blueprint_to_the_same_bytes(spec: Path, tmp_path: Path) -> None:
    from copier import run_copy

    loaded = load_spec(spec)
    plan = build_plan(loaded.spec, spec.name)
    for blueprint, family in [("common", None), *((f.blueprint, f) for f in plan.families)]:
        target = tmp_path / blueprint
        run_copy(str(BLUEPRINTS), target, data={"blueprint": blueprint, "plan": plan, "family": family},
                 defaults=True,
                 overwrite=True, quiet=True, unsafe=True)
        by_copier = snapshot(target)
        assert by_copier, "copier rendered nothing"
        assert render_blueprint(blueprint, plan, family) == by_copier
