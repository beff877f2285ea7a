// Cost counters of the CPU model: what one launch asked of the vector core, printed by runtime.cpp's main as
// `cost ...` lines and read by the kernel tier (launch.py). Calls are counted per intrinsic at the bindings
// (run_build.bindings_source), bytes at the GM <-> UB moves, the UB extent at the TPipe's buffer set-up.
#ifndef OPGEN_CPU_MODEL_COST_H
#define OPGEN_CPU_MODEL_COST_H

#include <cstdint>
#include <map>
#include <string>

namespace opgen_cpu {
struct CostCounters {
    uint64_t gmToUb = 0;        // bytes moved from GM into UB
    uint64_t ubToGm = 0;        // bytes moved from UB into GM
    uint64_t ubLow = UINT64_MAX; // lowest UB address a buffer starts at (InitBuffer)
    uint64_t ubHigh = 0;        // highest UB address a buffer ends at
};
inline CostCounters& Cost()
{
    static CostCounters counters;
    return counters;
}
// one counter per intrinsic name; std::map keeps each reference valid as names are added
inline std::map<std::string, uint64_t>& Calls()
{
    static std::map<std::string, uint64_t> calls;
    return calls;
}
inline uint64_t& CallCounter(const char* name)
{
    return Calls()[name];
}
inline void CountBuffer(uint64_t address, uint64_t bytes)
{
    CostCounters& cost = Cost();
    cost.ubLow = address < cost.ubLow ? address : cost.ubLow;
    cost.ubHigh = address + bytes > cost.ubHigh ? address + bytes : cost.ubHigh;
}
} // namespace opgen_cpu

#endif // OPGEN_CPU_MODEL_COST_H
