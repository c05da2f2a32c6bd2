// Numerics over the whole float range (issue 15, finding 3): norms and distances stay finite and
// correct for finite inputs from 1e-40 to 3e38, the Euclidean family does not cancel, idw does not
// overflow for large p, and nearest() works on any finite vector. Every case runs through each
// variant (scalar, simd, auto): the variants must agree with the float64 truth, hence with each other.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/embeddings.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;

namespace {

constexpr float kFltMax = std::numeric_limits<float>::max();

Mat run(Score score, const Mat& Q, const Mat& K, Variant v, ScoreParams p = {}) {
    Mat S(Q.rows, K.rows);
    const Status st = compute_scores(score, Q.view(), K.view(), p, S.mview(), v);
    INFO(st.message());
    REQUIRE(st.ok());
    return S;
}

// ||q - k||² in double, directly.
double exact_d2(const float* q, const float* k, std::size_t d) {
    double acc = 0.0;
    for (std::size_t t = 0; t < d; ++t) {
        const double x = static_cast<double>(q[t]) - k[t];
        acc += x * x;
    }
    return acc;
}

double exact_cosine(const float* q, const float* k, std::size_t d) {
    double qk = 0, qq = 0, kk = 0;
    for (std::size_t t = 0; t < d; ++t) {
        qk += static_cast<double>(q[t]) * k[t];
        qq += static_cast<double>(q[t]) * q[t];
        kk += static_cast<double>(k[t]) * k[t];
    }
    return qq > 0 && kk > 0 ? qk / std::sqrt(qq * kk) : 0.0;
}

Mat scaled(const Mat& m, float s) {
    Mat out = m;
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t j = 0; j < m.cols; ++j) out(i, j) = m(i, j) * s;
    return out;
}

// The documented worst-case relative error of the Euclidean family's squared distance: where the
// identity is used, d2 > (qq + kk)/4, and its absolute error (2d + 4)ε(qq + kk) (test_util.hpp) is
// below 4(2d + 4)ε d2; elsewhere the direct double distance is correctly rounded to float.
double d2_rel_bound(std::size_t d) { return (8.0 * static_cast<double>(d) + 16.0) * kEps; }

}  // namespace

TEST_CASE("numerics: cosine of huge and tiny vectors is finite and right", "[numerics]") {
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        // The case: [1e20] with [1e20] was NaN (the squared norm overflowed from 1.85e19).
        CHECK(run(Score::cosine, from_rows({{1e20f}}), from_rows({{1e20f}}), variant)(0, 0) == 1.0f);
        CHECK(run(Score::cosine, from_rows({{3e38f, -3e38f}}), from_rows({{3e38f, 3e38f}, {-1.0f, 1.0f}}), variant)(0, 0) ==
              Approx(0.0).margin(1e-6));
        // Tiny: squares of 1e-40 underflow to 0 in float.
        const Mat tinyq = from_rows({{1e-40f, 1e-40f, 0.0f}});
        const Mat tinyk = from_rows({{1e-40f, 0.0f, 0.0f}, {2e-45f, 2e-45f, 0.0f}, {0.0f, 0.0f, 0.0f}});
        const Mat S = run(Score::cosine, tinyq, tinyk, variant);
        CHECK(S(0, 0) == Approx(std::sqrt(0.5)).epsilon(1e-6));
        CHECK(S(0, 1) == Approx(1.0).epsilon(1e-6));
        CHECK(S(0, 2) == 0.0f);  // the zero vector still scores 0
        // Random rows at every scale against the same rows at scale 1: the cosine ignores the scale.
        Rng rng(15);
        const Mat Q = normal_matrix(9, 33, rng), K = normal_matrix(13, 33, rng);
        const Mat S1 = run(Score::cosine, Q, K, variant);
        for (float s : {1e-42f, 1e-38f, 1e-30f, 1e-15f, 1e15f, 1e19f, 1e25f, 1e36f}) {
            INFO("scale " << s);
            const Mat Ss = run(Score::cosine, scaled(Q, s), K, variant);
            const Mat Sb = run(Score::cosine, scaled(Q, s), scaled(K, s), variant);
            Checker c("cosine at scale");
            for (std::size_t i = 0; i < Q.rows; ++i)
                for (std::size_t j = 0; j < K.rows; ++j) {
                    // 1e-42 is subnormal: the inputs themselves keep only a few bits.
                    const double tol = s < 1e-37f ? 2e-2 : (2.0 * 33 + 8) * kEps * 2;
                    c(Ss(i, j), exact_cosine(scaled(Q, s).row(i), K.row(j), 33), tol, i, j);
                    c(Sb(i, j), S1(i, j), s < 1e-37f ? 2e-2 : 4.0 * (2.0 * 33 + 8) * kEps, i, j);
                }
            ATTNSCOPE_CHECK_ALL(c);
        }
    }
}

TEST_CASE("numerics: the Euclidean family does not cancel", "[numerics]") {
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        // The case: ||q||² + ||k||² − 2q·k gave −0 for [1e4, 0] against [1e4, 1].
        const Mat q = from_rows({{1e4f, 0.0f}}), k = from_rows({{1e4f, 1.0f}});
        CHECK(run(Score::neg_euclidean, q, k, variant)(0, 0) == -1.0f);
        CHECK(run(Score::neg_sq_euclidean, q, k, variant)(0, 0) == -1.0f);
        ScoreParams p;  // idw p = 2, eps = 1e-3: -log(1.001)
        CHECK(run(Score::idw, q, k, variant, p)(0, 0) == Approx(-std::log(1.001)).epsilon(1e-5));
        // Random data around offsets where the identity loses every digit, against the exact distance.
        for (float offset : {0.0f, 1.0f, 1000.0f, 1e6f})
            for (std::size_t d : {3u, 64u, 100u}) {
                INFO("offset " << offset << ", d " << d);
                Rng rng(static_cast<std::uint32_t>(d) + static_cast<std::uint32_t>(offset));
                const Mat Q = uniform_matrix(17, d, rng, offset - 1.0, offset + 1.0);
                const Mat K = uniform_matrix(23, d, rng, offset - 1.0, offset + 1.0);
                const Mat S = run(Score::neg_sq_euclidean, Q, K, variant);
                const Mat E = run(Score::neg_euclidean, Q, K, variant);
                Checker c("neg-sq-euclidean"), ce("neg-euclidean");
                for (std::size_t i = 0; i < Q.rows; ++i)
                    for (std::size_t j = 0; j < K.rows; ++j) {
                        const double d2 = exact_d2(Q.row(i), K.row(j), d);
                        c(-S(i, j), d2, d2_rel_bound(d) * d2, i, j);
                        ce(-E(i, j), std::sqrt(d2), (0.5 * d2_rel_bound(d) + 2 * kEps) * std::sqrt(d2), i, j);
                    }
                ATTNSCOPE_CHECK_ALL(c);
                ATTNSCOPE_CHECK_ALL(ce);
            }
    }
}

// The issue measured weights off by up to 0.128 on data offset by 1000 at d = 64. Bound: each score
// s = −‖q−k‖ errs by at most δ = (4d + 9)ε|s| (from d2_rel_bound); softmax(s/τ) then moves each
// weight by at most 2 max δ/τ times itself, plus the softmax's own (nk + 8)ε.
TEST_CASE("numerics: neg-euclidean weights on data offset by 1000 (d = 64)", "[numerics]") {
    const std::size_t nq = 32, nk = 48, d = 64;
    Rng rng(1000);
    const Mat Q = uniform_matrix(nq, d, rng, 999.0, 1001.0), K = uniform_matrix(nk, d, rng, 999.0, 1001.0);
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        const Mat S = run(Score::neg_euclidean, Q, K, variant);
        Mat A(nq, nk);
        SoftmaxOptions so;
        so.variant = variant;
        REQUIRE(masked_softmax(S.view(), so, A.mview()).ok());
        Checker c("weights");
        for (std::size_t i = 0; i < nq; ++i) {
            std::vector<double> s(nk);
            double mx = -1e300, sum = 0, smax = 0;
            for (std::size_t j = 0; j < nk; ++j) {
                s[j] = -std::sqrt(exact_d2(Q.row(i), K.row(j), d));
                mx = std::max(mx, s[j]);
                smax = std::max(smax, std::fabs(s[j]));
            }
            for (double& x : s) sum += (x = std::exp(x - mx));
            const double delta = (4.0 * d + 9.0) * kEps * smax;
            for (std::size_t j = 0; j < nk; ++j) {
                const double w = s[j] / sum;
                c(A(i, j), w, w * 2.0 * delta + (nk + 8) * kEps, i, j);
            }
        }
        ATTNSCOPE_CHECK_ALL(c);
    }
}

TEST_CASE("numerics: distances of huge and tiny vectors are finite and right", "[numerics]") {
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        const Mat q = from_rows({{1e20f, 0.0f}}), k = from_rows({{0.0f, 1e20f}, {1e20f, 0.0f}, {3e38f, -3e38f}});
        const Mat E = run(Score::neg_euclidean, q, k, variant);
        CHECK(E(0, 0) == Approx(-std::sqrt(2.0) * 1e20).epsilon(1e-6));
        CHECK(E(0, 1) == 0.0f);
        CHECK(E(0, 2) == -kFltMax);  // sqrt(2)·3e38 is beyond float: saturated, not -inf
        // −‖q−k‖² beyond float's range saturates at −FLT_MAX: finite, never −inf ("masked").
        const Mat S = run(Score::neg_sq_euclidean, q, k, variant);
        CHECK(S(0, 0) == -kFltMax);
        CHECK(S(0, 1) == 0.0f);
        ScoreParams p;
        const Mat I = run(Score::idw, q, k, variant, p);
        CHECK(I(0, 0) == Approx(-std::log(2e40)).epsilon(1e-6));
        CHECK(I(0, 1) == Approx(-std::log(1e-3)).epsilon(1e-6));
        // Weights: the farther key gets less, none is NaN.
        Mat A(1, 3);
        SoftmaxOptions so;
        so.variant = variant;
        REQUIRE(masked_softmax(I.view(), so, A.mview()).ok());
        CHECK(A(0, 1) == Approx(1.0));
        CHECK_FALSE(std::isnan(A(0, 0)));
        // Tiny: squares of 1e-30 underflow in float; the distance does not.
        const Mat tq = from_rows({{1e-30f, 0.0f}}), tk = from_rows({{0.0f, 0.0f}, {1e-30f, 2e-30f}});
        const Mat T = run(Score::neg_euclidean, tq, tk, variant);
        CHECK(T(0, 0) == Approx(-1e-30).epsilon(1e-6));
        CHECK(T(0, 1) == Approx(-2e-30).epsilon(1e-6));
        p.eps = 0.0f;  // without eps, idw is -log of the distance itself: finite, and larger for nearer
        const Mat TI = run(Score::idw, tq, tk, variant, p);
        CHECK(TI(0, 0) == Approx(-std::log(1e-60)).epsilon(1e-6));
        CHECK(TI(0, 1) == Approx(-std::log(4e-60)).epsilon(1e-6));
    }
}

TEST_CASE("numerics: one out-of-range component anywhere in a long row sends the row to the exact path", "[numerics]") {
    // The safe-range check reads whole rows (d = 37: vectors and a tail). One component of ±3e30
    // (its square overflows float), or a row of 1e-25 whose largest is 1e-24 (squares underflow), at
    // the start, the middle or the end of the query's row must be seen: the first key has the same
    // component (their distance is moderate, the identity's norms are not), the second not.
    constexpr std::size_t d = 37;
    for (const auto& [vname, variant] : public_variants()) {
        for (const std::size_t at : {std::size_t{0}, std::size_t{17}, d - 1}) {
            for (const float big : {3e30f, -3e30f, 1e-24f}) {
                INFO("variant " << vname << ", component " << at << " = " << big);
                const float base = std::fabs(big) < 1.0f ? 1e-25f : 0.5f;
                Mat q(1, d), k(2, d);
                for (std::size_t t = 0; t < d; ++t) {
                    q(0, t) = base * static_cast<float>(t % 5 + 1);
                    k(0, t) = base * static_cast<float>((t + 2) % 7 + 1);
                    k(1, t) = -base * static_cast<float>(t % 3 + 1);
                }
                q(0, at) = k(0, at) = big;
                ScoreParams p;
                p.eps = 0.0f;
                const Mat E = run(Score::neg_euclidean, q, k, variant), I = run(Score::idw, q, k, variant, p),
                          C = run(Score::cosine, q, k, variant);
                for (std::size_t j = 0; j < 2; ++j) {
                    const double d2 = exact_d2(q.row(0), k.row(j), d);
                    CHECK(E(0, j) == Approx(-std::sqrt(d2)).epsilon(1e-6));
                    CHECK(I(0, j) == Approx(-std::log(d2)).epsilon(1e-6));
                    CHECK(C(0, j) == Approx(exact_cosine(q.row(0), k.row(j), d)).epsilon(1e-5));
                }
            }
        }
    }
}

TEST_CASE("numerics: idw with a large exponent does not overflow to -inf", "[numerics]") {
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        // The case: p = 50, keys 10 and 20 away gave scores [−inf, −inf], weights [0, 0].
        const Mat q = from_rows({{0.0f, 0.0f, 0.0f, 0.0f, 0.0f}});
        const Mat k = from_rows({{10.0f, 0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 20.0f, 0.0f, 0.0f, 0.0f},
                                 {0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, {0.01f, 0.0f, 0.0f, 0.0f, 0.0f}});
        for (float pp : {50.0f, 7.0f, 200.0f})
            for (float eps : {1e-3f, 0.0f, 1.0f}) {
                INFO("p " << pp << ", eps " << eps);
                ScoreParams p;
                p.p = pp;
                p.eps = eps;
                const Mat S = run(Score::idw, q, k, variant, p);
                for (std::size_t j = 0; j < k.rows; ++j) {
                    const double r = j == 0 ? 10.0 : j == 1 ? 20.0 : j == 2 ? 0.0 : static_cast<double>(0.01f);
                    // -log(eps + r^p) = -(L + log1p(eps e^{-L})) with L = p log r, in double.
                    double want;
                    if (r == 0.0) want = eps > 0 ? -std::log(static_cast<double>(eps)) : kInf;
                    else {
                        const double L = pp * std::log(r);
                        const double le = eps > 0 ? std::log(static_cast<double>(eps)) : -kInf;
                        want = -(std::max(L, le) + std::log1p(std::exp(-std::fabs(L - le))));
                    }
                    INFO("key " << j);
                    if (std::isinf(want)) CHECK(S(0, j) == want);
                    else CHECK(S(0, j) == Approx(want).epsilon(1e-5).margin(1e-5));
                }
                if (eps > 0) {
                    Mat A(1, k.rows);
                    SoftmaxOptions so;
                    so.variant = variant;
                    REQUIRE(masked_softmax(S.view(), so, A.mview()).ok());
                    double sum = 0;
                    for (std::size_t j = 0; j < k.rows; ++j) sum += A(0, j);
                    CHECK(sum == Approx(1.0));
                    CHECK(S(0, 0) > S(0, 1));  // nearer key, higher score
                    CHECK(A(0, 2) >= A(0, 0));
                }
            }
        ScoreParams p;
        p.p = 50.0f;
        const Mat S = run(Score::idw, q, from_rows({{10, 0, 0, 0, 0}, {0, 20, 0, 0, 0}}), variant, p);
        CHECK(std::isfinite(S(0, 0)));
        CHECK(S(0, 0) == Approx(-50.0 * std::log(10.0)).epsilon(1e-6));
        CHECK(S(0, 1) == Approx(-50.0 * std::log(20.0)).epsilon(1e-6));
    }
}

// Found by fuzz_scores (tests/fuzz/corpus/scores/crash-idw-huge-p): p = 3.4e38 with keys farther
// than 1 made -p log r overflow to -inf ("masked"); with eps = 0 and nearer keys, to +inf.
TEST_CASE("numerics: idw with an exponent near FLT_MAX saturates instead of reaching infinity", "[numerics]") {
    const Mat q = from_rows({{128, 128}, {1e-30f, 0}}), k = from_rows({{16, 16}, {0.5f, 0}, {0, 0}});
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        for (float eps : {3.39e38f, 1e-3f, 0.0f}) {
            INFO("eps " << eps);
            ScoreParams p;
            p.p = 3.39615e38f;
            p.eps = eps;
            const Mat S = run(Score::idw, q, k, variant, p);
            // r = 158, 180, 22.6: -p log r is about -1e39, beyond float.
            CHECK(S(0, 0) == -kFltMax);
            CHECK(S(0, 1) == -kFltMax);
            CHECK(S(1, 0) == -kFltMax);
            const double le = -std::log(static_cast<double>(eps));
            if (eps > 0.0f) {  // r = 0.5 and 1e-30: r^p vanishes next to eps
                CHECK(S(1, 1) == Approx(le).epsilon(1e-6));
                CHECK(S(1, 2) == Approx(le).epsilon(1e-6));
            } else {  // -p log r: 2.35e38 for r = 0.5 (in range), 2.3e40 for r = 1e-30 (saturated)
                CHECK(S(1, 1) == Approx(-3.39615e38 * std::log(0.5)).epsilon(1e-5));
                CHECK(S(1, 2) == kFltMax);
            }
        }
    }
}

TEST_CASE("numerics: nearest() works on any finite vector", "[numerics][vocab]") {
    Vocabulary v;
    const Status st = Vocabulary::from_file(std::string(ATTNSCOPE_VOCAB_DIR) + "/glove-10k.bin", v);
    INFO(st.message());
    REQUIRE(st.ok());
    std::vector<float> king(v.dim());
    REQUIRE(v.embed("king", king.data()));
    float mx = 0;
    for (float x : king) mx = std::max(mx, std::fabs(x));
    const auto base = v.nearest(king.data(), 5);
    REQUIRE(base.size() == 5);
    // The case: 1e-40 (and components near 3e38) gave NaN cosines, printed as invalid JSON.
    for (double s : {1e-40 / mx, 1e-30 / mx, 1e30 / mx, 3e38 / mx}) {
        INFO("largest component " << s * mx);
        std::vector<float> x(v.dim());
        for (std::size_t j = 0; j < x.size(); ++j) x[j] = static_cast<float>(king[j] * s);
        const auto got = v.nearest(x.data(), 5);
        REQUIRE(got.size() == 5);
        for (std::size_t i = 0; i < 5; ++i) {
            CHECK(std::isfinite(got[i].second));
            CHECK(got[i].first == base[i].first);
            // Subnormal inputs keep fewer bits: 1e-40 has about 17 left.
            CHECK(got[i].second == Approx(base[i].second).epsilon(s * mx < 1e-37 ? 1e-3 : 1e-6));
        }
    }
    std::vector<float> tiny(v.dim(), 1e-40f);
    for (const auto& [index, cosine] : v.nearest(tiny.data(), 3)) {
        CHECK(std::isfinite(cosine));
        CHECK(std::fabs(cosine) <= 1.0f + 1e-6f);
    }
}

// Not run by default: prints the measured errors the README quotes ("Limits and guarantees").
//   build/native/tests/cpp/attnscope_tests "[measure]"
TEST_CASE("numerics: measure the Euclidean family's error", "[.][measure]") {
    for (const auto& [vname, variant] : public_variants()) {
        for (float offset : {0.0f, 1000.0f, 1e6f}) {
            const std::size_t d = 64;
            Rng rng(7);
            const Mat Q = uniform_matrix(256, d, rng, offset - 1.0, offset + 1.0);
            const Mat K = uniform_matrix(256, d, rng, offset - 1.0, offset + 1.0);
            const Mat S = run(Score::neg_sq_euclidean, Q, K, variant);
            const Mat E = run(Score::neg_euclidean, Q, K, variant);
            double worst = 0, worst_e = 0;
            for (std::size_t i = 0; i < Q.rows; ++i)
                for (std::size_t j = 0; j < K.rows; ++j) {
                    const double d2 = exact_d2(Q.row(i), K.row(j), d);
                    worst = std::max(worst, std::fabs(-S(i, j) - d2) / d2);
                    worst_e = std::max(worst_e, std::fabs(-E(i, j) - std::sqrt(d2)) / std::sqrt(d2));
                }
            std::printf("%-6s offset %-8g d=64 256x256: max rel error d2 %.3g (%.1f eps), distance %.3g (%.1f eps); bound d2 %.3g\n",
                        vname, static_cast<double>(offset), worst, worst / kEps, worst_e, worst_e / kEps,
                        d2_rel_bound(d));
        }
    }
}
