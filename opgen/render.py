"""Render plans into files: the `common` blueprint once, then each kernel family's, then one clang-format
run per op.

The blueprints are copier templates (`blueprints/copier.yml`), and copier is what they are tested against
(tests/test_render.py renders them with copier's `run_copy` and compares byte for byte). opgen renders them
with jinja2 directly, with the settings copier.yml gives copier: importing copier (and the prompt toolkit it
brings) costs a cold `opgen new` 0.4 s, and copier recompiles every template on every run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from . import __version__
from .errors import OpgenError
from .paths import BLUEPRINTS, CLANG_FORMAT_STYLE
from .plan import RenderPlan
from .plan.families import KernelFamily
from .write import owner_alive

CPP_SUFFIXES = (".cpp", ".h")
SUFFIX = ".jinja"  # copier.yml `_templates_suffix`
SCRATCH_PREFIX = "opgen-render-"
# a path part `{% yield x from xs %}...{% endyield %}` (copier's yield tag) stands for one part per item of xs
_YIELD = re.compile(r"^\{%-?\s*yield\s+(\w+)\s+from\s+(.+?)\s*-?%\}(.*)\{%-?\s*endyield\s*-?%\}$", re.S)


def render_trees(plans: list[RenderPlan]) -> list[dict[str, bytes]]:
    """All files of each op dir, keyed by POSIX path relative to it.

    Each op's C++ is formatted by a clang-format process while Python renders the next op.
    """
    scratch = _scratch_dir()
    remove_stale_scratch(scratch)
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=scratch) as tmp:
        trees: list[dict[str, bytes]] = []
        formatted: list[dict[str, Path]] = []
        with CppFormatter() as formatter:
            for index, plan in enumerate(plans):
                files = dict(sorted(_render_plan(plan).items()))
                cpp = {rel: Path(tmp) / str(index) / rel for rel in files if rel.endswith(CPP_SUFFIXES)}
                for rel, path in cpp.items():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(files[rel])
                formatter.submit(list(cpp.values()))
                trees.append(files)
                formatted.append(cpp)
        for files, cpp in zip(trees, formatted, strict=True):
            files.update({rel: path.read_bytes() for rel, path in cpp.items()})
        return trees


def render_blueprint(blueprint: str, plan: RenderPlan, family: KernelFamily | None = None) -> dict[str, bytes]:
    """One blueprint's files before formatting, as copier would write them (keys: POSIX paths); a family's
    blueprint is rendered with that family as `family`."""
    env = _environment()
    context = {"blueprint": blueprint, "plan": plan, "family": family}
    out: dict[str, bytes] = {}
    base = BLUEPRINTS / blueprint
    for source in sorted(p for p in base.rglob("*") if p.is_file()):
        rel = source.relative_to(base).as_posix()
        if _excluded(rel):
            continue
        templated = rel.endswith(SUFFIX)
        name = rel[: -len(SUFFIX)] if templated else rel
        for target, extra in _paths(env, name.split("/"), context):
            if templated:
                text = env.get_template(f"{blueprint}/{rel}").render({**context, **extra})
                out[target] = text.encode()
            else:
                out[target] = source.read_bytes()
    return out


def _excluded(rel: str) -> bool:
    """copier's default `_exclude` patterns."""
    parts = rel.split("/")
    return parts[-1] in ("copier.yml", "copier.yaml") or parts[-1].endswith((".pyc", ".pyo")) or any(
        part in ("__pycache__", ".git", ".DS_Store", ".svn") or part.startswith("~") for part in parts)


def _render_plan(plan: RenderPlan) -> dict[str, bytes]:
    files = render_blueprint("common", plan)
    for family in plan.families:
        rendered = render_blueprint(family.blueprint, plan, family)
        clash = sorted(files.keys() & rendered.keys())
        if clash:
            raise OpgenError(f"kernel family {family.name} renders files another blueprint has: {', '.join(clash)}")
        files.update(rendered)
    return files


def _paths(env: Any, parts: list[str], context: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each rendered path of a templated path, with the variables its yield tags bound; a path with a part
    that renders empty is skipped (as copier does)."""
    if not parts:
        yield "", {}
        return
    head, rest = parts[0], parts[1:]
    match = _YIELD.match(head)
    if match:
        name, iterable, body = match.groups()
        choices = [({name: item}, _render_string(env, body, {**context, name: item}))
                   for item in env.compile_expression(iterable)(**context)]
    else:
        choices = [({}, _render_string(env, head, context))]
    for bound, part in choices:
        if not part:
            continue
        for tail, more in _paths(env, rest, {**context, **bound}):
            yield (f"{part}/{tail}" if tail else part), {**bound, **more}


def _render_string(env: Any, text: str, context: dict[str, Any]) -> str:
    if "{" not in text:
        return text
    return str(_compiled(env, text).render(**context))


@cache
def _compiled(env: Any, text: str) -> Any:
    return env.from_string(text)


# copier.yml's `_envops`; part of the bytecode cache's name, since Jinja keys cached code by template only
ENVOPS = {"keep_trailing_newline": True, "trim_blocks": True, "lstrip_blocks": True}


@cache
def _environment() -> Any:
    """copier.yml's `_envops`, a loader rooted at the blueprints (for `{% include "partials/..." %}`), and a
    bytecode cache in the user's cache dir, so a cold `opgen` skips Jinja compilation."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(BLUEPRINTS)), undefined=jinja2.StrictUndefined, autoescape=False,
        bytecode_cache=_bytecode_cache(), keep_trailing_newline=ENVOPS["keep_trailing_newline"],
        trim_blocks=ENVOPS["trim_blocks"], lstrip_blocks=ENVOPS["lstrip_blocks"],
    )


def _bytecode_cache() -> Any:
    from jinja2 import FileSystemBytecodeCache

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    options = "".join(str(int(value)) for _, value in sorted(ENVOPS.items()))
    directory = base / "opgen" / f"jinja-{__version__}-{options}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return FileSystemBytecodeCache(str(directory))


def _scratch_dir() -> str | None:
    """Format in memory-backed /dev/shm where there is one."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def remove_stale_scratch(scratch: str | None) -> None:
    """Scratch dirs of opgen processes that were killed (SIGKILL cannot be cleaned up after) go on the next run."""
    directory = Path(scratch or tempfile.gettempdir())
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(SCRATCH_PREFIX) and not owner_alive(entry.name[len(SCRATCH_PREFIX):]):
            shutil.rmtree(entry.path, ignore_errors=True)


class CppFormatter:
    """clang-format with the ops-nn style, in place, at most one process per CPU at a time."""

    def __init__(self) -> None:
        from clang_format import get_executable  # type: ignore[import-untyped]

        self.command = [get_executable("clang-format"), f"--style=file:{CLANG_FORMAT_STYLE}", "-i"]
        self.limit = os.cpu_count() or 1
        self.running: list[subprocess.Popen[bytes]] = []

    def submit(self, paths: list[Path]) -> None:
        if not paths:
            return
        if len(self.running) >= self.limit:
            self._finish(self.running.pop(0))
        self.running.append(subprocess.Popen([*self.command, *map(str, paths)], stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE))

    @staticmethod
    def _finish(process: subprocess.Popen[bytes]) -> None:
        _, stderr = process.communicate()
        if process.returncode != 0:
            raise OpgenError(f"clang-format failed: {stderr.decode(errors='replace').strip()}")

    def __enter__(self) -> CppFormatter:
        return self

    def __exit__(self, failed: type[BaseException] | None, *rest: object) -> None:
        """Wait for every process, also when rendering failed, so none outlives the scratch dir."""
        running, self.running = self.running, []
        if failed is not None:
            for process in running:
                process.kill()
        for process in running:
            if failed is None:
                self._finish(process)
            else:
                process.wait()
