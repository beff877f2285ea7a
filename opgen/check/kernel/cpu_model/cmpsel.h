// opgen's CPU model of the compare and select instructions of the 2201 vector core (dav-c220), written from
// asc-devkit's documentation of Compare / Compares / Select / SetCmpMask / GetCmpMask and the instruction
// sequences its dav_c220 implementation issues. Included by intrinsics.h after its own intrinsics.
//
// - vcmpv_<op> (tensor with tensor) and vcmpvs_<op> (tensor with a scalar) write one bit per lane into UB,
//   lane i of the call at bit i % 8 of byte i / 8 (little-endian), repeats one after another; the vector
//   mask has no effect on them (the documented "mask does not apply when the result goes to UB"), nor do
//   the dst block/repeat strides (the library steps dst by whole repeats of bits itself).
// - vcmp_<op> (one repeat, the result in the 128-bit CMPMASK register) follows the vector mask; lanes the
//   mask leaves out read 0.
// - set_cmpmask / get_cmpmask copy 16 bytes between UB and CMPMASK.
// - vsel: lanes follow the vector mask (normal or counter mode) like any vector instruction; mode 0 picks
//   src0 where bit `lane` of CMPMASK is set (the same bits in every repeat), else src1; mode 1 picks src0
//   where bit `element` of the mask tensor is set, else the scalar in CMPMASK's first element; mode 2 is
//   mode 1 with src1 for the scalar and the mask tensor's address in CMPMASK (a host pointer in CPU debug).
// - Comparisons on the values: IEEE, except that NE is false when either side is NaN, as asc-devkit's
//   boundary-value tables for Atlas A2/A3 state for Compare and Compares.
#ifndef OPGEN_CPU_MODEL_CMPSEL_H
#define OPGEN_CPU_MODEL_CMPSEL_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace opgen_cpu {
constexpr uint64_t CMPMASK_BYTES = 16;

struct CmpMask {
    uint8_t bytes[CMPMASK_BYTES] = {};
};
inline CmpMask& CmpMaskRegister()
{
    static CmpMask reg;
    return reg;
}

enum class Cmp { EQ, NE, LT, GT, LE, GE };

inline bool Satisfies(double x, double y, Cmp op)
{
    if (std::isnan(x) || std::isnan(y)) {
        return false; // every mode, NE included
    }
    switch (op) {
        case Cmp::EQ: return x == y;
        case Cmp::NE: return x != y;
        case Cmp::LT: return x < y;
        case Cmp::GT: return x > y;
        case Cmp::LE: return x <= y;
        case Cmp::GE: return x >= y;
    }
    return false;
}

inline bool Bit(const uint8_t* bits, uint64_t index)
{
    return ((bits[index / 8] >> (index % 8)) & 1U) != 0;
}

inline void SetBit(uint8_t* bits, uint64_t index, bool value)
{
    auto one = static_cast<uint8_t>(1U << (index % 8));
    bits[index / 8] = static_cast<uint8_t>(value ? bits[index / 8] | one : bits[index / 8] & ~one);
}

// vcmpv / vcmpvs: every lane of `repeat` repeats, bits contiguous in dst; `rhs(r, e)` is the right operand.
template <typename T, typename Rhs>
void CompareIntoBits(uint8_t* dst, T* src0, uint64_t repeat, uint64_t blk, uint64_t rep, Cmp op, Rhs rhs)
{
    if (State().counterMode) {
        Unmodelled("a compare into UB (vcmpv/vcmpvs) in counter mode");
    }
    Operand<T> a{src0, blk, rep};
    for (uint64_t r = 0; r < repeat; ++r) {
        for (uint64_t e = 0; e < Lanes<T>(); ++e) {
            SetBit(dst, r * Lanes<T>() + e, Satisfies(Load(a.At(r, e)), rhs(r, e), op));
        }
    }
}

// vcmp: one repeat into CMPMASK, the vector mask choosing the lanes (the others read 0).
template <typename T>
void CompareIntoRegister(T* src0, T* src1, uint64_t repeat, uint64_t blk0, uint64_t blk1, uint64_t rep0,
                         uint64_t rep1, Cmp op)
{
    if (repeat != 1 || State().counterMode) {
        Unmodelled("vcmp (compare into CMPMASK) with a repeat other than 1 or in counter mode");
    }
    CmpMask result;
    Operand<T> a{src0, blk0, rep0}, b{src1, blk1, rep1};
    ForLanes(Lanes<T>(), 1, [&](uint64_t r, uint64_t e) {
        SetBit(result.bytes, e, Satisfies(Load(a.At(r, e)), Load(b.At(r, e)), op));
    });
    CmpMaskRegister() = result;
}

template <typename T>
void CopyElement(T* dst, const void* src)
{
    std::memcpy(dst, src, sizeof(T));
}

// vsel in mode 0, 1 or 2 (see the top of this file); `third` is src1 (modes 0, 2) or the mask tensor (mode 1).
template <typename T, typename Third>
void Select(T* dst, T* src0, Third* third, uint64_t mode, uint64_t repeat, uint64_t dstBlk, uint64_t src0Blk,
            uint64_t thirdBlk, uint64_t dstRep, uint64_t src0Rep, uint64_t thirdRep)
{
    constexpr uint64_t lanes = Lanes<T>();
    Operand<T> d{dst, dstBlk, dstRep}, a{src0, src0Blk, src0Rep};
    const CmpMask reg = CmpMaskRegister();
    if (mode == 1) {
        const auto* sel = reinterpret_cast<const uint8_t*>(third);
        ForLanes(lanes, repeat, [&](uint64_t r, uint64_t e) {
            if (Bit(sel, r * lanes + e)) {
                CopyElement(d.At(r, e), a.At(r, e));
            } else {
                CopyElement(d.At(r, e), reg.bytes);
            }
        });
        return;
    }
    if (mode != 0 && mode != 2) {
        Unmodelled("vsel with a select mode other than 0, 1 and 2");
    }
    // the instruction takes addresses, not types: src1 is read as T whatever pointer the caller passed
    Operand<T> b{reinterpret_cast<T*>(third), thirdBlk, thirdRep};
    const uint8_t* sel = reg.bytes;
    if (mode == 2) {
        int64_t address = 0;
        std::memcpy(&address, reg.bytes, sizeof(address));
        sel = reinterpret_cast<const uint8_t*>(address);
    }
    ForLanes(lanes, repeat, [&](uint64_t r, uint64_t e) {
        bool first = Bit(sel, mode == 0 ? e : r * lanes + e);
        CopyElement(d.At(r, e), first ? a.At(r, e) : b.At(r, e));
    });
}
} // namespace opgen_cpu

namespace opgen_model {
// ---- compare into UB bits (dst, src0, src1, repeat, dst/src0/src1 block strides, dst/src0/src1 repeat strides)
#define OPGEN_COMPARE_V(name, op)                                                                               \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](uint8_t* d, auto* a, auto* b, auto repeat, auto, auto ab, auto bb, auto, auto ar, auto br) { \
            using namespace opgen_cpu;                                                                          \
            using T = std::remove_pointer_t<decltype(a)>;                                                       \
            Operand<T> rhs{b, U(bb), U(br)};                                                                    \
            CompareIntoBits(d, a, U(repeat), U(ab), U(ar), Cmp::op,                                             \
                            [&](uint64_t r, uint64_t e) { return Load(rhs.At(r, e)); });                        \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                   \
    }
OPGEN_COMPARE_V(vcmpv_eq, EQ)
OPGEN_COMPARE_V(vcmpv_ne, NE)
OPGEN_COMPARE_V(vcmpv_lt, LT)
OPGEN_COMPARE_V(vcmpv_gt, GT)
OPGEN_COMPARE_V(vcmpv_le, LE)
OPGEN_COMPARE_V(vcmpv_ge, GE)

// ---- compare with a scalar into UB bits (dst, src, scalar, repeat, dst/src block strides, dst/src repeat strides)
#define OPGEN_COMPARE_VS(name, op)                                                                              \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](uint8_t* d, auto* a, auto scalar, auto repeat, auto, auto ab, auto, auto ar) {            \
            using namespace opgen_cpu;                                                                          \
            double y = Load(&scalar);                                                                           \
            CompareIntoBits(d, a, U(repeat), U(ab), U(ar), Cmp::op, [y](uint64_t, uint64_t) { return y; });     \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                   \
    }
OPGEN_COMPARE_VS(vcmpvs_eq, EQ)
OPGEN_COMPARE_VS(vcmpvs_ne, NE)
OPGEN_COMPARE_VS(vcmpvs_lt, LT)
OPGEN_COMPARE_VS(vcmpvs_gt, GT)
OPGEN_COMPARE_VS(vcmpvs_le, LE)
OPGEN_COMPARE_VS(vcmpvs_ge, GE)

// ---- compare into CMPMASK (src0, src1, repeat, dst/src0/src1 block strides, dst/src0/src1 repeat strides)
#define OPGEN_COMPARE_REG(name, op)                                                                             \
    OPGEN_INTRINSIC(name)                                                                                       \
    {                                                                                                           \
        auto run = [](auto* a, auto* b, auto repeat, auto, auto ab, auto bb, auto, auto ar, auto br) {          \
            using namespace opgen_cpu;                                                                          \
            CompareIntoRegister(a, b, U(repeat), U(ab), U(bb), U(ar), U(br), Cmp::op);                          \
        };                                                                                                      \
        OPGEN_DISPATCH(name);                                                                                   \
    }
OPGEN_COMPARE_REG(vcmp_eq, EQ)
OPGEN_COMPARE_REG(vcmp_ne, NE)
OPGEN_COMPARE_REG(vcmp_lt, LT)
OPGEN_COMPARE_REG(vcmp_gt, GT)
OPGEN_COMPARE_REG(vcmp_le, LE)
OPGEN_COMPARE_REG(vcmp_ge, GE)

// ---- the CMPMASK register
OPGEN_INTRINSIC(set_cmpmask)
{
    auto run = [](const void* src) { std::memcpy(opgen_cpu::CmpMaskRegister().bytes, src, opgen_cpu::CMPMASK_BYTES); };
    OPGEN_DISPATCH(set_cmpmask);
}
OPGEN_INTRINSIC(get_cmpmask)
{
    auto run = [](void* dst) { std::memcpy(dst, opgen_cpu::CmpMaskRegister().bytes, opgen_cpu::CMPMASK_BYTES); };
    OPGEN_DISPATCH(get_cmpmask);
}

// ---- select (dst, src0, src1 or mask, repeat, dst/src0/src1 block strides, dst/src0/src1 repeat strides[, mode])
OPGEN_INTRINSIC(vsel)
{
    auto run = [](auto* d, auto* a, auto* b, auto repeat, auto db, auto ab, auto bb, auto dr, auto ar, auto br,
                  auto... mode) {
        using namespace opgen_cpu;
        static_assert(sizeof...(mode) <= 1, "vsel: unexpected arguments");
        Select(d, a, b, (uint64_t{0} + ... + U(mode)), U(repeat), U(db), U(ab), U(bb), U(dr), U(ar), U(br));
    };
    OPGEN_DISPATCH(vsel);
}
} // namespace opgen_model

#endif // OPGEN_CPU_MODEL_CMPSEL_H
