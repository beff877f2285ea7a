// opgen's CPU model of the register-form vector instructions asc-devkit issues on arch 3002 (Atlas 200I/500 A2,
// impl/basic_api/dav_m300): every level-2 vector API there is a loop of `plt` (a predicate for the next lanes),
// `vlds` (UB to a 256-byte vector register), one operation on registers under the predicate, and `vsts` (the
// active lanes back to UB). Included by the run wrapper after intrinsics.h on arch 3002 only; the bindings forward
// the names below to namespace opgen_reg (run_build.REGISTER_MODEL). See README.md for the sources of each rule.
//
// Registers: CPU debug's vector_<t> is a std::array of 256 bytes (asc-tools cpudebug/include/stub_def.h) and
// vector_bool a uint16_t "preg index": a predicate here is 256 bits, one per byte of a register, an element of
// width w active when the bit of its first byte is set (asc-devkit's MaskReg page: "b32: 4 bits an element, only
// the lowest valid"); the index names an interned predicate value. An operand form, mode or type not listed here
// aborts naming it (Unmodelled), as does a predicate index no instruction produced.
#ifndef OPGEN_CPU_MODEL_ARCH3002_H
#define OPGEN_CPU_MODEL_ARCH3002_H

#include <array>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "intrinsics.h"

namespace opgen_cpu3002 {
constexpr size_t VL = 256; // bytes of a vector register
using Predicate = std::bitset<VL>;

template <typename R>
struct Register : std::false_type {};
template <typename E, size_t N>
struct Register<std::array<E, N>> : std::bool_constant<sizeof(std::array<E, N>) == VL> {
    using Element = E;
    static constexpr size_t LANES = N;
};
template <typename R>
constexpr bool IS_REGISTER = Register<std::remove_cv_t<std::remove_reference_t<R>>>::value;
template <typename R>
using ElementOf = typename Register<std::remove_cv_t<std::remove_reference_t<R>>>::Element;

template <typename R>
uint8_t* Bytes(R& reg)
{
    return reinterpret_cast<uint8_t*>(reg.data());
}

// vector_bool values: the index of an interned predicate (the same bits always get the same index)
struct PredicateFile {
    std::vector<Predicate> values;
    std::unordered_map<Predicate, uint16_t> index;
};
inline PredicateFile& Predicates()
{
    static PredicateFile file;
    return file;
}
inline uint16_t Intern(const Predicate& p)
{
    PredicateFile& file = Predicates();
    auto found = file.index.find(p);
    if (found != file.index.end()) {
        return found->second;
    }
    if (file.values.size() == std::numeric_limits<uint16_t>::max()) {
        opgen_cpu::Unmodelled("more distinct predicates than a vector_bool index holds");
    }
    auto next = static_cast<uint16_t>(file.values.size());
    file.values.push_back(p);
    file.index.emplace(p, next);
    return next;
}
template <typename P>
const Predicate& PredicateAt(P index)
{
    static_assert(std::is_integral_v<P>, "a predicate operand is a vector_bool (uint16_t) on arch 3002");
    const PredicateFile& file = Predicates();
    if (static_cast<uint64_t>(index) >= file.values.size()) {
        opgen_cpu::Unmodelled("a predicate register no plt instruction wrote");
    }
    return file.values[static_cast<size_t>(index)];
}
template <typename E>
bool Active(const Predicate& p, size_t lane)
{
    return p[lane * sizeof(E)];
}
// the lanes of width w a predicate selects are a prefix (what `plt` produces)
inline bool IsPrefix(const Predicate& p, size_t width)
{
    bool ended = false;
    for (size_t lane = 0; lane < VL / width; ++lane) {
        if (p[lane * width] && ended) {
            return false;
        }
        ended = ended || !p[lane * width];
    }
    return true;
}

// MODE_ZEROING: lanes the predicate leaves out are written as zero; asc-devkit's dav_m300 level-2 APIs pass
// nothing else
template <typename M>
void RequireZeroing(M mode, const char* what)
{
    if (!(mode == MODE_ZEROING)) {
        opgen_cpu::Unmodelled(what);
    }
}


template <typename L>
opgen_cpu::Rounding RoundingOf(L mode)
{
    using opgen_cpu::Rounding;
    if (mode == ROUND_R) {
        return Rounding::NEAREST_EVEN;
    }
    if (mode == ROUND_A) {
        return Rounding::NEAREST_AWAY;
    }
    if (mode == ROUND_F) {
        return Rounding::FLOOR;
    }
    if (mode == ROUND_C) {
        return Rounding::CEIL;
    }
    if (mode == ROUND_Z) {
        return Rounding::TRUNC;
    }
    if (mode == ROUND_O) {
        return Rounding::ODD;
    }
    opgen_cpu::Unmodelled("vcvt with a rounding label it does not know");
}

// The operands after vcvt's predicate: a rounding (narrowing only), RS_ENABLE / RS_DISABLE, PART_EVEN.
struct ConvertModes {
    opgen_cpu::Rounding rounding = opgen_cpu::Rounding::NEAREST_EVEN;
    bool saturate = false;
    bool evenPart = false;
};
template <typename... L>
ConvertModes ReadConvertModes(L... labels)
{
    ConvertModes modes;
    auto read = [&modes](auto label) {
        if (label == RS_ENABLE || label == RS_DISABLE) {
            modes.saturate = label == RS_ENABLE;
        } else if (label == PART_EVEN) {
            modes.evenPart = true;
        } else {
            modes.rounding = RoundingOf(label);
        }
    };
    (read(labels), ...);
    return modes;
}

// RS_ENABLE into half or bfloat16: NaN becomes 0 and a result beyond the format's largest finite value (infinity
// included) that value, signed; asc-devkit's Cast page (Reg) for saturation from float to float, the mode the 310B
// runtime supports alone (runtime src/runtime/config/mini_v3/dev_info_reg.cc: OVERFLOW_MODE_SATURATION).
template <typename E>
void StoreNarrow(E* element, double value, const ConvertModes& modes)
{
    if (modes.saturate) {
        const opgen_cpu::Narrow& format = opgen_cpu::IS_HALF<E> ? opgen_cpu::BINARY16 : opgen_cpu::BFLOAT16;
        auto maxBits = static_cast<uint16_t>(((((1 << format.exponentBits) - 1) << format.mantissaBits) - 1));
        uint16_t bits = std::isnan(value) ? 0 : format.Round(value, modes.rounding);
        if (std::isinf(format.ToDouble(bits))) {
            bits = static_cast<uint16_t>(maxBits | (std::signbit(value) ? 0x8000 : 0));
        }
        std::memcpy(element, &bits, sizeof(bits));
        return;
    }
    opgen_cpu::StoreRounded(element, value, modes.rounding);
}

// One operation lane by lane: out[k] = op(k) on the active lanes, zero elsewhere; written after all lanes are read
// (the destination may be a source). An arithmetic result in half or bfloat16 saturates as a conversion with
// RS_ENABLE does: the 310B runs in saturation mode only, and asc-devkit's SetSaturationFlag page says what that
// mode does to half / bfloat16 computations (inf to +-MAX, NaN to 0); float results stay IEEE.
template <typename R, typename Op>
void Lanewise(R& dst, const Predicate& p, Op op, bool arithmetic = true)
{
    using E = ElementOf<R>;
    alignas(E) uint8_t out[VL] = {};
    auto* lanes = reinterpret_cast<E*>(out);
    for (size_t k = 0; k < VL / sizeof(E); ++k) {
        if (!Active<E>(p, k)) {
            continue;
        }
        if constexpr (opgen_cpu::IS_HALF<E> || opgen_cpu::IS_BF16<E>) {
            StoreNarrow(&lanes[k], op(k), ConvertModes{opgen_cpu::Rounding::NEAREST_EVEN, arithmetic, false});
        } else {
            opgen_cpu::Store(&lanes[k], op(k));
        }
    }
    std::memcpy(Bytes(dst), out, VL);
}

template <typename To, typename From>
constexpr bool FLOAT_WIDENING = std::is_same_v<To, float> && (opgen_cpu::IS_HALF<From> || opgen_cpu::IS_BF16<From>);
template <typename To, typename From>
constexpr bool FLOAT_NARROWING = std::is_same_v<From, float> && (opgen_cpu::IS_HALF<To> || opgen_cpu::IS_BF16<To>);
struct GmToUbAlign {
    template <typename Sid, typename N, typename Len, typename Pad, typename Gap>
    void operator()(void* ub, void* gm, Sid, N n, Len len, Pad leftPad, Pad rightPad, Gap gmGap, Gap ubGap) const
    {
        using opgen_cpu::U;
        if (U(leftPad) != 0 || U(rightPad) != 0) {
            opgen_cpu::Unmodelled("copy_gm_to_ubuf_align with padding");
        }
        opgen_cpu::MoveGmToUbAlign(ub, gm, U(n), U(len), U(gmGap), U(ubGap));
    }
};
struct UbToGmAlign {
    template <typename Sid, typename N, typename Len, typename Gap>
    void operator()(void* gm, void* ub, Sid, N n, Len len, Gap ubGap, Gap gmGap) const
    {
        using opgen_cpu::U;
        opgen_cpu::MoveUbToGmAlign(gm, ub, U(n), U(len), U(ubGap), U(gmGap));
    }
};
} // namespace opgen_cpu3002

namespace opgen_reg {
// Every intrinsic: the register forms below, or this abort naming the intrinsic (a memory form, another arity).
#define OPGEN_REG_OTHER_FORMS(name)                                                           \
    template <typename... Args>                                                               \
    int64_t name(Args&&... args)                                                              \
    {                                                                                         \
        ((void)args, ...);                                                                    \
        opgen_cpu::Unmodelled(#name " with these operand types on arch 3002");                \
    }

// ---- predicates: plt_b<w>(count, POST_UPDATE): the first min(count, lanes) lanes of width w; count -= lanes
// (not below 0) -- asc-devkit's UpdateMask page, which dav_3510's UpdateMask implements with the same plt_b<w>
#define OPGEN_REG_PLT(name, width)                                                            \
    template <typename S, typename M, typename = std::enable_if_t<std::is_integral_v<S>>>     \
    int64_t name(S& count, M mode)                                                            \
    {                                                                                         \
        using namespace opgen_cpu3002;                                                        \
        if (!(mode == POST_UPDATE)) {                                                         \
            opgen_cpu::Unmodelled(#name " without POST_UPDATE");                              \
        }                                                                                     \
        constexpr uint64_t lanes = VL / (width);                                              \
        uint64_t n = static_cast<uint64_t>(count) < lanes ? static_cast<uint64_t>(count) : lanes; \
        Predicate p;                                                                          \
        for (uint64_t k = 0; k < n; ++k) {                                                    \
            p.set(k * (width));                                                               \
        }                                                                                     \
        count = static_cast<S>(n == lanes ? static_cast<uint64_t>(count) - lanes : 0);        \
        return Intern(p);                                                                     \
    }                                                                                         \
    OPGEN_REG_OTHER_FORMS(name)
OPGEN_REG_PLT(plt_b8, 1)
OPGEN_REG_PLT(plt_b16, 2)
OPGEN_REG_PLT(plt_b32, 4)

// ---- vlds(reg, base, offset, dist): offset in elements of base's type. NORM: 256 bytes; UNPK_B<w>: 128 bytes, each
// w-byte element followed by w zero bytes; BRC_B<w>: one element into every lane (the LoadAlign page's DIST_NORM,
// DIST_UNPACK_B*, DIST_BRC_B*)
template <typename R, typename T, typename O, typename D, typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R>>>
int64_t vlds(R& reg, T* base, O offset, D dist)
{
    using namespace opgen_cpu3002;
    const auto* src = reinterpret_cast<const uint8_t*>(base + offset);
    uint8_t* out = Bytes(reg);
    auto unpack = [&](size_t w) {
        std::memset(out, 0, VL);
        for (size_t k = 0; k < VL / (2 * w); ++k) {
            std::memcpy(out + 2 * k * w, src + k * w, w);
        }
    };
    auto broadcast = [&](size_t w) {
        for (size_t k = 0; k < VL / w; ++k) {
            std::memcpy(out + k * w, src, w);
        }
    };
    if (dist == NORM) {
        std::memcpy(out, src, VL);
    } else if (dist == UNPK_B8) {
        unpack(1);
    } else if (dist == UNPK_B16) {
        unpack(2);
    } else if (dist == UNPK_B32) {
        unpack(4);
    } else if (dist == BRC_B16) {
        broadcast(2);
    } else if (dist == BRC_B32) {
        broadcast(4);
    } else {
        opgen_cpu::Unmodelled("vlds with this distribution mode");
    }
    return 0;
}
OPGEN_REG_OTHER_FORMS(vlds)

// ---- vsts(reg, base, offset, dist, predicate): NORM_B<w>: the active w-byte lanes to their places; PK_B<w>: the low
// half of each active w-byte lane, packed (lane k to half-slot k; the predicate must be a prefix, as plt makes it)
// -- the StoreAlign page's DIST_NORM_B*, DIST_PACK_B*; lanes left out keep UB's bytes
template <typename R, typename T, typename O, typename D, typename P,
          typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R>>>
int64_t vsts(R& reg, T* base, O offset, D dist, P predicate)
{
    using namespace opgen_cpu3002;
    const Predicate& p = PredicateAt(predicate);
    auto* dst = reinterpret_cast<uint8_t*>(base + offset);
    const uint8_t* in = Bytes(reg);
    auto normal = [&](size_t w) {
        for (size_t k = 0; k < VL / w; ++k) {
            if (p[k * w]) {
                std::memcpy(dst + k * w, in + k * w, w);
            }
        }
    };
    auto pack = [&](size_t w) {
        if (!IsPrefix(p, w)) {
            opgen_cpu::Unmodelled("vsts PK_B* with a predicate that is not a prefix");
        }
        for (size_t k = 0; k < VL / w; ++k) {
            if (p[k * w]) {
                std::memcpy(dst + k * (w / 2), in + k * w, w / 2);
            }
        }
    };
    if (dist == NORM_B8) {
        normal(1);
    } else if (dist == NORM_B16) {
        normal(2);
    } else if (dist == NORM_B32) {
        normal(4);
    } else if (dist == PK_B16) {
        pack(2);
    } else if (dist == PK_B32) {
        pack(4);
    } else if (dist == PK_B64) {
        pack(8);
    } else {
        opgen_cpu::Unmodelled("vsts with this distribution mode");
    }
    return 0;
}
OPGEN_REG_OTHER_FORMS(vsts)

// ---- vsldb(reg, base, config, predicate) / vsstb(reg, base, config, predicate): eight 32-byte blocks, block k at
// base + k * (config >> 16) blocks (the LoadAlign / StoreAlign pages' DATA_BLOCK_COPY; dav_m300's level-0 calls
// pass their repeat's block stride so). A block with an active lane loads whole, one without loads zeros; a store
// writes the active lanes only
inline uint64_t BlockStride(uint64_t config)
{
    return (config >> 16) & 0xFFFFULL;
}
template <typename R, typename T, typename C, typename P, typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R>>>
int64_t vsldb(R& reg, T* base, C config, P predicate)
{
    using namespace opgen_cpu3002;
    const Predicate& p = PredicateAt(predicate);
    const auto* src = reinterpret_cast<const uint8_t*>(base);
    uint8_t* out = Bytes(reg);
    for (uint64_t k = 0; k < VL / opgen_cpu::BLOCK_BYTES; ++k) {
        bool active = false;
        for (uint64_t b = 0; b < opgen_cpu::BLOCK_BYTES; ++b) {
            active = active || p[k * opgen_cpu::BLOCK_BYTES + b];
        }
        uint8_t* block = out + k * opgen_cpu::BLOCK_BYTES;
        if (active) {
            std::memcpy(block, src + k * BlockStride(static_cast<uint64_t>(config)) * opgen_cpu::BLOCK_BYTES,
                        opgen_cpu::BLOCK_BYTES);
        } else {
            std::memset(block, 0, opgen_cpu::BLOCK_BYTES);
        }
    }
    return 0;
}
OPGEN_REG_OTHER_FORMS(vsldb)
template <typename R, typename T, typename C, typename P, typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R>>>
int64_t vsstb(R& reg, T* base, C config, P predicate)
{
    using namespace opgen_cpu3002;
    const Predicate& p = PredicateAt(predicate);
    auto* dst = reinterpret_cast<uint8_t*>(base);
    const uint8_t* in = Bytes(reg);
    for (uint64_t k = 0; k < VL / opgen_cpu::BLOCK_BYTES; ++k) {
        uint8_t* block = dst + k * BlockStride(static_cast<uint64_t>(config)) * opgen_cpu::BLOCK_BYTES;
        for (uint64_t e = 0; e < opgen_cpu::BLOCK_BYTES; e += sizeof(T)) {
            if (p[k * opgen_cpu::BLOCK_BYTES + e]) {
                std::memcpy(block + e, in + k * opgen_cpu::BLOCK_BYTES + e, sizeof(T));
            }
        }
    }
    return 0;
}
OPGEN_REG_OTHER_FORMS(vsstb)

// ---- arithmetic on registers, MODE_ZEROING; lanes computed in double and stored with the element type's rounding
#define OPGEN_REG_BINARY(name, expr)                                                          \
    template <typename R, typename P, typename M, typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R>>> \
    int64_t name(R& dst, R& src0, R& src1, P predicate, M mode)                               \
    {                                                                                         \
        using namespace opgen_cpu3002;                                                        \
        RequireZeroing(mode, #name " in a mode other than MODE_ZEROING");                     \
        Lanewise(dst, PredicateAt(predicate), [&](size_t k) {                                 \
            double x = opgen_cpu::Load(&src0[k]);                                             \
            double y = opgen_cpu::Load(&src1[k]);                                             \
            return expr;                                                                      \
        });                                                                                   \
        return 0;                                                                             \
    }                                                                                         \
    OPGEN_REG_OTHER_FORMS(name)
OPGEN_REG_BINARY(vadd, x + y)
OPGEN_REG_BINARY(vmul, x * y)
OPGEN_REG_BINARY(vdiv, x / y)

#define OPGEN_REG_SCALAR(name, expr)                                                          \
    template <typename R, typename S, typename P, typename M,                                 \
              typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R> && !opgen_cpu3002::IS_REGISTER<S>>> \
    int64_t name(R& dst, R& src, S scalar, P predicate, M mode)                               \
    {                                                                                         \
        using namespace opgen_cpu3002;                                                        \
        RequireZeroing(mode, #name " in a mode other than MODE_ZEROING");                     \
        double y = opgen_cpu::Load(&scalar);                                                  \
        Lanewise(dst, PredicateAt(predicate), [&](size_t k) {                                 \
            double x = opgen_cpu::Load(&src[k]);                                              \
            return expr;                                                                      \
        });                                                                                   \
        return 0;                                                                             \
    }                                                                                         \
    OPGEN_REG_OTHER_FORMS(name)
OPGEN_REG_SCALAR(vadds, x + y)
OPGEN_REG_SCALAR(vmuls, x * y)
OPGEN_REG_SCALAR(vmaxs, std::isnan(x) || std::isnan(y) ? NAN : (x > y ? x : y))
OPGEN_REG_SCALAR(vmins, std::isnan(x) || std::isnan(y) ? NAN : (x < y ? x : y))

#define OPGEN_REG_UNARY(name, expr)                                                           \
    template <typename R, typename P, typename M, typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R>>> \
    int64_t name(R& dst, R& src, P predicate, M mode)                                         \
    {                                                                                         \
        using namespace opgen_cpu3002;                                                        \
        RequireZeroing(mode, #name " in a mode other than MODE_ZEROING");                     \
        Lanewise(dst, PredicateAt(predicate), [&](size_t k) {                                 \
            double x = opgen_cpu::Load(&src[k]);                                              \
            return expr;                                                                      \
        });                                                                                   \
        return 0;                                                                             \
    }                                                                                         \
    OPGEN_REG_OTHER_FORMS(name)
OPGEN_REG_UNARY(vexp, std::exp(x))

// vdup(dst, scalar, predicate, MODE_ZEROING): the scalar into every active lane
template <typename R, typename S, typename P, typename M,
          typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<R> && !opgen_cpu3002::IS_REGISTER<S>>>
int64_t vdup(R& dst, S scalar, P predicate, M mode)
{
    using namespace opgen_cpu3002;
    RequireZeroing(mode, "vdup in a mode other than MODE_ZEROING");
    double value = opgen_cpu::Load(&scalar);
    Lanewise(dst, PredicateAt(predicate), [value](size_t) { return value; }, false);
    return 0;
}
OPGEN_REG_OTHER_FORMS(vdup)

// ---- vcvt(dst, src, predicate, modes...) between float and half / bfloat16, the lanes counted in the wider type
// and chosen by the predicate at that width (the Cast page: "MaskReg filters by the source"; the narrow elements
// sit in the even half-slots with PART_EVEN, RegLayout::ZERO). Widening is exact; narrowing rounds as the label
// says, and with RS_ENABLE saturates (StoreNarrow). Narrow slots no lane writes are zero.
template <typename D, typename S, typename P, typename... L,
          typename = std::enable_if_t<opgen_cpu3002::IS_REGISTER<D> && opgen_cpu3002::IS_REGISTER<S>>>
int64_t vcvt(D& dst, S& src, P predicate, L... labels)
{
    using namespace opgen_cpu3002;
    using To = ElementOf<D>;
    using From = ElementOf<S>;
    const Predicate& p = PredicateAt(predicate);
    ConvertModes modes = ReadConvertModes(labels...);
    alignas(To) uint8_t out[VL] = {};
    if constexpr (FLOAT_WIDENING<To, From>) {
        if (!modes.evenPart) {
            opgen_cpu::Unmodelled("vcvt widening without PART_EVEN");
        }
        for (size_t k = 0; k < VL / sizeof(To); ++k) {
            if (Active<To>(p, k)) {
                opgen_cpu::Store(reinterpret_cast<To*>(out) + k, opgen_cpu::Load(&src[2 * k]));
            }
        }
    } else if constexpr (FLOAT_NARROWING<To, From>) {
        if (!modes.evenPart) {
            opgen_cpu::Unmodelled("vcvt narrowing without PART_EVEN");
        }
        for (size_t k = 0; k < VL / sizeof(From); ++k) {
            if (Active<From>(p, k)) {
                StoreNarrow(reinterpret_cast<To*>(out) + 2 * k, opgen_cpu::Load(&src[k]), modes);
            }
        }
    } else {
        opgen_cpu::Unmodelled("vcvt between these element types on arch 3002");
    }
    std::memcpy(Bytes(dst), out, VL);
    return 0;
}
OPGEN_REG_OTHER_FORMS(vcvt)

// ---- moves between GM and UB for DataCopyPad (dav_m300 DataCopyPadGm2UBImpl / DataCopyPadUB2GMImpl): one
// instruction for every element size, the operands of 2201's _align_b16/_b32 forms (GM length and gap in bytes, UB
// side padded to whole 32-byte blocks, UB gap in blocks); copy_ubuf_to_gm_align has no padding operands
#define OPGEN_REG_MOVE(name, Move)                                                            \
    template <typename... Args>                                                               \
    int64_t name(Args&&... args)                                                              \
    {                                                                                         \
        if constexpr (std::is_invocable_v<opgen_cpu3002::Move, Args&...>) {                   \
            opgen_cpu3002::Move{}(args...);                                                   \
        } else {                                                                              \
            ((void)args, ...);                                                                \
            opgen_cpu::Unmodelled(#name " with these operand types on arch 3002");            \
        }                                                                                     \
        return 0;                                                                             \
    }
OPGEN_REG_MOVE(copy_gm_to_ubuf_align, GmToUbAlign)
OPGEN_REG_MOVE(copy_ubuf_to_gm_align, UbToGmAlign)
} // namespace opgen_reg

#endif // OPGEN_CPU_MODEL_ARCH3002_H
