// Arch 3510's multi-dimensional GM -> UB move (asc-devkit dav_3510 DataCopyWithNDDMAImpl; docs: DataCopy（GMToUB多维数据
// 搬运NDDMA）) and the UB -> UB move, which BroadcastSch's schedules issue. Included by regs3510.h.
//
// nddma_out_to_ub_bN(dst, src, sid, size0..size4, leftPad0, rightPad0, constMode, cacheMode): five nested loops of
// sizes size0 (innermost) .. size4; set_loopK_stride_nddma holds loop K's strides in elements, source in bits
// [59:20], destination in [19:0]; a zero source stride repeats an element: a broadcast. Padding (set_pad_cnt_nddma,
// the loop-0 pads) is not modelled and aborts by name.
#ifndef OPGEN_CPU_MODEL_REGS3510_NDDMA_H
#define OPGEN_CPU_MODEL_REGS3510_NDDMA_H

#include <cstdint>
#include <cstring>

#include "cost.h"

namespace opgen_reg {
struct NddmaState {
    uint64_t strides[5] = {};
    uint64_t padCount = 0;
};
inline NddmaState& Nddma()
{
    static NddmaState state;
    return state;
}
#define OPGEN_NDDMA_STRIDE(name, k)                               \
    template <typename... Args>                                   \
    int64_t name(Args&&... args)                                  \
    {                                                             \
        ((Nddma().strides[k] = static_cast<uint64_t>(args)), ...); \
        return 0;                                                 \
    }
OPGEN_NDDMA_STRIDE(set_loop0_stride_nddma, 0)
OPGEN_NDDMA_STRIDE(set_loop1_stride_nddma, 1)
OPGEN_NDDMA_STRIDE(set_loop2_stride_nddma, 2)
OPGEN_NDDMA_STRIDE(set_loop3_stride_nddma, 3)
OPGEN_NDDMA_STRIDE(set_loop4_stride_nddma, 4)
template <typename... Args>
int64_t set_pad_cnt_nddma(Args&&... args)
{
    ((Nddma().padCount = static_cast<uint64_t>(args)), ...);
    return 0;
}
template <typename... Args>
int64_t set_pad_val_nddma(Args&&...)
{
    return 0; // the value padding would write; padding itself aborts
}
template <typename... Args>
int64_t set_pcie_rd_ctrl(Args&&...)
{
    return 0;
}

inline void NddmaMove(uint8_t* dst, const uint8_t* src, uint64_t width, const uint64_t sizes[5], uint64_t leftPad,
                      uint64_t rightPad)
{
    if (leftPad != 0 || rightPad != 0 || Nddma().padCount != 0) {
        Unmodelled("nddma_out_to_ub with padding");
    }
    uint64_t srcStride[5];
    uint64_t dstStride[5];
    for (int k = 0; k < 5; ++k) {
        srcStride[k] = Nddma().strides[k] >> 20;
        dstStride[k] = Nddma().strides[k] & 0xfffffULL;
    }
    uint64_t moved = 0;
    for (uint64_t i4 = 0; i4 < sizes[4]; ++i4) {
        for (uint64_t i3 = 0; i3 < sizes[3]; ++i3) {
            for (uint64_t i2 = 0; i2 < sizes[2]; ++i2) {
                for (uint64_t i1 = 0; i1 < sizes[1]; ++i1) {
                    for (uint64_t i0 = 0; i0 < sizes[0]; ++i0) {
                        uint64_t from = i0 * srcStride[0] + i1 * srcStride[1] + i2 * srcStride[2] +
                                        i3 * srcStride[3] + i4 * srcStride[4];
                        uint64_t to = i0 * dstStride[0] + i1 * dstStride[1] + i2 * dstStride[2] + i3 * dstStride[3] +
                                      i4 * dstStride[4];
                        std::memcpy(dst + to * width, src + from * width, width);
                        ++moved;
                    }
                }
            }
        }
    }
    opgen_cpu::Cost().gmToUb += moved * width;
}
#define OPGEN_NDDMA(name, width)                                                                                   \
    template <typename... Args>                                                                                    \
    int64_t name(Args&&... args)                                                                                   \
    {                                                                                                              \
        auto run = [](auto* dst, auto* src, auto, auto s0, auto s1, auto s2, auto s3, auto s4, auto left,          \
                      auto right, auto, auto) {                                                                    \
            const uint64_t sizes[5] = {static_cast<uint64_t>(s0), static_cast<uint64_t>(s1),                     \
                                       static_cast<uint64_t>(s2), static_cast<uint64_t>(s3),                     \
                                       static_cast<uint64_t>(s4)};                                                \
            NddmaMove(reinterpret_cast<uint8_t*>(dst), reinterpret_cast<const uint8_t*>(src), width, sizes,      \
                      static_cast<uint64_t>(left), static_cast<uint64_t>(right));                                 \
        };                                                                                                         \
        if constexpr (std::is_invocable_v<decltype(run), Args&...>) {                                              \
            run(args...);                                                                                          \
        } else {                                                                                                   \
            Unmodelled(#name " with these operands");                                                              \
        }                                                                                                          \
        return 0;                                                                                                  \
    }
OPGEN_NDDMA(nddma_out_to_ub_b8, 1)
OPGEN_NDDMA(nddma_out_to_ub_b16, 2)
OPGEN_NDDMA(nddma_out_to_ub_b32, 4)

// copy_ubuf_to_ubuf(dst, src, sid, count, len, srcGap, dstGap): `count` bursts of `len` 32-byte blocks, the gaps
// between bursts in blocks (dav_3510 CopyUbufToUbuf)
template <typename... Args>
int64_t copy_ubuf_to_ubuf(Args&&... args)
{
    auto run = [](auto* dst, auto* src, auto, auto count, auto len, auto srcGap, auto dstGap) {
        uint64_t n = static_cast<uint64_t>(count), bytes = static_cast<uint64_t>(len) * 32;
        for (uint64_t i = 0; i < n; ++i) {
            std::memmove(reinterpret_cast<uint8_t*>(dst) + i * (bytes + static_cast<uint64_t>(dstGap) * 32),
                         reinterpret_cast<const uint8_t*>(src) + i * (bytes + static_cast<uint64_t>(srcGap) * 32),
                         bytes);
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("copy_ubuf_to_ubuf with these operands");
    }
    return 0;
}
} // namespace opgen_reg

#endif // OPGEN_CPU_MODEL_REGS3510_NDDMA_H
