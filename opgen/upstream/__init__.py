"""One parser of what an ops-nn op dir registers and exports (proto, def, infershape/tiling registrations, CMake,
aclnn headers, docs' product table, file set), for upstream dirs and opgen's generated trees alike."""

from .models import OpFacts
from .opdir import parse_op_dir

__all__ = ["OpFacts", "parse_op_dir"]
