// Scoring functions: the score of query q against key k, for every pair of rows of Q and K. Their
// names, formulas and the matrices each needs are listed once, in attnscope/registry.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/tensor.hpp"
#include "attnscope/variant.hpp"

namespace attnscope {

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

// S (Q.rows x K.rows) = score of every query row against every key row. Q and K must share their
// column count except for general, additive and location, whose matrices map between them.
// Conventions: cosine with a zero vector scores 0; the Euclidean family clamps the squared distance
// computed through ||q||² + ||k||² − 2 q·k at 0.
Status compute_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& params, Matrix S,
                      Variant variant = Variant::automatic);

}  // namespace attnscope
