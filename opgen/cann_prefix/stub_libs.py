"""Libraries the UTs link that need nothing real on a host: the log library (its real one is a client of the
slogd daemon) becomes a sink to stderr, the library whose symbols no UT calls is empty, and the device-side
functions nnopbase calls (runtime, acl_rt, dump, profiling) answer 0, each named in a list the prefix keeps."""

from __future__ import annotations

from pathlib import Path

from ..check.bounded import run_tool
from ..errors import OpgenError

EMPTY_LIBRARIES = ("exe_graph",)
# a symbol's name prefix -> the toolkit library that defines it (libruntime, libacl_rt, libascend_dump, libprofapi)
SYMBOL_OWNERS = (("acl", "acl_rt"), ("rt", "runtime"), ("Adump", "ascend_dump"), ("_ZN3Adx", "ascend_dump"),
                 ("Msprof", "profapi"))
STUB_LIBRARIES = tuple(dict.fromkeys(owner for _, owner in SYMBOL_OWNERS))

# the sink: printed when ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error, default 3) admits the level
_SINK_BODY = r"""
static int opgen_log_level() {
  static int level = [] {
    const char* text = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    return text ? std::atoi(text) : 3;
  }();
  return level;
}
static void opgen_log(int module, int level, const char* fmt, va_list args) {
  std::fprintf(stderr, "[dlog %d] [module %d] ", level & 0xFFFF, module & 0xFFFF);
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
}
"""
_SINK_API = r"""
int32_t CheckLogLevel(int32_t, int32_t level) { return (level & 0xFFFF) >= opgen_log_level() ? 1 : 0; }
void DlogRecord(int32_t module, int32_t level, const char* fmt, ...) {
  va_list args; va_start(args, fmt); opgen_log(module, level, fmt, args); va_end(args);
}
void DlogVaList(int32_t module, int32_t level, const char* fmt, va_list args) { opgen_log(module, level, fmt, args); }
int32_t dlog_getlevel(int32_t, int32_t* enableEvent) { if (enableEvent) *enableEvent = 0; return opgen_log_level(); }
int32_t dlog_setlevel(int32_t, int32_t, int32_t) { return 0; }
void DlogFlush() { std::fflush(stderr); }
"""


def sink_source(c_linkage: bool) -> str:
    """The sink's C++ with C or C++ linkage: callers see either, and one file cannot define both."""
    head = "#include <cstdarg>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
    api = 'extern "C" {\n' + _SINK_API + "}\n" if c_linkage else _SINK_API
    return head + _SINK_BODY + api


def build_stub_libraries(lib_dir: Path, work: Path) -> None:
    """Write libunified_dlog.so (the sink) and the empty libraries into `lib_dir`, with ABI 0."""
    lib_dir.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    sources = [work / "opgen_dlog_sink_c.cpp", work / "opgen_dlog_sink_cpp.cpp"]
    for source, c_linkage in zip(sources, (True, False), strict=True):
        source.write_text(sink_source(c_linkage))
    run_tool(["g++", "-std=c++17", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=0",
              "-Wl,-soname,libunified_dlog.so", "-o", str(lib_dir / "libunified_dlog.so"), *map(str, sources)])
    empty = work / "empty.c"
    empty.write_text("/* no symbols: a host UT calls none of this library */\n")
    for name in EMPTY_LIBRARIES:
        run_tool(["gcc", "-shared", "-fPIC", f"-Wl,-soname,lib{name}.so", "-o", str(lib_dir / f"lib{name}.so"),
                  str(empty)])


def build_symbol_stubs(lib_dir: Path, work: Path, symbols: list[str]) -> dict[str, list[str]]:
    """Write each of `STUB_LIBRARIES` into `lib_dir` defining its share of `symbols` (C or mangled C++ names) as a
    function answering 0: success for the runtime's status codes, null for its handles. A symbol no owner claims
    is an error naming it, never a silent stub. Returns library -> its stubbed symbols."""
    owned: dict[str, list[str]] = {name: [] for name in STUB_LIBRARIES}
    for symbol in sorted(set(symbols)):
        owner = next((lib for prefix, lib in SYMBOL_OWNERS if symbol.startswith(prefix)), None)
        if owner is None:
            raise OpgenError(f"nnopbase needs `{symbol}`, which no library of the prefix defines and no toolkit "
                             "library opgen stands in for is known to own")
        owned[owner].append(symbol)
    lib_dir.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    for lib, names in owned.items():
        source = work / f"opgen_{lib}_stubs.c"
        source.write_text("".join(f'long opgen_stub_{i}(void) __asm__("{name}");\n'
                                  f"long opgen_stub_{i}(void) {{ return 0; }}\n" for i, name in enumerate(names)))
        run_tool(["gcc", "-shared", "-fPIC", f"-Wl,-soname,lib{lib}.so", "-o", str(lib_dir / f"lib{lib}.so"),
                  str(source)])
    return owned
