"""Measure whole `opgen check --cann-src --allow-exec` runs, cold and warm, as a user runs them (a fresh process, every
tier, --json), and print each run's wall seconds, its tiers' seconds and the ratio to the goals (issue 37): warm at
most 3 min an op (ReluGradV2, GeluGrad), cold at most 15 min with the prefix.

OPGEN_CANN_SRC=/tmp/cann_src python bench/check.py [--cache DIR] [--cold] [--warm N] [--ops a,b] [--out FILE]

--cache DIR: the cache the checks use (XDG_CACHE_HOME; OPGEN_CACHE is unset for them); default: the user's.
--cold: DIR must be new or empty: the first op's first run then builds the prefix and the CPU model (cold), the next
ops' first runs reuse them (cold op, built prefix). --warm N: then N more runs of each op (default 1).
The machine's load average is printed with each run: on a shared machine the wall figure follows the load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_GOAL_S = 180.0
COLD_GOAL_S = 900.0
OPS = {"relu_grad_v2": "generated_samples/activation/relu_grad_v2",
       "gelu_grad": "generated_samples/experimental/activation/gelu_grad"}


def check_once(op_dir: Path, src: Path, cache: Path | None) -> tuple[float, dict[str, object]]:
    """Wall seconds of one whole check in a fresh process, and its JSON report."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPGEN_CACHE", None)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "opgen", "check", str(op_dir), "--cann-src", str(src),
                           "--allow-exec", "--json"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = {"exit_code": done.returncode, "tiers": [], "error": done.stderr.strip()[-400:]}
    return seconds, report


def line(op: str, kind: str, seconds: float, report: dict[str, object]) -> str:
    goal = COLD_GOAL_S if kind == "cold" else WARM_GOAL_S
    tiers = report.get("tiers", [])
    assert isinstance(tiers, list)
    spent = ", ".join(f"{t['tier']} {t['seconds']:.0f}s" for t in tiers if t["status"] != "skip" or t["seconds"] > 1)
    load = os.getloadavg()[0]
    error = f" {report['error']}" if "error" in report else ""
    return (f"{op:14} {kind:8} {seconds:7.0f} s  {seconds / goal:5.2f} x goal ({goal / 60:.0f} min)  "
            f"exit {report.get('exit_code')}  load {load:.1f}  [{spent}]{error}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--warm", type=int, default=1)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    src = os.environ.get("OPGEN_CANN_SRC")
    if not src:
        sys.exit("set OPGEN_CANN_SRC (docs/check.md 'Getting the CANN sources')")
    if args.cold and (args.cache is None or (args.cache.exists() and any(args.cache.iterdir()))):
        sys.exit("--cold needs --cache DIR naming a new or empty dir")
    unknown = [op for op in args.ops.split(",") if op not in OPS]
    if unknown:
        sys.exit(f"unknown op(s) {unknown}: choose from {', '.join(OPS)}")
    lines = [f"# bench/check.py on {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}"]
    print(lines[0], flush=True)
    runs = [(op, "cold" if args.cold and n == 0 and i == 0 else "cold op" if args.cold and n == 0 else "warm")
            for n in range(1 + args.warm) for i, op in enumerate(args.ops.split(",")) if args.cold or n > 0]
    for op, kind in runs:
        seconds, report = check_once(ROOT / OPS[op], Path(src), args.cache)
        lines.append(line(op, kind, seconds, report))
        print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
