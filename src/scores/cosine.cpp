// cosine: q·k / (‖q‖ ‖k‖), 0 with a zero vector. The blocked Q Kᵀ kernel and the cosine epilogue
// (reciprocal norms), in compute_scores and in the fused kernel alike.
#include <cmath>
#include <vector>

#include "scores/score_def.hpp"

namespace attnscope::scores {

namespace {

// Rows outside the safe range are rescaled by a power of two first (cosine ignores a row's scale).
void rescale_if_needed(ConstMatrix& X, Tensor& copy) {
    if (!score_numerics::all_rows_in_safe_range(X)) {
        copy = score_numerics::rescaled_rows(X);
        X = copy.view();
    }
}

std::vector<float> reciprocal_norms(const kernels::KernelTable& kt, ConstMatrix X) {
    std::vector<float> n(X.rows);
    kt.row_sumsq(X.rows, X.cols, X.data, X.stride, n.data());
    reciprocal_sqrt(n.data(), n.size());
    return n;
}

void cosine_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, Matrix S) {
    Tensor qs, ks;
    rescale_if_needed(Q, qs);
    rescale_if_needed(K, ks);
    const std::vector<float> qn = reciprocal_norms(kt, Q), kn = reciprocal_norms(kt, K);
    kt.gemm_nt(Q.rows, K.rows, Q.cols, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f);
    kt.cosine_epilogue(Q.rows, K.rows, S.data, S.stride, qn.data(), kn.data());
}

// rows x cols rows of X scaled by s[i] into a new tensor.
Tensor scale_rows(ConstMatrix X, const std::vector<float>& s) {
    Tensor out(X.rows, X.cols);
    for (std::size_t i = 0; i < X.rows; ++i)
        for (std::size_t t = 0; t < X.cols; ++t) out(i, t) = X(i, t) * s[i];
    return out;
}

void cosine_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, ConstMatrix dS,
                     ScoreGrads& out) {
    // s = q̂·k̂ with q̂ = q/‖q‖: ∂s/∂q = (k̂ − s q̂)/‖q‖, and 0 for a zero q (whose q̂ and 1/‖q‖ are 0).
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    const std::vector<float> rq = reciprocal_norms(kt, Q), rk = reciprocal_norms(kt, K);
    const Tensor Qh = scale_rows(Q, rq), Kh = scale_rows(K, rk);
    Tensor Sc(nq, nk);
    kt.gemm_nt(nq, nk, d, Qh.values.data(), d, Kh.values.data(), d, Sc.values.data(), nk, 1.0f);
    std::vector<float> r(nq, 0.0f), c(nk, 0.0f);
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t j = 0; j < nk; ++j) {
            const float g = dS(i, j) * Sc(i, j);
            r[i] += g;
            c[j] += g;
        }
    kt.gemm_nn(nq, d, nk, dS.data, dS.stride, Kh.values.data(), d, out.dQ.values.data(), d);  // dS K̂
    kt.gemm_tn(nk, d, nq, dS.data, dS.stride, Qh.values.data(), d, out.dK.values.data(), d);  // dSᵀ Q̂
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t t = 0; t < d; ++t) out.dQ(i, t) = rq[i] * (out.dQ(i, t) - r[i] * Qh(i, t));
    for (std::size_t j = 0; j < nk; ++j)
        for (std::size_t t = 0; t < d; ++t) out.dK(j, t) = rk[j] * (out.dK(j, t) - c[j] * Kh(j, t));
}

Status cosine_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                     const AttentionOptions& o, float inv_tau, Matrix O) {
    Tensor qs, ks;
    rescale_if_needed(Q, qs);
    rescale_if_needed(K, ks);
    const std::vector<float> qa = reciprocal_norms(kt, Q), kb = reciprocal_norms(kt, K);
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = kernels::FusedScore::cosine;
    a.qa = qa.data();
    a.kb = kb.data();
    kt.attention_fused(a);
    return {};
}

// Rescaled copies (only when needed) and norms, then Q Kᵀ.
void cosine_cost(Budget& b, const CostShape& s) {
    b.floats(s.nq + s.nk, s.dq + 1);
    b.work(s.nq, s.nk, s.dq);
}

// q·k / (‖q‖ ‖k‖) in double; 0 when either is a zero vector (the float path's convention).
double cosine_exact(const float* q, std::size_t d, const float* k, std::size_t, std::size_t, const ScoreParams&) {
    double qk = 0, qq = 0, kk = 0;
    for (std::size_t t = 0; t < d; ++t) {
        qk += static_cast<double>(q[t]) * k[t];
        qq += static_cast<double>(q[t]) * q[t];
        kk += static_cast<double>(k[t]) * k[t];
    }
    return qq > 0 && kk > 0 ? qk / (std::sqrt(qq) * std::sqrt(kk)) : 0.0;
}
double cosine_bound(const float*, std::size_t, const KeyBounds&, const ScoreParams&) { return 1.0; }

}  // namespace

// The fused output: rescaled copies of out-of-range rows, a block of scores, Q Kᵀ.
constexpr ScoreDef score_def_cosine = score_functions(cosine_forward, cosine_backward, cosine_output, cosine_exact,
                                                      cosine_bound, cosine_cost, fused_output_cost, qk_flops);

}  // namespace attnscope::scores
