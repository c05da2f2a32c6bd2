// The vocabulary loader (format: docs/vocab-format.md). Everything in the file is checked before it
// is used: header fields against fixed limits and against each other (in 64-bit arithmetic, which
// cannot overflow under those limits, also where size_t is 32 bits as in wasm), the layout against
// the real file length, a CRC-32 over every byte but the checksum field, and then each word (length
// in bounds, valid UTF-8, no duplicates), each scale (finite, >= 0) and each code (-127..127).
#include "attnscope/embeddings.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cerrno>
#include <unordered_map>

#include "attnscope/random.hpp"

namespace attnscope {

namespace {

// --- format constants (docs/vocab-format.md) ------------------------------------------------------
constexpr char kMagic[8] = {'A', 'T', 'S', 'V', 'O', 'C', 'A', 'B'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kHeaderSize = 96;
constexpr std::uint32_t kQuantInt8Symmetric = 1;
constexpr std::size_t kCrcOffset = 92;
constexpr std::uint64_t kMaxDim = 4096;
constexpr std::uint64_t kMaxWords = 4000000;
constexpr std::uint64_t kMaxWordBytes = 255;          // a word's length is one byte
constexpr std::uint64_t kMaxFileBytes = 0x7fffffffu;  // 2 GiB - 1: more cannot be held in wasm32

// --- small helpers --------------------------------------------------------------------------------
std::uint32_t load_u32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t load_u64(const std::uint8_t* p) {
    return static_cast<std::uint64_t>(load_u32(p)) | (static_cast<std::uint64_t>(load_u32(p + 4)) << 32);
}
float load_f32(const std::uint8_t* p) {
    const std::uint32_t bits = load_u32(p);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// The longest vector a vocabulary may hold (2^64): its squared norm still fits in float.
constexpr double kMaxVectorNorm = 18446744073709551616.0;

// A number as short text for messages (%g): 3e+38, 1e-40, nan, inf (std::to_string gives 39 digits
// for 3e38 and "0.000000" for 1e-40).
std::string float_text(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", f);
    return buf;
}

// 1234567 -> "1,234,567"
std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(v));
    return buf;
}

// A word for a message: printable ASCII kept, anything else as \xNN, at most 40 bytes.
std::string printable(std::string_view w) {
    std::string out;
    for (std::size_t i = 0; i < w.size() && i < 40; ++i) {
        const auto c = static_cast<unsigned char>(w[i]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
            out += buf;
        }
    }
    if (w.size() > 40) out += "...";
    return '"' + out + '"';
}

// CRC-32 (IEEE 802.3: reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF; as zlib).
struct CrcTable {
    std::array<std::uint32_t, 256> t{};
    constexpr CrcTable() {
        for (std::uint32_t n = 0; n < 256; ++n) {
            std::uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1u) ? (0xedb88320u ^ (c >> 1)) : (c >> 1);
            t[n] = c;
        }
    }
};
constexpr CrcTable kCrcTable{};

std::uint32_t crc32_update(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
    std::uint32_t c = ~crc;
    for (std::size_t i = 0; i < n; ++i) c = kCrcTable.t[(c ^ p[i]) & 0xffu] ^ (c >> 8);
    return ~c;
}

// Length of the valid UTF-8 sequence starting at p[0] (p has n >= 1 bytes), or 0 if it is not one:
// no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
std::size_t utf8_sequence(const std::uint8_t* p, std::size_t n) {
    const std::uint8_t b0 = p[0];
    if (b0 < 0x80) return 1;
    auto cont = [&](std::size_t i) { return i < n && (p[i] & 0xc0u) == 0x80u; };
    if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
    if (b0 >= 0xe0 && b0 <= 0xef) {
        if (!cont(1) || !cont(2)) return 0;
        if (b0 == 0xe0 && p[1] < 0xa0) return 0;  // overlong
        if (b0 == 0xed && p[1] > 0x9f) return 0;  // surrogate
        return 3;
    }
    if (b0 >= 0xf0 && b0 <= 0xf4) {
        if (!cont(1) || !cont(2) || !cont(3)) return 0;
        if (b0 == 0xf0 && p[1] < 0x90) return 0;  // overlong
        if (b0 == 0xf4 && p[1] > 0x8f) return 0;  // above U+10FFFF
        return 4;
    }
    return 0;  // continuation byte, 0xc0/0xc1 (overlong) or 0xf5..0xff
}

// Byte offset of the first invalid UTF-8 sequence in s, or n if all is valid.
std::size_t utf8_invalid_at(const std::uint8_t* s, std::size_t n) {
    std::size_t i = 0;
    while (i < n) {
        const std::size_t len = utf8_sequence(s + i, n - i);
        if (len == 0) return i;
        i += len;
    }
    return n;
}

// The fields of the 96-byte header, in file order.
struct Header {
    std::uint32_t version, header_size, dim, count, quant, flags;
    std::uint64_t words_offset, words_size, scales_offset, scales_size, vectors_offset, vectors_size,
        file_size;
    float median_norm;
    std::uint32_t crc;
};

Header read_header(const std::uint8_t* p) {
    Header h{};
    h.version = load_u32(p + 8);
    h.header_size = load_u32(p + 12);
    h.dim = load_u32(p + 16);
    h.count = load_u32(p + 20);
    h.quant = load_u32(p + 24);
    h.flags = load_u32(p + 28);
    h.words_offset = load_u64(p + 32);
    h.words_size = load_u64(p + 40);
    h.scales_offset = load_u64(p + 48);
    h.scales_size = load_u64(p + 56);
    h.vectors_offset = load_u64(p + 64);
    h.vectors_size = load_u64(p + 72);
    h.file_size = load_u64(p + 80);
    h.median_norm = load_f32(p + 88);
    h.crc = load_u32(p + 92);
    return h;
}

Status fail(const std::string& what) { return Status::error("vocabulary: " + what); }

}  // namespace

struct Vocabulary::Impl {
    std::size_t dim = 0;
    std::vector<std::string> words;                             // frequency order
    std::unordered_map<std::string_view, std::uint32_t> index;  // views into `words`
    std::vector<float> scales;                                  // one per word
    std::vector<std::int8_t> codes;                             // words x dim
    std::vector<float> inv_code_norm;                           // 1 / ||codes row||, 0 for a zero row
    float median_norm = 0.0f;
};

Status Vocabulary::from_bytes(const std::uint8_t* bytes, std::size_t size, Vocabulary& out) {
    if (size == 0) return fail("empty file (0 bytes)");
    if (bytes == nullptr) return fail("no data (null pointer with a non-zero size)");
    const std::uint64_t actual = size;

    // Header: magic first (so that a file of another kind is named as such), then its length.
    const std::size_t magic_bytes = std::min<std::size_t>(size, sizeof kMagic);
    if (std::memcmp(bytes, kMagic, magic_bytes) != 0) {
        return fail("not an attnscope vocabulary: the file does not start with the magic \"ATSVOCAB\" "
                    "(it starts with " + printable(std::string_view(reinterpret_cast<const char*>(bytes), magic_bytes)) + ")");
    }
    if (actual < kHeaderSize) {
        return fail("truncated file: " + grouped(actual) + " bytes is shorter than the " +
                    std::to_string(kHeaderSize) + "-byte header");
    }
    const Header h = read_header(bytes);
    if (h.version != kVersion) {
        return fail("unsupported format version " + std::to_string(h.version) + " (this build reads version " +
                    std::to_string(kVersion) + "; rebuild the file with scripts/build-vocab.mjs)");
    }
    if (h.header_size != kHeaderSize) {
        return fail("header size " + grouped(h.header_size) + " is not the " + std::to_string(kHeaderSize) +
                    " bytes of format version 1");
    }
    if (h.quant != kQuantInt8Symmetric) {
        return fail("unknown quantisation kind " + std::to_string(h.quant) +
                    " (1 = int8 with a float32 scale per vector)");
    }
    if (h.flags != 0) return fail("reserved header field (flags) is " + hex32(h.flags) + ", expected 0");
    if (h.dim < 1 || h.dim > kMaxDim) {
        return fail("absurd dimension " + grouped(h.dim) + " in the header (expected 1 to " + grouped(kMaxDim) + ")");
    }
    if (h.count < 1 || h.count > kMaxWords) {
        return fail("absurd word count " + grouped(h.count) + " in the header (expected 1 to " +
                    grouped(kMaxWords) + ")");
    }

    // Layout. Sections follow each other with no gaps but the word section's padding to 4 bytes, so
    // every byte of the file is accounted for. Under the limits above no sum below exceeds 2^45.
    const std::uint64_t count = h.count, dim = h.dim;
    if (h.words_offset != kHeaderSize) {
        return fail("word section offset " + grouped(h.words_offset) + " should be " + std::to_string(kHeaderSize) +
                    " (right after the header)");
    }
    if (h.words_size < 2 * count || h.words_size > (1 + kMaxWordBytes) * count) {
        return fail("word section size " + grouped(h.words_size) + " cannot hold " + grouped(count) +
                    " words of 1 to 255 bytes (expected " + grouped(2 * count) + " to " +
                    grouped((1 + kMaxWordBytes) * count) + " bytes)");
    }
    const std::uint64_t scales_offset = (h.words_offset + h.words_size + 3) & ~std::uint64_t{3};
    const std::uint64_t scales_size = 4 * count;
    const std::uint64_t vectors_offset = scales_offset + scales_size;
    const std::uint64_t vectors_size = count * dim;
    const std::uint64_t file_size = vectors_offset + vectors_size;
    if (h.scales_offset != scales_offset || h.scales_size != scales_size || h.vectors_offset != vectors_offset ||
        h.vectors_size != vectors_size || h.file_size != file_size) {
        return fail("inconsistent header: " + grouped(count) + " words x " + grouped(dim) + " dims with " +
                    grouped(h.words_size) + " bytes of words need scales at " + grouped(scales_offset) + " (" +
                    grouped(scales_size) + " bytes), vectors at " + grouped(vectors_offset) + " (" +
                    grouped(vectors_size) + " bytes) and a file of " + grouped(file_size) +
                    " bytes, but the header says scales at " + grouped(h.scales_offset) + " (" +
                    grouped(h.scales_size) + "), vectors at " + grouped(h.vectors_offset) + " (" +
                    grouped(h.vectors_size) + "), file " + grouped(h.file_size));
    }
    if (file_size > kMaxFileBytes) {
        return fail("file of " + grouped(file_size) + " bytes is larger than the " + grouped(kMaxFileBytes) +
                    "-byte limit");
    }
    if (actual < file_size) {
        return fail("truncated file: header says " + grouped(count) + " words x " + grouped(dim) + " dims needs " +
                    grouped(file_size) + " bytes but the file has " + grouped(actual));
    }
    if (actual > file_size) {
        return fail("oversized file: header says " + grouped(count) + " words x " + grouped(dim) + " dims needs " +
                    grouped(file_size) + " bytes but the file has " + grouped(actual) + " (" +
                    grouped(actual - file_size) + " trailing bytes)");
    }

    // Checksum over every byte but the checksum field itself.
    std::uint32_t crc = crc32_update(0, bytes, kCrcOffset);
    crc = crc32_update(crc, bytes + kHeaderSize, size - kHeaderSize);
    if (crc != h.crc) {
        return fail("checksum mismatch: the file's CRC-32 is " + hex32(crc) + " but the header says " +
                    hex32(h.crc) + " (the file is corrupt; rebuild it with scripts/build-vocab.mjs)");
    }

    // From here on every offset is known to lie inside the file, so size_t arithmetic is safe.
    const std::size_t n = h.count, d = h.dim;
    const std::uint8_t* const words_begin = bytes + h.words_offset;
    const std::uint8_t* const words_end = words_begin + h.words_size;
    const std::uint8_t* const scales_at = bytes + scales_offset;
    const auto* const codes_at = reinterpret_cast<const std::int8_t*>(bytes + vectors_offset);

    // Words: each a length byte (1..255) and that many bytes of UTF-8, filling the section exactly.
    const std::uint8_t* p = words_begin;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t at = static_cast<std::uint64_t>(p - bytes);
        if (p >= words_end) {
            return fail("word section ends after " + grouped(i) + " of " + grouped(n) + " words");
        }
        const std::size_t len = *p;
        if (len == 0) return fail("word #" + grouped(i) + " (at byte " + grouped(at) + ") is empty");
        if (len > static_cast<std::size_t>(words_end - p - 1)) {
            return fail("word #" + grouped(i) + " (at byte " + grouped(at) + ") of " + std::to_string(len) +
                        " bytes runs past the end of the word section");
        }
        const std::size_t bad = utf8_invalid_at(p + 1, len);
        if (bad != len) {
            return fail("word #" + grouped(i) + " (at byte " + grouped(at) + ") is not valid UTF-8 (byte " +
                        std::to_string(bad) + " of " +
                        printable(std::string_view(reinterpret_cast<const char*>(p + 1), len)) + ")");
        }
        p += 1 + len;
    }
    if (p != words_end) {
        return fail("word section has " + grouped(static_cast<std::uint64_t>(words_end - p)) +
                    " bytes left after the " + grouped(n) + " words");
    }
    for (const std::uint8_t* q = words_end; q < scales_at; ++q) {
        if (*q != 0) return fail("padding byte at " + grouped(static_cast<std::uint64_t>(q - bytes)) + " is not zero");
    }
    for (std::size_t i = 0; i < n; ++i) {
        const float s = load_f32(scales_at + 4 * i);
        if (!(std::isfinite(s) && s >= 0.0f)) {
            return fail("scale of word #" + grouped(i) + " is " + std::to_string(s) + " (expected finite and >= 0)");
        }
        // A vector can be as long as scale * 127 * sqrt(dim). Past 2^64 its squared norm overflows
        // float (GloVe's are about 5): such a file is damaged, not a vocabulary.
        if (static_cast<double>(s) * 127.0 * std::sqrt(static_cast<double>(d)) >= kMaxVectorNorm) {
            return fail("scale of word #" + grouped(i) + " is " + float_text(s) + ": its vector could reach norm " +
                        float_text(static_cast<double>(s) * 127.0 * std::sqrt(static_cast<double>(d))) +
                        " (expected below 2^64 = 1.8e19, where squared norms overflow float)");
        }
    }
    for (std::size_t i = 0; i < n * d; ++i) {
        if (codes_at[i] == -128) {
            return fail("vector of word #" + grouped(i / d) + " has the code -128 (symmetric int8 uses -127..127)");
        }
    }
    if (!(std::isfinite(h.median_norm) && h.median_norm > 0.0f)) {
        return fail("median norm in the header is " + std::to_string(h.median_norm) + " (expected finite and > 0)");
    }
    if (!(h.median_norm < kMaxVectorNorm)) {
        return fail("median norm in the header is " + float_text(h.median_norm) +
                    " (expected below 2^64 = 1.8e19, where squared norms overflow float)");
    }

    // All checked: build the tables.
    auto impl = std::make_shared<Impl>();
    impl->dim = d;
    impl->median_norm = h.median_norm;
    impl->words.reserve(n);
    for (p = words_begin; p < words_end; p += 1 + *p) impl->words.emplace_back(reinterpret_cast<const char*>(p + 1), *p);
    impl->index.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto ins = impl->index.emplace(impl->words[i], static_cast<std::uint32_t>(i));
        if (!ins.second) {
            return fail("word #" + grouped(i) + " " + printable(impl->words[i]) + " repeats word #" +
                        grouped(ins.first->second));
        }
    }
    impl->scales.resize(n);
    for (std::size_t i = 0; i < n; ++i) impl->scales[i] = load_f32(scales_at + 4 * i);
    impl->codes.assign(codes_at, codes_at + n * d);
    impl->inv_code_norm.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t ss = 0;  // at most 4096 * 127^2: exact
        for (std::size_t j = 0; j < d; ++j) ss += std::int64_t{codes_at[i * d + j]} * codes_at[i * d + j];
        impl->inv_code_norm[i] = ss > 0 ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(ss))) : 0.0f;
    }
    out.impl_ = std::move(impl);
    return {};
}

Status Vocabulary::from_file(const std::string& path, Vocabulary& out) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return Status::error("vocabulary: cannot open " + path + ": " + std::strerror(errno) +
                             " (build it with: node scripts/build-vocab.mjs --out build/vocab)");
    }
    // Read in 1 MiB steps (the length is not asked of the stream: ftell's long has 32 bits in wasm).
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::vector<std::uint8_t> data;
    for (;;) {
        const std::size_t used = data.size();
        data.resize(used + kChunk);
        const std::size_t got = std::fread(data.data() + used, 1, kChunk, f);
        data.resize(used + got);
        if (got < kChunk || data.size() > kMaxFileBytes) break;
    }
    const bool read_error = std::ferror(f) != 0;
    std::fclose(f);
    if (read_error) return Status::error("vocabulary: cannot read " + path);
    if (data.size() > kMaxFileBytes) {
        return Status::error("vocabulary: " + path + " is larger than the " + grouped(kMaxFileBytes) + "-byte limit");
    }
    Status s = from_bytes(data.data(), data.size(), out);
    if (!s.ok()) return Status::error(path + ": " + s.message());
    return s;
}

std::size_t Vocabulary::size() const { return impl_ ? impl_->words.size() : 0; }
std::size_t Vocabulary::dim() const { return impl_ ? impl_->dim : 0; }
float Vocabulary::median_norm() const { return impl_ ? impl_->median_norm : 0.0f; }

const std::string& Vocabulary::word(std::size_t index) const {
    static const std::string none;
    return impl_ && index < impl_->words.size() ? impl_->words[index] : none;
}

std::int64_t Vocabulary::find(std::string_view word) const {
    if (!impl_) return -1;
    const auto it = impl_->index.find(word);
    return it == impl_->index.end() ? -1 : static_cast<std::int64_t>(it->second);
}

void Vocabulary::vector(std::size_t index, float* out) const {
    if (!impl_) return;
    const std::size_t d = impl_->dim;
    if (index >= impl_->words.size()) {  // documented as a precondition; zeros rather than a wild read
        std::fill(out, out + d, 0.0f);
        return;
    }
    const float s = impl_->scales[index];
    const std::int8_t* c = impl_->codes.data() + index * d;
    for (std::size_t j = 0; j < d; ++j) out[j] = static_cast<float>(c[j]) * s;
}

namespace {

// Folds the Latin-1 letters U+00C0–U+00FF (two UTF-8 bytes, C3 80–C3 BF) to ASCII; empty when
// nothing was folded.
std::string fold_latin1_accents(std::string_view w) {
    // Indexed by the second byte - 0x80, for U+00C0..U+00FF; '\0' = leave as is.
    static const char kFold[64 + 1] = "AAAAAAACEEEEIIII" "DNOOOOO\0OUUUUY\0\0" "aaaaaaaceeeeiiii" "\0nooooo\0ouuuuy\0y";
    std::string out;
    bool folded = false;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const auto c = static_cast<unsigned char>(w[i]);
        if (c == 0xC3 && i + 1 < w.size()) {
            const auto n = static_cast<unsigned char>(w[i + 1]);
            if (n >= 0x80 && n <= 0xBF && kFold[n - 0x80] != '\0') {
                out += kFold[n - 0x80];
                folded = true;
                ++i;
                continue;
            }
        }
        out += static_cast<char>(c);
    }
    return folded ? out : std::string();
}

}  // namespace

std::int64_t Vocabulary::resolve(std::string_view word) const {
    if (const std::int64_t i = find(word); i >= 0) return i;
    static const std::pair<std::string_view, std::string_view> kStandIns[] = {
        {"n't", "not"}, {"n’t", "not"}, {"'ll", "will"}, {"'re", "are"}, {"'m", "am"}, {"'ve", "have"},
        {"'d", "would"}, {"'s", "is"}, {"a", "an"}, {"i", "me"}, {"0", "zero"}, {"1", "one"}, {"2", "two"},
        {"3", "three"}, {"4", "four"}, {"5", "five"}, {"6", "six"}, {"7", "seven"}, {"8", "eight"},
        {"9", "nine"}, {"10", "ten"}, {"...", "…"}};
    for (const auto& [from, to] : kStandIns)
        if (word == from) return find(to);
    if (word.size() > 1 && word.back() == '.') {
        if (const std::int64_t i = find(word.substr(0, word.size() - 1)); i >= 0) return i;
    }
    if (const std::string folded = fold_latin1_accents(word); !folded.empty()) return find(folded);
    return -1;
}

bool Vocabulary::embed(std::string_view word, float* out) const {
    const std::int64_t i = resolve(word);
    if (i >= 0) {
        vector(static_cast<std::size_t>(i), out);
        return true;
    }
    oov_vector(word, out);
    return false;
}

// docs/vocab-format.md, "Out-of-vocabulary words". Only integer operations and correctly rounded
// IEEE operations (+, *, /, sqrt, conversions), each in its own statement, so that no compiler may
// fuse them: the result is the same bytes natively and in wasm.
void Vocabulary::oov_vector(std::string_view word, float* out) const {
    if (!impl_) return;
    const std::size_t d = impl_->dim;
    Pcg32 rng(fnv1a64(word));
    double sum_sq = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        const float x = rng.symmetric(1.0f);
        out[j] = x;
        const double x2 = static_cast<double>(x) * static_cast<double>(x);  // exact: 24 x 24 bits
        sum_sq += x2;
    }
    if (sum_sq == 0.0) {  // all draws zero: probability 2^-2400 for d = 100, but defined all the same
        out[0] = impl_->median_norm;
        return;
    }
    const double norm = std::sqrt(sum_sq);
    const double factor = static_cast<double>(impl_->median_norm) / norm;
    for (std::size_t j = 0; j < d; ++j) {
        const double y = static_cast<double>(out[j]) * factor;
        out[j] = static_cast<float>(y);
    }
}

std::vector<std::pair<std::size_t, float>> Vocabulary::nearest(const float* v, std::size_t k) const {
    std::vector<std::pair<std::size_t, float>> best;
    if (!impl_ || k == 0) return best;
    const std::size_t n = impl_->words.size(), d = impl_->dim;
    // Any finite vector has a direction: rescale it by a power of two (exact) so its largest
    // |component| is in [0.5, 1); then neither v·c (|c| <= 127) nor 1/|v| can leave float's range,
    // whether the components are 1e-40 or 3e38.
    float vmax = 0.0f;
    for (std::size_t j = 0; j < d; ++j) {
        if (!std::isfinite(v[j])) return best;  // non-finite query: no direction
        vmax = std::max(vmax, std::fabs(v[j]));
    }
    if (vmax == 0.0f) return best;  // zero query: no direction
    int e = 0;
    std::frexp(vmax, &e);
    std::vector<float> scaled(d);
    for (std::size_t j = 0; j < d; ++j) scaled[j] = std::ldexp(v[j], -e);
    v = scaled.data();
    double vv = 0.0;
    for (std::size_t j = 0; j < d; ++j) vv += static_cast<double>(v[j]) * v[j];
    const float inv_v = static_cast<float>(1.0 / std::sqrt(vv));
    k = std::min(k, n);
    best.reserve(k + 1);

    // Best first: higher cosine, then lower index (so ties are broken by frequency, deterministically).
    // With this order as the heap's "less", the heap's top is the worst entry kept.
    auto better = [](const std::pair<std::size_t, float>& a, const std::pair<std::size_t, float>& b) {
        return a.second > b.second || (a.second == b.second && a.first < b.first);
    };
    const std::int8_t* c = impl_->codes.data();
    for (std::size_t i = 0; i < n; ++i, c += d) {
        // cos = (v . s c) / (|v| s |c|) = (v . c) / (|v| |c|): the scale cancels.
        float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
        std::size_t j = 0;
        for (; j + 4 <= d; j += 4) {
            acc0 += v[j] * static_cast<float>(c[j]);
            acc1 += v[j + 1] * static_cast<float>(c[j + 1]);
            acc2 += v[j + 2] * static_cast<float>(c[j + 2]);
            acc3 += v[j + 3] * static_cast<float>(c[j + 3]);
        }
        for (; j < d; ++j) acc0 += v[j] * static_cast<float>(c[j]);
        const float cosine = ((acc0 + acc1) + (acc2 + acc3)) * inv_v * impl_->inv_code_norm[i];
        const std::pair<std::size_t, float> cand{i, cosine};
        if (best.size() < k) {
            best.push_back(cand);
            std::push_heap(best.begin(), best.end(), better);
        } else if (better(cand, best.front())) {
            std::pop_heap(best.begin(), best.end(), better);
            best.back() = cand;
            std::push_heap(best.begin(), best.end(), better);
        }
    }
    std::sort_heap(best.begin(), best.end(), better);
    return best;
}

}  // namespace attnscope
