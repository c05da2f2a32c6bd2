#include "attnscope/backward.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

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

}  // namespace

ScoreMatrixKind score_matrix_kind(MatrixKind kind) {
    switch (kind) {
        case MatrixKind::W_general: return {0, &ScoreGrads::dW};
        case MatrixKind::W1_additive: return {1, &ScoreGrads::dW1};
        case MatrixKind::W2_additive: return {2, &ScoreGrads::dW2};
        case MatrixKind::v_additive: return {3, &ScoreGrads::dv};
        case MatrixKind::Wa_location: return {4, &ScoreGrads::dWa};
        case MatrixKind::Wq:
        case MatrixKind::Wk:
        case MatrixKind::Wv:
        case MatrixKind::Wo:
        case MatrixKind::W_extra: break;
    }
    return {};
}

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
    const scores::ScoreDef& def = scores::score_def(score);
    out = ScoreGrads{};
    out.dQ = Tensor(Q.rows, Q.cols);
    out.dK = Tensor(K.rows, K.cols);
    if (def.param_grads) def.param_grads(Q, K, p, out);
    if (Q.rows == 0 || K.rows == 0) return {};
    def.backward(kernels_for(variant), Q, K, p, dS, out);
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
