// additive (Bahdanau): vᵀ tanh(W₁q + W₂k). No function of q·k, so its own kernels (additive,
// additive_backward) after the projections W₁Q and W₂K, and its own blocked output loop.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "scores/score_def.hpp"

namespace attnscope::scores {

namespace {

Status additive_check(ConstMatrix, ConstMatrix, const ScoreParams& p) {
    if (!p.W1 || !p.W2 || !p.v || p.hidden == 0)
        return Status::error("W1, W2, v: score 'additive' needs W1 (hidden x d_q), W2 (hidden x d_k) and v (hidden), hidden > 0");
    return {};
}

// aq = Q W1ᵀ (nq x h), bk = K W2ᵀ (nk x h).
void project(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, std::vector<float>& aq,
             std::vector<float>& bk) {
    const std::size_t h = p.hidden;
    aq.resize(Q.rows * h);
    bk.resize(K.rows * h);
    kt.gemm_nt(Q.rows, h, Q.cols, Q.data, Q.stride, p.W1, Q.cols, aq.data(), h, 1.0f);
    kt.gemm_nt(K.rows, h, K.cols, K.data, K.stride, p.W2, K.cols, bk.data(), h, 1.0f);
}

void additive_forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S) {
    std::vector<float> aq, bk;
    project(kt, Q, K, p, aq, bk);
    kt.additive(Q.rows, K.rows, p.hidden, aq.data(), p.hidden, bk.data(), p.hidden, p.v, S.data, S.stride);
}

void additive_backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p,
                       ConstMatrix dS, ScoreGrads& out) {
    // a = Q W1ᵀ, b = K W2ᵀ; the kernel gives da, db, dv; then dQ = da W1, dW1 = daᵀ Q (and for K, W2).
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols, h = p.hidden, dk = K.cols;
    std::vector<float> aq, bk, da(nq * h), db(nk * h);
    project(kt, Q, K, p, aq, bk);
    kt.additive_backward(nq, nk, h, aq.data(), h, bk.data(), h, p.v, dS.data, dS.stride, da.data(), h, db.data(), h,
                         out.dv.values.data());
    kt.gemm_nn(nq, d, h, da.data(), h, p.W1, d, out.dQ.values.data(), d);
    kt.gemm_tn(h, d, nq, da.data(), h, Q.data, Q.stride, out.dW1.values.data(), d);
    kt.gemm_nn(nk, dk, h, db.data(), h, p.W2, dk, out.dK.values.data(), dk);
    kt.gemm_tn(h, dk, nk, db.data(), h, K.data, K.stride, out.dW2.values.data(), dk);
}

void additive_param_grads(ConstMatrix Q, ConstMatrix K, const ScoreParams& p, ScoreGrads& out) {
    out.dW1 = Tensor(p.hidden, Q.cols);
    out.dW2 = Tensor(p.hidden, K.cols);
    out.dv = Tensor(1, p.hidden);
}

// softmax(mask(additive scores) / tau) V in blocks of query rows: W1 Q and W2 K are projected once,
// as in the forward, then the additive kernel runs over 64 query rows at a time.
Status additive_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                       const AttentionOptions& o, float inv_tau, Matrix O) {
    constexpr std::size_t kRows = 64;
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    const std::size_t nq = Q.rows, nk = K.rows, h = o.params.hidden;
    std::vector<float> aq, bk, s(std::min(nq, kRows) * nk);
    project(kt, Q, K, o.params, aq, bk);
    for (std::size_t i0 = 0; i0 < nq; i0 += kRows) {
        const std::size_t rows = std::min(kRows, nq - i0);
        kt.additive(rows, nk, h, aq.data() + i0 * h, h, bk.data(), h, o.params.v, s.data(), nk);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t j = 0; j < nk; ++j)
                if (hidden_key(o, i0 + r, j)) s[r * nk + j] = neg_inf;
        kt.softmax_rows(rows, nk, s.data(), nk, inv_tau, s.data(), nk);
        kt.gemm_nn(rows, V.cols, nk, s.data(), nk, V.data, V.stride, O.row(i0), O.stride);
    }
    return {};
}

// Both projections (nq + nk rows of `hidden`), and one tanh per query, key and hidden unit.
void additive_cost(Budget& b, const CostShape& s) {
    b.floats(s.nq + s.nk, s.hidden);
    b.work(s.nq, s.hidden, s.dq);
    b.work(s.nk, s.hidden, s.dk);
    b.work(s.nq, s.nk, s.hidden, limits::kTanhCost);
}
// The same, and one block of 64 rows of scores.
void additive_output_cost(Budget& b, const CostShape& s) {
    additive_cost(b, s);
    b.floats(64, s.nk);
}
// The two projections at 2 flops per multiply-add, the tanh loop as 3 flops per hidden unit.
double additive_flops(const CostShape& s) {
    const double nq = static_cast<double>(s.nq), nk = static_cast<double>(s.nk), h = static_cast<double>(s.hidden);
    return 2.0 * nq * h * static_cast<double>(s.dq) + 2.0 * nk * h * static_cast<double>(s.dk) + 3.0 * nq * nk * h;
}

std::uint64_t additive_head_floats(const ScoreParams& given, std::uint64_t dh, std::uint64_t) {
    const std::uint64_t hidden = given.hidden ? given.hidden : dh;
    return Budget::mul(hidden, 2 * dh + 1);
}
void additive_head_params(ScoreParams& sp, const ScoreParams& given, std::size_t dh, std::size_t, MatrixSource& source) {
    const std::size_t hid = given.hidden ? given.hidden : dh;
    sp.hidden = hid;
    sp.W1 = source.matrix(given.W1, hid, dh, MatrixKind::W1_additive);
    sp.W2 = source.matrix(given.W2, hid, dh, MatrixKind::W2_additive);
    sp.v = source.matrix(given.v, hid, 1, MatrixKind::v_additive);
}

double additive_exact(const float* q, std::size_t dq, const float* k, std::size_t dk, std::size_t, const ScoreParams& p) {
    double s = 0;
    for (std::size_t h = 0; h < p.hidden; ++h) {
        double x = 0;
        for (std::size_t a = 0; a < dq; ++a) x += static_cast<double>(p.W1[h * dq + a]) * q[a];
        for (std::size_t b = 0; b < dk; ++b) x += static_cast<double>(p.W2[h * dk + b]) * k[b];
        s += static_cast<double>(p.v[h]) * std::tanh(x);
    }
    return s;
}
// |vᵀ tanh(·)| <= ‖v‖₁.
double additive_bound(const float*, std::size_t, const KeyBounds& kb, const ScoreParams&) { return kb.w_frobenius; }

}  // namespace

constexpr ScoreDef score_def_additive = [] {
    ScoreDef d = with_matrices(score_functions(additive_forward, additive_backward, additive_output, additive_exact,
                                               additive_bound, additive_cost, additive_output_cost, additive_flops),
                               additive_check, additive_param_grads, additive_head_floats, additive_head_params);
    d.hidden_layer = true;
    return d;
}();

}  // namespace attnscope::scores
