// Building blocks the score definitions share: the fused kernel's common arguments and the blocked
// output loop (score_def.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "scores/score_def.hpp"

namespace attnscope::scores {

kernels::FusedAttentionArgs fused_args(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o,
                                       float inv_tau, Matrix O) {
    kernels::FusedAttentionArgs a;
    a.nq = Q.rows;
    a.nk = K.rows;
    a.d = Q.cols;
    a.dv = V.cols;
    a.Q = Q.data;
    a.ldq = Q.stride;
    a.K = K.data;
    a.ldk = K.stride;
    a.V = V.data;
    a.ldv = V.stride;
    a.O = O.data;
    a.ldo = O.stride;
    a.inv_tau = inv_tau;
    a.causal = o.mask == Mask::causal;
    a.query_offset = o.query_offset;
    a.key_padding = o.key_padding;
    a.p = o.params.p;
    a.eps = o.params.eps;
    return a;
}

Status blocked_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                      const AttentionOptions& o, float inv_tau, Matrix O) {
    constexpr std::size_t kRows = 64;
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const std::size_t nq = Q.rows, nk = K.rows;
    Tensor s(std::min(nq, kRows), nk);
    for (std::size_t i0 = 0; i0 < nq; i0 += kRows) {
        const std::size_t rows = std::min(kRows, nq - i0);
        Matrix block(s.values.data(), rows, nk);
        if (Status st = compute_scores(o.score, ConstMatrix(Q.row(i0), rows, Q.cols, Q.stride), K, o.params, block, o.variant);
            !st)
            return st;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t j = 0; j < nk; ++j)
                if (hidden_key(o, i0 + r, j)) block(r, j) = neg_inf;
        kt.softmax_rows(rows, nk, block.data, nk, inv_tau, block.data, nk);
        kt.gemm_nn(rows, V.cols, nk, block.data, nk, V.data, V.stride, O.row(i0), O.stride);
    }
    return {};
}

void reciprocal_sqrt(float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? 1.0f / std::sqrt(x[i]) : 0.0f;
}

}  // namespace attnscope::scores
