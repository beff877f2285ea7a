"""The op spec: models, loading with file:line errors, and cross-field rules."""
