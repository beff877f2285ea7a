"""How many compiles opgen's builds run at once (make/ninja -j, the kernel tier's compile pool, build.sh -j):
`OPGEN_JOBS`, else every core this process may use. It was a fixed 2, which left a CI runner's other cores idle
through a cold prefix build."""

from __future__ import annotations

import os

JOBS_ENV = "OPGEN_JOBS"


def default_jobs(env: dict[str, str] | None = None) -> int:
    """A positive OPGEN_JOBS, else the cores in this process's affinity mask (at least 1)."""
    value = (os.environ if env is None else env).get(JOBS_ENV, "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    return max(1, len(os.sched_getaffinity(0)))


JOBS = default_jobs()
