// A trained transformer encoder run by attnscope's own kernels: Universal Sentence Encoder Lite
// (2 pre-LayerNorm layers, 4 heads, mean pooling, a tanh layer, L2 normalisation), read from the
// file scripts/build-model.mjs writes (format in docs/model.md, "The weights file"). Every head's
// scores go through compute_scores, so a head can be re-scored by any scoring function of the
// registry, and heads can be knocked out; everything downstream is recomputed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/tensor.hpp"
#include "attnscope/variant.hpp"

namespace attnscope {

class Budget;  // attnscope/limits.hpp

// What to change in the model for one encode; empty lists = the model as trained.
struct ModelSurgery {
    // One scoring function per head, layer-major (index layer * heads + head), or empty for the model's
    // own (scaled-dot) everywhere. Scores that need matrices (general, additive, location) get seeded
    // Xavier matrices (seed 1, one stream per layer and head): the model has no trained ones.
    std::vector<Score> scores;
    // One flag per head, layer-major: nonzero = the head's output is zeroed before the output projection.
    std::vector<std::uint8_t> ablate;
    // One temperature per head, layer-major (its scores are divided by τ before the softmax), or empty
    // for the model's own τ = 1 everywhere. A bounded score (cosine: [-1, 1]) needs a small τ to get sharp.
    std::vector<float> temperatures;
    Variant variant = Variant::automatic;
};

struct ModelResult {
    std::size_t n = 0;              // tokens run through the model (at most max_tokens())
    bool truncated = false;         // the input had more tokens; the model saw the first max_tokens()
    std::vector<float> attentions;  // [layers, heads, n, n], row-major; rows sum to 1
    std::vector<float> embedding;   // [output_dim()], unit length
};

class Model {
public:
    // Parses and checks a weights file: magic, version, sizes (in checked 64-bit arithmetic), CRC-32,
    // the tensor directory (every tensor inside the file, of the shape the configuration implies) and
    // the vocabulary. A damaged file gives an error naming what is wrong; nothing is read outside
    // bytes[0, size). On error `out` is left empty.
    static Status from_bytes(const std::uint8_t* bytes, std::size_t size, Model& out);

    bool empty() const { return layers_.empty(); }
    std::size_t layers() const { return layers_.size(); }
    std::size_t heads() const { return heads_; }
    std::size_t max_tokens() const { return max_tokens_; }
    std::size_t vocabulary_rows() const { return vocab_rows_; }  // ids run from 0 to vocabulary_rows() - 1
    std::size_t output_dim() const { return out_; }
    std::size_t head_dim(std::size_t layer) const { return layers_[layer].d / heads_; }

    // The SentencePiece vocabulary the ids index: piece i's UTF-8 text and its log-probability
    // (score_is_null: the file's score was null; piece_score is then 0).
    std::size_t pieces() const { return piece_scores_.size(); }
    std::string_view piece(std::size_t i) const;
    double piece_score(std::size_t i) const { return piece_scores_[i]; }
    bool piece_score_is_null(std::size_t i) const { return piece_null_[i] != 0; }

    // Runs the model on token ids (each in [0, vocabulary_rows())); more than max_tokens() ids are
    // cut (out.truncated). With an empty surgery the result is the trained model's.
    Status encode(const std::int32_t* ids, std::size_t count, const ModelSurgery& surgery, ModelResult& out) const;

private:
    // What encode() of n tokens with this surgery allocates and computes (checked before it allocates).
    Budget encode_budget(std::uint64_t n, const ModelSurgery& s) const;

    struct Layer {
        std::size_t d_in = 0, d = 0;  // the residual width entering the layer; the attention width
        std::vector<float> ln1_g, ln1_b, qkv_w, qkv_b, out_w, out_b, res_w, res_b, ln2_g, ln2_b;
        std::vector<float> ffn1_w, ffn1_b, ffn2_w, ffn2_b;
        float q_scale = 0.0f;
    };
    std::vector<Layer> layers_;
    std::size_t heads_ = 0, vocab_rows_ = 0, embed_ = 0, out_ = 0, ffn_ = 0, max_tokens_ = 0;
    std::vector<float> embedding_, inv_timescales_, pool_w_, pool_b_;
    float ln_eps_ = 0.0f, l2_eps_ = 0.0f;
    std::vector<std::uint32_t> piece_offsets_;
    std::vector<char> piece_bytes_;
    std::vector<double> piece_scores_;
    std::vector<std::uint8_t> piece_null_;
};

}  // namespace attnscope
