// The distance family: neg-euclidean −‖q − k‖, neg-sq-euclidean −‖q − k‖², idw −log(ε + ‖q − k‖^p).
// Each is a function f of d2 = ‖q − k‖², computed through ‖q‖² + ‖k‖² − 2 q·k (norms once per row,
// the blocked Q Kᵀ, then its epilogue), directly in double where that identity cancels or a row is
// outside the safe range (score.hpp states the conventions). One trait per score below gives f (in
// double, the kernel epilogue, the fused epilogue) and 2 f' for the backward; the functions after it
// are written once for the three.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/idw.hpp"
#include "scores/score_def.hpp"

namespace attnscope::scores {

namespace {

constexpr double kLowest = -static_cast<double>(std::numeric_limits<float>::max());
// A score beyond float's range saturates at -FLT_MAX (never -inf, which means "masked").
float saturated(double s) { return static_cast<float>(s < kLowest ? kLowest : s); }

struct NegSqEuclidean {  // f = −d2
    static constexpr kernels::FusedScore fused = kernels::FusedScore::sq_euclidean;
    static double value(double d2, const ScoreParams&) { return -d2; }
    static float exact(double d2, const ScoreParams&) { return saturated(-d2); }
    static float coefficient(float ds, float, const ScoreParams&) { return -2.0f * ds; }
};

struct NegEuclidean {  // f = −√d2: 2 f' = −1/√d2
    static constexpr kernels::FusedScore fused = kernels::FusedScore::euclidean;
    static double value(double d2, const ScoreParams&) { return -std::sqrt(d2); }
    static float exact(double d2, const ScoreParams&) { return saturated(-std::sqrt(d2)); }
    static float coefficient(float ds, float d2, const ScoreParams&) { return d2 > 0.0f ? -ds / std::sqrt(d2) : 0.0f; }
};

struct Idw {  // f = −log(ε + d2^(p/2)): 2 f' = −p d2^(p/2 − 1) / (ε + d2^(p/2))
    static constexpr kernels::FusedScore fused = kernels::FusedScore::idw;
    static double value(double d2, const ScoreParams& p) {
        return -kernels::idw_log_term(d2, static_cast<double>(p.p), static_cast<double>(p.eps));
    }
    static float exact(double d2, const ScoreParams& p) {
        double s = -kernels::idw_log_term(d2, static_cast<double>(p.p), static_cast<double>(p.eps));
        if (d2 == 0.0 && p.eps == 0.0f) return static_cast<float>(s);  // eps = 0 at an exact match: +inf
        if (s > -kLowest) s = -kLowest;  // huge p with r < 1 and eps = 0: beyond float, saturated
        return saturated(s);
    }
    static float coefficient(float ds, float d2, const ScoreParams& p) {
        if (!(d2 > 0.0f)) return 0.0f;
        const float dp = std::pow(d2, 0.5f * p.p);
        return -p.p * ds * (dp / d2) / (p.eps + dp);
    }
    static Status check(ConstMatrix, ConstMatrix, const ScoreParams& p) {
        if (!(p.p > 0.0f) || !std::isfinite(p.p)) return Status::error("p: expected a finite number > 0 for score 'idw'");
        if (!(p.eps >= 0.0f) || !std::isfinite(p.eps))
            return Status::error("eps: expected a finite number >= 0 for score 'idw'");
        return {};
    }
};

// ||q - k||² computed directly in double: no cancellation, no overflow, no underflow for float input.
double direct_sq_distance(const float* q, const float* k, std::size_t d) {
    double acc = 0.0;
    for (std::size_t t = 0; t < d; ++t) {
        const double diff = static_cast<double>(q[t]) - static_cast<double>(k[t]);
        acc += diff * diff;
    }
    return acc;
}

// The score of one pair from the direct distance in double, rounded once.
template <class F>
float exact_score(const float* q, const float* k, std::size_t d, const ScoreParams& p) {
    const double d2 = direct_sq_distance(q, k, d);
    if (std::isnan(d2)) return std::numeric_limits<float>::quiet_NaN();
    return F::exact(d2, p);
}

template <class F>
void forward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S) {
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    if (!score_numerics::all_rows_in_safe_range(Q) || !score_numerics::all_rows_in_safe_range(K)) {
        // Out-of-range rows: every distance directly in double (rare input, plain loops).
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t j = 0; j < nk; ++j) S(i, j) = exact_score<F>(Q.row(i), K.row(j), d, p);
        return;
    }
    // ||q-k||² = ||q||² + ||k||² − 2 q·k: norms once per row, the distance from the blocked Q Kᵀ.
    std::vector<float> qq(nq), kk(nk);
    kt.row_sumsq(nq, d, Q.data, Q.stride, qq.data());
    kt.row_sumsq(nk, d, K.data, K.stride, kk.data());
    kt.gemm_nt(nq, nk, d, Q.data, Q.stride, K.data, K.stride, S.data, S.stride, 1.0f);
    // Pairs where the identity cancels get the direct distance instead: row by row, the kernel lists
    // them while it applies the score (one pass over the row), and their direct values replace its.
    std::vector<std::uint32_t> cancelled(nk);
    for (std::size_t i = 0; i < nq; ++i) {
        float* row = S.row(i);
        const std::size_t count = kt.distance_row(F::fused, nk, row, qq[i], kk.data(), p.p, p.eps,
                                                  score_numerics::kCancelFraction, cancelled.data());
        for (std::size_t c = 0; c < count; ++c) row[cancelled[c]] = exact_score<F>(Q.row(i), K.row(cancelled[c]), d, p);
    }
}

template <class F>
void backward(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, ConstMatrix dS,
              ScoreGrads& out) {
    // Squared distances summed directly (exactly 0 at q = k), the coefficient C = dS · 2 f'(d2) of each
    // pair (0 where d2 = 0), then dQ = rowsum(C) ∘ Q − C K and dK = colsum(C) ∘ K − Cᵀ Q.
    const std::size_t nq = Q.rows, nk = K.rows, d = Q.cols;
    Tensor C(nq, nk);
    kt.sq_distances(nq, nk, d, Q.data, Q.stride, K.data, K.stride, C.values.data(), nk);
    std::vector<float> r(nq, 0.0f), c(nk, 0.0f);
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t j = 0; j < nk; ++j) {
            const float g = F::coefficient(dS(i, j), C(i, j), p);
            C(i, j) = g;
            r[i] += g;
            c[j] += g;
        }
    kt.gemm_nn(nq, d, nk, C.values.data(), nk, K.data, K.stride, out.dQ.values.data(), d);
    kt.gemm_tn(nk, d, nq, C.values.data(), nk, Q.data, Q.stride, out.dK.values.data(), d);
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t t = 0; t < d; ++t) out.dQ(i, t) = r[i] * Q(i, t) - out.dQ(i, t);
    for (std::size_t j = 0; j < nk; ++j)
        for (std::size_t t = 0; t < d; ++t) out.dK(j, t) = c[j] * K(j, t) - out.dK(j, t);
}

// The exact distance of pair (i, j), for the fused kernel's hook where the identity cancels.
template <class F>
struct DirectDistance {
    ConstMatrix Q, K;
    const ScoreParams* params;
    static float call(const void* ctx, std::size_t i, std::size_t j) {
        const auto* c = static_cast<const DirectDistance*>(ctx);
        return exact_score<F>(c->Q.row(i), c->K.row(j), c->Q.cols, *c->params);
    }
};

template <class F>
Status output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o,
              float inv_tau, Matrix O) {
    // Rows outside the safe range: compute_scores' direct distances, in blocks.
    if (!score_numerics::all_rows_in_safe_range(Q) || !score_numerics::all_rows_in_safe_range(K))
        return blocked_output(kt, Q, K, V, o, inv_tau, O);
    std::vector<float> qa(Q.rows), kb(K.rows);
    kt.row_sumsq(Q.rows, Q.cols, Q.data, Q.stride, qa.data());
    kt.row_sumsq(K.rows, Q.cols, K.data, K.stride, kb.data());
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = F::fused;
    a.qa = qa.data();
    a.kb = kb.data();
    // Where the identity ||q||² + ||k||² − 2 q·k cancels, the exact distance (as compute_scores).
    const DirectDistance<F> direct{Q, K, &o.params};
    a.direct = &DirectDistance<F>::call;
    a.direct_ctx = &direct;
    a.cancel_fraction = score_numerics::kCancelFraction;
    kt.attention_fused(a);
    return {};
}

// Norms and one row of direct distances; Q Kᵀ, and the direct (double) distances where it cancels.
void distance_cost(Budget& b, const CostShape& s) {
    b.floats(s.nq + 2 * s.nk);
    b.work(s.nq, s.nk, s.dq);
    b.work(s.nq, s.nk, s.dq);
}

// The score from ‖q − k‖² in double (no saturation).
template <class F>
double distance_exact(const float* q, std::size_t d, const float* k, std::size_t, std::size_t, const ScoreParams& p) {
    double d2 = 0;
    for (std::size_t t = 0; t < d; ++t) {
        const double x = static_cast<double>(q[t]) - k[t];
        d2 += x * x;
    }
    return F::value(d2, p);
}
// ‖q − k‖ <= ‖q‖ + ‖k‖, and every score of the family grows in magnitude with the distance past 1.
template <class F>
double distance_bound(const float* q, std::size_t d, const KeyBounds& kb, const ScoreParams& p) {
    const double r = l2(q, d) + kb.max_l2;
    return std::fabs(F::value(r * r, p));
}

// The fused output's cost: rescaled or blocked rows of out-of-range input, a block of scores, Q Kᵀ.
template <class F>
constexpr ScoreDef distance_def() {
    ScoreDef d = score_functions(forward<F>, backward<F>, output<F>, distance_exact<F>, distance_bound<F>, distance_cost,
                                 fused_output_cost, qk_flops);
    d.distance_like = true;
    return d;
}

}  // namespace

constexpr ScoreDef score_def_neg_sq_euclidean = distance_def<NegSqEuclidean>();

constexpr ScoreDef score_def_neg_euclidean = distance_def<NegEuclidean>();

constexpr ScoreDef score_def_idw = [] {
    ScoreDef d = distance_def<Idw>();
    d.check = Idw::check;
    return d;
}();

}  // namespace attnscope::scores
