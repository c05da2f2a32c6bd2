// compute_scores: hand-computed cases for every scoring function, random inputs against the float64
// references of test_util.hpp, the math of the scores as property tests, and the error messages.
// Every case runs through each variant of the dispatch point (scalar, simd, auto).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// Runs compute_scores into a fresh (padded) S and requires success.
Mat scores(Score score, const Mat& Q, const Mat& K, const ScoreParams& p, Variant v, std::size_t pad = 0) {
    Mat S(Q.rows, K.rows, pad, 7777.0f);
    const Status st = compute_scores(score, Q.view(), K.view(), p, S.mview(), v);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(S.padding_intact());
    return S;
}

// The hand-computed example: ‖q1‖ = 3, ‖q2‖ = 5, ‖k1‖ = ‖k2‖ = 3, k3 = 0, and q1 = k2.
const Mat kQ = from_rows({{1, 2, 2}, {0, 3, 4}});
const Mat kK = from_rows({{2, 1, -2}, {1, 2, 2}, {0, 0, 0}});
//                         q·k1   q·k2   q·k3
const double kDot[2][3] = {{0, 9, 0}, {-5, 14, 0}};
//                              ‖q−k1‖²  ‖q−k2‖²  ‖q−k3‖²   (q1−k1 = (−1,1,4), q2−k1 = (−2,2,6), q2−k2 = (−1,1,2))
const double kSqDist[2][3] = {{18, 0, 9}, {44, 6, 25}};

// Closed-form expectations are either exact (small integers: every float operation is exact) or
// go through sqrt/log/tanh, where a relative 1e-6 (about 8 ulps) is plenty.
void check_table(const Mat& S, const std::vector<std::vector<double>>& want, bool exact) {
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            INFO("entry (" << i << ", " << j << ")");
            if (exact)
                CHECK(S(i, j) == want[i][j]);
            else
                CHECK(S(i, j) == Approx(want[i][j]).epsilon(1e-6).margin(1e-6));
        }
}

std::vector<std::vector<double>> table(double (*f)(std::size_t, std::size_t), std::size_t rows = 2, std::size_t cols = 3) {
    std::vector<std::vector<double>> t(rows, std::vector<double>(cols));
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) t[i][j] = f(i, j);
    return t;
}

}  // namespace

TEST_CASE("scores: closed-form cases of every scoring function", "[scores]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            const Variant v = variant;
            ScoreParams none;
            SECTION("dot") {
                check_table(scores(Score::dot, kQ, kK, none, v), table([](std::size_t i, std::size_t j) { return kDot[i][j]; }), true);
            }
            SECTION("scaled-dot: q·k / √3") {
                check_table(scores(Score::scaled_dot, kQ, kK, none, v),
                            table([](std::size_t i, std::size_t j) { return kDot[i][j] / std::sqrt(3.0); }), false);
            }
            SECTION("cosine: a zero key scores 0") {
                check_table(scores(Score::cosine, kQ, kK, none, v), {{0, 1, 0}, {-1.0 / 3.0, 14.0 / 15.0, 0}}, false);
            }
            SECTION("neg-sq-euclidean") {
                check_table(scores(Score::neg_sq_euclidean, kQ, kK, none, v),
                            table([](std::size_t i, std::size_t j) { return -kSqDist[i][j]; }), true);
            }
            SECTION("neg-euclidean") {
                check_table(scores(Score::neg_euclidean, kQ, kK, none, v),
                            {{-3 * std::sqrt(2.0), 0, -3}, {-2 * std::sqrt(11.0), -std::sqrt(6.0), -5}}, false);
            }
            SECTION("neg-manhattan: minus the L1 distance") {
                // q1−k1 = (−1,1,4), q1 = k2, q1−k3 = q1; q2−k1 = (−2,2,6), q2−k2 = (−1,1,2), q2−k3 = q2.
                check_table(scores(Score::neg_manhattan, kQ, kK, none, v), {{-6, 0, -5}, {-10, -4, -7}}, true);
            }
            SECTION("idw, p = 2 and p = 1, eps = 1e-3; an exact match scores -log(eps)") {
                ScoreParams p;
                p.eps = 1e-3f;
                p.p = 2.0f;
                check_table(scores(Score::idw, kQ, kK, p, v),
                            table([](std::size_t i, std::size_t j) { return -std::log(1e-3 + kSqDist[i][j]); }), false);
                p.p = 1.0f;
                check_table(scores(Score::idw, kQ, kK, p, v),
                            table([](std::size_t i, std::size_t j) { return -std::log(1e-3 + std::sqrt(kSqDist[i][j])); }), false);
                CHECK(scores(Score::idw, kQ, kK, p, v)(0, 1) == Approx(-std::log(1e-3)).epsilon(1e-6));
            }
            SECTION("idw, eps = 0: an exact match scores +inf") {
                ScoreParams p;
                p.eps = 0.0f;
                for (float pp : {2.0f, 3.0f}) {
                    p.p = pp;
                    const Mat S = scores(Score::idw, kQ, kK, p, v);
                    CHECK(S(0, 1) == kInf);
                    CHECK(S(1, 1) == Approx(-0.5 * pp * std::log(6.0)).epsilon(1e-6));
                }
            }
            SECTION("general, square W") {
                const Mat W = from_rows({{1, 0, 1}, {0, 2, 0}, {1, 0, -1}});  // qᵀW = (3,4,-1) and (4,6,-4)
                ScoreParams p;
                p.W = W.data();
                check_table(scores(Score::general, kQ, kK, p, v), {{12, 9, 0}, {22, 8, 0}}, true);
            }
            SECTION("general, d_q = 3 and d_k = 2") {
                const Mat W = from_rows({{1, 0}, {0, 1}, {1, 1}});  // qᵀW = (3,4) and (4,7)
                const Mat K2 = from_rows({{1, 2}, {3, -1}});
                ScoreParams p;
                p.W = W.data();
                check_table(scores(Score::general, kQ, K2, p, v), {{11, 5}, {18, 5}}, true);
            }
            SECTION("additive: vᵀ tanh(W1 q + W2 k)") {
                // W1 q = (q_0, q_2), W2 k = (k_1, k_0), v = (1, -2):
                // score = tanh(q_0 + k_1) − 2 tanh(q_2 + k_0).
                const Mat W1 = from_rows({{1, 0, 0}, {0, 0, 1}}), W2 = from_rows({{0, 1, 0}, {1, 0, 0}});
                const Mat vv = from_rows({{1, -2}});
                ScoreParams p;
                p.W1 = W1.data();
                p.W2 = W2.data();
                p.v = vv.data();
                p.hidden = 2;
                using std::tanh;
                check_table(scores(Score::additive, kQ, kK, p, v),
                            {{tanh(2.0) - 2 * tanh(4.0), -tanh(3.0), tanh(1.0) - 2 * tanh(2.0)},
                             {tanh(1.0) - 2 * tanh(6.0), tanh(2.0) - 2 * tanh(5.0), -2 * tanh(4.0)}},
                            false);
            }
            SECTION("location: (W_a q)_j, whatever the keys hold") {
                // Rows of W_a pick component j of q; a 4th row for a key position that is not used.
                const Mat Wa = from_rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {9, 9, 9}});
                ScoreParams p;
                p.Wa = Wa.data();
                p.max_keys = 4;
                check_table(scores(Score::location, kQ, kK, p, v), {{1, 2, 2}, {0, 3, 4}}, true);
                const Mat other = from_rows({{5, 5}, {-1, 7}, {0, 1}});  // other content, even another width
                check_table(scores(Score::location, kQ, other, p, v), {{1, 2, 2}, {0, 3, 4}}, true);
            }
        }
}

// Random inputs against the float64 references (bounds derived in test_util.hpp), on shapes that hit
// the kernels' tails and with padded (strided) views.
TEST_CASE("scores: every scoring function against its float64 reference", "[scores]") {
    struct Shape {
        std::size_t nq, nk, d;
    };
    const Shape shapes[] = {{1, 1, 1}, {3, 5, 7}, {4, 17, 16}, {7, 64, 33}, {17, 31, 100},
                            {33, 97, 5}, {5, 130, 257}, {65, 3, 64}, {2, 2, 2}, {9, 8, 127}};
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(200 + static_cast<std::uint32_t>(info.id));
                const float idw_ps[] = {2.0f, 1.0f, 3.0f};
                std::size_t c = 0;
                for (const Shape& sh : shapes) {
                    ++c;
                    // general and additive map between different widths: give K its own.
                    const bool own_dk = info.id == Score::general || info.id == Score::additive;
                    const std::size_t dk = own_dk ? sh.d % 7 + 2 : sh.d, hidden = sh.d % 13 + 1, pad = c % 3;
                    const Mat Q = uniform_matrix(sh.nq, sh.d, rng, -1, 1, pad);
                    const Mat K = uniform_matrix(sh.nk, dk, rng, -1, 1, pad + 1);
                    const Mat W = uniform_matrix(sh.d, dk, rng, -1, 1);
                    const Mat W1 = uniform_matrix(hidden, sh.d, rng, -1, 1), W2 = uniform_matrix(hidden, dk, rng, -1, 1);
                    const Mat vv = uniform_matrix(1, hidden, rng, -1, 1);
                    const Mat Wa = uniform_matrix(sh.nk + 2, sh.d, rng, -1, 1);
                    ScoreParams p;
                    p.W = W.data();
                    p.W1 = W1.data();
                    p.W2 = W2.data();
                    p.v = vv.data();
                    p.hidden = hidden;
                    p.Wa = Wa.data();
                    p.max_keys = sh.nk + 2;
                    p.p = idw_ps[c % 3];
                    const Mat S = scores(info.id, Q, K, p, variant, pad);
                    const RefMatrix ref = ref_scores(info.id, Q.view(), K.view(), p);
                    INFO("nq=" << sh.nq << " nk=" << sh.nk << " d=" << sh.d << " dk=" << dk << " p=" << p.p);
                    const Checker ch = compare(S.view(), ref);
                    ATTNSCOPE_CHECK_ALL(ch);
                }
            }
}

// Cosine ignores the scale of q and of k: scaling rows by random positive factors in [0.01, 100]
// leaves the scores unchanged up to rounding. Each run is within (2d + 8)ε of the exact cosine;
// rounding the scaled inputs moves every component by ≤ u relatively, which moves the cosine by
// ≤ 2ε more: |Δ| ≤ 2(2d + 8)ε + 4ε.
TEST_CASE("scores: cosine ignores the scale of q and of k", "[scores][property]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(300);
            for (std::size_t d : {1, 3, 8, 17, 64, 100}) {
                const Mat Q = uniform_matrix(9, d, rng), K = uniform_matrix(13, d, rng);
                Mat Qs = Q, Ks = K;
                for (std::size_t i = 0; i < Q.rows; ++i) {
                    const double f = std::exp(rng.uniform(std::log(0.01), std::log(100.0)));
                    for (std::size_t t = 0; t < d; ++t) Qs(i, t) = static_cast<float>(f * Q(i, t));
                }
                for (std::size_t j = 0; j < K.rows; ++j) {
                    const double f = std::exp(rng.uniform(std::log(0.01), std::log(100.0)));
                    for (std::size_t t = 0; t < d; ++t) Ks(j, t) = static_cast<float>(f * K(j, t));
                }
                const Mat S = scores(Score::cosine, Q, K, {}, variant), Ss = scores(Score::cosine, Qs, Ks, {}, variant);
                Checker ch("scaled vs unscaled");
                const double tol = (4.0 * static_cast<double>(d) + 20.0) * kEps;
                for (std::size_t i = 0; i < S.rows; ++i)
                    for (std::size_t j = 0; j < S.cols; ++j) ch(Ss(i, j), S(i, j), tol, i, j);
                INFO("d=" << d);
                ATTNSCOPE_CHECK_ALL(ch);
            }
        }
}

// For a fixed query, dot and cosine differ only by a per-key factor 1/‖k‖ and a per-query
// constant 1/‖q‖:  cos(q, k_j) · ‖q‖ · ‖k_j‖ = q·k_j. In cosine units the dot score errs by
// ≤ (d+1)ε (Cauchy–Schwarz) and the cosine by ≤ (2d+8)ε, the norms (exact in float64) add nothing:
// |cos·‖q‖‖k‖ − dot| ≤ (3d + 10)ε ‖q‖‖k‖.
// So with keys of equal norm r, softmax(cos/τ) = softmax(dot / (τ‖q‖r)): the per-query constant is a
// temperature. Keys that are signed permutations of one vector have exactly equal norms.
TEST_CASE("scores: dot and cosine differ by 1/||k|| per key and 1/||q|| per query", "[scores][property]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(310);
            for (std::size_t d : {2, 5, 16, 33, 100}) {
                INFO("d=" << d);
                const Mat Q = uniform_matrix(7, d, rng, -2, 2), K = uniform_matrix(11, d, rng, -2, 2);
                const Mat Sd = scores(Score::dot, Q, K, {}, variant), Sc = scores(Score::cosine, Q, K, {}, variant);
                Checker ch("cos·|q|·|k| vs dot");
                for (std::size_t i = 0; i < Q.rows; ++i)
                    for (std::size_t j = 0; j < K.rows; ++j) {
                        const double nq = std::sqrt(dot64(Q.row(i), Q.row(i), d)), nk = std::sqrt(dot64(K.row(j), K.row(j), d));
                        ch(Sc(i, j) * nq * nk, Sd(i, j), (3.0 * static_cast<double>(d) + 10.0) * kEps * nq * nk, i, j);
                    }
                ATTNSCOPE_CHECK_ALL(ch);

                // Equal-norm keys: rows of E are signed permutations of one random vector.
                const Mat base = uniform_matrix(1, d, rng, -1, 1);
                Mat E(12, d);
                for (std::size_t j = 0; j < E.rows; ++j) {
                    std::vector<float> row(base.data(), base.data() + d);
                    for (std::size_t t = d; t > 1; --t) std::swap(row[t - 1], row[rng.below(t)]);
                    for (std::size_t t = 0; t < d; ++t) E(j, t) = rng.next() % 2 ? row[t] : -row[t];
                }
                const double r = std::sqrt(dot64(base.data(), base.data(), d));
                const Mat Ed = scores(Score::dot, Q, E, {}, variant), Ec = scores(Score::cosine, Q, E, {}, variant);
                const float tau = 0.2f;
                for (std::size_t i = 0; i < Q.rows; ++i) {
                    const double nq = std::sqrt(dot64(Q.row(i), Q.row(i), d));
                    Mat wc(1, E.rows), wd(1, E.rows);
                    SoftmaxOptions o;
                    o.variant = variant;
                    o.temperature = tau;
                    REQUIRE(masked_softmax(ConstMatrix(Ec.row(i), 1, E.rows), o, wc.mview()).ok());
                    o.temperature = static_cast<float>(tau * nq * r);
                    REQUIRE(masked_softmax(ConstMatrix(Ed.row(i), 1, E.rows), o, wd.mview()).ok());
                    // Both are the softmax of the exact cosines over τ with scores off by ≤ (3d + 14)ε
                    // (the dot path also rounds the per-query temperature).
                    RefMatrix s(1, E.rows);
                    for (std::size_t j = 0; j < E.rows; ++j) {
                        s.at(0, j) = dot64(Q.row(i), E.row(j), d) / (nq * r);
                        s.tol_at(0, j) = (3.0 * static_cast<double>(d) + 14.0) * kEps;
                    }
                    const RefMatrix w = ref_softmax(s, 1.0 / tau);
                    const Checker c1 = compare(wc.view(), w, "softmax(cos/tau)"), c2 = compare(wd.view(), w, "softmax(dot/(tau |q| r))");
                    INFO("query " << i);
                    ATTNSCOPE_CHECK_ALL(c1);
                    ATTNSCOPE_CHECK_ALL(c2);
                }
            }
        }
}

// For q, k with independent zero-mean unit-variance components, X = q·k has mean 0 and variance d,
// and the scaled-dot score X/√d variance 1.
// Tolerance from the sample size. With Y_t = q_t k_t: E[Y²] = 1, E[Y⁴] = E[q⁴]E[k⁴] = 9 (normals), so
//   E[X⁴] = Σ_t E[Y_t⁴] + 3 Σ_{s≠t} E[Y_s²]E[Y_t²] = 9d + 3d(d−1) = 3d² + 6d.
// The mean is known (0), so the variance is estimated by v = (1/N) Σ X_n², whose variance is
//   (E[X⁴] − d²)/N = (2d² + 6d)/N,  i.e. a relative standard error of sqrt((2 + 6/d)/N)
// (the same for X/√d). We allow 5 standard errors; the mean gets 5·sqrt(d/N). Float rounding of the
// scores (≤ (d+1)ε Σ|q k|) is far below that. The normals come from a fixed-seed mt19937 and
// Box–Muller written in test_util.hpp, so the samples are the same on every platform; each sample is
// an independent (q, k) pair scored as a 1 x 1 problem.
TEST_CASE("scores: q.k of unit-variance components has variance d, scaled-dot variance 1", "[scores][property]") {
    constexpr std::size_t N = 16000;
    Rng rng(320);
    for (std::size_t d : {16, 64, 256}) {
        const double dd = static_cast<double>(d);
        std::vector<float> q(d), k(d);
        struct Acc {
            double sum = 0, sumsq = 0;
        };
        Acc acc[3][2];  // variant x {dot, scaled-dot}
        for (std::size_t n = 0; n < N; ++n) {
            for (auto& x : q) x = static_cast<float>(rng.normal());
            for (auto& x : k) x = static_cast<float>(rng.normal());
            for (std::size_t vi = 0; vi < public_variants().size(); ++vi)
                for (std::size_t si = 0; si < 2; ++si) {
                    float s = 0.0f;
                    const Status st = compute_scores(si ? Score::scaled_dot : Score::dot, ConstMatrix(q.data(), 1, d),
                                                     ConstMatrix(k.data(), 1, d), {}, Matrix(&s, 1, 1),
                                                     public_variants()[vi].second);
                    if (!st) FAIL(st.message());
                    acc[vi][si].sum += s;
                    acc[vi][si].sumsq += static_cast<double>(s) * s;
                }
        }
        const double rel_se = std::sqrt((2.0 + 6.0 / dd) / N);
        for (std::size_t vi = 0; vi < public_variants().size(); ++vi)
            for (std::size_t si = 0; si < 2; ++si) {
                const double expected = si ? 1.0 : dd;  // variance
                const double var = acc[vi][si].sumsq / N, mean = acc[vi][si].sum / N;
                INFO("d=" << d << " variant " << public_variants()[vi].first << (si ? " scaled-dot" : " dot")
                          << ": variance " << var << ", expected " << expected << " ± " << 5 * rel_se * expected
                          << "; mean " << mean);
                CHECK(std::fabs(var / expected - 1.0) <= 5.0 * rel_se);
                CHECK(std::fabs(mean) <= 5.0 * std::sqrt(expected / N));
            }
    }
}

// idw: softmax of −log(ε + ‖q−k‖^p) is Shepard's inverse distance weighting, weights
// (1/(ε + ‖q−k_j‖^p)) / Σ_l 1/(ε + ‖q−k_l‖^p), computed here directly in float64. The bound is the
// one of the score → softmax chain (ref_scores, ref_softmax).
TEST_CASE("scores: idw weights are normalised 1/(eps + ||q-k||^p)", "[scores][property]") {
    for (const auto& [vname, variant] : public_variants())
        for (float pp : {2.0f, 1.0f, 3.0f})
            DYNAMIC_SECTION("p = " << pp << ", variant " << vname) {
                Rng rng(330 + static_cast<std::uint32_t>(pp));
                for (std::size_t d : {1, 4, 7, 32, 65}) {
                    const Mat Q = uniform_matrix(6, d, rng, -1, 1), K = uniform_matrix(19, d, rng, -1, 1);
                    ScoreParams p;
                    p.p = pp;
                    p.eps = 1e-3f;
                    const Mat S = scores(Score::idw, Q, K, p, variant);
                    Mat A(Q.rows, K.rows);
                    SoftmaxOptions o;
                    o.variant = variant;
                    REQUIRE(masked_softmax(S.view(), o, A.mview()).ok());
                    RefMatrix w = ref_softmax(ref_scores(Score::idw, Q.view(), K.view(), p), 1.0);
                    for (std::size_t i = 0; i < Q.rows; ++i) {
                        std::vector<double> inv(K.rows);
                        double sum = 0.0;
                        for (std::size_t j = 0; j < K.rows; ++j) {
                            double d2 = 0.0;
                            for (std::size_t t = 0; t < d; ++t) d2 += (static_cast<double>(Q(i, t)) - K(j, t)) * (Q(i, t) - K(j, t));
                            inv[j] = 1.0 / (1e-3 + std::pow(std::sqrt(d2), pp));
                            sum += inv[j];
                        }
                        for (std::size_t j = 0; j < K.rows; ++j) w.at(i, j) = inv[j] / sum;
                    }
                    INFO("d=" << d);
                    const Checker ch = compare(A.view(), w);
                    ATTNSCOPE_CHECK_ALL(ch);
                }
            }
}

// −‖q−k‖² = 2q·k − ‖q‖² − ‖k‖². ‖q‖² is constant along a row and cancels in the softmax; when
// every key has the same norm, ‖k‖² cancels too: softmax(−‖q−k‖²/τ) = softmax(2q·k/τ), i.e. dot
// at temperature τ/2. Keys: signed permutations of one vector (exactly equal norms). Reference: the
// float64 softmax of 2q·k/τ, with score errors bounded by the larger of the neg-sq-euclidean bound
// and twice the dot bound.
TEST_CASE("scores: neg-sq-euclidean with equal-norm keys is dot at half the temperature", "[scores][property]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(340);
            for (std::size_t d : {3, 8, 16, 33}) {
                for (float tau : {1.0f, 0.5f, 2.0f}) {
                    const Mat Q = uniform_matrix(5, d, rng, -1, 1), base = uniform_matrix(1, d, rng, -1, 1);
                    Mat K(17, d);
                    for (std::size_t j = 0; j < K.rows; ++j) {
                        std::vector<float> row(base.data(), base.data() + d);
                        for (std::size_t t = d; t > 1; --t) std::swap(row[t - 1], row[rng.below(t)]);
                        for (std::size_t t = 0; t < d; ++t) K(j, t) = rng.next() % 2 ? row[t] : -row[t];
                    }
                    Mat A1(Q.rows, K.rows), A2(Q.rows, K.rows);
                    SoftmaxOptions o;
                    o.variant = variant;
                    o.temperature = tau;
                    REQUIRE(masked_softmax(scores(Score::neg_sq_euclidean, Q, K, {}, variant).view(), o, A1.mview()).ok());
                    o.temperature = tau / 2;
                    REQUIRE(masked_softmax(scores(Score::dot, Q, K, {}, variant).view(), o, A2.mview()).ok());

                    const RefMatrix sq = ref_scores(Score::neg_sq_euclidean, Q.view(), K.view(), {});
                    const RefMatrix dt = ref_scores(Score::dot, Q.view(), K.view(), {});
                    RefMatrix s(Q.rows, K.rows);
                    for (std::size_t i = 0; i < s.rows; ++i)
                        for (std::size_t j = 0; j < s.cols; ++j) {
                            s.at(i, j) = 2.0 * dt.at(i, j);
                            s.tol_at(i, j) = std::max(sq.tol_at(i, j), 2.0 * dt.tol_at(i, j));
                        }
                    const RefMatrix w = ref_softmax(s, 1.0 / tau);
                    INFO("d=" << d << " tau=" << tau);
                    const Checker c1 = compare(A1.view(), w, "softmax(-|q-k|^2/tau)"), c2 = compare(A2.view(), w, "softmax(q.k/(tau/2))");
                    ATTNSCOPE_CHECK_ALL(c1);
                    ATTNSCOPE_CHECK_ALL(c2);
                }
            }
        }
}

// A NaN in a query poisons that query's scores (and only those), for every scoring function: a NaN
// must never turn into a plausible number.
// After softmax, neg-manhattan weights are the Laplacian kernel: w_j = exp(−‖q−k_j‖₁/τ) / Σ_l exp(−‖q−k_l‖₁/τ).
// The scores err by ≤ (d+2)ε‖q−k‖₁ (test_util.hpp), which moves a weight by ≤ w·2·max_j(err_j)/τ; the
// softmax itself adds a few ε.
TEST_CASE("scores: neg-manhattan weights are the Laplacian kernel exp(-||q-k||_1 / tau), normalised", "[scores][property]") {
    Rng rng(404);
    const std::size_t nq = 5, nk = 9, d = 16;
    const Mat Q = uniform_matrix(nq, d, rng, -1, 1), K = uniform_matrix(nk, d, rng, -1, 1);
    for (const auto& [vname, variant] : public_variants())
        for (const float tau : {0.5f, 2.0f, 8.0f}) {
            INFO("variant " << vname << ", tau = " << tau);
            const Mat S = scores(Score::neg_manhattan, Q, K, ScoreParams{}, variant);
            Mat A(nq, nk);
            SoftmaxOptions so;
            so.temperature = tau;
            so.variant = variant;
            REQUIRE(masked_softmax(S.view(), so, A.mview()).ok());
            for (std::size_t i = 0; i < nq; ++i) {
                std::vector<double> l1(nk);
                double sum = 0.0, worst = 0.0;
                for (std::size_t j = 0; j < nk; ++j) {
                    for (std::size_t t = 0; t < d; ++t) l1[j] += std::fabs(static_cast<double>(Q(i, t)) - K(j, t));
                    sum += std::exp(-l1[j] / tau);
                    worst = std::max(worst, (static_cast<double>(d) + 2.0) * kEps * l1[j]);
                }
                for (std::size_t j = 0; j < nk; ++j) {
                    const double w = std::exp(-l1[j] / tau) / sum;
                    CHECK(std::fabs(A(i, j) - w) <= w * (2.0 * worst / tau + 16.0 * kEps) + 1e-12);
                }
            }
        }
}

TEST_CASE("scores: a NaN in a query makes that query's scores NaN", "[scores]") {
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(350);
                for (std::size_t d : {1, 3, 4, 9, 16}) {
                    Mat Q = uniform_matrix(3, d, rng), K = uniform_matrix(6, d, rng);
                    const Mat W = uniform_matrix(d, d, rng), W1 = uniform_matrix(5, d, rng), W2 = uniform_matrix(5, d, rng);
                    const Mat vv = uniform_matrix(1, 5, rng), Wa = uniform_matrix(6, d, rng);
                    ScoreParams p;
                    p.W = W.data();
                    p.W1 = W1.data();
                    p.W2 = W2.data();
                    p.v = vv.data();
                    p.hidden = 5;
                    p.Wa = Wa.data();
                    p.max_keys = 6;
                    Q(1, d / 2) = kNaN;
                    const Mat S = scores(info.id, Q, K, p, variant);
                    bool row1_nan = true, others_finite = true;
                    for (std::size_t j = 0; j < K.rows; ++j) {
                        row1_nan = row1_nan && std::isnan(S(1, j));
                        others_finite = others_finite && std::isfinite(S(0, j)) && std::isfinite(S(2, j));
                    }
                    INFO("d=" << d);
                    CHECK(row1_nan);
                    CHECK(others_finite);
                }
            }
}

TEST_CASE("scores: score_infos, parse_score and score_has_weights", "[scores]") {
    const auto& infos = score_infos();
    const std::vector<std::string> names = {"dot",      "scaled-dot",    "cosine",           "general", "additive",
                                            "location", "neg-euclidean", "neg-sq-euclidean", "idw", "neg-manhattan"};
    REQUIRE(infos.size() == names.size());  // every function of the registry, in its order
    for (std::size_t i = 0; i < names.size(); ++i) CHECK(infos[i].name == names[i]);
    for (const std::string& name : names) {
        Score s;
        INFO(name);
        REQUIRE(parse_score(name, s));
        CHECK(std::string(score_info(s).name) == name);
        CHECK(score_has_weights(s) == (name == "general" || name == "additive" || name == "location"));
        CHECK(std::string(score_info(s).formula).size() > 0);
        CHECK(std::string(score_info(s).latex).size() > 0);
        CHECK(std::string(score_info(s).source).size() > 0);
    }
    Score s = Score::dot;
    CHECK_FALSE(parse_score("scaled_dot", s));
    CHECK_FALSE(parse_score("Dot", s));
    CHECK_FALSE(parse_score("", s));
    CHECK(s == Score::dot);
}

// Bad input is reported through Status, with a message that starts with the argument's name.
TEST_CASE("scores: errors name the argument", "[scores][errors]") {
    const Mat Q = from_rows({{1, 2, 3}, {4, 5, 6}}), K = from_rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}});
    Mat S(2, 4);
    auto run = [&](Score score, const ScoreParams& p, ConstMatrix q, ConstMatrix k, Matrix s) {
        return compute_scores(score, q, k, p, s, Variant::automatic);
    };
    SECTION("S of the wrong shape") {
        Mat bad(4, 2);
        const Status st = run(Score::dot, {}, Q.view(), K.view(), bad.mview());
        CHECK_FALSE(st.ok());
        CHECK_THAT(st.message(), StartsWith("S:") && Contains("2x4"));
    }
    SECTION("K with another width than Q, for a score without matrices") {
        const Mat K2 = from_rows({{1, 0}, {0, 1}, {1, 1}, {2, 2}});
        for (Score sc : {Score::dot, Score::scaled_dot, Score::cosine, Score::neg_euclidean, Score::neg_sq_euclidean, Score::idw}) {
            const Status st = run(sc, {}, Q.view(), K2.view(), S.mview());
            INFO(score_info(sc).name);
            CHECK_THAT(st.message(), StartsWith("K:") && Contains("3 columns"));
        }
    }
    SECTION("general without W") {
        CHECK_THAT(run(Score::general, {}, Q.view(), K.view(), S.mview()).message(), StartsWith("W:"));
    }
    SECTION("additive without W1, W2, v or hidden") {
        Rng rng(1);
        const Mat W1 = uniform_matrix(2, 3, rng);
        ScoreParams p;
        p.W1 = W1.data();
        p.W2 = W1.data();
        p.v = W1.data();
        p.hidden = 2;
        CHECK(run(Score::additive, p, Q.view(), K.view(), S.mview()).ok());
        ScoreParams q = p;
        q.W1 = nullptr;
        CHECK_THAT(run(Score::additive, q, Q.view(), K.view(), S.mview()).message(), StartsWith("W1, W2, v:"));
        q = p;
        q.W2 = nullptr;
        CHECK_THAT(run(Score::additive, q, Q.view(), K.view(), S.mview()).message(), StartsWith("W1, W2, v:"));
        q = p;
        q.v = nullptr;
        CHECK_THAT(run(Score::additive, q, Q.view(), K.view(), S.mview()).message(), StartsWith("W1, W2, v:"));
        q = p;
        q.hidden = 0;
        CHECK_THAT(run(Score::additive, q, Q.view(), K.view(), S.mview()).message(), Contains("hidden > 0"));
    }
    SECTION("location without Wa, or with fewer Wa rows than keys") {
        CHECK_THAT(run(Score::location, {}, Q.view(), K.view(), S.mview()).message(), StartsWith("Wa:"));
        const Mat Wa = from_rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
        ScoreParams p;
        p.Wa = Wa.data();
        p.max_keys = 3;  // 4 keys
        const Status st = run(Score::location, p, Q.view(), K.view(), S.mview());
        CHECK_THAT(st.message(), StartsWith("Wa:") && Contains("3 key positions") && Contains("4 keys"));
        p.max_keys = 4;
        const Mat Wa4 = from_rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}});
        p.Wa = Wa4.data();
        CHECK(run(Score::location, p, Q.view(), K.view(), S.mview()).ok());
    }
    SECTION("idw with p <= 0 or not finite, eps < 0 or not finite") {
        for (float bad : {0.0f, -1.0f, -0.0f, kNaN, kInf}) {
            ScoreParams p;
            p.p = bad;
            INFO("p = " << bad);
            CHECK_THAT(run(Score::idw, p, Q.view(), K.view(), S.mview()).message(), StartsWith("p:"));
        }
        for (float bad : {-1e-3f, kNaN, kInf}) {
            ScoreParams p;
            p.eps = bad;
            INFO("eps = " << bad);
            CHECK_THAT(run(Score::idw, p, Q.view(), K.view(), S.mview()).message(), StartsWith("eps:"));
        }
        ScoreParams p;
        p.eps = 0.0f;
        p.p = 0.5f;
        CHECK(run(Score::idw, p, Q.view(), K.view(), S.mview()).ok());
    }
}
