#include "attnscope/score.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

namespace attnscope {

namespace {

std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

}  // namespace

static void exact_where_overflowed(const scores::ScoreDef& def, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S);

Status check_score_inputs(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p) {
    const bool same_dim = !score_has_weights(score);
    if (same_dim && Q.cols != K.cols)
        return Status::error("K: expected " + std::to_string(Q.cols) + " columns like Q for score '" +
                             score_info(score).name + "', got " + std::to_string(K.cols));
    if (const auto check = scores::score_def(score).check) return check(Q, K, p);
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
constexpr float kSafeMax = score_numerics::kSafeRowMax;  // 2^40
constexpr float kSafeMin = score_numerics::kSafeRowMin;  // 2^-40

// Largest |x| of a row; NaN and infinity count as "in range" (they propagate as before).
// Taken over the bits of |x|: for floats >= 0 their order is that of the unsigned integers, and
// +inf and every NaN lie above every finite value. An unsigned maximum with no branch in the loop
// is a reduction compilers vectorise (i32x4.max_u, pmaxud); the float compare with an early return
// it replaces ran one element at a time, ~3% of an idw or cosine call.
float row_max_abs(const float* x, std::size_t n) {
    constexpr std::uint32_t kAbs = 0x7fffffffu, kInfBits = 0x7f800000u;
    std::uint32_t m = 0;
    for (std::size_t t = 0; t < n; ++t) m = std::max(m, scores::float_bits(x[t]) & kAbs);
    if (m >= kInfBits) return 1.0f;
    float f;
    std::memcpy(&f, &m, sizeof f);
    return f;
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

}  // namespace

namespace score_numerics {
bool all_rows_in_safe_range(ConstMatrix X) { return attnscope::all_rows_in_safe_range(X); }
Tensor rescaled_rows(ConstMatrix X) { return attnscope::rescaled_rows(X); }
}  // namespace score_numerics

Status compute_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S, Variant variant) {
    if (S.rows != Q.rows || S.cols != K.rows)
        return Status::error("S: expected " + shape(Q.rows, K.rows) + " (queries x keys), got " + shape(S.rows, S.cols));
    if (Status st = check_score_inputs(score, Q, K, p); !st) return st;
    Budget budget;
    add_score_cost(budget, score, Q.rows, K.rows, Q.cols, K.cols, p.hidden);
    if (Status st = budget.check_lazily(
            [&] { return "scores of " + std::to_string(Q.rows) + " queries x " + std::to_string(K.rows) + " keys"; },
            "score fewer queries or keys per call (chunks of queries), or use a smaller hidden size");
        !st)
        return st;
    if (Q.rows == 0 || K.rows == 0) return {};
    const scores::ScoreDef& def = scores::score_def(score);
    def.forward(kernels_for(variant), Q, K, p, S);
    exact_where_overflowed(def, Q, K, p, S);
    return {};
}

void exact_where_overflowed(const scores::ScoreDef& def, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S) {
    // Finite input, non-finite float score: a product or sum left float's range on the way (q·k of
    // 1e30-sized vectors, or 1e60 - 1e60 = NaN). The score in double, saturated at ±FLT_MAX like the
    // distance family's (never -inf, which means masked); +inf only where the score is +inf (idw with
    // eps = 0 at an exact match). The weights of such rows are computed from the double scores by
    // attention() (scores::exact_row).
    constexpr double fmax = static_cast<double>(std::numeric_limits<float>::max());
    std::vector<signed char> key_ok;   // -1 unknown, 0 not finite, 1 finite
    for (std::size_t i = 0; i < S.rows; ++i) {
        // A branch-free test of the whole row first: this runs on every row of every call.
        if (scores::row_finite(S.row(i), S.cols)) continue;
        bool q_ok = false, q_known = false;
        for (std::size_t j = 0; j < S.cols; ++j) {
            if (std::isfinite(S(i, j))) continue;
            if (!q_known) {
                q_ok = scores::row_finite(Q.row(i), Q.cols);
                q_known = true;
            }
            if (!q_ok) break;
            if (key_ok.empty()) key_ok.assign(K.rows, -1);
            if (key_ok[j] < 0) key_ok[j] = scores::row_finite(K.row(j), K.cols) ? 1 : 0;
            if (!key_ok[j]) continue;
            const double s = def.exact(Q.row(i), Q.cols, K.row(j), K.cols, j, p);
            if (s == std::numeric_limits<double>::infinity()) S(i, j) = std::numeric_limits<float>::infinity();
            else if (!std::isnan(s)) S(i, j) = static_cast<float>(std::max(-fmax, std::min(fmax, s)));
        }
    }
}

}  // namespace attnscope
