// Declarations of the closed tikicpulib functions kern_fwk.h's ICPU_RUN_KF calls (defined in tikicpulib.cpp).
#pragma once

int get_process_num();
void set_block_dim(int idx);
void set_core_type(int idx);
