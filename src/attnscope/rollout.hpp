// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers") and per-head
// summaries of a stack of attention matrices [layers, heads, n, n].
//
// Rollout, precisely:
//   1. per layer l, the heads are combined into one n x n matrix A_l: their mean ('mean'), their
//      elementwise maximum ('max'), or one head followed through every layer (an index);
//   2. the residual connection is modelled as Ā_l = residual·I + (1 − residual)·A_l, and every row of
//      Ā_l is divided by its sum (rows of 'max' do not sum to 1; neither do rows of a file that was
//      not quite normalised);
//   3. R = Ā_L ⋯ Ā_2 · Ā_1, the first layer rightmost. R[i][j] is the share of input token j in the
//      representation of token i after the last layer; every row of R sums to 1.
// residual is the weight of the identity, in [0, 1]: 0.5 is the paper's 0.5·A + 0.5·I; 0 is the raw
// attention product; 1 gives the identity.
#pragma once

#include <cstddef>
#include <string>

#include "attnscope/tensor.hpp"

namespace attnscope {

enum class RolloutHead { mean, max, index };

struct RolloutOptions {
    double residual = 0.5;
    RolloutHead head = RolloutHead::mean;
    std::size_t head_index = 0;  // with RolloutHead::index
};

// The call budget of attention_rollout (attnscope/limits.hpp): OK, or an error naming the limit; checked
// by attention_rollout itself and by callers that want to refuse before copying the stack.
Status rollout_budget(std::size_t layers, std::size_t heads, std::size_t n);

// A: [layers, heads, n, n] row-major; out: [n, n].
Status attention_rollout(const float* A, std::size_t layers, std::size_t heads, std::size_t n,
                         const RolloutOptions& options, float* out);

// The checks attention_rollout makes of its input (shape within the limits, residual, head index).
Status check_rollout_input(const float* A, std::size_t layers, std::size_t heads, std::size_t n, const RolloutOptions& options);

// Every weight of a stack that passed check_rollout_input finite and >= 0, or an error naming the first
// that is not (its layer, head, row and column). Run after the budget checks: a refused call reads nothing.
Status check_rollout_weights(const float* A, std::size_t layers, std::size_t heads, std::size_t n);

// What attention_rollout and attention_flow check before they compute, in this order: the input
// (check_rollout_input), the output's address, the call's budget (rollout_budget or flow_budget: a
// refused call reads no weight), then every weight (check_rollout_weights).
Status check_rollout_call(const float* A, std::size_t layers, std::size_t heads, std::size_t n, const RolloutOptions& options,
                          const float* out, Status (*budget)(std::size_t layers, std::size_t heads, std::size_t n));

// Steps 1 and 2 for one layer l of a checked stack: Ā_l into bar [n, n] (float32, as rollout uses it).
// Fails when a row sums to 0 or less after the residual (negative weights).
Status residual_attention(const float* A, std::size_t heads, std::size_t n, const RolloutOptions& options, std::size_t l, float* bar);

// Per (layer, head), each an array [layers * heads]:
//   entropy:  mean over rows of the row's entropy −Σ a log a, in nats (how spread out the head is);
//   max:      the largest weight anywhere in the head;
//   mean_max: mean over rows of the row's largest weight (how sharply the head focuses on average).
struct HeadSummary {
    float entropy = 0, max = 0, mean_max = 0;
};
Status head_summaries(const float* A, std::size_t layers, std::size_t heads, std::size_t nq, std::size_t nk,
                      HeadSummary* out);

}  // namespace attnscope
