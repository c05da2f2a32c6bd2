// The SIMD kernels' own exponential (src/kernels/simd_tiles.hpp), checked against double std::exp
// over the whole range the softmax hands it, [-88, 0] and -inf, one float in every 61 from 0 down to
// -88 (about 18 million arguments, every binade), and at the edges of underflow and saturation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
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

// idw's logarithm: the fast form for four normal lanes gives the full form's bits (the same float
// operations without the selects), and the dispatch sends any special lane to the full form.
TEST_CASE("log_nonnegative: the all-normal fast form equals the full form bit for bit", "[kernels][log]") {
    using attnscope::kernels::log_nonnegative;
    using attnscope::kernels::log_nonnegative_full;
    using attnscope::kernels::log_normal;
    std::size_t count = 0, differ = 0;
    alignas(16) float in[W], fast[W], full[W];
    // One positive normal float in every 997, from FLT_MIN to FLT_MAX, four per vector.
    std::size_t l = 0;
    for (std::uint64_t b = 0x00800000u; b < 0x7f800000u; b += 997) {
        in[l++] = bits_to_float(static_cast<std::uint32_t>(b));
        if (l < W) continue;
        l = 0;
        log_normal(batch::load_aligned(in)).store_aligned(fast);
        log_nonnegative_full(batch::load_aligned(in)).store_aligned(full);
        count += W;
        differ += std::memcmp(fast, full, sizeof fast) != 0;
    }
    CHECK(count > 2000000);
    CHECK(differ == 0);
    // Special lanes: 0, a subnormal, +inf, NaN, with normal neighbours.
    const float inf = std::numeric_limits<float>::infinity();
    alignas(16) float sp[W] = {0.0f, 1e-40f, inf, 2.0f}, out[W];
    log_nonnegative(batch::load_aligned(sp)).store_aligned(out);
    CHECK(out[0] == -inf);
    CHECK(out[1] == Approx(std::log(1e-40)).epsilon(1e-6));
    CHECK(out[2] == inf);
    CHECK(out[3] == Approx(std::log(2.0)).epsilon(1e-7));
    alignas(16) float nan_in[W] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f, 4.0f};
    log_nonnegative(batch::load_aligned(nan_in)).store_aligned(out);
    CHECK(out[0] == 0.0f);
    CHECK(std::isnan(out[1]));
    CHECK(out[2] == Approx(std::log(3.0)).epsilon(1e-7));
}
