// Building blocks the score definitions share: the fused kernel's common arguments and the blocked
// output loop (score_def.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "scores/score_def.hpp"

namespace attnscope::scores {

kernels::FusedAttentionArgs fused_args(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o,
                                       float inv_tau, Matrix O) {
    // The shapes, then each matrix with its row stride, in the struct's order.
    kernels::FusedAttentionArgs a{Q.rows, K.rows, Q.cols, V.cols, Q.data, Q.stride, K.data,
                                  K.stride, V.data, V.stride, O.data, O.stride};
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

double l2(const float* x, std::size_t n) {
    double s = 0;
    for (std::size_t t = 0; t < n; ++t) s += static_cast<double>(x[t]) * x[t];
    return std::sqrt(s);
}
double l1(const float* x, std::size_t n) {
    double s = 0;
    for (std::size_t t = 0; t < n; ++t) s += std::fabs(static_cast<double>(x[t]));
    return s;
}

KeyBounds key_bounds(Score score, ConstMatrix K, std::size_t dq, const ScoreParams& p) {
    KeyBounds kb;
    // location scores the first nk rows of Wa in the keys' place.
    const bool location = score == Score::location && p.Wa;
    for (std::size_t j = 0; j < K.rows; ++j) {
        const float* k = location ? p.Wa + j * K.cols : K.row(j);
        kb.max_l2 = std::max(kb.max_l2, l2(k, K.cols));
        kb.max_l1 = std::max(kb.max_l1, l1(k, K.cols));
    }
    if (score == Score::general && p.W) kb.w_frobenius = l2(p.W, dq * K.cols);   // W is d_q x d_k
    if (score == Score::additive && p.v) kb.w_frobenius = l1(p.v, p.hidden);
    return kb;
}

bool row_finite(const float* x, std::size_t n) {
    // A float is finite when its exponent bits are not all ones, that is when adding 1 to its exponent
    // field does not carry into bit 31. An OR of those sums over the row, with no branch, is a
    // reduction compilers vectorise with plain integer operations (the float sums of x·0 it replaces
    // could not be reordered, so they ran four lanes wide at most; this runs on every row of every
    // call, S's included).
    constexpr std::uint32_t kExponent = 0x7f800000u, kExponentOne = 0x00800000u;
    std::uint32_t carry = 0;
    for (std::size_t c = 0; c < n; ++c) carry |= (float_bits(x[c]) & kExponent) + kExponentOne;
    return (carry & 0x80000000u) == 0;
}

bool all_finite(ConstMatrix X) {
    for (std::size_t i = 0; i < X.rows; ++i)
        if (!row_finite(X.row(i), X.cols)) return false;
    return true;
}

void exact_row(const ScoreDef& def, ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& opt, double inv_tau,
               std::size_t i, float* s, float* a, float* o) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    constexpr double fmax = static_cast<double>(std::numeric_limits<float>::max());
    const std::size_t nk = K.rows;
    std::vector<double> sc(nk), w(nk, 0.0);
    for (std::size_t j = 0; j < nk; ++j) sc[j] = def.exact(Q.row(i), Q.cols, K.row(j), K.cols, j, opt.params);
    if (s)
        for (std::size_t j = 0; j < nk; ++j) s[j] = sc[j] == inf ? std::numeric_limits<float>::infinity()
                                                    : static_cast<float>(std::max(-fmax, std::min(fmax, sc[j])));
    double m = -inf;
    bool plus_inf = false;
    for (std::size_t j = 0; j < nk; ++j) {
        if (hidden_key(opt, i, j)) continue;
        plus_inf = plus_inf || sc[j] == inf;
        m = std::max(m, sc[j]);
    }
    double sum = 0;
    if (m > -inf) {
        for (std::size_t j = 0; j < nk; ++j) {
            if (hidden_key(opt, i, j)) continue;
            // The conventions of softmax_rows: +inf entries share the row's weight equally.
            w[j] = plus_inf ? (sc[j] == inf ? 1.0 : 0.0) : std::exp((sc[j] - m) * inv_tau);
            sum += w[j];
        }
        for (double& x : w) x /= sum;
    }
    if (a)
        for (std::size_t j = 0; j < nk; ++j) a[j] = static_cast<float>(w[j]);
    if (o) {
        for (std::size_t c = 0; c < V.cols; ++c) {
            double acc = 0;
            for (std::size_t j = 0; j < nk; ++j)
                if (w[j] != 0.0) acc += w[j] * V(j, c);
            o[c] = static_cast<float>(acc);
        }
    }
}

void reciprocal_sqrt(float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? 1.0f / std::sqrt(x[i]) : 0.0f;
}

double qk_flops(const CostShape& s) {
    return 2.0 * static_cast<double>(s.nq) * static_cast<double>(s.nk) * static_cast<double>(s.dq);
}

void fused_output_cost(Budget& b, const CostShape& s) {
    b.floats(s.nq + s.nk, s.dq);
    b.floats(64, s.nk);
    b.work(s.nq, s.nk, s.dq);
}

}  // namespace attnscope::scores
