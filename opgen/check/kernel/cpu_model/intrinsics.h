// opgen's CPU model of the AscendC vector-core intrinsics a classic element-wise kernel reaches.
// Included at the end of the run wrapper, after the kernel, with the bindings after it: each intrinsic
// is declared earlier (a variadic template, by the declarations header) and defined by the bindings,
// so the kernel's calls bind to these bodies. A name not defined here stays undefined and the link
// fails naming it.
#ifndef OPGEN_CPU_MODEL_INTRINSICS_H
#define OPGEN_CPU_MODEL_INTRINSICS_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "cost.h"
#include "numbers.h"

#ifndef OPGEN_INTRINSIC_RET
#define OPGEN_INTRINSIC_RET int64_t
#endif
#define OPGEN_INTRINSIC(name) template <typename... Args> OPGEN_INTRINSIC_RET name(Args... args)
// Run the model's `run` on the arguments; an operand form the model does not cover (asc-devkit also calls
// some intrinsics on vector registers) still compiles and aborts by name if a kernel reaches it.
#define OPGEN_DISPATCH(name)                                        \
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {   \
        run(args...);                                               \
    } else {                                                        \
        ((void)args, ...);                                          \
        opgen_cpu::Unmodelled(#name " with these operand types");   \
    }                                                               \
    return {}

namespace opgen_cpu {
constexpr uint64_t REPEAT_BYTES = 256;
constexpr uint64_t BLOCK_BYTES = 32;

struct VectorState {
    bool counterMode = false;
    uint64_t maskHigh = ~0ULL;
    uint64_t maskLow = ~0ULL;
    uint64_t ctrl = 0x1000000000000008ULL; // asc-devkit ResetCtrlSprImpl's default CTRL; bit 56 is counterMode
};
constexpr uint64_t CTRL_COUNTER_BIT = 56;
inline VectorState& State()
{
    static VectorState state;
    return state;
}

// One operand of a repeated vector instruction: element e of repeat r sits at
// base + r * repStride blocks + (e / per-block) * blkStride blocks + (e % per-block) elements.
template <typename T>
struct Operand {
    T* base;
    uint64_t blkStride;
    uint64_t repStride;
    T* At(uint64_t repeat, uint64_t element) const
    {
        constexpr uint64_t perBlock = BLOCK_BYTES / sizeof(T);
        auto* bytes = reinterpret_cast<uint8_t*>(base);
        return reinterpret_cast<T*>(bytes + (repeat * repStride + element / perBlock * blkStride) * BLOCK_BYTES +
                                    element % perBlock * sizeof(T));
    }
};

// Visit the active lanes: normal mode uses the 128-bit mask per repeat; counter mode runs maskLow elements
// in all, as many repeats as that takes, and ignores the repeat argument.
template <typename Lane>
void ForLanes(uint64_t lanesPerRepeat, uint64_t repeats, Lane lane)
{
    const VectorState& s = State();
    if (s.counterMode) {
        uint64_t total = s.maskLow;
        for (uint64_t i = 0; i < total; ++i) {
            lane(i / lanesPerRepeat, i % lanesPerRepeat);
        }
        return;
    }
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t e = 0; e < lanesPerRepeat; ++e) {
            uint64_t word = e < 64 ? s.maskLow : s.maskHigh;
            if ((word >> (e % 64)) & 1ULL) {
                lane(r, e);
            }
        }
    }
}

template <typename T>
constexpr uint64_t Lanes()
{
    return REPEAT_BYTES / sizeof(T);
}

template <typename T, typename Op>
void Binary(T* dst, T* src0, T* src1, uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk, uint64_t src1Blk,
            uint64_t dstRep, uint64_t src0Rep, uint64_t src1Rep, Op op)
{
    Operand<T> d{dst, dstBlk, dstRep}, a{src0, src0Blk, src0Rep}, b{src1, src1Blk, src1Rep};
    ForLanes(Lanes<T>(), repeat, [&](uint64_t r, uint64_t e) {
        Store(d.At(r, e), op(Load(a.At(r, e)), Load(b.At(r, e))));
    });
}

template <typename T, typename Op>
void Unary(T* dst, T* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep, uint64_t srcRep, Op op)
{
    Operand<T> d{dst, dstBlk, dstRep}, a{src, srcBlk, srcRep};
    ForLanes(Lanes<T>(), repeat, [&](uint64_t r, uint64_t e) { Store(d.At(r, e), op(Load(a.At(r, e)))); });
}

template <typename D, typename S>
void Convert(D* dst, S* src, uint64_t repeat, uint64_t dstBlk, uint64_t srcBlk, uint64_t dstRep, uint64_t srcRep,
             Rounding mode)
{
    Operand<D> d{dst, dstBlk, dstRep};
    Operand<S> a{src, srcBlk, srcRep};
    constexpr uint64_t lanes = REPEAT_BYTES / (sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S));
    ForLanes(lanes, repeat, [&](uint64_t r, uint64_t e) { StoreRounded(d.At(r, e), Load(a.At(r, e)), mode); });
}

// Burst moves. Plain: lengths and gaps in 32-byte blocks on both sides. Align (DataCopyPad): GM length and
// GM gap in bytes, the UB side of each burst padded to whole 32-byte blocks, UB gap in blocks.
inline void MoveBlocks(void* dst, const void* src, uint64_t nBurst, uint64_t lenBurst, uint64_t srcGap, uint64_t dstGap)
{
    auto* d = static_cast<uint8_t*>(dst);
    const auto* s = static_cast<const uint8_t*>(src);
    for (uint64_t i = 0; i < nBurst; ++i) {
        std::memmove(d + i * (lenBurst + dstGap) * BLOCK_BYTES, s + i * (lenBurst + srcGap) * BLOCK_BYTES,
                     lenBurst * BLOCK_BYTES);
    }
}

inline uint64_t PaddedBytes(uint64_t bytes)
{
    return (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
}

inline void MoveGmToUbAlign(void* ub, const void* gm, uint64_t nBurst, uint64_t lenBytes, uint64_t gmGapBytes,
                            uint64_t ubGapBlocks)
{
    Cost().gmToUb += nBurst * lenBytes;
    for (uint64_t i = 0; i < nBurst; ++i) {
        std::memmove(static_cast<uint8_t*>(ub) + i * (PaddedBytes(lenBytes) + ubGapBlocks * BLOCK_BYTES),
                     static_cast<const uint8_t*>(gm) + i * (lenBytes + gmGapBytes), lenBytes);
    }
}

inline void MoveUbToGmAlign(void* gm, const void* ub, uint64_t nBurst, uint64_t lenBytes, uint64_t ubGapBlocks,
                            uint64_t gmGapBytes)
{
    Cost().ubToGm += nBurst * lenBytes;
    for (uint64_t i = 0; i < nBurst; ++i) {
        std::memmove(static_cast<uint8_t*>(gm) + i * (lenBytes + gmGapBytes),
                     static_cast<const uint8_t*>(ub) + i * (PaddedBytes(lenBytes) + ubGapBlocks * BLOCK_BYTES),
                     lenBytes);
    }
}

template <typename T>
uint64_t U(T value)
{
    return static_cast<uint64_t>(value);
}
// the value a padded GM -> UB move writes into its pad elements: DataCopyPad sets it (raw bits; a pad element takes
// the low bytes of its width) when its pad params say isPad
inline uint64_t& MovPadValue()
{
    static uint64_t value = 0;
    return value;
}
} // namespace opgen_cpu

// The model's intrinsics live in opgen_model; opgen_model_bindings.h (generated per build from the
// declarations) defines each declared global intrinsic by forwarding to its namesake here.
namespace opgen_model {

// ---- vector arithmetic (dst, src0, src1, repeat, dst/src0/src1 block strides, dst/src0/src1 repeat strides)
#define OPGEN_BINARY(name, expr)                                                                                  \
    OPGEN_INTRINSIC(name)                                                                                         \
    {                                                                                                             \
        auto run = [](auto* d, auto* a, auto* b, auto repeat, auto db, auto ab, auto bb, auto dr, auto ar, auto br) { \
            using namespace opgen_cpu;                                                                            \
            Binary(d, a, b, U(repeat), U(db), U(ab), U(bb), U(dr), U(ar), U(br),                                  \
                   [](double x, double y) { return expr; });                                                      \
        };                                                                                                        \
        OPGEN_DISPATCH(name);                                                                                     \
    }
OPGEN_BINARY(vadd, x + y)
OPGEN_BINARY(vsub, x - y)
OPGEN_BINARY(vmul, x * y)
OPGEN_BINARY(vdiv, x / y)

// ---- unary (dst, src, repeat, dst/src block strides, dst/src repeat strides)
#define OPGEN_UNARY(name, expr)                                                                                 \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](auto* d, auto* a, auto repeat, auto db, auto ab, auto dr, auto ar) {                      \
            using namespace opgen_cpu;                                                                          \
            Unary(d, a, U(repeat), U(db), U(ab), U(dr), U(ar), [](double x) { return expr; });                 \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                           \
    }
OPGEN_UNARY(vexp, std::exp(x))

// ---- with a scalar (dst, src, scalar, repeat, dst/src block strides, dst/src repeat strides[, two flags])
#define OPGEN_SCALAR(name, expr)                                                                                \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](auto* d, auto* a, auto scalar, auto repeat, auto db, auto ab, auto dr, auto ar, auto... flags) { \
            using namespace opgen_cpu;                                                                          \
            static_assert(sizeof...(flags) <= 2, #name ": unexpected arguments");                              \
            double y = Load(&scalar);                                                                           \
            Unary(d, a, U(repeat), U(db), U(ab), U(dr), U(ar), [y](double x) { return expr; });                \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                           \
    }
OPGEN_SCALAR(vadds, x + y)
OPGEN_SCALAR(vmuls, x * y)
OPGEN_SCALAR(vmaxs, std::isnan(x) || std::isnan(y) ? NAN : (x > y ? x : y))
OPGEN_SCALAR(vmins, std::isnan(x) || std::isnan(y) ? NAN : (x < y ? x : y))

// vector_dup(dst, scalar, repeat, dst block stride, src block stride, dst repeat stride, src repeat stride)
OPGEN_INTRINSIC(vector_dup)
{
    auto run = [](auto* d, auto scalar, auto repeat, auto db, auto, auto dr, auto) {
        using namespace opgen_cpu;
        using T = std::remove_pointer_t<decltype(d)>;
        Operand<T> dst{d, U(db), U(dr)};
        double value = Load(&scalar);
        ForLanes(Lanes<T>(), U(repeat), [&](uint64_t r, uint64_t e) { Store(dst.At(r, e), value); });
    };
    OPGEN_DISPATCH(vector_dup);
}

// ---- conversions (dst, src, repeat, dst/src block strides, dst/src repeat strides); the suffix is the rounding
#define OPGEN_CONVERT(name, mode)                                                                               \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](auto* d, auto* a, auto repeat, auto db, auto ab, auto dr, auto ar) {                      \
            using namespace opgen_cpu;                                                                          \
            Convert(d, a, U(repeat), U(db), U(ab), U(dr), U(ar), Rounding::mode);                               \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                           \
    }
OPGEN_CONVERT(vconv_f162f32, NEAREST_EVEN)
OPGEN_CONVERT(vconv_bf162f32, NEAREST_EVEN)
OPGEN_CONVERT(vconv_f322f16, NEAREST_EVEN)
OPGEN_CONVERT(vconv_f322f16r, NEAREST_EVEN)
OPGEN_CONVERT(vconv_f322f16a, NEAREST_AWAY)
OPGEN_CONVERT(vconv_f322f16f, FLOOR)
OPGEN_CONVERT(vconv_f322f16c, CEIL)
OPGEN_CONVERT(vconv_f322f16z, TRUNC)
OPGEN_CONVERT(vconv_f322f16o, ODD)
OPGEN_CONVERT(vconv_f322bf16r, NEAREST_EVEN)
OPGEN_CONVERT(vconv_f322bf16a, NEAREST_AWAY)
OPGEN_CONVERT(vconv_f322bf16f, FLOOR)
OPGEN_CONVERT(vconv_f322bf16c, CEIL)
OPGEN_CONVERT(vconv_f322bf16z, TRUNC)

// ---- moves between GM and UB (dst, src, sid, nBurst, lenBurst, src gap, dst gap[, left/right pad])
OPGEN_INTRINSIC(copy_gm_to_ubuf)
{
    auto run = [](void* d, void* s, auto, auto n, auto len, auto srcGap, auto dstGap) {
        opgen_cpu::Cost().gmToUb += opgen_cpu::U(n) * opgen_cpu::U(len) * 32;
        opgen_cpu::MoveBlocks(d, s, opgen_cpu::U(n), opgen_cpu::U(len), opgen_cpu::U(srcGap), opgen_cpu::U(dstGap));
    };
    OPGEN_DISPATCH(copy_gm_to_ubuf);
}
OPGEN_INTRINSIC(copy_ubuf_to_gm)
{
    auto run = [](void* d, void* s, auto, auto n, auto len, auto srcGap, auto dstGap) {
        opgen_cpu::Cost().ubToGm += opgen_cpu::U(n) * opgen_cpu::U(len) * 32;
        opgen_cpu::MoveBlocks(d, s, opgen_cpu::U(n), opgen_cpu::U(len), opgen_cpu::U(srcGap), opgen_cpu::U(dstGap));
    };
    OPGEN_DISPATCH(copy_ubuf_to_gm);
}
#define OPGEN_ALIGN_MOVE(name, move)                                                                            \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](void* d, void* s, auto, auto n, auto len, auto leftPad, auto rightPad, auto srcGap,       \
                      auto dstGap) {                                                                            \
            using namespace opgen_cpu;                                                                          \
            if (U(leftPad) != 0 || U(rightPad) != 0) {                                                          \
                Unmodelled(#name " with padding");                                                              \
            }                                                                                                   \
            move(d, s, U(n), U(len), U(srcGap), U(dstGap));                                                     \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                           \
    }
OPGEN_ALIGN_MOVE(copy_gm_to_ubuf_align_b32, MoveGmToUbAlign)
OPGEN_ALIGN_MOVE(copy_gm_to_ubuf_align_b16, MoveGmToUbAlign)
OPGEN_ALIGN_MOVE(copy_ubuf_to_gm_align_b32, MoveUbToGmAlign)
OPGEN_ALIGN_MOVE(copy_ubuf_to_gm_align_b16, MoveUbToGmAlign)

// ---- mask and mode state
OPGEN_INTRINSIC(set_mask_count)
{
    opgen_cpu::State().counterMode = true;
    return {};
}
OPGEN_INTRINSIC(set_mask_norm)
{
    opgen_cpu::State().counterMode = false;
    return {};
}
OPGEN_INTRINSIC(set_vector_mask)
{
    auto run = [](auto high, auto low) {
        opgen_cpu::State().maskHigh = opgen_cpu::U(high);
        opgen_cpu::State().maskLow = opgen_cpu::U(low);
    };
    OPGEN_DISPATCH(set_vector_mask);
}

// CTRL: the other bits are kept and read back (3510's saturation modes read theirs, regs3510_math.h)
OPGEN_INTRINSIC(get_ctrl)
{
    ((void)args, ...);
    const opgen_cpu::VectorState& s = opgen_cpu::State();
    uint64_t ctrl = s.ctrl & ~(1ULL << opgen_cpu::CTRL_COUNTER_BIT);
    return static_cast<OPGEN_INTRINSIC_RET>(ctrl | (static_cast<uint64_t>(s.counterMode) << opgen_cpu::CTRL_COUNTER_BIT));
}
OPGEN_INTRINSIC(set_ctrl)
{
    auto run = [](auto value) {
        opgen_cpu::VectorState& s = opgen_cpu::State();
        s.ctrl = static_cast<uint64_t>(value);
        s.counterMode = ((s.ctrl >> opgen_cpu::CTRL_COUNTER_BIT) & 1ULL) != 0;
    };
    OPGEN_DISPATCH(set_ctrl);
}

// ---- scalar bit helpers the buffer bookkeeping uses
OPGEN_INTRINSIC(sff0)
{
    auto run = [](auto value) {
        uint64_t v = opgen_cpu::U(value);
        for (int64_t bit = 0; bit < 64; ++bit) {
            if (((v >> bit) & 1ULL) == 0) {
                return bit;
            }
        }
        return int64_t{64};
    };
    return static_cast<OPGEN_INTRINSIC_RET>(run(args...));
}
OPGEN_INTRINSIC(sbitset0)
{
    auto run = [](auto value, auto bit) { return opgen_cpu::U(value) & ~(1ULL << opgen_cpu::U(bit)); };
    return static_cast<OPGEN_INTRINSIC_RET>(run(args...));
}
OPGEN_INTRINSIC(sbitset1)
{
    auto run = [](auto value, auto bit) { return opgen_cpu::U(value) | (1ULL << opgen_cpu::U(bit)); };
    return static_cast<OPGEN_INTRINSIC_RET>(run(args...));
}

// ---- the core's place in the launch
OPGEN_INTRINSIC(get_block_num)
{
    return static_cast<OPGEN_INTRINSIC_RET>(block_num);
}
OPGEN_INTRINSIC(get_block_idx)
{
    return static_cast<OPGEN_INTRINSIC_RET>(block_idx);
}

// ---- no effect on one core run in program order: pipe synchronisation, modes with no numeric effect here,
// and the CPU-debug bookkeeping hooks of buffers and queues
#define OPGEN_NO_OP(name)  \
    OPGEN_INTRINSIC(name)  \
    {                      \
        ((void)args, ...); \
        return {};         \
    }
OPGEN_NO_OP(set_flag)
OPGEN_NO_OP(wait_flag)
OPGEN_NO_OP(pipe_barrier)
OPGEN_NO_OP(mem_bar) // ordering of UB stores and loads: one core runs them in program order
OPGEN_NO_OP(set_atomic_none)
OPGEN_NO_OP(set_padding)
OPGEN_NO_OP(set_l1_3d_size)
// set_mov_pad_val: the pad value of the next padded GM -> UB move (opgen_cpu::MovPadValue)
OPGEN_INTRINSIC(set_mov_pad_val)
{
    ((opgen_cpu::MovPadValue() = static_cast<uint64_t>(args)), ...);
    return {};
}
OPGEN_NO_OP(set_ffts_base_addr) // the cross-core sync counters' base: vector-only kernels never sync cores
// AscendCBufInit(position, kind, num, address, len): a TPipe buffer of num x len bytes, counted for the UB extent;
// bookkeeping only, so another form is passed over as before
OPGEN_INTRINSIC(AscendCBufInit)
{
    auto run = [](auto, auto, auto num, auto address, auto len) {
        opgen_cpu::CountBuffer(opgen_cpu::U(address), opgen_cpu::U(num) * opgen_cpu::U(len));
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        ((void)args, ...);
    }
    return {};
}
OPGEN_NO_OP(AscendCBufAlloc)
OPGEN_NO_OP(AscendCBufFree)
OPGEN_NO_OP(AscendCBufGet)
OPGEN_NO_OP(AscendCBufEnque)
OPGEN_NO_OP(AscendCBufDeque)
OPGEN_NO_OP(AscendCBufAbsAddr)
OPGEN_NO_OP(AscendCQueCreate)
OPGEN_NO_OP(AscendCTBufPoolResetCheck)
OPGEN_NO_OP(AscendCUpdateTbufPoolStatus)
} // namespace opgen_model

#include "cmpsel.h"

#endif // OPGEN_CPU_MODEL_INTRINSICS_H
