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

// The checks compute_scores makes on Q, K and the parameters of `score` (shared with attention_output).
Status check_score_inputs(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& params);

// S (Q.rows x K.rows) = score of every query row against every key row. Q and K must share their
// column count except for general, additive and location, whose matrices map between them.
// Conventions: cosine with a zero vector scores 0; the Euclidean family computes the squared
// distance through ||q||² + ||k||² − 2 q·k (clamped at 0), and directly in double where that identity
// cancels (d2 <= (||q||² + ||k||²)/4) or where a row's largest |component| is outside [2^-40, 2^40].
// Finite input gives finite scores: cosine rescales such rows by a power of two; idw is computed as
// a log-sum; a distance score beyond float's range saturates at -FLT_MAX (never -inf = masked).
Status compute_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& params, Matrix S,
                      Variant variant = Variant::automatic);

// The pieces of those conventions that the fused output path (attention_output) shares, so that its
// output equals softmax(compute_scores(...)) V on the same input.
namespace score_numerics {
// The safe range of a row's largest |component|: [2^-40, 2^40] (or 0). Inside it every square, squared
// norm (d < 2^40) and product of two such rows is finite and normal-range (score.cpp). The bindings
// hand these to JS (_safeRowRange), which the pool reads to tell which calls it may split by rows.
constexpr float kSafeRowMax = 1099511627776.0f;         // 2^40
constexpr float kSafeRowMin = 1.0f / 1099511627776.0f;  // 2^-40
// Every row's largest |component| is 0 or in [2^-40, 2^40] (NaN and infinity count as in range).
bool all_rows_in_safe_range(ConstMatrix X);
// A copy of X whose out-of-range rows are scaled by a power of two into [0.5, 1) (for cosine).
Tensor rescaled_rows(ConstMatrix X);
// Below this fraction of ||q||² + ||k||², the identity's distance is replaced by the direct one.
constexpr float kCancelFraction = 0.25f;
}  // namespace score_numerics

}  // namespace attnscope
