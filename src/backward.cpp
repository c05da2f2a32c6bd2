#include "attnscope/backward.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnscope {

namespace {

std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

Status expect_shape(const char* name, ConstMatrix m, std::size_t rows, std::size_t cols, const char* what) {
    if (m.rows != rows || m.cols != cols)
        return Status::error(std::string(name) + ": expected " + shape(rows, cols) + " (" + what + "), got " +
                             shape(m.rows, m.cols));
    return {};
}

bool hidden_key(const SoftmaxOptions& o, std::size_t i, std::size_t j) {
    return (o.mask == Mask::causal && j > i) || (o.key_padding && o.key_padding[j] != 0);
}

// rows x cols rows of X scaled by s[i] into a new tensor.
Tensor scale_rows(ConstMatrix X, const std::vector<float>& s) {
    Tensor out(X.rows, X.cols);
    for (std::size_t i = 0; i < X.rows; ++i)
        for (std::size_t t = 0; t < X.cols; ++t) out(i, t) = X(i, t) * s[i];
    return out;
}

// 1/‖x_i‖ for every row, 0 for a zero row (cosine's convention).
std::vector<float> inverse_norms(const kernels::KernelTable& kt, ConstMatrix X) {
    std::vector<float> n(X.rows);
    kt.row_sumsq(X.rows, X.cols, X.data, X.stride, n.data());
    for (auto& x : n) x = x > 0.0f ? 1.0f / std::sqrt(x) : 0.0f;
    return n;
}

// The distance scores s = f(d2), d2 = ‖q − k‖²: C[i][j] = dS[i][j] · 2 f'(d2), so that
// dL/dq_i = Σ_j C_ij (q_i − k_j) and dL/dk_j = −Σ_i C_ij (q_i − k_j). 0 where d2 = 0 (q = k).
float distance_coefficient(Score score, float ds, float d2, const ScoreParams& p) {
    switch (score) {
        case Score::neg_sq_euclidean: return -2.0f * ds;  // f = −d2
        case Score::neg_euclidean:                         // f = −√d2: 2 f' = −1/√d2
            return d2 > 0.0f ? -ds / std::sqrt(d2) : 0.0f;
        case Score::idw: {  // f = −log(ε + d2^(p/2)): 2 f' = −p d2^(p/2 − 1) / (ε + d2^(p/2))
            if (!(d2 > 0.0f)) return 0.0f;
            const float dp = std::pow(d2, 0.5f * p.p);
            return -p.p * ds * (dp / d2) / (p.eps + dp);
        }
        default: return 0.0f;
    }
}

}  // namespace

Status masked_softmax_backward(ConstMatrix A, ConstMatrix dA, const SoftmaxOptions& o, Matrix dS) {
    if (Status st = expect_shape("dA", dA, A.rows, A.cols, "the shape of A"); !st) return st;
    if (Status st = expect_shape("dS", dS, A.rows, A.cols, "the shape of A"); !st) return st;
    if (!(o.temperature > 0.0f) || !std::isfinite(o.temperature))
        return Status::error("temperature: expected a finite number > 0, got " + std::to_string(o.temperature));
    const float inv_tau = 1.0f / o.temperature;
    if (!std::isfinite(inv_tau)) return Status::error("temperature: too small to divide by; use a value >= 1e-30");
    const auto& kt = kernels_for(o.variant);
    kt.softmax_backward_rows(A.rows, A.cols, A.data, A.stride, dA.data, dA.stride, inv_tau, dS.data, dS.stride);
    if (o.mask != Mask::none || o.key_padding) {
        for (std::size_t i = 0; i < A.rows; ++i)
            for (std::size_t j = 0; j < A.cols; ++j)
                if (hidden_key(o, i, j)) dS(i, j) = 0.0f;
    }
    return {};
}

Status compute_scores_backward(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, ConstMatrix dS,
                               ScoreGrads& out, Variant variant) {
    if (Status st = expect_shape("dS", dS, Q.rows, K.rows, "queries x keys"); !st) return st;
    // The forward's checks of Q, K and the parameters, through a forward call with no query rows
    // (it validates and returns before computing anything).
    if (Status st = compute_scores(score, ConstMatrix(Q.data, 0, Q.cols, Q.stride), K, p, Matrix(nullptr, 0, K.rows),
                                   variant);
        !st)
        return st;
    const auto& kt = kernels_for(variant);
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    out = ScoreGrads{};
    out.dQ = Tensor(nq, Q.cols);
    out.dK = Tensor(nk, K.cols);
    if (score == Score::general) out.dW = Tensor(Q.cols, K.cols);
    if (score == Score::additive) {
        out.dW1 = Tensor(p.hidden, Q.cols);
        out.dW2 = Tensor(p.hidden, K.cols);
        out.dv = Tensor(1, p.hidden);
    }
    if (score == Score::location) out.dWa = Tensor(p.max_keys, Q.cols);
    if (nq == 0 || nk == 0) return {};
    float* dQ = out.dQ.values.data();
    float* dK = out.dK.values.data();

    switch (score) {
        case Score::dot:
        case Score::scaled_dot: {
            kt.gemm_nn(nq, d, nk, dS.data, dS.stride, K.data, K.stride, dQ, d);  // dQ = dS K
            kt.gemm_tn(nk, d, nq, dS.data, dS.stride, Q.data, Q.stride, dK, d);  // dK = dSᵀ Q
            if (score == Score::scaled_dot) {
                const float alpha = d > 0 ? 1.0f / std::sqrt(static_cast<float>(d)) : 1.0f;
                for (auto& x : out.dQ.values) x *= alpha;
                for (auto& x : out.dK.values) x *= alpha;
            }
            break;
        }
        case Score::cosine: {
            // s = q̂·k̂ with q̂ = q/‖q‖: ∂s/∂q = (k̂ − s q̂)/‖q‖, and 0 for a zero q (whose q̂ and 1/‖q‖ are 0).
            const std::vector<float> rq = inverse_norms(kt, Q), rk = inverse_norms(kt, K);
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
            kt.gemm_nn(nq, d, nk, dS.data, dS.stride, Kh.values.data(), d, dQ, d);  // dS K̂
            kt.gemm_tn(nk, d, nq, dS.data, dS.stride, Qh.values.data(), d, dK, d);  // dSᵀ Q̂
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t t = 0; t < d; ++t) out.dQ(i, t) = rq[i] * (out.dQ(i, t) - r[i] * Qh(i, t));
            for (std::size_t j = 0; j < nk; ++j)
                for (std::size_t t = 0; t < d; ++t) out.dK(j, t) = rk[j] * (out.dK(j, t) - c[j] * Kh(j, t));
            break;
        }
        case Score::general: {
            // S = P Kᵀ with P = Q W: dP = dS K, dK = dSᵀ P, dQ = dP Wᵀ, dW = Qᵀ dP.
            const std::size_t dk = K.cols;
            std::vector<float> P(nq * dk), dP(nq * dk);
            kt.gemm_nn(nq, dk, d, Q.data, Q.stride, p.W, dk, P.data(), dk);
            kt.gemm_nn(nq, dk, nk, dS.data, dS.stride, K.data, K.stride, dP.data(), dk);
            kt.gemm_tn(nk, dk, nq, dS.data, dS.stride, P.data(), dk, dK, dk);
            kt.gemm_nt(nq, d, dk, dP.data(), dk, p.W, dk, dQ, d, 1.0f);
            kt.gemm_tn(d, dk, nq, Q.data, Q.stride, dP.data(), dk, out.dW.values.data(), dk);
            break;
        }
        case Score::additive: {
            // a = Q W1ᵀ, b = K W2ᵀ; the kernel gives da, db, dv; then dQ = da W1, dW1 = daᵀ Q (and for K, W2).
            const std::size_t h = p.hidden, dk = K.cols;
            std::vector<float> aq(nq * h), bk(nk * h), da(nq * h), db(nk * h);
            kt.gemm_nt(nq, h, d, Q.data, Q.stride, p.W1, d, aq.data(), h, 1.0f);
            kt.gemm_nt(nk, h, dk, K.data, K.stride, p.W2, dk, bk.data(), h, 1.0f);
            kt.additive_backward(nq, nk, h, aq.data(), h, bk.data(), h, p.v, dS.data, dS.stride, da.data(), h,
                                 db.data(), h, out.dv.values.data());
            kt.gemm_nn(nq, d, h, da.data(), h, p.W1, d, dQ, d);
            kt.gemm_tn(h, d, nq, da.data(), h, Q.data, Q.stride, out.dW1.values.data(), d);
            kt.gemm_nn(nk, dk, h, db.data(), h, p.W2, dk, dK, dk);
            kt.gemm_tn(h, dk, nk, db.data(), h, K.data, K.stride, out.dW2.values.data(), dk);
            break;
        }
        case Score::location:
            // S = Q Waᵀ over the first nk rows of Wa: dQ = dS Wa[:nk], dWa[:nk] = dSᵀ Q; dK = 0.
            kt.gemm_nn(nq, d, nk, dS.data, dS.stride, p.Wa, d, dQ, d);
            kt.gemm_tn(nk, d, nq, dS.data, dS.stride, Q.data, Q.stride, out.dWa.values.data(), d);
            break;
        case Score::neg_manhattan:
            // −Σ|q_t − k_t|: sign(q_t − k_t) per coordinate (0 where equal), one kernel over the pairs.
            kt.manhattan_backward(nq, nk, d, Q.data, Q.stride, K.data, K.stride, dS.data, dS.stride, dQ, d, dK, d);
            break;
        case Score::neg_euclidean:
        case Score::neg_sq_euclidean:
        case Score::idw: {
            // Squared distances summed directly (exactly 0 at q = k), the coefficient C of each pair, then
            // dQ = rowsum(C) ∘ Q − C K and dK = colsum(C) ∘ K − Cᵀ Q.
            Tensor C(nq, nk);
            kt.sq_distances(nq, nk, d, Q.data, Q.stride, K.data, K.stride, C.values.data(), nk);
            std::vector<float> r(nq, 0.0f), c(nk, 0.0f);
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t j = 0; j < nk; ++j) {
                    const float g = distance_coefficient(score, dS(i, j), C(i, j), p);
                    C(i, j) = g;
                    r[i] += g;
                    c[j] += g;
                }
            kt.gemm_nn(nq, d, nk, C.values.data(), nk, K.data, K.stride, dQ, d);
            kt.gemm_tn(nk, d, nq, C.values.data(), nk, Q.data, Q.stride, dK, d);
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t t = 0; t < d; ++t) out.dQ(i, t) = r[i] * Q(i, t) - out.dQ(i, t);
            for (std::size_t j = 0; j < nk; ++j)
                for (std::size_t t = 0; t < d; ++t) out.dK(j, t) = c[j] * K(j, t) - out.dK(j, t);
            break;
        }
    }
    return {};
}

Status attention_backward(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o, ConstMatrix dO,
                          AttentionGrads& out) {
    if (Status st = expect_shape("dO", dO, Q.rows, V.cols, "queries x value width, like the output"); !st) return st;
    const std::size_t nq = Q.rows, nk = K.rows, dv = V.cols;
    // The forward's scores and weights (its output is not needed: A V is recomputed below where the
    // experimental output needs it, and dO is given).
    Tensor S(nq, nk), A(nq, nk);
    if (Status st = attention(Q, K, V, o, S.view(), A.view(), Matrix()); !st) return st;
    const auto& kt = kernels_for(o.variant);

    // dL/d(A V): dO itself, or through the experimental O = (A V W_extra) s with s = 1/√d_v.
    Tensor dAV;
    ConstMatrix g = dO;
    if (o.experimental_scaled_output) {
        const float s = dv > 0 ? 1.0f / std::sqrt(static_cast<float>(dv)) : 1.0f;
        Tensor AV(nq, dv);
        kt.gemm_nn(nq, dv, nk, A.values.data(), nk, V.data, V.stride, AV.values.data(), dv);
        dAV = Tensor(nq, dv);
        kt.gemm_nt(nq, dv, dv, dO.data, dO.stride, o.W_extra, dv, dAV.values.data(), dv, s);  // s dO W_extraᵀ
        Tensor dWx(dv, dv);
        kt.gemm_tn(dv, dv, nq, AV.values.data(), dv, dO.data, dO.stride, dWx.values.data(), dv);  // (A V)ᵀ dO
        for (auto& x : dWx.values) x *= s;
        g = dAV.view();
        out.dW_extra = std::move(dWx);
    } else {
        out.dW_extra = Tensor();
    }
    out.dV = Tensor(nk, dv);
    kt.gemm_tn(nk, dv, nq, A.values.data(), nk, g.data, g.stride, out.dV.values.data(), dv);  // dV = Aᵀ g
    Tensor dA(nq, nk);
    kt.gemm_nt(nq, nk, dv, g.data, g.stride, V.data, V.stride, dA.values.data(), nk, 1.0f);  // dA = g Vᵀ
    SoftmaxOptions so;
    so.temperature = o.temperature;
    so.mask = o.mask;
    so.key_padding = o.key_padding;
    so.variant = o.variant;
    if (Status st = masked_softmax_backward(A.view(), dA.view(), so, dA.view()); !st) return st;
    return compute_scores_backward(o.score, Q, K, o.params, dA.view(), out, o.variant);
}

Status linear_backward(ConstMatrix X, ConstMatrix W, ConstMatrix dY, Matrix dX, Matrix dW, Variant variant) {
    if (W.rows != X.cols)
        return Status::error("W: expected " + std::to_string(X.cols) + " rows (the width of X), got " +
                             std::to_string(W.rows));
    if (Status st = expect_shape("dY", dY, X.rows, W.cols, "rows of X x columns of W"); !st) return st;
    if (Status st = expect_shape("dW", dW, W.rows, W.cols, "the shape of W"); !st) return st;
    if (dX.rows != 0)
        if (Status st = expect_shape("dX", dX, X.rows, X.cols, "the shape of X, or 0 rows to skip it"); !st) return st;
    const auto& kt = kernels_for(variant);
    kt.gemm_tn(W.rows, W.cols, X.rows, X.data, X.stride, dY.data, dY.stride, dW.data, dW.stride);
    if (dX.rows != 0) kt.gemm_nt(X.rows, X.cols, W.cols, dY.data, dY.stride, W.data, W.stride, dX.data, dX.stride, 1.0f);
    return {};
}

}  // namespace attnscope
