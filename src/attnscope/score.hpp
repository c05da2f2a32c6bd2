// Scoring functions: the score of query q against key k, for every pair of rows of Q and K.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attnscope/tensor.hpp"
#include "attnscope/variant.hpp"

namespace attnscope {

// The manifest of scoring functions: X(identifier, "js-name", "plain formula", "LaTeX formula", "source")
#define ATTNSCOPE_SCORES(X)                                                                                     \
    X(dot, "dot", "q·k", "q^\\top k", "Luong et al. 2015, dot")                                                  \
    X(scaled_dot, "scaled-dot", "q·k / √d", "\\frac{q^\\top k}{\\sqrt{d}}", "Vaswani et al. 2017")                 \
    X(cosine, "cosine", "q·k / (‖q‖ ‖k‖)", "\\frac{q^\\top k}{\\lVert q\\rVert\\,\\lVert k\\rVert}",                \
      "Graves et al. 2014, content-based")                                                                       \
    X(general, "general", "qᵀ W k", "q^\\top W k", "Luong et al. 2015, general (bilinear)")                       \
    X(additive, "additive", "vᵀ tanh(W₁q + W₂k)", "v^\\top \\tanh(W_1 q + W_2 k)", "Bahdanau et al. 2015 (concat)") \
    X(location, "location", "(W_a q)_j", "(W_a q)_j", "Luong et al. 2015, location-based")                        \
    X(neg_euclidean, "neg-euclidean", "−‖q − k‖", "-\\lVert q - k\\rVert", "distance as similarity")             \
    X(neg_sq_euclidean, "neg-sq-euclidean", "−‖q − k‖²", "-\\lVert q - k\\rVert^2",                               \
      "RBF-like; equals 2q·k − ‖q‖² − ‖k‖²")                                                                      \
    X(idw, "idw", "−log(ε + ‖q − k‖^p)", "-\\log\\left(\\varepsilon + \\lVert q - k\\rVert^p\\right)",             \
      "McCarter 2023 (neglog-dist): inverse distance weighting")

#define ATTNSCOPE_SCORE_ENUM(id, name, formula, latex, source) id,
enum class Score { ATTNSCOPE_SCORES(ATTNSCOPE_SCORE_ENUM) };
#undef ATTNSCOPE_SCORE_ENUM

struct ScoreInfo {
    Score id;
    const char* name;     // the name JS uses, e.g. "scaled-dot"
    const char* formula;  // plain-text formula
    const char* latex;    // the same formula in LaTeX
    const char* source;   // where it comes from
};
const std::vector<ScoreInfo>& score_infos();
const ScoreInfo& score_info(Score s);
bool parse_score(const std::string& name, Score& out);

// Parameters of the scores that have them. Matrices are row-major.
struct ScoreParams {
    // general: W is d_q x d_k; score = qᵀ W k.
    const float* W = nullptr;
    // additive: W1 is hidden x d_q, W2 is hidden x d_k, v has `hidden` entries.
    const float* W1 = nullptr;
    const float* W2 = nullptr;
    const float* v = nullptr;
    std::size_t hidden = 0;
    // location: Wa is max_keys x d_q; the score of key position j is (Wa q)_j, whatever the key holds.
    const float* Wa = nullptr;
    std::size_t max_keys = 0;
    // idw: -log(eps + ||q-k||^p); p > 0, eps >= 0 (eps = 0 gives +inf at an exact match, and softmax
    // then puts all the weight there: Shepard's interpolation property).
    float p = 2.0f;
    float eps = 1e-3f;
};

// True when the score needs matrices in ScoreParams.
bool score_has_weights(Score s);

// The checks compute_scores makes on Q, K and the parameters of `score` (shared with attention_output).
Status check_score_inputs(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& params);

// S (Q.rows x K.rows) = score of every query row against every key row. Q and K must share their
// column count except for general, additive and location, whose matrices map between them.
// Conventions: cosine with a zero vector scores 0; the Euclidean family clamps the squared distance
// computed through ||q||² + ||k||² − 2 q·k at 0.
Status compute_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& params, Matrix S,
                      Variant variant = Variant::automatic);

}  // namespace attnscope
