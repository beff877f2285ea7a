"""Measure the kernel tier's run level over every sample: cold (empty caches) and warm (every build cached, every
launch executed again), with each op's row counts.

OPGEN_CANN_SRC=/tmp/cann_src python bench/kernel_run.py [--keep-framework] [--ops a,b] [--out FILE]
OPGEN_CANN_SRC=/tmp/cann_src python bench/kernel_run.py --costs [--ops a,b] [--out FILE]

Cold runs with a fresh XDG cache dir: intrinsic declarations, kernel executables, the op_host UT framework and ABI-0
protobuf (which the host tiling links; --keep-framework copies the built ones in, the cost a user sees once they
exist), host tilings.
Warm is the same call again. Goal: warm at most 3 minutes per op on 2 cores. Prints one table, then every row that
did not pass with its reason (the SKIPPED set tests/check/test_kernel_matrix.py holds); --out also writes both.
--costs runs once in the user's cache and prints, for every row where upstream's kernel ran, the generated kernel's
cost over upstream's on the same launch (issue 19's "instructions and tiles per element <= upstream's") and how far
its outputs are from upstream's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opgen.cann_prefix import layout  # noqa: E402
from opgen.cann_sources import CannSources, cache_root, resolve_sources  # noqa: E402
from opgen.check.kernel.run import kernel_run_rows  # noqa: E402
from opgen.check.trust import Trust  # noqa: E402
from opgen.plan import build_plan  # noqa: E402
from opgen.spec.load import load_spec  # noqa: E402


def samples() -> dict[str, tuple[Path, Path]]:
    """op name -> (its sample dir, its spec), for every spec in schemas/."""
    found = {}
    for spec in sorted((ROOT / "schemas").glob("*.yaml")):
        loaded = load_spec(spec).spec
        rel = f"{'experimental/' if loaded.experimental else ''}{loaded.category}/{spec.stem}"
        found[spec.stem] = (ROOT / "generated_samples" / rel, spec)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep-framework", action="store_true")
    parser.add_argument("--ops", default="")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--costs", action="store_true")
    args = parser.parse_args()
    sources = resolve_sources()
    if sources is None:
        sys.exit("set OPGEN_CANN_SRC (README 'Getting the CANN sources')")
    if args.costs:
        lines = costs([o for o in args.ops.split(",") if o], sources)
        if args.out:
            args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return
    wanted = [o for o in args.ops.split(",") if o]
    user_cache = cache_root()
    user_protobuf = layout.protobuf_dir(cache_root())
    other: list[str] = []
    lines = [f"{'op':<22}{'rows':>6}{'pass':>6}{'fail':>6}{'skip':>6}{'cold s':>9}{'warm s':>9}{'warm/cold':>11}"]
    print(lines[0], flush=True)
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as scratch:
        os.environ["XDG_CACHE_HOME"] = scratch
        os.environ.pop("OPGEN_CACHE", None)  # it would win over XDG_CACHE_HOME
        if args.keep_framework and (user_cache / "ophost-ut").is_dir():
            shutil.copytree(user_cache / "ophost-ut", Path(scratch) / "opgen" / "ophost-ut", symlinks=True)
            if user_protobuf.is_dir():  # the ABI-0 protobuf the host tiling links
                shutil.copytree(user_protobuf, Path(scratch) / "opgen" / user_protobuf.name, symlinks=True)
        for name, (op_dir, spec_path) in samples().items():
            if wanted and name not in wanted:
                continue
            spec = load_spec(spec_path).spec
            plan = build_plan(spec, spec_path.name)
            times, counts = [], Counter[str]()
            for _ in ("cold", "warm"):
                start = time.perf_counter()
                rows = kernel_run_rows(op_dir, spec, plan, sources, Trust(True))
                times.append(time.perf_counter() - start)
                counts = Counter(r.status for r in rows)
            other += [f"{name} | {r.item} | {r.status} | {r.reason}" for r in rows if r.status != "pass"]
            line = (f"{name:<22}{sum(counts.values()):>6}{counts['pass']:>6}{counts['fail']:>6}{counts['skip']:>6}"
                    f"{times[0]:>9.1f}{times[1]:>9.1f}{times[1] / times[0]:>11.3f}")
            lines.append(line)
            print(line, flush=True)
    lines += ["", "rows that did not pass:", *other]
    print("\n".join(lines[-len(other) - 2:]), flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


COST_KEYS = ("vector_instructions_per_element_ratio", "gm_ub_bytes_per_element_ratio", "ub_extent_bytes_ratio",
             "generated_vs_upstream_max_abs", "generated_vs_upstream_max_ulp")


def costs(wanted: list[str], sources: CannSources) -> list[str]:
    """One line per upstream row that ran: the cost ratios and the distance from upstream's outputs; then every
    row of the run that did not pass."""
    lines = [f"{'op':<20}{'row':<44}{'instr':>7}{'gm<->ub':>9}{'ub':>7}{'max abs':>11}{'ulp':>8}"]
    print(lines[0], flush=True)
    other: list[str] = []
    for name, (op_dir, spec_path) in samples().items():
        if wanted and name not in wanted:
            continue
        spec = load_spec(spec_path).spec
        for row in kernel_run_rows(op_dir, spec, build_plan(spec, spec_path.name), sources, Trust(True)):
            if row.status != "pass":
                other.append(f"{name} | {row.item} | {row.status} | {row.reason}")
            elif row.item.endswith(" upstream"):
                ratio, gm, ub, apart, ulp = (row.figures.get(key, "-") for key in COST_KEYS)
                line = f"{name:<20}{row.item:<44}{ratio:>7}{gm:>9}{ub:>7}{apart:>11.3g}{ulp:>8}"
                lines.append(line)
                print(line, flush=True)
    lines += ["", "rows that did not pass:", *other]
    print("\n".join(lines[-len(other) - 2:]), flush=True)
    return lines


if __name__ == "__main__":
    main()
