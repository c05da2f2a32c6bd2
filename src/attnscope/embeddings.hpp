// Word vectors: a compact binary vocabulary (GloVe 6B 100d, int8 with a per-vector scale), its
// validating loader, look-up, and the deterministic vector given to out-of-vocabulary words.
// The file format is documented in docs/vocab-format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnscope/tensor.hpp"

namespace attnscope {

class Vocabulary {
public:
    // Parses and validates a vocabulary file held in memory (the bytes are copied). Never reads out of
    // bounds: a truncated, oversized or corrupt file gives an error naming what is wrong.
    static Status from_bytes(const std::uint8_t* bytes, std::size_t size, Vocabulary& out);
    static Status from_file(const std::string& path, Vocabulary& out);

    std::size_t size() const;       // number of words
    std::size_t dim() const;        // vector dimension (100)
    bool empty() const { return size() == 0; }
    const std::string& word(std::size_t index) const;  // "" when index >= size()

    // Index of `word` (already normalised, e.g. lower-cased), or -1.
    std::int64_t find(std::string_view word) const;
    // Like find, but when the word itself is missing it tries, in order, the documented stand-ins
    // for GloVe 6B forms this vocabulary lacks (docs/vocab-format.md, "Stand-ins"): clitics
    // (n't → not, 'll → will, 're → are, 'm → am, 've → have, 'd → would, 's → is), the one-letter
    // words a → an and i → me, the digits 0–10 → zero…ten, "..." → "…", a trailing period dropped
    // ("mr." → "mr"), Latin-1 accents folded ("café" → "cafe"). -1 when none is found.
    std::int64_t resolve(std::string_view word) const;
    // The dequantised vector of entry `index` into out[0..dim) (zeros when index >= size()).
    void vector(std::size_t index, float* out) const;
    // The vector for any word: the vocabulary vector of resolve(word), or the out-of-vocabulary
    // vector (see oov_vector). Returns true when resolve found an entry.
    bool embed(std::string_view word, float* out) const;
    // The deterministic vector for a word not in the vocabulary (rule documented in docs/vocab-format.md).
    void oov_vector(std::string_view word, float* out) const;
    // Median L2 norm of the vocabulary's dequantised vectors (stored in the file's header).
    float median_norm() const;

    // The k entries with the highest cosine similarity to v (dim floats), best first; equal cosines in
    // index (frequency) order. Empty when v is zero or not finite. k is capped at size().
    std::vector<std::pair<std::size_t, float>> nearest(const float* v, std::size_t k) const;

private:
    struct Impl;
    std::shared_ptr<const Impl> impl_;
};

}  // namespace attnscope
