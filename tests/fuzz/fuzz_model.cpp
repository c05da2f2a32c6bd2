// libFuzzer target: the trained model's weights-file reader (Model::from_bytes) and a forward pass of
// whatever it accepts. Bit 0 of the first byte says whether the CRC-32 is recomputed after the
// mutation (so the mutations reach the checks behind it: the directory, the shapes, the
// configuration, the vocabulary) or left as it is; the rest is the file, copied to an exactly sized
// buffer so AddressSanitizer sees a read one byte past its end. The seed (tests/fuzz/corpus/model) is
// a tiny valid model of USE-Lite's shape. A model that loads must run: the result has the declared
// shape and its attention rows sum to 1 (or are all 0, fully -inf scores) wherever they are finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "attnscope/inflate.hpp"
#include "attnscope/model.hpp"
#include "fuzz_input.hpp"   // FUZZ_ASSERT

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool fix_crc = (data[0] & 1) != 0;
    std::vector<std::uint8_t> bytes(data + 1, data + size);
    if (fix_crc && bytes.size() >= 32) {
        const std::uint32_t crc = crc32(bytes.data() + 32, bytes.size() - 32);
        for (int i = 0; i < 4; ++i) bytes[24 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
    Model m;
    const Status st = Model::from_bytes(bytes.data(), bytes.size(), m);
    if (!st) {
        FUZZ_ASSERT(!st.message().empty() && m.empty());
        return 0;
    }
    // Keep the work small: a loaded fuzzed model may declare large widths.
    if (m.max_tokens() > 64) return 0;
    std::vector<std::int32_t> ids;
    for (std::size_t i = 0; i < 5; ++i) ids.push_back(static_cast<std::int32_t>(i * 7 % m.vocabulary_rows()));
    ModelResult r;
    const Status e = m.encode(ids.data(), ids.size(), {}, r);
    if (!e) return 0;  // a budget or limit refusal is an answer too
    const std::size_t n = r.n;
    FUZZ_ASSERT(n == std::min<std::size_t>(ids.size(), m.max_tokens()));
    FUZZ_ASSERT(r.attentions.size() == m.layers() * m.heads() * n * n);
    FUZZ_ASSERT(r.embedding.size() == m.output_dim());
    for (std::size_t row = 0; row < m.layers() * m.heads() * n; ++row) {
        double s = 0.0;
        for (std::size_t j = 0; j < n; ++j) s += r.attentions[row * n + j];
        // (A row whose scores are all -inf, e.g. from infinite weights, is all zeros: softmax_rows' convention.)
        if (std::isfinite(s)) FUZZ_ASSERT(std::fabs(s - 1.0) < 1e-3 || s == 0.0);
    }
    return 0;
}
