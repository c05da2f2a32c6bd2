// The one dispatch point: which kernel variant runs. `automatic` picks SIMD where it was built.
#pragma once

#include <string>
#include <vector>

#include "attnscope/registry.hpp"

namespace attnscope {

namespace kernels { struct KernelTable; }

// The kernel table a call with this variant uses (automatic resolves to simd).
const kernels::KernelTable& kernels_for(Variant v);
// "scalar" or "simd" — the variant that really runs for v.
const char* resolved_variant_name(Variant v);
// The instruction set the SIMD variant was compiled for, e.g. "sse2" natively, "sse4.1" in wasm
// (lowered to wasm simd128).
const char* simd_isa();
// Names of every compiled variant, in manifest order.
std::vector<std::string> variant_names();

}  // namespace attnscope
