// Kernel benchmarks, in every variant of the manifest, at a few sizes: every scoring function through
// compute_scores (cases "f32_score_<name>"), and every kernel operation of the manifest on its own
// (cases named like the kernel, "f32_<op>", as in f32_<op>__<variant>: one grep finds the kernel, its
// tests and its benchmark). Then the attention benchmarks of issue 12: the multiply+add peak of this
// machine's SIMD (f32_peak_muladd: 12 independent 4-lane mul+add chains, the most the core can
// retire; wasm has no FMA), the score GEMM (f32_gemm_nt) at n = 512, d = 64 as a share of that peak,
// timed in alternation with it, the fused output-only attention (attention_output) and the full
// attention() at n in {512, 2048} x d in {64, 128}, every score through the fused path at n = 512,
// and long sequences (4,096 and 16,384). Prints JSON (one object per case) to stdout. Timings are
// medians of repeated batches of CPU time, after a warm-up of 1.5 s; compare as ratios within one run.
//   attnscope_bench [--quick]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "attnscope/attention.hpp"
#include "attnscope/backward.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

#include <xsimd/xsimd.hpp>

using namespace attnscope;
// Timings are CPU time of this thread (native: CLOCK_THREAD_CPUTIME_ID; wasm: node's
// process.cpuUsage()), not wall time: on a shared machine with more runnable threads than cores,
// wall time mostly measures the other processes. (Cache and core sharing still show.)
#ifdef __EMSCRIPTEN__
EM_JS(double, attnscope_cpu_seconds, (), {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
});
#else
double attnscope_cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
#endif
struct Clock {
    using time_point = double;
    static double now() { return attnscope_cpu_seconds(); }
};
inline double elapsed(double t0) { return Clock::now() - t0; }

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
        const double s = elapsed(t0);
        if (s > 0.002 || iters > (1 << 24)) break;
        iters *= 2;
    }
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        for (int i = 0; i < iters; ++i) fn();
        times.push_back(elapsed(t0) / iters);
    }
    std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
    return times[static_cast<std::size_t>(reps / 2)];
}

volatile float g_sink;

// A benchmark whose call fails measures nothing: stop with the message.
void must(const Status& st, const char* what) {
    if (!st.ok()) {
        std::fprintf(stderr, "bench: %s failed: %s\n", what, st.message().c_str());
        std::exit(1);
    }
}
volatile float g_one = 0.999f, g_small = 1e-3f;

// The multiply+add peak: 12 independent accumulators (mul then add, as wasm SIMD128 has no FMA),
// enough chains to cover the add latency on every floating-point port. Returns flops per call.
__attribute__((noinline)) double peak_muladd(std::size_t iters) {
    using batch = xsimd::batch<float>;
    constexpr std::size_t kChains = 12;
    const batch x(g_one), y(g_small);
    batch a[kChains];
    for (std::size_t k = 0; k < kChains; ++k) a[k] = batch(static_cast<float>(k) * g_small);
    for (std::size_t n = 0; n < iters; ++n)
        for (std::size_t k = 0; k < kChains; ++k) a[k] = a[k] * x + y;  // unrolled: the chains stay in registers
    g_sink = xsimd::hadd(((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) + ((a[8] + a[9]) + (a[10] + a[11])));
    return static_cast<double>(iters) * kChains * batch::size * 2.0;
}

// Medians of fn_a and fn_b timed in alternation (a, b, a, b, ...), so both see the same machine:
// on a shared, busy machine a ratio is only meaningful when its two sides were measured together.
template <class FnA, class FnB>
std::pair<double, double> interleaved_medians(FnA&& fa, FnB&& fb, int reps) {
    auto calibrate = [](auto& fn) {
        int iters = 1;
        for (;;) {
            const auto t0 = Clock::now();
            for (int i = 0; i < iters; ++i) fn();
            if (elapsed(t0) > 0.005 || iters > (1 << 24)) return iters;
            iters *= 2;
        }
    };
    const int ia = calibrate(fa), ib = calibrate(fb);
    std::vector<double> ta, tb;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        for (int i = 0; i < ia; ++i) fa();
        ta.push_back(elapsed(t0) / ia);
        t0 = Clock::now();
        for (int i = 0; i < ib; ++i) fb();
        tb.push_back(elapsed(t0) / ib);
    }
    std::sort(ta.begin(), ta.end());
    std::sort(tb.begin(), tb.end());
    return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

template <class Fn>
void warm_up(Fn&& fn, double seconds) {
    const auto t0 = Clock::now();
    while (elapsed(t0) < seconds) fn();
}

// The inputs of one size, shared by the cases.
struct Inputs {
    std::size_t nq, nk, d;
    std::vector<float> Q, K, W, Wa, W1, W2, v, qq, kk, S, A, C;
    std::vector<float> dK, dv;  // outputs of the backward cases: nk x d, d
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
template <void (*epilogue)(const kernels::KernelTable&, Inputs&), int flops_per_pair>
OpCase epilogue_case() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.A.begin(), x.A.end(), x.S.begin());
                epilogue(t, x);
            },
            [](const Inputs& x) { return static_cast<double>(flops_per_pair) * x.nq * x.nk; }};
}
void cosine_epilogue(const kernels::KernelTable& t, Inputs& x) {
    t.cosine_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data());
}
void sq_euclidean_epilogue(const kernels::KernelTable& t, Inputs& x) {
    t.sq_euclidean_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data());
}
void euclidean_epilogue(const kernels::KernelTable& t, Inputs& x) {
    t.euclidean_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data());
}
void idw_epilogue(const kernels::KernelTable& t, Inputs& x) {
    t.idw_epilogue(x.nq, x.nk, x.S.data(), x.nk, x.qq.data(), x.kk.data(), 2.0f, 1e-3f);
}
OpCase op_cosine_epilogue() { return epilogue_case<cosine_epilogue, 2>(); }
OpCase op_sq_euclidean_epilogue() { return epilogue_case<sq_euclidean_epilogue, 4>(); }
OpCase op_euclidean_epilogue() { return epilogue_case<euclidean_epilogue, 5>(); }
OpCase op_idw_epilogue() { return epilogue_case<idw_epilogue, 6>(); }
OpCase op_cancelled_keys() {  // the distance scores' scan of every row of S = A (no pair cancels)
    return {[](const kernels::KernelTable& t, Inputs& x) {
                static thread_local std::vector<std::uint32_t> keys;
                keys.resize(x.nk);
                for (std::size_t i = 0; i < x.nq; ++i)
                    t.cancelled_keys(x.nk, x.A.data() + i * x.nk, x.qq[i], x.kk.data(), 0.25f, keys.data());
            },
            [](const Inputs& x) { return 4.0 * x.nq * x.nk; }};
}
OpCase op_distance_row() {  // idw's rows of S = A in one pass: the scan and the epilogue (no pair cancels)
    return {[](const kernels::KernelTable& t, Inputs& x) {
                static thread_local std::vector<std::uint32_t> keys;
                keys.resize(x.nk);
                std::copy(x.A.begin(), x.A.end(), x.S.begin());
                for (std::size_t i = 0; i < x.nq; ++i)
                    t.distance_row(kernels::FusedScore::idw, x.nk, x.S.data() + i * x.nk, x.qq[i], x.kk.data(), 2.0f,
                                   1e-3f, 0.25f, keys.data());
            },
            [](const Inputs& x) { return 10.0 * x.nq * x.nk; }};
}
OpCase op_neg_manhattan() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                t.neg_manhattan(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.S.data(), x.nk);
            },
            [](const Inputs& x) { return 3.0 * x.nq * x.nk * x.d; }};
}
OpCase op_additive() {  // hidden = d, on Q and K as the projected queries and keys
    return {[](const kernels::KernelTable& t, Inputs& x) {
                t.additive(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.v.data(), x.S.data(), x.nk);
            },
            [](const Inputs& x) { return 3.0 * x.nq * x.nk * x.d; }};
}
OpCase op_attention_fused() {  // softmax(Q Kᵀ / √d) V with V = K, no mask
    return {[](const kernels::KernelTable& t, Inputs& x) {
                kernels::FusedAttentionArgs a;
                a.nq = x.nq;
                a.nk = x.nk;
                a.d = a.dv = x.d;
                a.Q = x.Q.data();
                a.K = a.V = x.K.data();
                a.ldq = a.ldk = a.ldv = a.ldo = x.d;
                a.O = x.C.data();
                a.alpha = 1.0f / std::sqrt(static_cast<float>(x.d));
                t.attention_fused(a);
            },
            [](const Inputs& x) { return 4.0 * x.nq * x.nk * x.d; }};
}
OpCase op_softmax_rows() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.softmax_rows(x.nq, x.nk, x.A.data(), x.nk, 1.0f, x.S.data(), x.nk); },
            [](const Inputs& x) { return 4.0 * x.nq * x.nk; }};
}

// The trained model's layer kernels, on Q as nq rows of d: layer norm (gains and biases from W's first
// row and K's first row), and bias + ReLU on a copy of Q in C.
OpCase op_layer_norm() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.layer_norm(x.nq, x.d, x.Q.data(), x.d, x.W.data(), x.K.data(), 1e-6f, x.C.data(), x.d); },
            [](const Inputs& x) { return 7.0 * x.nq * x.d; }};
}
OpCase op_bias_activation() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.Q.begin(), x.Q.begin() + static_cast<std::ptrdiff_t>(x.nq * x.d), x.C.begin());
                t.bias_activation(x.nq, x.d, x.C.data(), x.d, x.K.data(), kernels::Activation::relu);
            },
            [](const Inputs& x) { return 2.0 * x.nq * x.d; }};
}

// The transformer's backward kernels on Q as nq rows of d: layer norm's (upstream gradient Q too; dX
// into C, dg into dv, db into dK's first row; they accumulate) and GELU's (upstream gradient a copy of Q
// in C).
OpCase op_layer_norm_backward() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                t.layer_norm_backward(x.nq, x.d, x.Q.data(), x.d, x.W.data(), 1e-5f, x.Q.data(), x.d, x.C.data(), x.d,
                                      x.dv.data(), x.dK.data());
            },
            [](const Inputs& x) { return 16.0 * x.nq * x.d; }};
}
OpCase op_gelu_backward() {
    return {[](const kernels::KernelTable& t, Inputs& x) {
                std::copy(x.Q.begin(), x.Q.begin() + static_cast<std::ptrdiff_t>(x.nq * x.d), x.C.begin());
                t.gelu_backward(x.nq, x.d, x.Q.data(), x.d, x.C.data(), x.d);
            },
            [](const Inputs& x) { return 20.0 * x.nq * x.d; }};
}

// Backward passes. x.A holds a matrix of nq x nk values used as weights / upstream gradients.
OpCase op_gemm_tn() {  // dK = dSᵀ Q: [nk, nq] · [nq, d]
    return {[](const kernels::KernelTable& t, Inputs& x) { t.gemm_tn(x.nk, x.d, x.nq, x.A.data(), x.nk, x.Q.data(), x.d, x.dK.data(), x.d); },
            [](const Inputs& x) { return 2.0 * x.nq * x.nk * x.d; }};
}
OpCase op_softmax_backward_rows() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.softmax_backward_rows(x.nq, x.nk, x.A.data(), x.nk, x.A.data(), x.nk, 1.0f, x.S.data(), x.nk); },
            [](const Inputs& x) { return 5.0 * x.nq * x.nk; }};
}
OpCase op_sq_distances() {
    return {[](const kernels::KernelTable& t, Inputs& x) { t.sq_distances(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.S.data(), x.nk); },
            [](const Inputs& x) { return 3.0 * x.nq * x.nk * x.d; }};
}
OpCase op_additive_backward() {  // hidden = d; dAq into C (nq x d), dBk into dK (nk x d), dv
    return {[](const kernels::KernelTable& t, Inputs& x) {
                t.additive_backward(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.v.data(), x.A.data(), x.nk,
                                    x.C.data(), x.d, x.dK.data(), x.d, x.dv.data());
            },
            [](const Inputs& x) { return 8.0 * x.nq * x.nk * x.d; }};
}
OpCase op_manhattan_backward() {  // dQ into C (nq x d), dK into dK (nk x d)
    return {[](const kernels::KernelTable& t, Inputs& x) {
                t.manhattan_backward(x.nq, x.nk, x.d, x.Q.data(), x.d, x.K.data(), x.d, x.A.data(), x.nk, x.C.data(), x.d,
                                     x.dK.data(), x.d);
            },
            [](const Inputs& x) { return 5.0 * x.nq * x.nk * x.d; }};
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
                 {}, std::vector<float>(sz.nq * sz.d), std::vector<float>(sz.nk * sz.d), std::vector<float>(sz.d)};
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
                // Counted work: the score definition's flops (src/scores/), hidden = d as in params.
                const double flops = scores::score_def(info.id).flops({sz.nq, sz.nk, sz.d, sz.d, sz.d});
                emit(std::string("f32_score_") + info.name, sec, flops);
            }
            // The backward pass of one head per score: attention_backward recomputes the scores, the
            // softmax and A·V, then runs dA, dV, the softmax backward and the score's backward (V = K, dO
            // shaped like Q). Counted work: five nq·nk·d products at 2 flops (Q·Kᵀ, A·V, dA, dV and dQ, dK
            // as one), a lower bound: additive/general's projections and the exps are not counted.
            for (const auto& info : score_infos()) {
                AttentionOptions ao;
                ao.score = info.id;
                ao.params = params;
                ao.variant = variant;
                AttentionGrads grads;
                const ConstMatrix Qv(x.Q.data(), sz.nq, sz.d), Kv(x.K.data(), sz.nk, sz.d);
                bool ok = true;
                const double sec = median_seconds([&] {
                    ok = attention_backward(Qv, Kv, Kv, ao, Qv, grads).ok() && ok;
                    g_sink = grads.dQ.values[0];
                }, reps);
                if (!ok) {
                    std::fprintf(stderr, "bench: f32_attention_backward_%s failed\n", info.name);
                    return 1;
                }
                emit(std::string("f32_attention_backward_") + info.name, sec, 10.0 * sz.nq * sz.nk * sz.d);
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

    // ---- attention (issue 12) -----------------------------------------------------------------
    auto emit_case = [&](const char* name, const char* variant, const char* isa, std::size_t nq, std::size_t nk,
                         std::size_t d, double sec, double flops, const char* extra) {
        std::printf("%s  {\"case\": \"%s\", \"variant\": \"%s\", \"isa\": \"%s\", \"nq\": %zu, \"nk\": %zu, \"d\": %zu, "
                    "\"median_us\": %.3f, \"gflops\": %.3f%s}",
                    first ? "" : ",\n", name, variant, isa, nq, nk, d, sec * 1e6, flops / sec * 1e-9, extra);
        first = false;
    };
    const char* isa = kernels_for(Variant::simd).isa;
    {
        const std::size_t n = 512, d = 64;
        const auto Q = random_matrix(n * d, rng), K = random_matrix(n * d, rng), V = random_matrix(n * d, rng);
        std::vector<float> O(n * d);
        AttentionOptions o;
        warm_up([&] {
            must(attention_output(ConstMatrix(Q.data(), n, d), ConstMatrix(K.data(), n, d), ConstMatrix(V.data(), n, d), o,
                             Matrix(O.data(), n, d)), "attention_output");
        }, quick ? 0.2 : 1.5);
    }
    // The peak and the score GEMM at n = 512, d = 64, timed in alternation (same machine state).
    const std::size_t peak_iters = 1 << 14;
    const double peak_flops = peak_muladd(1) * peak_iters;
    double peak = 0.0;
    {
        const std::size_t n = 512, d = 64;
        const auto Q = random_matrix(n * d, rng), K = random_matrix(n * d, rng);
        std::vector<float> S(n * n);
        const double flops = 2.0 * n * n * d;
        for (const auto* table : kernels::all_variants()) {
            const auto [peak_sec, sec] = interleaved_medians([&] { peak_muladd(peak_iters); }, [&] {
                table->gemm_nt(n, n, d, Q.data(), d, K.data(), d, S.data(), n, 1.0f);
                g_sink = S[1];
            }, std::strcmp(table->name, "scalar") == 0 ? 3 : 4 * reps);
            peak = peak_flops / peak_sec * 1e-9;
            if (std::strcmp(table->name, "scalar") != 0) emit_case("f32_peak_muladd", "simd", isa, 12, 0, 0, peak_sec, peak_flops, "");
            char extra[64];
            std::snprintf(extra, sizeof extra, ", \"of_peak\": %.3f", flops / sec * 1e-9 / peak);
            emit_case("f32_gemm_nt", table->name, table->isa, n, n, d, sec, flops, extra);
        }
    }
    struct AttnSize { std::size_t n, d; };
    const std::vector<AttnSize> attn_sizes = quick ? std::vector<AttnSize>{{512, 64}}
                                                   : std::vector<AttnSize>{{512, 64}, {512, 128}, {2048, 64}, {2048, 128}};
    for (const AttnSize& sz : attn_sizes) {
        const std::size_t n = sz.n, d = sz.d;
        const auto Q = random_matrix(n * d, rng), K = random_matrix(n * d, rng), V = random_matrix(n * d, rng);
        std::vector<float> O(n * d), S(n * n), A(n * n);
        const double flops = 4.0 * n * n * d;  // Q Kᵀ and A V, 2 flops per multiply-add
        for (const auto* table : kernels::all_variants()) {
            if (std::strcmp(table->name, "scalar") == 0 && n > 512) continue;  // minutes, and says nothing new
            Variant variant;
            parse_variant(table->name, variant);
            AttentionOptions o;
            o.variant = variant;
            const ConstMatrix q(Q.data(), n, d), k(K.data(), n, d), v(V.data(), n, d);
            const int r = n > 512 ? 5 : reps;
            double sec = median_seconds([&] { must(attention_output(q, k, v, o, Matrix(O.data(), n, d)), "attention_output"); g_sink = O[0]; }, r);
            emit_case("attention_output", table->name, table->isa, n, n, d, sec, flops, "");
            sec = median_seconds([&] {
                must(attention(q, k, v, o, Matrix(S.data(), n, n), Matrix(A.data(), n, n), Matrix(O.data(), n, d)), "attention");
                g_sink = O[0];
            }, r);
            emit_case("attention", table->name, table->isa, n, n, d, sec, flops, "");
        }
    }
    {
        // Every score through attention_output at n = 512, d = 64 (goal: within 1.3x of scaled-dot).
        const std::size_t n = quick ? 64 : 512, d = 64;
        const auto Q = random_matrix(n * d, rng), K = random_matrix(n * d, rng), V = random_matrix(n * d, rng);
        const auto W = random_matrix(d * d, rng), Wa = random_matrix(n * d, rng), W1 = random_matrix(d * d, rng),
                   W2 = random_matrix(d * d, rng), v = random_matrix(d, rng);
        std::vector<float> O(n * d);
        AttentionOptions o;
        o.params.W = W.data();
        o.params.W1 = W1.data();
        o.params.W2 = W2.data();
        o.params.v = v.data();
        o.params.hidden = d;
        o.params.Wa = Wa.data();
        o.params.max_keys = n;
        // Timed in rounds, every score once per round (a batch of >= 5 ms each), so that a change in
        // the machine's load hits all scores alike and the ratios to scaled-dot mean something.
        const auto& infos = score_infos();
        auto run = [&](std::size_t s) {
            o.score = infos[s].id;
            must(attention_output(ConstMatrix(Q.data(), n, d), ConstMatrix(K.data(), n, d), ConstMatrix(V.data(), n, d), o,
                                  Matrix(O.data(), n, d)), "attention_output");
            g_sink = O[0];
        };
        std::vector<int> batch(infos.size(), 1);
        for (std::size_t s = 0; s < infos.size(); ++s)
            for (;;) {
                const double t0 = Clock::now();
                for (int i = 0; i < batch[s]; ++i) run(s);
                if (elapsed(t0) > 0.005) break;
                batch[s] *= 2;
            }
        std::vector<std::vector<double>> times(infos.size());
        for (int r = 0; r < reps; ++r)
            for (std::size_t s = 0; s < infos.size(); ++s) {
                const double t0 = Clock::now();
                for (int i = 0; i < batch[s]; ++i) run(s);
                times[s].push_back(elapsed(t0) / batch[s]);
            }
        for (std::size_t s = 0; s < infos.size(); ++s) {
            std::sort(times[s].begin(), times[s].end());
            const double sec = times[s][times[s].size() / 2];
            // A·V at 2 flops per multiply-add, and the score definition's flops (hidden = d).
            const double flops = 2.0 * n * n * d + scores::score_def(infos[s].id).flops({n, n, d, d, d});
            emit_case((std::string("attention_output_") + infos[s].name).c_str(), "simd", isa, n, n, d, sec, flops, "");
        }
    }
    if (!quick) {
        // Long sequences, output only (attention() cannot hold 16,384² floats twice in wasm).
        for (std::size_t n : {std::size_t{4096}, std::size_t{16384}}) {
            const std::size_t d = 64;
            const auto Q = random_matrix(n * d, rng), K = random_matrix(n * d, rng), V = random_matrix(n * d, rng);
            std::vector<float> O(n * d);
            AttentionOptions o;
            const double sec = median_seconds([&] {
                must(attention_output(ConstMatrix(Q.data(), n, d), ConstMatrix(K.data(), n, d), ConstMatrix(V.data(), n, d), o,
                                 Matrix(O.data(), n, d)), "attention_output");
                g_sink = O[0];
            }, n > 4096 ? 1 : 3);
            emit_case("attention_output", "simd", isa, n, n, d, sec, 4.0 * n * n * d, "");
        }
    }
    std::printf("\n]\n");
    return 0;
}
