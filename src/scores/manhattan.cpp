// neg-manhattan: −Σ|q_t − k_t|. No dot-product identity for the L1 distance: its own kernels over the
// rows (neg_manhattan, manhattan_backward), and its own tile in the fused kernel (FusedScore::manhattan).
#include <cmath>

#include "scores/score_def.hpp"

namespace attnscope::scores {

namespace {

void manhattan_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, Matrix S) {
    kt.neg_manhattan(Q.rows, K.rows, Q.cols, Q.data, Q.stride, K.data, K.stride, S.data, S.stride);
}

void manhattan_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, ConstMatrix dS,
                        ScoreGrads& out) {
    // sign(q_t − k_t) per coordinate (0 where equal), one kernel over the pairs.
    const std::size_t d = Q.cols;
    kt.manhattan_backward(Q.rows, K.rows, d, Q.data, Q.stride, K.data, K.stride, dS.data, dS.stride,
                          out.dQ.values.data(), d, out.dK.values.data(), d);
}

// The fused kernel computes the L1 distances itself: no epilogue, no norms.
Status manhattan_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o,
                        float inv_tau, Matrix O) {
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = kernels::FusedScore::manhattan;
    kt.attention_fused(a);
    return {};
}

// One subtract-abs-add per query, key and dimension.
void manhattan_cost(Budget& b, const CostShape& s) { b.work(s.nq, s.nk, s.dq); }
// The fused output: the packed keys and a tile of scores (counted as a block of 64 rows), and the
// kernel's work.
void manhattan_output_cost(Budget& b, const CostShape& s) {
    b.floats(s.nq + s.nk, s.dq);
    b.floats(64, s.nk);
    b.work(s.nq, s.nk, s.dq);
}
// Subtract, abs, add: 3 flops per query, key and dimension.
double manhattan_flops(const CostShape& s) {
    return 3.0 * static_cast<double>(s.nq) * static_cast<double>(s.nk) * static_cast<double>(s.dq);
}

double manhattan_exact(const float* q, std::size_t d, const float* k, std::size_t, std::size_t, const ScoreParams&) {
    double s = 0;
    for (std::size_t t = 0; t < d; ++t) s += std::fabs(static_cast<double>(q[t]) - k[t]);
    return -s;
}
// ‖q − k‖₁ <= ‖q‖₁ + ‖k‖₁.
double manhattan_bound(const float* q, std::size_t d, const KeyBounds& kb, const ScoreParams&) { return l1(q, d) + kb.max_l1; }

}  // namespace

constexpr ScoreDef score_def_neg_manhattan = [] {
    ScoreDef d{};
    d.distance_like = true;
    d.forward = manhattan_forward;
    d.exact = manhattan_exact;
    d.bound = manhattan_bound;
    d.backward = manhattan_backward;
    d.output = manhattan_output;
    d.cost = manhattan_cost;
    d.output_cost = manhattan_output_cost;
    d.flops = manhattan_flops;
    return d;
}();

}  // namespace attnscope::scores
