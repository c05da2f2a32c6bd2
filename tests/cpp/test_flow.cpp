// Attention flow (attnscope/flow.hpp) against hand-computed cases and against a brute-force minimum cut
// (max-flow = min-cut: every cut of a tiny network enumerated); Dinic against the two-layer closed form;
// the work limit and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attnscope/flow.hpp"
#include "attnscope/rollout.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;

namespace {

// Rows of softmax-like weights, with some exact zeros so that cuts through missing edges are met.
std::vector<float> random_stack(std::size_t L, std::size_t H, std::size_t n, std::uint32_t seed, bool zeros = false) {
    Rng rng(seed);
    std::vector<float> v(L * H * n * n);
    for (std::size_t r = 0; r < L * H * n; ++r) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            float x = static_cast<float>(std::exp(2 * rng.normal()));
            if (zeros && rng.uniform01() < 0.3) x = 0.0f;
            sum += (v[r * n + j] = x);
        }
        if (sum == 0) sum = (v[r * n] = 1.0f);
        for (std::size_t j = 0; j < n; ++j) v[r * n + j] = static_cast<float>(v[r * n + j] / sum);
    }
    return v;
}

std::vector<std::vector<float>> bars_of(const std::vector<float>& A, std::size_t L, std::size_t H, std::size_t n, const RolloutOptions& o) {
    std::vector<std::vector<float>> bars(L, std::vector<float>(n * n));
    for (std::size_t l = 0; l < L; ++l) REQUIRE(residual_attention(A.data(), H, n, o, l, bars[l].data()).ok());
    return bars;
}

// The minimum over every cut of the network from (L, i) to (0, j): a subset S of the interior nodes
// (layers 1 .. L−1) joins the source's side; the cut's capacity is the sum over edges from the source's
// side to the sink's side. Input nodes other than j have no way out, so they never add to a minimum.
double min_cut(const std::vector<std::vector<float>>& bars, std::size_t L, std::size_t n, std::size_t i, std::size_t j) {
    const std::size_t interior = (L - 1) * n;
    double best = 1e300;
    for (std::uint64_t S = 0; S < (std::uint64_t{1} << interior); ++S) {
        const auto in = [&](std::size_t l, std::size_t t) { return ((S >> ((l - 1) * n + t)) & 1) != 0; };  // l in 1 .. L−1
        double cut = 0;
        for (std::size_t k = 0; k < n; ++k)
            if (!in(L - 1, k)) cut += bars[L - 1][i * n + k];  // source → (L−1, k)
        for (std::size_t l = 1; l + 1 < L; ++l)                     // (l+1, a) → (l, b)
            for (std::size_t a = 0; a < n; ++a)
                for (std::size_t b = 0; b < n; ++b)
                    if (in(l + 1, a) && !in(l, b)) cut += bars[l][a * n + b];
        for (std::size_t k = 0; k < n; ++k)
            if (in(1, k)) cut += bars[0][k * n + j];  // (1, k) → sink
        best = std::min(best, cut);
    }
    return best;
}

std::vector<float> flow(const std::vector<float>& A, std::size_t L, std::size_t H, std::size_t n, const RolloutOptions& o,
                        FlowSolver solver = FlowSolver::automatic) {
    std::vector<float> out(n * n, -1.0f);
    const Status st = attention_flow(A.data(), L, H, n, o, out.data(), solver);
    INFO(st.message());
    REQUIRE(st.ok());
    return out;
}

RolloutOptions head_only(std::size_t h, double residual = 0.0) {
    RolloutOptions o;
    o.head = RolloutHead::index;
    o.head_index = h;
    o.residual = residual;
    return o;
}

}  // namespace

TEST_CASE("flow: hand-computed networks of one, two and three layers", "[flow]") {
    // One layer: the only path is the edge: flow = Ā = 0.5·I + 0.5·A with the default residual.
    const std::vector<float> one = {0.25f, 0.75f, 1.0f, 0.0f};
    const auto f1 = flow(one, 1, 1, 2, RolloutOptions{});
    CHECK(f1 == std::vector<float>{0.625f, 0.375f, 0.5f, 0.5f});

    // Two layers (residual 0): layer 0 rows c = [0.5, 0.5], d = [0.2, 0.8]; layer 1 rows [0.3, 0.7], [1, 0].
    // flow[0][0] = min(0.3, 0.5) + min(0.7, 0.2) = 0.5; flow[0][1] = min(0.3, 0.5) + min(0.7, 0.8) = 1.0;
    // flow[1][0] = min(1, 0.5) + min(0, 0.2) = 0.5;   flow[1][1] = min(1, 0.5) + 0 = 0.5.
    const std::vector<float> two = {0.5f, 0.5f, 0.2f, 0.8f, 0.3f, 0.7f, 1.0f, 0.0f};
    for (FlowSolver s : {FlowSolver::automatic, FlowSolver::dinic}) {
        const auto f2 = flow(two, 2, 1, 2, head_only(0), s);
        CHECK(f2[0] == Approx(0.5).margin(1e-6));
        CHECK(f2[1] == Approx(1.0).margin(1e-6));
        CHECK(f2[2] == Approx(0.5).margin(1e-6));
        CHECK(f2[3] == Approx(0.5).margin(1e-6));
    }

    // Three layers: layer 2 rows [0.5, 0.5] and [0.9, 0.1] (all of the source's 1 reaches layer 2);
    // layer 1 sends both of its tokens to token c only: rows [1, 0], [1, 0]; layer 0 rows c = [0.6, 0.4],
    // d = [0, 1]. Everything passes through (1, c), so flow[i][0] = min(1, 0.6) = 0.6 and
    // flow[i][1] = min(1, 0.4) = 0.4 for both i, though d → input 1 has capacity 1 (nothing reaches d).
    const std::vector<float> three = {0.6f, 0.4f, 0.0f, 1.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.5f, 0.5f, 0.9f, 0.1f};
    const auto f3 = flow(three, 3, 1, 2, head_only(0));
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(f3[i * 2 + 0] == Approx(0.6).margin(1e-6));
        CHECK(f3[i * 2 + 1] == Approx(0.4).margin(1e-6));
    }
    // Bottleneck in the middle: layer 1 rows [0.5, 0.5], [0.5, 0.5]; layer 0 rows c = [1, 0], d = [1, 0];
    // layer 2 rows [1, 0], [0, 1]: one path of 1 into layer 2, split 0.5 / 0.5 onto c and d, both
    // reach input 0 in full: flow[i][0] = 1, flow[i][1] = 0.
    const std::vector<float> mid = {1.0f, 0.0f, 1.0f, 0.0f, 0.5f, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 0.0f, 1.0f};
    const auto fm = flow(mid, 3, 1, 2, head_only(0));
    CHECK(fm == std::vector<float>{1.0f, 0.0f, 1.0f, 0.0f});
}

TEST_CASE("flow equals the minimum cut, every cut enumerated, on tiny random stacks", "[flow]") {
    struct Case { std::size_t L, H, n; };
    for (const Case c : {Case{1, 2, 3}, Case{2, 2, 4}, Case{3, 1, 3}, Case{3, 2, 4}, Case{4, 1, 2}, Case{4, 3, 3}, Case{5, 2, 2}, Case{6, 1, 2}}) {
        for (bool zeros : {false, true}) {
            for (double residual : {0.0, 0.5, 0.8}) {
                for (int head : {-1, -2, 0}) {
                    const auto A = random_stack(c.L, c.H, c.n, static_cast<std::uint32_t>(c.L * 1000 + c.H * 100 + c.n * 10 + zeros), zeros);
                    RolloutOptions o;
                    o.residual = residual;
                    o.head = head == -1 ? RolloutHead::mean : head == -2 ? RolloutHead::max : RolloutHead::index;
                    const auto bars = bars_of(A, c.L, c.H, c.n, o);
                    for (FlowSolver s : {FlowSolver::automatic, FlowSolver::dinic}) {
                        if (c.L == 1 && s == FlowSolver::dinic) continue;  // one layer has no network to solve
                        const auto f = flow(A, c.L, c.H, c.n, o, s);
                        for (std::size_t i = 0; i < c.n; ++i)
                            for (std::size_t j = 0; j < c.n; ++j) {
                                INFO("L=" << c.L << " H=" << c.H << " n=" << c.n << " zeros=" << zeros << " residual=" << residual
                                          << " head=" << head << " dinic=" << (s == FlowSolver::dinic) << " i=" << i << " j=" << j);
                                const double cut = c.L == 1 ? bars[0][i * c.n + j] : min_cut(bars, c.L, c.n, i, j);
                                CHECK(std::fabs(f[i * c.n + j] - cut) <= 1e-6);
                            }
                    }
                }
            }
        }
    }
}

TEST_CASE("flow: Dinic gives the two-layer closed form; flows lie in [0, 1] and under each layer's bounds", "[flow]") {
    for (std::size_t n : {1, 2, 5, 17, 33}) {
        const auto A = random_stack(2, 3, n, static_cast<std::uint32_t>(n), n % 2 == 1);
        const RolloutOptions o;
        const auto closed = flow(A, 2, 3, n, o);
        const auto dinic = flow(A, 2, 3, n, o, FlowSolver::dinic);
        for (std::size_t k = 0; k < n * n; ++k) CHECK(std::fabs(closed[k] - dinic[k]) <= 1e-6);
    }
    const std::size_t L = 4, H = 2, n = 9;
    const auto A = random_stack(L, H, n, 99, true);
    const RolloutOptions o;
    const auto f = flow(A, L, H, n, o);
    const auto bars = bars_of(A, L, H, n, o);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const float x = f[i * n + j];
            double into_j = 0;  // the sink's edges bound every flow into it
            for (std::size_t k = 0; k < n; ++k) into_j += bars[0][k * n + j];
            CHECK(x >= 0.0f);
            CHECK(x <= 1.0f + 1e-6f);
            CHECK(x <= into_j + 1e-6);
        }
}

TEST_CASE("flow: the work estimate, the limit and the errors", "[flow]") {
    CHECK(attention_flow_work(1, 10) == 100);
    CHECK(attention_flow_work(2, 10) == 1000);
    CHECK(attention_flow_work(3, 10) == 100 * (20 + 100) * kDinicVisitsPerEdge);
    CHECK(attention_flow_work(12, 10) == 100 * (20 + 10 * 100) * kDinicVisitsPerEdge);
    CHECK(attention_flow_work(3, 53) <= kMaxFlowWork);
    CHECK(attention_flow_work(3, 54) > kMaxFlowWork);
    CHECK(attention_flow_work(12, 30) <= kMaxFlowWork);
    CHECK(attention_flow_work(12, 31) > kMaxFlowWork);
    CHECK(attention_flow_work(2, 812) <= kMaxFlowWork);
    CHECK(attention_flow_work(2, 813) > kMaxFlowWork);
    CHECK(attention_flow_work(1024, 4096) > kMaxFlowWork);
    CHECK(attention_flow_work(SIZE_MAX, SIZE_MAX) == UINT64_MAX);  // saturates, no wrap (size_t is 32 bits in wasm)
    CHECK(attention_flow_work(3, SIZE_MAX) == UINT64_MAX);

    std::vector<float> out(9);
    const auto A = random_stack(1, 2, 3, 8);
    RolloutOptions o = head_only(2);
    CHECK_THAT(attention_flow(A.data(), 1, 2, 3, o, out.data()).message(), Contains("head: index 2 but there are 2 heads"));
    o = {};
    o.residual = -0.1;
    CHECK_THAT(attention_flow(A.data(), 1, 2, 3, o, out.data()).message(), Contains("residual"));
    o = {};
    std::vector<float> negative(9, -1.0f);
    CHECK_THAT(attention_flow(negative.data(), 1, 1, 3, o, out.data()).message(), Contains("non-negative"));
    CHECK_THAT(attention_flow(A.data(), 1, 2, 3, o, nullptr).message(), Contains("out: missing"));
    CHECK_THAT(attention_flow(nullptr, 1, 2, 3, o, out.data()).message(), Contains("attentions: missing"));
    // Over the work limit: refused before anything is read (the pointer is never touched).
    std::vector<float> one(1, 1.0f);
    const std::size_t big = 813;
    const Status st = attention_flow(one.data(), 2, 1, big, o, out.data());
    CHECK_THAT(st.message(), Contains("over the limit of " + std::to_string(kMaxFlowWork)));
    CHECK_THAT(st.message(), Contains("2 layers x 813 tokens"));
}

TEST_CASE("flow and rollout of subnormal weights: finite, and the call ends (reliability round 4)", "[flow]") {
    // Rows of 1e-45 (the smallest float) with residual 0: 1/sum is past float's range; rollout gave
    // infinities and flow (Dinic on infinite capacities) never returned. Each row is uniform once
    // normalised: rollout is 1/3 everywhere, and every flow is 1 (three edges of 1/3 into each sink).
    for (const float tiny : {1e-45f, 5e-40f}) {
        for (const std::size_t layers : {std::size_t{3}, std::size_t{4}}) {
            std::vector<float> A(layers * 9, tiny), rolled(9), flow(9), dinic(9);
            RolloutOptions o;
            o.residual = 0.0;
            REQUIRE(attention_rollout(A.data(), layers, 1, 3, o, rolled.data()).ok());
            REQUIRE(attention_flow(A.data(), layers, 1, 3, o, flow.data()).ok());
            for (std::size_t k = 0; k < 9; ++k) {
                CHECK(rolled[k] == Approx(1.0 / 3).epsilon(1e-6));
                CHECK(flow[k] == Approx(1.0).epsilon(1e-6));
            }
        }
    }
}

TEST_CASE("flow and rollout refuse a negative weight even where its row sums to more than 0", "[flow]") {
    // Row 0 is (-1, 2, 1): sum 2 > 0, so the old per-row check let it through (rollout -2.33, flow -1).
    std::vector<float> A{-1, 2, 1, 0.2f, 0.3f, 0.5f, 0.1f, 0.1f, 0.8f};
    std::vector<float> out(9);
    RolloutOptions o;
    o.residual = 0.0;
    CHECK_THAT(attention_rollout(A.data(), 1, 1, 3, o, out.data()).message(),
               Contains("the weight at layer 0, head 0, row 0, column 0 is -1") && Contains("non-negative"));
    CHECK_THAT(attention_flow(A.data(), 1, 1, 3, o, out.data()).message(), Contains("non-negative"));
    A[0] = std::numeric_limits<float>::infinity();
    CHECK_THAT(attention_rollout(A.data(), 1, 1, 3, o, out.data()).message(), Contains("finite"));
}

TEST_CASE("flow and rollout of weights near float's largest: the heads' mean does not overflow", "[flow]") {
    // Two heads of 3.39e38 everywhere (finite, non-negative): their float sum is infinite, so the mean
    // of the heads was infinite and the shares NaN. Found by fuzz_flow (corpus/flow/large-weights-2-layers).
    for (const RolloutHead head : {RolloutHead::mean, RolloutHead::max}) {
        std::vector<float> A(2 * 2 * 16, 3.39e38f), rolled(16), flow(16);
        RolloutOptions o;
        o.residual = 0.15;
        o.head = head;
        REQUIRE(attention_rollout(A.data(), 2, 2, 4, o, rolled.data()).ok());
        REQUIRE(attention_flow(A.data(), 2, 2, 4, o, flow.data()).ok());
        for (std::size_t k = 0; k < 16; ++k) {
            CHECK(rolled[k] == Approx(0.25).epsilon(1e-6));
            CHECK(std::isfinite(flow[k]));
            CHECK(flow[k] >= 0.0f);
            CHECK(flow[k] <= 1.0f + 1e-6f);
        }
    }
}
