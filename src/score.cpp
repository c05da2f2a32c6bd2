#include "attnscope/score.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnscope {

namespace {

std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

Status check_params(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p) {
    const bool same_dim = !score_has_weights(score);
    if (same_dim && Q.cols != K.cols)
        return Status::error("K: expected " + std::to_string(Q.cols) + " columns like Q for score '" +
                             score_info(score).name + "', got " + std::to_string(K.cols));
    switch (score) {
        case Score::general:
            if (!p.W) return Status::error("W: score 'general' needs W, a d_q x d_k matrix (" + shape(Q.cols, K.cols) + ")");
            break;
        case Score::additive:
            if (!p.W1 || !p.W2 || !p.v || p.hidden == 0)
                return Status::error("W1, W2, v: score 'additive' needs W1 (hidden x d_q), W2 (hidden x d_k) and v (hidden), hidden > 0");
            break;
        case Score::location:
            if (!p.Wa) return Status::error("Wa: score 'location' needs Wa, a max_keys x d_q matrix");
            if (p.max_keys < K.rows)
                return Status::error("Wa: score 'location' has rows for " + std::to_string(p.max_keys) +
                                     " key positions but there are " + std::to_string(K.rows) + " keys");
            break;
        case Score::idw:
            if (!(p.p > 0.0f) || !std::isfinite(p.p)) return Status::error("p: expected a finite number > 0 for score 'idw'");
            if (!(p.eps >= 0.0f) || !std::isfinite(p.eps)) return Status::error("eps: expected a finite number >= 0 for score 'idw'");
            break;
        default: break;
    }
    return {};
}

}  // namespace

Status compute_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S, Variant variant) {
    if (S.rows != Q.rows || S.cols != K.rows)
        return Status::error("S: expected " + shape(Q.rows, K.rows) + " (queries x keys), got " + shape(S.rows, S.cols));
    if (Status st = check_params(score, Q, K, p); !st) return st;
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    if (nq == 0 || nk == 0) return {};
    const auto& kt = kernels_for(variant);

    switch (score) {
        case Score::dot: kt.gemm_nt(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f); break;
        case Score::scaled_dot: {
            const float alpha = d > 0 ? 1.0f / std::sqrt(static_cast<float>(d)) : 1.0f;
            kt.gemm_nt(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, alpha);
            break;
        }
        case Score::cosine: {
            std::vector<float> qn(nq), kn(nk);
            kt.row_sumsq(nq, d, Q.data, Q.stride, qn.data());
            kt.row_sumsq(nk, d, K.data, K.stride, kn.data());
            for (auto& x : qn) x = x > 0.0f ? 1.0f / std::sqrt(x) : 0.0f;
            for (auto& x : kn) x = x > 0.0f ? 1.0f / std::sqrt(x) : 0.0f;
            kt.gemm_nt(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f);
            kt.cosine_epilogue(nq, nk, S.data, S.stride, qn.data(), kn.data());
            break;
        }
        case Score::general: {
            // qᵀ W k = (Q W) Kᵀ: one projection of the queries, then the dot-product kernel.
            const std::size_t dk = K.cols;
            std::vector<float> qw(nq * dk);
            kt.gemm_nn(nq, dk, d, Q.data, Q.stride, p.W, dk, qw.data(), dk);
            kt.gemm_nt(nq, nk, dk, qw.data(), dk, K.data, K.stride, S.data, S.stride, 1.0f);
            break;
        }
        case Score::additive: {
            const std::size_t h = p.hidden;
            std::vector<float> aq(nq * h), bk(nk * h);
            kt.gemm_nt(nq, h, d, Q.data, Q.stride, p.W1, d, aq.data(), h, 1.0f);
            kt.gemm_nt(nk, h, K.cols, K.data, K.stride, p.W2, K.cols, bk.data(), h, 1.0f);
            kt.additive(nq, nk, h, aq.data(), h, bk.data(), h, p.v, S.data, S.stride);
            break;
        }
        case Score::location:
            // (Wa q)_j for j < nk: the first nk rows of Wa play the part of the keys.
            kt.gemm_nt(nq, nk, d, Q.data, Q.stride, p.Wa, d, S.data, S.stride, 1.0f);
            break;
        case Score::neg_euclidean:
        case Score::neg_sq_euclidean:
        case Score::idw: {
            // ||q-k||² = ||q||² + ||k||² − 2 q·k: norms once per row, the distance from the blocked Q Kᵀ.
            std::vector<float> qq(nq), kk(nk);
            kt.row_sumsq(nq, d, Q.data, Q.stride, qq.data());
            kt.row_sumsq(nk, d, K.data, K.stride, kk.data());
            kt.gemm_nt(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f);
            if (score == Score::neg_sq_euclidean)
                kt.sq_euclidean_epilogue(nq, nk, S.data, S.stride, qq.data(), kk.data());
            else if (score == Score::neg_euclidean)
                kt.euclidean_epilogue(nq, nk, S.data, S.stride, qq.data(), kk.data());
            else
                kt.idw_epilogue(nq, nk, S.data, S.stride, qq.data(), kk.data(), p.p, p.eps);
            break;
        }
    }
    return {};
}

}  // namespace attnscope
