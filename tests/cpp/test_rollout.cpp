// Attention rollout and head summaries against float64 references written here: 1 layer, 1 head,
// odd n, 'mean', 'max' and a followed head; rows of the rollout sum to 1.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "attnscope/rollout.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;

namespace {

std::vector<float> random_stack(std::size_t L, std::size_t H, std::size_t n, std::uint32_t seed) {
    Rng rng(seed);
    std::vector<float> v(L * H * n * n);
    for (std::size_t r = 0; r < L * H * n; ++r) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += (v[r * n + j] = static_cast<float>(std::exp(2 * rng.normal())));
        for (std::size_t j = 0; j < n; ++j) v[r * n + j] = static_cast<float>(v[r * n + j] / sum);
    }
    return v;
}

// The definition in rollout.hpp, in float64.
std::vector<double> reference(const std::vector<float>& A, std::size_t L, std::size_t H, std::size_t n, double residual, int head) {
    std::vector<double> R;
    for (std::size_t l = 0; l < L; ++l) {
        std::vector<double> bar(n * n, 0.0);
        for (std::size_t k = 0; k < n * n; ++k) {
            double x = head == -1 ? 0.0 : head == -2 ? -1e300 : A[(l * H + static_cast<std::size_t>(head)) * n * n + k];
            if (head < 0)
                for (std::size_t h = 0; h < H; ++h) {
                    const double a = A[(l * H + h) * n * n + k];
                    x = head == -1 ? x + a / static_cast<double>(H) : std::max(x, a);
                }
            bar[k] = x;
        }
        for (std::size_t i = 0; i < n; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) sum += (bar[i * n + j] = (1 - residual) * bar[i * n + j] + (i == j ? residual : 0.0));
            for (std::size_t j = 0; j < n; ++j) bar[i * n + j] /= sum;
        }
        if (l == 0) { R = bar; continue; }
        std::vector<double> next(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t k = 0; k < n; ++k)
                for (std::size_t j = 0; j < n; ++j) next[i * n + j] += bar[i * n + k] * R[k * n + j];
        R = next;
    }
    return R;
}

}  // namespace

TEST_CASE("rollout matches the float64 reference; rows sum to 1", "[rollout]") {
    struct Case { std::size_t L, H, n; };
    for (const Case c : {Case{1, 1, 1}, Case{1, 1, 5}, Case{1, 3, 7}, Case{3, 1, 9}, Case{4, 3, 17}, Case{12, 4, 33}}) {
        const auto A = random_stack(c.L, c.H, c.n, static_cast<std::uint32_t>(c.L * 100 + c.H * 10 + c.n));
        for (double residual : {0.0, 0.5, 0.9}) {
            for (int head : {-1, -2, 0, static_cast<int>(c.H) - 1}) {
                RolloutOptions o;
                o.residual = residual;
                o.head = head == -1 ? RolloutHead::mean : head == -2 ? RolloutHead::max : RolloutHead::index;
                o.head_index = head >= 0 ? static_cast<std::size_t>(head) : 0;
                std::vector<float> out(c.n * c.n, -1.0f);
                const Status st = attention_rollout(A.data(), c.L, c.H, c.n, o, out.data());
                INFO("L=" << c.L << " H=" << c.H << " n=" << c.n << " residual=" << residual << " head=" << head);
                REQUIRE(st.ok());
                const auto ref = reference(A, c.L, c.H, c.n, residual, head);
                // Each layer's float arithmetic errs by a few ulps per entry relative to the row
                // (sums of n non-negative terms: <= n·ε); L layers compound: <= L·(n+4)·ε·max.
                const double tol = static_cast<double>(c.L * (c.n + 4)) * kEps;
                for (std::size_t i = 0; i < c.n; ++i) {
                    double sum = 0;
                    for (std::size_t j = 0; j < c.n; ++j) {
                        CHECK(std::fabs(out[i * c.n + j] - ref[i * c.n + j]) <= tol);
                        sum += out[i * c.n + j];
                    }
                    CHECK(std::fabs(sum - 1.0) <= tol);
                }
            }
        }
    }
}

TEST_CASE("rollout: residual 1 is the identity, one layer with residual 0 is the attention itself", "[rollout]") {
    const auto A = random_stack(3, 2, 5, 7);
    std::vector<float> out(25);
    RolloutOptions o;
    o.residual = 1.0;
    REQUIRE(attention_rollout(A.data(), 3, 2, 5, o, out.data()).ok());
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(out[i * 5 + j] == (i == j ? 1.0f : 0.0f));
    o.residual = 0.0;
    o.head = RolloutHead::index;
    o.head_index = 1;
    REQUIRE(attention_rollout(A.data(), 1, 2, 5, o, out.data()).ok());
    for (std::size_t k = 0; k < 25; ++k) CHECK(out[k] == Approx(A[25 + k]).epsilon(1e-5));
}

TEST_CASE("rollout refuses bad options with the fix", "[rollout]") {
    const auto A = random_stack(1, 2, 3, 8);
    std::vector<float> out(9);
    RolloutOptions o;
    o.head = RolloutHead::index;
    o.head_index = 2;
    CHECK_THAT(attention_rollout(A.data(), 1, 2, 3, o, out.data()).message(), Contains("head: index 2 but there are 2 heads"));
    o = {};
    o.residual = 1.5;
    CHECK_THAT(attention_rollout(A.data(), 1, 2, 3, o, out.data()).message(), Contains("residual"));
    std::vector<float> negative(9, -1.0f);
    o = {};
    CHECK_THAT(attention_rollout(negative.data(), 1, 1, 3, o, out.data()).message(), Contains("non-negative"));
}

TEST_CASE("head summaries: entropy, max and mean row maximum per layer and head", "[rollout]") {
    const std::size_t L = 2, H = 3, nq = 4, nk = 5;
    Rng rng(9);
    std::vector<float> A(L * H * nq * nk);
    for (float& x : A) x = rng.uniform(0.0, 1.0);
    A[0] = 0.0f;  // 0·log 0 counts as 0
    std::vector<HeadSummary> s(L * H);
    REQUIRE(head_summaries(A.data(), L, H, nq, nk, s.data()).ok());
    for (std::size_t lh = 0; lh < L * H; ++lh) {
        double e = 0, mm = 0, mx = 0;
        for (std::size_t i = 0; i < nq; ++i) {
            double rmax = 0;
            for (std::size_t j = 0; j < nk; ++j) {
                const double a = A[(lh * nq + i) * nk + j];
                if (a > 0) e -= a * std::log(a);
                rmax = std::max(rmax, a);
            }
            mm += rmax;
            mx = std::max(mx, rmax);
        }
        CHECK(s[lh].entropy == Approx(e / nq).epsilon(1e-6));
        CHECK(s[lh].mean_max == Approx(mm / nq).epsilon(1e-6));
        CHECK(s[lh].max == static_cast<float>(mx));
    }
}

// A [4, 1, 4096, 4096] stack is within the limit of numbers but is 2e11 multiply-adds (it ran 115 s
// in wasm): refused before any work, naming the limit; the stack is not read.
TEST_CASE("rollout has the call budget: a stack too slow to roll out is refused before any work", "[rollout][budget]") {
    std::vector<float> one(1, 1.0f), out(1);
    RolloutOptions o;
    const Status st = attention_rollout(one.data(), 4, 1, 4096, o, out.data());
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Matchers::Contains("work: rollout of 4 layers x 4096 tokens") &&
                                 Catch::Matchers::Contains("fewer layers or tokens"));
    CHECK_FALSE(rollout_budget(16, 1, 2048).ok());
    CHECK(rollout_budget(12, 12, 512).ok());   // the documented 12 x 12 x 512 x 512 stack
    CHECK(rollout_budget(1, 1, 4096).ok());    // one layer: no product
}
