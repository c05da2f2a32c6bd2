// Attention tensors exported from a real model: the file formats (.npy, .npz stored or deflated,
// .safetensors), the shape rules and the validation shared by every input route (the JS layer parses
// JSON itself and hands the flat values to validate_attention()).
//
// Shapes: [layers, heads, nq, nk] | [heads, n, n] (one layer) | [n, n] (one layer, one head).
// Values: float32 or float16 (bfloat16 too in .safetensors), converted to float32, C order.
// Limit: at most kMaxAttentionValues numbers (2^26 = 67,108,864: 12 layers x 12 heads x 512 x 512 is
// 37,748,736, so that fits; 256 MiB as float32), at most kMaxTokens positions per axis, and at most
// kMaxLayersOrHeads layers and heads.
//
// .safetensors convention: the tensor is named "attentions"; the tokens are in the header's
// "__metadata__" (whose values are strings, by the format) as "tokens": a JSON array of strings
// encoded as a string, e.g. {"tokens": "[\"[CLS]\", \"the\", ...]"}, and optionally "key_tokens".
//
// The core never throws; every failure is a Status naming the argument and the fix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/tensor.hpp"

namespace attnscope {

constexpr std::size_t kMaxAttentionValues = std::size_t{1} << 26;
constexpr std::size_t kMaxTokens = 4096;
constexpr std::size_t kMaxLayersOrHeads = 1024;

// A decoded n-dimensional float array (C order).
struct FloatArray {
    std::vector<std::size_t> shape;
    std::vector<float> values;
};

// .npy: versions 1, 2 and 3 of the header; dtype float32 or float16 (little- or big-endian); C order.
Status parse_npy(const std::uint8_t* bytes, std::size_t size, FloatArray& out);

// .npz as written by numpy.savez (members stored) or numpy.savez_compressed (members deflated, decoded
// by attnscope/inflate.hpp and checked against their CRC-32): the member "attentions.npy" (or, when
// there is only one member, that one) and an optional "tokens.npy" (a numpy array of unicode strings,
// dtype '<U..', from np.array(tokens)) and "key_tokens.npy". Other zip methods are refused.
Status parse_npz(const std::uint8_t* bytes, std::size_t size, FloatArray& out, std::vector<std::string>& tokens,
                 std::vector<std::string>& key_tokens);

// .safetensors: the "attentions" tensor (F32, F16 or BF16) and the metadata tokens (see above).
Status parse_safetensors(const std::uint8_t* bytes, std::size_t size, FloatArray& out,
                         std::vector<std::string>& tokens, std::vector<std::string>& key_tokens);

// Parses a JSON array of strings (used for tokens handed over from JS and stored in metadata).
Status parse_string_array(const std::string& json, std::vector<std::string>& out);

struct ImportedAttention {
    std::size_t layers = 0, heads = 0, nq = 0, nk = 0;
    std::vector<float> values;  // [layers, heads, nq, nk], row-major
    std::vector<std::string> tokens;      // nq
    std::vector<std::string> key_tokens;  // nk
    std::vector<std::string> warnings;    // e.g. rows that do not sum to 1
};

struct ImportOptions {
    // Replace every row by its softmax (for files holding pre-softmax scores).
    bool apply_softmax = false;
    // A row whose sum differs from 1 by more than this is reported in a warning.
    double row_sum_tolerance = 1e-3;
};

// The shape rules, the token counts and the values: refuses wrong ranks, sizes over the limits, token
// counts that do not match, NaN and ±Inf; warns (does not refuse) when rows do not sum to 1, naming
// the worst row. tokens may be empty (then positions "0", "1", ... are used, with a warning);
// key_tokens empty means self-attention (nk must equal nq). On success `out` holds everything.
Status validate_attention(FloatArray array, std::vector<std::string> tokens, std::vector<std::string> key_tokens,
                          const ImportOptions& options, ImportedAttention& out);

}  // namespace attnscope
