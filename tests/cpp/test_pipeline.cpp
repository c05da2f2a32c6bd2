// Sentences → vectors → attention: positions, seeded projections, and the attend() pipeline on the
// real GloVe vocabulary.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "attnscope/pipeline.hpp"
#include "attnscope/positional.hpp"
#include "attnscope/projection.hpp"
#include "attnscope/random.hpp"

using namespace attnscope;

namespace {

const Vocabulary& vocab() {
    static Vocabulary v;
    static bool loaded = false;
    if (!loaded) {
        Status st = Vocabulary::from_file(std::string(ATTNSCOPE_VOCAB_DIR) + "/glove-50k.bin", v);
        INFO(st.message());
        REQUIRE(st.ok());
        loaded = true;
    }
    return v;
}

std::uint64_t hash_floats(const std::vector<float>& v) {
    std::string bytes(v.size() * sizeof(float), '\0');
    std::memcpy(&bytes[0], v.data(), bytes.size());
    return fnv1a64(bytes);
}

const char* kAnimal = "The animal didn't cross the street because it was too tired";

}  // namespace

TEST_CASE("Pcg32 matches the PCG32 reference sequence", "[random]") {
    // pcg32_srandom(42, 54) then pcg32_random(): the first outputs of the reference implementation's demo.
    Pcg32 rng(42u, 54u);
    const std::uint32_t expected[] = {0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e};
    for (std::uint32_t e : expected) CHECK(rng.next() == e);
}

TEST_CASE("seeded Xavier projections: same seed, same bytes, natively and in wasm", "[projection]") {
    const auto w = xavier_uniform(100, 25, 1, matrix_stream(MatrixKind::Wq, 0));
    const float a = std::sqrt(6.0f / 125.0f);
    for (float x : w) REQUIRE(std::fabs(x) <= a);
    // The same constant is checked by the native and the wasm build of this test: bit-for-bit agreement.
    CHECK(hash_floats(w) == 0x6f6a0a9108007f4fULL);
    CHECK(hash_floats(xavier_uniform(100, 25, 1, matrix_stream(MatrixKind::Wq, 0))) == hash_floats(w));
    CHECK(hash_floats(xavier_uniform(100, 25, 2, matrix_stream(MatrixKind::Wq, 0))) != hash_floats(w));
    CHECK(hash_floats(xavier_uniform(100, 25, 1, matrix_stream(MatrixKind::Wk, 0))) != hash_floats(w));
    // Uniform on [-a, a): mean ~ 0, variance ~ a²/3.
    double mean = 0, var = 0;
    for (float x : w) mean += x;
    mean /= static_cast<double>(w.size());
    for (float x : w) var += (x - mean) * (x - mean);
    var /= static_cast<double>(w.size());
    CHECK(std::fabs(mean) < 0.01);
    CHECK(var == Approx(a * a / 3.0).epsilon(0.1));
}

TEST_CASE("sinusoidal positions follow Vaswani et al.", "[positional]") {
    std::vector<float> pe(8);
    sinusoidal_position(0, 8, pe.data());
    for (std::size_t j = 0; j < 8; ++j) CHECK(pe[j] == Approx(j % 2 == 0 ? 0.0 : 1.0));
    sinusoidal_position(3, 8, pe.data());
    for (std::size_t j = 0; j < 8; j += 2) {
        const double angle = 3.0 / std::pow(10000.0, static_cast<double>(j) / 8.0);
        CHECK(pe[j] == Approx(std::sin(angle)).margin(1e-6));
        CHECK(pe[j + 1] == Approx(std::cos(angle)).margin(1e-6));
    }
    Tensor X(3, 8, 1.0f);
    add_sinusoidal_positions(X.view());
    CHECK(X(0, 0) == Approx(1.0));
    CHECK(X(0, 1) == Approx(2.0));
    CHECK(X(2, 0) == Approx(1.0 + std::sin(2.0)).margin(1e-6));
}

TEST_CASE("attend: self-attention on a real sentence, every scoring function", "[pipeline]") {
    for (const auto& info : score_infos()) {
        DYNAMIC_SECTION(info.name) {
            AttendOptions o;
            o.score = info.id;
            AttendResult r;
            Status st = attend(vocab(), kAnimal, "", false, o, r);
            INFO(st.message());
            REQUIRE(st.ok());
            REQUIRE(r.query_tokens.size() == 12);  // the animal did n't cross the street because it was too tired
            CHECK(r.query_tokens[3].lookup == "n't");
            CHECK(r.attention.nq == 12);
            CHECK(r.attention.nk == 12);
            for (std::uint8_t oov : r.query_oov) CHECK(oov == 0);
            const Tensor& A = r.attention.weights[0];
            for (std::size_t i = 0; i < 12; ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < 12; ++j) {
                    CHECK(std::isfinite(A(i, j)));
                    sum += A(i, j);
                }
                CHECK(sum == Approx(1.0).epsilon(1e-5));
            }
            CHECK(r.attention.output.cols == vocab().dim());
        }
    }
}

TEST_CASE("attend: real GloVe geometry shows in the weights", "[pipeline]") {
    // With cosine scores and a low temperature, "it" attends to itself most, and "animal" attends
    // more to "tired"-like content words than to punctuation-like function words is not guaranteed;
    // what is guaranteed is the diagonal: cos(x, x) = 1 is the row maximum.
    AttendOptions o;
    o.score = Score::cosine;
    o.temperature = 0.1f;
    AttendResult r;
    REQUIRE(attend(vocab(), kAnimal, "", false, o, r).ok());
    for (std::size_t i = 0; i < r.attention.nq; ++i) {
        const auto& st = r.attention.stats[0][i];
        // "the" appears twice: either copy is a maximum.
        CHECK(r.query_tokens[st.argmax].lookup == r.query_tokens[i].lookup);
    }
    // The raw cosine scores are the GloVe cosines.
    std::vector<float> a(vocab().dim()), b(vocab().dim());
    vocab().embed("animal", a.data());
    vocab().embed("street", b.data());
    REQUIRE(r.query_tokens[6].lookup == "street");
    double dot = 0, na = 0, nb = 0;
    for (std::size_t t = 0; t < a.size(); ++t) { dot += a[t] * b[t]; na += a[t] * a[t]; nb += b[t] * b[t]; }
    CHECK(r.attention.scores[0](1, 6) == Approx(dot / std::sqrt(na * nb)).margin(1e-5));
}

TEST_CASE("attend: cross-attention, heads, projections, masks", "[pipeline]") {
    AttendOptions o;
    AttendResult r;
    SECTION("cross-attention takes keys and values from the second sentence") {
        REQUIRE(attend(vocab(), "The cat sat on the mat.", "A kitten rested on the rug.", true, o, r).ok());
        CHECK(r.attention.nq == 7);
        CHECK(r.attention.nk == 7);
        CHECK(r.key_tokens[1].text == "kitten");
    }
    SECTION("identity heads split the 100 dimensions, unevenly when they must") {
        o.heads = 3;
        REQUIRE(attend(vocab(), kAnimal, "", false, o, r).ok());
        REQUIRE(r.attention.heads == 3);
        CHECK(r.attention.q[0].cols == 34);
        CHECK(r.attention.q[1].cols == 33);
        CHECK(r.attention.q[2].cols == 33);
        CHECK(r.attention.output.cols == 100);
    }
    SECTION("seeded random projections are reproducible and seed-dependent") {
        o.heads = 4;
        o.projection = Projection::random;
        o.seed = 7;
        AttendResult r2, r3;
        REQUIRE(attend(vocab(), kAnimal, "", false, o, r).ok());
        REQUIRE(attend(vocab(), kAnimal, "", false, o, r2).ok());
        o.seed = 8;
        REQUIRE(attend(vocab(), kAnimal, "", false, o, r3).ok());
        CHECK(r.attention.q[0].cols == 25);
        CHECK(r.attention.weights[2].values == r2.attention.weights[2].values);
        CHECK(r.attention.weights[2].values != r3.attention.weights[2].values);
        CHECK(r.attention.output.cols == 100);
    }
    SECTION("causal mask") {
        o.mask = Mask::causal;
        REQUIRE(attend(vocab(), kAnimal, "", false, o, r).ok());
        const Tensor& A = r.attention.weights[0];
        for (std::size_t i = 0; i < A.rows; ++i)
            for (std::size_t j = i + 1; j < A.cols; ++j) CHECK(A(i, j) == 0.0f);
        CHECK(A(0, 0) == 1.0f);
    }
    SECTION("positions change the embeddings") {
        AttendResult plain;
        REQUIRE(attend(vocab(), kAnimal, "", false, o, plain).ok());
        o.positional = true;
        REQUIRE(attend(vocab(), kAnimal, "", false, o, r).ok());
        // "the" at positions 0 and 5: same word, different inputs once positions are added.
        CHECK(plain.query_embeddings(0, 0) == plain.query_embeddings(5, 0));
        CHECK(r.query_embeddings(0, 0) != r.query_embeddings(5, 0));
    }
    SECTION("out-of-vocabulary words are flagged and still get a vector") {
        REQUIRE(attend(vocab(), "the zqxwvy blorptastic cat", "", false, o, r).ok());
        CHECK(r.query_oov == std::vector<std::uint8_t>{0, 1, 1, 0});
    }
    SECTION("scores with weights get seeded ones per head") {
        o.heads = 2;
        for (Score s : {Score::general, Score::additive, Score::location}) {
            o.score = s;
            REQUIRE(attend(vocab(), kAnimal, "Another sentence here.", true, o, r).ok());
            CHECK(!r.score_weights.empty());
        }
    }
}

TEST_CASE("attend: errors name the argument", "[pipeline]") {
    AttendOptions o;
    AttendResult r;
    Status st = attend(vocab(), "   ", "", false, o, r);
    CHECK_THAT(st.message(), Catch::StartsWith("query:"));
    st = attend(vocab(), "fine", ".", true, o, r);
    CHECK(st.ok());  // punctuation is a token
    st = attend(vocab(), "fine", "", true, o, r);
    CHECK_THAT(st.message(), Catch::StartsWith("keys:"));
    o.heads = 101;
    st = attend(vocab(), kAnimal, "", false, o, r);
    CHECK_THAT(st.message(), Catch::StartsWith("heads:"));
    o.heads = 1;
    o.max_tokens = 5;
    st = attend(vocab(), kAnimal, "", false, o, r);
    CHECK_THAT(st.message(), Catch::StartsWith("query:"));
    o.max_tokens = 512;
    o.temperature = 0.0f;
    st = attend(vocab(), kAnimal, "", false, o, r);
    CHECK_THAT(st.message(), Catch::Contains("temperature"));
}

TEST_CASE("Vocabulary::resolve: stand-ins for GloVe forms the vocabulary lacks", "[vocabulary]") {
    const Vocabulary& v = vocab();
    // The source word list drops clitics, one-letter words, digits and accented words.
    REQUIRE(v.find("n't") < 0);
    REQUIRE(v.find("a") < 0);
    CHECK(v.resolve("n't") == v.find("not"));
    CHECK(v.resolve("'ll") == v.find("will"));
    CHECK(v.resolve("a") == v.find("an"));
    CHECK(v.resolve("i") == v.find("me"));
    CHECK(v.resolve("7") == v.find("seven"));
    CHECK(v.resolve("...") == v.find("…"));
    CHECK(v.resolve("mr.") == v.find("mr"));
    CHECK(v.resolve("café") == v.find("cafe"));
    CHECK(v.resolve("cat") == v.find("cat"));  // a word that is there is itself
    CHECK(v.resolve("zqxwvy") == -1);
    std::vector<float> a(v.dim()), b(v.dim());
    CHECK(v.embed("n't", a.data()));
    v.vector(static_cast<std::size_t>(v.find("not")), b.data());
    CHECK(a == b);
}

// The worker pool's split of attend() over heads: heads [h0, h1) computed alone equal those heads of
// the whole call bit for bit (scores, weights, statistics, projections, outputs), and the output
// projection of the heads' outputs joined side by side equals the whole call's output.
TEST_CASE("attend: a range of heads equals those heads of the whole call, and the output projection joins them", "[pipeline][heads]") {
    const auto same = [](const Tensor& a, const Tensor& b) {
        return a.rows == b.rows && a.cols == b.cols && std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) == 0;
    };
    for (const Projection projection : {Projection::identity, Projection::random})
        for (const Score score : {Score::scaled_dot, Score::additive, Score::neg_manhattan}) {
            INFO("projection " << static_cast<int>(projection) << ", score " << static_cast<int>(score));
            AttendOptions o;
            o.score = score;
            o.heads = 5;
            o.projection = projection;
            o.mask = Mask::causal;
            o.seed = 3;
            AttendResult whole;
            REQUIRE(attend(vocab(), kAnimal, "", false, o, whole).ok());
            const MultiHeadResult& w = whole.attention;
            Tensor concat(w.nq, w.concat.cols);
            std::size_t col = 0;
            for (const auto& range : {std::pair<std::size_t, std::size_t>{0, 2}, {2, 3}, {3, 5}}) {
                AttendOptions os = o;
                os.head_begin = range.first;
                os.head_end = range.second;
                AttendResult part;
                REQUIRE(attend(vocab(), kAnimal, "", false, os, part).ok());
                const MultiHeadResult& p = part.attention;
                REQUIRE(p.heads == range.second - range.first);
                for (std::size_t e = 0; e < p.heads; ++e) {
                    const std::size_t h = range.first + e;
                    CHECK(same(p.scores[e], w.scores[h]));
                    CHECK(same(p.weights[e], w.weights[h]));
                    CHECK(same(p.q[e], w.q[h]));
                    CHECK(same(p.k[e], w.k[h]));
                    CHECK(same(p.v[e], w.v[h]));
                    CHECK(same(p.head_outputs[e], w.head_outputs[h]));
                    for (std::size_t i = 0; i < w.nq; ++i) CHECK(p.stats[e][i].argmax == w.stats[h][i].argmax);
                }
                CHECK(same(p.output, p.concat));  // no output projection on a range of heads
                for (std::size_t i = 0; i < w.nq; ++i)
                    for (std::size_t j = 0; j < p.concat.cols; ++j) concat(i, col + j) = p.concat(i, j);
                col += p.concat.cols;
            }
            Tensor out;
            const Tensor& joined = concat;
            REQUIRE(attend_output_projection(vocab(), o, joined.view(), out).ok());
            CHECK(same(out, w.output));
            AttendOptions bad = o;
            bad.head_begin = 4;
            bad.head_end = 4;
            AttendResult none;
            CHECK_THAT(attend(vocab(), kAnimal, "", false, bad, none).message(), Catch::Matchers::StartsWith("headBegin, headEnd:"));
        }
}
