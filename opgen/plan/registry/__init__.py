"""The registrations: what the spec registers (tensors, attrs, SoCs, formats, platforms, dtype columns)."""
