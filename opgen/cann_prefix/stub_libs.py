"""Libraries the op_host UT links that need nothing real for a host UT: the log library (its real one is a
client of the slogd daemon) becomes a sink to stderr, and the libraries whose symbols no UT calls are empty."""

from __future__ import annotations

import subprocess
from pathlib import Path

EMPTY_LIBRARIES = ("exe_graph", "register", "acl_rt", "nnopbase")

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
    subprocess.run(["g++", "-std=c++17", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=0",
                    "-Wl,-soname,libunified_dlog.so", "-o", str(lib_dir / "libunified_dlog.so"), *map(str, sources)],
                   check=True, capture_output=True, text=True)
    empty = work / "empty.c"
    empty.write_text("/* no symbols: a host UT calls none of this library */\n")
    for name in EMPTY_LIBRARIES:
        subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,lib{name}.so", "-o", str(lib_dir / f"lib{name}.so"),
                        str(empty)], check=True, capture_output=True, text=True)
