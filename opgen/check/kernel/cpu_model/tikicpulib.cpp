// The closed half of tikicpulib that asc-tools' open launch framework (kern_fwk.h's ICPU_RUN_KF, src/regfwk) calls,
// for the tikicpulib stand-in of ops-nn's kernel UTs: one forked process per vector core, each told its core index
// and type. The intrinsic bodies are the model's (intrinsics.h and the bindings the stand-in's prelude includes).
#include <cstdint>

#include "kernel_operator.h"
#include "intri_fmt.h"
#include "intri_fun.h"
#include "tikicpulib_closed.h"
#include "tikicpulib.h" // its launch framework's intrinsic calls are declared while this compiles

extern int64_t block_num;
extern int64_t block_idx;
extern int32_t g_coreType;
extern int32_t g_taskRation;
extern KernelMode g_kernelMode;

// one process per core: the kernels are vector-only (AIV_MODE), so no cube process and no sub-blocks
int get_process_num()
{
    return static_cast<int>(block_num);
}

void set_block_dim(int idx)
{
    block_idx = idx;
}

// regfwk starts in mix mode (two vector cores per block); a vector-only launch makes each process one vector core,
// or GetBlockIdx() would count in halves and the kernel would read another core's data
void set_core_type(int)
{
    if (g_kernelMode == KernelMode::AIV_MODE) {
        g_coreType = AscendC::AIV_TYPE;
        g_taskRation = 1;
    }
}

// the generated intrinsic table regfwk's StubInit walks when a stub is registered (none is here): every entry
// formats to a name no library defines
IntriFmtT* IntriFmtGet(int32_t fid)
{
    static IntriFmt format{0, "%.*s_opgen_none"};
    format.fid = fid;
    return &format;
}

void IntriFunAdd(int32_t, IntriTypeT, PfIntriFun) {}

namespace AscendC {
// tikicpulib checks set_flag/wait_flag pairing after each core; the model runs the pipes in program order
void CheckSyncState() {}
} // namespace AscendC
