// attnscope::Vocabulary: the built GloVe files against the float originals (facts.txt, written by
// scripts/build-vocab.mjs from the float vectors), the out-of-vocabulary rule (exact float bits, so
// native and wasm must agree), and the loader's rejection of damaged files. The same file runs
// natively, under AddressSanitizer, and as wasm under node (NODERAWFS reads the real build/vocab).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/embeddings.hpp"
#include "attnscope/random.hpp"

using attnscope::Status;
using attnscope::Vocabulary;
using Catch::Matchers::Contains;

namespace {

const std::string kVocabDir = ATTNSCOPE_VOCAB_DIR;
const char* const kBuildHint = "run: node scripts/build-vocab.mjs --out build/vocab";

// --- the format, written independently of the loader (docs/vocab-format.md) ---------------------------
constexpr std::size_t kHeader = 96;
enum Field : std::size_t {  // byte offsets of the header fields
    kVersionAt = 8, kHeaderSizeAt = 12, kDimAt = 16, kCountAt = 20, kQuantAt = 24, kFlagsAt = 28,
    kWordsOffsetAt = 32, kWordsSizeAt = 40, kScalesOffsetAt = 48, kScalesSizeAt = 56,
    kVectorsOffsetAt = 64, kVectorsSizeAt = 72, kFileSizeAt = 80, kMedianAt = 88, kCrcAt = 92
};

// Bitwise CRC-32 (reflected 0xEDB88320): slow and obviously right, unlike the loader's table version.
std::uint32_t crc32_bitwise(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
    crc = ~crc;
    for (std::size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_f32(std::vector<std::uint8_t>& b, std::size_t at, float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    put_u32(b, at, bits);
}
std::uint32_t get_u32(const std::vector<std::uint8_t>& b, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
    return v;
}
std::uint64_t get_u64(const std::vector<std::uint8_t>& b, std::size_t at) {
    return get_u32(b, at) | (std::uint64_t{get_u32(b, at + 4)} << 32);
}
std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Recomputes the checksum after a deliberate edit, so that the check under test is the one that fires.
void fix_crc(std::vector<std::uint8_t>& b) {
    std::uint32_t crc = crc32_bitwise(b.data(), kCrcAt);
    crc = crc32_bitwise(b.data() + kHeader, b.size() - kHeader, crc);
    put_u32(b, kCrcAt, crc);
}

struct TinySpec {
    std::uint32_t dim = 4;
    std::vector<std::string> words{"the", "cat", "kitten", "na\xc3\xafve", "\xe6\x97\xa5\xe6\x9c\xac", "x"};
    std::vector<float> scales{0.5f, 0.25f, 0.125f, 1.0f, 0.0f, 0.03125f};
    std::vector<std::int8_t> codes{
        127, 0, 0, 0,         // the
        0, 127, -127, 0,      // cat
        0, 120, -120, 10,     // kitten: cosine to cat ~0.997
        -1, 2, -3, 4,         // naïve
        0, 0, 0, 0,           // 日本: the zero vector
        127, 127, 127, 127};  // x
    float median = 5.0f;
};

std::vector<std::uint8_t> encode(const TinySpec& s) {
    const std::size_t n = s.words.size();
    std::size_t words_size = 0;
    for (const auto& w : s.words) words_size += 1 + w.size();
    const std::size_t scales_at = (kHeader + words_size + 3) / 4 * 4;
    const std::size_t vectors_at = scales_at + 4 * n;
    const std::size_t file_size = vectors_at + n * s.dim;
    std::vector<std::uint8_t> b(file_size, 0);
    std::memcpy(b.data(), "ATSVOCAB", 8);
    put_u32(b, kVersionAt, 1);
    put_u32(b, kHeaderSizeAt, 96);
    put_u32(b, kDimAt, s.dim);
    put_u32(b, kCountAt, static_cast<std::uint32_t>(n));
    put_u32(b, kQuantAt, 1);
    put_u64(b, kWordsOffsetAt, kHeader);
    put_u64(b, kWordsSizeAt, words_size);
    put_u64(b, kScalesOffsetAt, scales_at);
    put_u64(b, kScalesSizeAt, 4 * n);
    put_u64(b, kVectorsOffsetAt, vectors_at);
    put_u64(b, kVectorsSizeAt, n * s.dim);
    put_u64(b, kFileSizeAt, file_size);
    put_f32(b, kMedianAt, s.median);
    std::size_t p = kHeader;
    for (const auto& w : s.words) {
        b[p++] = static_cast<std::uint8_t>(w.size());
        std::memcpy(b.data() + p, w.data(), w.size());
        p += w.size();
    }
    for (std::size_t i = 0; i < n; ++i) put_f32(b, scales_at + 4 * i, s.scales[i]);
    std::memcpy(b.data() + vectors_at, s.codes.data(), s.codes.size());
    fix_crc(b);
    return b;
}

// Loads from an exactly-sized heap copy, so that AddressSanitizer sees any read past the end.
Status load(const std::vector<std::uint8_t>& bytes, std::size_t n, Vocabulary& v) {
    std::vector<std::uint8_t> copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    return Vocabulary::from_bytes(copy.data(), copy.size(), v);
}
Status load(const std::vector<std::uint8_t>& bytes, Vocabulary& v) { return load(bytes, bytes.size(), v); }
std::string load_error(const std::vector<std::uint8_t>& bytes) {
    Vocabulary v;
    const Status s = load(bytes, v);
    return s.ok() ? std::string("(accepted)") : s.message();
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// --- the real vocabularies and their oracle facts ----------------------------------------------------
struct Facts {
    bool ok = false;
    double median_norm_float = 0;
    struct File { std::uint64_t bytes = 0; double median = 0, cos_min = 0, cos_mean = 0; };
    std::map<std::string, File> files;
    struct Pair { std::string a, b; double cosine; };
    std::vector<Pair> pairs;
    std::map<std::string, std::vector<std::pair<std::string, double>>> neighbours;  // best first
};

const Facts& facts() {
    static const Facts f = [] {
        Facts r;
        std::ifstream in(kVocabDir + "/facts.txt");
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream ls(line);
            std::string kind;
            ls >> kind;
            if (kind == "median_norm_float") {
                std::size_t n;
                ls >> n >> r.median_norm_float;
            } else if (kind == "file") {
                std::string name;
                std::size_t words;
                Facts::File file;
                ls >> name >> words >> file.bytes >> file.median >> file.cos_min >> file.cos_mean;
                r.files[name] = file;
            } else if (kind == "cosine") {
                Facts::Pair p;
                ls >> p.a >> p.b >> p.cosine;
                r.pairs.push_back(p);
            } else if (kind == "neighbours") {
                std::string word;
                std::size_t n;
                ls >> word >> n;
                auto& list = r.neighbours[word];
                for (std::size_t i = 0; i < n; ++i) {
                    std::string w;
                    double c;
                    ls >> w >> c;
                    list.emplace_back(w, c);
                }
            }
        }
        r.ok = r.files.size() == 2 && !r.pairs.empty() && !r.neighbours.empty();
        return r;
    }();
    return f;
}

struct Loaded {
    Status status;
    Vocabulary vocab;
};
const Loaded& real_vocab(const std::string& name) {
    static std::map<std::string, Loaded> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        Loaded l;
        l.status = Vocabulary::from_file(kVocabDir + "/" + name, l.vocab);
        it = cache.emplace(name, l).first;
    }
    return it->second;
}
#define REQUIRE_VOCAB(var, name)                          \
    const Loaded& var##_loaded = real_vocab(name);        \
    INFO(var##_loaded.status.message() << " -- " << kBuildHint); \
    REQUIRE(var##_loaded.status.ok());                    \
    const Vocabulary& var = var##_loaded.vocab

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ab += double{a[i]} * b[i];
        aa += double{a[i]} * a[i];
        bb += double{b[i]} * b[i];
    }
    return ab / std::sqrt(aa * bb);
}
double norm(const std::vector<float>& a) {
    double s = 0;
    for (float x : a) s += double{x} * x;
    return std::sqrt(s);
}
std::vector<float> vec(const Vocabulary& v, std::string_view word) {
    std::vector<float> out(v.dim());
    v.embed(word, out.data());
    return out;
}


}  // namespace

// =====================================================================================================
// The real files
// =====================================================================================================

TEST_CASE("vocabulary: the built GloVe files load and look up every word", "[vocab]") {
    REQUIRE(facts().ok);
    for (const std::string name : {"glove-50k.bin", "glove-10k.bin"}) {
        SECTION(name) {
            REQUIRE_VOCAB(v, name);
            const auto& f = facts().files.at(name);
            CHECK(v.size() == (name == "glove-50k.bin" ? 50000u : 10000u));
            CHECK(v.dim() == 100u);
            CHECK(v.median_norm() == static_cast<float>(f.median));
            CHECK(v.word(0) == "the");
            CHECK(v.find("the") == 0);
            CHECK(v.find("king") == 654);  // GloVe's frequency order
            CHECK(v.find("King") == -1);   // the vocabulary is lower-case; callers normalise
            CHECK(v.find("") == -1);
            CHECK(v.word(v.size()).empty());
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < v.size(); ++i) {
                if (v.find(v.word(i)) != static_cast<std::int64_t>(i)) ++mismatches;
            }
            CHECK(mismatches == 0);
            CHECK(read_bytes(kVocabDir + "/" + name).size() == f.bytes);
        }
    }
}

TEST_CASE("vocabulary: GloVe facts hold after int8 quantisation (cosines within 0.02 of the floats)", "[vocab]") {
    REQUIRE(facts().ok);
    for (const std::string name : {"glove-50k.bin", "glove-10k.bin"}) {
        SECTION(name) {
            REQUIRE_VOCAB(v, name);
            std::size_t checked = 0;
            for (const auto& p : facts().pairs) {
                if (v.find(p.a) < 0 || v.find(p.b) < 0) continue;  // e.g. kitten is not in the top 10k
                const double c = cosine(vec(v, p.a), vec(v, p.b));
                INFO(name << ": cosine(" << p.a << ", " << p.b << ") = " << c << ", float original " << p.cosine);
                CHECK(std::abs(c - p.cosine) < 0.02);
                ++checked;
            }
            CHECK(checked >= (name == "glove-50k.bin" ? facts().pairs.size() : 10u));
        }
    }
    SECTION("the relations the demo relies on") {
        REQUIRE_VOCAB(v, "glove-50k.bin");
        const auto c = [&](const char* a, const char* b) { return cosine(vec(v, a), vec(v, b)); };
        CHECK(c("king", "queen") > c("king", "computer"));
        CHECK(c("cat", "kitten") > c("cat", "car"));
        CHECK(c("paris", "france") > 0.7);
    }
}

// Rule for neighbours (written down here and in docs/vocab-format.md): for each rank r = 1..5, the
// quantised r-th neighbour must be one of the float top-10, and its float cosine must be within 0.01
// of the float r-th neighbour's cosine. So two neighbours may swap places only if the float vectors
// already rank them within 0.01 of each other (a near-tie); anything else is a real change.
TEST_CASE("vocabulary: nearest neighbours match the float originals' top-5", "[vocab]") {
    REQUIRE(facts().ok);
    REQUIRE_VOCAB(v, "glove-50k.bin");
    for (const auto& entry : facts().neighbours) {
        const std::string& word = entry.first;
        const auto& orig = entry.second;  // float top-10, best first, the word itself excluded
        REQUIRE(orig.size() >= 5);
        const std::int64_t self = v.find(word);
        REQUIRE(self >= 0);
        std::vector<float> q(v.dim());
        v.vector(static_cast<std::size_t>(self), q.data());
        const auto near = v.nearest(q.data(), 6);
        REQUIRE(near.size() == 6);
        CHECK(near[0].first == static_cast<std::size_t>(self));  // a vector is nearest to itself
        CHECK(near[0].second == Approx(1.0f).margin(1e-5));
        std::string got;
        for (std::size_t r = 1; r <= 5; ++r) got += v.word(near[r].first) + " ";
        for (std::size_t r = 1; r <= 5; ++r) {
            const std::string& w = v.word(near[r].first);
            const auto it = std::find_if(orig.begin(), orig.end(), [&](const auto& e) { return e.first == w; });
            INFO(word << ": quantised top-5 [" << got << "], rank " << r << " is " << w << " (float rank "
                      << (it == orig.end() ? -1 : static_cast<int>(it - orig.begin()) + 1) << ")");
            REQUIRE(it != orig.end());
            CHECK(std::abs(it->second - orig[r - 1].second) <= 0.01);
            CHECK(std::abs(static_cast<double>(near[r].second) - it->second) < 0.02);
        }
    }
}

TEST_CASE("vocabulary: the header's median norm is the median of the dequantised vectors", "[vocab]") {
    REQUIRE(facts().ok);
    for (const std::string name : {"glove-50k.bin", "glove-10k.bin"}) {
        SECTION(name) {
            REQUIRE_VOCAB(v, name);
            std::vector<double> norms(v.size());
            std::vector<float> x(v.dim());
            for (std::size_t i = 0; i < v.size(); ++i) {
                v.vector(i, x.data());
                norms[i] = norm(x);
            }
            std::sort(norms.begin(), norms.end());
            const std::size_t m = norms.size() / 2;
            const double median = norms.size() % 2 ? norms[m] : (norms[m - 1] + norms[m]) / 2;
            CHECK(v.median_norm() == Approx(median).epsilon(1e-6));
            if (name == "glove-50k.bin") {  // and close to the float vectors' median
                CHECK(v.median_norm() == Approx(facts().median_norm_float).epsilon(0.005));
            }
        }
    }
}

TEST_CASE("vocabulary: out-of-vocabulary vectors of the real file", "[vocab][oov]") {
    REQUIRE_VOCAB(v, "glove-50k.bin");
    std::vector<float> a(v.dim()), a2(v.dim()), b(v.dim());
    CHECK_FALSE(v.embed("qwertzuiopasdfgh", a.data()));
    CHECK_FALSE(v.embed("qwertzuiopasdfgh", a2.data()));
    CHECK_FALSE(v.embed("qwertzuiopasdfgi", b.data()));
    CHECK(std::memcmp(a.data(), a2.data(), a.size() * sizeof(float)) == 0);  // deterministic
    CHECK(norm(a) == Approx(v.median_norm()).epsilon(1e-6));
    CHECK(norm(b) == Approx(v.median_norm()).epsilon(1e-6));
    CHECK(std::abs(cosine(a, b)) < 0.4);  // unrelated directions (|cos| of random 100-d vectors ~ 0.1)
    CHECK(v.embed("king", a.data()));     // in-vocabulary words are not touched by the rule
}

// =====================================================================================================
// The out-of-vocabulary rule, bit for bit (these constants are the same natively and in wasm)
// =====================================================================================================

TEST_CASE("vocabulary: the hash and PRNG under the OOV rule give their published values", "[vocab][oov]") {
    CHECK(attnscope::fnv1a64("") == 0xcbf29ce484222325ULL);  // FNV-1a 64 test vectors
    CHECK(attnscope::fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(attnscope::fnv1a64("foobar") == 0x85944171f73967e8ULL);
    attnscope::Pcg32 rng(42u, 54u);  // pcg32-demo's first outputs for initstate 42, initseq 54
    CHECK(rng.next() == 0xa15c02b7u);
    CHECK(rng.next() == 0x7b47f409u);
    CHECK(rng.next() == 0xba1d3330u);
}

// The expected bits were also computed by a separate JavaScript implementation of the rule in
// docs/vocab-format.md (BigInt for the 64-bit integer steps, Math.fround for each float step).
TEST_CASE("vocabulary: OOV vectors are exact, deterministic floats", "[vocab][oov]") {
    TinySpec spec;  // dim 4, median norm 5
    Vocabulary v;
    REQUIRE(load(encode(spec), v).ok());
    struct Expect { const char* word; std::uint32_t bits[4]; };
    const Expect expected[] = {
        {"zzyzx", {0x3c167921u, 0xc031ceb2u, 0x3f19e84fu, 0x4083a0c4u}},
        {"", {0x405ce2feu, 0xc03fe58au, 0x40003ba4u, 0xbe93be09u}},
        {"attnscope", {0xc00d6625u, 0x3fedf97fu, 0x402318a4u, 0x404c140du}},
        {"\xc3\xa9t\xc3\xa9", {0xc04261e9u, 0x401ebd4bu, 0xbf9cc927u, 0x403667d7u}},  // "été"
    };
    for (const auto& e : expected) {
        std::vector<float> x(4);
        CHECK_FALSE(v.embed(e.word, x.data()));
        INFO("oov(\"" << e.word << "\") = " << x[0] << " " << x[1] << " " << x[2] << " " << x[3] << " = bits 0x"
             << std::hex << bits_of(x[0]) << "u, 0x" << bits_of(x[1]) << "u, 0x" << bits_of(x[2]) << "u, 0x"
             << bits_of(x[3]) << "u" << std::dec);
        for (int i = 0; i < 4; ++i) CHECK(bits_of(x[static_cast<std::size_t>(i)]) == e.bits[i]);
        CHECK(norm(x) == Approx(5.0).epsilon(1e-6));
    }
}

// =====================================================================================================
// The loader on a small hand-made file
// =====================================================================================================

TEST_CASE("vocabulary: look-up, dequantisation and nearest on a small file", "[vocab]") {
    TinySpec spec;
    Vocabulary v;
    const Status s = load(encode(spec), v);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(v.size() == 6);
    CHECK(v.dim() == 4);
    CHECK(v.median_norm() == 5.0f);
    CHECK(v.find("na\xc3\xafve") == 3);
    CHECK(v.word(4) == "\xe6\x97\xa5\xe6\x9c\xac");
    CHECK(v.find("dog") == -1);
    std::vector<float> x(4);
    CHECK(v.embed("cat", x.data()));
    CHECK(x == std::vector<float>{0.0f, 31.75f, -31.75f, 0.0f});  // code x scale, exactly
    v.vector(3, x.data());
    CHECK(x == std::vector<float>{-1.0f, 2.0f, -3.0f, 4.0f});
    v.vector(99, x.data());  // out of range: zeros, not a wild read
    CHECK(x == std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f});

    const float q[4] = {0.0f, 1.0f, -1.0f, 0.0f};
    const auto near = v.nearest(q, 3);
    REQUIRE(near.size() == 3);
    CHECK(v.word(near[0].first) == "cat");
    CHECK(near[0].second == Approx(1.0f).margin(1e-6));
    CHECK(v.word(near[1].first) == "kitten");
    CHECK(v.nearest(q, 100).size() == 6);  // k is capped at the vocabulary size
    const float zero[4] = {0, 0, 0, 0};
    CHECK(v.nearest(zero, 3).empty());  // no direction, no neighbours
    // Ties are broken by index (frequency): "the" and "x" are both at cosine 0.5 from this query.
    const float tie[4] = {1.0f, 1.0f, 1.0f, -1.0f};
    const auto t = v.nearest(tie, 2);
    REQUIRE(t.size() == 2);
    CHECK(v.word(t[0].first) == "the");
    CHECK(v.word(t[1].first) == "x");
    CHECK(t[0].second == t[1].second);

    Vocabulary empty;  // a default-constructed vocabulary is empty and safe to use
    CHECK(empty.empty());
    CHECK(empty.find("the") == -1);
    CHECK(empty.nearest(q, 3).empty());
}

TEST_CASE("vocabulary: rejects truncated files at every length", "[vocab][reject]") {
    SECTION("small file, every length") {
        const auto bytes = encode(TinySpec{});
        std::vector<std::string> accepted, unclear;
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            Vocabulary v;
            const Status s = load(bytes, n, v);
            if (s.ok()) accepted.push_back(std::to_string(n));
            else if (s.message().find(n == 0 ? "empty file" : "truncated file") == std::string::npos)
                unclear.push_back(std::to_string(n) + ": " + s.message());
        }
        INFO("accepted lengths: " << accepted.size() << (accepted.empty() ? "" : " e.g. " + accepted[0]));
        CHECK(accepted.empty());
        INFO("unclear messages: " << (unclear.empty() ? "" : unclear[0]));
        CHECK(unclear.empty());
    }
    SECTION("glove-10k.bin at 200 lengths, and the message") {
        const auto bytes = read_bytes(kVocabDir + "/glove-10k.bin");
        INFO(kBuildHint);
        REQUIRE(bytes.size() > 100000);
        std::vector<std::size_t> cuts{1, 7, 8, 9, 95, 96, 97, 1024};
        for (std::uint64_t at : {get_u64(bytes, kScalesOffsetAt), get_u64(bytes, kVectorsOffsetAt),
                                 static_cast<std::uint64_t>(bytes.size())}) {
            for (std::size_t d = 1; d <= 5; ++d) cuts.push_back(static_cast<std::size_t>(at) - d);
            cuts.push_back(static_cast<std::size_t>(at) + 1);
        }
        attnscope::Pcg32 rng(7);
        while (cuts.size() < 200) cuts.push_back(rng.next() % bytes.size());
        std::size_t bad = 0;
        std::string first;
        for (std::size_t n : cuts) {
            if (n >= bytes.size()) continue;
            Vocabulary v;
            const Status s = load(bytes, n, v);
            if (s.ok() || s.message().find("truncated file") == std::string::npos) {
                if (bad++ == 0) first = std::to_string(n) + ": " + (s.ok() ? "accepted" : s.message());
            }
        }
        INFO(first);
        CHECK(bad == 0);
        Vocabulary v;
        // The size the header implies is the file's own, its digits grouped by threes with commas.
        const std::string m = load(bytes, 1024, v).message();
        const std::string head = "vocabulary: truncated file: header says 10,000 words x 100 dims needs ", tail = " bytes but the file has 1,024";
        INFO(m);
        REQUIRE(m.size() > head.size() + tail.size());
        CHECK(m.compare(0, head.size(), head) == 0);
        CHECK(m.compare(m.size() - tail.size(), tail.size(), tail) == 0);
        const std::string size = m.substr(head.size(), m.size() - head.size() - tail.size());
        CHECK(std::regex_match(size, std::regex("[1-9][0-9]{0,2}(,[0-9]{3})*")));
        CHECK(std::regex_replace(size, std::regex(","), "") == std::to_string(bytes.size()));
        CHECK(load(bytes, 50, v).message() ==
              "vocabulary: truncated file: 50 bytes is shorter than the 96-byte header");
    }
}

TEST_CASE("vocabulary: rejects oversized files (trailing bytes)", "[vocab][reject]") {
    const auto good = encode(TinySpec{});
    // (the counts as the message groups their digits)
    for (const auto& [extra, grouped] : {std::pair<std::size_t, const char*>{1, "1"}, {3, "3"}, {4, "4"}, {4096, "4,096"}}) {
        for (std::uint8_t fill : {std::uint8_t{0}, std::uint8_t{0xa5}}) {
            auto b = good;
            b.insert(b.end(), extra, fill);
            const std::string msg = load_error(b);
            INFO(extra << " trailing bytes: " << msg);
            CHECK_THAT(msg, Contains("oversized file") && Contains(std::string(grouped) + " trailing bytes"));
        }
    }
}

// A CRC-32 changes for every single-bit error (indeed for every error burst of up to 32 bits), and it
// covers every byte of the file except its own 4 bytes; a flip inside those makes the stored value
// differ from the computed one. So every single-bit flip is rejected, by the CRC if by nothing else.
// The small file is flipped at every bit; the real file at every header bit and 300 other places.
TEST_CASE("vocabulary: rejects every single-bit flip", "[vocab][reject]") {
    const auto check_flips = [](const std::vector<std::uint8_t>& good, const std::vector<std::size_t>& bit_positions) {
        std::vector<std::string> accepted, no_checksum_message;
        auto b = good;
        for (std::size_t bit : bit_positions) {
            const std::size_t at = bit / 8;
            const auto mask = static_cast<std::uint8_t>(1u << (bit % 8));
            b[at] ^= mask;
            Vocabulary v;
            const Status s = Vocabulary::from_bytes(b.data(), b.size(), v);
            b[at] ^= mask;
            if (s.ok()) accepted.push_back("bit " + std::to_string(bit % 8) + " of byte " + std::to_string(at));
            // Past the header nothing but the data changed, so the checksum must be what notices.
            else if (at >= kHeader && s.message().find("checksum mismatch") == std::string::npos)
                no_checksum_message.push_back(s.message());
        }
        INFO(bit_positions.size() << " flips; accepted: " << accepted.size() << (accepted.empty() ? "" : " e.g. " + accepted[0]));
        CHECK(accepted.empty());
        INFO("payload flip without a checksum message: " << (no_checksum_message.empty() ? "" : no_checksum_message[0]));
        CHECK(no_checksum_message.empty());
    };
    SECTION("small file, every bit") {
        const auto good = encode(TinySpec{});
        std::vector<std::size_t> bits(good.size() * 8);
        for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = i;
        check_flips(good, bits);
    }
    SECTION("glove-10k.bin: every header bit and 300 more across the sections") {
        const auto good = read_bytes(kVocabDir + "/glove-10k.bin");
        INFO(kBuildHint);
        REQUIRE(good.size() > 100000);
        std::vector<std::size_t> bits;
        for (std::size_t i = 0; i < kHeader * 8; ++i) bits.push_back(i);
        attnscope::Pcg32 rng(11);
        for (int i = 0; i < 300; ++i) bits.push_back(kHeader * 8 + rng.next() % ((good.size() - kHeader) * 8));
        bits.push_back(good.size() * 8 - 1);  // the very last bit
        check_flips(good, bits);
    }
}

TEST_CASE("vocabulary: rejects damaged headers with clear messages", "[vocab][reject]") {
    const auto good = encode(TinySpec{});
    struct Case { const char* what; std::size_t at; std::uint64_t value; bool wide; const char* message; };
    const Case cases[] = {
        {"version 2", kVersionAt, 2, false, "unsupported format version 2 (this build reads version 1"},
        {"version 0", kVersionAt, 0, false, "unsupported format version 0"},
        {"header size", kHeaderSizeAt, 128, false, "header size 128 is not the 96 bytes"},
        {"quantisation", kQuantAt, 7, false, "unknown quantisation kind 7"},
        {"flags", kFlagsAt, 1, false, "reserved header field (flags) is 0x00000001"},
        {"count 2^31", kCountAt, 0x80000000u, false, "absurd word count 2,147,483,648 in the header (expected 1 to 4,000,000)"},
        {"count 2^32-1", kCountAt, 0xffffffffu, false, "absurd word count 4,294,967,295"},
        {"count 0", kCountAt, 0, false, "absurd word count 0"},
        {"count +1", kCountAt, 7, false, "inconsistent header"},
        {"dim 0", kDimAt, 0, false, "absurd dimension 0"},
        {"dim 2^31", kDimAt, 0x80000000u, false, "absurd dimension 2,147,483,648"},
        {"dim 4096", kDimAt, 4096, false, "inconsistent header"},
        {"words offset", kWordsOffsetAt, 100, true, "word section offset 100 should be 96"},
        {"words size 2^63", kWordsSizeAt, std::uint64_t{1} << 63, true, "word section size 9,223,372,036,854,775,808 cannot hold 6 words"},
        {"words size 2^64-1", kWordsSizeAt, ~std::uint64_t{0}, true, "cannot hold 6 words"},
        {"scales offset", kScalesOffsetAt, 0, true, "inconsistent header"},
        {"vectors size", kVectorsSizeAt, ~std::uint64_t{0}, true, "inconsistent header"},
        {"file size 2^64-1", kFileSizeAt, ~std::uint64_t{0}, true, "inconsistent header"},
        {"file size smaller", kFileSizeAt, 100, true, "inconsistent header"},
    };
    SECTION("header fields") {
        for (const auto& c : cases) {
            auto b = good;
            if (c.wide) put_u64(b, c.at, c.value);
            else put_u32(b, c.at, static_cast<std::uint32_t>(c.value));
            fix_crc(b);  // a consistent checksum: the field check itself must fire
            const std::string msg = load_error(b);
            INFO(c.what << ": " << msg);
            CHECK_THAT(msg, Contains(c.message));
        }
    }
    SECTION("wrong magic") {
        auto b = good;
        b[7] = 'C';
        fix_crc(b);
        CHECK_THAT(load_error(b), Contains("not an attnscope vocabulary") && Contains("\"ATSVOCAC\""));
        const std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0};
        CHECK_THAT(load_error(png), Contains("does not start with the magic \"ATSVOCAB\" (it starts with \"\\x89PNG"));
        const std::vector<std::uint8_t> tiny{'x'};
        CHECK_THAT(load_error(tiny), Contains("not an attnscope vocabulary"));
    }
    SECTION("a checksum that does not match") {
        auto b = good;
        put_u32(b, kCrcAt, get_u32(b, kCrcAt) ^ 0x10u);
        CHECK_THAT(load_error(b), Contains("checksum mismatch: the file's CRC-32 is 0x"));
    }
    SECTION("no data") {
        Vocabulary v;
        CHECK(Vocabulary::from_bytes(nullptr, 0, v).message() == "vocabulary: empty file (0 bytes)");
        CHECK_THAT(Vocabulary::from_bytes(nullptr, 10, v).message(), Contains("null pointer"));
    }
}

TEST_CASE("vocabulary: rejects bad content even with a valid checksum", "[vocab][reject]") {
    const TinySpec base;
    const auto check = [](TinySpec s, const char* message) {
        const std::string msg = load_error(encode(s));
        INFO(msg);
        CHECK_THAT(msg, Contains(message));
    };
    SECTION("words") {
        TinySpec s = base;
        s.words[2] = "";
        check(s, "word #2 (at byte 104) is empty");
        s = base;
        s.words[1] = "c\xc0\xaft";  // overlong '/'
        check(s, "word #1 (at byte 100) is not valid UTF-8 (byte 1 of \"c\\xc0\\xaft\")");
        s.words[1] = "\xed\xa0\x80";  // a UTF-16 surrogate
        check(s, "is not valid UTF-8");
        s.words[1] = "ca\xe6\x97";  // cut inside a sequence
        check(s, "is not valid UTF-8 (byte 2");
        s.words[1] = "\xf4\x90\x80\x80";  // above U+10FFFF
        check(s, "is not valid UTF-8");
        s.words[1] = "\xff";
        check(s, "is not valid UTF-8");
        s = base;
        s.words[5] = "cat";
        check(s, "word #5 \"cat\" repeats word #1");
    }
    SECTION("word lengths that leave the section") {
        auto b = encode(base);
        b[kHeader] = 200;  // "the" claims 200 bytes
        fix_crc(b);
        CHECK_THAT(load_error(b), Contains("word #0 (at byte 96) of 200 bytes runs past the end of the word section"));
        b = encode(base);
        b[kHeader] = 2;  // "th" then "e" read as a length of 101 bytes
        fix_crc(b);
        CHECK_THAT(load_error(b), Contains("runs past the end of the word section"));
        b = encode(base);  // word #4 ("\xe6\x97\xa5\xe6\x9c\xac", 6 bytes) claims 3: word #5 then starts at 0xe6
        std::size_t p = kHeader;
        for (int i = 0; i < 4; ++i) p += 1 + b[p];
        b[p] = 3;
        fix_crc(b);
        CHECK_THAT(load_error(b), Contains("word #5 (at byte " + std::to_string(p + 4) + ") of 230 bytes runs past"));
        b = encode(base);  // a word section one byte longer than its words (it still ends before the scales)
        put_u64(b, kWordsSizeAt, get_u64(b, kWordsSizeAt) + 1);
        fix_crc(b);
        CHECK_THAT(load_error(b), Contains("word section has 1 bytes left after the 6 words"));
    }
    SECTION("padding, scales, codes, median") {
        auto b = encode(base);
        const std::size_t words_end = kHeader + static_cast<std::size_t>(get_u64(b, kWordsSizeAt));
        const std::size_t scales_at = static_cast<std::size_t>(get_u64(b, kScalesOffsetAt));
        REQUIRE(scales_at > words_end);  // the small file has padding
        b[words_end] = 1;
        fix_crc(b);
        CHECK_THAT(load_error(b), Contains("padding byte at " + std::to_string(words_end) + " is not zero"));
        TinySpec s = base;
        s.scales[3] = std::nanf("");
        check(s, "scale of word #3 is nan");
        s.scales[3] = -1.0f;
        check(s, "scale of word #3 is -1.000000 (expected finite and >= 0)");
        s.scales[3] = INFINITY;
        check(s, "scale of word #3 is inf");
        // Finite but absurd (issue 15): a scale of 3e38 made ±inf vectors; any vector whose norm can
        // pass 2^64 has a squared norm beyond float.
        s.scales[3] = 3e38f;
        check(s, "scale of word #3 is 3e+38: its vector could reach norm 7.62e+40 (expected below 2^64");
        s.scales[3] = 1e17f;  // 1e17 * 127 * sqrt(4) = 2.5e19 > 2^64
        check(s, "scale of word #3 is 1e+17: its vector could reach norm 2.54e+19");
        s = base;
        s.codes[9] = -128;
        check(s, "vector of word #2 has the code -128");
        s = base;
        s.median = 0.0f;
        check(s, "median norm in the header is 0.000000");
        s.median = std::nanf("");
        check(s, "median norm in the header is nan");
        s.median = 3e38f;
        check(s, "median norm in the header is 3e+38 (expected below 2^64");
    }
}

TEST_CASE("vocabulary: from_file names the path, and a failed load keeps the old vocabulary", "[vocab][reject]") {
    Vocabulary v;
    REQUIRE(load(encode(TinySpec{}), v).ok());
    const Status s = Vocabulary::from_file(kVocabDir + "/no-such-file.bin", v);
    CHECK_THAT(s.message(), Contains("cannot open") && Contains("no-such-file.bin") && Contains("build-vocab"));
    auto bad = encode(TinySpec{});
    bad[200 % bad.size()] ^= 1;
    CHECK_FALSE(load(bad, v).ok());
    CHECK(v.size() == 6);  // unchanged
    CHECK(v.find("kitten") == 2);
}

TEST_CASE("vocabulary: the test's own CRC-32 is the standard one", "[vocab]") {
    const char* check = "123456789";
    CHECK(crc32_bitwise(reinterpret_cast<const std::uint8_t*>(check), 9) == 0xcbf43926u);
}
