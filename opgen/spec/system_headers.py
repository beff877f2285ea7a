"""Header names an op's files must not take: a generated `errno.h` beside the kernel shadows `<errno.h>`.

opgen writes bare `<op>.h` files (op_api/<op>.h with an aclnn API, op_kernel/<op>.h and op_kernel/arch35/<op>.h
for some kernels) and `aclnn_<api>.h`; their directories are on the include path of the files that include
them, so a stem below would be found before the system or CANN header of that name. Only `.h` names matter:
opgen writes no extensionless files, so C++ headers such as `<memory>` are never shadowed (`memory.h` is,
the C one). Stems in subdirectories (`sys/types.h`) cannot be op names.
"""

from __future__ import annotations

# C17 and C23 headers (<errno.h> .. <uchar.h>)
C_HEADERS = frozenset([
    "assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "iso646", "limits", "locale", "math",
    "setjmp", "signal", "stdalign", "stdarg", "stdatomic", "stdbit", "stdbool", "stdckdint", "stddef", "stdint",
    "stdio", "stdlib", "stdnoreturn", "string", "tgmath", "threads", "time", "uchar", "wchar", "wctype"
])

# POSIX.1-2017 top-level headers, and the glibc/Linux ones C and CANN code commonly include
POSIX_HEADERS = frozenset([
    "aio", "cpio", "dirent", "dlfcn", "fcntl", "fmtmsg", "fnmatch", "ftw", "glob", "grp", "iconv", "langinfo",
    "libgen", "monetary", "mqueue", "ndbm", "netdb", "nl_types", "poll", "pthread", "pwd", "regex", "sched",
    "search", "semaphore", "spawn", "strings", "stropts", "syslog", "tar", "termios", "trace", "ulimit", "unistd",
    "utime", "utmpx", "wordexp", "alloca", "byteswap", "elf", "endian", "execinfo", "features", "getopt", "link",
    "malloc", "memory"
])

# bare (directory-less) headers the generated tree itself includes from CANN and its test frameworks
CANN_HEADERS = frozenset([
    "acl", "aclnn_util", "all_ops", "data_utils", "infershape_case_executor", "infershape_elewise_util",
    "kernel_operator", "kernel_ut_data_executor", "kernel_ut_data_helper", "tikicpulib", "tiling_case_executor"
])

SHADOWED_HEADERS = C_HEADERS | POSIX_HEADERS | CANN_HEADERS
