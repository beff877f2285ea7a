// Element values of the CPU model: every lane is computed in double and stored into its element type with
// that type's rounding (float: IEEE nearest-even; half / bfloat16: the rounding mode the instruction names).
#ifndef OPGEN_CPU_MODEL_NUMBERS_H
#define OPGEN_CPU_MODEL_NUMBERS_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace opgen_cpu {
enum class Rounding { NEAREST_EVEN, NEAREST_AWAY, FLOOR, CEIL, TRUNC, ODD };

// The kernel tier reads this line and exit code (kernel_run.py UNMODELLED_*): the row is SKIPPED naming `what`.
[[noreturn]] inline void Unmodelled(const char* what)
{
    std::fprintf(stderr, "opgen cpu model: not modelled: %s\n", what);
    std::exit(3);
}

// A 16-bit float format: exponent bits, mantissa bits (binary16: 5/10, bfloat16: 8/7).
struct Narrow {
    int exponentBits;
    int mantissaBits;
    double ToDouble(uint16_t bits) const
    {
        int bias = (1 << (exponentBits - 1)) - 1;
        int exponent = (bits >> mantissaBits) & ((1 << exponentBits) - 1);
        int mantissa = bits & ((1 << mantissaBits) - 1);
        double sign = (bits >> 15) ? -1.0 : 1.0;
        if (exponent == (1 << exponentBits) - 1) {
            return mantissa ? NAN : sign * INFINITY;
        }
        if (exponent == 0) {
            return sign * std::ldexp(mantissa, 1 - bias - mantissaBits);
        }
        return sign * std::ldexp(mantissa + (1 << mantissaBits), exponent - bias - mantissaBits);
    }
    // The magnitude bits of |value| rounded toward zero, and whether that was exact.
    uint16_t TowardZero(double magnitude, bool& exact) const
    {
        uint16_t low = 0;
        uint16_t high = static_cast<uint16_t>(((1 << exponentBits) - 1) << mantissaBits); // infinity
        while (high - low > 1) { // magnitudes are monotonic in their bits
            uint16_t mid = static_cast<uint16_t>((low + high) / 2);
            if (ToDouble(mid) <= magnitude) {
                low = mid;
            } else {
                high = mid;
            }
        }
        exact = ToDouble(low) == magnitude;
        if (ToDouble(high) == magnitude) {
            exact = true;
            return high;
        }
        return low;
    }
    uint16_t Round(double value, Rounding mode) const
    {
        uint16_t quietNan = static_cast<uint16_t>((((1 << exponentBits) - 1) << mantissaBits) | (1 << (mantissaBits - 1)));
        if (std::isnan(value)) {
            return quietNan;
        }
        uint16_t sign = std::signbit(value) ? 0x8000 : 0;
        double magnitude = std::fabs(value);
        bool exact = false;
        uint16_t down = TowardZero(magnitude, exact);
        if (exact) {
            return static_cast<uint16_t>(sign | down);
        }
        uint16_t up = static_cast<uint16_t>(down + 1);
        bool takeUp = false;
        double below = magnitude - ToDouble(down);
        double above = ToDouble(up) - magnitude;
        switch (mode) {
            case Rounding::NEAREST_EVEN: takeUp = above < below || (above == below && (down & 1)); break;
            case Rounding::NEAREST_AWAY: takeUp = above <= below; break;
            case Rounding::FLOOR: takeUp = sign != 0; break;
            case Rounding::CEIL: takeUp = sign == 0; break;
            case Rounding::TRUNC: takeUp = false; break;
            case Rounding::ODD: takeUp = (down & 1) == 0; break;
        }
        return static_cast<uint16_t>(sign | (takeUp ? up : down));
    }
};
constexpr Narrow BINARY16{5, 10};
constexpr Narrow BFLOAT16{8, 7};

template <typename T>
constexpr bool IS_HALF = std::is_same_v<T, half>;
template <typename T>
constexpr bool IS_BF16 = std::is_same_v<T, bfloat16_t>;

template <typename T>
double Load(const T* element)
{
    if constexpr (IS_HALF<T> || IS_BF16<T>) {
        uint16_t bits = 0;
        std::memcpy(&bits, element, sizeof(bits));
        return (IS_HALF<T> ? BINARY16 : BFLOAT16).ToDouble(bits);
    } else if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<double>(*element);
    } else {
        static_assert(std::is_arithmetic_v<T>, "opgen cpu model: element type not modelled");
        return 0.0;
    }
}

template <typename T>
void StoreRounded(T* element, double value, Rounding mode)
{
    if constexpr (IS_HALF<T> || IS_BF16<T>) {
        uint16_t bits = (IS_HALF<T> ? BINARY16 : BFLOAT16).Round(value, mode);
        std::memcpy(element, &bits, sizeof(bits));
    } else if constexpr (std::is_floating_point_v<T>) {
        if (mode != Rounding::NEAREST_EVEN) {
            Unmodelled("a non-default rounding into a 32-bit float");
        }
        *element = static_cast<T>(value);
    } else if constexpr (std::is_integral_v<T>) {
        *element = static_cast<T>(value);
    } else {
        static_assert(std::is_arithmetic_v<T>, "opgen cpu model: element type not modelled");
    }
}

template <typename T>
void Store(T* element, double value)
{
    StoreRounded(element, value, Rounding::NEAREST_EVEN);
}
} // namespace opgen_cpu

#endif // OPGEN_CPU_MODEL_NUMBERS_H
