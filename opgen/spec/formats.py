"""The tensor formats a def column may register: the ge::Format enumerators of metadef's graph/types.h."""

from __future__ import annotations

# ge::Format names without their FORMAT_ prefix; the enum's markers (RESERVED, END, MAX) and the wildcards
# (ALL, NULL) are no format a kernel is registered for, so they are left out.
GE_FORMATS = frozenset({
    "BN_WEIGHT", "C1HWC0", "C1HWNC0", "C1HWNCoC0", "CHWN", "CN", "DHWCN", "DHWNC", "FILTER_HWCK", "FRACTAL_DECONV",
    "FRACTAL_DECONV_SP_STRIDE8_TRANS", "FRACTAL_DECONV_SP_STRIDE_TRANS", "FRACTAL_DECONV_TRANSPOSE", "FRACTAL_NZ",
    "FRACTAL_NZ_C0_16", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8", "FRACTAL_Z",
    "FRACTAL_ZN_LSTM", "FRACTAL_ZN_RNN", "FRACTAL_ZZ", "FRACTAL_Z_3D", "FRACTAL_Z_3D_TRANSPOSE", "FRACTAL_Z_C04",
    "FRACTAL_Z_G", "FRACTAL_Z_WINO", "FSR_NCHW", "HASHTABLE_LOOKUP_HITS", "HASHTABLE_LOOKUP_KEYS",
    "HASHTABLE_LOOKUP_LOOKUPS", "HASHTABLE_LOOKUP_OUTPUT", "HASHTABLE_LOOKUP_VALUE", "HWCN", "MD", "NC",
    "NC1C0HWPAD", "NC1HWC0", "NC1HWC0_C04", "NC1KHKWHWC0", "NCDHW", "NCHW", "NCL", "ND", "NDC1HWC0", "NDHWC",
    "ND_RNN_BIAS", "NHWC", "NHWC1C0", "NYUV", "NYUV_A",
})
_BY_UPPER = {f.upper(): f for f in GE_FORMATS}
COMMON = ("ND", "NCHW", "NHWC", "NC1HWC0", "NCDHW", "NDHWC", "NDC1HWC0", "FRACTAL_Z", "FRACTAL_NZ")


def canonical_format(name: str) -> str:
    """A format as the spec spells it (NCHW, or FORMAT_NCHW as in C++), or ValueError naming common ones."""
    if not isinstance(name, str):
        raise ValueError(f"a format is a string like NCHW, got {name!r}")
    key = _BY_UPPER.get(name.upper().removeprefix("FORMAT_"), "")
    if not key:
        raise ValueError(f"unknown format {name!r}; use a ge::Format name of metadef graph/types.h without "
                         f"FORMAT_, e.g. {', '.join(COMMON)}")
    return key
