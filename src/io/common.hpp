// Helpers the attention-file readers share (src/io/): little-endian reads, float16 and bfloat16,
// UTF-8, and the checked size arithmetic of declared shapes. Internal to the core (the tokenizer writes
// its UTF-8 with append_utf8 too).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/checked.hpp"
#include "attnscope/imported.hpp"
#include "attnscope/limits.hpp"

namespace attnscope::io {

inline std::uint32_t le16(const std::uint8_t* p) { return static_cast<std::uint32_t>(p[0] | (p[1] << 8)); }
inline std::uint32_t le32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline std::uint64_t le64(const std::uint8_t* p) { return le32(p) | (static_cast<std::uint64_t>(le32(p + 4)) << 32); }

inline float half_to_float(std::uint32_t h) {
    const std::uint32_t sign = (h >> 15) & 1u, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float v;
    if (exponent == 0) v = std::ldexp(static_cast<float>(mantissa), -24);  // zero and subnormals
    else if (exponent == 31) v = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    return sign ? -v : v;
}
// Little-endian float32 files can be copied as they are on a little-endian machine (wasm always is).
inline bool host_is_little_endian() {
    const std::uint32_t one = 1;
    std::uint8_t first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

inline float bits_to_float(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline void append_utf8(std::string& out, std::uint32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xc0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xe0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    }
}

// Product of a declared shape, in checked 64-bit arithmetic (a file's dimensions are 64-bit numbers
// whatever the width of size_t), within the limit of kMaxAttentionValues numbers. Every dimension must
// be within the limit too, even when another one is 0, so that each fits in a size_t afterwards.
inline bool element_count(const std::vector<std::uint64_t>& shape, std::size_t& count) {
    std::uint64_t c = 1;
    for (std::uint64_t d : shape) {
        if (d > kMaxAttentionValues || !checked_mul(c, d, c) || c > kMaxAttentionValues) return false;
    }
    count = static_cast<std::size_t>(c);
    return true;
}

// Memory for `floats` floats is there before it is allocated: a std::vector that cannot allocate
// aborts the wasm instance, whereas this is a RangeError naming the file's part (Budget::check
// reserves the memory once, so the heap has grown to hold it).
inline Status reserve_floats(std::uint64_t floats, const std::string& what) {
    Budget b;
    b.floats(floats);
    return b.check(what, "load fewer layers, heads or tokens, or dispose scopes and results you no longer need");
}

// A declared shape as size_t dimensions; call only after element_count() accepted it.
inline std::vector<std::size_t> narrow_shape(const std::vector<std::uint64_t>& shape) {
    return std::vector<std::size_t>(shape.begin(), shape.end());
}

template <class Int>
inline std::string shape_text(const std::vector<Int>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// At most `max` bytes of a text from a file for a message (cut at a UTF-8 character boundary): a
// 1 MB token must not become a 1 MB warning.
inline std::string clip_text(const std::string& t, std::size_t max = 40) {
    if (t.size() <= max) return t;
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xc0) == 0x80) --cut;
    return t.substr(0, cut) + "… (" + std::to_string(t.size()) + " bytes)";
}

}  // namespace attnscope::io
