// Finite input gives finite answers where the true answer is finite, in every path: scores whose
// float computation leaves float's range (q·k of 1e30-sized vectors, 1e60 - 1e60 = NaN, distances
// past FLT_MAX) and outputs whose float accumulator overflows (V near FLT_MAX) are computed again
// in double. Before, attention([1e30], [-1e30, -2e30], [5, 7]) treated the row as masked (output 0,
// float64: 5), dot of [1e30, 1e30] and [1e30, -1e30] was NaN (float64: 0), and the fused path gave
// Infinity for an output of 2e38.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <vector>

#include "attnscope/attention.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;

namespace {

Mat make(std::size_t r, std::size_t c, std::initializer_list<float> x) {
    Mat m(r, c);
    std::size_t k = 0;
    for (float v : x) m(k / c, k % c) = v, ++k;
    return m;
}

struct Result {
    Mat S, A, O, fused;
};
Result run(const Mat& Q, const Mat& K, const Mat& V, Score score, Variant variant, float tau = 1.0f) {
    AttentionOptions o;
    o.score = score;
    o.variant = variant;
    o.temperature = tau;
    Result r{Mat(Q.rows, K.rows), Mat(Q.rows, K.rows), Mat(Q.rows, V.cols), Mat(Q.rows, V.cols)};
    Status st = attention(Q.view(), K.view(), V.view(), o, r.S.mview(), r.A.mview(), r.O.mview());
    INFO(st.message());
    REQUIRE(st.ok());
    st = attention_output(Q.view(), K.view(), V.view(), o, r.fused.mview());
    REQUIRE(st.ok());
    return r;
}

}  // namespace

TEST_CASE("dot family: scores past float's range give the float64 weights and output", "[overflow]") {
    for (const auto& [vname, variant] : public_variants())
        for (Score score : {Score::dot, Score::scaled_dot}) {
            DYNAMIC_SECTION(score_info(score).name << ", " << vname) {
                // q·k = -1e60 and -2e60: softmax gives all the weight to the first key.
                const Result r = run(make(1, 1, {1e30f}), make(2, 1, {-1e30f, -2e30f}), make(2, 1, {5, 7}), score, variant);
                CHECK(r.A(0, 0) == 1.0f);
                CHECK(r.A(0, 1) == 0.0f);
                CHECK(r.O(0, 0) == 5.0f);
                CHECK(r.fused(0, 0) == 5.0f);
                CHECK(r.S(0, 0) == -FLT_MAX);   // the scores themselves saturate (outside float)
                // +1e60 and +2e60: the second key.
                const Result p = run(make(1, 1, {1e30f}), make(2, 1, {1e30f, 2e30f}), make(2, 1, {5, 7}), score, variant);
                CHECK(p.O(0, 0) == 7.0f);
                CHECK(p.fused(0, 0) == 7.0f);
                // 1e60 - 1e60 = 0 (float: inf - inf = NaN) against 1e60: the first key's score is 0, the second's 2e60.
                const Result c = run(make(1, 2, {1e30f, 1e30f}), make(2, 2, {1e30f, -1e30f, 1e30f, 1e30f}), make(2, 1, {7, 3}),
                                     score, variant);
                CHECK(c.S(0, 0) == 0.0f);
                CHECK(c.O(0, 0) == 3.0f);
                CHECK(c.fused(0, 0) == 3.0f);
                // Only the cancelling pair: weights of the scores 0 and 0 (second key -1e30, 1e30).
                const Result z = run(make(1, 2, {1e30f, 1e30f}), make(2, 2, {1e30f, -1e30f, -1e30f, 1e30f}), make(2, 1, {7, 3}),
                                     score, variant);
                CHECK(z.O(0, 0) == 5.0f);
                CHECK(z.fused(0, 0) == 5.0f);
            }
        }
}

TEST_CASE("fused path: an output within float's range is not Infinity when the accumulator would overflow", "[overflow]") {
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos()) {
            if (score_has_weights(info.id)) continue;
            DYNAMIC_SECTION(info.name << ", " << vname) {
                const Result r = run(make(1, 1, {0}), make(2, 1, {0, 0}), make(2, 1, {2e38f, 2e38f}), info.id, variant);
                CHECK(r.O(0, 0) == 2e38f);
                CHECK(r.fused(0, 0) == 2e38f);
                // 65,536 keys of V = 1e34: Σ exp(0) V = 6.6e38 overflows before the division.
                const std::size_t n = 65536;
                Mat K(n, 1), V(n, 1);
                for (std::size_t j = 0; j < n; ++j) K(j, 0) = 0.0f, V(j, 0) = 1e34f;
                Mat O(1, 1);
                AttentionOptions o;
                o.score = info.id;
                o.variant = variant;
                REQUIRE(attention_output(make(1, 1, {0}).view(), K.view(), V.view(), o, O.mview()).ok());
                CHECK(O(0, 0) == Approx(1e34f).epsilon(1e-2));   // float sums of 65,536 weights (no overflow: the blocked path)
            }
        }
}

TEST_CASE("distance family: distances past FLT_MAX are ranked by their double value, not saturated to a tie", "[overflow]") {
    for (const auto& [vname, variant] : public_variants())
        for (Score score : {Score::neg_sq_euclidean, Score::neg_euclidean, Score::neg_manhattan}) {
            DYNAMIC_SECTION(score_info(score).name << ", " << vname) {
                // ‖q − k‖² = 9e76 and 3.6e77 (both past FLT_MAX): the nearer key takes the weight.
                const Result r = run(make(1, 1, {3e38f}), make(2, 1, {-3e38f, -3e38f / 2}), make(2, 1, {5, 7}), score, variant, 1e30f);
                INFO("weights " << r.A(0, 0) << " " << r.A(0, 1));
                CHECK(r.A(0, 1) > r.A(0, 0));
                CHECK(std::isfinite(r.O(0, 0)));
                CHECK(r.fused(0, 0) == Approx(r.O(0, 0)).epsilon(1e-5));
            }
        }
}

TEST_CASE("non-finite input keeps the softmax conventions (no double recomputation)", "[overflow]") {
    for (const auto& [vname, variant] : public_variants()) {
        const float nan = std::nanf("");
        const Result r = run(make(1, 1, {nan}), make(2, 1, {1, 2}), make(2, 1, {5, 7}), Score::dot, variant);
        CHECK(std::isnan(r.O(0, 0)));
        CHECK(std::isnan(r.fused(0, 0)));
    }
}
