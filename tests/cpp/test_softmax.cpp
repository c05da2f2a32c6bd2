// masked_softmax and row_stats: closed forms, stability, rows summing to 1, masks, temperature
// limits, the −inf / +inf / NaN conventions of kernels.hpp through the public function, and errors.
// Every case runs through each variant of the dispatch point (scalar, simd, auto).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/softmax.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::StartsWith;

namespace {

Mat softmax(const Mat& S, SoftmaxOptions o, Variant v, std::size_t pad = 0) {
    o.variant = v;
    Mat A(S.rows, S.cols, pad, 7777.0f);
    const Status st = masked_softmax(S.view(), o, A.mview());
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(A.padding_intact());
    return A;
}

// Σ_j w_j for a row. The kernel's w_j = e_j · fl(1/fl(Σ e)): the float sum of n positive terms errs
// by ≤ (n−1)u relatively, the reciprocal and the product by u each, and the e_j themselves cancel
// (the same e_j are in the numerator and the sum): |Σ w − 1| ≤ (n+1)u < (n+2)ε.
double row_sum(const Mat& A, std::size_t i) {
    double s = 0.0;
    for (std::size_t j = 0; j < A.cols; ++j) s += A(i, j);
    return s;
}
double sum_tol(std::size_t n) { return (static_cast<double>(n) + 2.0) * kEps; }

}  // namespace

TEST_CASE("softmax: closed-form rows, temperature and numerical stability", "[softmax]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            const auto approx = [](double x) { return Approx(x).epsilon(1e-6).margin(1e-7); };
            const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);
            SoftmaxOptions o;
            {
                const Mat A = softmax(from_rows({{0, ln2, ln3}}), o, variant);  // ∝ 1, 2, 3
                CHECK(A(0, 0) == approx(1.0 / 6));
                CHECK(A(0, 1) == approx(2.0 / 6));
                CHECK(A(0, 2) == approx(3.0 / 6));
            }
            {
                o.temperature = 2.0f;  // softmax([0, 2 ln 2] / 2) ∝ 1, 2
                const Mat A = softmax(from_rows({{0, 2 * ln2}}), o, variant);
                CHECK(A(0, 0) == approx(1.0 / 3));
                CHECK(A(0, 1) == approx(2.0 / 3));
                o.temperature = 1.0f;
            }
            {
                // The row max is subtracted first: huge scores neither overflow nor underflow.
                const Mat A = softmax(from_rows({{1000, 1000 + ln3}, {-1000, -1000 + ln3}, {3e38f, 3e38f},
                                                 {-3e38f, 3e38f}, {-3e38f, -3e38f}}),
                                      o, variant);
                for (std::size_t i = 0; i < 2; ++i) {
                    // 1000 + ln 3 rounds in float; the weight moves by at most that rounding
                    CHECK(A(i, 0) == Approx(0.25).epsilon(1e-4));
                    CHECK(A(i, 1) == Approx(0.75).epsilon(1e-4));
                }
                CHECK(A(2, 0) == 0.5f);
                CHECK(A(2, 1) == 0.5f);
                CHECK(A(3, 0) == 0.0f);  // the difference overflows to −inf: exp gives 0
                CHECK(A(3, 1) == 1.0f);
                CHECK(A(4, 0) == 0.5f);
                CHECK(A(4, 1) == 0.5f);
            }
            {
                // Adding a constant to a row changes nothing, bit for bit when the shifted scores and
                // their differences are exact: multiples of 2^-16 below 2 in magnitude, plus 64.
                Rng rng(400);
                Mat S = uniform_matrix(3, 37, rng, -2, 2);
                Mat S2 = S;
                for (std::size_t i = 0; i < 3; ++i)
                    for (std::size_t j = 0; j < 37; ++j) {
                        S(i, j) = std::round(S(i, j) * 65536.0f) / 65536.0f;
                        S2(i, j) = S(i, j) + 64.0f;
                    }
                const Mat A = softmax(S, o, variant), A2 = softmax(S2, o, variant);
                CHECK(A.v == A2.v);
            }
        }
}

TEST_CASE("softmax: rows sum to 1 and match the float64 softmax", "[softmax]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(410);
            for (std::size_t cols : kTailSizes)
                for (float tau : {0.1f, 1.0f, 10.0f}) {
                    const std::size_t rows = cols % 7 + 1, pad = cols % 3;
                    const Mat S = uniform_matrix(rows, cols, rng, -4, 4, pad);
                    SoftmaxOptions o;
                    o.temperature = tau;
                    const Mat A = softmax(S, o, variant, pad);
                    RefMatrix s(rows, cols);
                    for (std::size_t i = 0; i < rows; ++i)
                        for (std::size_t j = 0; j < cols; ++j) s.at(i, j) = S(i, j);
                    INFO("cols=" << cols << " tau=" << tau);
                    const Checker ch = compare(A.view(), ref_softmax(s, 1.0 / tau));
                    ATTNSCOPE_CHECK_ALL(ch);
                    for (std::size_t i = 0; i < rows; ++i) {
                        CHECK(std::fabs(row_sum(A, i) - 1.0) <= sum_tol(cols));
                        for (std::size_t j = 0; j < cols; ++j) CHECK((A(i, j) >= 0.0f && A(i, j) <= 1.0f));
                    }
                }
        }
}

TEST_CASE("softmax: causal mask", "[softmax][mask]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(420);
            // square, more queries than keys, more keys than queries; some reach the SIMD tails
            const std::pair<std::size_t, std::size_t> shapes[] = {{1, 1}, {5, 5}, {17, 17}, {9, 4}, {3, 11}, {33, 40}};
            for (const auto& [nq, nk] : shapes) {
                INFO("nq=" << nq << " nk=" << nk);
                Mat S = uniform_matrix(nq, nk, rng, -3, 3);
                // What the mask hides must not matter, not even NaN or +inf.
                for (std::size_t i = 0; i < nq; ++i)
                    for (std::size_t j = i + 1; j < nk; ++j) S(i, j) = (i + j) % 3 == 0 ? kNaN : (i + j) % 3 == 1 ? kInf : S(i, j);
                SoftmaxOptions o;
                o.mask = Mask::causal;
                const Mat A = softmax(S, o, variant);
                bool above_zero = true;
                for (std::size_t i = 0; i < nq; ++i) {
                    for (std::size_t j = i + 1; j < nk; ++j) above_zero = above_zero && A(i, j) == 0.0f;
                    CHECK(std::fabs(row_sum(A, i) - 1.0) <= sum_tol(nk));
                }
                CHECK(above_zero);
                RefMatrix s(nq, nk);
                for (std::size_t i = 0; i < nq; ++i)
                    for (std::size_t j = 0; j < nk; ++j) s.at(i, j) = S(i, j);
                apply_mask(s, Mask::causal, nullptr);
                const Checker ch = compare(A.view(), ref_softmax(s, 1.0));
                ATTNSCOPE_CHECK_ALL(ch);
                CHECK(A(0, 0) == 1.0f);  // the first query sees only the first key
            }
        }
}

TEST_CASE("softmax: key padding, fully masked rows", "[softmax][mask]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(430);
            for (std::size_t nk : {1, 3, 4, 6, 9, 16, 21}) {
                INFO("nk=" << nk);
                const std::size_t nq = 5;
                Mat S = uniform_matrix(nq, nk, rng, -3, 3);
                std::vector<std::uint8_t> pad(nk, 0);
                for (std::size_t j = 0; j < nk; ++j) pad[j] = (j % 3 == 2 || j + 1 == nk) ? 1 : 0;
                if (nk == 1) pad[0] = 0;
                if (pad[nk - 1]) S(1, nk - 1) = kNaN;  // under padding: ignored
                SoftmaxOptions o;
                o.key_padding = pad.data();
                const Mat A = softmax(S, o, variant);
                bool padded_zero = true;
                for (std::size_t i = 0; i < nq; ++i) {
                    for (std::size_t j = 0; j < nk; ++j) padded_zero = padded_zero && (!pad[j] || A(i, j) == 0.0f);
                    CHECK(std::fabs(row_sum(A, i) - 1.0) <= sum_tol(nk));
                }
                CHECK(padded_zero);
                RefMatrix s(nq, nk);
                for (std::size_t i = 0; i < nq; ++i)
                    for (std::size_t j = 0; j < nk; ++j) s.at(i, j) = S(i, j);
                apply_mask(s, Mask::none, pad.data());
                const Checker ch = compare(A.view(), ref_softmax(s, 1.0));
                ATTNSCOPE_CHECK_ALL(ch);

                // Causal and padding together, key 0 padded: query 0 sees nothing and gets an all-zero
                // row (no NaN); the other rows still sum to 1 over what they see.
                std::vector<std::uint8_t> pad0(nk, 0);
                pad0[0] = 1;
                o.key_padding = pad0.data();
                o.mask = Mask::causal;
                const Mat B = softmax(S, o, variant);
                for (std::size_t j = 0; j < nk; ++j) CHECK(B(0, j) == 0.0f);
                for (std::size_t i = 1; i < nq; ++i) {
                    if (nk == 1) {
                        for (std::size_t j = 0; j < nk; ++j) CHECK(B(i, j) == 0.0f);
                    } else {
                        CHECK(std::fabs(row_sum(B, i) - 1.0) <= sum_tol(nk));
                    }
                }

                // Every key padded: every row all zero.
                std::vector<std::uint8_t> all(nk, 1);
                o.key_padding = all.data();
                o.mask = Mask::none;
                const Mat C = softmax(S, o, variant);
                bool zeros = true;
                for (float x : C.v) zeros = zeros && x == 0.0f;
                CHECK(zeros);
                const std::vector<RowStats> st = row_stats(C.view());
                CHECK(st[0].entropy == 0.0f);
                CHECK(st[0].max_weight == 0.0f);
            }
        }
}

TEST_CASE("softmax: masked and unmasked, in place (A is S)", "[softmax][mask]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(435);
            const Mat S = uniform_matrix(6, 10, rng, -3, 3, 2);
            for (Mask m : {Mask::none, Mask::causal}) {
                SoftmaxOptions o;
                o.variant = variant;
                o.mask = m;
                const Mat want = softmax(S, o, variant, 2);
                Mat inplace = S;
                REQUIRE(masked_softmax(inplace.view(), o, inplace.mview()).ok());
                CHECK(inplace.v.size() == want.v.size());
                bool same = true;
                for (std::size_t i = 0; i < S.rows; ++i)
                    for (std::size_t j = 0; j < S.cols; ++j) same = same && inplace(i, j) == want(i, j);
                CHECK(same);
            }
        }
}

// τ → 0: the weights approach the one-hot vector of the argmax, ties sharing equally. With scores that
// are multiples of 0.1 and τ = 1e-4, every non-maximal entry is exp(≤ −1000) = 0 in float, so the
// limit is reached exactly. τ → ∞: with scores spread over R = 2, n·w_j lies in [e^(−R/τ), e^(R/τ)].
TEST_CASE("softmax: temperature limits", "[softmax]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(440);
            for (std::size_t n : {1, 2, 3, 5, 8, 13, 31}) {
                INFO("n=" << n);
                Mat S(4, n);
                for (std::size_t i = 0; i < S.rows; ++i)
                    for (std::size_t j = 0; j < n; ++j) S(i, j) = static_cast<float>(rng.below(30)) / 10.0f - 1.5f;
                // row 1: a tie for the max at two positions, row 2: at three (when there is room)
                const float top = 2.0f;
                S(1, 0) = top;
                S(1, n - 1) = top;
                S(2, n / 2) = top;
                S(2, n - 1) = top;
                S(2, 0) = top;
                SoftmaxOptions o;
                o.temperature = 1e-4f;
                const Mat A = softmax(S, o, variant);
                for (std::size_t i = 0; i < S.rows; ++i) {
                    float mx = S(i, 0);
                    for (std::size_t j = 0; j < n; ++j) mx = std::max(mx, S(i, j));
                    std::size_t ties = 0;
                    for (std::size_t j = 0; j < n; ++j) ties += S(i, j) == mx;
                    bool exact = true;
                    for (std::size_t j = 0; j < n; ++j)
                        exact = exact && A(i, j) == (S(i, j) == mx ? 1.0f / static_cast<float>(ties) : 0.0f);
                    INFO("row " << i << ", " << ties << " maxima");
                    CHECK(exact);
                }

                const Mat U = uniform_matrix(3, n, rng, -1, 1);
                o.temperature = 1e4f;
                const Mat B = softmax(U, o, variant);
                const double tol = std::expm1(2.0 / 1e4) + (static_cast<double>(n) + 8.0) * kEps;
                for (std::size_t i = 0; i < B.rows; ++i)
                    for (std::size_t j = 0; j < n; ++j) CHECK(std::fabs(static_cast<double>(n) * B(i, j) - 1.0) <= tol);
                const std::vector<RowStats> st = row_stats(B.view());
                for (const RowStats& r : st) CHECK(r.entropy == Approx(std::log(static_cast<double>(n))).margin(1e-3));
            }
        }
}

// The conventions of kernels.hpp through the public function (test_kernels.cpp checks them at every
// position of the kernels' loops).
TEST_CASE("softmax: -inf, +inf and NaN scores", "[softmax]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            const Mat S = from_rows({
                {1, -kInf, 2, 0, -kInf, 1, 3, 0, 2},                             // −inf → weight 0
                {-kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf},  // all −inf → zeros
                {1, kInf, 2, -kInf, 0, kInf, 3, kInf, 2},                        // +inf share equally
                {1, 2, 3, 4, 5, 6, 7, 8, kNaN},                                  // NaN → row NaN
                {1, 2, 3, 4, 5, 6, 7, 8, 9},                                     // unaffected
                {1, 2, kNaN, 4, 5, 6, 7, 8, 9},                                  // NaN in the vector part → row NaN
                {-0.0f, 0, -0.0f, 0, -0.0f, 0, -0.0f, 0, -0.0f},                 // signed zeros: the max's sign changes nothing
            });
            const Mat A = softmax(S, {}, variant);
            RefMatrix r0(1, 9);
            for (std::size_t j = 0; j < 9; ++j) r0.at(0, j) = S(0, j);
            const Checker c0 = compare(ConstMatrix(A.row(0), 1, 9), ref_softmax(r0, 1.0), "row 0");
            ATTNSCOPE_CHECK_ALL(c0);
            CHECK(A(0, 1) == 0.0f);
            CHECK(A(0, 4) == 0.0f);
            for (std::size_t j = 0; j < 9; ++j) {
                INFO("column " << j);
                CHECK(A(1, j) == 0.0f);
                CHECK(A(2, j) == (j == 1 || j == 5 || j == 7 ? 1.0f / 3.0f : 0.0f));
                CHECK(std::isnan(A(3, j)));
                CHECK(std::isfinite(A(4, j)));
                CHECK(std::isnan(A(5, j)));
                CHECK(A(6, j) == 1.0f / 9.0f);
            }
            CHECK(std::fabs(row_sum(A, 4) - 1.0) <= sum_tol(9));
        }
}

TEST_CASE("softmax: row_stats", "[softmax]") {
    const Mat A = from_rows({{0.25f, 0.25f, 0.25f, 0.25f}, {0, 0, 1, 0}, {0.5f, 0.25f, 0.25f, 0}, {0, 0, 0, 0}, {0.2f, 0.4f, 0.4f, 0}});
    const std::vector<RowStats> st = row_stats(A.view());
    REQUIRE(st.size() == 5);
    CHECK(st[0].entropy == Approx(std::log(4.0)));
    CHECK(st[0].max_weight == 0.25f);
    CHECK(st[0].argmax == 0);  // the first on ties
    CHECK(st[1].entropy == 0.0f);
    CHECK(st[1].max_weight == 1.0f);
    CHECK(st[1].argmax == 2);
    CHECK(st[2].entropy == Approx(1.5 * std::log(2.0)));
    CHECK(st[2].argmax == 0);
    CHECK(st[3].entropy == 0.0f);
    CHECK(st[3].max_weight == 0.0f);
    CHECK(st[4].argmax == 1);
    CHECK(row_stats(ConstMatrix()).empty());
}

TEST_CASE("softmax: errors name the argument", "[softmax][errors]") {
    const Mat S = from_rows({{1, 2, 3}, {4, 5, 6}});
    Mat A(2, 3);
    SoftmaxOptions o;
    SECTION("A of another shape than S") {
        Mat bad(3, 2);
        const Status st = masked_softmax(S.view(), o, bad.mview());
        CHECK_THAT(st.message(), StartsWith("A:"));
        Mat bad2(2, 4);
        CHECK_THAT(masked_softmax(S.view(), o, bad2.mview()).message(), StartsWith("A:"));
    }
    SECTION("temperature <= 0, not finite, or too small to divide by") {
        for (float tau : {0.0f, -0.0f, -1.0f, kNaN, kInf, -kInf, 1e-39f}) {
            o.temperature = tau;
            INFO("tau = " << tau);
            const Status st = masked_softmax(S.view(), o, A.mview());
            CHECK_FALSE(st.ok());
            CHECK_THAT(st.message(), StartsWith("temperature:"));
        }
        o.temperature = 1e-30f;
        CHECK(masked_softmax(S.view(), o, A.mview()).ok());
    }
}

TEST_CASE("softmax: row_stats from the scores agrees with the direct sum", "[softmax]") {
    // Rows of every kind the attention calls hand it: spread and flat scores, temperatures far from 1,
    // keys hidden by a mask (their raw scores kept in S), −inf scores, a row of +inf entries, a NaN row,
    // a fully masked row, and a row `direct` flags.
    Rng rng(2024);
    const std::size_t n = 300;
    for (const auto& [vname, variant] : public_variants())
        for (const float tau : {0.05f, 1.0f, 7.0f})
            DYNAMIC_SECTION("variant " << vname << " tau " << tau) {
                Mat S = uniform_matrix(8, n, rng, -20.0, 20.0);
                for (std::size_t j = 0; j < n; ++j) S(1, j) = 3.0f + 1e-4f * static_cast<float>(j % 7);  // nearly flat
                for (std::size_t j = 0; j < n; j += 3) S(2, j) = -std::numeric_limits<float>::infinity();
                S(3, 17) = S(3, 200) = std::numeric_limits<float>::infinity();
                S(4, 5) = std::numeric_limits<float>::quiet_NaN();
                std::vector<std::uint8_t> padding(n, 0);
                for (std::size_t j = 0; j < n; j += 2) padding[j] = 1;
                SoftmaxOptions o;
                o.temperature = tau;
                o.mask = Mask::causal;  // row i sees keys 0..i+query_offset
                o.query_offset = 150;
                o.key_padding = padding.data();
                const Mat A = softmax(S, o, variant);
                SoftmaxOptions plain;
                plain.temperature = tau;
                const Mat B = softmax(S, plain, variant);
                for (const Mat* W : {&A, &B}) {
                    const std::vector<RowStats> want = row_stats(W->view());
                    const std::vector<RowStats> got = row_stats(W->view(), S.view(), 1.0f / tau, [](std::size_t i) { return i == 6; });
                    REQUIRE(got.size() == want.size());
                    for (std::size_t i = 0; i < got.size(); ++i) {
                        INFO("row " << i << (W == &A ? " masked" : ""));
                        CHECK(got[i].max_weight == want[i].max_weight);
                        CHECK(got[i].argmax == want[i].argmax);
                        // The float weights carry ~2 ulp each; the entropy of n of them moves by a few 1e-7.
                        CHECK(got[i].entropy == Approx(want[i].entropy).margin(2e-6));
                        if (i == 3 || i == 4 || i == 6) CHECK(got[i].entropy == want[i].entropy);  // the direct sum itself
                    }
                }
            }
}

TEST_CASE("softmax: row_stats from the scores gives +0, never −0 or less, for one-hot rows", "[softmax]") {
    const Mat S = from_rows({{0.0f, -200.0f, -300.0f}, {5.0f, 5.0f - 1e-6f, -1e30f}});
    const Mat A = from_rows({{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.0f}});
    const std::vector<RowStats> st = row_stats(A.view(), S.view(), 1.0f, [](std::size_t) { return false; });
    CHECK(st[0].entropy == 0.0f);
    CHECK_FALSE(std::signbit(st[0].entropy));
    CHECK(st[1].entropy == Approx(std::log(2.0)).margin(1e-6));
}
