// The launch side of opgen's CPU model: the launch globals and GM allocation a kernel links against (tikicpulib's
// open regfwk defines the same ones, so the tikicpulib stand-in leaves this file out), and a main() that lays the
// tensors out in GM with guard bytes, runs the kernel on each core in turn, and reports every byte the kernel changed
// outside its output tensors.
//
// Usage: runtime MANIFEST, or runtime --describe (what the run wrapper's opgen_describe prints: an arch35 DAG's
// compile-time buffer facts the host tiling divides the UB by). The manifest has one line per fact, in kernel-argument order for tensors:
//   cores N | tiling_key K | tiling FILE | guard BYTES | workspace BYTES
//   input NAME FILE | absent NAME | output NAME BYTES FILE   (absent: a null GM address, as GE passes for an optional
//   input the graph leaves out; the output is written to FILE after the run)
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "cost.h"
#include "numbers.h"

int64_t block_idx = 0;
int64_t block_num = 1;
int64_t g_ubBase = 0;
uint64_t g_tilingKey = 0;
int32_t g_coreType = AscendC::AIV;
int32_t g_taskRation = 1; // vector-only kernel: GetBlockIdx() is block_idx, not block_idx * 2
int32_t sub_block_idx = 0;

KernelMode g_kernelMode = KernelMode::AIV_MODE; // arch 3510's CPU-debug buffers: one UB per launch, not per core

namespace AscendC {
extern const int AIC_TYPE = AIC;
extern const int AIV_TYPE = AIV;
void* GmAlloc(size_t size)
{
    return std::calloc(1, size);
}
void GmFree(void* ptr)
{
    std::free(ptr);
}
} // namespace AscendC

extern "C" void opgen_launch(uint8_t* const* args); // written per op by the run wrapper
extern "C" void opgen_describe() __attribute__((weak)); // written by DAG run wrappers only

namespace {
// asc-devkit's CPU-debug checks (ASCENDC_ASSERT) log an [ERROR] line and raise(SIGABRT); the NPU build compiles
// them out, so the run passes over them as the NPU would, and counts them (a real abort() still terminates)
volatile std::sig_atomic_t g_cpuDebugAsserts = 0;
extern "C" void CountCpuDebugAssert(int)
{
    g_cpuDebugAsserts = g_cpuDebugAsserts + 1;
}

// Input guards and output guards differ: a kernel that reads past an input and copies what it read past an
// output (an identity-like op) would otherwise write back the very bytes the guard holds.
constexpr uint8_t INPUT_GUARD_BYTE = 0x5A;
constexpr uint8_t OUTPUT_GUARD_BYTE = 0xA5;
constexpr uint8_t UNWRITTEN_BYTE = 0xFF; // an output element the kernel never wrote reads as NaN

struct Region {
    std::string name;
    bool output = false;
    bool absent = false; // an optional input left out: a null address, no memory
    std::vector<uint8_t> expected; // inputs: their bytes; outputs: empty
    std::string outPath;
    std::vector<uint8_t> memory; // guard + data + guard
};

std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Bytes of `r` that differ from what they must hold: guards always, input data too.
void ReportChanges(const Region& r, size_t guard, size_t dataBytes)
{
    size_t changed = 0;
    long long first = 0;
    long long last = 0;
    for (size_t i = 0; i < r.memory.size(); ++i) {
        bool inData = i >= guard && i < guard + dataBytes;
        uint8_t guardByte = r.output ? OUTPUT_GUARD_BYTE : INPUT_GUARD_BYTE;
        uint8_t want = inData ? (r.output ? r.memory[i] : r.expected[i - guard]) : guardByte;
        if (r.memory[i] != want) {
            last = static_cast<long long>(i) - static_cast<long long>(guard);
            if (changed++ == 0) {
                first = last;
            }
        }
    }
    if (changed != 0) {
        std::printf("overrun %s %zu %lld %lld %zu\n", r.name.c_str(), changed, first, last, dataBytes);
    }
}
} // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // asc-devkit's [ERROR] lines survive a crash that follows them
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MANIFEST | --describe\n", argv[0]);
        return 2;
    }
    if (std::strcmp(argv[1], "--describe") == 0) {
        if (opgen_describe != nullptr) {
            opgen_describe();
        }
        return 0;
    }
    std::ifstream manifest(argv[1]);
    std::vector<Region> regions;
    std::vector<uint8_t> tiling;
    size_t guard = 256, workspaceBytes = 0;
    int64_t cores = 1;
    for (std::string line; std::getline(manifest, line);) {
        std::istringstream fields(line);
        std::string key;
        fields >> key;
        if (key == "cores") {
            fields >> cores;
        } else if (key == "tiling_key") {
            fields >> g_tilingKey;
        } else if (key == "tiling") {
            std::string path;
            fields >> path;
            tiling = ReadFile(path);
        } else if (key == "guard") {
            fields >> guard;
        } else if (key == "workspace") {
            fields >> workspaceBytes;
        } else if (key == "absent") {
            Region r;
            fields >> r.name;
            r.absent = true;
            regions.push_back(std::move(r));
        } else if (key == "input" || key == "output") {
            Region r;
            r.output = key == "output";
            std::string path;
            size_t bytes = 0;
            fields >> r.name;
            if (r.output) {
                fields >> bytes >> r.outPath;
            } else {
                fields >> path;
                r.expected = ReadFile(path);
                bytes = r.expected.size();
            }
            r.memory.assign(guard * 2 + bytes, r.output ? OUTPUT_GUARD_BYTE : INPUT_GUARD_BYTE);
            if (r.output) {
                std::memset(r.memory.data() + guard, UNWRITTEN_BYTE, bytes);
            } else {
                std::memcpy(r.memory.data() + guard, r.expected.data(), bytes);
            }
            regions.push_back(std::move(r));
        }
    }
    std::vector<uint8_t> workspace(guard * 2 + workspaceBytes, INPUT_GUARD_BYTE);
    std::vector<uint8_t*> args;
    for (Region& r : regions) {
        args.push_back(r.absent ? nullptr : r.memory.data() + guard);
    }
    args.push_back(workspace.data() + guard);
    args.push_back(tiling.data());
    block_num = cores;
    std::signal(SIGABRT, CountCpuDebugAssert);
    for (int64_t core = 0; core < cores; ++core) { // one after another, each in program order
        block_idx = core;
        opgen_launch(args.data());
    }
    for (Region& r : regions) {
        if (r.absent) {
            continue;
        }
        size_t dataBytes = r.memory.size() - guard * 2;
        ReportChanges(r, guard, dataBytes);
        if (r.output) {
            std::ofstream out(r.outPath, std::ios::binary);
            out.write(reinterpret_cast<const char*>(r.memory.data() + guard), static_cast<std::streamsize>(dataBytes));
        }
    }
    std::printf("asserts %d\n", static_cast<int>(g_cpuDebugAsserts));
    const opgen_cpu::CostCounters& cost = opgen_cpu::Cost();
    std::printf("cost gm_to_ub %llu\ncost ub_to_gm %llu\ncost ub_extent %llu\n",
                static_cast<unsigned long long>(cost.gmToUb), static_cast<unsigned long long>(cost.ubToGm),
                static_cast<unsigned long long>(cost.ubHigh > cost.ubLow ? cost.ubHigh - cost.ubLow : 0));
    for (const auto& [name, count] : opgen_cpu::Calls()) {
        std::printf("cost call %s %llu\n", name.c_str(), static_cast<unsigned long long>(count));
    }
    std::printf("done %lld\n", static_cast<long long>(cores));
    return 0;
}
