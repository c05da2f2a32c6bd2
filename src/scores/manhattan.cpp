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

// One subtract-abs-add per query, key and dimension.
void manhattan_cost(Budget& b, const CostShape& s) { b.work(s.nq, s.nk, s.dq); }
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

// The fused output's cost: the packed keys and a tile of scores (counted as a block of 64 rows), and
// the kernel's work.
constexpr ScoreDef score_def_neg_manhattan = [] {
    ScoreDef d = score_functions(manhattan_forward, manhattan_backward, fused_output<kernels::FusedScore::manhattan>,
                                 manhattan_exact, manhattan_bound, manhattan_cost, fused_output_cost, manhattan_flops);
    d.distance_like = true;
    return d;
}();

}  // namespace attnscope::scores
