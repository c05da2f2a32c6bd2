// libFuzzer target: the vocabulary loader on arbitrary bytes (the seeds are small valid files, so
// mutations reach past the header and CRC checks; the fuzzer's CRC fix-up below lets them reach
// the content checks too). A file that loads must keep every promise the loader makes: words found
// at their index, vectors finite, nearest() finite and best-first.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "attnscope/embeddings.hpp"
#include "fuzz_input.hpp"   // FUZZ_ASSERT

using namespace attnscope;

namespace {
// CRC-32 (zlib's) of bytes [0, 92) then [96, n): the file's checksum (docs/vocab-format.md).
std::uint32_t file_crc(const std::uint8_t* p, std::size_t n) {
    std::uint32_t c = 0xffffffffu;
    for (std::size_t i = 0; i < n; ++i) {
        if (i >= 92 && i < 96) continue;
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // An exactly-sized copy, so AddressSanitizer sees a read one byte past the end. With the first
    // byte odd, the CRC (header bytes 92..95, over the rest of the file) is recomputed first, so
    // mutations are judged by the content checks rather than all stopped by the checksum.
    if (size == 0) return 0;
    std::vector<std::uint8_t> bytes(data + 1, data + size);
    if ((data[0] & 1) && bytes.size() >= 96) {
        const std::uint32_t c = file_crc(bytes.data(), bytes.size());
        for (int i = 0; i < 4; ++i) bytes[92 + i] = static_cast<std::uint8_t>(c >> (8 * i));
    }
    Vocabulary v;
    const Status st = Vocabulary::from_bytes(bytes.data(), bytes.size(), v);
    if (!st.ok()) {
        FUZZ_ASSERT(!st.message().empty() && v.size() == 0);
        return 0;
    }
    const std::size_t n = v.size(), d = v.dim();
    FUZZ_ASSERT(d > 0 && std::isfinite(v.median_norm()) && v.median_norm() > 0);
    std::vector<float> x(d);
    for (std::size_t i = 0; i < n && i < 64; ++i) {
        FUZZ_ASSERT(v.find(v.word(i)) == static_cast<std::int64_t>(i));
        v.vector(i, x.data());
        for (float f : x) FUZZ_ASSERT(std::isfinite(f));
        const auto near = v.nearest(x.data(), 3);
        for (std::size_t k = 0; k < near.size(); ++k) {
            FUZZ_ASSERT(std::isfinite(near[k].second) && near[k].first < n);
            FUZZ_ASSERT(std::fabs(near[k].second) <= 1.0f + 1e-4f);
            if (k) FUZZ_ASSERT(near[k - 1].second >= near[k].second);
        }
    }
    v.oov_vector("zzqx", x.data());
    for (float f : x) FUZZ_ASSERT(std::isfinite(f));
    return 0;
}
