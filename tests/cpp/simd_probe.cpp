// A tiny wasm program whose only purpose is to link every kernel with its name kept, so
// scripts/check-wasm-simd.mjs can disassemble it and prove the SIMD variants use f32x4 arithmetic.
#include <cstdio>

#include "kernels/kernels.hpp"

int main() {
    for (const auto* t : attnscope::kernels::all_variants()) std::printf("%s (%s)\n", t->name, t->isa);
    return 0;
}
