// Embind glue of what every other call names: the registry's lists as enums and the ScoreParams value
// object (the other files' calls take them; Embind resolves a type registered in another file when
// the module starts), and the module's information (registry, SIMD, variants, memory in use).
//
// The Embind glue, file by file (docs/architecture.md, item 2): low-level names (prefixed `_`) over
// the C++ core, called only by the JS layer in bindings/scope*.mjs, which validates arguments, owns the
// memory of the inputs (_malloc/_free) and hands copies to its callers. Matrices cross the boundary as
// addresses into the wasm heap; names (scores, variants, masks, projections) cross as the Embind enums
// bound here, generated from the registry's lists (attnscope/registry.hpp): module.Score['scaled-dot']
// and so on, one int on the wire. Every call reports failure as an error message (empty string =
// success), never by throwing: the core never throws, so a bad input can never abort the instance.
// There is no global mutable state: each state (a scope's vocabulary, a trainer, a model) is an
// Embind class that one JS object owns.
//   embind-registry.cpp     this file
//   embind-attention.cpp    the calls on your own vectors: scores, softmax, attention, backward, costs
//   embind-scope.cpp        ScopeState (a scope's vocabulary): tokenize, embed, nearest, attend
//   embind-imported.cpp     imported attentions, rollout, attention flow, head summaries
//   embind-trainer.cpp      the lab's head trainer
//   embind-model.cpp        the trained model (USE-Lite)
//   embind-transformer.cpp  the transformers built from a config and their trainer
//   embind-shared.hpp, embind-surgery.hpp   the helpers they share
#include <emscripten/bind.h>

#include <malloc.h>

#include <string>

#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "attnscope/variant.hpp"
#include "embind-shared.hpp"

using namespace attnscope;
using attnscope::glue::get_address;
using attnscope::glue::set_address;

namespace {

std::string registry_json_() { return registry_json(); }
std::string simd_isa_name() { return simd_isa(); }
std::string resolved_variant(Variant v) { return resolved_variant_name(v); }
int memory_in_use() { return static_cast<int>(mallinfo().uordblks); }
// The range a row's largest |component| must lie in for the scores' fast paths (score.hpp): { min, max }.
emscripten::val safe_row_range() {
    emscripten::val r = emscripten::val::object();
    r.set("min", score_numerics::kSafeRowMin);
    r.set("max", score_numerics::kSafeRowMax);
    return r;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope_registry) {
    using namespace emscripten;
    {
        using Self = ScoreParams;
        value_object<Self>("ScoreParams")
            ATTNSCOPE_JS_ADDRESSES(W, W1, W2, v)
            ATTNSCOPE_JS_FIELDS(hidden)
            ATTNSCOPE_JS_ADDRESSES(Wa)
            ATTNSCOPE_JS_FIELDS(max_keys, p, eps);
    }
    // The registry's lists as enums: JS passes module.Score[name] etc. (names from registry_json()).
#define ATTNSCOPE_ENUM_VALUE(id, name, ...) .value(name, Enum::id)
    {
        using Enum = Score;
        enum_<Score>("Score") ATTNSCOPE_SCORES(ATTNSCOPE_ENUM_VALUE);
    }
    {
        using Enum = Mask;
        enum_<Mask>("Mask") ATTNSCOPE_MASKS(ATTNSCOPE_ENUM_VALUE);
    }
    {
        using Enum = Projection;
        enum_<Projection>("Projection") ATTNSCOPE_PROJECTIONS(ATTNSCOPE_ENUM_VALUE);
    }
    {
        using Enum = Variant;
        enum_<Variant>("Variant").value("auto", Variant::automatic) ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_ENUM_VALUE);
    }
#undef ATTNSCOPE_ENUM_VALUE

    function("_registryJson", &registry_json_);
    function("_simdIsa", &simd_isa_name);
    function("_safeRowRange", &safe_row_range);
    function("_resolvedVariant", &resolved_variant);
    function("_memoryInUse", &memory_in_use);
}
