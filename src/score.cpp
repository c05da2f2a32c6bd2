#include "attnscope/score.hpp"

#include <cmath>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "kernels/idw.hpp"
#include "kernels/kernels.hpp"

namespace attnscope {

namespace {

std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

}  // namespace

Status check_score_inputs(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p) {
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

namespace {

// --- numerics for finite inputs anywhere in the float range ---------------------------------------
// The fast paths square components in float: a row whose largest |component| lies in
// [2^-40, 2^40] (or is 0) keeps every square, squared norm (d < 2^40) and product of two such rows
// finite and normal-range, so nothing over- or underflows. Rows outside that range are handled
// exactly-enough: cosine by scaling each such row by a power of two (exact, and cosine ignores it),
// the Euclidean family through the direct distance in double precision (float squares at most
// 2^256 and at least 2^-298: a double holds both).
constexpr float kSafeMax = 1099511627776.0f;         // 2^40
constexpr float kSafeMin = 1.0f / 1099511627776.0f;  // 2^-40

// Largest |x| of a row; NaN and infinity count as "in range" (they propagate as before).
float row_max_abs(const float* x, std::size_t n) {
    float m = 0.0f;
    for (std::size_t t = 0; t < n; ++t) {
        const float a = std::fabs(x[t]);
        if (!std::isfinite(a)) return 1.0f;
        if (a > m) m = a;
    }
    return m;
}
bool row_in_safe_range(const float* x, std::size_t n) {
    const float m = row_max_abs(x, n);
    return m == 0.0f || (m >= kSafeMin && m <= kSafeMax);
}
bool all_rows_in_safe_range(ConstMatrix X) {
    for (std::size_t i = 0; i < X.rows; ++i)
        if (!row_in_safe_range(X.row(i), X.cols)) return false;
    return true;
}

// A copy of X whose out-of-range rows are multiplied by 2^-e so their largest |component| is in
// [0.5, 1). Multiplying by a power of two is exact (up to components 2^24 times smaller than the
// row's largest, which may lose low bits, far below float's rounding of the row's norm).
Tensor rescaled_rows(ConstMatrix X) {
    Tensor out(X.rows, X.cols);
    for (std::size_t i = 0; i < X.rows; ++i) {
        const float* x = X.row(i);
        int e = 0;
        if (!row_in_safe_range(x, X.cols)) std::frexp(row_max_abs(x, X.cols), &e);
        for (std::size_t t = 0; t < X.cols; ++t) out(i, t) = std::ldexp(x[t], -e);
    }
    return out;
}

// ||q - k||² computed directly in double: no cancellation, no overflow, no underflow for float input.
double direct_sq_distance(const float* q, const float* k, std::size_t d) {
    double acc = 0.0;
    for (std::size_t t = 0; t < d; ++t) {
        const double diff = static_cast<double>(q[t]) - static_cast<double>(k[t]);
        acc += diff * diff;
    }
    return acc;
}

// The score of the Euclidean family from a squared distance known in double, rounded once to float.
// Scores beyond float's range saturate at -FLT_MAX (never -inf, which means "masked").
float distance_score(Score score, double d2, const ScoreParams& p) {
    constexpr double lowest = -static_cast<double>(std::numeric_limits<float>::max());
    if (std::isnan(d2)) return std::numeric_limits<float>::quiet_NaN();
    double s;
    if (score == Score::neg_sq_euclidean) {
        s = -d2;
    } else if (score == Score::neg_euclidean) {
        s = -std::sqrt(d2);
    } else {
        s = -kernels::idw_log_term(d2, static_cast<double>(p.p), static_cast<double>(p.eps));
        if (d2 == 0.0 && p.eps == 0.0f) return static_cast<float>(s);  // eps = 0 at an exact match: +inf
        if (s > -lowest) s = -lowest;  // huge p with r < 1 and eps = 0: beyond float, saturated
    }
    return static_cast<float>(s < lowest ? lowest : s);
}

// Where the identity ||q||² + ||k||² − 2 q·k cancels, its absolute error (a few units of roundoff of
// ||q||² + ||k||²) is large next to the distance itself. Below this fraction of ||q||² + ||k||², the
// distance is recomputed directly (README, "Limits and guarantees", states the measured error).
using score_numerics::kCancelFraction;

}  // namespace

namespace score_numerics {
bool all_rows_in_safe_range(ConstMatrix X) { return attnscope::all_rows_in_safe_range(X); }
Tensor rescaled_rows(ConstMatrix X) { return attnscope::rescaled_rows(X); }
float exact_distance_score(Score score, const float* q, const float* k, std::size_t d, const ScoreParams& p) {
    return distance_score(score, direct_sq_distance(q, k, d), p);
}
}  // namespace score_numerics

Status compute_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S, Variant variant) {
    if (S.rows != Q.rows || S.cols != K.rows)
        return Status::error("S: expected " + shape(Q.rows, K.rows) + " (queries x keys), got " + shape(S.rows, S.cols));
    if (Status st = check_score_inputs(score, Q, K, p); !st) return st;
    Budget budget;
    add_score_cost(budget, score, Q.rows, K.rows, Q.cols, K.cols, p.hidden);
    if (Status st = budget.check("scores of " + std::to_string(Q.rows) + " queries x " + std::to_string(K.rows) +
                                     " keys", "score fewer queries or keys per call (chunks of queries), or use a smaller hidden size");
        !st)
        return st;
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
            // Rows outside the safe range are rescaled by a power of two first (cosine ignores it).
            Tensor qs, ks;
            if (!all_rows_in_safe_range(Q)) { qs = rescaled_rows(Q); Q = qs.view(); }
            if (!all_rows_in_safe_range(K)) { ks = rescaled_rows(K); K = ks.view(); }
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
        case Score::neg_manhattan:
            // −Σ|q_t − k_t|: no dot-product identity for the L1 distance, so a kernel over the rows.
            kt.neg_manhattan(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride);
            break;
        case Score::neg_euclidean:
        case Score::neg_sq_euclidean:
        case Score::idw: {
            if (!all_rows_in_safe_range(Q) || !all_rows_in_safe_range(K)) {
                // Out-of-range rows: every distance directly in double (rare input, plain loops).
                for (std::size_t i = 0; i < nq; ++i)
                    for (std::size_t j = 0; j < nk; ++j)
                        S(i, j) = distance_score(score, direct_sq_distance(Q.row(i), K.row(j), d), p);
                break;
            }
            // ||q-k||² = ||q||² + ||k||² − 2 q·k: norms once per row, the distance from the blocked Q Kᵀ.
            std::vector<float> qq(nq), kk(nk);
            kt.row_sumsq(nq, d, Q.data, Q.stride, qq.data());
            kt.row_sumsq(nk, d, K.data, K.stride, kk.data());
            kt.gemm_nt(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f);
            // Pairs where the identity cancels get the direct distance instead: row by row, the
            // direct values are kept aside while the epilogue runs over the row, then written back.
            std::vector<std::pair<std::size_t, float>> direct;
            std::vector<std::uint32_t> cancelled(nk);
            for (std::size_t i = 0; i < nq; ++i) {
                direct.clear();
                const std::size_t count = kt.cancelled_keys(nk, S.row(i), qq[i], kk.data(), kCancelFraction, cancelled.data());
                for (std::size_t c = 0; c < count; ++c) {
                    const std::size_t j = cancelled[c];
                    direct.emplace_back(j, distance_score(score, direct_sq_distance(Q.row(i), K.row(j), d), p));
                }
                float* row = S.row(i);
                if (score == Score::neg_sq_euclidean)
                    kt.sq_euclidean_epilogue(1, nk, row, S.stride, qq.data() + i, kk.data());
                else if (score == Score::neg_euclidean)
                    kt.euclidean_epilogue(1, nk, row, S.stride, qq.data() + i, kk.data());
                else
                    kt.idw_epilogue(1, nk, row, S.stride, qq.data() + i, kk.data(), p.p, p.eps);
                for (const auto& [j, value] : direct) row[j] = value;
            }
            break;
        }
    }
    return {};
}

}  // namespace attnscope
