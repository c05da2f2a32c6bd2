// libFuzzer target: compute_scores and the softmax tail with fuzzed shapes, scoring functions,
// parameters and values, through every kernel variant. Checks, beyond the sanitizers:
//   - a call either succeeds or returns a message; nothing is written outside S (guard floats);
//   - finite input: cosine is within [-1, 1] (+rounding), the Euclidean family is never NaN or
//     -inf (and +inf only for idw with eps = 0 at an exact match), whatever the magnitudes;
//   - the softmax of any finite scores has rows in [0, 1] summing to 1, or all zeros when masked;
//   - the scalar reference and the SIMD variant agree on the distance family to a loose relative bound.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "fuzz_input.hpp"

using namespace attnscope;
using attnscope::fuzz::Input;

namespace {
constexpr float kGuard = 12345.0f;

bool distance_family(Score s) { return s == Score::neg_euclidean || s == Score::neg_sq_euclidean || s == Score::idw; }

std::vector<float> matrix(Input& in, std::size_t n, bool any) {
    // Values: the fuzzer's raw floats, or small integers scaled by one fuzzed power of two, which
    // reaches the cancelling and the huge/tiny regimes far more often than random bit patterns.
    std::vector<float> m(n);
    const bool scaled = in.flag();
    const int e = static_cast<int>(in.in(0, 255)) - 150;
    const float offset = in.flag() ? std::ldexp(1.0f, static_cast<int>(in.in(0, 40))) : 0.0f;
    for (auto& x : m) x = scaled ? std::ldexp(static_cast<float>(static_cast<std::int8_t>(in.byte())), e) + offset : in.f32(any);
    return m;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input in(data, size);
    const auto& infos = score_infos();
    const Score score = infos[in.in(0, infos.size() - 1)].id;
    const bool any = in.in(0, 7) == 0;  // 1 in 8: NaN and infinities allowed
    const std::size_t nq = in.in(0, 9), nk = in.in(0, 9), d = in.in(0, 19);
    const std::size_t dk = score_has_weights(score) ? in.in(1, 11) : d, hidden = in.in(0, 6);
    ScoreParams p;
    const std::vector<float> Q = matrix(in, nq * d, any), K = matrix(in, nk * dk, any);
    const std::vector<float> W = matrix(in, d * dk, any), W1 = matrix(in, hidden * d, any),
                             W2 = matrix(in, hidden * dk, any), v = matrix(in, hidden, any),
                             Wa = matrix(in, (nk + 1) * d, any);
    if (in.flag()) p.W = W.data();
    if (in.flag()) { p.W1 = W1.data(); p.W2 = W2.data(); p.v = v.data(); p.hidden = hidden; }
    if (in.flag()) { p.Wa = Wa.data(); p.max_keys = in.in(0, nk + 1); }
    p.p = in.flag() ? in.f32(true) : static_cast<float>(in.in(1, 255)) / 4.0f;
    p.eps = in.flag() ? in.f32(true) : (in.flag() ? 0.0f : 1e-3f);

    std::vector<std::vector<float>> results;
    for (Variant variant : {Variant::scalar, Variant::simd}) {
        std::vector<float> S(nq * nk + 4, kGuard);
        const Status st = compute_scores(score, {Q.data(), nq, d}, {K.data(), nk, dk}, p, {S.data(), nq, nk}, variant);
        for (std::size_t g = nq * nk; g < S.size(); ++g) FUZZ_ASSERT(S[g] == kGuard);
        if (!st.ok()) {
            FUZZ_ASSERT(!st.message().empty());
            return 0;
        }
        if (!any && (score == Score::cosine || distance_family(score))) {
            for (std::size_t i = 0; i < nq * nk; ++i) {
                const float s = S[i];
                FUZZ_ASSERT(!std::isnan(s));
                if (score == Score::cosine) FUZZ_ASSERT(std::fabs(s) <= 1.0f + 1e-4f);
                if (distance_family(score)) FUZZ_ASSERT(s != -INFINITY);
                if (s == INFINITY) FUZZ_ASSERT(score == Score::idw && p.eps == 0.0f);
            }
        }
        // The softmax tail over these scores, masked or not, at a fuzzed temperature.
        SoftmaxOptions so;
        so.variant = variant;
        so.temperature = in.flag() ? in.f32(true) : static_cast<float>(in.in(1, 64)) / 8.0f;
        so.mask = in.flag() ? Mask::causal : Mask::none;
        std::vector<std::uint8_t> pad(nk);
        for (auto& b : pad) b = in.byte() & 1;
        if (in.flag()) so.key_padding = pad.data();
        std::vector<float> A(nq * nk + 4, kGuard);
        const Status sst = masked_softmax({S.data(), nq, nk}, so, {A.data(), nq, nk});
        for (std::size_t g = nq * nk; g < A.size(); ++g) FUZZ_ASSERT(A[g] == kGuard);
        if (sst.ok()) {
            for (std::size_t i = 0; i < nq; ++i) {
                bool finite_row = true;
                for (std::size_t j = 0; j < nk; ++j) finite_row = finite_row && std::isfinite(S[i * nk + j]);
                if (!finite_row || nk == 0) continue;
                double sum = 0;
                for (std::size_t j = 0; j < nk; ++j) {
                    const float a = A[i * nk + j];
                    FUZZ_ASSERT(a >= 0.0f && a <= 1.0f);
                    sum += a;
                }
                FUZZ_ASSERT(sum == 0.0 || std::fabs(sum - 1.0) <= 1e-4);
            }
        }
        results.push_back(std::move(S));
    }
    // Scalar and SIMD agree on the distance family (finite input: both exact-enough).
    if (!any && distance_family(score) && results.size() == 2) {
        for (std::size_t i = 0; i < nq * nk; ++i) {
            const double a = results[0][i], b = results[1][i];
            if (a == b) continue;
            FUZZ_ASSERT(std::fabs(a - b) <= 1e-3 * std::max(1.0, std::max(std::fabs(a), std::fabs(b))));
        }
    }
    return 0;
}
