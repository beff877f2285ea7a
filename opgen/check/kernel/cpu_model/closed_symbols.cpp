// The closed CPU-debug runtime symbols asc-devkit's headers declare and a kernel links against, written from their
// documented behaviour: atomic state, the process lock, the arch 3510 buffer tracker, bounded printf, the argument
// checks, and half / bfloat16 members. Shared by the kernel tier's runtime and the tikicpulib stand-in.
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "kernel_operator.h"
#include "numbers.h"

namespace AscendC {
bool g_isAtomic = false;
AtomicType g_atomicType = SUM;
// the lock tikicpulib's DataCopy takes around an atomic UB->GM copy (its cores are processes sharing GM): the kernel
// tier runs the cores one after another in one process, so it is never contended; the stand-in's forked cores each
// hold their own copy, which no generated kernel needs (none copies atomically)
ProcessLock* ProcessLock::processLock = nullptr;
ProcessLock::ProcessLock()
{
    pthread_rwlock_init(&lock, nullptr);
}
ProcessLock::~ProcessLock()
{
    pthread_rwlock_destroy(&lock);
}
ProcessLock* ProcessLock::CreateLock()
{
    static ProcessLock only;
    return &only;
}
int ProcessLock::Read()
{
    return pthread_rwlock_rdlock(&lock);
}
int ProcessLock::Write()
{
    return pthread_rwlock_wrlock(&lock);
}
int ProcessLock::Unlock()
{
    return pthread_rwlock_unlock(&lock);
}
void ProcessLock::UnInit() {}
void ProcessLock::FreeLock() {}
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3510)
// CPU debug's tracker of get_buf / rls_buf pairs (kernel_event.h): its bodies are closed; the model accepts every
// pairing, as the NPU build (which has no tracker) does
bool BufIdTracker::AddBufIdEvent(uint8_t, pipe_t, bool, bool)
{
    return true;
}
bool BufIdTracker::GetState()
{
    return true;
}
#endif
} // namespace AscendC

// libboundscheck's bounded printf, which atvoss's log helpers call
extern "C" int snprintf_s(char* dest, size_t destMax, size_t count, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    int written = std::vsnprintf(dest, destMax < count + 1 ? destMax : count + 1, format, args);
    va_end(args);
    return written;
}

// asc-devkit's CPU-debug argument checks: their bodies are in the closed runtime; the model checks the
// results (output values and guard bytes) instead.
namespace AscendC::check {
bool CheckFuncVecBinaryImpl(VecBinaryApiParams&, const char*) { return true; }
bool CheckFuncVecBinaryImpl(VecBinaryApiParams&, const uint64_t, const char*) { return true; }
bool CheckFunVecBinaryScalarImpl(VecBinaryScalarApiParams&, const char*) { return true; }
bool CheckFunVecBinaryScalarImpl(VecBinaryScalarApiParams&, const uint64_t, const char*) { return true; }
bool CheckFunDupImpl(VecDupApiParams&, const char*) { return true; }
bool CheckFunDupImpl(VecDupApiParams&, const uint64_t, const char*) { return true; }
bool CheckFuncDataCopyImpl(DataCopyApiParams&, const char*) { return true; }
bool CheckFuncDataCopyPadImpl(DataCopyPadApiParams&, const char*) { return true; }
bool CheckFuncVecBinaryCmpImpl(VecBinaryApiParams&, const char*) { return true; }
bool CheckFuncVecBinaryCmpImpl(VecBinaryApiParams&, const uint64_t, const char*) { return true; }
bool CheckFuncVecBinaryCmpImplForMaskArray(VecBinaryApiParams&, const uint64_t[], const char*) { return true; }
bool CheckFuncVecBinaryScalarCmpImpl(VecBinaryScalarApiParams&, const char*) { return true; }
bool CheckFuncVecBinaryScalarCmpImpl(VecBinaryScalarApiParams&, const uint64_t, const char*) { return true; }
bool CheckFuncVecSelectImpl(VecSelectApiParams&, const char*) { return true; }
bool CheckFuncVecSelectImpl(VecSelectApiParams&, const uint64_t, const char*) { return true; }
bool CheckFuncVecSelectImplForMaskArray(VecSelectApiParams&, const uint64_t[], const char*) { return true; }
bool CheckFuncVecCmpRgtImpl(VecCmpRgtApiParams&, const uint64_t, const char*) { return true; }
bool CheckFuncVecCmpRgtImplForMaskArray(VecCmpRgtApiParams&, const uint64_t[], const char*) { return true; }
} // namespace AscendC::check

// Members of CPU-debug half and bfloat16 the headers declare and the closed runtime defines (conversions
// and copies; their arithmetic operators stay undefined: a kernel reaching them fails to link, by name).
uint16_t half::FloatToFp16(const float& fVal) const
{
    return opgen_cpu::BINARY16.Round(fVal, opgen_cpu::Rounding::NEAREST_EVEN);
}
uint16_t half::Int32ToFp16(const int32_t& iVal) const
{
    return opgen_cpu::BINARY16.Round(iVal, opgen_cpu::Rounding::NEAREST_EVEN);
}
uint16_t half::UInt32ToFp16(const uint32_t& uiVal) const
{
    return opgen_cpu::BINARY16.Round(uiVal, opgen_cpu::Rounding::NEAREST_EVEN);
}
uint16_t half::UInt8ToFp16(const uint8_t& uiVal) const // exact: every uint8 is a binary16
{
    return opgen_cpu::BINARY16.Round(uiVal, opgen_cpu::Rounding::NEAREST_EVEN);
}
float half::ToFloat() const
{
    return static_cast<float>(opgen_cpu::BINARY16.ToDouble(val));
}
half::operator float() const
{
    return ToFloat();
}
half::operator double() const // simt_stub.h's conversions, reached by a kernel UT that includes tikicpulib.h
{
    return ToFloat();
}
half& half::operator=(const half& fp)
{
    val = fp.val;
    return *this;
}
half& half::operator=(const int32_t& iVal)
{
    val = Int32ToFp16(iVal);
    return *this;
}
uint16_t bfloat16::Bf16T::FloatToBf16(const float& fVal) const
{
    return opgen_cpu::BFLOAT16.Round(fVal, opgen_cpu::Rounding::NEAREST_EVEN);
}
float bfloat16::Bf16T::ToFloat() const
{
    return static_cast<float>(opgen_cpu::BFLOAT16.ToDouble(val));
}
bfloat16::Bf16T::operator float() const
{
    return ToFloat();
}
bfloat16::Bf16T& bfloat16::Bf16T::operator=(const Bf16T& fp)
{
    val = fp.val;
    return *this;
}
bfloat16::Bf16T& bfloat16::Bf16T::operator=(const float& fVal)
{
    val = FloatToBf16(fVal);
    return *this;
}
// bfloat16 arithmetic on the scalar unit: in float, rounded to bfloat16 once (as the class's float conversions do)
bfloat16::Bf16T bfloat16::Bf16T::operator+(const Bf16T fp) const
{
    return Bf16T(ToFloat() + fp.ToFloat());
}
bfloat16::Bf16T bfloat16::Bf16T::operator+=(const Bf16T fp)
{
    *this = *this + fp;
    return *this;
}
bfloat16::Bf16T bfloat16::Bf16T::operator-() const
{
    Bf16T negated(*this);
    negated.val ^= 0x8000U;
    return negated;
}
bfloat16::Bf16T bfloat16::Bf16T::operator-(const Bf16T fp) const
{
    return Bf16T(ToFloat() - fp.ToFloat());
}
bfloat16::Bf16T bfloat16::Bf16T::operator-=(const Bf16T fp)
{
    *this = *this - fp;
    return *this;
}

