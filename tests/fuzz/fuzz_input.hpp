// A cursor over libFuzzer's bytes: each call takes what it needs from the front and returns a
// neutral value once the bytes run out, so every input, however short, is a valid run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

// A promise a target checks: a broken one aborts, which libFuzzer reports as a crash with its input.
#define FUZZ_ASSERT(cond)          \
    do {                           \
        if (!(cond)) std::abort(); \
    } while (0)

namespace attnscope::fuzz {

class Input {
public:
    Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
    std::uint8_t byte() {
        if (n_ == 0) return 0;
        --n_;
        return *p_++;
    }
    // A number in [lo, hi].
    std::size_t in(std::size_t lo, std::size_t hi) { return lo + byte() % (hi - lo + 1); }
    bool flag() { return byte() & 1; }
    // Any float bit pattern (NaN, inf, subnormals included) when `any`, else a finite float: the
    // fuzzer's bytes, with an all-ones exponent replaced so the value is finite.
    float f32(bool any) {
        std::uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits = (bits << 8) | byte();
        if (!any && ((bits >> 23) & 0xffu) == 0xffu) bits &= ~(1u << 30);
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
    std::size_t left() const { return n_; }
    const std::uint8_t* rest() const { return p_; }

private:
    const std::uint8_t* p_;
    std::size_t n_;
};

}  // namespace attnscope::fuzz
