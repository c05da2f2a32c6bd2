#include "attnscope/variant.hpp"

#include "kernels/kernels.hpp"

namespace attnscope {

const kernels::KernelTable& kernels_for(Variant v) {
    switch (v) {
        case Variant::scalar: return kernels::table_scalar;
        case Variant::simd:
        case Variant::automatic: break;
    }
#ifdef ATTNSCOPE_NO_SIMD
    return kernels::table_scalar;
#else
    return kernels::table_simd;
#endif
}

const char* resolved_variant_name(Variant v) { return kernels_for(v).name; }

const char* simd_isa() {
#ifdef ATTNSCOPE_NO_SIMD
    return "none";
#else
    return kernels::table_simd.isa;
#endif
}

std::vector<std::string> variant_names() {
    std::vector<std::string> names;
    for (const auto* t : kernels::all_variants()) names.emplace_back(t->name);
    return names;
}

namespace kernels {
const std::vector<const KernelTable*>& all_variants() {
#define ATTNSCOPE_TABLE_PTR(variant, label) &table_##variant,
    static const std::vector<const KernelTable*> tables = {ATTNSCOPE_KERNEL_VARIANTS(ATTNSCOPE_TABLE_PTR)};
#undef ATTNSCOPE_TABLE_PTR
    return tables;
}
}  // namespace kernels

}  // namespace attnscope
