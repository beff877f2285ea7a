"""Render plans into files with copier (the `common` blueprint, then the layout's), then clang-format.

copier builds a fresh Jinja environment and recompiles every template for each run; opgen renders many
ops per process, so one environment and its compiled templates are shared across runs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from functools import cached_property
from pathlib import Path
from typing import Any

from . import __version__
from .errors import OpgenError
from .paths import BLUEPRINTS, CLANG_FORMAT_STYLE
from .plan import RenderPlan

CPP_SUFFIXES = (".cpp", ".h")
_ENVIRONMENTS: dict[str, Any] = {}
_COMPILED: dict[str, Any] = {}
_TEMPLATES: dict[str, Any] = {}


def render_trees(plans: list[RenderPlan]) -> list[dict[str, bytes]]:
    """All files of each op dir, keyed by POSIX path relative to it.

    Each op's C++ is formatted by a clang-format process while Python renders the next op.
    """
    with tempfile.TemporaryDirectory(prefix="opgen-render-", dir=_scratch_dir()) as tmp:
        trees = []
        with CppFormatter() as formatter:
            for index, plan in enumerate(plans):
                root = Path(tmp) / str(index)
                for blueprint in ("common", plan.layout):
                    _render_blueprint(blueprint, plan, root)
                tree = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
                formatter.submit([path for rel, path in tree.items() if rel.endswith(CPP_SUFFIXES)])
                trees.append(tree)
        return [{rel: path.read_bytes() for rel, path in tree.items()} for tree in trees]


def _scratch_dir() -> str | None:
    """Render in memory-backed /dev/shm where there is one: copier writes many small files."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def render_tree(plan: RenderPlan) -> dict[str, bytes]:
    return render_trees([plan])[0]


def _render_blueprint(blueprint: str, plan: RenderPlan, root: Path) -> None:
    with _worker_class()(
        src_path=str(BLUEPRINTS), dst_path=root, data={"blueprint": blueprint, "plan": plan},
        defaults=True, overwrite=True, quiet=True, unsafe=True,
    ) as worker:
        worker.run_copy()


def _worker_class() -> Any:
    """copier's Worker with the template, the Jinja environment and compiled path templates kept between runs."""
    from copier._jinja_ext import get_yield_context
    from copier._main import Worker  # internal API: copier is pinned in pyproject.toml

    class SharedEnvironmentWorker(Worker):
        @cached_property
        def template(self) -> Any:
            key = str(self.src_path)
            if key not in _TEMPLATES:
                _TEMPLATES[key] = _unwrap(Worker.template)(self)
            return _TEMPLATES[key]

        @cached_property
        def answers_relpath(self) -> Path:
            return Path(_unwrap(Worker.answers_relpath)(self))

        @cached_property
        def jinja_env(self) -> Any:
            key = str(self.template.local_abspath)
            if key not in _ENVIRONMENTS:
                env = _unwrap(Worker.jinja_env)(self)
                env.bytecode_cache = _bytecode_cache()
                _ENVIRONMENTS[key] = env
            return _ENVIRONMENTS[key]

        def _render_string(self, string: str, extra_context: dict[str, Any] | None = None) -> str:
            if string not in _COMPILED:
                _COMPILED[string] = self.jinja_env.from_string(string)
            else:  # what parsing would do: a path's yield tag is read afresh on every render
                context = get_yield_context(self.jinja_env)
                context.yield_name = context.yield_iterable = None
            return str(_COMPILED[string].render(**self._render_context(), **(extra_context or {})))

        def _sync_git_index_executable_bit(self, dst_relpath: Path, src_mode: int) -> None:
            """No git index to sync: opgen renders into a private temp dir (one git process per file)."""

    return SharedEnvironmentWorker


def _bytecode_cache() -> Any:
    """Compiled blueprints kept in the user's cache dir, so a cold `opgen` skips Jinja compilation."""
    from jinja2 import FileSystemBytecodeCache

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    directory = base / "opgen" / f"jinja-{__version__}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return FileSystemBytecodeCache(str(directory))


def _unwrap(attribute: Any) -> Any:
    """The function behind a (cached) property of copier's Worker."""
    return getattr(attribute, "func", None) or attribute.fget


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
