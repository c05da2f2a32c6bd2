// Kernel benchmarks, in every variant of the manifest, at a few sizes: every scoring function through
// compute_scores (cases "f32_score_<name>"), and every kernel operation of the manifest on its own
// (cases named like the kernel, "f32_<op>", as in f32_<op>__<variant>: one grep finds the kernel, its
// tests and its benchmark). Prints JSON (one object per case) to stdout. Timings are medians of
// repeated batches; compare variants as ratios within one run (the machine is small and noisy).
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
#include "attnscope/registry.hpp"
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

// The inputs of one size, shared by the cases.
struct Inputs {
    std::size_t nq, nk, d;
    std::vector<float> Q, K, W, Wa, W1, W2, v, qq, kk, S, A, C;
};

// One call of each kernel operation at size (nq, nk, d), and the work it counts (flops): one function
// per op of ATTNSCOPE_KERNEL_OPS, so an op without a benchmark case does not compile.
struct OpCase {
    void (*run)(const kernels::KernelTable&, Inputs&);
    double (*flops)(const Inputs&);
};
OpCase op_gemm_nt() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.gemm_nt(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.S.data(), x.nk, 1.0f); },
            [](const Inputs& x) { return 2.0 * x.nq * x.nk * x.d; }};
}
OpCase op_gemm_nn() {  // Q [nq, d] · W [d, d]
    return {[](const kernels::KernelTable& t, Inputs& x) { t.gemm_nn(x.nq, x.d, x.d, x.Q.data(), x.d, x.W.data(), x.d, x.C.data(), x.d); },
            [](const Inputs& x) { return 2.0 * x.nq * x.d * x.d; }};
}
OpCase op_row_sumsq() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.row_sumsq(x.nk, x.d, x.K.data(), x.d, x.kk.data()); },
            [](const Inputs& x) { return 2.0 * x.nk * x.d; }};
}
// The epilogues rewrite S in place: each call starts from the same S (a copy of A) so the values stay
// in range; the copy is part of the time (nq·nk floats, small next to the epilogue itself).
OpCase op_cosine_epilogue() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.A.begin(), x.A.end(), x.S.begin());
                t.cosine_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data());
            },
            [](const Inputs& x) { return 2.0 * x.nq * x.nk; }};
}
OpCase op_sq_euclidean_epilogue() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.A.begin(), x.A.end(), x.S.begin());
                t.sq_euclidean_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data());
            },
            [](const Inputs& x) { return 4.0 * x.nq * x.nk; }};
}
OpCase op_euclidean_epilogue() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.A.begin(), x.A.end(), x.S.begin());
                t.euclidean_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data());
            },
            [](const Inputs& x) { return 5.0 * x.nq * x.nk; }};
}
OpCase op_idw_epilogue() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.A.begin(), x.A.end(), x.S.begin());
                t.idw_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data(), 2.0f, 1e-3f);
            },
            [](const Inputs& x) { return 6.0 * x.nq * x.nk; }};
}
OpCase op_additive() {  // hidden = d, on Q and K as the projected queries and keys
    return {[](const kernels::KernelTable& t, Inputs& x) {
                t.additive(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.v.data(), x.S.data(), x.nk);
            },
            [](const Inputs& x) { return 3.0 * x.nq * x.nk * x.d; }};
}
OpCase op_softmax_rows() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.softmax_rows(x.nq, x.nk, x.A.data(), x.nk, 1.0f, x.S.data(), x.nk); },
            [](const Inputs& x) { return 4.0 * x.nq * x.nk; }};
}

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
        Inputs x{sz.nq, sz.nk, sz.d, random_matrix(sz.nq * sz.d, rng), random_matrix(sz.nk * sz.d, rng),
                 random_matrix(sz.d * sz.d, rng), random_matrix(sz.nk * sz.d, rng), random_matrix(sz.d * sz.d, rng),
                 random_matrix(sz.d * sz.d, rng), random_matrix(sz.d, rng), {}, {}, std::vector<float>(sz.nq * sz.nk),
                 {}, std::vector<float>(sz.nq * sz.d)};
        // Squared norms and a dot-product matrix consistent with them, for the epilogues.
        x.qq.resize(sz.nq);
        x.kk.resize(sz.nk);
        kernels::table_scalar.row_sumsq(sz.nq, sz.d, x.Q.data(), sz.d, x.qq.data());
        kernels::table_scalar.row_sumsq(sz.nk, sz.d, x.K.data(), sz.d, x.kk.data());
        x.A.resize(sz.nq * sz.nk);
        kernels::table_scalar.gemm_nt(sz.nq, sz.nk, sz.d, x.Q.data(), sz.d, x.K.data(), sz.d, x.A.data(), sz.nk, 1.0f);
        ScoreParams params;
        params.W = x.W.data();
        params.W1 = x.W1.data();
        params.W2 = x.W2.data();
        params.v = x.v.data();
        params.hidden = sz.d;
        params.Wa = x.Wa.data();
        params.max_keys = sz.nk;
        for (const auto* table : kernels::all_variants()) {
            Variant variant;
            if (!parse_variant(table->name, variant)) return 1;
            auto emit = [&](const std::string& name, double sec, double flops) {
                std::printf("%s  {\"case\": \"%s\", \"variant\": \"%s\", \"isa\": \"%s\", \"nq\": %zu, \"nk\": %zu, \"d\": %zu, "
                            "\"median_us\": %.3f, \"gflops\": %.3f, \"scores_per_s\": %.4g}",
                            first ? "" : ",\n", name.c_str(), table->name, table->isa, sz.nq, sz.nk, sz.d, sec * 1e6,
                            flops / sec * 1e-9, static_cast<double>(sz.nq * sz.nk) / sec);
                first = false;
            };
            for (const auto& info : score_infos()) {
                bool ok = true;
                const double sec = median_seconds([&] {
                    ok = compute_scores(info.id, ConstMatrix(x.Q.data(), sz.nq, sz.d), ConstMatrix(x.K.data(), sz.nk, sz.d),
                                        params, Matrix(x.S.data(), sz.nq, sz.nk), variant).ok() && ok;
                    g_sink = x.S[0];
                }, reps);
                if (!ok) {
                    std::fprintf(stderr, "bench: f32_score_%s failed\n", info.name);
                    return 1;
                }
                // Counted work: 2 flops per multiply-add of Q·Kᵀ (additive: its two projections and the
                // tanh loop as 3 flops per hidden unit).
                double flops = 2.0 * sz.nq * sz.nk * sz.d;
                if (info.id == Score::additive) flops = 2.0 * (sz.nq + sz.nk) * sz.d * sz.d + 3.0 * sz.nq * sz.nk * sz.d;
                if (info.id == Score::general) flops += 2.0 * sz.nq * sz.d * sz.d;
                emit(std::string("f32_score_") + info.name, sec, flops);
            }
            // Every kernel operation of the manifest, on its own.
#define ATTNSCOPE_BENCH_OP(op)                                                                  \
            {                                                                                   \
                const OpCase c = op_##op();                                                     \
                const double sec = median_seconds([&] { c.run(*table, x); g_sink = x.S[0] + x.C[0] + x.kk[0]; }, reps); \
                emit("f32_" #op, sec, c.flops(x));                                              \
            }
            ATTNSCOPE_KERNEL_OPS(ATTNSCOPE_BENCH_OP)
#undef ATTNSCOPE_BENCH_OP
        }
    }
    std::printf("\n]\n");
    return 0;
}
