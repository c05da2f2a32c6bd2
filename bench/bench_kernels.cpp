// Kernel benchmarks: every scoring function and the softmax tail, in every variant of the manifest,
// at a few sizes. Prints JSON (one object per case) to stdout. Timings are medians of repeated
// batches; compare variants as ratios within one run (the machine is small and noisy).
//   attnscope_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "kernels/kernels.hpp"

using namespace attnscope;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<float> random_matrix(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

// Median seconds per call of fn over `reps` batches, each batch long enough (>= 2 ms) to time.
template <class Fn>
double median_seconds(Fn&& fn, int reps) {
    int iters = 1;
    for (;;) {
        const auto t0 = Clock::now();
        for (int i = 0; i < iters; ++i) fn();
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (s > 0.002 || iters > (1 << 24)) break;
        iters *= 2;
    }
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        for (int i = 0; i < iters; ++i) fn();
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / iters);
    }
    std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
    return times[static_cast<std::size_t>(reps / 2)];
}

volatile float g_sink;

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const int reps = quick ? 3 : 11;
    struct Size { std::size_t nq, nk, d; };
    const std::vector<Size> sizes = quick ? std::vector<Size>{{16, 16, 100}}
                                          : std::vector<Size>{{12, 12, 100}, {40, 40, 100}, {256, 256, 64}};
    std::mt19937 rng(42);
    std::printf("[\n");
    bool first = true;
    for (const Size& sz : sizes) {
        const auto Q = random_matrix(sz.nq * sz.d, rng), K = random_matrix(sz.nk * sz.d, rng);
        const auto W = random_matrix(sz.d * sz.d, rng), Wa = random_matrix(sz.nk * sz.d, rng);
        const auto W1 = random_matrix(sz.d * sz.d, rng), W2 = random_matrix(sz.d * sz.d, rng), v = random_matrix(sz.d, rng);
        std::vector<float> S(sz.nq * sz.nk), A(sz.nq * sz.nk);
        ScoreParams params;
        params.W = W.data();
        params.W1 = W1.data();
        params.W2 = W2.data();
        params.v = v.data();
        params.hidden = sz.d;
        params.Wa = Wa.data();
        params.max_keys = sz.nk;
        for (const auto* table : kernels::all_variants()) {
            Variant variant;
            parse_variant(table->name, variant);
            auto emit = [&](const std::string& name, double sec, double flops) {
                std::printf("%s  {\"case\": \"%s\", \"variant\": \"%s\", \"isa\": \"%s\", \"nq\": %zu, \"nk\": %zu, \"d\": %zu, "
                            "\"median_us\": %.3f, \"gflops\": %.3f, \"scores_per_s\": %.4g}",
                            first ? "" : ",\n", name.c_str(), table->name, table->isa, sz.nq, sz.nk, sz.d, sec * 1e6,
                            flops / sec * 1e-9, static_cast<double>(sz.nq * sz.nk) / sec);
                first = false;
            };
            for (const auto& info : score_infos()) {
                const double sec = median_seconds([&] {
                    compute_scores(info.id, ConstMatrix(Q.data(), sz.nq, sz.d), ConstMatrix(K.data(), sz.nk, sz.d), params,
                                   Matrix(S.data(), sz.nq, sz.nk), variant);
                    g_sink = S[0];
                }, reps);
                // Counted work: 2 flops per multiply-add of Q·Kᵀ (additive: its two projections and the
                // tanh loop as 3 flops per hidden unit).
                double flops = 2.0 * sz.nq * sz.nk * sz.d;
                if (info.id == Score::additive) flops = 2.0 * (sz.nq + sz.nk) * sz.d * sz.d + 3.0 * sz.nq * sz.nk * sz.d;
                if (info.id == Score::general) flops += 2.0 * sz.nq * sz.d * sz.d;
                emit(std::string("f32_score_") + info.name, sec, flops);
            }
            SoftmaxOptions so;
            so.variant = variant;
            const double sec = median_seconds([&] {
                masked_softmax(ConstMatrix(S.data(), sz.nq, sz.nk), so, Matrix(A.data(), sz.nq, sz.nk));
                g_sink = A[0];
            }, reps);
            emit("f32_softmax_rows", sec, 4.0 * sz.nq * sz.nk);
        }
    }
    std::printf("\n]\n");
    return 0;
}
