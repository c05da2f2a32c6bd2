// The backward passes (attnscope/backward.hpp) against central finite differences of a float64
// forward written here, for every scoring function, through the masked temperature softmax and A·V
// (and the experimental scaled output), on shapes that reach the SIMD tails (1, 3, 5, 17), with
// causal masks, padding, a fully masked row, τ ≠ 1, zero vectors (cosine, idw) and q = k (distance
// scores). Every case runs through each variant of the dispatch point, and the SIMD results are
// compared with the scalar reference's. Then the projections' backward and Adam (a hand-computed
// step, determinism).
//
// Loss: L = Σ dO ⊙ O for a fixed random dO, so dL/dO = dO. Differences: (L(x+h) − L(x−h)) / 2h in
// float64 with h = 1e-5: truncation error h² |L'''| / 6 ≈ 1e-10 and rounding ≈ 1e-16/h ≈ 1e-11 for
// these O(1) losses, far below the float gradient's own error, so the check's tolerance is set by
// float arithmetic: |got − fd| <= 2e-3 |fd| + 2e-4 max(scale, 0.01), where scale is the largest |fd|
// of the matrix. A wrong formula (a missing factor, a dropped term, a transposed product) errs by a
// sizeable part of `scale`, far outside it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/backward.hpp"
#include "attnscope/optim.hpp"
#include "attnscope/projection.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;

namespace {

constexpr double kH = 1e-5;

// One attention problem: float inputs for the library, the same numbers in float64 for the reference.
struct Problem {
    Score score = Score::dot;
    std::size_t nq = 0, nk = 0, d = 0, dk = 0, dv = 0, hidden = 0, max_keys = 0;
    float tau = 1.0f, p = 2.0f, eps = 0.05f;
    Mask mask = Mask::none;
    std::vector<std::uint8_t> padding;  // empty = none
    bool experimental = false;
    std::vector<double> Q, K, V, dO, W, W1, W2, v, Wa, Wx;  // dense row-major, float64
};

// Float copies of a problem (row padding `pad` on Q, K, V and dO to exercise strides).
struct Floats {
    Mat Q, K, V, dO;
    std::vector<float> W, W1, W2, v, Wa, Wx;
};

std::vector<float> to_float(const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); }

Mat to_mat(const std::vector<double>& x, std::size_t rows, std::size_t cols, std::size_t pad) {
    Mat m(rows, cols, pad);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) m(i, j) = static_cast<float>(x[i * cols + j]);
    return m;
}

Floats floats_of(const Problem& pr, std::size_t pad) {
    Floats f;
    f.Q = to_mat(pr.Q, pr.nq, pr.d, pad);
    f.K = to_mat(pr.K, pr.nk, pr.dk, pad + 1);
    f.V = to_mat(pr.V, pr.nk, pr.dv, pad);
    f.dO = to_mat(pr.dO, pr.nq, pr.dv, pad + 1);
    f.W = to_float(pr.W);
    f.W1 = to_float(pr.W1);
    f.W2 = to_float(pr.W2);
    f.v = to_float(pr.v);
    f.Wa = to_float(pr.Wa);
    f.Wx = to_float(pr.Wx);
    return f;
}

// Values exactly representable in float (the float and float64 problems are then the same problem).
std::vector<double> random_values(std::size_t n, Rng& rng, double lo = -1.0, double hi = 1.0) {
    std::vector<double> x(n);
    for (auto& e : x) e = rng.uniform(lo, hi);
    return x;
}

bool hidden(const Problem& pr, std::size_t i, std::size_t j) {
    return (pr.mask == Mask::causal && j > i) || (!pr.padding.empty() && pr.padding[j] != 0);
}

// ---- the float64 forward --------------------------------------------------------------------------
double score64(const Problem& pr, std::size_t i, std::size_t j) {
    const double* q = pr.Q.data() + i * pr.d;
    const double* k = pr.K.data() + j * pr.dk;
    const std::size_t d = pr.d, dk = pr.dk;
    auto dot = [&] {
        double s = 0.0;
        for (std::size_t t = 0; t < d; ++t) s += q[t] * k[t];
        return s;
    };
    auto d2 = [&] {
        double s = 0.0;
        for (std::size_t t = 0; t < d; ++t) s += (q[t] - k[t]) * (q[t] - k[t]);
        return s;
    };
    switch (pr.score) {
        case Score::dot: return dot();
        case Score::scaled_dot: return dot() / std::sqrt(static_cast<double>(d));
        case Score::cosine: {
            double qq = 0.0, kk = 0.0;
            for (std::size_t t = 0; t < d; ++t) {
                qq += q[t] * q[t];
                kk += k[t] * k[t];
            }
            return qq > 0.0 && kk > 0.0 ? dot() / std::sqrt(qq * kk) : 0.0;
        }
        case Score::general: {
            double s = 0.0;
            for (std::size_t a = 0; a < d; ++a)
                for (std::size_t b = 0; b < dk; ++b) s += q[a] * pr.W[a * dk + b] * k[b];
            return s;
        }
        case Score::additive: {
            double s = 0.0;
            for (std::size_t t = 0; t < pr.hidden; ++t) {
                double x = 0.0;
                for (std::size_t a = 0; a < d; ++a) x += pr.W1[t * d + a] * q[a];
                for (std::size_t b = 0; b < dk; ++b) x += pr.W2[t * dk + b] * k[b];
                s += pr.v[t] * std::tanh(x);
            }
            return s;
        }
        case Score::location: {
            double s = 0.0;
            for (std::size_t a = 0; a < d; ++a) s += pr.Wa[j * d + a] * q[a];
            return s;
        }
        case Score::neg_euclidean: return -std::sqrt(d2());
        case Score::neg_sq_euclidean: return -d2();
        case Score::neg_manhattan: {
            double s = 0.0;
            for (std::size_t t = 0; t < d; ++t) s += std::fabs(q[t] - k[t]);
            return -s;
        }
        case Score::idw: return -std::log(static_cast<double>(pr.eps) + std::pow(d2(), 0.5 * static_cast<double>(pr.p)));
    }
    return 0.0;
}

double loss64(const Problem& pr) {
    const std::size_t nq = pr.nq, nk = pr.nk, dv = pr.dv;
    double L = 0.0;
    std::vector<double> s(nk), o(dv);
    for (std::size_t i = 0; i < nq; ++i) {
        double mx = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < nk; ++j) {
            s[j] = hidden(pr, i, j) ? -std::numeric_limits<double>::infinity() : score64(pr, i, j) / pr.tau;
            mx = std::max(mx, s[j]);
        }
        std::fill(o.begin(), o.end(), 0.0);
        if (mx != -std::numeric_limits<double>::infinity()) {  // a fully masked row outputs zeros
            double sum = 0.0;
            for (std::size_t j = 0; j < nk; ++j) sum += (s[j] = std::exp(s[j] - mx));
            for (std::size_t j = 0; j < nk; ++j)
                for (std::size_t c = 0; c < dv; ++c) o[c] += s[j] / sum * pr.V[j * dv + c];
        }
        if (pr.experimental) {
            for (std::size_t c = 0; c < dv; ++c) {
                double x = 0.0;
                for (std::size_t t = 0; t < dv; ++t) x += o[t] * pr.Wx[t * dv + c];
                L += pr.dO[i * dv + c] * x / std::sqrt(static_cast<double>(dv));
            }
        } else {
            for (std::size_t c = 0; c < dv; ++c) L += pr.dO[i * dv + c] * o[c];
        }
    }
    return L;
}

// ---- checking ------------------------------------------------------------------------------------
// Central differences of loss64 over every entry of x (rows x cols), against the float gradient `got`.
// Rows for which skip_row(i) holds are not differentiable there (cosine's zero vectors): their
// gradient must be exactly 0 by convention.
void check_fd(const std::string& what, Problem& pr, std::vector<double>& x, std::size_t rows, std::size_t cols,
              const Tensor& got, const std::function<bool(std::size_t)>& skip_row = {}) {
    INFO(what);
    REQUIRE(got.rows == rows);
    REQUIRE(got.cols == cols);
    std::vector<double> fd(rows * cols, 0.0);
    double scale = 0.0;
    for (std::size_t i = 0; i < rows; ++i) {
        if (skip_row && skip_row(i)) continue;
        for (std::size_t j = 0; j < cols; ++j) {
            double& e = x[i * cols + j];
            const double old = e;
            e = old + kH;
            const double lp = loss64(pr);
            e = old - kH;
            const double lm = loss64(pr);
            e = old;
            fd[i * cols + j] = (lp - lm) / (2.0 * kH);
            scale = std::max(scale, std::fabs(fd[i * cols + j]));
        }
    }
    Checker c(what + " vs central differences");
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            const double want = fd[i * cols + j];
            const double tol = (skip_row && skip_row(i)) ? 0.0 : 2e-3 * std::fabs(want) + 2e-4 * std::max(scale, 0.01);
            c(got(i, j), want, tol, i, j);
        }
    ATTNSCOPE_CHECK_ALL(c);
}

// SIMD (or auto) against the scalar reference: both lie near the exact gradient; 1e-4 of the
// matrix's largest entry is far above float rounding here and far below any real disagreement. The
// floor (1e-6 absolute) covers gradients that cancel to ~0 from O(1) terms (cosine in one dimension,
// whose exact gradient is 0, leaves float noise of a few 1e-7).
void check_same(const std::string& what, const Tensor& got, const Tensor& ref) {
    INFO(what);
    REQUIRE(got.rows == ref.rows);
    REQUIRE(got.cols == ref.cols);
    double scale = 0.0;
    for (float e : ref.values) scale = std::max(scale, static_cast<double>(std::fabs(e)));
    Checker c(what + " vs scalar");
    for (std::size_t i = 0; i < ref.rows; ++i)
        for (std::size_t j = 0; j < ref.cols; ++j) c(got(i, j), ref(i, j), 1e-4 * std::max(scale, 1e-2), i, j);
    ATTNSCOPE_CHECK_ALL(c);
}

// The configurations every shape runs with: mask, temperature, padding.
struct Config {
    const char* name;
    Mask mask;
    float tau;
    int padding;  // -1 none; else pad the key at this index (0 fully masks row 0 under causal)
};
const Config kConfigs[] = {
    {"no mask, tau=1", Mask::none, 1.0f, -1},
    {"causal, tau=0.5", Mask::causal, 0.5f, -1},
    {"padding of the last key, tau=2.5", Mask::none, 2.5f, 1000},
    {"causal + padding of key 0 (row 0 fully masked), tau=1.5", Mask::causal, 1.5f, 0},
};

struct Shape {
    std::size_t nq, nk, d, dv;
};
// Sizes 1, 3, 5 and 17 in every role: below one SIMD vector, one more than a vector, several vectors
// and a tail.
const Shape kShapes[] = {{1, 1, 1, 1}, {3, 5, 17, 3}, {5, 3, 5, 5}, {4, 17, 3, 1}, {17, 4, 1, 17}};

Problem make_problem(Score score, const Shape& sh, const Config& cf, std::uint32_t seed) {
    Rng rng(seed);
    Problem pr;
    pr.score = score;
    pr.nq = sh.nq;
    pr.nk = sh.nk;
    pr.d = sh.d;
    pr.dv = sh.dv;
    pr.dk = score_has_weights(score) && score != Score::location ? sh.d + 1 : sh.d;  // another key width
    pr.tau = cf.tau;
    pr.mask = cf.mask;
    if (cf.padding >= 0) {
        pr.padding.assign(pr.nk, 0);
        pr.padding[std::min<std::size_t>(static_cast<std::size_t>(cf.padding), pr.nk - 1)] = 1;
    }
    pr.Q = random_values(pr.nq * pr.d, rng);
    pr.K = random_values(pr.nk * pr.dk, rng);
    pr.V = random_values(pr.nk * pr.dv, rng);
    pr.dO = random_values(pr.nq * pr.dv, rng);
    if (score == Score::general) pr.W = random_values(pr.d * pr.dk, rng);
    if (score == Score::additive) {
        pr.hidden = 5;
        pr.W1 = random_values(pr.hidden * pr.d, rng);
        pr.W2 = random_values(pr.hidden * pr.dk, rng);
        pr.v = random_values(pr.hidden, rng);
    }
    if (score == Score::location) {
        pr.max_keys = pr.nk + 2;  // rows for key positions that do not occur get zero gradient
        pr.Wa = random_values(pr.max_keys * pr.d, rng);
    }
    // q = k: the last query equals key 0 (visible under the causal mask).
    const bool distance = score == Score::neg_euclidean || score == Score::neg_sq_euclidean || score == Score::idw ||
                          score == Score::neg_manhattan;
    if (distance)
        for (std::size_t t = 0; t < pr.d; ++t) pr.Q[(pr.nq - 1) * pr.d + t] = pr.K[t];
    // neg-manhattan has a kink in every coordinate: values on a grid of 1/64, so that two coordinates
    // are either equal (sign 0 and a central difference of 0 alike) or at least 1/64 ≫ h apart.
    if (score == Score::neg_manhattan) {
        for (auto& x : pr.Q) x = std::round(x * 64.0) / 64.0;
        for (auto& x : pr.K) x = std::round(x * 64.0) / 64.0;
    }
    // Zero vectors: query 1 and the last key (when there is another query and key to keep).
    if (score == Score::cosine || score == Score::idw) {
        if (pr.nq > 2)
            for (std::size_t t = 0; t < pr.d; ++t) pr.Q[1 * pr.d + t] = 0.0;
        if (pr.nk > 1)
            for (std::size_t t = 0; t < pr.dk; ++t) pr.K[(pr.nk - 1) * pr.dk + t] = 0.0;
    }
    return pr;
}

AttentionOptions options_of(const Problem& pr, Floats& f, Variant variant) {
    AttentionOptions o;
    o.score = pr.score;
    o.temperature = pr.tau;
    o.mask = pr.mask;
    o.key_padding = pr.padding.empty() ? nullptr : pr.padding.data();
    o.variant = variant;
    o.params.W = f.W.empty() ? nullptr : f.W.data();
    o.params.W1 = f.W1.empty() ? nullptr : f.W1.data();
    o.params.W2 = f.W2.empty() ? nullptr : f.W2.data();
    o.params.v = f.v.empty() ? nullptr : f.v.data();
    o.params.hidden = pr.hidden;
    o.params.Wa = f.Wa.empty() ? nullptr : f.Wa.data();
    o.params.max_keys = pr.max_keys;
    o.params.p = pr.p;
    o.params.eps = pr.eps;
    o.experimental_scaled_output = pr.experimental;
    o.W_extra = f.Wx.empty() ? nullptr : f.Wx.data();
    return o;
}

AttentionGrads backward(const Problem& pr, Variant variant, std::size_t pad) {
    Floats f = floats_of(pr, pad);
    const AttentionOptions o = options_of(pr, f, variant);
    AttentionGrads g;
    const Status st = attention_backward(f.Q.view(), f.K.view(), f.V.view(), o, f.dO.view(), g);
    INFO(st.message());
    REQUIRE(st.ok());
    return g;
}

// Every gradient of one problem, with every variant, against differences and against scalar.
void check_problem(Problem& pr, std::size_t pad) {
    const AttentionGrads ref = backward(pr, Variant::scalar, pad);
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        const AttentionGrads g = variant == Variant::scalar ? ref : backward(pr, variant, pad);
        auto zero_q = [&](std::size_t i) { return pr.score == Score::cosine && pr.nq > 2 && i == 1; };
        auto zero_k = [&](std::size_t j) { return pr.score == Score::cosine && pr.nk > 1 && j == pr.nk - 1; };
        check_fd("dQ", pr, pr.Q, pr.nq, pr.d, g.dQ, zero_q);
        check_fd("dK", pr, pr.K, pr.nk, pr.dk, g.dK, zero_k);
        check_fd("dV", pr, pr.V, pr.nk, pr.dv, g.dV);
        if (pr.score == Score::general) check_fd("dW", pr, pr.W, pr.d, pr.dk, g.dW);
        if (pr.score == Score::additive) {
            check_fd("dW1", pr, pr.W1, pr.hidden, pr.d, g.dW1);
            check_fd("dW2", pr, pr.W2, pr.hidden, pr.dk, g.dW2);
            check_fd("dv", pr, pr.v, 1, pr.hidden, g.dv);
        }
        if (pr.score == Score::location) check_fd("dWa", pr, pr.Wa, pr.max_keys, pr.d, g.dWa);
        if (pr.experimental) check_fd("dW_extra", pr, pr.Wx, pr.dv, pr.dv, g.dW_extra);
        // Parameters a score does not have stay empty.
        if (pr.score != Score::general) CHECK(g.dW.values.empty());
        if (pr.score != Score::location) CHECK(g.dWa.values.empty());
        if (!pr.experimental) CHECK(g.dW_extra.values.empty());
        if (variant != Variant::scalar) {
            check_same("dQ", g.dQ, ref.dQ);
            check_same("dK", g.dK, ref.dK);
            check_same("dV", g.dV, ref.dV);
            check_same("dW", g.dW, ref.dW);
            check_same("dW1", g.dW1, ref.dW1);
            check_same("dW2", g.dW2, ref.dW2);
            check_same("dv", g.dv, ref.dv);
            check_same("dWa", g.dWa, ref.dWa);
            check_same("dW_extra", g.dW_extra, ref.dW_extra);
        }
    }
}

void check_score(Score score) {
    std::uint32_t seed = 1400;
    for (const Shape& sh : kShapes)
        for (const Config& cf : kConfigs) {
            Problem pr = make_problem(score, sh, cf, ++seed);
            INFO("score " << score_info(score).name << ", nq=" << sh.nq << " nk=" << sh.nk << " d=" << sh.d
                          << " dk=" << pr.dk << " dv=" << sh.dv << ", " << cf.name);
            check_problem(pr, seed % 2);
        }
}

}  // namespace

// One test case per scoring function of the registry, named by it.
TEST_CASE("backward: every score against central differences in float64", "[gradients]") {
    for (const ScoreInfo& info : score_infos())
        DYNAMIC_SECTION("score " << info.name) { check_score(info.id); }
}

TEST_CASE("backward: idw with p = 1, 3 and eps = 0 away from q = k", "[gradients]") {
    for (float p : {1.0f, 3.0f})
        for (float eps : {0.0f, 0.3f}) {
            Problem pr = make_problem(Score::idw, {3, 5, 5, 3}, kConfigs[1], 77);
            pr.p = p;
            pr.eps = eps;
            if (eps == 0.0f) {
                // ε = 0 scores +inf at q = k (a convention of the forward with no derivative): keep
                // every query away from every key.
                for (auto& x : pr.Q) x += 3.0;
            }
            INFO("p=" << p << " eps=" << eps);
            check_problem(pr, 1);
        }
}

TEST_CASE("backward: the experimental scaled output O = A V W_extra / sqrt(d_v)", "[gradients]") {
    std::uint32_t seed = 1500;
    for (const Shape& sh : kShapes)
        for (Score score : {Score::scaled_dot, Score::neg_euclidean}) {
            ++seed;
            Problem pr = make_problem(score, sh, kConfigs[seed % 4], seed);
            pr.experimental = true;
            Rng rng(seed);
            pr.Wx = random_values(pr.dv * pr.dv, rng);
            INFO("score " << score_info(score).name << ", nq=" << sh.nq << " nk=" << sh.nk << " d=" << sh.d << " dv=" << sh.dv);
            check_problem(pr, 0);
        }
}

TEST_CASE("backward: conventions — zero vectors, q = k, masked entries", "[gradients]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            // Cosine: the rows of zero vectors get exactly zero gradient.
            Problem pr = make_problem(Score::cosine, {4, 17, 3, 1}, kConfigs[0], 9);
            const AttentionGrads g = backward(pr, variant, 1);
            for (std::size_t t = 0; t < pr.d; ++t) CHECK(g.dQ(1, t) == 0.0f);
            for (std::size_t t = 0; t < pr.dk; ++t) CHECK(g.dK(pr.nk - 1, t) == 0.0f);

            // neg-euclidean at q = k, the only key: the subgradient 0 (not NaN from 0/0).
            Problem one = make_problem(Score::neg_euclidean, {1, 1, 5, 2}, kConfigs[0], 10);
            for (std::size_t t = 0; t < one.d; ++t) one.Q[t] = one.K[t];
            Floats f = floats_of(one, 0);
            ScoreGrads sg;
            const Mat dS = from_rows({{1.0f}});
            REQUIRE(compute_scores_backward(Score::neg_euclidean, f.Q.view(), f.K.view(), {}, dS.view(), sg, variant).ok());
            for (float x : sg.dQ.values) CHECK(x == 0.0f);
            for (float x : sg.dK.values) CHECK(x == 0.0f);

            // Softmax backward: masked entries exactly 0 even when dA there is huge; a fully masked row 0.
            const Mat A = from_rows({{0.0f, 0.0f, 0.0f}, {0.25f, 0.75f, 0.0f}, {0.5f, 0.25f, 0.25f}});
            const Mat dA = from_rows({{1e30f, -3.0f, 2.0f}, {1.0f, 2.0f, 1e30f}, {1.0f, -1.0f, 3.0f}});
            const std::uint8_t pad[3] = {0, 0, 1};
            SoftmaxOptions so;
            so.mask = Mask::causal;
            so.key_padding = pad;
            so.variant = variant;
            so.temperature = 2.0f;
            Mat dS2(3, 3);
            REQUIRE(masked_softmax_backward(A.view(), dA.view(), so, dS2.mview()).ok());
            for (std::size_t j = 0; j < 3; ++j) CHECK(dS2(0, j) == 0.0f);
            CHECK(dS2(1, 2) == 0.0f);
            CHECK(dS2(2, 2) == 0.0f);
            // row 1: r = 0.25 + 1.5 = 1.75; dS = A (dA − r) / τ
            CHECK(dS2(1, 0) == Approx(0.25 * (1.0 - 1.75) / 2.0).epsilon(1e-6));
            CHECK(dS2(1, 1) == Approx(0.75 * (2.0 - 1.75) / 2.0).epsilon(1e-6));
        }
}

TEST_CASE("backward: errors name the argument", "[gradients]") {
    const Mat Q = from_rows({{1, 2}, {3, 4}}), K = from_rows({{1, 0}, {0, 1}, {1, 1}}), V = from_rows({{1}, {2}, {3}});
    const Mat dS_bad(2, 2), dO_bad(3, 1);
    ScoreGrads sg;
    Status st = compute_scores_backward(Score::dot, Q.view(), K.view(), {}, dS_bad.view(), sg);
    CHECK_THAT(st.message(), Contains("dS: expected 2x3"));
    const Mat dS(2, 3);
    st = compute_scores_backward(Score::general, Q.view(), K.view(), {}, dS.view(), sg);
    CHECK_THAT(st.message(), Contains("W: score 'general' needs W"));
    AttentionGrads ag;
    st = attention_backward(Q.view(), K.view(), V.view(), {}, dO_bad.view(), ag);
    CHECK_THAT(st.message(), Contains("dO: expected 2x1"));
    AttentionOptions bad_tau;
    bad_tau.temperature = 0.0f;
    st = attention_backward(Q.view(), K.view(), V.view(), bad_tau, Mat(2, 1).view(), ag);
    CHECK_THAT(st.message(), Contains("temperature"));
    Mat dW(2, 2), dX(2, 2);
    st = linear_backward(Q.view(), K.view(), Mat(2, 2).view(), dX.mview(), dW.mview());
    CHECK_THAT(st.message(), Contains("W: expected 2 rows"));
}

// Y = X W: dW = Xᵀ dY and dX = dY Wᵀ against differences of L = Σ dY ⊙ (X W) in float64.
TEST_CASE("backward: projections Y = X W (W_q, W_k, W_v, W_o)", "[gradients]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(31);
            for (const Shape& sh : kShapes) {
                const std::size_t n = sh.nk, din = sh.d, dout = sh.dv + 2;
                std::vector<double> X = random_values(n * din, rng), Wm = random_values(din * dout, rng),
                                    dY = random_values(n * dout, rng);
                auto loss = [&] {
                    double L = 0.0;
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t c = 0; c < dout; ++c) {
                            double y = 0.0;
                            for (std::size_t t = 0; t < din; ++t) y += X[i * din + t] * Wm[t * dout + c];
                            L += dY[i * dout + c] * y;
                        }
                    return L;
                };
                const Mat Xf = to_mat(X, n, din, 1), Wf = to_mat(Wm, din, dout, 2), dYf = to_mat(dY, n, dout, 0);
                Mat dX(n, din, 1), dW(din, dout, 1);
                REQUIRE(linear_backward(Xf.view(), Wf.view(), dYf.view(), dX.mview(), dW.mview(), variant).ok());
                CHECK(dX.padding_intact());
                CHECK(dW.padding_intact());
                auto fd_check = [&](const char* what, std::vector<double>& x, const Mat& got) {
                    Checker c(what);
                    for (std::size_t i = 0; i < got.rows; ++i)
                        for (std::size_t j = 0; j < got.cols; ++j) {
                            double& e = x[i * got.cols + j];
                            const double old = e;
                            e = old + kH;
                            const double lp = loss();
                            e = old - kH;
                            const double lm = loss();
                            e = old;
                            const double want = (lp - lm) / (2.0 * kH);
                            c(got(i, j), want, 1e-4 * (1.0 + std::fabs(want)), i, j);
                        }
                    ATTNSCOPE_CHECK_ALL(c);
                };
                INFO("n=" << n << " d_in=" << din << " d_out=" << dout);
                fd_check("dX", X, dX);
                fd_check("dW", Wm, dW);
                // dX skipped: only dW is written.
                Mat dW2(din, dout);
                REQUIRE(linear_backward(Xf.view(), Wf.view(), dYf.view(), Matrix(), dW2.mview(), variant).ok());
                for (std::size_t i = 0; i < din; ++i)
                    for (std::size_t j = 0; j < dout; ++j) CHECK(dW2(i, j) == dW(i, j));
            }
        }
}

// ---- Adam ----------------------------------------------------------------------------------------

TEST_CASE("adam: two steps against a hand computation", "[gradients][adam]") {
    AdamOptions o;
    o.learning_rate = 0.01f;
    o.beta1 = 0.9f;
    o.beta2 = 0.999f;
    o.epsilon = 1e-8f;
    Adam adam;
    REQUIRE(adam.init(3, o).ok());
    float theta[3] = {1.0f, -2.0f, 0.5f};
    const float g1[3] = {0.1f, -0.3f, 0.0f}, g2[3] = {-0.2f, 0.4f, 0.5f};
    REQUIRE(adam.step(theta, g1, 3).ok());
    // Step 1: m = (1−β1) g, v = (1−β2) g², m̂ = g, v̂ = g²: θ −= α g / (|g| + ε), i.e. α sign(g); 0 stays.
    double m[3], v[3], want[3] = {1.0, -2.0, 0.5};
    const double b1 = 0.9f, b2 = 0.999f, lr = 0.01f, eps = 1e-8f;
    for (int i = 0; i < 3; ++i) {
        m[i] = (1 - b1) * g1[i];
        v[i] = (1 - b2) * g1[i] * g1[i];
        want[i] -= lr * (m[i] / (1 - b1)) / (std::sqrt(v[i] / (1 - b2)) + eps);
    }
    CHECK(theta[0] == Approx(0.99).epsilon(1e-6));
    CHECK(theta[1] == Approx(-1.99).epsilon(1e-6));
    CHECK(theta[2] == 0.5f);
    for (int i = 0; i < 3; ++i) CHECK(theta[i] == Approx(want[i]).epsilon(1e-6));
    REQUIRE(adam.step(theta, g2, 3).ok());
    for (int i = 0; i < 3; ++i) {
        m[i] = b1 * m[i] + (1 - b1) * g2[i];
        v[i] = b2 * v[i] + (1 - b2) * g2[i] * g2[i];
        want[i] -= lr * (m[i] / (1 - b1 * b1)) / (std::sqrt(v[i] / (1 - b2 * b2)) + eps);
        CHECK(theta[i] == Approx(want[i]).epsilon(1e-6));
        CHECK(adam.first_moment()[i] == Approx(m[i]).epsilon(1e-6));
        CHECK(adam.second_moment()[i] == Approx(v[i]).epsilon(1e-5));
    }
    CHECK(adam.steps() == 2);
    adam.reset();
    CHECK(adam.steps() == 0);
    CHECK(adam.first_moment()[1] == 0.0f);

    CHECK_THAT(adam.step(theta, g1, 2).message(), Contains("expected 3 values"));
    AdamOptions bad = o;
    bad.beta1 = 1.0f;
    CHECK_THAT(Adam().init(3, bad).message(), Contains("beta1"));
    bad = o;
    bad.learning_rate = -1.0f;
    CHECK_THAT(Adam().init(3, bad).message(), Contains("learning_rate"));
}

namespace {
// A small training run: one general-score head's W_q, W_k, W (seeded Xavier) trained by Adam to
// match fixed targets; returns every parameter and loss as bytes.
std::vector<float> train(std::uint32_t seed, Variant variant, int steps) {
    const std::size_t n = 5, din = 6, dh = 3;
    std::vector<float> X = xavier_uniform(n, din, 7, 1), Wq = xavier_uniform(din, dh, seed, 2),
                       Wk = xavier_uniform(din, dh, seed, 3), W = xavier_uniform(dh, dh, seed, 4);
    std::vector<float> V = xavier_uniform(n, 2, 7, 5), target = xavier_uniform(n, 2, 7, 6);
    Adam aq, ak, aw;
    AdamOptions ao;
    ao.learning_rate = 0.05f;
    REQUIRE(aq.init(Wq.size(), ao).ok());
    REQUIRE(ak.init(Wk.size(), ao).ok());
    REQUIRE(aw.init(W.size(), ao).ok());
    std::vector<float> trace;
    for (int s = 0; s < steps; ++s) {
        Tensor Q(n, dh), K(n, dh), S(n, n), A(n, n), O(n, 2);
        const ConstMatrix Xv(X.data(), n, din);
        // Q = X Wq and K = X Wk in plain loops; linear_backward below differentiates them.
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < dh; ++c) {
                float q = 0.0f, k = 0.0f;
                for (std::size_t t = 0; t < din; ++t) {
                    q += X[i * din + t] * Wq[t * dh + c];
                    k += X[i * din + t] * Wk[t * dh + c];
                }
                Q(i, c) = q;
                K(i, c) = k;
            }
        AttentionOptions o;
        o.score = Score::general;
        o.params.W = W.data();
        o.mask = Mask::causal;
        o.variant = variant;
        REQUIRE(attention(Q.view(), K.view(), ConstMatrix(V.data(), n, 2), o, S.view(), A.view(), O.view()).ok());
        Tensor dO(n, 2);
        float loss = 0.0f;
        for (std::size_t i = 0; i < n * 2; ++i) {
            const float e = O.values[i] - target[i];
            loss += 0.5f * e * e;
            dO.values[i] = e;
        }
        trace.push_back(loss);
        AttentionGrads g;
        REQUIRE(attention_backward(Q.view(), K.view(), ConstMatrix(V.data(), n, 2), o, dO.view(), g).ok());
        Tensor dWq(din, dh), dWk(din, dh);
        REQUIRE(linear_backward(Xv, ConstMatrix(Wq.data(), din, dh), g.dQ.view(), Matrix(), dWq.view(), variant).ok());
        REQUIRE(linear_backward(Xv, ConstMatrix(Wk.data(), din, dh), g.dK.view(), Matrix(), dWk.view(), variant).ok());
        REQUIRE(aq.step(Wq.data(), dWq.values.data(), Wq.size()).ok());
        REQUIRE(ak.step(Wk.data(), dWk.values.data(), Wk.size()).ok());
        REQUIRE(aw.step(W.data(), g.dW.values.data(), W.size()).ok());
    }
    trace.insert(trace.end(), Wq.begin(), Wq.end());
    trace.insert(trace.end(), Wk.begin(), Wk.end());
    trace.insert(trace.end(), W.begin(), W.end());
    return trace;
}
}  // namespace

TEST_CASE("adam: training is deterministic for a seed and lowers the loss", "[gradients][adam]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            const int steps = 60;
            const std::vector<float> a = train(42, variant, steps), b = train(42, variant, steps),
                                     c = train(43, variant, steps);
            REQUIRE(a.size() == b.size());
            CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);  // same seed: same bytes
            CHECK(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)) != 0);  // another seed: another run
            // The loss falls: the gradients point downhill and Adam follows them.
            CHECK(a[steps - 1] < 0.75f * a[0]);
        }
}
