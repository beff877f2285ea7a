"""Measure the ops-nn-ut tier over every sample: ops-nn's own `build.sh -u --ophost` per registered SoC, `--opapi`
once and `--opkernel` per kernel-UT SoC, the tree's UTs and upstream's own, against the toolkit-shaped prefix built
from the open sources (tikicpulib being opgen's CPU model).

OPGEN_CANN_SRC=/tmp/cann_src python bench/ops_nn_ut.py [--cold-prefix] [--ops a,b] [--kernel-only] [--out FILE]

--kernel-only runs the kernel UT rows alone.
--cold-prefix first builds the prefix into a fresh cache (protobuf's entry copied in: it is cached apart) and
times it; else the user's cache is used as it is. Goals (issue 20): the prefix once within 15 minutes on 2 cores,
then at most 2 minutes an op a SoC. Prints one line per op, UT kind and SoC (the tree's and upstream's counts and
seconds, and the seconds as a ratio to the 2-minute goal), then every row that did not pass with its reason.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.kernel_run import samples  # noqa: E402
from opgen.cann_prefix import layout  # noqa: E402
from opgen.cann_prefix.build import build_prefix  # noqa: E402
from opgen.cann_sources import CACHE_ENV, cache_root, resolve_sources  # noqa: E402
from opgen.check.items import CheckItem  # noqa: E402
from opgen.check.ops_nn_ut import kernel_ut_rows, ops_nn_ut_tier  # noqa: E402
from opgen.check.trust import Trust  # noqa: E402
from opgen.plan import build_plan  # noqa: E402
from opgen.spec.load import load_spec  # noqa: E402

OP_SOC_GOAL_S = 120.0
PREFIX_GOAL_S = 900.0


def _cell(row: CheckItem | None) -> str:
    if row is None:
        return f"{'-':>14}"
    if row.status == "skip":
        return f"{'skipped':>14}"
    counts = f"{row.figures.get('passed', 0)}/{row.figures.get('tests', 0)}"
    return f"{counts} {row.figures.get('seconds', 0.0):>6.1f}s".rjust(14)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold-prefix", action="store_true")
    parser.add_argument("--ops", default="")
    parser.add_argument("--kernel-only", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sources = resolve_sources()
    if sources is None:
        sys.exit("set OPGEN_CANN_SRC (README 'Getting the CANN sources')")
    wanted = [o for o in args.ops.split(",") if o]
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="opgen-bench-ut-") as scratch:
        if args.cold_prefix:
            protobuf = layout.protobuf_dir(cache_root())
            os.environ[CACHE_ENV] = os.environ["XDG_CACHE_HOME"] = scratch
            if protobuf.is_dir():
                shutil.copytree(protobuf, layout.protobuf_dir(Path(scratch)), symlinks=True)
            start = time.perf_counter()
            build_prefix(sources, cache_root())
            took = time.perf_counter() - start
            lines.append(f"prefix, cold (protobuf cached apart): {took:.0f} s, {took / PREFIX_GOAL_S:.2f} of the "
                         "15-minute goal")
            print(lines[-1], flush=True)
        header = f"{'op':<22}{'kind':<10}{'soc':<13}{'tree':>14}{'upstream':>14}{'tree s / 120 s':>16}"
        lines.append(header)
        print(header, flush=True)
        other: list[str] = []
        for name, (op_dir, spec_path) in samples().items():
            if wanted and name not in wanted:
                continue
            plan = build_plan(load_spec(spec_path).spec, spec_path.name)
            rows = [r for s in plan.kernel_ut_socs
                    for r in kernel_ut_rows(build_prefix(sources, cache_root()), sources, plan, op_dir, s.name)
                    ] if args.kernel_only else ops_nn_ut_tier(op_dir, plan, sources, Trust(True))
            other += [f"{name} | {r.item} | {r.status} | {r.reason}" for r in rows if r.status != "pass"]
            kinds = ("op_kernel",) if args.kernel_only else ("op_host", "op_api", "op_kernel")
            for kind, soc in ((kind, s.name) for kind in kinds for s in plan.socs):
                mine = next((r for r in rows if r.item == f"{kind} UTs ({soc})"), None)
                theirs = next((r for r in rows if r.item == f"upstream {kind} UTs ({soc})"), None)
                if kind != "op_host" and mine is None and theirs is None:
                    continue
                seconds = float(mine.figures.get("seconds", 0.0)) if mine and mine.status != "skip" else None
                ratio = f"{seconds / OP_SOC_GOAL_S:>16.2f}" if seconds is not None else f"{'-':>16}"
                lines.append(f"{name:<22}{kind:<10}{soc:<13}{_cell(mine)}{_cell(theirs)}{ratio}")
                print(lines[-1], flush=True)
    lines += ["", "rows that did not pass:", *other]
    print("\n".join(lines[-len(other) - 2:]), flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
