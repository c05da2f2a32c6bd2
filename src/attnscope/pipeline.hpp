// One call from text to every matrix the page plots: tokenize → embed (+ positions) → project per
// head → score → mask, temperature, softmax → outputs and statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/embeddings.hpp"
#include "attnscope/tokenizer.hpp"

namespace attnscope {

struct AttendOptions {
    Score score = Score::scaled_dot;
    float temperature = 1.0f;
    std::size_t heads = 1;
    Projection projection = Projection::identity;
    std::uint32_t seed = 1;      // seeds random projections and score weights not given by the caller
    bool positional = false;     // add sinusoidal positions to the embeddings
    Mask mask = Mask::none;
    Variant variant = Variant::automatic;
    std::size_t max_tokens = 512;
    bool experimental_scaled_output = false;

    // Projection::user: W_q, W_k [d x heads*d_head], W_v [d x heads*d_value], optional W_o [heads*d_value x d_out].
    const float* Wq = nullptr;
    const float* Wk = nullptr;
    const float* Wv = nullptr;
    const float* Wo = nullptr;
    std::size_t d_head = 0, d_value = 0, d_out = 0;

    // The score's parameters (idw's p and eps) and weights, the same for every head (sized for the
    // head dimension: general W [dh x dh], additive W1, W2 [hidden x dh] and v [hidden] with
    // hidden 0 = dh, location Wa [max_keys x dh]); null matrices are seeded random per head.
    ScoreParams params;

    // Only heads [head_begin, head_end) (head_end 0 = every head), as MultiHeadOptions.
    std::size_t head_begin = 0, head_end = 0;
    // Where the heads' scores and weights go (unset: fresh tensors), as MultiHeadOptions::place.
    std::function<float*(std::size_t floats)> place;
};

struct AttendResult {
    std::vector<Token> query_tokens, key_tokens;
    std::vector<std::uint8_t> query_oov, key_oov;  // 1 = out of vocabulary
    std::vector<std::int64_t> query_vocab, key_vocab;  // the vocabulary entry used per token (-1 = OOV)
    Tensor query_embeddings, key_embeddings;       // nq x d, nk x d (positions included when on)
    MultiHeadResult attention;
    // The seeded score weights actually used, per head (empty when the caller gave them or the
    // score has none), so a UI can show them.
    std::vector<std::vector<float>> score_weights;
};

// Self-attention when `cross` is false (keys and values from the query text), cross-attention
// (queries from `query`, keys/values from `keys`) when true.
Status attend(const Vocabulary& vocab, std::string_view query, std::string_view keys, bool cross,
              const AttendOptions& options, AttendResult& out);

// The output of attend() with these options from its heads' outputs side by side (concat, nq x the
// sum of the heads' value widths, e.g. joined from calls on ranges of heads): concat · W_o with the
// seeded (projection random) or given (projection user with Wo) output projection, by the same GEMM
// as attend(); a copy of concat when there is no output projection.
Status attend_output_projection(const Vocabulary& vocab, const AttendOptions& options, ConstMatrix concat, Tensor& out);

}  // namespace attnscope
