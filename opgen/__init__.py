"""opgen: one op spec in, a complete and consistent CANN ops-nn operator tree out."""

__version__ = "0.1.0"
