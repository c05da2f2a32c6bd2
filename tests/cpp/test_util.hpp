// Shared helpers of the Catch2 suite: a seeded generator whose numbers do not depend on the standard
// library's distributions, matrices with poisoned padding, float64 reference implementations of every
// scoring function, of the softmax tail and of A·V — each returning, next to the value, a bound on the
// error the float kernels may make (derived in the comments) — and a checker that compares whole
// matrices with one assertion.
//
// Notation used in every bound: ε = FLT_EPSILON = 2^-23 = 2u, where u = 2^-24 is float's unit
// roundoff. The textbook bound for a float sum of n products in any order (recursive, pairwise,
// per-lane accumulators, FMA or not) is |fl(Σ x_i y_i) − Σ x_i y_i| ≤ γ_n Σ|x_i y_i| with
// γ_n = n·u/(1 − n·u) ≈ n·u. Writing n·ε instead of γ_n keeps a safety factor of 2 everywhere.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope::test {

constexpr double kEps = std::numeric_limits<float>::epsilon();  // ε = 2^-23
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

// Sizes that reach every loop tail of the SIMD kernels (4 lanes; unrolled by 2 and 4; a register tile
// of 4 query rows; key blocks of 64): below one vector, exact multiples, one more and one less than a
// multiple, primes, and sizes that cross one and several key blocks.
inline const std::vector<std::size_t> kTailSizes = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 97, 100, 127, 257};

// ------------------------------------------------------------------------------------------------
// Random numbers: std::mt19937's output sequence is fixed by the C++ standard, unlike the standard
// distributions, so uniform and normal numbers are derived here by hand.
class Rng {
public:
    explicit Rng(std::uint32_t seed) : gen_(seed) {}
    // Uniform in [0, 1): the top 24 bits of one 32-bit word (exactly representable as a float).
    double uniform01() { return static_cast<double>(gen_() >> 8) * (1.0 / 16777216.0); }
    // Uniform in [lo, hi), rounded to float.
    float uniform(double lo, double hi) { return static_cast<float>(lo + (hi - lo) * uniform01()); }
    // Standard normal by Box–Muller: z0 = sqrt(−2 ln u1) cos(2π u2), z1 = sqrt(−2 ln u1) sin(2π u2),
    // u1 in (0, 1] so the log is finite. Both values are used.
    double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = 1.0 - uniform01();
        const double u2 = uniform01();
        const double r = std::sqrt(-2.0 * std::log(u1));
        spare_ = r * std::sin(2.0 * kPi * u2);
        has_spare_ = true;
        return r * std::cos(2.0 * kPi * u2);
    }
    std::uint32_t next() { return static_cast<std::uint32_t>(gen_()); }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(gen_() % n); }

private:
    std::mt19937 gen_;
    bool has_spare_ = false;
    double spare_ = 0.0;
};

// ------------------------------------------------------------------------------------------------
// A row-major float matrix with `pad` extra floats per row. The padding (and nothing else) holds NaN:
// a kernel that reads past a row's end turns its result into NaN, one that writes there is caught by
// padding_intact().
struct Mat {
    std::size_t rows = 0, cols = 0, stride = 0;
    std::vector<float> v;

    Mat() = default;
    Mat(std::size_t r, std::size_t c, std::size_t pad = 0, float fill = 0.0f)
        : rows(r), cols(c), stride(c + pad), v(r * (c + pad), kNaN) {
        for (std::size_t i = 0; i < r; ++i)
            for (std::size_t j = 0; j < c; ++j) (*this)(i, j) = fill;
    }
    float& operator()(std::size_t i, std::size_t j) { return v[i * stride + j]; }
    float operator()(std::size_t i, std::size_t j) const { return v[i * stride + j]; }
    float* row(std::size_t i) { return v.data() + i * stride; }
    const float* row(std::size_t i) const { return v.data() + i * stride; }
    float* data() { return v.data(); }
    const float* data() const { return v.data(); }
    ConstMatrix view() const { return {v.data(), rows, cols, stride}; }
    Matrix mview() { return {v.data(), rows, cols, stride}; }
    bool padding_intact() const {
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = cols; j < stride; ++j)
                if (!std::isnan((*this)(i, j))) return false;
        return true;
    }
};

inline Mat uniform_matrix(std::size_t r, std::size_t c, Rng& rng, double lo = -1.0, double hi = 1.0,
                          std::size_t pad = 0) {
    Mat m(r, c, pad);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) m(i, j) = rng.uniform(lo, hi);
    return m;
}

inline Mat normal_matrix(std::size_t r, std::size_t c, Rng& rng, std::size_t pad = 0) {
    Mat m(r, c, pad);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) m(i, j) = static_cast<float>(rng.normal());
    return m;
}

// A small hand-written matrix: from_rows({{1, 2}, {3, 4}}).
inline Mat from_rows(std::initializer_list<std::initializer_list<float>> rows) {
    const std::size_t c = rows.size() ? rows.begin()->size() : 0;
    Mat m(rows.size(), c);
    std::size_t i = 0;
    for (const auto& r : rows) {
        std::size_t j = 0;
        for (float x : r) m(i, j++) = x;
        ++i;
    }
    return m;
}

// ------------------------------------------------------------------------------------------------
// Comparing many numbers with one assertion: the checker counts the entries outside their bound and
// remembers the first one and the worst |error| / bound, which the failure message shows.
//   want NaN  -> got must be NaN;   want ±inf -> got must equal it;   else |got − want| <= tol.
class Checker {
public:
    explicit Checker(std::string what = "") : what_(std::move(what)) {}
    void operator()(double got, double want, double tol, std::size_t i, std::size_t j = 0) {
        ++count_;
        bool ok;
        double ratio = 0.0;
        if (std::isnan(want)) {
            ok = std::isnan(got);
        } else if (std::isinf(want)) {
            ok = got == want;
        } else {
            const double err = std::fabs(got - want);
            ok = err <= tol;  // false for a NaN `got`
            ratio = tol > 0.0 ? err / tol : (err > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
            if (std::isnan(got)) ratio = std::numeric_limits<double>::infinity();
        }
        worst_ = std::max(worst_, ratio);
        if (!ok && bad_++ == 0) {
            std::ostringstream s;
            s.precision(9);
            s << "first at (" << i << ", " << j << "): got " << got << ", want " << want << " ± " << tol;
            first_ = s.str();
        }
    }
    bool ok() const { return bad_ == 0; }
    std::string report() const {
        std::ostringstream s;
        s << what_ << (what_.empty() ? "" : ": ") << bad_ << " of " << count_ << " entries outside the bound";
        if (bad_) s << "; " << first_;
        s << "; worst |error|/bound = " << worst_;
        return s.str();
    }
    double worst() const { return worst_; }

private:
    std::string what_, first_;
    std::size_t count_ = 0, bad_ = 0;
    double worst_ = 0.0;
};

#define ATTNSCOPE_CHECK_ALL(checker)    \
    do {                                \
        INFO((checker).report());       \
        CHECK((checker).ok());          \
    } while (0)

// ------------------------------------------------------------------------------------------------
// float64 references. A RefMatrix holds the exact (float64) value of every entry and a bound on the
// error of the float kernels' result for it.
struct RefMatrix {
    std::size_t rows = 0, cols = 0;
    std::vector<double> value, tol;
    RefMatrix() = default;
    RefMatrix(std::size_t r, std::size_t c) : rows(r), cols(c), value(r * c, 0.0), tol(r * c, 0.0) {}
    double& at(std::size_t i, std::size_t j) { return value[i * cols + j]; }
    double& tol_at(std::size_t i, std::size_t j) { return tol[i * cols + j]; }
    double at(std::size_t i, std::size_t j) const { return value[i * cols + j]; }
    double tol_at(std::size_t i, std::size_t j) const { return tol[i * cols + j]; }
};

// got (a float matrix view) against a reference, entry by entry.
inline Checker compare(ConstMatrix got, const RefMatrix& ref, const std::string& what = "") {
    Checker c(what);
    for (std::size_t i = 0; i < ref.rows; ++i)
        for (std::size_t j = 0; j < ref.cols; ++j) c(got(i, j), ref.at(i, j), ref.tol_at(i, j), i, j);
    return c;
}

// Σ a_t b_t over t < n (b with a stride), and Σ |a_t b_t|.
inline double dot64(const float* a, const float* b, std::size_t n, std::size_t b_stride = 1) {
    double s = 0.0;
    for (std::size_t t = 0; t < n; ++t) s += static_cast<double>(a[t]) * b[t * b_stride];
    return s;
}
inline double absdot64(const float* a, const float* b, std::size_t n, std::size_t b_stride = 1) {
    double s = 0.0;
    for (std::size_t t = 0; t < n; ++t) s += std::fabs(static_cast<double>(a[t]) * b[t * b_stride]);
    return s;
}

struct Ref {
    double value, tol;
};

// Error bound of a float library function (exp, log, tanh, pow; std:: or xsimd::) relative to its
// result: a few ulps. xsimd's float exp/log/tanh are Cephes-style polynomials accurate to ~1–2 ulps.
constexpr double kFnUlps = 4.0;

// The distance family from the exact squared distance d2 and the bound `delta` on the error of the
// float d2 (see ref_score). Every f here is monotone (decreasing) in d2, so the float result lies
// between f(d2 + delta) and f(max(0, d2 − delta)), up to the error of evaluating f itself.
inline Ref ref_distance(Score score, double d2, double delta, double p, double eps) {
    auto f = [&](double x) {
        switch (score) {
            case Score::neg_sq_euclidean: return -x;
            case Score::neg_euclidean: return -std::sqrt(x);
            default: return -std::log(eps + std::pow(x, 0.5 * p));
        }
    };
    const double v = f(d2);
    double tol = std::max(f(std::max(0.0, d2 - delta)) - v, v - f(d2 + delta));
    if (score == Score::neg_euclidean) tol += 2.0 * kEps * std::fabs(v);  // sqrt is correctly rounded
    if (score == Score::idw) {
        // d2^(p/2) is exp((p/2) log d2) in the SIMD variant: the log's error, times p/2, becomes a
        // relative error of the power; log(eps + z) turns relative errors of z into absolute ones.
        const double ld = d2 > 0.0 ? std::fabs(std::log(d2)) : 0.0;
        tol += kFnUlps * kEps * (2.0 + std::fabs(v) + 0.5 * p * ld);
    }
    return {v, tol};
}

// The float64 score of query q (dq floats) against key number j, k (dk floats), with the bound on the
// float kernels' error. Derivations (n·ε per sum of n products, see the top of this file):
//   dot         q·k, error ≤ (d+1)ε Σ|q_t k_t|  (+1: the multiplication by alpha = 1 is exact, margin)
//   scaled-dot  the same over √d, +2ε for 1/√d and the product.
//   cosine      fl(q·k) errs by ≤ dε Σ|qk| ≤ dε‖q‖‖k‖ (Cauchy–Schwarz), i.e. ≤ dε on the cosine; each
//               1/‖·‖ carries (d/2 + 2)ε; two products 2ε: ≤ (2d + 6)ε in all; 0 for a zero vector.
//   general     u = qᵀW (each u_t errs ≤ dq·ε Σ_s|q_s W_st|), then u·k: ≤ (dq + dk + 2)ε Σ|q_s W_st k_t|.
//   additive    a = W1 q, b = W2 k as above; tanh is 1-Lipschitz so x = a+b's error passes through,
//               plus tanh's own few ulps; then Σ v_t tanh(x_t) adds (h+1)ε Σ|v_t tanh(x_t)|.
//   location    (Wa q)_j: a dot product with row j of Wa.
//   distances   the kernels use d2 = ‖q‖² + ‖k‖² − 2q·k. ‖q‖² errs by ≤ dε‖q‖², ‖k‖² by ≤ dε‖k‖²,
//               2q·k by ≤ 2dε Σ|q_t k_t| ≤ dε(‖q‖² + ‖k‖²) (2|ab| ≤ a² + b²); the two additions add
//               ≤ 4ε(‖q‖² + ‖k‖²). So the float d2 errs by ≤ delta = (2d + 4)ε(‖q‖² + ‖k‖²), which
//               ref_distance carries through the monotone f. (The identity cancels: near q = k the
//               bound is large compared with d2 itself, as it must be.)
inline Ref ref_score(Score score, const float* q, std::size_t dq, const float* k, std::size_t dk, std::size_t j,
                     const ScoreParams& p) {
    const double d = static_cast<double>(dq);
    switch (score) {
        case Score::dot: return {dot64(q, k, dq), (d + 1.0) * kEps * absdot64(q, k, dq)};
        case Score::scaled_dot: {
            const double s = dq ? 1.0 / std::sqrt(d) : 1.0;
            return {s * dot64(q, k, dq), (d + 3.0) * kEps * s * absdot64(q, k, dq)};
        }
        case Score::cosine: {
            const double qq = dot64(q, q, dq), kk = dot64(k, k, dq);
            if (qq == 0.0 || kk == 0.0) return {0.0, 0.0};
            return {dot64(q, k, dq) / std::sqrt(qq * kk), (2.0 * d + 8.0) * kEps};
        }
        case Score::general: {
            double v = 0.0, a = 0.0;
            for (std::size_t s = 0; s < dq; ++s)
                for (std::size_t t = 0; t < dk; ++t) {
                    const double x = static_cast<double>(q[s]) * p.W[s * dk + t] * k[t];
                    v += x;
                    a += std::fabs(x);
                }
            return {v, (d + static_cast<double>(dk) + 2.0) * kEps * a};
        }
        case Score::additive: {
            double v = 0.0, tol = 0.0, sum_abs = 0.0;
            for (std::size_t t = 0; t < p.hidden; ++t) {
                const double a = dot64(p.W1 + t * dq, q, dq), b = dot64(p.W2 + t * dk, k, dk);
                const double da = (d + 1.0) * kEps * absdot64(p.W1 + t * dq, q, dq);
                const double db = (static_cast<double>(dk) + 1.0) * kEps * absdot64(p.W2 + t * dk, k, dk);
                const double x = a + b, th = std::tanh(x);
                v += p.v[t] * th;
                sum_abs += std::fabs(p.v[t] * th);
                tol += std::fabs(p.v[t]) * (da + db + kEps * std::fabs(x) + kFnUlps * kEps * std::fabs(th));
            }
            return {v, tol + (static_cast<double>(p.hidden) + 1.0) * kEps * sum_abs};
        }
        case Score::location: {
            const float* w = p.Wa + j * dq;
            return {dot64(w, q, dq), (d + 1.0) * kEps * absdot64(w, q, dq)};
        }
        case Score::neg_manhattan: {
            // −Σ|q_t − k_t|: each difference rounds once, the sum of d non-negative terms adds dε.
            double l1 = 0.0;
            for (std::size_t t = 0; t < dq; ++t) l1 += std::fabs(static_cast<double>(q[t]) - k[t]);
            return {-l1, (d + 2.0) * kEps * l1};
        }
        case Score::neg_euclidean:
        case Score::neg_sq_euclidean:
        case Score::idw: {
            double d2 = 0.0;
            for (std::size_t t = 0; t < dq; ++t) {
                const double diff = static_cast<double>(q[t]) - k[t];
                d2 += diff * diff;
            }
            const double delta = (2.0 * d + 4.0) * kEps * (dot64(q, q, dq) + dot64(k, k, dq));
            return ref_distance(score, d2, delta, p.p, p.eps);
        }
    }
    return {0.0, 0.0};
}

inline RefMatrix ref_scores(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& p) {
    RefMatrix r(Q.rows, K.rows);
    for (std::size_t i = 0; i < Q.rows; ++i)
        for (std::size_t j = 0; j < K.rows; ++j) {
            const Ref x = ref_score(score, Q.row(i), Q.cols, K.row(j), K.cols, j, p);
            r.at(i, j) = x.value;
            r.tol_at(i, j) = x.tol;
        }
    return r;
}

// Masking as masked_softmax does it: hidden entries become −inf (exactly known, bound 0).
inline void apply_mask(RefMatrix& s, Mask mask, const std::uint8_t* key_padding) {
    for (std::size_t i = 0; i < s.rows; ++i)
        for (std::size_t j = 0; j < s.cols; ++j)
            if ((mask == Mask::causal && j > i) || (key_padding && key_padding[j])) {
                s.at(i, j) = -std::numeric_limits<double>::infinity();
                s.tol_at(i, j) = 0.0;
            }
}

// Row softmax of S·inv_tau in float64 (finite or −inf scores), with the bound on the float kernels'
// weights. For one row with y_j = (s_j − max)·inv_tau:
//  - the scores themselves err by ≤ δ_j, which moves log w_j by ≤ (δ_j + max_k δ_k)·inv_tau;
//  - the kernel's y_j (a subtraction and a product) errs by ≤ 2ε|y_j|, and exp adds kFnUlps·ε, so
//    e_j has relative error r_j = 2ε|y_j| + kFnUlps·ε;
//  - the sum of the (positive) e_j has relative error ≤ Σ_k w_k r_k + n·ε, and w_j = e_j · (1/sum)
//    adds 2ε.
// The relative bound ρ_j turns into |Δw_j| ≤ w_j·expm1(ρ_j). Weights below float's normal range
// (2^-126) can only be right to an absolute 2^-126, hence the floor.
inline RefMatrix ref_softmax(const RefMatrix& s, double inv_tau) {
    RefMatrix w(s.rows, s.cols);
    const double n = static_cast<double>(s.cols);
    for (std::size_t i = 0; i < s.rows; ++i) {
        double mx = -std::numeric_limits<double>::infinity(), dmax = 0.0;
        for (std::size_t j = 0; j < s.cols; ++j) {
            mx = std::max(mx, s.at(i, j));
            dmax = std::max(dmax, s.tol_at(i, j));
        }
        if (mx == -std::numeric_limits<double>::infinity()) continue;  // fully masked: all zero, exactly
        double sum = 0.0;
        for (std::size_t j = 0; j < s.cols; ++j) sum += std::exp((s.at(i, j) - mx) * inv_tau);
        double sum_rel = n * kEps;
        for (std::size_t j = 0; j < s.cols; ++j) {
            const double y = (s.at(i, j) - mx) * inv_tau;
            w.at(i, j) = std::exp(y) / sum;
            if (std::isfinite(y)) sum_rel += w.at(i, j) * (2.0 * kEps * std::fabs(y) + kFnUlps * kEps);
        }
        for (std::size_t j = 0; j < s.cols; ++j) {
            const double y = (s.at(i, j) - mx) * inv_tau;
            if (!std::isfinite(y)) continue;  // masked: exactly 0
            const double rho = (s.tol_at(i, j) + dmax) * inv_tau + 2.0 * kEps * std::fabs(y) + kFnUlps * kEps +
                               sum_rel + 2.0 * kEps;
            w.tol_at(i, j) = w.at(i, j) * std::expm1(std::min(rho, 50.0)) + 0x1p-126;
        }
    }
    return w;
}

// O = A·V with A given by a reference (values and bounds) and V exact floats:
// |ΔO_ic| ≤ Σ_j |ΔA_ij| |V_jc| + (n+1)ε Σ_j A_ij |V_jc|.
inline RefMatrix ref_weighted_sum(const RefMatrix& a, ConstMatrix V) {
    RefMatrix o(a.rows, V.cols);
    const double n = static_cast<double>(a.cols);
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t c = 0; c < V.cols; ++c) {
            double v = 0.0, tol = 0.0, mag = 0.0;
            for (std::size_t j = 0; j < a.cols; ++j) {
                v += a.at(i, j) * V(j, c);
                tol += a.tol_at(i, j) * std::fabs(V(j, c));
                mag += std::fabs(a.at(i, j) * V(j, c));
            }
            o.at(i, c) = v;
            o.tol_at(i, c) = tol + (n + 1.0) * kEps * mag;
        }
    return o;
}

// C = X·W for exact float X (r x k) and W (k x c, row-major, leading dimension ldw): the bound is the
// dot-product one per entry.
inline RefMatrix ref_matmul(ConstMatrix X, const float* W, std::size_t ldw, std::size_t c) {
    RefMatrix o(X.rows, c);
    for (std::size_t i = 0; i < X.rows; ++i)
        for (std::size_t j = 0; j < c; ++j) {
            o.at(i, j) = dot64(X.row(i), W + j, X.cols, ldw);
            o.tol_at(i, j) = (static_cast<double>(X.cols) + 1.0) * kEps * absdot64(X.row(i), W + j, X.cols, ldw);
        }
    return o;
}

// Variants to run a public function with: every one the dispatch point knows, `automatic` included.
// Parameters for every score (general's W, additive's W1, W2, v, location's Wa with room for
// nk + extra_keys keys), random, owned by the struct; `p` points into them.
struct RandomParams {
    Mat W, W1, W2, v, Wa;
    ScoreParams p;
    RandomParams(Rng& rng, std::size_t dq, std::size_t dk, std::size_t nk, std::size_t hidden = 6,
                 std::size_t extra_keys = 1) {
        W = uniform_matrix(dq, dk, rng);
        W1 = uniform_matrix(hidden, dq, rng);
        W2 = uniform_matrix(hidden, dk, rng);
        v = uniform_matrix(1, hidden, rng);
        Wa = uniform_matrix(nk + extra_keys, dq, rng);
        p.W = W.data();
        p.W1 = W1.data();
        p.W2 = W2.data();
        p.v = v.data();
        p.hidden = hidden;
        p.Wa = Wa.data();
        p.max_keys = nk + extra_keys;
    }
};

inline const std::vector<std::pair<const char*, Variant>>& public_variants() {
    static const std::vector<std::pair<const char*, Variant>> v = {
        {"scalar", Variant::scalar}, {"simd", Variant::simd}, {"auto", Variant::automatic}};
    return v;
}

}  // namespace attnscope::test
