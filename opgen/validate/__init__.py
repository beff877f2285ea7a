"""`opgen validate`: build and test a generated op with ops-nn's own build.sh on a CANN machine."""
