// opgen's CPU model, arch 3510: predicate generation and logic, register select and duplicate, the GM <-> UB
// moves of DataCopy/DataCopyPad (copy_*_align_v2), and the core state the basic API touches. Included by
// regs3510.h (see its header for the register model); asc-devkit sources: impl/basic_api/reg_compute/dav_3510/
// kernel_reg_compute_maskreg_impl.h, _vec_cmpsel_impl.h, _vec_duplicate_impl.h, impl/basic_api/dav_3510/
// kernel_operator_data_copy_impl.h, kernel_operator_common_impl.h; semantics from the Reg docs named per group.
#ifndef OPGEN_CPU_MODEL_REGS3510_PREDS_H
#define OPGEN_CPU_MODEL_REGS3510_PREDS_H

namespace opgen_reg {
// ---- predicate generation (docs: MaskReg): pset_bN(pattern) and plt_bN(count&, POST_UPDATE)
inline Bits Pattern(long long pattern, uint64_t size)
{
    using P = Reg::MaskPattern;
    uint64_t lanes = VL / size;
    uint64_t first[] = {lanes, 1, 2, 3, 4, 8, 16, 32, 64, 128};
    if (pattern >= Of(P::ALL) && pattern <= Of(P::VL128)) {
        return FirstElements(first[pattern], size);
    }
    if (pattern == Of(P::H) || pattern == Of(P::Q)) {
        return FirstElements(lanes / (pattern == Of(P::H) ? 2 : 4), size);
    }
    if (pattern == Of(P::ALLF)) {
        return Bits();
    }
    Bits out;
    uint64_t step = pattern == Of(P::M3) ? 3 : pattern == Of(P::M4) ? 4 : 0;
    if (step == 0) {
        Unmodelled("pset with this pattern");
    }
    for (uint64_t e = 0; e < lanes; e += step) {
        out.set(e * size);
    }
    return out;
}
template <typename C>
long long PatternOf(const C& pattern)
{
    if constexpr (std::is_same_v<std::decay_t<C>, opgen_stub::Label>) {
        if (pattern.value == ::PAT_ALL.value) {
            return Of(Reg::MaskPattern::ALL);
        }
        if (pattern.value == ::PAT_ALLF.value) {
            return Of(Reg::MaskPattern::ALLF);
        }
        Unmodelled("pset with this pattern label");
    }
    return Mode(pattern);
}
#define OPGEN_PSET(name, size)                               \
    template <typename... Args>                              \
    int64_t name(Args&&... args)                             \
    {                                                        \
        auto run = [](const auto& pattern) {                 \
            return NewPred(Pattern(PatternOf(pattern), size)); \
        };                                                   \
        if constexpr (std::is_invocable_v<decltype(run), Args&...>) { \
            return run(args...);                             \
        } else {                                             \
            Unmodelled(#name " with these operands");        \
        }                                                    \
    }
OPGEN_PSET(pset_b8, 1)
OPGEN_PSET(pset_b16, 2)
OPGEN_PSET(pset_b32, 4)

// the first min(count, VL_T) elements; POST_UPDATE: count -= VL_T, not below 0
#define OPGEN_PLT(name, size)                                                   \
    template <typename... Args>                                                 \
    int64_t name(Args&&... args)                                                \
    {                                                                           \
        auto run = [](auto& count, const auto&... post) {                       \
            uint64_t lanes = VL / size, n = static_cast<uint64_t>(count);       \
            uint16_t handle = NewPred(FirstElements(n < lanes ? n : lanes, size)); \
            if constexpr (sizeof...(post) == 1) {                               \
                count = static_cast<std::remove_reference_t<decltype(count)>>(n < lanes ? 0 : n - lanes); \
            }                                                                   \
            return handle;                                                      \
        };                                                                      \
        if constexpr (std::is_invocable_v<decltype(run), Args&...>) {           \
            return run(args...);                                                \
        } else {                                                                \
            Unmodelled(#name " with these operands");                           \
        }                                                                       \
    }
OPGEN_PLT(plt_b8, 1)
OPGEN_PLT(plt_b16, 2)
OPGEN_PLT(plt_b32, 4)

// ---- predicate rearrangement (docs: MaskReg计算 UnPack / Pack / Interleave / DeInterleave)
// punpack: the low or high half, each bit widened to two (the upper one zero)
template <typename... Args>
int64_t punpack(Args&&... args)
{
    auto run = [](auto& dst, auto& src, const auto& part) {
        Bits in = Pred(static_cast<uint16_t>(src)), out;
        uint64_t from = IsLower(part) ? 0 : VL / 2;
        for (uint64_t i = 0; i < VL / 2; ++i) {
            out[2 * i] = in[from + i];
        }
        SetPred(dst, out);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("punpack with these operands");
    }
    return 0;
}
// ppack: the even bits into the low or high half (the other half zero)
template <typename... Args>
int64_t ppack(Args&&... args)
{
    auto run = [](auto& dst, auto& src, const auto& part) {
        Bits in = Pred(static_cast<uint16_t>(src)), out;
        uint64_t to = IsLower(part) ? 0 : VL / 2;
        for (uint64_t i = 0; i < VL / 2; ++i) {
            out[to + i] = in[2 * i];
        }
        SetPred(dst, out);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("ppack with these operands");
    }
    return 0;
}
// interleave groups of `size` bits: src0 g0, src1 g0, src0 g1, ... the first VL bits to dst0, the rest to dst1;
// deinterleave is the inverse (even groups of src0:src1 to dst0, odd ones to dst1)
inline void Interleave(const Bits& a, const Bits& b, Bits& lo, Bits& hi, uint64_t size, bool inverse)
{
    for (uint64_t g = 0; g < 2 * VL / size; ++g) {
        for (uint64_t k = 0; k < size; ++k) {
            uint64_t joined = g * size + k;
            uint64_t split = (g / 2) * size + k;
            const Bits& from = inverse ? (joined < VL ? a : b) : (g % 2 ? b : a);
            Bits& to = inverse ? (g % 2 ? hi : lo) : (joined < VL ? lo : hi);
            to[inverse ? split : joined % VL] = from[inverse ? joined % VL : split];
        }
    }
}
#define OPGEN_PINTLV(name, size, inverse)                                                      \
    template <typename... Args>                                                                \
    int64_t name(Args&&... args)                                                               \
    {                                                                                          \
        auto run = [](auto& dst0, auto& dst1, auto& src0, auto& src1) {                        \
            Bits lo, hi;                                                                       \
            Interleave(Pred(static_cast<uint16_t>(src0)), Pred(static_cast<uint16_t>(src1)), lo, hi, size, inverse); \
            SetPred(dst0, lo);                                                                 \
            SetPred(dst1, hi);                                                                 \
        };                                                                                     \
        if constexpr (std::is_invocable_v<decltype(run), Args&...>) {                          \
            run(args...);                                                                      \
        } else {                                                                               \
            Unmodelled(#name " with these operands");                                          \
        }                                                                                      \
        return 0;                                                                              \
    }
OPGEN_PINTLV(pintlv_b8, 1, false)
OPGEN_PINTLV(pintlv_b16, 2, false)
OPGEN_PINTLV(pintlv_b32, 4, false)
OPGEN_PINTLV(pdintlv_b8, 1, true)
OPGEN_PINTLV(pdintlv_b16, 2, true)
OPGEN_PINTLV(pdintlv_b32, 4, true)

// ---- predicate logic under a predicate (docs: MaskReg计算): bits outside `mask` are zero
#define OPGEN_PLOGIC(name, expr)                                                                  \
    template <typename... Args>                                                                   \
    int64_t name(Args&&... args)                                                                  \
    {                                                                                             \
        auto run = [](auto& dst, auto& src0, auto& src1, auto& mask) {                            \
            const Bits &a = Pred(static_cast<uint16_t>(src0)), &b = Pred(static_cast<uint16_t>(src1)); \
            SetPred(dst, (expr) & Pred(static_cast<uint16_t>(mask)));                             \
        };                                                                                        \
        if constexpr (std::is_invocable_v<decltype(run), Args&...>) {                             \
            run(args...);                                                                         \
        } else {                                                                                  \
            Unmodelled(#name " with these operands");                                             \
        }                                                                                         \
        return 0;                                                                                 \
    }
OPGEN_PLOGIC(pand, a & b)
OPGEN_PLOGIC(por, a | b)
OPGEN_PLOGIC(pxor, a ^ b)
// pnot(dst, src, mask); pmov(dst, src[, mask]); psel(dst, src0, src1, sel): src0 where sel, else src1
template <typename... Args>
int64_t pnot(Args&&... args)
{
    auto run = [](auto& dst, auto& src, auto& mask) {
        SetPred(dst, ~Pred(static_cast<uint16_t>(src)) & Pred(static_cast<uint16_t>(mask)));
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("pnot with these operands");
    }
    return 0;
}
template <typename... Args>
int64_t pmov(Args&&... args)
{
    auto run = [](auto& dst, auto& src, auto&... mask) {
        Bits out = Pred(static_cast<uint16_t>(src));
        ((out &= Pred(static_cast<uint16_t>(mask))), ...);
        SetPred(dst, out);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("pmov with these operands");
    }
    return 0;
}
template <typename... Args>
int64_t psel(Args&&... args)
{
    auto run = [](auto& dst, auto& src0, auto& src1, auto& sel) {
        const Bits& s = Pred(static_cast<uint16_t>(sel));
        SetPred(dst, (Pred(static_cast<uint16_t>(src0)) & s) | (Pred(static_cast<uint16_t>(src1)) & ~s));
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("psel with these operands");
    }
    return 0;
}

// ---- register select and duplicate (docs: 比较与选择 Select, 数据填充 Duplicate)
// vsel(dst, src0, src1, sel): each element bit for bit from src0 where sel, else from src1
template <typename... Args>
int64_t vsel(Args&&... args)
{
    auto run = [](auto& dst, auto& src0, auto& src1, auto sel) {
        constexpr uint64_t size = sizeof(Elem<decltype(dst)>);
        const Bits& s = Pred(static_cast<uint16_t>(sel));
        uint8_t out[VL];
        for (uint64_t e = 0; e < VL / size; ++e) {
            std::memcpy(out + e * size, (Active(s, e, size) ? Bytes(src0) : Bytes(src1)) + e * size, size);
        }
        std::memcpy(Bytes(dst), out, VL);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("vsel with these operand types");
    }
    return 0;
}
// ZEROING (an integral_constant of the mode, or the MODE_ZEROING label) or MERGING
template <typename C>
bool IsZeroing(const C& mode)
{
    if constexpr (std::is_same_v<std::decay_t<C>, opgen_stub::Label>) {
        if (mode.value == ::MODE_ZEROING.value) {
            return true;
        }
    } else if (Mode(mode) == Of(Reg::MaskMergeMode::ZEROING)) {
        return true;
    } else if (Mode(mode) == Of(Reg::MaskMergeMode::MERGING)) {
        return false;
    }
    Unmodelled("a mask merge mode other than zeroing or merging");
}
// inactive elements: zero (ZEROING) or kept (MERGING)
template <typename D, typename C>
void Merge(D& dst, const uint8_t* computed, const Bits& mask, const C& mode)
{
    constexpr uint64_t size = sizeof(Elem<D>);
    bool zeroing = IsZeroing(mode);
    for (uint64_t e = 0; e < VL / size; ++e) {
        if (Active(mask, e, size)) {
            std::memcpy(Bytes(dst) + e * size, computed + e * size, size);
        } else if (zeroing) {
            std::memset(Bytes(dst) + e * size, 0, size);
        }
    }
}
// vdup(dst, scalar, mask, mode) | vdup(dst, src, mask, pos, mode): the scalar, or src's lowest/highest element
template <typename... Args>
int64_t vdup(Args&&... args)
{
    auto scalar = [](auto& dst, auto value, auto mask, const auto& mode) {
        using T = Elem<decltype(dst)>;
        T element = static_cast<T>(value);
        uint8_t out[VL];
        for (uint64_t e = 0; e < VL / sizeof(T); ++e) {
            std::memcpy(out + e * sizeof(T), &element, sizeof(T));
        }
        Merge(dst, out, Pred(static_cast<uint16_t>(mask)), mode);
    };
    auto from = [](auto& dst, auto& src, auto mask, const auto& pos, const auto& mode) {
        constexpr uint64_t size = sizeof(Elem<decltype(dst)>);
        const uint8_t* pick = Bytes(src) + (IsLower(pos) ? 0 : VL - size);
        uint8_t out[VL];
        for (uint64_t e = 0; e < VL / size; ++e) {
            std::memcpy(out + e * size, pick, size);
        }
        Merge(dst, out, Pred(static_cast<uint16_t>(mask)), mode);
    };
    if constexpr (std::is_invocable_v<decltype(scalar), Args&...>) {
        scalar(args...);
    } else if constexpr (std::is_invocable_v<decltype(from), Args&...>) {
        from(args...);
    } else {
        Unmodelled("vdup with these operand types");
    }
    return 0;
}

// vbr(dst, scalar): the scalar in every element, no predicate (Duplicate without a mask, dav_3510
// kernel_reg_compute_vec_duplicate_impl.h)
template <typename... Args>
int64_t vbr(Args&&... args)
{
    auto run = [](auto& dst, auto value) {
        using T = Elem<decltype(dst)>;
        T element = static_cast<T>(value);
        for (uint64_t e = 0; e < VL / sizeof(T); ++e) {
            std::memcpy(Bytes(dst) + e * sizeof(T), &element, sizeof(T));
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("vbr with these operand types");
    }
    return 0;
}

// ---- GM <-> UB (asc-devkit dav_3510 CopyGmToUbufAlignV2 / CopyUbufToGmAlignV2): bursts of `len` bytes, strides
// between burst starts in bytes; the loop-mode registers must hold their normal value (one loop of each)
struct MoveState {
    uint64_t loopOutToUb = (1ULL << 21) | 1ULL;
    uint64_t loopUbToOut = (1ULL << 21) | 1ULL;
    uint64_t atomic = 0b00100100;          // the store-atomic config InitSplitArchSpr sets: plain stores
};
constexpr uint64_t PLAIN_STORES = 0b00100100;
inline MoveState& Moves()
{
    static MoveState state;
    return state;
}
inline void Bursts(uint8_t* dst, const uint8_t* src, uint64_t count, uint64_t len, uint64_t srcStride,
                   uint64_t dstStride)
{
    for (uint64_t i = 0; i < count; ++i) {
        std::memmove(dst + i * dstStride, src + i * srcStride, len);
    }
}
// a burst's pad elements (the element width is the move's pointer type): the value set_mov_pad_val holds, its low
// bytes; a pad without isPad has no documented value, so the model refuses it rather than invent one
template <typename E>
void PadElements(E* at, uint64_t count, bool isPad)
{
    if (count != 0 && !isPad) {
        Unmodelled("copy_gm_to_ubuf_align_v2 padding without isPad");
    }
    E value;
    uint64_t bits = opgen_cpu::MovPadValue();
    std::memcpy(&value, &bits, sizeof(E));
    std::fill(at, at + count, value);
}
// copy_gm_to_ubuf_align_v2(dst, src, sid, count, len, leftPad, rightPad, isPad, cacheMode, srcStride, dstStride):
// each burst lands at i * dstStride bytes as leftPad elements, its len bytes, rightPad elements (asc-devkit dav_3510
// CopyGmToUbufAlignV2 counts dstStride to hold the pads)
template <typename... Args>
int64_t copy_gm_to_ubuf_align_v2(Args&&... args)
{
    auto run = [](auto* dst, auto* src, auto, auto count, auto len, auto left, auto right, auto isPad, auto,
                  auto srcStride, auto dstStride) {
        if (Moves().loopOutToUb != ((1ULL << 21) | 1ULL)) {
            Unmodelled("copy_gm_to_ubuf_align_v2 in loop mode");
        }
        using E = std::remove_cv_t<std::remove_pointer_t<decltype(dst)>>;
        uint64_t leftBytes = static_cast<uint64_t>(left) * sizeof(E);
        opgen_cpu::Cost().gmToUb += static_cast<uint64_t>(count) * static_cast<uint64_t>(len);
        auto* out = reinterpret_cast<uint8_t*>(dst);
        Bursts(out + leftBytes, reinterpret_cast<const uint8_t*>(src), count, len, srcStride, dstStride);
        for (uint64_t i = 0; i < static_cast<uint64_t>(count); ++i) {
            uint8_t* burst = out + i * static_cast<uint64_t>(dstStride);
            PadElements(reinterpret_cast<E*>(burst), left, static_cast<bool>(isPad));
            PadElements(reinterpret_cast<E*>(burst + leftBytes + len), right, static_cast<bool>(isPad));
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("copy_gm_to_ubuf_align_v2 with these operands");
    }
    return 0;
}
// copy_ubuf_to_gm_align_v2(dst, src, sid, count, len, cacheMode, dstStride, srcStride)
template <typename... Args>
int64_t copy_ubuf_to_gm_align_v2(Args&&... args)
{
    auto run = [](auto* dst, auto* src, auto, auto count, auto len, auto, auto dstStride, auto srcStride) {
        if (Moves().loopUbToOut != ((1ULL << 21) | 1ULL)) {
            Unmodelled("copy_ubuf_to_gm_align_v2 in loop mode");
        }
        opgen_cpu::Cost().ubToGm += static_cast<uint64_t>(count) * static_cast<uint64_t>(len);
        if (Moves().atomic != PLAIN_STORES) {
            Unmodelled("copy_ubuf_to_gm_align_v2 with store atomics");
        }
        Bursts(reinterpret_cast<uint8_t*>(dst), reinterpret_cast<const uint8_t*>(src), count, len, srcStride,
               dstStride);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("copy_ubuf_to_gm_align_v2 with these operands");
    }
    return 0;
}
template <typename... Args>
int64_t set_loop_size_outtoub(Args&&... args)
{
    ((Moves().loopOutToUb = static_cast<uint64_t>(args)), ...);
    return 0;
}
template <typename... Args>
int64_t set_loop_size_ubtoout(Args&&... args)
{
    ((Moves().loopUbToOut = static_cast<uint64_t>(args)), ...);
    return 0;
}

// ---- core state: pipe buffer handshakes and the UB bound tag as no-ops (one core, program order), the rest
// named when reached (CTRL is intrinsics.h's)
template <typename... Args>
int64_t set_ub_addr_upper_bound(Args&&... args)
{
    auto run = [](auto address, auto) { return static_cast<int64_t>(address); };
    return run(args...);
}
template <typename... Args>
int64_t get_buf(Args&&...)
{
    return 0;
}
template <typename... Args>
int64_t rls_buf(Args&&...)
{
    return 0;
}
// set_st_atomic_cfg(config) | (type, op): the value asc-devkit's InitSplitArchSpr writes, or ATOMIC_NONE, is plain
// stores; a store to GM under any other configuration is not modelled
template <typename... Args>
int64_t set_st_atomic_cfg(Args&&... args)
{
    auto packed = [](auto config) { Moves().atomic = static_cast<uint64_t>(config); };
    auto split = [](auto type, auto) {
        bool none = static_cast<long long>(type) == Of(AscendC::AtomicDtype::ATOMIC_NONE);
        Moves().atomic = none ? PLAIN_STORES : ~0ULL;
    };
    if constexpr (sizeof...(Args) == 1) {
        packed(args...);
    } else {
        split(args...);
    }
    return 0;
}
template <typename... Args>
int64_t copy_gm_to_cbuf_align_v2(Args&&...)
{
    Unmodelled("copy_gm_to_cbuf_align_v2 (a cube-core move)");
}
} // namespace opgen_reg

#endif // OPGEN_CPU_MODEL_REGS3510_PREDS_H
