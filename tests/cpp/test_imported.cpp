// Imported attention: .npy (v1/v2/v3 headers, float32/float16, both byte orders), .npz (stored zip,
// plain and zip64), .safetensors, the shape rules and validation. Files are built here byte by byte
// from a small random attention stack; every truncation of each valid file is refused (run under
// AddressSanitizer by scripts/test.sh), and random byte damage never crashes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attnscope/imported.hpp"
#include "attnscope/inflate.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;
using Bytes = std::vector<std::uint8_t>;

namespace {

void put16(Bytes& b, std::uint32_t v) { b.push_back(static_cast<std::uint8_t>(v)); b.push_back(static_cast<std::uint8_t>(v >> 8)); }
void put32(Bytes& b, std::uint32_t v) { put16(b, v & 0xffff); put16(b, v >> 16); }
void put64(Bytes& b, std::uint64_t v) { put32(b, static_cast<std::uint32_t>(v)); put32(b, static_cast<std::uint32_t>(v >> 32)); }
std::uint32_t fbits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
// float -> half, round to nearest (normal range only: attention weights in [0, 1]).
std::uint16_t to_half(float f) {
    if (f == 0.0f) return 0;
    int e;
    const float m = std::frexp(f, &e);  // f = m * 2^e, m in [0.5, 1)
    if (e - 1 < -14) return static_cast<std::uint16_t>(std::lround(std::ldexp(f, 24)));  // subnormal
    const auto mant = static_cast<std::uint32_t>(std::lround((m * 2 - 1) * 1024));
    return static_cast<std::uint16_t>(((e - 1 + 15) << 10) + mant);
}

// A random stack of softmax rows [L, H, nq, nk].
std::vector<float> random_stack(std::size_t L, std::size_t H, std::size_t nq, std::size_t nk, std::uint32_t seed) {
    Rng rng(seed);
    std::vector<float> v(L * H * nq * nk);
    for (std::size_t r = 0; r < L * H * nq; ++r) {
        double sum = 0;
        for (std::size_t j = 0; j < nk; ++j) sum += (v[r * nk + j] = static_cast<float>(std::exp(2 * rng.normal())));
        for (std::size_t j = 0; j < nk; ++j) v[r * nk + j] = static_cast<float>(v[r * nk + j] / sum);
    }
    return v;
}

std::string shape_tuple(const std::vector<std::size_t>& s) {
    std::string t = "(";
    for (std::size_t d : s) t += std::to_string(d) + ", ";
    if (s.size() > 1) t.resize(t.size() - 2);
    if (s.size() == 1) t.resize(t.size() - 1);
    return t + ")";
}

Bytes npy(const std::vector<float>& v, const std::vector<std::size_t>& shape, int version = 1, const std::string& descr = "<f4",
          bool fortran = false) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape_tuple(shape) + ", }";
    const std::size_t pre = version == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64) h += ' ';
    h += '\n';
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(version), 0};
    if (version == 1) put16(b, static_cast<std::uint32_t>(h.size()));
    else put32(b, static_cast<std::uint32_t>(h.size()));
    b.insert(b.end(), h.begin(), h.end());
    for (float f : v) {
        if (descr == "<f4") put32(b, fbits(f));
        else if (descr == ">f4") { const std::uint32_t u = fbits(f); for (int k = 3; k >= 0; --k) b.push_back(static_cast<std::uint8_t>(u >> (8 * k))); }
        else if (descr == "<f2") put16(b, to_half(f));
        else put64(b, 0);  // a dtype the loader must refuse; the content does not matter
    }
    return b;
}

Bytes npy_strings(const std::vector<std::string>& tokens) {  // ASCII tokens as '<U..'
    std::size_t w = 1;
    for (const auto& t : tokens) w = std::max(w, t.size());
    std::string h = "{'descr': '<U" + std::to_string(w) + "', 'fortran_order': False, 'shape': (" + std::to_string(tokens.size()) + ",), }";
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    put16(b, static_cast<std::uint32_t>(h.size()));
    b.insert(b.end(), h.begin(), h.end());
    for (const auto& t : tokens)
        for (std::size_t c = 0; c < w; ++c) put32(b, c < t.size() ? static_cast<unsigned char>(t[c]) : 0);
    return b;
}

// A stored (uncompressed) zip, as numpy.savez writes it; zip64 = sizes in zip64 extra fields.
Bytes zip(const std::vector<std::pair<std::string, Bytes>>& members, bool zip64 = false, std::uint16_t method = 0) {
    Bytes b, cd;
    for (const auto& [name, data] : members) {
        const auto offset = static_cast<std::uint32_t>(b.size());
        put32(b, 0x04034b50u); put16(b, 45); put16(b, 0); put16(b, method); put32(b, 0); put32(b, 0);
        put32(b, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(data.size()));
        put32(b, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(data.size()));
        put16(b, static_cast<std::uint32_t>(name.size())); put16(b, zip64 ? 20 : 0);
        b.insert(b.end(), name.begin(), name.end());
        if (zip64) { put16(b, 1); put16(b, 16); put64(b, data.size()); put64(b, data.size()); }
        b.insert(b.end(), data.begin(), data.end());
        put32(cd, 0x02014b50u); put16(cd, 45); put16(cd, 45); put16(cd, 0); put16(cd, method); put32(cd, 0); put32(cd, 0);
        put32(cd, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(data.size()));
        put32(cd, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(data.size()));
        put16(cd, static_cast<std::uint32_t>(name.size())); put16(cd, zip64 ? 28 : 0); put16(cd, 0); put16(cd, 0); put16(cd, 0);
        put32(cd, 0); put32(cd, zip64 ? 0xffffffffu : offset);
        cd.insert(cd.end(), name.begin(), name.end());
        if (zip64) { put16(cd, 1); put16(cd, 24); put64(cd, data.size()); put64(cd, data.size()); put64(cd, offset); }
    }
    const auto cd_offset = static_cast<std::uint32_t>(b.size());
    b.insert(b.end(), cd.begin(), cd.end());
    put32(b, 0x06054b50u); put16(b, 0); put16(b, 0);
    put16(b, static_cast<std::uint32_t>(members.size())); put16(b, static_cast<std::uint32_t>(members.size()));
    put32(b, static_cast<std::uint32_t>(cd.size())); put32(b, cd_offset); put16(b, 0);
    return b;
}

// DEFLATE streams written here: stored blocks (type 0, at most 65,535 bytes each) and one block of
// fixed-Huffman literals (type 1); the dynamic-Huffman case (type 2) is kDynamic below, from zlib.
struct BitWriter {
    Bytes b;
    std::uint32_t acc = 0;
    unsigned n = 0;
    void put(std::uint32_t v, unsigned k) {   // k bits of v, least significant first
        for (unsigned i = 0; i < k; ++i) {
            acc |= ((v >> i) & 1u) << n;
            if (++n == 8) { b.push_back(static_cast<unsigned char>(acc)); acc = 0; n = 0; }
        }
    }
    void code(std::uint32_t c, unsigned len) {   // a Huffman code, most significant bit first
        for (unsigned i = len; i-- > 0;) put((c >> i) & 1u, 1);
    }
    Bytes done() { if (n) b.push_back(static_cast<unsigned char>(acc)); return b; }
};

Bytes deflate_stored(const Bytes& data) {
    Bytes out;
    std::size_t at = 0;
    do {
        const std::size_t len = std::min<std::size_t>(65535, data.size() - at);
        out.push_back(at + len == data.size() ? 1 : 0);
        put16(out, static_cast<std::uint32_t>(len));
        put16(out, static_cast<std::uint32_t>(len ^ 0xffffu));
        out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(at), data.begin() + static_cast<std::ptrdiff_t>(at + len));
        at += len;
    } while (at < data.size());
    return out;
}

Bytes deflate_fixed(const Bytes& data) {
    BitWriter w;
    w.put(1, 1);
    w.put(1, 2);
    for (unsigned char c : data) {
        if (c < 144) w.code(0x30u + c, 8); else w.code(0x190u + (c - 144u), 9);
    }
    w.code(0, 7);  // end of block (256)
    return w.done();
}

// zlib.compressobj(9, zlib.DEFLATED, -15) of kDynamicText(): one dynamic-Huffman block.
const Bytes kDynamic = {
    0x8d, 0xd5, 0x4d, 0x0a, 0xc3, 0x20, 0x10, 0x40, 0xe1, 0xab, 0x78, 0x04, 0xc7, 0x7f, 0xe9, 0x69,
    0xb2, 0x08, 0x4d, 0x21, 0x24, 0x90, 0x9a, 0x45, 0x6f, 0xdf, 0x5d, 0xd1, 0xc2, 0xc8, 0xdb, 0x3f,
    0x02, 0xce, 0xe7, 0x98, 0xa5, 0xb5, 0xf5, 0x68, 0xaf, 0xf3, 0x30, 0xd6, 0x5c, 0xe7, 0xbe, 0xbf,
    0xcd, 0x79, 0x37, 0xd3, 0xb6, 0xeb, 0xbc, 0x9f, 0x9b, 0xd9, 0x97, 0xcf, 0x7a, 0x19, 0xfb, 0x30,
    0xcb, 0x2f, 0xcb, 0x6a, 0x26, 0x7d, 0x26, 0x6a, 0xe6, 0xfa, 0xac, 0xa8, 0x99, 0xef, 0x33, 0xa7,
    0x66, 0xa1, 0xcf, 0xaa, 0x9a, 0xc5, 0x3e, 0xf3, 0x6a, 0x96, 0x86, 0x23, 0xe8, 0x13, 0xc9, 0x7d,
    0x17, 0xd4, 0xac, 0x0c, 0x9f, 0xd3, 0x47, 0x52, 0xfb, 0x2e, 0xea, 0x03, 0x1e, 0x20, 0x44, 0x1f,
    0x8a, 0x0c, 0x14, 0x89, 0xc1, 0x5a, 0x06, 0x9b, 0x19, 0xac, 0x30, 0xd8, 0xc2, 0x60, 0x1d, 0x83,
    0xad, 0x0c, 0xd6, 0x33, 0xd7, 0x89, 0x7f, 0x61, 0xfe, 0x15, 0xfa, 0x8f, 0xb0, 0x11, 0xba, 0x4e,
    0x2e, 0x80, 0x65, 0xfe, 0xc2, 0xfc, 0x1d, 0xf3, 0xf7, 0xcc, 0x3f, 0x30, 0xff, 0xc8, 0xfc, 0x13,
    0xf3, 0xcf, 0xcc, 0xbf, 0x40, 0xff, 0xca, 0xfc, 0xff, 0x16, 0x56, 0x20, 0x6c, 0x64, 0xae, 0xb3,
    0x07, 0x80, 0xf9, 0x3b, 0xe6, 0xef, 0x99, 0x7f, 0x60, 0xfe, 0x91, 0xf9, 0x27, 0xe6, 0x9f, 0x99,
    0x7f, 0x61, 0xfe, 0x15, 0xfa, 0x8f, 0xb0, 0x81, 0x2e, 0xac, 0x30, 0xd8, 0x08, 0x7f, 0xb1, 0x8e,
    0xc1, 0x26, 0x06, 0x6b, 0x19, 0x6c, 0x66, 0xb0, 0xc2, 0x60, 0x0b, 0x83, 0x75, 0x0c, 0xb6, 0x32,
    0x58, 0x4f, 0x17, 0xd6, 0x4e, 0x61, 0xbf,
};
Bytes kDynamicText() {
    std::string s;
    for (int i = 0; i < 60; ++i)
        s += "attention " + std::to_string(i * 7 % 13) + " rolls out through layer " + std::to_string(i % 12) + "; ";
    return Bytes(s.begin(), s.end());
}

// A zip whose members are deflated, as numpy.savez_compressed writes it (method 8, CRC-32, sizes).
Bytes zip_deflated(const std::vector<std::pair<std::string, Bytes>>& members, Bytes (*deflate)(const Bytes&)) {
    Bytes b, cd;
    for (const auto& [name, data] : members) {
        const Bytes packed = deflate(data);
        const std::uint32_t crc = attnscope::crc32(data.data(), data.size());
        const auto offset = static_cast<std::uint32_t>(b.size());
        put32(b, 0x04034b50u); put16(b, 20); put16(b, 0); put16(b, 8); put32(b, 0); put32(b, crc);
        put32(b, static_cast<std::uint32_t>(packed.size())); put32(b, static_cast<std::uint32_t>(data.size()));
        put16(b, static_cast<std::uint32_t>(name.size())); put16(b, 0);
        b.insert(b.end(), name.begin(), name.end());
        b.insert(b.end(), packed.begin(), packed.end());
        put32(cd, 0x02014b50u); put16(cd, 20); put16(cd, 20); put16(cd, 0); put16(cd, 8); put32(cd, 0); put32(cd, crc);
        put32(cd, static_cast<std::uint32_t>(packed.size())); put32(cd, static_cast<std::uint32_t>(data.size()));
        put16(cd, static_cast<std::uint32_t>(name.size())); put16(cd, 0); put16(cd, 0); put16(cd, 0); put16(cd, 0);
        put32(cd, 0); put32(cd, offset);
        cd.insert(cd.end(), name.begin(), name.end());
    }
    const auto cd_offset = static_cast<std::uint32_t>(b.size());
    b.insert(b.end(), cd.begin(), cd.end());
    put32(b, 0x06054b50u); put16(b, 0); put16(b, 0);
    put16(b, static_cast<std::uint32_t>(members.size())); put16(b, static_cast<std::uint32_t>(members.size()));
    put32(b, static_cast<std::uint32_t>(cd.size())); put32(b, cd_offset); put16(b, 0);
    return b;
}

Bytes safetensors(const std::vector<float>& v, const std::vector<std::size_t>& shape, const std::string& dtype = "F32",
                  const std::string& metadata = R"({"tokens":"[\"a\",\"b\",\"c\"]"})") {
    Bytes data;
    for (float f : v) {
        if (dtype == "F32") put32(data, fbits(f));
        else if (dtype == "F16") put16(data, to_half(f));
        else put16(data, fbits(f) >> 16);  // BF16 (truncated)
    }
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    s += "]";
    std::string h = R"({"__metadata__":)" + metadata + R"(,"attentions":{"dtype":")" + dtype + R"(","shape":)" + s +
                    R"(,"data_offsets":[0,)" + std::to_string(data.size()) + "]}}";
    while (h.size() % 8) h += ' ';
    Bytes b;
    put64(b, h.size());
    b.insert(b.end(), h.begin(), h.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

Status load(const Bytes& b, const std::string& format, ImportedAttention& out, std::vector<std::string> tokens = {},
            ImportOptions o = {}) {
    FloatArray a;
    std::vector<std::string> t, kt;
    Status st = format == "npy" ? parse_npy(b.data(), b.size(), a)
                : format == "npz" ? parse_npz(b.data(), b.size(), a, t, kt)
                                  : parse_safetensors(b.data(), b.size(), a, t, kt);
    if (!st) return st;
    if (t.empty()) t = tokens;
    return validate_attention(std::move(a), t, kt, o, out);
}

const std::vector<std::string> kABC = {"a", "b", "c"};

}  // namespace

TEST_CASE("npy: float32 v1/v2/v3 and big-endian round-trip exactly; the shape rules give layers and heads", "[imported]") {
    const auto v = random_stack(2, 3, 3, 3, 11);
    for (int version : {1, 2, 3}) {
        for (const char* descr : {"<f4", ">f4"}) {
            ImportedAttention out;
            const Status st = load(npy(v, {2, 3, 3, 3}, version, descr), "npy", out, kABC);
            INFO(st.message());
            REQUIRE(st.ok());
            CHECK(out.layers == 2);
            CHECK(out.heads == 3);
            CHECK(out.nq == 3);
            CHECK(out.nk == 3);
            CHECK(out.values == v);
            CHECK(out.tokens == kABC);
            CHECK(out.key_tokens == kABC);
            CHECK(out.warnings.empty());
        }
    }
    ImportedAttention out;
    REQUIRE(load(npy(std::vector<float>(v.begin(), v.begin() + 27), {3, 3, 3}), "npy", out, kABC).ok());
    CHECK((out.layers == 1 && out.heads == 3));
    REQUIRE(load(npy(std::vector<float>(v.begin(), v.begin() + 9), {3, 3}), "npy", out, kABC).ok());
    CHECK((out.layers == 1 && out.heads == 1));
}

TEST_CASE("npy: float16 is converted within half precision", "[imported]") {
    const auto v = random_stack(1, 2, 3, 3, 12);
    ImportedAttention out;
    const Status st = load(npy(v, {1, 2, 3, 3}, 1, "<f2"), "npy", out, kABC);
    INFO(st.message());
    REQUIRE(st.ok());
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(std::fabs(out.values[i] - v[i]) <= 1e-3 * std::max(v[i], 6e-5f) + 6e-8);
}

TEST_CASE("npy: Fortran order, other dtypes, wrong ranks and token counts are refused with the fix", "[imported]") {
    const auto v = random_stack(1, 1, 3, 3, 13);
    ImportedAttention out;
    CHECK_THAT(load(npy(v, {3, 3}, 1, "<f4", true), "npy", out, kABC).message(), Contains("ascontiguousarray"));
    CHECK_THAT(load(npy(v, {3, 3}, 1, "<f8"), "npy", out, kABC).message(), Contains("astype(numpy.float32)"));
    CHECK_THAT(load(npy(v, {9}), "npy", out, kABC).message(), Contains("wrong rank"));
    CHECK_THAT(load(npy(std::vector<float>(18, 1.0f / 3), {1, 2, 1, 3, 3}), "npy", out, kABC).message(), Contains("batch"));
    CHECK_THAT(load(npy(v, {3, 3}), "npy", out, {"a", "b"}).message(), Contains("tokens: 2 given"));
    // nq != nk needs key tokens
    const auto w = random_stack(1, 1, 2, 3, 14);
    CHECK_THAT(load(npy(w, {2, 3}), "npy", out, {"a", "b"}).message(), Contains("keyTokens"));
    FloatArray a;
    a.shape = {2, 3};
    a.values = w;
    REQUIRE(validate_attention(a, {"a", "b"}, kABC, {}, out).ok());
    CHECK(out.key_tokens == kABC);
}

TEST_CASE("validation: NaN and infinities are refused naming the place; bad rows warn; softmax on request", "[imported]") {
    auto v = random_stack(2, 2, 3, 3, 15);
    ImportedAttention out;
    auto bad = v;
    bad[1 * 18 + 1 * 9 + 2 * 3 + 1] = kNaN;
    CHECK_THAT(load(npy(bad, {2, 2, 3, 3}), "npy", out, kABC).message(), Contains("NaN at layer 1, head 1, row 2 ('c'), column 1"));
    bad[1 * 18 + 1 * 9 + 2 * 3 + 1] = kInf;
    CHECK_THAT(load(npy(bad, {2, 2, 3, 3}), "npy", out, kABC).message(), Contains("infinity"));
    // scores before the softmax: a warning naming the worst row, values kept
    auto scores = v;
    for (float& x : scores) x = x * 4 - 1;
    scores[9 + 3] += 5;  // layer 0, head 1, row 1 is the worst
    REQUIRE(load(npy(scores, {2, 2, 3, 3}), "npy", out, kABC).ok());
    REQUIRE(out.warnings.size() == 1);
    CHECK_THAT(out.warnings[0], Contains("the worst is layer 0, head 1, row 1 ('b')"));
    CHECK_THAT(out.warnings[0], Contains("softmax"));
    CHECK(out.values == scores);
    ImportOptions o;
    o.apply_softmax = true;
    REQUIRE(load(npy(scores, {2, 2, 3, 3}), "npy", out, kABC, o).ok());
    CHECK(out.warnings.empty());
    for (std::size_t r = 0; r < 12; ++r) {
        double sum = 0, ref = 0;
        for (std::size_t j = 0; j < 3; ++j) ref += std::exp(static_cast<double>(scores[r * 3 + j]));
        for (std::size_t j = 0; j < 3; ++j) {
            sum += out.values[r * 3 + j];
            CHECK(out.values[r * 3 + j] == Approx(std::exp(static_cast<double>(scores[r * 3 + j])) / ref).epsilon(1e-6));
        }
        CHECK(sum == Approx(1.0).epsilon(1e-6));
    }
    // no tokens: positions stand in, with a warning
    REQUIRE(load(npy(v, {2, 2, 3, 3}), "npy", out).ok());
    CHECK(out.tokens == std::vector<std::string>{"0", "1", "2"});
    CHECK_THAT(out.warnings.at(0), Contains("positions"));
}

TEST_CASE("npz: numpy.savez layout, plain and zip64, with tokens; unknown zip methods refused", "[imported]") {
    const auto v = random_stack(2, 2, 3, 3, 16);
    for (bool z64 : {false, true}) {
        ImportedAttention out;
        const Bytes b = zip({{"attentions.npy", npy(v, {2, 2, 3, 3})}, {"tokens.npy", npy_strings({"[CLS]", "hi", "."})}}, z64);
        const Status st = load(b, "npz", out);
        INFO(st.message());
        REQUIRE(st.ok());
        CHECK(out.values == v);
        CHECK(out.tokens == std::vector<std::string>{"[CLS]", "hi", "."});
    }
    ImportedAttention out;
    // Method 8 on bytes that are not a DEFLATE stream; another method (12, bzip2) is refused by name.
    CHECK_THAT(load(zip({{"attentions.npy", npy(v, {2, 2, 3, 3})}}, false, 8), "npz", out, kABC).message(), Contains("deflate"));
    CHECK_THAT(load(zip({{"attentions.npy", npy(v, {2, 2, 3, 3})}}, false, 12), "npz", out, kABC).message(),
               Contains("compression method 12"));
    CHECK_THAT(load(zip({{"a.npy", npy(v, {2, 2, 3, 3})}, {"b.npy", npy(v, {2, 2, 3, 3})}}), "npz", out, kABC).message(),
               Contains("no member named 'attentions'"));
    REQUIRE(load(zip({{"arr_0.npy", npy(v, {2, 2, 3, 3})}}), "npz", out, kABC).ok());  // the only member
}

TEST_CASE("inflate: stored, fixed and dynamic blocks; CRC-32; truncation and wrong sizes refused", "[imported]") {
    const std::string check = "123456789";
    CHECK(attnscope::crc32(reinterpret_cast<const std::uint8_t*>(check.data()), check.size()) == 0xcbf43926u);
    Bytes big(150000);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    const std::vector<std::pair<Bytes, Bytes>> cases = {
        {deflate_stored(big), big},                   // three stored blocks
        {deflate_stored(Bytes{}), Bytes{}},
        {deflate_fixed(big), big},
        {kDynamic, kDynamicText()},
    };
    for (const auto& [packed, plain] : cases) {
        std::vector<std::uint8_t> out;
        const Status st = attnscope::inflate_raw(packed.data(), packed.size(), plain.size(), out);
        INFO(st.message());
        REQUIRE(st.ok());
        CHECK(out == plain);
        // Every cut is refused (stepping through long streams), and so is a wrong stated size.
        const std::size_t step = packed.size() > 4000 ? 37 : 1;
        for (std::size_t n = 0; n < packed.size(); n += step) {
            INFO("cut at " << n);
            CHECK_FALSE(attnscope::inflate_raw(packed.data(), n, plain.size(), out).ok());
        }
        CHECK_FALSE(attnscope::inflate_raw(packed.data(), packed.size(), plain.size() + 1, out).ok());
        if (!plain.empty()) CHECK_FALSE(attnscope::inflate_raw(packed.data(), packed.size(), plain.size() - 1, out).ok());
    }
    // Random damage: refused or decoded, never a crash or a read out of bounds (ASan build).
    std::mt19937 rng(7);
    for (int k = 0; k < 3000; ++k) {
        Bytes d = k % 2 ? kDynamic : deflate_fixed(kDynamicText());
        d[rng() % d.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
        std::vector<std::uint8_t> out;
        (void)attnscope::inflate_raw(d.data(), d.size(), kDynamicText().size(), out);
    }
}

TEST_CASE("npz: numpy.savez_compressed layout (deflated members) loads; a bad CRC or damage is refused", "[imported]") {
    const auto v = random_stack(2, 2, 3, 3, 19);
    for (auto deflate : {deflate_stored, deflate_fixed}) {
        ImportedAttention out;
        const Bytes b = zip_deflated({{"attentions.npy", npy(v, {2, 2, 3, 3})}, {"tokens.npy", npy_strings({"[CLS]", "hi", "."})}}, deflate);
        const Status st = load(b, "npz", out);
        INFO(st.message());
        REQUIRE(st.ok());
        CHECK(out.values == v);
        CHECK(out.tokens == std::vector<std::string>{"[CLS]", "hi", "."});
        // Every truncation refused; a flipped bit in the data refused (by the decoder or the CRC).
        for (std::size_t n = 0; n < b.size(); ++n) CHECK_FALSE(load(Bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n)), "npz", out).ok());
        Bytes bad = b;
        bad[60] ^= 0x10;
        CHECK_FALSE(load(bad, "npz", out).ok());
    }
    ImportedAttention out;
    Bytes b = zip_deflated({{"attentions.npy", npy(v, {2, 2, 3, 3})}}, deflate_fixed);
    b[b.size() - 22 - 46 - 14 + 16] ^= 1;   // the central directory's CRC of the only member
    CHECK_THAT(load(b, "npz", out, kABC).message(), Contains("CRC-32"));
}

TEST_CASE("safetensors: F32, F16 and BF16 with metadata tokens; missing tensor and bad dtype refused", "[imported]") {
    const auto v = random_stack(1, 2, 3, 3, 17);
    for (const char* dtype : {"F32", "F16", "BF16"}) {
        ImportedAttention out;
        const Status st = load(safetensors(v, {1, 2, 3, 3}, dtype), "safetensors", out);
        INFO(dtype << ": " << st.message());
        REQUIRE(st.ok());
        CHECK(out.tokens == kABC);
        const double tol = std::string(dtype) == "F32" ? 0 : std::string(dtype) == "F16" ? 1e-3 : 8e-3;
        for (std::size_t i = 0; i < v.size(); ++i) CHECK(std::fabs(out.values[i] - v[i]) <= tol * v[i] + 6e-8);
    }
    ImportedAttention out;
    Bytes b = safetensors(v, {1, 2, 3, 3});
    const std::string name = "attentions";
    auto it = std::search(b.begin(), b.end(), name.begin(), name.end());
    *it = 'X';
    CHECK_THAT(load(b, "safetensors", out).message(), Contains("no tensor named 'attentions' (found 'Xttentions')"));
    CHECK_THAT(load(safetensors(v, {1, 2, 3, 3}, "F32", R"({"tokens":"[1,2,3]"})"), "safetensors", out).message(),
               Contains("__metadata__.tokens"));
    FloatArray a;
    std::vector<std::string> t, kt;
    Bytes i64 = safetensors(v, {1, 2, 3, 3});
    const std::string f32 = "\"F32\"";
    auto d = std::search(i64.begin(), i64.end(), f32.begin(), f32.end());
    std::memcpy(&*d, "\"I32\"", 5);
    CHECK_THAT(parse_safetensors(i64.data(), i64.size(), a, t, kt).message(), Contains("not supported"));
}

TEST_CASE("every truncation of a valid file is refused; random damage never crashes", "[imported]") {
    const auto v = random_stack(2, 2, 3, 3, 18);
    const std::vector<std::pair<std::string, Bytes>> files = {
        {"npy", npy(v, {2, 2, 3, 3})},
        {"npy", npy(v, {2, 2, 3, 3}, 2, "<f2")},
        {"npz", zip({{"attentions.npy", npy(v, {2, 2, 3, 3})}, {"tokens.npy", npy_strings(kABC)}})},
        {"npz", zip({{"attentions.npy", npy(v, {2, 2, 3, 3})}, {"tokens.npy", npy_strings(kABC)}}, true)},
        {"safetensors", safetensors(v, {2, 2, 3, 3})},
    };
    for (const auto& [format, file] : files) {
        ImportedAttention out;
        REQUIRE(load(file, format, out, kABC).ok());
        for (std::size_t n = 0; n < file.size(); ++n) {
            // a copy of exactly n bytes, so AddressSanitizer sees any read past the end
            const Bytes cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
            const Status st = load(cut, format, out, kABC);
            INFO(format << " cut to " << n << " of " << file.size() << " bytes");
            CHECK_FALSE(st.ok());
        }
        Rng rng(19);
        for (int trial = 0; trial < 2000; ++trial) {
            Bytes damaged = file;
            for (int k = 0; k < 3; ++k) damaged[rng.below(damaged.size())] = static_cast<std::uint8_t>(rng.next());
            (void)load(damaged, format, out, kABC);  // ok or an error: either way no crash, no over-read
        }
    }
}

TEST_CASE("the documented size limit: 12 layers x 12 heads x 512 tokens loads", "[imported]") {
    FloatArray a;
    a.shape = {12, 12, 512, 512};
    a.values.assign(12 * 12 * 512 * 512, 1.0f / 512);
    std::vector<std::string> tokens(512, "t");
    ImportedAttention out;
    const Status st = validate_attention(std::move(a), tokens, {}, {}, out);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(out.warnings.empty());
    FloatArray big;
    big.shape = {64, 64, 1024, 1024};
    CHECK_THAT(validate_attention(std::move(big), {}, {}, {}, out).message(), Contains("over the limit"));
    std::vector<std::string> strings;
    REQUIRE(parse_string_array(R"(["a", "\u00e9\ud83d\ude00", "\"q\""])", strings).ok());
    CHECK(strings == std::vector<std::string>{"a", "\xc3\xa9\xf0\x9f\x98\x80", "\"q\""});
    CHECK_FALSE(parse_string_array(R"(["a", 1])", strings).ok());
    CHECK_FALSE(parse_string_array(R"(["\ud83d"])", strings).ok());
}

namespace {

// A .npy with a header written by hand (any dict text) and the given data bytes.
Bytes npy_raw(std::string h, const Bytes& data) {
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    put16(b, static_cast<std::uint32_t>(h.size()));
    b.insert(b.end(), h.begin(), h.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

}  // namespace

// Sizes declared by a file are 64-bit numbers whatever the width of size_t: in 32-bit wasm a product
// taken in size_t wraps (4096 x 262145 x 4 is 16,384 there) and a size check on it passes. These files
// read outside the buffer in the wasm build before the readers computed sizes in checked 64-bit
// arithmetic; natively they must be refused the same way.
TEST_CASE("declared sizes that wrap 32 or 64 bits are refused, never read past the data", "[imported][sizes]") {
    const auto v = random_stack(1, 1, 2, 2, 31);
    Bytes att;
    for (float f : v) put32(att, fbits(f));
    const Bytes attentions = npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", att);
    ImportedAttention out;

    SECTION("tokens.npy: tokens x width x 4 wraps to 16,384 in 32 bits") {
        Bytes chars(16384, 0);
        for (std::size_t i = 0; i < chars.size(); i += 4) chars[i] = 'a';
        const Bytes tokens = npy_raw("{'descr': '<U262145', 'fortran_order': False, 'shape': (4096,), }", chars);
        const Status st = load(zip({{"attentions.npy", attentions}, {"tokens.npy", tokens}}), "npz", out);
        REQUIRE_FALSE(st.ok());
        CHECK_THAT(st.message(), Contains("tokens: 4096 tokens of 262145 characters need 4294983680 bytes of data, the file has 16384"));
    }
    SECTION("tokens.npy: a width past 2^64") {
        const Bytes tokens = npy_raw("{'descr': '<U99999999999999999999999', 'fortran_order': False, 'shape': (2,), }", Bytes(16, 0));
        const Status st = load(zip({{"attentions.npy", attentions}, {"tokens.npy", tokens}}), "npz", out);
        CHECK_THAT(st.message(), Contains("corrupt dtype"));
    }
    SECTION("tokens.npy: more tokens than the limit, declared past 32 bits") {
        const Bytes tokens = npy_raw("{'descr': '<U1', 'fortran_order': False, 'shape': (4294967298,), }", Bytes(8, 0));
        const Status st = load(zip({{"attentions.npy", attentions}, {"tokens.npy", tokens}}), "npz", out);
        CHECK_THAT(st.message(), Contains("4294967298 tokens, over the limit of 4096"));
    }
    SECTION(".npy shape (2^32 + 2, 2^32 + 2) with 16 bytes: over the limit, not [2, 2]") {
        const Status st = load(npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967298, 4294967298), }", att), "npy", out, {"a", "b"});
        REQUIRE_FALSE(st.ok());
        CHECK_THAT(st.message(), Contains("shape [4294967298, 4294967298] is over the limit"));
    }
    SECTION(".npy shape with an 11-digit dimension is reported as declared") {
        const Status st = load(npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", att), "npy", out);
        CHECK_THAT(st.message(), Contains("[99999999999, 99999999999] is over the limit"));
    }
    SECTION(".npy shape whose product wraps 64 bits") {
        // 2^32 x 2^32 = 2^64 wraps to 0: each dimension alone is checked too
        const Status st = load(npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }", Bytes{}), "npy", out);
        CHECK_THAT(st.message(), Contains("is over the limit"));
    }
    SECTION(".npy shape with a dimension past 2^64") {
        const Status st = load(npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (184467440737095516160, 1), }", att), "npy", out);
        CHECK_THAT(st.message(), Contains("larger than 2^64"));
    }
    SECTION("safetensors: a shape past 2^32 is over the limit, not a corrupt shape") {
        std::string h = R"({"attentions":{"dtype":"F32","shape":[4294967298,4294967298],"data_offsets":[0,16]}})";
        while (h.size() % 8) h += ' ';
        Bytes b;
        put64(b, h.size());
        b.insert(b.end(), h.begin(), h.end());
        b.insert(b.end(), att.begin(), att.end());
        CHECK_THAT(load(b, "safetensors", out).message(), Contains("[4294967298, 4294967298] is over the limit"));
    }
    SECTION("safetensors: a header over 100 MiB says so") {
        Bytes b;
        put64(b, std::uint64_t{200} << 20);
        b.resize(64, ' ');
        CHECK_THAT(load(b, "safetensors", out).message(), Contains("over the limit of 104857600 bytes"));
    }
    SECTION("safetensors: a header of 300,000 zeros is refused before it builds a tree") {
        std::string h = "[0";
        for (int i = 1; i < 300000; ++i) h += ",0";
        h += "]";
        Bytes b;
        put64(b, h.size());
        b.insert(b.end(), h.begin(), h.end());
        CHECK_THAT(load(b, "safetensors", out).message(), Contains("more than 262144 values"));
    }
}
