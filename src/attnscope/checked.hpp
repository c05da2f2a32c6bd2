// Checked 64-bit size arithmetic for every reader of a file or option that declares a size.
//
// In 32-bit wasm std::size_t is 32 bits wide, so a product such as tokens x width x 4 taken in
// size_t wraps silently (4096 x 262145 x 4 is 16,384 there) and a size check that follows passes on a
// number that is not the file's. Every size a reader derives from declared fields is therefore
// computed here, in std::uint64_t, with each step checked, and only narrowed to std::size_t (by
// to_size) after it is known to be in range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace attnscope {

// a * b, false when it does not fit in 64 bits.
inline bool checked_mul(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    return !__builtin_mul_overflow(a, b, &out);
}

// a + b, false when it does not fit in 64 bits.
inline bool checked_add(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    return !__builtin_add_overflow(a, b, &out);
}

// v as a std::size_t, false when it does not fit (on a 32-bit target: v >= 2^32).
inline bool to_size(std::uint64_t v, std::size_t& out) {
    if (v > std::numeric_limits<std::size_t>::max()) return false;
    out = static_cast<std::size_t>(v);
    return true;
}

}  // namespace attnscope
