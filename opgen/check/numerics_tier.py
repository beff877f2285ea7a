"""Numerics tier: the spec's recipe (every variant, dtype combination) and the tree's golden.py against the
independent reference, via numerics.py; one row per variant, combination and sample kind with max abs/rel/ULP.

`opgen check` runs this tier in a child interpreter (`python -m opgen.check.numerics_tier`): importing torch
takes seconds of GIL-bound work, which then overlaps the other tiers instead of slowing them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OpgenError
from ..plan import RenderPlan
from ..spec.models import OpSpec
from ..spec.reference import NO_REFERENCE, resolve_reference
from .items import CheckItem, bad, ok, skipped, verdict

if TYPE_CHECKING:
    from .numerics import NumericsResult

TIER = "numerics"
GOLDEN = "tests/assets/golden.py"


def numerics_tier(op_dir: Path, spec: OpSpec, plan: RenderPlan, *, seed: int = 0) -> list[CheckItem]:
    from .numerics import check_golden_file, check_numerics

    resolved = resolve_reference(spec)
    if resolved is None:
        return [bad("reference", f"{NO_REFERENCE}: give golden.reference a forward function (forward, wrt, grad) "
                    "or a direct formula, e.g. {forward: 'x * sigmoid(x)', wrt: x, grad: dy}")]
    notes = [ok("reference", resolved.migrated)] if resolved.migrated else []
    items = notes + _grouped("recipe", check_numerics(spec, plan, seed=seed), plan)
    golden = op_dir / GOLDEN
    if not golden.is_file():
        return [*items, skipped("golden", f"{GOLDEN} missing (see structure)")]
    try:
        results = check_golden_file(golden, spec, plan, seed=seed)
    except OpgenError as error:
        return [*items, bad("golden", str(error))]
    except Exception as error:  # user-editable code that fails to import must not crash the check
        return [*items, bad("golden", f"{GOLDEN} cannot be run: {type(error).__name__}: {error}")]
    return items + _grouped("golden", results, plan)


def _grouped(kind: str, results: Iterable[NumericsResult], plan: RenderPlan) -> list[CheckItem]:
    """One row per (variant, combination, output, sample kind): worst figures over its samples, SoCs, ST cases.

    Random and edge samples get their own rows: an edge sample's overflow figures say nothing of the
    everyday accuracy the random sample shows.
    """
    groups: dict[tuple[str, tuple[str, ...], str, str], list[NumericsResult]] = {}
    for r in results:
        groups.setdefault((r.variant, r.dtypes, r.output, r.sample.split(":")[0]), []).append(r)
    n_in = len(plan.inputs)
    items = []
    for (variant, dtypes, output, sample), rows in groups.items():
        socs = ", ".join(dict.fromkeys(s for r in rows for s in r.socs))
        combo = f"{', '.join(dtypes[:n_in])} -> {', '.join(dtypes[n_in:])}"
        tensor = f" {output}" if len(plan.outputs) > 1 else ""
        label = f"{kind} {variant} ({socs}) {combo}{tensor} [{sample}]"
        figures: dict[str, float | int | str] = {
            "max_abs": max(r.max_abs for r in rows), "max_rel": max(r.max_rel for r in rows),
            "max_ulp": max(r.max_ulp for r in rows), "elements": sum(r.elements for r in rows),
            "failures": sum(r.failures for r in rows), "undefined": sum(r.undefined for r in rows),
        }
        failing = [r.reason for r in rows if not r.passed]
        shown = failing[:2] + ([f"... {len(failing) - 2} more failing samples"] if len(failing) > 2 else [])
        undefined = f", {figures['undefined']} undefined (not compared)" if figures["undefined"] else ""
        items.append(verdict(label, shown, f"{figures['elements']} elements{undefined}", **figures))
    return items


def start_child(op_dir: Path, spec_path: Path, *, seed: int = 0) -> subprocess.Popen[str]:
    """Start this tier in a fresh interpreter (see the module doc); collect its rows with `collect_child`."""
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-B", "-m", "opgen.check.numerics_tier", str(op_dir), str(spec_path), "--seed",
               str(seed)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def collect_child(child: subprocess.Popen[str], *, timeout: float = 600.0) -> list[CheckItem]:
    """The child's rows, or one failed row saying how it died."""
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return [bad("numerics", f"the numerics check took more than {timeout:.0f} s")]
    try:
        rows: list[dict[str, Any]] = json.loads(out)
    except ValueError:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return [bad("numerics", f"the numerics check stopped (exit {child.returncode}): {tail}")]
    return [CheckItem(r["item"], r["status"], r["reason"], r["figures"]) for r in rows]


def main(argv: list[str] | None = None) -> None:
    """The child's side of run_in_child: load the spec, run the tier, print its rows as JSON."""
    from ..plan import build_plan
    from ..spec.load import load_spec

    parser = argparse.ArgumentParser(prog="python -m opgen.check.numerics_tier")
    parser.add_argument("op_dir", type=Path)
    parser.add_argument("spec", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        loaded = load_spec(args.spec)
        items = numerics_tier(args.op_dir, loaded.spec, build_plan(loaded.spec, loaded.path.name), seed=args.seed)
    except Exception as error:  # reported as a failed row by the parent
        items = [bad("numerics", f"the tier stopped: {type(error).__name__}: {error}")]
    rows = [{"item": i.item, "status": i.status, "reason": i.reason, "figures": i.figures} for i in items]
    sys.stdout.write(json.dumps(rows))


if __name__ == "__main__":
    main()
