"""The kernel lowering: the recipe as kernels (DAG, classic), their tiling and UB budget, broadcast."""
