// The tail every score passes through: mask, temperature, stable row softmax; and row statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/tensor.hpp"
#include "attnscope/variant.hpp"

namespace attnscope {

struct SoftmaxOptions {
    float temperature = 1.0f;  // tau > 0: weights = softmax(S / tau)
    Mask mask = Mask::none;
    // Optional, one entry per key (column): nonzero marks a padding key that no query may see.
    const std::uint8_t* key_padding = nullptr;
    Variant variant = Variant::automatic;
    // Row i of S is row query_offset + i of a longer query: the causal mask hides column j > query_offset + i.
    std::size_t query_offset = 0;
};

// A (rows x cols) = softmax over each row of the masked S / tau, computed stably.
// Conventions (see kernels.hpp): masked and -inf scores get weight 0; a row with every key masked is
// all zeros (never NaN); +inf scores share the row's weight equally; a NaN makes its row NaN.
// A may be the same memory as S.
Status masked_softmax(ConstMatrix S, const SoftmaxOptions& options, Matrix A);

// 1 / temperature, or an error naming `temperature` (not > 0, not finite, or too small to divide by).
Status inverse_temperature(float temperature, float& inv_tau);

struct RowStats {
    float entropy = 0.0f;     // -sum a log a, in nats (0 for a one-hot row, log n_k for a uniform one)
    float max_weight = 0.0f;  // the largest weight in the row
    std::uint32_t argmax = 0; // the key that gets it (the first, on ties)
};
// One RowStats per row of A.
std::vector<RowStats> row_stats(ConstMatrix A);
// The same, where A's rows are the softmax of S's rows at 1/τ = inv_tau (masked keys and −inf scores
// with weight 0). Then a_j = exp((s_j − m)/τ)/Z, so against the row's largest weight a_r,
// log a_j = (s_j − s_r)/τ + log a_r, and
//   H = −Σ a_j log a_j = −log a_r · Σ a_j − (1/τ) Σ a_j (s_j − s_r):
// one logarithm per row instead of one per weight (which took a fifth of a 1,000-word attend()).
// The entropies agree with row_stats(A)'s to float rounding, not bit for bit. Rows whose scores do
// not describe their weights (`direct(i)`: saturated scores, recomputed in double) or whose s_r is
// not finite (+inf scores) take row_stats(A)'s sum.
std::vector<RowStats> row_stats(ConstMatrix A, ConstMatrix S, float inv_tau, const std::function<bool(std::size_t)>& direct);

}  // namespace attnscope
