// libFuzzer target: the readers of imported attention (.npy, .npz stored or deflated, .safetensors)
// and the validation after them, on arbitrary bytes. The first byte picks the format (0 npy, 1 npz,
// 2 safetensors) and bit 2 asks for the softmax option; the rest is the file, copied to an exactly
// sized buffer so AddressSanitizer sees a read one byte past its end. The seeds (make_seeds.py) are
// small valid files whose declared sizes (shapes, '<U' widths, zip sizes and offsets, header lengths)
// the mutations then bend. A file that loads must keep the readers' promises: the values fill the
// declared shape, every limit holds, and every value is finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnscope/imported.hpp"
#include "fuzz_input.hpp"   // FUZZ_ASSERT

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const unsigned format = data[0] % 3;
    const bool softmax = (data[0] & 4) != 0;
    const std::vector<std::uint8_t> bytes(data + 1, data + size);
    FloatArray a;
    std::vector<std::string> tokens, key_tokens;
    Status st = format == 0 ? parse_npy(bytes.data(), bytes.size(), a)
                : format == 1 ? parse_npz(bytes.data(), bytes.size(), a, tokens, key_tokens)
                              : parse_safetensors(bytes.data(), bytes.size(), a, tokens, key_tokens);
    if (!st) {
        FUZZ_ASSERT(!st.message().empty());
        return 0;
    }
    std::size_t count = 1;
    for (std::size_t d : a.shape) count *= d;   // the reader checked the product against the limit
    FUZZ_ASSERT(count <= kMaxAttentionValues && a.values.size() == count);
    FUZZ_ASSERT(tokens.size() <= kMaxTokens && key_tokens.size() <= kMaxTokens);
    ImportOptions o;
    o.apply_softmax = softmax;
    ImportedAttention out;
    st = validate_attention(std::move(a), tokens, key_tokens, o, out);
    if (!st) return 0;
    FUZZ_ASSERT(out.values.size() == out.layers * out.heads * out.nq * out.nk);
    FUZZ_ASSERT(out.tokens.size() == out.nq && out.key_tokens.size() == out.nk);
    for (float v : out.values) FUZZ_ASSERT(std::isfinite(v));
    return 0;
}
