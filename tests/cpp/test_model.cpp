// The trained model (attnscope/model.hpp): the weights-file reader against damaged files (a tiny
// model written here, truncated at every length and damaged byte by byte with its CRC recomputed, so
// the checks after the CRC are reached too), and the forward pass of the real file (build/model,
// made by scripts/build-model.mjs): surgery that changes nothing, knock-outs, truncation, variants.
// Its numbers against the original TF.js graph are tested in tests/js/model-oracle.test.mjs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/inflate.hpp"
#include "attnscope/model.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;

namespace {

// ---- a writer of the format (docs/model.md), for small synthetic models -------------------------
struct TensorSpec {
    std::string name;
    std::uint8_t dtype;  // 1 f16, 2 f32, 3 u32, 4 u8
    std::vector<std::uint32_t> shape;
    std::vector<std::uint8_t> bytes;
};

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
    put32(b, at, static_cast<std::uint32_t>(v));
    put32(b, at + 4, static_cast<std::uint32_t>(v >> 32));
}

std::vector<std::uint8_t> serialize(const std::vector<TensorSpec>& ts) {
    std::size_t dir = 4;
    for (const auto& t : ts) dir += 1 + t.name.size() + 2 + 4 * t.shape.size() + 16;
    std::size_t off = (dir + 7) / 8 * 8;
    std::vector<std::size_t> at;
    for (const auto& t : ts) {
        at.push_back(off);
        off = (off + t.bytes.size() + 7) / 8 * 8;
    }
    std::vector<std::uint8_t> body(off, 0);
    std::size_t p = 0;
    put32(body, p, static_cast<std::uint32_t>(ts.size()));
    p += 4;
    for (std::size_t i = 0; i < ts.size(); ++i) {
        const auto& t = ts[i];
        body[p++] = static_cast<std::uint8_t>(t.name.size());
        std::memcpy(body.data() + p, t.name.data(), t.name.size());
        p += t.name.size();
        body[p++] = t.dtype;
        body[p++] = static_cast<std::uint8_t>(t.shape.size());
        for (auto s : t.shape) { put32(body, p, s); p += 4; }
        put64(body, p, at[i]);
        put64(body, p + 8, t.bytes.size());
        p += 16;
        std::memcpy(body.data() + at[i], t.bytes.data(), t.bytes.size());
    }
    std::vector<std::uint8_t> file(32, 0);
    std::memcpy(file.data(), "ATSMODEL", 8);
    put32(file, 8, 1);
    put64(file, 16, body.size());
    put32(file, 24, crc32(body.data(), body.size()));
    put32(file, 28, static_cast<std::uint32_t>(dir));
    file.insert(file.end(), body.begin(), body.end());
    return file;
}

// Recomputes the CRC after a deliberate change, so the reader's later checks are what refuses it.
void fix_crc(std::vector<std::uint8_t>& f) { put32(f, 24, crc32(f.data() + 32, f.size() - 32)); }

TensorSpec f32(const std::string& name, std::vector<std::uint32_t> shape, Rng& rng, float scale = 0.5f) {
    std::size_t n = 1;
    for (auto s : shape) n *= s;
    TensorSpec t{name, 2, shape, std::vector<std::uint8_t>(4 * n)};
    for (std::size_t i = 0; i < n; ++i) {
        const float v = rng.uniform(-scale, scale);
        std::memcpy(t.bytes.data() + 4 * i, &v, 4);
    }
    return t;
}
TensorSpec f16(const std::string& name, std::vector<std::uint32_t> shape, Rng& rng) {
    std::size_t n = 1;
    for (auto s : shape) n *= s;
    TensorSpec t{name, 1, shape, std::vector<std::uint8_t>(2 * n)};
    for (std::size_t i = 0; i < n; ++i) {
        // Halves of magnitude below 1 (exponent 8..14), random sign and mantissa.
        const std::uint16_t h = static_cast<std::uint16_t>((rng.uniform01() < 0.5 ? 0x8000u : 0u) |
                                                           (static_cast<std::uint32_t>(8 + rng.uniform01() * 7) << 10) |
                                                           static_cast<std::uint32_t>(rng.uniform01() * 1024));
        t.bytes[2 * i] = static_cast<std::uint8_t>(h);
        t.bytes[2 * i + 1] = static_cast<std::uint8_t>(h >> 8);
    }
    return t;
}
TensorSpec scalar(const std::string& name, float v) {
    TensorSpec t{name, 2, {1}, std::vector<std::uint8_t>(4)};
    std::memcpy(t.bytes.data(), &v, 4);
    return t;
}
TensorSpec u32s(const std::string& name, const std::vector<std::uint32_t>& v) {
    TensorSpec t{name, 3, {static_cast<std::uint32_t>(v.size())}, std::vector<std::uint8_t>(4 * v.size())};
    for (std::size_t i = 0; i < v.size(); ++i) put32(t.bytes, 4 * i, v[i]);
    return t;
}
TensorSpec u8s(const std::string& name, const std::vector<std::uint8_t>& v) {
    return TensorSpec{name, 4, {static_cast<std::uint32_t>(v.size())}, v};
}

// A model of USE-Lite's shape; by default tiny and two layers: 12 ids, embedding 8, output 12, ffn 10,
// 2 heads, at most 6 tokens, layer widths 8 and 12; a 12-piece vocabulary.
struct TinyShape {
    std::uint32_t V = 12, E = 8, O = 12, F = 10, H = 2, T = 6;
    std::vector<std::uint32_t> widths{8, 12};
};
std::vector<TensorSpec> tiny_model(const TinyShape& shape = {}) {
    Rng rng(5);
    const std::uint32_t V = shape.V, E = shape.E, O = shape.O, F = shape.F, H = shape.H, T = shape.T, P = V;
    std::vector<TensorSpec> ts;
    std::vector<std::uint32_t> config{static_cast<std::uint32_t>(shape.widths.size()), V, E, O, F, H, T, P};
    config.insert(config.end(), shape.widths.begin(), shape.widths.end());
    ts.push_back(u32s("config", config));
    ts.push_back(f16("embedding", {V, E}, rng));
    std::vector<float> inv(E / 2);
    TensorSpec timing{"timing.inv", 2, {E / 2}, std::vector<std::uint8_t>(4 * (E / 2))};
    for (std::uint32_t i = 0; i < E / 2; ++i) {
        const float v = static_cast<float>(std::pow(1e4, -static_cast<double>(i) / std::max(1u, E / 2 - 1)));
        std::memcpy(timing.bytes.data() + 4 * i, &v, 4);
    }
    ts.push_back(timing);
    std::uint32_t din = E;
    for (std::uint32_t l = 0; l < shape.widths.size(); ++l) {
        const std::uint32_t d = shape.widths[l];
        const std::string p = "l" + std::to_string(l) + ".";
        ts.push_back(f32(p + "ln1.g", {din}, rng));
        ts.push_back(f32(p + "ln1.b", {din}, rng));
        ts.push_back(f16(p + "qkv.w", {din, 3 * d}, rng));
        ts.push_back(f32(p + "qkv.b", {3 * d}, rng));
        ts.push_back(scalar(p + "q_scale", 1.0f / std::sqrt(static_cast<float>(d / H))));
        ts.push_back(f16(p + "out.w", {d, O}, rng));
        ts.push_back(f32(p + "out.b", {O}, rng));
        if (din != O) {
            ts.push_back(f16(p + "res.w", {din, O}, rng));
            ts.push_back(f32(p + "res.b", {O}, rng));
        }
        ts.push_back(f32(p + "ln2.g", {O}, rng));
        ts.push_back(f32(p + "ln2.b", {O}, rng));
        ts.push_back(f16(p + "ffn1.w", {O, F}, rng));
        ts.push_back(f32(p + "ffn1.b", {F}, rng));
        ts.push_back(f16(p + "ffn2.w", {F, O}, rng));
        ts.push_back(f32(p + "ffn2.b", {O}, rng));
        din = O;
    }
    ts.push_back(f16("pool.w", {O, O}, rng));
    ts.push_back(f32("pool.b", {O}, rng));
    ts.push_back(scalar("ln.eps", 1e-6f));
    ts.push_back(scalar("l2.eps", 1e-12f));
    std::vector<std::uint32_t> offsets{0};
    std::vector<std::uint8_t> bytes;
    for (std::uint32_t i = 0; i < P; ++i) {
        const std::string piece = i == 0 ? "<unk>" : "\xe2\x96\x81p" + std::to_string(i);  // "▁p1", ...
        bytes.insert(bytes.end(), piece.begin(), piece.end());
        offsets.push_back(static_cast<std::uint32_t>(bytes.size()));
    }
    ts.push_back(u32s("vocab.offsets", offsets));
    ts.push_back(u8s("vocab.bytes", bytes));
    TensorSpec scores{"vocab.scores", 5, {P}, std::vector<std::uint8_t>(8 * P)};
    for (std::uint32_t i = 0; i < P; ++i) {
        const double v = -static_cast<double>(i) * 0.1;
        std::memcpy(scores.bytes.data() + 8 * i, &v, 8);
    }
    ts.push_back(scores);
    std::vector<std::uint8_t> nulls(P, 0);
    nulls[3] = 1;
    ts.push_back(u8s("vocab.null", nulls));
    return ts;
}

std::vector<std::uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
    return m;
}

void check_result_shape(const ModelResult& r, std::size_t layers, std::size_t heads, std::size_t n, std::size_t dim) {
    REQUIRE(r.n == n);
    REQUIRE(r.attentions.size() == layers * heads * n * n);
    REQUIRE(r.embedding.size() == dim);
    for (std::size_t row = 0; row < layers * heads * n; ++row) {
        double s = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            const float a = r.attentions[row * n + j];
            CHECK(a >= 0.0f);
            s += a;
        }
        CHECK(std::fabs(s - 1.0) < 1e-5);
    }
    double norm = 0.0;
    for (float v : r.embedding) norm += static_cast<double>(v) * v;
    CHECK(std::fabs(std::sqrt(norm) - 1.0) < 1e-5);
}

}  // namespace

TEST_CASE("model file: a tiny model loads and runs", "[model]") {
    const auto file = serialize(tiny_model());
    Model m;
    const Status st = Model::from_bytes(file.data(), file.size(), m);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(m.layers() == 2);
    CHECK(m.heads() == 2);
    CHECK(m.max_tokens() == 6);
    CHECK(m.pieces() == 12);
    CHECK(m.piece(2) == "\xe2\x96\x81p2");
    CHECK(m.piece_score_is_null(3));
    CHECK(m.piece_score(2) == -0.2);
    CHECK_FALSE(m.piece_score_is_null(2));
    const std::vector<std::int32_t> ids{1, 5, 0, 11};
    ModelResult r;
    REQUIRE(m.encode(ids.data(), ids.size(), {}, r).ok());
    check_result_shape(r, 2, 2, 4, 12);
    CHECK_FALSE(r.truncated);
    // A temperature per head: τ = 1 everywhere is the model as trained; τ = 0.25 on head 0.1 makes its
    // rows softmax(S / τ) = softmax(log A / τ) of its rows at τ = 1 (layer 0's input does not change).
    {
        ModelSurgery ones;
        ones.temperatures.assign(4, 1.0f);
        ModelResult same;
        REQUIRE(m.encode(ids.data(), ids.size(), ones, same).ok());
        CHECK(same.attentions == r.attentions);
        CHECK(same.embedding == r.embedding);
        ModelSurgery sharp;
        sharp.temperatures.assign(4, 1.0f);
        sharp.temperatures[1] = 0.25f;
        ModelResult t;
        REQUIRE(m.encode(ids.data(), ids.size(), sharp, t).ok());
        const std::size_t n = 4;
        for (std::size_t i = 0; i < n; ++i) {
            const float* a = r.attentions.data() + (1 * n + i) * n;
            const float* b = t.attentions.data() + (1 * n + i) * n;
            double z = 0;
            for (std::size_t j = 0; j < n; ++j) z += std::pow(static_cast<double>(a[j]), 4.0);
            for (std::size_t j = 0; j < n; ++j) CHECK(b[j] == Approx(std::pow(static_cast<double>(a[j]), 4.0) / z).margin(1e-5));
        }
        // Head 0.0 of the same layer is untouched.
        for (std::size_t k = 0; k < n * n; ++k) CHECK(t.attentions[k] == r.attentions[k]);
    }
    // Over max_tokens: cut, flagged, and the same as the first max_tokens ids.
    const std::vector<std::int32_t> longer{1, 2, 3, 4, 5, 6, 7, 8, 9};
    ModelResult cut, first;
    REQUIRE(m.encode(longer.data(), longer.size(), {}, cut).ok());
    REQUIRE(m.encode(longer.data(), 6, {}, first).ok());
    CHECK(cut.truncated);
    CHECK_FALSE(first.truncated);
    CHECK(cut.n == 6);
    CHECK(cut.attentions == first.attentions);
    CHECK(cut.embedding == first.embedding);
    // Bad ids and surgery lists: errors naming the argument, nothing computed.
    const std::vector<std::int32_t> bad{1, 12};
    Status e = m.encode(bad.data(), bad.size(), {}, r);
    CHECK(e.message().find("ids: id 12 at position 1") == 0);
    const std::vector<std::int32_t> negative{-1};
    CHECK_FALSE(m.encode(negative.data(), 1, {}, r).ok());
    CHECK(m.encode(ids.data(), 0, {}, r).message().find("ids:") == 0);
    ModelSurgery wrong;
    wrong.scores.assign(3, Score::cosine);
    CHECK(m.encode(ids.data(), ids.size(), wrong, r).message().find("score:") == 0);
    wrong = {};
    wrong.ablate.assign(5, 1);
    CHECK(m.encode(ids.data(), ids.size(), wrong, r).message().find("ablate:") == 0);
    wrong = {};
    wrong.temperatures.assign(2, 1.0f);
    CHECK(m.encode(ids.data(), ids.size(), wrong, r).message().find("temperature:") == 0);
    for (const float bad_tau : {0.0f, -1.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1e-40f}) {
        wrong.temperatures.assign(m.layers() * m.heads(), 1.0f);
        wrong.temperatures[1] = bad_tau;
        CHECK(m.encode(ids.data(), ids.size(), wrong, r).message().find("temperature: head 0.1") == 0);
    }
    Model none;
    CHECK_FALSE(none.encode(ids.data(), ids.size(), {}, r).ok());
}

TEST_CASE("model file: a call whose buffers a small file declares huge is refused before it allocates", "[model]") {
    // 16 layers x 4 heads x head width 1 and at most 8192 tokens: the attentions of 8192 ids are
    // 16 * 4 * 8192^2 = 2^32 floats, 0 in a 32-bit size_t (wasm). Refused with the argument named; the
    // model still runs on fewer ids afterwards.
    TinyShape shape;
    shape.V = 8; shape.E = 4; shape.O = 4; shape.F = 4; shape.H = 4; shape.T = 8192;
    shape.widths.assign(16, 4);
    const auto file = serialize(tiny_model(shape));
    Model m;
    REQUIRE(Model::from_bytes(file.data(), file.size(), m).ok());
    REQUIRE(m.max_tokens() == 8192);
    const std::vector<std::int32_t> ids(8192, 1);
    ModelResult r;
    const Status st = m.encode(ids.data(), ids.size(), {}, r);
    INFO(st.message());
    CHECK(st.message().rfind("ids: memory: encoding 8192 tokens with 16 layers of 4 heads needs", 0) == 0);
    CHECK(r.attentions.empty());
    REQUIRE(m.encode(ids.data(), 8, {}, r).ok());
    check_result_shape(r, 16, 4, 8, 4);
    // Work alone over the budget: one head 2048 wide, 4096 ids (4096^2 * 2048 multiply-adds for q·k).
    TinyShape wide;
    wide.V = 8; wide.E = 2; wide.O = 2; wide.F = 2; wide.H = 1; wide.T = 4096;
    wide.widths = {2048};
    const auto wide_file = serialize(tiny_model(wide));
    Model w;
    REQUIRE(Model::from_bytes(wide_file.data(), wide_file.size(), w).ok());
    const std::vector<std::int32_t> many(4096, 1);
    CHECK(w.encode(many.data(), many.size(), {}, r).message().rfind("ids: work: encoding 4096 tokens", 0) == 0);
    REQUIRE(w.encode(many.data(), 3, {}, r).ok());
}

TEST_CASE("model file: non-finite values, a timing signal past float's range and inconsistent vocabularies are refused at load", "[model]") {
    const auto patched = [](const std::string& name, std::size_t element, std::uint32_t bits_or_half, bool half) {
        auto ts = tiny_model();
        for (auto& t : ts) {
            if (t.name != name) continue;
            if (half) {
                t.bytes[2 * element] = static_cast<std::uint8_t>(bits_or_half);
                t.bytes[2 * element + 1] = static_cast<std::uint8_t>(bits_or_half >> 8);
            } else {
                put32(t.bytes, 4 * element, bits_or_half);
            }
        }
        return serialize(ts);
    };
    const auto refused = [](const std::vector<std::uint8_t>& file) {
        Model m;
        const Status st = Model::from_bytes(file.data(), file.size(), m);
        CHECK(m.empty());
        return st.message();
    };
    // A NaN (0x7e00) in an f16 matrix, an infinity in an f32 vector.
    CHECK_THAT(refused(patched("l0.qkv.w", 7, 0x7e00, true)), Contains("tensor 'l0.qkv.w' holds NaN at element 7"));
    CHECK_THAT(refused(patched("l1.ffn1.b", 2, 0x7f800000u, false)), Contains("tensor 'l1.ffn1.b' holds an infinity at element 2"));
    // A finite 3e38 in the timing vector: position x 3e38 is infinite, sin(inf) NaN.
    float big = 3e38f;
    std::uint32_t big_bits;
    std::memcpy(&big_bits, &big, 4);
    CHECK_THAT(refused(patched("timing.inv", 1, big_bits, false)), Contains("'timing.inv' element 1") && Contains("(0, 1]"));
    // More pieces than embedding rows, and fewer than the 6 control pieces.
    for (const std::uint32_t pieces : {13u, 5u}) {
        auto ts = tiny_model();
        auto& config = ts[0];
        REQUIRE(config.name == "config");
        put32(config.bytes, 4 * 7, pieces);
        const std::string m = refused(serialize(ts));
        CHECK_THAT(m, Contains("the vocabulary has " + std::to_string(pieces) + " pieces and the embedding 12 rows"));
    }
}

TEST_CASE("model file: finite weights that overflow float on the way give an error, not non-finite numbers", "[model]") {
    auto ts = tiny_model();
    for (auto& t : ts) {
        if (t.name != "l0.qkv.b") continue;  // q, k and v biases of 3e38: q·k overflows
        const float v = 3e38f;
        for (std::size_t i = 0; i + 4 <= t.bytes.size(); i += 4) std::memcpy(t.bytes.data() + i, &v, 4);
    }
    const auto file = serialize(ts);
    Model m;
    REQUIRE(Model::from_bytes(file.data(), file.size(), m).ok());
    const std::vector<std::int32_t> ids{1, 5, 0, 11};
    ModelResult r;
    CHECK_THAT(m.encode(ids.data(), ids.size(), {}, r).message(), Contains("overflow float32"));
    CHECK(r.attentions.empty());
}

TEST_CASE("model file: every truncation is refused; damage never reads outside the file", "[model]") {
    const auto file = serialize(tiny_model());
    Model m;
    for (std::size_t len = 0; len < file.size(); ++len) {
        INFO("length " << len);
        const std::vector<std::uint8_t> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(len));
        const Status st = Model::from_bytes(cut.empty() ? nullptr : cut.data(), cut.size(), m);
        CHECK_FALSE(st.ok());
        CHECK(m.empty());
    }
    // A flipped bit anywhere: refused by the CRC. The same flip with the CRC recomputed reaches the
    // later checks: each byte of the header and directory, and bytes of the data, one at a time. The
    // reader either refuses it or loads a model that runs (a flipped weight is still a model); under
    // ASan nothing is read outside the buffer either way.
    std::vector<std::uint8_t> copy = file;
    copy[100] ^= 0x10;
    CHECK(Model::from_bytes(copy.data(), copy.size(), m).message().find("CRC") != std::string::npos);
    const std::uint32_t dir = static_cast<std::uint32_t>(file[28] | (file[29] << 8) | (file[30] << 16) | (file[31] << 24));
    const std::vector<std::int32_t> ids{1, 2, 3};
    ModelResult r;
    std::size_t refused = 0;
    for (std::size_t at = 0; at < file.size(); at += at < 32 + dir ? 1 : 13) {
        for (unsigned flip : {0x01u, 0x80u, 0xffu}) {
            copy = file;
            copy[at] = static_cast<std::uint8_t>(copy[at] ^ flip);
            if (at >= 32) fix_crc(copy);
            const Status st = Model::from_bytes(copy.data(), copy.size(), m);
            if (!st.ok()) {
                ++refused;
                CHECK(m.empty());
                CHECK(st.message().find("model file:") == 0);
            } else {
                // A flipped exponent can make a weight huge but finite: the model then either runs with
                // finite results or says that its weights overflow on these ids.
                const Status e = m.encode(ids.data(), ids.size(), {}, r);
                INFO(e.message());
                CHECK((e.ok() || e.message().find("overflow float32") != std::string::npos));
                for (float a : r.attentions) CHECK(std::isfinite(a));
            }
        }
    }
    CHECK(refused > 100);
}

TEST_CASE("model file: wrong shapes and sizes are named", "[model]") {
    auto ts = tiny_model();
    Model m;
    auto with = [&](auto change) {
        auto copy = ts;
        change(copy);
        const auto f = serialize(copy);
        return Model::from_bytes(f.data(), f.size(), m).message();
    };
    CHECK(with([](auto& t) { t[1].shape = {12, 7}; t[1].bytes.resize(2 * 12 * 7); }) ==
          "model file: tensor 'embedding' is [12, 7], expected [12, 8]");
    CHECK(with([](auto& t) { t.erase(t.begin() + 2); }) == "model file: tensor 'timing.inv' is missing");
    CHECK(with([](auto& t) { t[0] = u32s("config", {2, 12, 8, 12, 10, 2, 6, 12, 8}); }).find("'config' has 9 entries") != std::string::npos);
    CHECK(with([](auto& t) { t[0] = u32s("config", {2, 12, 8, 12, 10, 3, 6, 12, 8, 12}); }).find("not a multiple of 3 heads") != std::string::npos);
    CHECK(with([](auto& t) {
              for (auto& x : t)
                  if (x.name == "l1.q_scale") x = scalar("l1.q_scale", 0.3f);
          }).find("scales q by") != std::string::npos);
    // Sizes in the header: the declared body size must be the file's.
    auto f = serialize(ts);
    put64(f, 16, (1ull << 63) + 5);
    CHECK(Model::from_bytes(f.data(), f.size(), m).message().find("truncated or damaged") != std::string::npos);
    f = serialize(ts);
    f.push_back(0);
    CHECK_FALSE(Model::from_bytes(f.data(), f.size(), m).ok());
    // A directory entry whose data would lie past the end, with an offset near 2^64 (no wrap-around).
    f = serialize(ts);
    const std::size_t entry0 = 32 + 4;  // "config": name length, name, dtype, rank, 1 dim, offset, size
    const std::size_t offset_at = entry0 + 1 + 6 + 2 + 4;
    put64(f, offset_at, ~0ull - 3);
    fix_crc(f);
    CHECK(Model::from_bytes(f.data(), f.size(), m).message().find("not inside the file's data area") != std::string::npos);
    f = serialize(ts);
    put32(f, entry0 + 1 + 6 + 2, 0x40000000u);  // the shape claims 2^30 entries: its size no longer matches
    fix_crc(f);
    CHECK(Model::from_bytes(f.data(), f.size(), m).message().find("does not match its size") != std::string::npos);
    f = serialize(ts);
    std::memcpy(f.data(), "ATSVOCAB", 8);
    CHECK(Model::from_bytes(f.data(), f.size(), m).message().find("ATSMODEL") != std::string::npos);
}

namespace {
const Model& shipped_model() {
    static Model m;
    static bool loaded = false;
    if (!loaded) {
        const auto bytes = read_file(std::string(ATTNSCOPE_MODEL_DIR) + "/use-lite.bin");
        const Status st = Model::from_bytes(bytes.data(), bytes.size(), m);
        INFO(st.message() << " (run scripts/build.sh: it writes build/model/use-lite.bin)");
        REQUIRE(st.ok());
        loaded = true;
    }
    return m;
}
// Token ids of "The quick brown fox jumps over the lazy dog." and more (any valid ids will do here).
const std::vector<std::int32_t> kIds{34, 1163, 3757, 25, 9, 688, 17, 6, 2002, 102, 649, 7, 30, 0, 4969};
}  // namespace

TEST_CASE("USE-Lite: the shipped file, and surgery that changes nothing", "[model]") {
    const Model& m = shipped_model();
    CHECK(m.layers() == 2);
    CHECK(m.heads() == 4);
    CHECK(m.head_dim(0) == 64);
    CHECK(m.head_dim(1) == 128);
    CHECK(m.max_tokens() == 128);
    CHECK(m.output_dim() == 512);
    CHECK(m.vocabulary_rows() == 8002);
    CHECK(m.pieces() == 8000);
    ModelResult base;
    REQUIRE(m.encode(kIds.data(), kIds.size(), {}, base).ok());
    check_result_shape(base, 2, 4, kIds.size(), 512);
    // Choosing scaled-dot for every head is the model itself: bit for bit.
    ModelSurgery same;
    same.scores.assign(8, Score::scaled_dot);
    same.ablate.assign(8, 0);
    ModelResult r;
    REQUIRE(m.encode(kIds.data(), kIds.size(), same, r).ok());
    CHECK(r.attentions == base.attentions);
    CHECK(r.embedding == base.embedding);
}

TEST_CASE("USE-Lite: re-scoring and knocking out heads recompute what follows", "[model]") {
    const Model& m = shipped_model();
    const std::size_t n = kIds.size(), block = n * n;
    ModelResult base;
    REQUIRE(m.encode(kIds.data(), n, {}, base).ok());
    for (const ScoreInfo& info : score_infos()) {
        if (info.id == Score::scaled_dot) continue;
        // Head 1.2 re-scored: layers 0's attentions and the other heads of layer 1 do not change (layer 1's
        // heads read the same input), head 1.2's does, and so does the embedding.
        ModelSurgery s;
        s.scores.assign(8, Score::scaled_dot);
        s.scores[4 + 2] = info.id;
        ModelResult r;
        INFO(info.name);
        REQUIRE(m.encode(kIds.data(), n, s, r).ok());
        check_result_shape(r, 2, 4, n, 512);
        for (std::size_t hd = 0; hd < 8; ++hd) {
            const std::vector<float> a(r.attentions.begin() + hd * block, r.attentions.begin() + (hd + 1) * block);
            const std::vector<float> b(base.attentions.begin() + hd * block, base.attentions.begin() + (hd + 1) * block);
            if (hd == 6) CHECK(max_abs_diff(a, b) > 1e-3);
            else CHECK(a == b);
        }
        CHECK(max_abs_diff(r.embedding, base.embedding) > 1e-6);
    }
    // Knocking out head 0.1 changes nothing in layer 0's attentions, every head of layer 1, and the embedding.
    ModelSurgery k;
    k.ablate.assign(8, 0);
    k.ablate[1] = 1;
    ModelResult r;
    REQUIRE(m.encode(kIds.data(), n, k, r).ok());
    check_result_shape(r, 2, 4, n, 512);
    CHECK(std::equal(r.attentions.begin(), r.attentions.begin() + 4 * block, base.attentions.begin()));
    for (std::size_t hd = 4; hd < 8; ++hd) {
        const std::vector<float> a(r.attentions.begin() + hd * block, r.attentions.begin() + (hd + 1) * block);
        const std::vector<float> b(base.attentions.begin() + hd * block, base.attentions.begin() + (hd + 1) * block);
        CHECK(max_abs_diff(a, b) > 1e-6);
    }
    CHECK(max_abs_diff(r.embedding, base.embedding) > 1e-6);
    // Knocking out a layer-1 head leaves every attention as it was and moves only the embedding.
    k.ablate.assign(8, 0);
    k.ablate[7] = 1;
    REQUIRE(m.encode(kIds.data(), n, k, r).ok());
    CHECK(r.attentions == base.attentions);
    CHECK(max_abs_diff(r.embedding, base.embedding) > 1e-6);
}

TEST_CASE("USE-Lite: every kernel variant gives the same model, and 128 tokens at most", "[model]") {
    const Model& m = shipped_model();
    std::vector<std::int32_t> ids;
    for (int i = 0; i < 150; ++i) ids.push_back(static_cast<std::int32_t>((i * 37 + 11) % 8002));
    ModelResult a, b;
    ModelSurgery scalar, simd;
    scalar.variant = Variant::scalar;
    simd.variant = Variant::automatic;
    REQUIRE(m.encode(ids.data(), ids.size(), scalar, a).ok());
    REQUIRE(m.encode(ids.data(), ids.size(), simd, b).ok());
    CHECK(a.n == 128);
    CHECK(a.truncated);
    check_result_shape(b, 2, 4, 128, 512);
    CHECK(max_abs_diff(a.attentions, b.attentions) < 1e-4);
    CHECK(max_abs_diff(a.embedding, b.embedding) < 1e-5);
}
