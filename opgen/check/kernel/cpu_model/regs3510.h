// opgen's CPU model of the register-form ("Reg" / MicroAPI) instructions of the arch-3510 vector core, the ones
// asc-devkit's dav_3510 basic API and its reg_compute layer issue (impl/basic_api/reg_compute/dav_3510/*,
// impl/basic_api/dav_3510/*), written from asc-devkit's Reg documentation (docs/zh/api/SIMD-API/基础API/Reg矢量计算).
// Included after intrinsics.h on arch 3510 only; the bindings route each name defined here to opgen_reg.
//
// - A vector register is the caller's RegTensor (or raw vector_*): 256 bytes (VL), elements of the type the
//   intrinsic is called with. Intrinsics take them, and post-updated addresses, by reference (the 3510
//   declarations are forwarding references).
// - A predicate register (MaskReg) is a uint16_t handle in CPU debug; the model keeps VL/8 = 256 bits per handle,
//   one per byte lane: an element of b-bytes is active when the bit of its first byte is set (the documented "only
//   the lowest bit of each 2/4-bit group is valid"). Every predicate an intrinsic writes gets a fresh handle from a
//   ring of 65535 (a caller's MaskReg may be uninitialised or shared), so one kept across 65535 later predicate
//   writes would be clobbered; asc-devkit's VF functions create theirs per call.
// - An operand form or mode not modelled aborts naming it (Unmodelled: the kernel tier SKIPs, never passes).
// - Each intrinsic is a `template <typename... Args>` / `int64_t NAME(Args&&... args)` pair of lines: run_build
//   reads the names from that form.
#ifndef OPGEN_CPU_MODEL_REGS3510_H
#define OPGEN_CPU_MODEL_REGS3510_H

#include <array>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "numbers.h"

namespace opgen_reg {
constexpr uint64_t VL = 256;
using Bits = std::bitset<VL>;
using opgen_cpu::Unmodelled;
namespace Reg = AscendC::Reg;

// ---- predicates
struct PredicateFile {
    std::array<Bits, 65536> bits{};
    uint16_t last = 0;
};
inline PredicateFile& Preds()
{
    static PredicateFile file;
    return file;
}
inline const Bits& Pred(uint16_t handle)
{
    return Preds().bits[handle];
}
inline uint16_t NewPred(const Bits& value)
{
    PredicateFile& file = Preds();
    file.last = file.last == 65535 ? 1 : static_cast<uint16_t>(file.last + 1);
    file.bits[file.last] = value;
    return file.last;
}
template <typename H>
void SetPred(H& handle, const Bits& value)
{
    handle = static_cast<std::remove_reference_t<H>>(NewPred(value));
}
// the first `count` elements of `size` bytes active
inline Bits FirstElements(uint64_t count, uint64_t size)
{
    Bits out;
    for (uint64_t e = 0; e < count && e * size < VL; ++e) {
        out.set(e * size);
    }
    return out;
}
inline bool Active(const Bits& pred, uint64_t element, uint64_t size)
{
    return pred.test(element * size);
}

// ---- vector registers: a RegTensor's first register, or a raw vector_* array
template <typename R, typename = void>
struct HasReg : std::false_type {};
template <typename R>
struct HasReg<R, std::void_t<decltype(std::declval<R&>().reg[0])>> : std::true_type {};
template <typename R>
auto& Vec(R& r)
{
    if constexpr (HasReg<R>::value) {
        return r.reg[0];
    } else {
        return r;
    }
}
template <typename R>
using Elem = typename std::remove_reference_t<decltype(Vec(std::declval<R&>()))>::value_type;
template <typename R>
uint8_t* Bytes(R& r)
{
    static_assert(sizeof(Vec(r)) == VL, "opgen cpu model: a vector register is VL bytes");
    return reinterpret_cast<uint8_t*>(Vec(r).data());
}
template <typename R>
constexpr bool IS_VREG = std::is_class_v<std::remove_reference_t<R>>;

// an enum value the caller passes as std::integral_constant<Enum, v>, an opgen Label, or a plain value
template <typename C, typename = void>
struct HasValue : std::false_type {};
template <typename C>
struct HasValue<C, std::void_t<decltype(C::value)>> : std::true_type {};
template <typename C>
constexpr long long Mode(const C& value)
{
    if constexpr (std::is_same_v<std::decay_t<C>, opgen_stub::Label>) {
        return value.value;
    } else if constexpr (HasValue<std::decay_t<C>>::value) {
        return static_cast<long long>(std::decay_t<C>::value);
    } else {
        return static_cast<long long>(value);
    }
}
// the enum type of an integral_constant argument (void for anything else)
template <typename C, typename = void>
struct ConstantOf {
    using type = void;
};
template <typename C>
struct ConstantOf<C, std::void_t<decltype(C::value)>> {
    using type = std::remove_cv_t<decltype(C::value)>;
};
template <typename C, typename E>
constexpr bool IS_CONSTANT_OF = std::is_same_v<typename ConstantOf<std::decay_t<C>>::type, E>;
template <typename E>
constexpr long long Of(E value)
{
    return static_cast<long long>(value);
}
template <typename C>
bool IsLower(const C& part)
{
    if constexpr (std::is_same_v<std::decay_t<C>, opgen_stub::Label>) {
        return part.value == ::LOWER.value;
    } else {
        return Mode(part) == Of(Reg::HighLowPart::LOWEST);
    }
}

// ---- UB <-> vector register moves
// LoadAlign's single-register dists (docs: 连续对齐搬入 LoadAlign, table 3); `at` is the UB address read
inline void LoadDist(uint8_t* dst, const uint8_t* at, long long dist)
{
    using D = Reg::LoadDist;
    auto spread = [&](uint64_t size, uint64_t copies, bool zeros) { // each element `copies` times, or + zeros
        for (uint64_t e = 0; e * size * copies < VL; ++e) {
            for (uint64_t c = 0; c < copies; ++c) {
                uint8_t* out = dst + (e * copies + c) * size;
                if (zeros && c > 0) {
                    std::memset(out, 0, size);
                } else {
                    std::memcpy(out, at + e * size, size);
                }
            }
        }
    };
    if (dist == Of(D::DIST_NORM)) {
        std::memcpy(dst, at, VL);
    } else if (dist == Of(D::DIST_BRC_B8) || dist == Of(D::DIST_BRC_B16) || dist == Of(D::DIST_BRC_B32)) {
        uint64_t size = dist == Of(D::DIST_BRC_B8) ? 1 : dist == Of(D::DIST_BRC_B16) ? 2 : 4;
        for (uint64_t e = 0; e < VL / size; ++e) {
            std::memcpy(dst + e * size, at, size);
        }
    } else if (dist == Of(D::DIST_US_B8) || dist == Of(D::DIST_US_B16)) {
        spread(dist == Of(D::DIST_US_B8) ? 1 : 2, 2, false);
    } else if (dist == Of(D::DIST_DS_B8) || dist == Of(D::DIST_DS_B16)) {
        uint64_t size = dist == Of(D::DIST_DS_B8) ? 1 : 2;
        for (uint64_t e = 0; e < VL / size; ++e) {
            std::memcpy(dst + e * size, at + 2 * e * size, size);
        }
    } else if (dist == Of(D::DIST_UNPACK_B8) || dist == Of(D::DIST_UNPACK_B16) || dist == Of(D::DIST_UNPACK_B32)) {
        spread(dist == Of(D::DIST_UNPACK_B8) ? 1 : dist == Of(D::DIST_UNPACK_B16) ? 2 : 4, 2, true);
    } else if (dist == Of(D::DIST_UNPACK4_B8)) {
        spread(1, 4, true);
    } else if (dist == Of(D::DIST_BLK)) {
        for (uint64_t b = 0; b < VL / 32; ++b) {
            std::memcpy(dst + b * 32, at, 32);
        }
    } else if (dist == Of(D::DIST_E2B_B16) || dist == Of(D::DIST_E2B_B32)) {
        uint64_t size = dist == Of(D::DIST_E2B_B16) ? 2 : 4;
        for (uint64_t e = 0; e < VL / size; ++e) {
            std::memcpy(dst + e * size, at + e * size / 32 * size, size);
        }
    } else {
        Unmodelled("vlds with this LoadDist");
    }
}

// vlds(dst, base, offset, dist) | vlds(dst, base&, stride, dist, post) | dual: vlds(dst0, dst1, base, ...)
template <typename... Args>
int64_t vlds(Args&&... args)
{
    auto single = [](auto& dst, auto*& base, auto step, auto dist, auto... post) {
        static_assert(sizeof...(post) <= 1, "vlds: unexpected arguments");
        auto* at = sizeof...(post) == 0 ? base + step : base;
        LoadDist(Bytes(dst), reinterpret_cast<const uint8_t*>(at), Mode(dist));
        if constexpr (sizeof...(post) == 1) {
            base += step;
        }
    };
    auto dual = [](auto& dst0, auto& dst1, auto*& base, auto step, auto dist, auto... post) {
        using T = std::remove_reference_t<decltype(*base)>;
        long long d = Mode(dist);
        uint64_t size = d == Of(Reg::LoadDist::DIST_DINTLV_B8) ? 1 : d == Of(Reg::LoadDist::DIST_DINTLV_B16) ? 2
                      : d == Of(Reg::LoadDist::DIST_DINTLV_B32) ? 4 : 0;
        if (size == 0) {
            Unmodelled("vlds (two registers) with this LoadDist");
        }
        const auto* at = reinterpret_cast<const uint8_t*>(sizeof...(post) == 0 ? base + step : base);
        for (uint64_t e = 0; e < 2 * VL / size; ++e) {
            std::memcpy((e % 2 ? Bytes(dst1) : Bytes(dst0)) + e / 2 * size, at + e * size, size);
        }
        if constexpr (sizeof...(post) == 1) {
            base += step;
        }
        (void)sizeof(T);
    };
    if constexpr (std::is_invocable_v<decltype(single), Args&...>) {
        single(args...);
    } else if constexpr (std::is_invocable_v<decltype(dual), Args&...>) {
        dual(args...);
    } else {
        Unmodelled("vlds with these operand types");
    }
    return 0;
}

// StoreAlign's dists (docs: 连续对齐搬出 StoreAlign): the predicate gates each source element
inline void StoreDist(uint8_t* at, const uint8_t* src, long long dist, const Bits& pred)
{
    using D = Reg::StoreDist;
    auto norm = [&](uint64_t size) {
        for (uint64_t e = 0; e < VL / size; ++e) {
            if (Active(pred, e, size)) {
                std::memcpy(at + e * size, src + e * size, size);
            }
        }
    };
    auto pack = [&](uint64_t size, uint64_t kept) { // the low `kept` bytes of each element, packed
        for (uint64_t e = 0; e < VL / size; ++e) {
            if (Active(pred, e, size)) {
                std::memcpy(at + e * kept, src + e * size, kept);
            }
        }
    };
    if (dist == Of(D::DIST_NORM_B8) || dist == Of(D::DIST_NORM_B16) || dist == Of(D::DIST_NORM_B32)) {
        norm(dist == Of(D::DIST_NORM_B8) ? 1 : dist == Of(D::DIST_NORM_B16) ? 2 : 4);
    } else if (dist == Of(D::DIST_FIRST_ELEMENT_B8) || dist == Of(D::DIST_FIRST_ELEMENT_B16) ||
               dist == Of(D::DIST_FIRST_ELEMENT_B32)) {
        uint64_t size = dist == Of(D::DIST_FIRST_ELEMENT_B8) ? 1 : dist == Of(D::DIST_FIRST_ELEMENT_B16) ? 2 : 4;
        if (Active(pred, 0, size)) {
            std::memcpy(at, src, size);
        }
    } else if (dist == Of(D::DIST_PACK_B16)) {
        pack(2, 1);
    } else if (dist == Of(D::DIST_PACK_B32)) {
        pack(4, 2);
    } else if (dist == Of(D::DIST_PACK_B64)) {
        pack(8, 4);
    } else if (dist == Of(D::DIST_PACK4_B32)) {
        pack(4, 1);
    } else {
        Unmodelled("vsts with this StoreDist");
    }
}

// vsts(src, base, offset, dist, mask) | vsts(src, base&, stride, dist, mask, post) | two registers interleaved:
// vsts(src0, src1, base, offset, dist, mask)
template <typename... Args>
int64_t vsts(Args&&... args)
{
    auto single = [](auto& src, auto*& base, auto step, auto dist, auto mask, auto... post) {
        static_assert(sizeof...(post) <= 1, "vsts: unexpected arguments");
        auto* at = sizeof...(post) == 0 ? base + step : base;
        StoreDist(reinterpret_cast<uint8_t*>(at), Bytes(src), Mode(dist), Pred(static_cast<uint16_t>(mask)));
        if constexpr (sizeof...(post) == 1) {
            base += step;
        }
    };
    auto dual = [](auto& src0, auto& src1, auto*& base, auto step, auto dist, auto mask) {
        using D = Reg::StoreDist;
        long long d = Mode(dist);
        uint64_t size = d == Of(D::DIST_INTLV_B8) ? 1 : d == Of(D::DIST_INTLV_B16) ? 2 : d == Of(D::DIST_INTLV_B32) ? 4 : 0;
        if (size == 0) {
            Unmodelled("vsts (two registers) with this StoreDist");
        }
        const Bits& pred = Pred(static_cast<uint16_t>(mask));
        auto* at = reinterpret_cast<uint8_t*>(base + step);
        for (uint64_t e = 0; e < 2 * VL / size; ++e) { // element e of the interleaved pair, gated as element e
            if (Active(pred, e % (VL / size), size)) {
                std::memcpy(at + e * size, (e % 2 ? Bytes(src1) : Bytes(src0)) + e / 2 * size, size);
            }
        }
    };
    if constexpr (std::is_invocable_v<decltype(single), Args&...>) {
        single(args...);
    } else if constexpr (std::is_invocable_v<decltype(dual), Args&...>) {
        dual(args...);
    } else {
        Unmodelled("vsts with these operand types");
    }
    return 0;
}

// ---- UB <-> predicate moves (docs: MaskReg搬入 / MaskReg搬出): NORM VL/8 bytes; US each bit twice from VL/16
// bytes; DS every other bit of VL/4 bytes; PACK (store) every other bit into VL/16 bytes. Post-update steps bytes.
template <typename... Args>
int64_t plds(Args&&... args)
{
    auto run = [](auto& mask, auto*& base, auto step, auto dist, auto... post) {
        const auto* at = reinterpret_cast<const uint8_t*>(base) + (sizeof...(post) == 0 ? step : 0);
        auto bit = [&](uint64_t i) { return ((at[i / 8] >> (i % 8)) & 1U) != 0; };
        long long d = Mode(dist);
        Bits out;
        for (uint64_t i = 0; i < VL; ++i) {
            out[i] = d == Of(Reg::MaskDist::DIST_NORM) ? bit(i) : d == Of(Reg::MaskDist::DIST_US) ? bit(i / 2)
                                                                                                 : bit(2 * i);
        }
        SetPred(mask, out);
        if constexpr (sizeof...(post) == 1) {
            base = reinterpret_cast<std::remove_reference_t<decltype(base)>>(reinterpret_cast<uint8_t*>(base) + step);
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("plds with these operand types");
    }
    return 0;
}
template <typename... Args>
int64_t psts(Args&&... args)
{
    auto run = [](auto& mask, auto*& base, auto step, auto dist, auto... post) {
        auto* at = reinterpret_cast<uint8_t*>(base) + (sizeof...(post) == 0 ? step : 0);
        const Bits& bits = Pred(static_cast<uint16_t>(mask));
        bool packed = Mode(dist) == Of(Reg::MaskDist::DIST_PACK);
        uint64_t count = packed ? VL / 2 : VL;
        for (uint64_t i = 0; i < count; i += 8) {
            uint8_t byte = 0;
            for (uint64_t k = 0; k < 8; ++k) {
                byte = static_cast<uint8_t>(byte | (bits[packed ? 2 * (i + k) : i + k] ? 1U << k : 0U));
            }
            at[i / 8] = byte;
        }
        if constexpr (sizeof...(post) == 1) {
            base = reinterpret_cast<std::remove_reference_t<decltype(base)>>(reinterpret_cast<uint8_t*>(base) + step);
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("psts with these operand types");
    }
    return 0;
}
} // namespace opgen_reg

#include "regs3510_preds.h"
#include "regs3510_math.h"

#endif // OPGEN_CPU_MODEL_REGS3510_H
