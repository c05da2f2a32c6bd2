// Seeded matrices: Xavier/Glorot uniform initialisation from the project's PRNG, identical bytes
// natively and in wasm for the same (seed, stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnscope {

// rows x cols values drawn from U(-a, a), a = sqrt(6 / (fan_in + fan_out)) with fan_in = rows and
// fan_out = cols (a matrix applied as x W, x of width rows), from Pcg32(seed, stream).
std::vector<float> xavier_uniform(std::size_t rows, std::size_t cols, std::uint32_t seed, std::uint64_t stream);

// Stream numbers: one per kind of matrix and head, so changing the head count does not reshuffle
// the matrices of other kinds.
enum class MatrixKind : std::uint64_t { Wq = 1, Wk, Wv, Wo, W_general, W1_additive, W2_additive, v_additive, Wa_location, W_extra };
inline std::uint64_t matrix_stream(MatrixKind kind, std::size_t head) {
    return (static_cast<std::uint64_t>(kind) << 32) | static_cast<std::uint64_t>(head);
}

}  // namespace attnscope
