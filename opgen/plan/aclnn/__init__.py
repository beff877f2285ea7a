"""The aclnn API: the wrapper, its l0 op, its UT and the example that calls it."""
