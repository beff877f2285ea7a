"""Numerics tier: the spec's recipe (every variant, dtype combination) and the tree's golden.py against the
independent reference, via numerics.py; one row per variant, combination and sample kind with max abs/rel/ULP.

The tree's golden.py is tree code: by default the golden rows come from opgen's own render of the spec, and
the tree's copy runs only with --allow-exec (see trust.py).

`opgen check` runs this tier in a child interpreter (`python -m opgen.check.numerics_tier`): importing torch
takes seconds of GIL-bound work, which then overlaps the other tiers instead of slowing them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OpgenError
from ..plan import RenderPlan
from ..spec.load import LoadedSpec
from ..spec.reference import NO_REFERENCE, resolve_reference
from .bounded import collect, exec_timeout, start
from .items import CheckItem, bad, ok, skipped, verdict
from .trust import ALLOW_EXEC_FLAG, Trust, run_tree_code

if TYPE_CHECKING:
    from .numerics import NumericsResult

TIER = "numerics"
GOLDEN = "tests/assets/golden.py"
CHILD_TIMEOUT = 600.0
NO_EXEC = Trust()


def numerics_tier(op_dir: Path, loaded: LoadedSpec, plan: RenderPlan, *, seed: int = 0,
                  trust: Trust = NO_EXEC) -> list[CheckItem]:
    """The recipe rows, the rows of opgen's own render of golden.py, and what became of the tree's copy.

    The tree's golden.py is imported only with --allow-exec, in a child with a scratch cwd (`trust.py`);
    otherwise the render from the spec is what runs, and a tree copy that differs from it is SKIPPED."""
    from ..generate import render_op
    from .numerics import check_numerics

    spec = loaded.spec
    resolved = resolve_reference(spec)
    if resolved is None:
        return [bad("reference", f"{NO_REFERENCE}: give golden.reference a forward function (forward, wrt, grad) "
                    "or a direct formula, e.g. {forward: 'x * sigmoid(x)', wrt: x, grad: dy}")]
    notes = [ok("reference", resolved.migrated)] if resolved.migrated else []
    items = notes + _grouped("recipe", check_numerics(spec, plan, seed=seed), plan)
    rendered = render_op(loaded).files[GOLDEN]
    with tempfile.TemporaryDirectory(prefix="opgen-golden-") as scratch:
        ours = Path(scratch) / "golden.py"
        ours.write_bytes(rendered)
        items += _golden_rows("golden (spec render)", ours, loaded, plan, seed)
    tree = op_dir / GOLDEN
    if not tree.is_file():
        return [*items, skipped("golden (tree)", f"{GOLDEN} missing (see structure)")]
    if tree.read_bytes() == rendered:
        return [*items, ok("golden (tree)", f"{GOLDEN} is byte-identical to the spec's render checked above")]
    if not trust.allow_exec:
        return [*items, skipped("golden (tree)", f"{GOLDEN} differs from the spec's render; "
                                                 + trust.refusal(GOLDEN))]
    return items + _tree_golden_rows(tree, loaded.path, seed)


def _golden_rows(kind: str, golden: Path, loaded: LoadedSpec, plan: RenderPlan, seed: int) -> list[CheckItem]:
    from .numerics import check_golden_file

    try:
        results = check_golden_file(golden, loaded.spec, plan, seed=seed)
    except OpgenError as error:
        return [bad(kind, str(error))]
    except Exception as error:  # user-editable code that fails to import must not crash the check
        return [bad(kind, f"{GOLDEN} cannot be run: {type(error).__name__}: {error}")]
    return _grouped(kind, results, plan)


def _tree_golden_rows(golden: Path, spec_path: Path, seed: int) -> list[CheckItem]:
    """The tree's own golden.py, run as tree code (the user passed --allow-exec)."""
    command = [*_child_command(), "--golden", str(golden.resolve()), str(spec_path.resolve()), "--seed", str(seed)]
    run = run_tree_code(command, timeout=CHILD_TIMEOUT, env=_child_env())
    if run.failure is not None:
        return [bad("golden (tree)", f"the tree's {GOLDEN} {run.failure}")]
    return _rows(run.stdout, run.stderr, run.returncode, "golden (tree)")


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


_CHILD_CWD = Path(__file__).resolve().parents[2]  # where opgen itself lies, nothing of the tree


def _child_command() -> list[str]:
    """`-P` (3.11+): nothing of the cwd on sys.path, whatever dir the child starts in."""
    return [sys.executable, "-B", *(["-P"] if sys.version_info >= (3, 11) else []), "-m", "opgen.check.numerics_tier"]


def _child_env() -> dict[str, str]:
    package_root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}


def start_child(op_dir: Path, spec_path: Path, *, seed: int = 0, trust: Trust = NO_EXEC) -> subprocess.Popen[bytes]:
    """Start this tier in a fresh interpreter (see the module doc), bounded as tree code is (bounded.py);
    collect its rows with `collect_child`."""
    command = [*_child_command(), str(op_dir), str(spec_path), "--seed", str(seed)]
    if trust.allow_exec:
        command.append(ALLOW_EXEC_FLAG)
    # a cwd of its own: `python -m` puts the cwd first on sys.path, and the user's cwd may be the checked tree
    # (a `numpy.py` there would run on import)
    return start(command, env=_child_env(), cwd=_CHILD_CWD)


def collect_child(child: subprocess.Popen[bytes], *, timeout: float | None = None) -> list[CheckItem]:
    """The child's rows, or one failed row saying how it died. Its default time outlasts the tree golden's
    bound inside it, so that run ends (its processes killed, its dir removed) before this one is stopped."""
    timeout = timeout if timeout is not None else CHILD_TIMEOUT + exec_timeout(CHILD_TIMEOUT)
    run = collect(child, timeout=timeout)
    if run.failure is not None:
        return [bad("numerics", f"the numerics check {run.failure}")]
    return _rows(run.stdout, run.stderr, run.returncode, "numerics")


def _rows(out: str, err: str, returncode: int, item: str) -> list[CheckItem]:
    try:
        rows: list[dict[str, Any]] = json.loads(out)
    except ValueError:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return [bad(item, f"the check stopped (exit {returncode}): {tail}")]
    return [CheckItem(r["item"], r["status"], r["reason"], r["figures"]) for r in rows]


def _missing(error: ModuleNotFoundError) -> str:
    """torch is an extra (`opgen[check]`): say how to get it rather than show an import error."""
    if error.name == "torch":
        return "the independent reference needs PyTorch, which is not installed: pip install 'opgen[check]'"
    return f"the tier stopped: {type(error).__name__}: {error}"


def main(argv: list[str] | None = None) -> None:
    """The child's side of run_in_child: load the spec, run the tier, print its rows as JSON."""
    from ..plan import build_plan
    from ..spec.load import load_spec

    parser = argparse.ArgumentParser(prog="python -m opgen.check.numerics_tier")
    parser.add_argument("op_dir", type=Path, help="the op dir, or with --golden the golden.py to run")
    parser.add_argument("spec", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(ALLOW_EXEC_FLAG, dest="allow_exec", action="store_true")
    parser.add_argument("--golden", action="store_true", help="run only this golden.py (tree code)")
    args = parser.parse_args(argv)
    try:
        loaded = load_spec(args.spec)
        plan = build_plan(loaded.spec, loaded.path.name)
        if args.golden:
            items = _golden_rows("golden (tree)", args.op_dir, loaded, plan, args.seed)
        else:
            items = numerics_tier(args.op_dir, loaded, plan, seed=args.seed, trust=Trust(args.allow_exec))
    except ModuleNotFoundError as error:
        items = [bad("numerics", _missing(error))]
    except Exception as error:  # reported as a failed row by the parent
        items = [bad("numerics", f"the tier stopped: {type(error).__name__}: {error}")]
    rows = [{"item": i.item, "status": i.status, "reason": i.reason, "figures": i.figures} for i in items]
    sys.stdout.write(json.dumps(rows))


if __name__ == "__main__":
    main()
