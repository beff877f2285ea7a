// opgen: first on the include path of upstream's kernels only (the oracle's builds, run_build.py). atvoss's
// MAKE_CONST declares `static constexpr T value`, which needs T's constructor to be constexpr: the NPU compiler's
// half and bfloat16 are builtins, but asc-tools' CPU-debug ones are classes without a constexpr constructor, so an
// upstream DAG with a 16-bit constant does not build on the CPU. After atvoss's own header, the macro is redefined
// with the same two members, `value` an inline const of the same type, read at run time as before. A 16-bit class
// is made from the constant through float (the model defines its float conversion, not the double one): exact for
// every constant with a float's precision, as upstream's 16-bit ones (0.0, 1.0) are.
#ifndef OPGEN_UPSTREAM_PLACEHOLDER_H
#define OPGEN_UPSTREAM_PLACEHOLDER_H
#include_next "atvoss/util/placeholder.h"
#include <type_traits>

template <class T, class V>
inline T OpgenConstValue(V v)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<T>(v);
    } else {
        return T(static_cast<float>(v));
    }
}

#undef MAKE_CONST
#define MAKE_CONST(t, v)                                                                                           \
    struct MAKE_UNIQ_NAME(ConcatValue_##t##_, __COUNTER__) {                                                       \
        constexpr static bool IsConstValue_ = true;                                                                \
        static inline const t value = OpgenConstValue<t>(v);                                                       \
    }
#endif
