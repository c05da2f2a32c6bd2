// The SIMD kernels' own exponential and logarithm (src/kernels/simd_tiles.hpp). The exponential is
// checked against double std::exp over the whole range the softmax hands it, [-88, 0] and -inf, one
// float in every 61 from 0 down to -88 (about 18 million arguments, every binade), and at the edges
// of underflow and saturation; the logarithm below.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "test_util.hpp"

#include "kernels/simd_tiles.hpp"

using attnscope::kernels::batch;
using attnscope::kernels::exp_nonpositive;
using attnscope::kernels::W;

namespace {
constexpr float kFltMin = std::numeric_limits<float>::min();
// The bound stated in simd_tiles.hpp: 2.5e-7 relative where the result is a normal float, and an
// absolute error below FLT_MIN where it is not (denormal or flushed to 0).
constexpr double kRelBound = 2.5e-7;

float bits_to_float(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

struct ExpCheck {
    double worst_rel = 0.0, worst_rel_at = 0.0, worst_abs_sub = 0.0;
    std::size_t count = 0, failures = 0;
    void add(const float* xs, std::size_t n) {
        alignas(16) float in[W], out[W];
        for (std::size_t k = 0; k < n; k += W) {
            for (std::size_t l = 0; l < W; ++l) in[l] = xs[k + l < n ? k + l : n - 1];
            exp_nonpositive(batch::load_aligned(in)).store_aligned(out);
            for (std::size_t l = 0; l < W && k + l < n; ++l) check(in[l], out[l]);
        }
    }
    void check(float x, float got) {
        ++count;
        const double ref = std::exp(static_cast<double>(x));
        if (ref >= kFltMin) {
            const double rel = std::fabs(got - ref) / ref;
            if (rel > worst_rel) worst_rel = rel, worst_rel_at = x;
            if (rel > kRelBound) ++failures;
        } else {
            const double ab = std::fabs(got - ref);
            if (ab > worst_abs_sub) worst_abs_sub = ab;
            if (!(ab < kFltMin) || got < 0.0f) ++failures;
        }
    }
};
}  // namespace

TEST_CASE("exp_nonpositive: within 2.5e-7 of std::exp over [-88, 0], 0 below, exact at 0", "[kernels][exp]") {
    ExpCheck c;
    std::vector<float> xs;
    xs.reserve(1 << 20);
    // Negative floats from -0 (0x80000000) to -88 (0xC2B00000), one in 61: every binade is visited.
    const std::uint32_t last = 0xC2B00000u;
    for (std::uint64_t b = 0x80000000u; b <= last; b += 61) {
        xs.push_back(bits_to_float(static_cast<std::uint32_t>(b)));
        if (xs.size() == (1u << 20)) {
            c.add(xs.data(), xs.size());
            xs.clear();
        }
    }
    // The edges: exactly 0, the smallest normal result and the flush to 0, the clamp, the extremes.
    for (float x : {0.0f, -0.0f, -1e-45f, -1e-30f, -1e-7f, -0.34657359f, -0.34657360f, -0.5f, -1.0f, -87.0f,
                    -87.3365f, -87.33654f, -87.33655f, -87.5f, -87.68f, -87.7f, -88.0f})
        xs.push_back(x);
    c.add(xs.data(), xs.size());
    INFO("worst relative error " << c.worst_rel << " at x = " << c.worst_rel_at << "; worst absolute error below FLT_MIN "
                                 << c.worst_abs_sub << "; " << c.count << " arguments");
    CHECK(c.count > 17000000);
    CHECK(c.failures == 0);
    CHECK(c.worst_rel > 0.0);  // the comparison saw rounding at all (a wrong reference would read 0)

    // exp(0) is exactly 1 (the row max's weight: the online softmax's running sum is >= 1), and
    // -inf (a masked key), the clamp and everything below it are exactly 0.
    alignas(16) float in[W] = {0.0f, -0.0f, -std::numeric_limits<float>::infinity(), -88.0f};
    alignas(16) float out[W];
    exp_nonpositive(batch::load_aligned(in)).store_aligned(out);
    CHECK(out[0] == 1.0f);
    CHECK(out[1] == 1.0f);
    CHECK(out[2] == 0.0f);
    CHECK(out[3] == 0.0f);
    alignas(16) float low[W] = {-1e30f, -std::numeric_limits<float>::max(), -87.7f, -100.0f};
    exp_nonpositive(batch::load_aligned(low)).store_aligned(out);
    for (std::size_t l = 0; l < W; ++l) CHECK(out[l] == 0.0f);
}

// idw's logarithm, −log x (simd_tiles.hpp): against double std::log at one positive normal float in
// every 97 (22 million arguments, every binade), within the stated 2e-7 relative error; exact at
// x = 1. neg_log_nonnegative gives a normal lane neg_log_normal's bits whatever its neighbours are,
// keeps that accuracy for subnormal x, and the special values: −log 0 = +inf, −log(+inf) = −inf,
// NaN for NaN and x < 0.
namespace {
constexpr double kLogRelBound = 2e-7;

struct LogCheck {
    double worst_rel = 0.0, worst_rel_at = 0.0;
    std::size_t count = 0, failures = 0;
    void check(float x, float got) {
        ++count;
        const double ref = -std::log(static_cast<double>(x));
        const double err = std::fabs(got - ref);
        const double rel = ref != 0.0 ? err / std::fabs(ref) : (err == 0.0 ? 0.0 : 1.0);
        if (rel > worst_rel) worst_rel = rel, worst_rel_at = x;
        if (!(rel <= kLogRelBound)) ++failures;
    }
};
}  // namespace

TEST_CASE("neg_log_normal: within 2e-7 of -std::log over the positive normal floats", "[kernels][log]") {
    using attnscope::kernels::neg_log_normal;
    LogCheck c;
    alignas(16) float in[W], out[W];
    std::size_t l = 0;
    for (std::uint64_t b = 0x00800000u; b < 0x7f800000u; b += 97) {
        in[l++] = bits_to_float(static_cast<std::uint32_t>(b));
        if (l < W) continue;
        l = 0;
        neg_log_normal(batch::load_aligned(in)).store_aligned(out);
        for (std::size_t t = 0; t < W; ++t) c.check(in[t], out[t]);
    }
    // Around 1 (log m's relative accuracy where log x -> 0), the ends of the mantissa's range, the extremes.
    const float edges[] = {1.0f, 0.99999994f, 1.00000012f, 0.70710677f, 0.70710683f, 1.41421354f, 1.41421366f,
                           2.0f, 0.5f, kFltMin, std::numeric_limits<float>::max(), 1e-3f, 1e-3f + 1e-9f};
    for (std::size_t k = 0; k < std::size(edges); k += W) {
        for (std::size_t t = 0; t < W; ++t) in[t] = edges[std::min(k + t, std::size(edges) - 1)];
        neg_log_normal(batch::load_aligned(in)).store_aligned(out);
        for (std::size_t t = 0; t < W; ++t) c.check(in[t], out[t]);
        if (k == 0) CHECK(out[0] == 0.0f);  // log 1 = 0 exactly
    }
    INFO("worst relative error " << c.worst_rel << " at x = " << c.worst_rel_at << "; " << c.count << " arguments");
    CHECK(c.count > 20000000);
    CHECK(c.failures == 0);
    CHECK(c.worst_rel > 1e-8);  // the comparison saw the approximation's error at all
}

TEST_CASE("neg_log_nonnegative: normal lanes as neg_log_normal, subnormals, special values", "[kernels][log]") {
    using attnscope::kernels::neg_log_nonnegative;
    using attnscope::kernels::neg_log_normal;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::size_t count = 0, differ = 0;
    alignas(16) float in[W], fast[W], full[W];
    // One positive normal float in every 997 beside a special lane (0, a subnormal, +inf, NaN in turn).
    const float specials[] = {0.0f, 1e-40f, inf, nan};
    std::size_t k = 0;
    for (std::uint64_t b = 0x00800000u; b + 997 * (W - 2) < 0x7f800000u; b += 997 * (W - 1), ++k) {
        for (std::size_t t = 0; t + 1 < W; ++t) in[t] = bits_to_float(static_cast<std::uint32_t>(b + 997 * t));
        in[W - 1] = specials[k % std::size(specials)];
        neg_log_normal(batch::load_aligned(in)).store_aligned(fast);
        neg_log_nonnegative(batch::load_aligned(in)).store_aligned(full);
        count += W - 1;
        differ += std::memcmp(fast, full, (W - 1) * sizeof(float)) != 0;
    }
    CHECK(count > 2000000);
    CHECK(differ == 0);
    // Subnormal arguments (scaled by 2^23 inside): the same relative bound, one in every 61.
    LogCheck c;
    std::size_t l = 0;
    for (std::uint32_t b = 1; b < 0x00800000u; b += 61) {
        in[l++] = bits_to_float(b);
        if (l < W) continue;
        l = 0;
        neg_log_nonnegative(batch::load_aligned(in)).store_aligned(full);
        for (std::size_t t = 0; t < W; ++t) c.check(in[t], full[t]);
    }
    INFO("subnormals: worst relative error " << c.worst_rel << " at x = " << c.worst_rel_at);
    CHECK(c.count > 100000);
    CHECK(c.failures == 0);
    alignas(16) float sp[W] = {0.0f, 1e-40f, inf, 2.0f}, out[W];
    neg_log_nonnegative(batch::load_aligned(sp)).store_aligned(out);
    CHECK(out[0] == inf);
    CHECK(out[1] == Approx(-std::log(1e-40)).epsilon(2e-7));
    CHECK(out[2] == -inf);
    CHECK(out[3] == Approx(-std::log(2.0)).epsilon(2e-7));
    alignas(16) float odd[W] = {1.0f, nan, -3.0f, -0.0f};
    neg_log_nonnegative(batch::load_aligned(odd)).store_aligned(out);
    CHECK(out[0] == 0.0f);
    CHECK(std::isnan(out[1]));
    CHECK(std::isnan(out[2]));
    CHECK(out[3] == inf);  // -0 is 0
}
