// libFuzzer target: the trained model's weights-file reader (Model::from_bytes) and a forward pass of
// whatever it accepts. Bit 0 of the first byte says whether the CRC-32 is recomputed after the
// mutation (so the mutations reach the checks behind it: the directory, the shapes, the
// configuration, the vocabulary) or left as it is; the rest is the file, copied to an exactly sized
// buffer so AddressSanitizer sees a read one byte past its end. The seed (tests/fuzz/corpus/model) is
// a tiny valid model of USE-Lite's shape. A model that loads must run or refuse the call: the result
// has the declared shape, finite values, and attention rows that sum to 1.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "attnscope/inflate.hpp"
#include "attnscope/model.hpp"
#include "fuzz_input.hpp"   // FUZZ_ASSERT

using namespace attnscope;

#define ATTNSCOPE_COUNT_ROW(...) +1

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
    // encode's options from the flag byte's other bits: bit 1 re-scores every head with the scoring
    // function bits 2-5 name (every registry entry, the ones with seeded matrices included), bit 6
    // knocks out every other head, bit 7 picks the scalar variant.
    const std::uint8_t flags = data[0];
    ModelSurgery surgery;
    constexpr std::size_t kScores = 0 ATTNSCOPE_SCORES(ATTNSCOPE_COUNT_ROW);
    if (flags & 2) surgery.scores.assign(m.layers() * m.heads(), static_cast<Score>((flags >> 2) % kScores));
    if (flags & 64)
        for (std::size_t h = 0; h < m.layers() * m.heads(); ++h) surgery.ablate.push_back(h % 2);
    if (flags & 128) surgery.variant = Variant::scalar;
    ModelResult r;
    const Status e = m.encode(ids.data(), ids.size(), surgery, r);
    if (!e) return 0;  // a budget or limit refusal is an answer too
    const std::size_t n = r.n;
    FUZZ_ASSERT(n == std::min<std::size_t>(ids.size(), m.max_tokens()));
    FUZZ_ASSERT(r.attentions.size() == m.layers() * m.heads() * n * n);
    FUZZ_ASSERT(r.embedding.size() == m.output_dim());
    // Every value the model hands back is finite and every attention row sums to 1 (a file with a
    // non-finite weight is refused at load; finite weights that overflow give an error instead).
    for (std::size_t row = 0; row < m.layers() * m.heads() * n; ++row) {
        double s = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            FUZZ_ASSERT(std::isfinite(r.attentions[row * n + j]));
            s += r.attentions[row * n + j];
        }
        FUZZ_ASSERT(std::fabs(s - 1.0) < 1e-3);
    }
    for (float v : r.embedding) FUZZ_ASSERT(std::isfinite(v));
    return 0;
}
