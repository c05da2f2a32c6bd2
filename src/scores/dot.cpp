// The dot-product family: dot, scaled-dot, general (qᵀ W k = (Q W) Kᵀ) and location ((Wa q)_j, the
// rows of Wa playing the keys). Every one is the blocked Q Kᵀ kernel after an optional projection, and
// the fused kernel's `dot` epilogue (a scale alpha).
#include <cmath>
#include <string>
#include <vector>

#include "scores/score_def.hpp"

namespace attnscope::scores {

namespace {

float inverse_sqrt_d(std::size_t d) { return d > 0 ? 1.0f / std::sqrt(static_cast<float>(d)) : 1.0f; }

// S = alpha Q Kᵀ: one multiply-add per query, key and dimension.
void dot_cost(Budget& b, const CostShape& s) { b.work(s.nq, s.nk, s.dq); }

// dQ = alpha dS K, dK = alpha dSᵀ Q.
void dot_backward_scaled(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix dS, ScoreGrads& out,
                         float alpha) {
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    kt.gemm_nn(nq, d, nk, dS.data, dS.stride, K.data, K.stride, out.dQ.values.data(), d);  // dQ = dS K
    kt.gemm_tn(nk, d, nq, dS.data, dS.stride, Q.data, Q.stride, out.dK.values.data(), d);  // dK = dSᵀ Q
    if (alpha != 1.0f) {
        for (auto& x : out.dQ.values) x *= alpha;
        for (auto& x : out.dK.values) x *= alpha;
    }
}

// --- dot: q·k ------------------------------------------------------------------------------------
void dot_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, Matrix S) {
    kt.gemm_nt(Q.rows, K.rows, Q.cols, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f);
}
void dot_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, ConstMatrix dS,
                  ScoreGrads& out) {
    dot_backward_scaled(kt, Q, K, dS, out, 1.0f);
}

// --- scaled-dot: q·k / √d ------------------------------------------------------------------------
void scaled_dot_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&, Matrix S) {
    kt.gemm_nt(Q.rows, K.rows, Q.cols, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, inverse_sqrt_d(Q.cols));
}
void scaled_dot_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams&,
                         ConstMatrix dS, ScoreGrads& out) {
    dot_backward_scaled(kt, Q, K, dS, out, inverse_sqrt_d(Q.cols));
}
Status scaled_dot_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                         const AttentionOptions& o, float inv_tau, Matrix O) {
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = kernels::FusedScore::dot;
    a.alpha = inverse_sqrt_d(Q.cols);
    kt.attention_fused(a);
    return {};
}

// --- general: qᵀ W k, W is d_q x d_k --------------------------------------------------------------
Status general_check(ConstMatrix Q, ConstMatrix K, const ScoreParams& p) {
    if (!p.W)
        return Status::error("W: score 'general' needs W, a d_q x d_k matrix (" + std::to_string(Q.cols) + "x" +
                             std::to_string(K.cols) + ")");
    return {};
}
void general_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S) {
    // qᵀ W k = (Q W) Kᵀ: one projection of the queries, then the dot-product kernel.
    const std::size_t nq = Q.rows, dk = K.cols;
    std::vector<float> qw(nq * dk);
    kt.gemm_nn(nq, dk, Q.cols, Q.data, Q.stride, p.W, dk, qw.data(), dk);
    kt.gemm_nt(nq, K.rows, dk, qw.data(), dk, K.data, K.stride, S.data, S.stride, 1.0f);
}
void general_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p,
                      ConstMatrix dS, ScoreGrads& out) {
    // S = P Kᵀ with P = Q W: dP = dS K, dK = dSᵀ P, dQ = dP Wᵀ, dW = Qᵀ dP.
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols, dk = K.cols;
    std::vector<float> P(nq * dk), dP(nq * dk);
    kt.gemm_nn(nq, dk, d, Q.data, Q.stride, p.W, dk, P.data(), dk);
    kt.gemm_nn(nq, dk, nk, dS.data, dS.stride, K.data, K.stride, dP.data(), dk);
    kt.gemm_tn(nk, dk, nq, dS.data, dS.stride, P.data(), dk, out.dK.values.data(), dk);
    kt.gemm_nt(nq, d, dk, dP.data(), dk, p.W, dk, out.dQ.values.data(), d, 1.0f);
    kt.gemm_tn(d, dk, nq, Q.data, Q.stride, dP.data(), dk, out.dW.values.data(), dk);
}
void general_param_grads(ConstMatrix Q, ConstMatrix K, const ScoreParams&, ScoreGrads& out) {
    out.dW = Tensor(Q.cols, K.cols);
}
Status general_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                      const AttentionOptions& o, float inv_tau, Matrix O) {
    // qᵀ W k = (Q W) Kᵀ: the projected queries through the dot epilogue.
    const std::size_t nq = Q.rows, d = Q.cols, dk = K.cols;
    std::vector<float> qw(nq * dk);
    kt.gemm_nn(nq, dk, d, Q.data, Q.stride, o.params.W, dk, qw.data(), dk);
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = kernels::FusedScore::dot;
    a.Q = qw.data();
    a.ldq = a.d = dk;
    kt.attention_fused(a);
    return {};
}
// Q W (nq x dk floats, nq dk dq multiply-adds), then (Q W) Kᵀ.
void general_cost(Budget& b, const CostShape& s) {
    b.floats(s.nq, s.dk);
    b.work(s.nq, s.dk, s.dq);
    b.work(s.nq, s.nk, s.dk);
}
double general_flops(const CostShape& s) {
    return 2.0 * static_cast<double>(s.nq) * static_cast<double>(s.nk) * static_cast<double>(s.dk) +
           2.0 * static_cast<double>(s.nq) * static_cast<double>(s.dq) * static_cast<double>(s.dk);
}
std::uint64_t general_head_floats(const ScoreParams&, std::uint64_t dh, std::uint64_t) { return Budget::mul(dh, dh); }
void general_head_params(ScoreParams& sp, const ScoreParams& given, std::size_t dh, std::size_t, MatrixSource& source) {
    sp.W = source.matrix(given.W, dh, dh, MatrixKind::W_general);
}

// --- location: (Wa q)_j, Wa is max_keys x d_q ------------------------------------------------------
Status location_check(ConstMatrix, ConstMatrix K, const ScoreParams& p) {
    if (!p.Wa) return Status::error("Wa: score 'location' needs Wa, a max_keys x d_q matrix");
    if (p.max_keys < K.rows)
        return Status::error("Wa: score 'location' has rows for " + std::to_string(p.max_keys) +
                             " key positions but there are " + std::to_string(K.rows) + " keys");
    return {};
}
void location_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S) {
    // (Wa q)_j for j < nk: the first nk rows of Wa play the part of the keys.
    kt.gemm_nt(Q.rows, K.rows, Q.cols, Q.data, Q.stride, p.Wa, Q.cols, S.data, S.stride, 1.0f);
}
void location_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p,
                       ConstMatrix dS, ScoreGrads& out) {
    // S = Q Waᵀ over the first nk rows of Wa: dQ = dS Wa[:nk], dWa[:nk] = dSᵀ Q; dK = 0.
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    kt.gemm_nn(nq, d, nk, dS.data, dS.stride, p.Wa, d, out.dQ.values.data(), d);
    kt.gemm_tn(nk, d, nq, dS.data, dS.stride, Q.data, Q.stride, out.dWa.values.data(), d);
}
void location_param_grads(ConstMatrix Q, ConstMatrix, const ScoreParams& p, ScoreGrads& out) {
    out.dWa = Tensor(p.max_keys, Q.cols);
}
Status location_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                       const AttentionOptions& o, float inv_tau, Matrix O) {
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = kernels::FusedScore::dot;
    a.K = o.params.Wa;  // row j of Wa plays key j
    a.ldk = Q.cols;
    kt.attention_fused(a);
    return {};
}
std::uint64_t location_head_floats(const ScoreParams& given, std::uint64_t dh, std::uint64_t nk) {
    return Budget::mul(given.Wa ? given.max_keys : nk, dh);
}
void location_head_params(ScoreParams& sp, const ScoreParams& given, std::size_t dh, std::size_t nk,
                          MatrixSource& source) {
    sp.max_keys = given.Wa ? given.max_keys : nk;
    sp.Wa = source.matrix(given.Wa, sp.max_keys, dh, MatrixKind::Wa_location);
}

double dot_exact(const float* q, std::size_t d, const float* k, std::size_t, std::size_t, const ScoreParams&) {
    double s = 0;
    for (std::size_t t = 0; t < d; ++t) s += static_cast<double>(q[t]) * k[t];
    return s;
}
double scaled_dot_exact(const float* q, std::size_t d, const float* k, std::size_t dk, std::size_t j, const ScoreParams& p) {
    return dot_exact(q, d, k, dk, j, p) * static_cast<double>(inverse_sqrt_d(d));
}
double general_exact(const float* q, std::size_t dq, const float* k, std::size_t dk, std::size_t, const ScoreParams& p) {
    double s = 0;
    for (std::size_t a = 0; a < dq; ++a) {
        double wk = 0;
        for (std::size_t b = 0; b < dk; ++b) wk += static_cast<double>(p.W[a * dk + b]) * k[b];
        s += static_cast<double>(q[a]) * wk;
    }
    return s;
}
double location_exact(const float* q, std::size_t d, const float*, std::size_t, std::size_t j, const ScoreParams& p) {
    return dot_exact(q, d, p.Wa + j * d, d, j, p);
}
// |q·k| <= ‖q‖ ‖k‖ (Cauchy-Schwarz); general: |qᵀ W k| <= ‖q‖ ‖W‖_F ‖k‖.
double dot_bound(const float* q, std::size_t d, const KeyBounds& kb, const ScoreParams&) { return l2(q, d) * kb.max_l2; }
double scaled_dot_bound(const float* q, std::size_t d, const KeyBounds& kb, const ScoreParams& p) {
    return dot_bound(q, d, kb, p) * static_cast<double>(inverse_sqrt_d(d));
}
double general_bound(const float* q, std::size_t d, const KeyBounds& kb, const ScoreParams&) {
    return l2(q, d) * kb.w_frobenius * kb.max_l2;
}

}  // namespace

constexpr ScoreDef score_def_dot = score_functions(dot_forward, dot_backward, fused_output<kernels::FusedScore::dot>,
                                                   dot_exact, dot_bound, dot_cost, dot_cost, qk_flops);

constexpr ScoreDef score_def_scaled_dot =
    score_functions(scaled_dot_forward, scaled_dot_backward, scaled_dot_output, scaled_dot_exact, scaled_dot_bound,
                    dot_cost, dot_cost, qk_flops);

constexpr ScoreDef score_def_general =
    with_matrices(score_functions(general_forward, general_backward, general_output, general_exact, general_bound,
                                  general_cost, general_cost, general_flops),
                  general_check, general_param_grads, general_head_floats, general_head_params);

// location: the keys' bounds are taken over Wa's rows (key_bounds), so dot_bound serves.
constexpr ScoreDef score_def_location =
    with_matrices(score_functions(location_forward, location_backward, location_output, location_exact, dot_bound,
                                  dot_cost, dot_cost, qk_flops),
                  location_check, location_param_grads, location_head_floats, location_head_params);

}  // namespace attnscope::scores
