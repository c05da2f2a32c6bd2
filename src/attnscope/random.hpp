// The project's PRNG: PCG32 (O'Neill 2014, "PCG XSH RR 64/32"), seeded from a 32-bit seed. Only
// integer arithmetic and exactly rounded float operations are used, so the same seed gives the same
// bytes natively and in wasm. Used for seeded projections and out-of-vocabulary vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace attnscope {

class Pcg32 {
public:
    // `stream` selects one of 2^63 independent sequences for the same seed (e.g. one per matrix).
    explicit Pcg32(std::uint64_t seed, std::uint64_t stream = 0x5851f42d4c957f2dULL) {
        inc_ = (stream << 1u) | 1u;
        state_ = 0;
        next();
        state_ += seed;
        next();
    }
    std::uint32_t next() {
        const std::uint64_t old = state_;
        state_ = old * 6364136223846793005ULL + inc_;
        const auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
        const auto rot = static_cast<std::uint32_t>(old >> 59u);
        return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
    }
    // Uniform in [0, 1), 24 random bits: exact in float.
    float uniform() { return static_cast<float>(next() >> 8) * (1.0f / 16777216.0f); }
    // Uniform in [-a, a).
    float symmetric(float a) { return (2.0f * uniform() - 1.0f) * a; }

private:
    std::uint64_t state_ = 0, inc_ = 0;
};

// 64-bit FNV-1a of a byte string: a stable hash for seeding per-word streams.
inline std::uint64_t fnv1a64(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace attnscope
