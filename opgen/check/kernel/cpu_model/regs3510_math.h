// opgen's CPU model, arch 3510: register arithmetic, compares and conversions (asc-devkit impl/basic_api/
// reg_compute/dav_3510/kernel_reg_compute_vec_{binary,binary_scalar,unary,cmpsel,vconv}_impl.h; semantics from
// the Reg docs: 基础算术, 比较与选择, 类型转换/Cast.md, 辅助数据类型/RegLayout.md, 特殊寄存器访问/SetCtrlSpr).
//
// - vX(dst, src0, src1, mask[, mode]), vXs(dst, src, scalar, mask[, mode]), vX(dst, src, mask[, mode]): every
//   element the predicate selects, computed in double (integers in 64-bit, wrapping to the element width) and
//   stored with the element type's rounding; the others zeroed (ZEROING, also when no mode is passed) or kept.
// - Saturation (SetCtrlSpr docs, defaults CTRL[60] = 1, CTRL[48] = 0, CTRL[59] = 0): with CTRL[60] set, CTRL[48]
//   clear saturates half results and conversions into half/bfloat16 (inf -> +-MAX, NaN -> 0) and CTRL[59] clear
//   saturates float->int and int->int conversions; with CTRL[60] clear the conversion's own SatMode decides.
//   Conversions into float never saturate (Cast.md).
// - vcmp_<op>(dst, src0, src1, mask) / vcmps_<op>(dst, src, scalar, mask): the predicate bit of each selected
//   element is the IEEE comparison (NaN compares false, except ne), unselected bits 0.
// - vcvt(dst, src, mask, [round], [sat], [part], mode): RegLayout per RegLayout.md: narrowing writes dst element
//   part + 2j (or 4j) from src element j and zeroes the rest; widening reads src element part + 2j (4j); the
//   predicate gates source elements.
// - exp/ln/sqrt are libm in double, not the hardware's approximations.
#ifndef OPGEN_CPU_MODEL_REGS3510_MATH_H
#define OPGEN_CPU_MODEL_REGS3510_MATH_H

#include <cmath>
#include <cstring>
#include <limits>

namespace opgen_reg {
constexpr uint64_t CTRL_GLOBAL_SAT_BIT = 60;
constexpr uint64_t CTRL_FLOAT_NO_SAT_BIT = 48;
constexpr uint64_t CTRL_INT_TRUNCATE_BIT = 59;
inline bool CtrlBit(uint64_t bit)
{
    return ((opgen_cpu::State().ctrl >> bit) & 1ULL) != 0;
}
template <typename T>
constexpr bool IS_NARROW_FLOAT = opgen_cpu::IS_HALF<T> || opgen_cpu::IS_BF16<T>;

template <typename T>
double Largest()
{
    if constexpr (opgen_cpu::IS_HALF<T>) {
        return 65504.0;
    } else if constexpr (opgen_cpu::IS_BF16<T>) {
        return 3.3895313892515355e38;
    } else {
        return static_cast<double>(std::numeric_limits<T>::max());
    }
}
// a float result into T: saturated (inf -> +-MAX, NaN -> 0) when `saturate`
template <typename T>
void PutFloat(T* at, double value, opgen_cpu::Rounding mode, bool saturate)
{
    if (saturate) {
        value = std::isnan(value) ? 0.0 : std::fmax(-Largest<T>(), std::fmin(Largest<T>(), value));
    }
    opgen_cpu::StoreRounded(at, value, mode);
    if (saturate && std::isinf(opgen_cpu::Load(at))) { // rounded past MAX
        opgen_cpu::StoreRounded(at, value > 0 ? Largest<T>() : -Largest<T>(), opgen_cpu::Rounding::TRUNC);
    }
}
// a value into an integer T: rounded, then saturated or truncated to T's width
template <typename T>
void PutInt(T* at, double value, opgen_cpu::Rounding mode, bool saturate)
{
    double r = value;
    switch (mode) {
        case opgen_cpu::Rounding::NEAREST_EVEN: r = std::nearbyint(value); break;
        case opgen_cpu::Rounding::NEAREST_AWAY: r = std::round(value); break;
        case opgen_cpu::Rounding::FLOOR: r = std::floor(value); break;
        case opgen_cpu::Rounding::CEIL: r = std::ceil(value); break;
        case opgen_cpu::Rounding::TRUNC: r = std::trunc(value); break;
        case opgen_cpu::Rounding::ODD: Unmodelled("round-to-odd into an integer");
    }
    if (std::isnan(r)) {
        *at = 0;
    } else if (saturate || std::isinf(r)) {
        *at = static_cast<T>(std::fmax(static_cast<double>(std::numeric_limits<T>::min()),
                                       std::fmin(static_cast<double>(std::numeric_limits<T>::max()), r)));
    } else {
        *at = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(r)));
    }
}

// ---- elementwise register arithmetic
template <typename Dst, typename Fn, typename... Mode>
void Elementwise(Dst& dst, uint16_t mask, Fn fn, const Mode&... mode)
{
    using T = Elem<Dst>;
    constexpr uint64_t size = sizeof(T);
    uint8_t out[VL];
    const Bits& pred = Pred(mask);
    bool saturate = opgen_cpu::IS_HALF<T> && CtrlBit(CTRL_GLOBAL_SAT_BIT) && !CtrlBit(CTRL_FLOAT_NO_SAT_BIT);
    for (uint64_t e = 0; e < VL / size; ++e) {
        T* at = reinterpret_cast<T*>(out + e * size);
        if (Active(pred, e, size)) {
            if constexpr (std::is_integral_v<T>) {
                *at = static_cast<T>(fn(e));
            } else {
                PutFloat(at, fn(e), opgen_cpu::Rounding::NEAREST_EVEN, saturate);
            }
        }
    }
    if constexpr (sizeof...(mode) == 0) {
        Merge(dst, out, pred, std::integral_constant<int, static_cast<int>(Reg::MaskMergeMode::ZEROING)>());
    } else {
        Merge(dst, out, pred, mode...);
    }
}
template <typename R>
auto Value(R& reg, uint64_t e)
{
    using T = Elem<R>;
    if constexpr (std::is_integral_v<T>) {
        return static_cast<int64_t>(reinterpret_cast<const T*>(Bytes(reg))[e]);
    } else {
        return opgen_cpu::Load(reinterpret_cast<const T*>(Bytes(reg)) + e);
    }
}
template <typename T, typename S>
auto ScalarValue(const S& scalar)
{
    if constexpr (std::is_integral_v<T>) {
        return static_cast<int64_t>(scalar);
    } else {
        return opgen_cpu::Load(&scalar);
    }
}

// runs an instruction's body when its operands fit it, else aborts naming the instruction
template <typename Run, typename... Args>
int64_t Dispatch(const char* unmodelled, Run run, Args&... args)
{
    if constexpr (std::is_invocable_v<Run, Args&...>) {
        run(args...);
    } else {
        Unmodelled(unmodelled);
    }
    return 0;
}

#define OPGEN_REG_UNARY(name, expr)                                                                             \
    template <typename... Args>                                                                                 \
    int64_t name(Args&&... args)                                                                                \
    {                                                                                                           \
        auto run = [](auto& dst, auto& a, auto mask, const auto&... mode) {                                     \
            static_assert(sizeof...(mode) <= 1, #name ": unexpected arguments");                               \
            Elementwise(dst, static_cast<uint16_t>(mask), [&](uint64_t e) {                                     \
                auto x = Value(a, e);                                                                           \
                return expr;                                                                                    \
            }, mode...);                                                                                        \
        };                                                                                                      \
        return Dispatch(#name " with these operand types", run, args...);                                      \
    }
// a register operand's element, or a scalar operand as the register's element type
template <typename R, typename = void>
struct IsRegister : std::false_type {};
template <typename R>
struct IsRegister<R, std::void_t<decltype(Vec(std::declval<R&>()).data())>> : std::true_type {};
template <typename T, typename B>
auto Operand(B& b, uint64_t e)
{
    if constexpr (IsRegister<B>::value) {
        return Value(b, e);
    } else {
        return ScalarValue<T>(static_cast<T>(b));
    }
}
// x: the first source's element, y: the second operand's (a register's element or a scalar as the element type),
// d(): the destination's own element, read before it is written (the fused multiply-adds)
#define OPGEN_REG_ARITH(name, expr)                                                                             \
    template <typename... Args>                                                                                 \
    int64_t name(Args&&... args)                                                                                \
    {                                                                                                           \
        auto run = [](auto& dst, auto& a, auto& b, auto mask, const auto&... mode) {                            \
            static_assert(sizeof...(mode) <= 1, #name ": unexpected arguments");                               \
            using T = Elem<std::remove_reference_t<decltype(dst)>>;                                             \
            Elementwise(dst, static_cast<uint16_t>(mask), [&](uint64_t e) {                                     \
                [[maybe_unused]] auto d = [&] { return Value(dst, e); };                                        \
                auto x = Value(a, e);                                                                           \
                auto y = Operand<T>(b, e);                                                                      \
                return expr;                                                                                    \
            }, mode...);                                                                                        \
        };                                                                                                      \
        return Dispatch(#name " with these operand types", run, args...);                                      \
    }

// NaN in either operand gives NaN for max/min (IEEE maximum/minimum)
template <typename X>
X Max(X x, X y)
{
    if constexpr (std::is_floating_point_v<X>) {
        if (std::isnan(x) || std::isnan(y)) {
            return NAN;
        }
    }
    return x > y ? x : y;
}
template <typename X>
X Min(X x, X y)
{
    if constexpr (std::is_floating_point_v<X>) {
        if (std::isnan(x) || std::isnan(y)) {
            return NAN;
        }
    }
    return x < y ? x : y;
}
template <typename X>
X Divide(X x, X y)
{
    if constexpr (std::is_integral_v<X>) {
        if (y == 0) {
            Unmodelled("an integer division by zero");
        }
    }
    return x / y;
}

// a lane shifted by a scalar: right logical for an unsigned element, arithmetic for a signed one (the lane is read
// zero- or sign-extended); left in the lane's bits, the store keeping the element's width; a float lane has no shift
template <typename X, typename Y>
X ShiftRight(X x, Y y)
{
    if constexpr (std::is_integral_v<X>) {
        return x >> y;
    } else {
        Unmodelled("vshrs of a float register");
    }
}
template <typename X, typename Y, typename D>
auto MulAddDst(X x, Y y, D d)
{
    if constexpr (std::is_integral_v<X>) {
        return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y) + static_cast<uint64_t>(d));
    } else {
        return static_cast<double>(x) * static_cast<double>(y) + static_cast<double>(d);
    }
}
template <typename X, typename Y>
X ShiftLeft(X x, Y y)
{
    if constexpr (std::is_integral_v<X>) {
        return static_cast<X>(static_cast<uint64_t>(x) << y);
    } else {
        Unmodelled("vshls of a float register");
    }
}

OPGEN_REG_ARITH(vadd, x + y)
OPGEN_REG_ARITH(vsub, x - y)
OPGEN_REG_ARITH(vmul, x * y)
OPGEN_REG_ARITH(vdiv, Divide(x, y))
OPGEN_REG_ARITH(vmax, Max(x, y))
OPGEN_REG_ARITH(vmin, Min(x, y))
OPGEN_REG_ARITH(vadds, x + y)
OPGEN_REG_ARITH(vmuls, x * y)
OPGEN_REG_ARITH(vmaxs, Max(x, y))
OPGEN_REG_ARITH(vshrs, ShiftRight(x, y))
OPGEN_REG_ARITH(vshls, ShiftLeft(x, y))
OPGEN_REG_ARITH(vmins, Min(x, y))
// fused multiply-adds, one rounding to the element type (the product of two float/half values is exact in double)
// asc_madd.md (reg): dst = dst * src0 + src1
OPGEN_REG_ARITH(vmadd, static_cast<double>(d()) * static_cast<double>(x) + static_cast<double>(y))
// asc_axpy.md (reg): dst = src * value + dst
OPGEN_REG_ARITH(vaxpy, static_cast<double>(x) * static_cast<double>(y) + static_cast<double>(d()))
// MulAddDst (reg): dst = src0 * src1 + dst; integer lanes wrap to the element's width (asc-devkit's 64-bit multiply
// adds the cross products of 32-bit halves with it)
OPGEN_REG_ARITH(vmula, MulAddDst(x, y, d()))
// vmull(low, high, a, b, mask): each 32-bit lane's whole product (signed for signed lanes), its low and high
// halves into two registers (asc-devkit's Mull, the first step of a 64-bit multiply)
template <typename... Args>
int64_t vmull(Args&&... args)
{
    auto run = [](auto& low, auto& high, auto& a, auto& b, auto mask) {
        using T = Elem<std::remove_reference_t<decltype(low)>>;
        uint64_t products[VL / 4] = {};
        if constexpr (std::is_integral_v<T> && sizeof(T) == 4) {
            for (uint64_t e = 0; e < VL / 4; ++e) {
                products[e] = std::is_signed_v<T> ? static_cast<uint64_t>(Value(a, e) * Value(b, e))
                                                  : static_cast<uint64_t>(Value(a, e)) * static_cast<uint64_t>(Value(b, e));
            }
        } else {
            Unmodelled("vmull of lanes other than 32-bit integers");
        }
        uint16_t active = static_cast<uint16_t>(mask);
        Elementwise(low, active, [&](uint64_t e) { return static_cast<int64_t>(products[e] & 0xFFFFFFFFULL); });
        Elementwise(high, active, [&](uint64_t e) { return static_cast<int64_t>(products[e] >> 32); });
    };
    return Dispatch("vmull with these operand types", run, args...);
}
OPGEN_REG_UNARY(vabs, x < 0 ? -x : x)
OPGEN_REG_UNARY(vneg, -x)
OPGEN_REG_UNARY(vrelu, Max(x, decltype(x){0}))
OPGEN_REG_UNARY(vexp, std::exp(static_cast<double>(x)))
OPGEN_REG_UNARY(vln, std::log(static_cast<double>(x)))
OPGEN_REG_UNARY(vsqrt, std::sqrt(static_cast<double>(x)))

// ---- bitwise operations on the element's bits, whatever its type (Erf's sign handling ANDs and ORs floats)
template <uint64_t Size>
using RawBits = std::conditional_t<Size == 1, uint8_t,
                                   std::conditional_t<Size == 2, uint16_t, std::conditional_t<Size == 4, uint32_t, uint64_t>>>;
template <typename R>
auto RawValue(R& reg, uint64_t e)
{
    RawBits<sizeof(Elem<R>)> v;
    std::memcpy(&v, Bytes(reg) + e * sizeof(v), sizeof(v));
    return v;
}
template <typename D, typename Fn, typename... Mode>
void Bitwise(D& dst, uint16_t mask, Fn fn, const Mode&... mode)
{
    constexpr uint64_t size = sizeof(Elem<D>);
    uint8_t out[VL];
    const Bits& pred = Pred(mask);
    for (uint64_t e = 0; e < VL / size; ++e) {
        if (Active(pred, e, size)) {
            RawBits<size> v = fn(e);
            std::memcpy(out + e * size, &v, size);
        }
    }
    if constexpr (sizeof...(mode) == 0) {
        Merge(dst, out, pred, std::integral_constant<int, static_cast<int>(Reg::MaskMergeMode::ZEROING)>());
    } else {
        Merge(dst, out, pred, mode...);
    }
}
#define OPGEN_REG_BITWISE(name, op)                                                                             \
    template <typename... Args>                                                                                 \
    int64_t name(Args&&... args)                                                                                \
    {                                                                                                           \
        auto run = [](auto& dst, auto& a, auto& b, auto mask, const auto&... mode) {                            \
            static_assert(sizeof...(mode) <= 1, #name ": unexpected arguments");                               \
            Bitwise(dst, static_cast<uint16_t>(mask), [&](uint64_t e) { return RawValue(a, e) op RawValue(b, e); }, \
                    mode...);                                                                                   \
        };                                                                                                      \
        return Dispatch(#name " with these operand types", run, args...);                                      \
    }
OPGEN_REG_BITWISE(vand, &)
OPGEN_REG_BITWISE(vor, |)
OPGEN_REG_BITWISE(vxor, ^)

// ---- compares into a predicate
enum class Cmp { EQ, NE, LT, GT, LE, GE };
template <typename X>
bool Compare(X x, X y, Cmp op)
{
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
template <typename Src, typename Rhs, typename D>
void CompareInto(D& dst, Src& src, uint16_t mask, Cmp op, Rhs rhs)
{
    constexpr uint64_t size = sizeof(Elem<Src>);
    const Bits& pred = Pred(mask);
    Bits out;
    for (uint64_t e = 0; e < VL / size; ++e) {
        out[e * size] = Active(pred, e, size) && Compare(Value(src, e), rhs(e), op);
    }
    SetPred(dst, out);
}
#define OPGEN_REG_CMP(name, op)                                                                                 \
    template <typename... Args>                                                                                 \
    int64_t name(Args&&... args)                                                                                \
    {                                                                                                           \
        auto run = [](auto& dst, auto& src0, auto& src1, auto mask) {                                           \
            CompareInto(dst, src0, static_cast<uint16_t>(mask), op, [&](uint64_t e) { return Value(src1, e); }); \
        };                                                                                                      \
        return Dispatch(#name " with these operand types", run, args...);                                      \
    }
#define OPGEN_REG_CMPS(name, op)                                                                                \
    template <typename... Args>                                                                                 \
    int64_t name(Args&&... args)                                                                                \
    {                                                                                                           \
        auto run = [](auto& dst, auto& src, const auto& value, auto mask) {                                     \
            using T = Elem<std::remove_reference_t<decltype(src)>>;                                             \
            auto y = ScalarValue<T>(static_cast<T>(value));                                                     \
            CompareInto(dst, src, static_cast<uint16_t>(mask), op, [&](uint64_t) { return y; });                \
        };                                                                                                      \
        return Dispatch(#name " with these operand types", run, args...);                                      \
    }
OPGEN_REG_CMP(vcmp_eq, Cmp::EQ)
OPGEN_REG_CMP(vcmp_ne, Cmp::NE)
OPGEN_REG_CMP(vcmp_lt, Cmp::LT)
OPGEN_REG_CMP(vcmp_gt, Cmp::GT)
OPGEN_REG_CMP(vcmp_le, Cmp::LE)
OPGEN_REG_CMP(vcmp_ge, Cmp::GE)
OPGEN_REG_CMPS(vcmps_eq, Cmp::EQ)
OPGEN_REG_CMPS(vcmps_ne, Cmp::NE)
OPGEN_REG_CMPS(vcmps_lt, Cmp::LT)
OPGEN_REG_CMPS(vcmps_gt, Cmp::GT)
OPGEN_REG_CMPS(vcmps_le, Cmp::LE)
OPGEN_REG_CMPS(vcmps_ge, Cmp::GE)

// ---- conversions
template <typename C>
opgen_cpu::Rounding RoundingOf(const C& round)
{
    long long r = Mode(round);
    if (r == Of(::CAST_RINT)) {
        return opgen_cpu::Rounding::NEAREST_EVEN;
    }
    if (r == Of(::CAST_ROUND)) {
        return opgen_cpu::Rounding::NEAREST_AWAY;
    }
    if (r == Of(::CAST_FLOOR)) {
        return opgen_cpu::Rounding::FLOOR;
    }
    if (r == Of(::CAST_CEIL)) {
        return opgen_cpu::Rounding::CEIL;
    }
    if (r == Of(::CAST_TRUNC)) {
        return opgen_cpu::Rounding::TRUNC;
    }
    if (r == Of(::CAST_ODD)) {
        return opgen_cpu::Rounding::ODD;
    }
    Unmodelled("vcvt with this rounding (hybrid)");
}

// one element of S into D, rounding and saturating as the conversion and CTRL say
template <typename D, typename S>
void ConvertOne(D* at, const S* from, opgen_cpu::Rounding round, int satMode)
{
    double value = opgen_cpu::Load(from);
    bool global = CtrlBit(CTRL_GLOBAL_SAT_BIT);
    if constexpr (std::is_integral_v<D>) {
        bool saturate = global ? !CtrlBit(CTRL_INT_TRUNCATE_BIT) : satMode != Of(Reg::SatMode::NO_SAT);
        PutInt(at, value, round, saturate);
    } else if constexpr (std::is_same_v<D, float>) {
        opgen_cpu::StoreRounded(at, value, round);
    } else {
        bool saturate = global ? !CtrlBit(CTRL_FLOAT_NO_SAT_BIT) : satMode == Of(Reg::SatMode::SAT);
        PutFloat(at, value, round, saturate || std::is_integral_v<S>);
    }
}
// vcvt(dst, src, mask, [round], [sat], [part], mode), in the orders dav_3510's CastOperator passes them
template <typename... Args>
int64_t vcvt(Args&&... args)
{
    auto run = [](auto& dst, auto& src, auto mask, const auto&... rest) {
        using D = Elem<std::remove_reference_t<decltype(dst)>>;
        using S = Elem<std::remove_reference_t<decltype(src)>>;
        opgen_cpu::Rounding round = opgen_cpu::Rounding::NEAREST_EVEN;
        int sat = Of(Reg::SatMode::UNKNOWN);
        uint64_t part = 0;
        bool zeroing = true;
        auto read = [&](const auto& a) {
            using A = std::decay_t<decltype(a)>;
            if constexpr (IS_CONSTANT_OF<A, ::ROUND>) {
                round = RoundingOf(a);
            } else if constexpr (IS_CONSTANT_OF<A, ::RoundingSaturation>) {
                sat = static_cast<int>(Mode(a));
            } else if constexpr (IS_CONSTANT_OF<A, ::Part> || IS_CONSTANT_OF<A, ::Part_T>) {
                part = static_cast<uint64_t>(Mode(a));
            } else {
                zeroing = IsZeroing(a);
            }
        };
        (read(rest), ...);
        if (!zeroing) {
            Unmodelled("vcvt merging inactive elements");
        }
        const Bits& pred = Pred(static_cast<uint16_t>(mask));
        uint8_t out[VL] = {};
        auto* d = reinterpret_cast<D*>(out);
        const auto* s = reinterpret_cast<const S*>(Bytes(src));
        if constexpr (sizeof(D) < sizeof(S)) { // narrowing: src j -> dst part + ratio * j
            constexpr uint64_t ratio = sizeof(S) / sizeof(D);
            for (uint64_t j = 0; j < VL / sizeof(S); ++j) {
                if (Active(pred, j, sizeof(S))) {
                    ConvertOne(d + part + ratio * j, s + j, round, sat);
                }
            }
        } else if constexpr (sizeof(D) > sizeof(S)) { // widening: src part + ratio * j -> dst j
            constexpr uint64_t ratio = sizeof(D) / sizeof(S);
            for (uint64_t j = 0; j < VL / sizeof(D); ++j) {
                if (Active(pred, part + ratio * j, sizeof(S))) {
                    ConvertOne(d + j, s + part + ratio * j, round, sat);
                }
            }
        } else {
            for (uint64_t j = 0; j < VL / sizeof(D); ++j) {
                if (Active(pred, j, sizeof(S))) {
                    ConvertOne(d + j, s + j, round, sat);
                }
            }
        }
        std::memcpy(Bytes(dst), out, VL);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("vcvt with these operand types");
    }
    return 0;
}

// ---- unaligned stores (docs: 连续非对齐搬出 / MaskReg非对齐搬出 StoreUnAlign). The hardware stages bytes that cross a
// 32-byte boundary in the UnalignReg until StoreUnAlignPost flushes them; the UB holds the same bytes once the pair
// has run, so the model writes at once and the flush only post-updates. A kernel that skips the flush therefore
// passes here where the NPU would lose its tail: the model does not see a missing StoreUnAlignPost.
// vstus(ureg, stride, src, base&, post): `stride` elements of src at base, then base += stride (POST_UPDATE)
template <typename... Args>
int64_t vstus(Args&&... args)
{
    auto run = [](auto&, auto stride, auto& src, auto*& base, auto post) {
        using T = std::remove_cv_t<std::remove_pointer_t<std::remove_reference_t<decltype(base)>>>;
        uint64_t count = static_cast<uint64_t>(stride) < VL / sizeof(T) ? static_cast<uint64_t>(stride)
                                                                          : VL / sizeof(T);
        std::memcpy(reinterpret_cast<uint8_t*>(base), Bytes(src), count * sizeof(T));
        if (Mode(post) == Of(Reg::PostLiteral::POST_MODE_UPDATE)) {
            base += stride;
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("vstus with these operand types");
    }
    return 0;
}
// vstas(ureg, base&, stride[, POST_UPDATE]): the flush; base += stride elements with POST_UPDATE
template <typename... Args>
int64_t vstas(Args&&... args)
{
    auto run = [](auto&, auto*& base, auto stride, auto... post) {
        if constexpr (sizeof...(post) == 1) {
            base += stride;
        }
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("vstas with these operand types");
    }
    return 0;
}
// pstu(ureg, mask, base&): the lowest bit of each element's predicate bits, packed: b16 keeps every 2nd bit into 16
// bytes, b32 every 4th into 8 bytes; base moves past them
template <typename... Args>
int64_t pstu(Args&&... args)
{
    auto run = [](auto&, auto mask, auto*& base) {
        using T = std::remove_cv_t<std::remove_pointer_t<std::remove_reference_t<decltype(base)>>>;
        const Bits& bits = Pred(static_cast<uint16_t>(mask));
        auto* at = reinterpret_cast<uint8_t*>(base);
        uint64_t count = VL / sizeof(T);
        for (uint64_t i = 0; i < count; i += 8) {
            uint8_t byte = 0;
            for (uint64_t k = 0; k < 8; ++k) {
                byte = static_cast<uint8_t>(byte | (bits[(i + k) * sizeof(T)] ? 1U << k : 0U));
            }
            at[i / 8] = byte;
        }
        base += count / 8 / sizeof(T);
    };
    if constexpr (std::is_invocable_v<decltype(run), Args&...>) {
        run(args...);
    } else {
        Unmodelled("pstu with these operand types");
    }
    return 0;
}
} // namespace opgen_reg

#endif // OPGEN_CPU_MODEL_REGS3510_MATH_H
