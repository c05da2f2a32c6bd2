// The one registry of names: every scoring function (with its formulas, source, description and the
// matrices it needs), every kernel variant, mask, projection kind and token kind. The enums of the
// core are generated from these lists, the bindings hand them to JS (registry_json), and the JS layer,
// the page and the TypeScript unions take their names from there: nothing else lists them by hand.
//
// Adding a scoring function = its kernels (src/kernels/, manifest.hpp), one row of ATTNSCOPE_SCORES,
// its definition score_def_<id> (src/scores/), and its tests: docs/architecture.md, "Adding a scoring function".
#pragma once

#include <string>
#include <vector>

#include "kernels/manifest.hpp"

namespace attnscope {

// X(identifier, "js-name", "plain formula", "LaTeX formula", "source", "description", "matrices")
// matrices: the ScoreParams matrices the score needs, space-separated ("" = none); those scores may
// map keys of another width than the queries, and get seeded random matrices in attend().
#define ATTNSCOPE_SCORES(X)                                                                                       \
    X(dot, "dot", "q·k", "q^\\top k", "Luong et al. 2015, dot",                                                    \
      "Raw dot product: grows with the lengths of both vectors, so long keys win.", "")                           \
    X(scaled_dot, "scaled-dot", "q·k / √d", "\\frac{q^\\top k}{\\sqrt{d}}", "Vaswani et al. 2017",                   \
      "Dot product divided by √d, keeping scores near unit variance so softmax does not saturate as d grows.",   \
      "")                                                                                                          \
    X(cosine, "cosine", "q·k / (‖q‖ ‖k‖)", "\\frac{q^\\top k}{\\lVert q\\rVert\\,\\lVert k\\rVert}",                  \
      "Graves et al. 2014, content-based",                                                                         \
      "Angle only: the dot product of unit vectors, blind to vector length; scores lie in [−1, 1].", "")         \
    X(general, "general", "qᵀ W k", "q^\\top W k", "Luong et al. 2015, general (bilinear)",                         \
      "A learned bilinear form qᵀWk: W decides which query directions match which key directions.", "W")         \
    X(additive, "additive", "vᵀ tanh(W₁q + W₂k)", "v^\\top \\tanh(W_1 q + W_2 k)", "Bahdanau et al. 2015 (concat)",   \
      "A one-hidden-layer network on q and k (Bahdanau): v · tanh(W₁q + W₂k).", "W1 W2 v")                        \
    X(location, "location", "(W_a q)_j", "(W_a q)_j", "Luong et al. 2015, location-based",                          \
      "Scores depend only on the query and the key position, never on the key content.", "Wa")                   \
    X(neg_euclidean, "neg-euclidean", "−‖q − k‖", "-\\lVert q - k\\rVert", "distance as similarity",               \
      "Closer keys score higher: minus the straight-line distance between q and k.", "")                         \
    X(neg_sq_euclidean, "neg-sq-euclidean", "−‖q − k‖²", "-\\lVert q - k\\rVert^2",                                 \
      "RBF-like; equals 2q·k − ‖q‖² − ‖k‖²",                                                                      \
      "Minus the squared distance: an RBF kernel after softmax; equals 2q·k − ‖q‖² − ‖k‖².", "")                  \
    X(idw, "idw", "−log(ε + ‖q − k‖^p)", "-\\log\\left(\\varepsilon + \\lVert q - k\\rVert^p\\right)",               \
      "McCarter 2023 (neglog-dist): inverse distance weighting",                                                   \
      "Softmax of −log(ε + distance^p) gives weights ∝ 1/(ε + ‖q−k‖^p): inverse distance weighting.", "")  \
    X(neg_manhattan, "neg-manhattan", "−‖q − k‖₁", "-\\lVert q - k\\rVert_1",                                     \
      "L1 (city-block) distance; a Laplacian kernel after softmax",                                              \
      "Minus the city-block distance Σ|qᵢ − kᵢ|: softmax then gives weights ∝ exp(−‖q−k‖₁/τ), a Laplacian kernel.", "")

// X(identifier, "js-name", "description")
#define ATTNSCOPE_MASKS(X)                                   \
    X(none, "none", "every query sees every key")            \
    X(causal, "causal", "query i sees keys j <= i (decoder self-attention)")

// X(identifier, "js-name", "description")
#define ATTNSCOPE_PROJECTIONS(X)                                                                            \
    X(identity, "identity", "raw embeddings; heads split the dimensions")                                   \
    X(random, "random", "seeded Xavier W_q, W_k, W_v (d x heads*d_head) and W_o (heads*d_head x d)")        \
    X(user, "user", "the caller's matrices W_q, W_k, W_v (and W_o)")

// X(identifier, "js-name")
#define ATTNSCOPE_TOKEN_KINDS(X) \
    X(word, "word")              \
    X(number, "number")          \
    X(punctuation, "punctuation") \
    X(symbol, "symbol")          \
    X(cjk, "cjk")

#define ATTNSCOPE_REGISTRY_ENUM_ROW(id, ...) id,
enum class Score { ATTNSCOPE_SCORES(ATTNSCOPE_REGISTRY_ENUM_ROW) };
enum class Mask { ATTNSCOPE_MASKS(ATTNSCOPE_REGISTRY_ENUM_ROW) };
enum class Projection { ATTNSCOPE_PROJECTIONS(ATTNSCOPE_REGISTRY_ENUM_ROW) };
enum class TokenKind { ATTNSCOPE_TOKEN_KINDS(ATTNSCOPE_REGISTRY_ENUM_ROW) };
// Which kernels run: `automatic` (JS 'auto') picks SIMD where it was built; then one value per
// kernel variant of the manifest (src/kernels/manifest.hpp), named as there.
enum class Variant { automatic, ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_REGISTRY_ENUM_ROW) };
#undef ATTNSCOPE_REGISTRY_ENUM_ROW

struct ScoreInfo {
    Score id;
    const char* name;         // the name JS uses, e.g. "scaled-dot"
    const char* formula;      // plain-text formula
    const char* latex;        // the same formula in LaTeX
    const char* source;       // where it comes from
    const char* description;  // one sentence: what the score measures
    const char* matrices;     // the ScoreParams matrices it needs, space-separated ("" = none)
};
const std::vector<ScoreInfo>& score_infos();
const ScoreInfo& score_info(Score s);
// True when the score needs matrices in ScoreParams (and may map keys of another width).
bool score_has_weights(Score s);

// Name lookups, all from the lists above. parse_* leave `out` untouched and return false for an
// unknown name (names are case-sensitive, exactly as listed).
bool parse_score(const std::string& name, Score& out);
bool parse_mask(const std::string& name, Mask& out);
bool parse_projection(const std::string& name, Projection& out);
bool parse_variant(const std::string& name, Variant& out);  // "auto" | a manifest variant
const char* mask_name(Mask m);
const char* projection_name(Projection p);
const char* token_kind_name(TokenKind k);
const char* variant_name(Variant v);  // "auto", "scalar", "simd"

// The whole registry as JSON, for the bindings:
// {"scores":[{"name","formula","latex","source","description","matrices":[..],"needsWeights"}],
//  "variants":[{"name","compiled"}], "masks":[{"name","description"}], "projections":[...],
//  "tokenKinds":[...]}. `compiled` says whether this build has the variant's kernels.
std::string registry_json();

}  // namespace attnscope
