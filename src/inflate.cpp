// Raw DEFLATE decoding (RFC 1951): stored, fixed-Huffman and dynamic-Huffman blocks. Huffman codes
// are decoded through a 10-bit lookup table, with a canonical bit-by-bit walk for longer codes.
// Every read past the end of the input and every write past expected_size is checked.
#include "attnscope/inflate.hpp"

#include <array>
#include <string>

namespace attnscope {
namespace {

constexpr unsigned kFastBits = 10;
constexpr unsigned kMaxBits = 15;

const Status kCorrupt = Status::error("deflate: the compressed data is corrupt");
const Status kTruncated = Status::error("deflate: the compressed data is truncated");

struct BitReader {
    const std::uint8_t* p;
    std::size_t n;
    std::size_t pos = 0;       // next byte to load into buf
    std::uint64_t buf = 0;     // bits not consumed yet, least significant first
    unsigned cnt = 0;          // how many bits buf holds

    // Loads bytes until buf holds at least 57 bits; past the end it loads zeros (pos keeps counting,
    // so overrun() can tell a stream that used them).
    void refill() {
        while (cnt <= 56) {
            const std::uint64_t byte = pos < n ? p[pos] : 0;
            ++pos;
            buf |= byte << cnt;
            cnt += 8;
        }
    }
    // True once the bits consumed go beyond the input.
    bool overrun() const { return pos > n && (pos - n) * 8 > cnt; }
    unsigned bits(unsigned k) {   // k <= 32
        if (cnt < k) refill();
        const unsigned v = static_cast<unsigned>(buf & ((std::uint64_t{1} << k) - 1));
        buf >>= k;
        cnt -= k;
        return v;
    }
};

struct Huffman {
    std::array<std::uint16_t, 1u << kFastBits> fast{};   // symbol << 4 | length; 0 = longer code
    std::array<std::uint16_t, kMaxBits + 1> count{};      // codes of each length
    std::array<std::uint16_t, 288> symbol{};              // symbols ordered by code

    // Canonical code from code lengths; over-subscribed sets are refused, incomplete ones allowed
    // (a code never assigned is refused when met).
    bool build(const std::uint8_t* lengths, unsigned n) {
        count.fill(0);
        fast.fill(0);
        for (unsigned s = 0; s < n; ++s) ++count[lengths[s]];
        count[0] = 0;
        int left = 1;
        for (unsigned len = 1; len <= kMaxBits; ++len) {
            left = (left << 1) - count[len];
            if (left < 0) return false;
        }
        std::array<std::uint16_t, kMaxBits + 1> offs{};
        for (unsigned len = 1; len < kMaxBits; ++len) offs[len + 1] = static_cast<std::uint16_t>(offs[len] + count[len]);
        for (unsigned s = 0; s < n; ++s)
            if (lengths[s]) symbol[offs[lengths[s]]++] = static_cast<std::uint16_t>(s);
        // The lookup table: the codes of up to kFastBits bits, bit-reversed (DEFLATE sends a code's
        // most significant bit first), repeated over every value of the bits that follow.
        unsigned code = 0, index = 0;
        for (unsigned len = 1; len <= kFastBits; ++len) {
            for (unsigned k = 0; k < count[len]; ++k, ++code, ++index) {
                unsigned rev = 0;
                for (unsigned b = 0; b < len; ++b) rev |= ((code >> b) & 1u) << (len - 1 - b);
                const std::uint16_t entry = static_cast<std::uint16_t>(symbol[index] << 4 | len);
                for (unsigned fill = rev; fill < (1u << kFastBits); fill += 1u << len) fast[fill] = entry;
            }
            code <<= 1;
        }
        return true;
    }

    // The next symbol, or -1 for a code that is not in the set.
    int decode(BitReader& in) const {
        if (in.cnt < kMaxBits) in.refill();
        const std::uint16_t e = fast[in.buf & ((1u << kFastBits) - 1)];
        if (e) {
            in.buf >>= (e & 15);
            in.cnt -= (e & 15);
            return e >> 4;
        }
        int code = 0, first = 0, index = 0;
        for (unsigned len = 1; len <= kMaxBits; ++len) {
            code |= static_cast<int>(in.buf & 1u);
            in.buf >>= 1;
            --in.cnt;
            const int c = count[len];
            if (code - c < first) return symbol[static_cast<std::size_t>(index + (code - first))];
            index += c;
            first += c;
            first <<= 1;
            code <<= 1;
        }
        return -1;
    }
};

constexpr std::uint16_t kLenBase[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                        35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::uint16_t kDistBase[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                         1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

Status codes(BitReader& in, const Huffman& lit, const Huffman& dist, std::uint8_t* out, std::size_t size, std::size_t& at) {
    for (;;) {
        const int sym = lit.decode(in);
        if (in.overrun()) return kTruncated;
        if (sym < 0) return kCorrupt;
        if (sym < 256) {
            if (at == size) return Status::error("deflate: the data is longer than the size the zip states; the file is corrupt");
            out[at++] = static_cast<std::uint8_t>(sym);
        } else if (sym == 256) {
            return {};
        } else {
            const int l = sym - 257;
            if (l >= 29) return kCorrupt;
            const std::size_t len = kLenBase[l] + in.bits(kLenExtra[l]);
            const int d = dist.decode(in);
            if (d < 0 || d >= 30) return kCorrupt;
            const std::size_t back = kDistBase[d] + in.bits(kDistExtra[d]);
            if (in.overrun()) return kTruncated;
            if (back > at) return kCorrupt;
            if (len > size - at) return Status::error("deflate: the data is longer than the size the zip states; the file is corrupt");
            std::uint8_t* o = out + at;
            const std::uint8_t* from = o - back;
            for (std::size_t k = 0; k < len; ++k) o[k] = from[k];   // overlapping copies repeat the pattern
            at += len;
        }
    }
}

}  // namespace

Status inflate_raw(const std::uint8_t* in_bytes, std::size_t in_size, std::size_t expected_size,
                   std::vector<std::uint8_t>& out) {
    out.assign(expected_size, 0);
    BitReader in{in_bytes, in_size};
    std::size_t at = 0;
    Huffman lit, dist;
    bool last = false;
    while (!last) {
        last = in.bits(1) != 0;
        const unsigned type = in.bits(2);
        if (in.overrun()) return kTruncated;
        Status st;
        if (type == 0) {
            in.bits(in.cnt & 7u);   // to the byte boundary (bits consumed so far: pos*8 - cnt)
            const unsigned len = in.bits(16), nlen = in.bits(16);
            if (in.overrun()) return kTruncated;
            if ((len ^ 0xffffu) != nlen) return kCorrupt;
            if (len > expected_size - at) return Status::error("deflate: the data is longer than the size the zip states; the file is corrupt");
            for (unsigned k = 0; k < len; ++k) out[at++] = static_cast<std::uint8_t>(in.bits(8));
            if (in.overrun()) return kTruncated;
        } else if (type == 1) {
            std::uint8_t l[288], d[30];
            for (unsigned s = 0; s < 144; ++s) l[s] = 8;
            for (unsigned s = 144; s < 256; ++s) l[s] = 9;
            for (unsigned s = 256; s < 280; ++s) l[s] = 7;
            for (unsigned s = 280; s < 288; ++s) l[s] = 8;
            for (unsigned s = 0; s < 30; ++s) d[s] = 5;
            if (!lit.build(l, 288) || !dist.build(d, 30)) return kCorrupt;
            if (!(st = codes(in, lit, dist, out.data(), expected_size, at))) return st;
        } else if (type == 2) {
            const unsigned nlen = in.bits(5) + 257, ndist = in.bits(5) + 1, ncode = in.bits(4) + 4;
            if (nlen > 286 || ndist > 30) return kCorrupt;
            static constexpr std::uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
            std::uint8_t lengths[320] = {};
            for (unsigned k = 0; k < ncode; ++k) lengths[kOrder[k]] = static_cast<std::uint8_t>(in.bits(3));
            if (in.overrun()) return kTruncated;
            Huffman lencode;
            if (!lencode.build(lengths, 19)) return kCorrupt;
            unsigned k = 0;
            while (k < nlen + ndist) {
                const int sym = lencode.decode(in);
                if (in.overrun()) return kTruncated;
                if (sym < 0) return kCorrupt;
                if (sym < 16) { lengths[k++] = static_cast<std::uint8_t>(sym); continue; }
                std::uint8_t value = 0;
                unsigned repeat;
                if (sym == 16) {
                    if (k == 0) return kCorrupt;
                    value = lengths[k - 1];
                    repeat = 3 + in.bits(2);
                } else if (sym == 17) {
                    repeat = 3 + in.bits(3);
                } else {
                    repeat = 11 + in.bits(7);
                }
                if (k + repeat > nlen + ndist) return kCorrupt;
                while (repeat--) lengths[k++] = value;
            }
            if (lengths[256] == 0) return kCorrupt;   // no end-of-block code
            if (!lit.build(lengths, nlen) || !dist.build(lengths + nlen, ndist)) return kCorrupt;
            if (!(st = codes(in, lit, dist, out.data(), expected_size, at))) return st;
        } else {
            return kCorrupt;
        }
    }
    if (at != expected_size) return Status::error("deflate: the data is shorter than the size the zip states; the file is truncated or corrupt");
    return {};
}

std::uint32_t crc32(const std::uint8_t* bytes, std::size_t size) {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xffffffffu;
    for (std::size_t i = 0; i < size; ++i) c = table[(c ^ bytes[i]) & 0xffu] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

}  // namespace attnscope
