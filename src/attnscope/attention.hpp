// Attention: scores, the softmax tail, and outputs O = A V; single- and multi-head, self- and
// cross-attention (queries from one sequence, keys and values from another).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope {

struct AttentionOptions {
    Score score = Score::scaled_dot;
    ScoreParams params;
    float temperature = 1.0f;
    Mask mask = Mask::none;
    const std::uint8_t* key_padding = nullptr;  // one entry per key, nonzero = padding
    Variant variant = Variant::automatic;
    // The index of this call's first query row in a longer query sequence (default 0): the causal
    // mask hides key j from query row i when j > query_offset + i, so a call on rows [r0, r1) of a
    // query with query_offset = r0 gives those rows of the whole call (the worker pool splits so).
    std::size_t query_offset = 0;
    // EXPERIMENTAL, for comparison only (off by default): the "more symmetric" design discussed in
    // the seeds, O = (A V W_extra) / sqrt(d_v). Its rows are no longer convex combinations of V.
    bool experimental_scaled_output = false;
    const float* W_extra = nullptr;  // d_v x d_v, required when experimental_scaled_output is set
};

// S (nq x nk) raw scores, A (nq x nk) weights, O (nq x dv) outputs; stats (nq entries) may be null.
// Only what is asked for is computed: a matrix with null data (or null stats) is left out, and the
// work only it needs is skipped. Without A and stats, O comes from the fused attention_output (no
// nq x nk matrix at all unless S is asked for); stats without A use a temporary A.
Status attention(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& options, Matrix S, Matrix A,
                 Matrix O, RowStats* stats = nullptr);

// O (nq x dv) only: the same result as attention()'s O (same options, same conventions), computed by
// the fused kernel — tiles of Q against tiles of K with an online softmax — so no nq x nk matrix is
// ever held. Extra memory is O((nq + nk) (d + dv)): n = 65,536 tokens fit where attention() would
// need two 16 GB matrices. Every score but additive goes through the fused kernel (general as
// (Q W) Kᵀ, location with the rows of Wa as keys); additive runs its own loop over blocks of 64
// query rows (O(64 nk) scratch, O(nq nk h) time).
Status attention_output(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& options, Matrix O);

// The columns head h of `heads` sees when `d` input dimensions are split without a projection:
// [begin, end), as even as possible (the first d % heads heads get one more).
struct ColumnRange {
    std::size_t begin, end;
    std::size_t size() const { return end - begin; }
};
ColumnRange head_columns(std::size_t d, std::size_t heads, std::size_t h);

struct MultiHeadOptions {
    std::size_t heads = 1;
    // Projections, row-major. Null W_q/W_k/W_v = identity: head h sees input columns head_columns(d, heads, h).
    // Otherwise W_q is d_in_q x (heads*d_head), W_k is d_in_kv x (heads*d_head) and W_v is
    // d_in_kv x (heads*d_value); head h uses columns [h*d_head, (h+1)*d_head) (resp. d_value).
    const float* Wq = nullptr;
    const float* Wk = nullptr;
    const float* Wv = nullptr;
    std::size_t d_head = 0;
    std::size_t d_value = 0;
    // Output projection (heads*d_value) x d_out; null = plain concatenation of the heads.
    const float* Wo = nullptr;
    std::size_t d_out = 0;
    AttentionOptions attention;
    // Per-head score parameters (general/additive/location); empty = attention.params for every head.
    std::vector<ScoreParams> head_params;
    // Per-head W_extra for the experimental scaled output; empty = attention.W_extra for every head.
    std::vector<const float*> head_extra;
    // Only heads [head_begin, head_end) (head_end 0 = every head): the result then holds those heads
    // (entry h - head_begin), concat their outputs side by side, and output = concat: the output
    // projection needs every head (attend_output_projection does it). Each head's numbers are those
    // of the whole call: the worker pool splits attend() over heads so.
    std::size_t head_begin = 0, head_end = 0;
    // Where the heads' scores and weights go. Unset: fresh tensors, out.scores and out.weights. Set
    // (a caller that copies them elsewhere anyway: the bindings' attend() result): called once, after
    // the cost check, with the number of floats, 2 x heads x nq x nk (the heads of the result in
    // order, their scores, then their weights); it returns room for them (uninitialised memory is
    // fine: every element is written) or null when there is none (a memory error). out.scores and
    // out.weights then stay empty and out.placed points at the room.
    std::function<float*(std::size_t floats)> place;
};

struct MultiHeadResult {
    std::size_t heads = 0, nq = 0, nk = 0;
    std::vector<Tensor> q, k, v;                 // per head: nq x d_h, nk x d_h, nk x d_v (projected)
    std::vector<Tensor> scores, weights;         // per head: nq x nk (empty when placed)
    float* placed = nullptr;                     // MultiHeadOptions::place's room, when it was set
    std::vector<Tensor> head_outputs;            // per head: nq x d_v
    Tensor concat;                               // nq x (sum of d_v), the heads side by side
    Tensor output;                               // nq x d_out (= concat when there is no W_o)
    std::vector<std::vector<RowStats>> stats;    // per head, per query row
};

// The shapes that decide what multi_head_attention allocates and computes, and the check of that
// cost against the limits of attnscope/limits.hpp (callers that allocate first check it first).
struct MultiHeadShape {
    std::uint64_t nq = 0, nk = 0, d_in = 0, heads = 1;
    bool identity = true;
    std::uint64_t d_head = 0, d_value = 0, hidden = 0, d_out = 0;
    Score score = Score::scaled_dot;
    std::uint64_t extra_floats = 0;  // what the caller allocates besides (e.g. seeded score weights)
};
Status check_multi_head_cost(const MultiHeadShape& shape);

// Xq: nq x d_in_q (the query sequence), Xkv: nk x d_in_kv (the key/value sequence; pass Xq again
// for self-attention).
Status multi_head_attention(ConstMatrix Xq, ConstMatrix Xkv, const MultiHeadOptions& options, MultiHeadResult& out);

}  // namespace attnscope
