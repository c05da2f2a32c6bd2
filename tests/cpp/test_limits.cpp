// Limits of one call (issue 15, findings 1 and 2): sizes are checked in 64-bit arithmetic before
// anything is allocated, and calls whose memory or work exceeds the documented budget are refused
// with a message naming the limit and the alternative. The refused shapes below are the issue's:
// none of them allocates its output here (S, A and O point at small buffers the checks must never
// reach), so a check that let one through would write out of bounds and fail under ASan.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/pipeline.hpp"
#include "attnscope/score.hpp"
#include "attnscope/tokenizer.hpp"

using namespace attnscope;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
const Vocabulary& vocab() {
    static const Vocabulary v = [] {
        Vocabulary x;
        const Status st = Vocabulary::from_file(std::string(ATTNSCOPE_VOCAB_DIR) + "/glove-10k.bin", x);
        REQUIRE(st.ok());
        return x;
    }();
    return v;
}
std::string words(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += (i % 2 ? "cat " : "the ");
    return s;
}
}  // namespace

TEST_CASE("limits: Budget saturates instead of wrapping", "[limits]") {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    CHECK(Budget::mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32) == kMax);
    CHECK(Budget::mul(0, kMax) == 0);
    CHECK(Budget::add(kMax - 1, 5) == kMax);
    Budget b;
    b.floats(std::uint64_t{1} << 40, std::uint64_t{1} << 40, 3);
    CHECK(b.floats() == kMax);
    CHECK_THAT(b.check("x", "y").message(), StartsWith("memory: x needs more than 1.8e19 floats"));
    Budget ok;
    ok.floats(limits::kMaxFloats);
    ok.work(limits::kMaxWork);
    CHECK(ok.check("x", "y").ok());  // the limits themselves are allowed
}

TEST_CASE("limits: an output of 2^30 floats is refused before it is written", "[limits]") {
    // scores(a, a, {nq: 32768, nk: 32768, d: 1}): 4 GiB of output, which wrapped to 0 bytes in wasm.
    std::vector<float> a(32768, 1.0f), small(16, 0.0f);
    for (const ScoreInfo& info : score_infos()) {
        if (score_has_weights(info.id)) continue;
        INFO(info.name);
        const Status st = compute_scores(info.id, {a.data(), 32768, 1}, {a.data(), 32768, 1}, {},
                                         {small.data(), 32768, 32768});
        CHECK_THAT(st.message(), StartsWith("memory: scores of 32768 queries x 32768 keys needs 1.07e+09 floats (4096 MiB)") &&
                                     Contains("limit of 1.34e+08 (512 MiB per call") && Contains("chunks of queries"));
    }
}

TEST_CASE("limits: attention with a 2^32-float output is refused", "[limits]") {
    // attention(.., {nq: 65536, nk: 1, d: 1, dv: 65536}) emptied the vocabulary in wasm.
    std::vector<float> q(65536, 1.0f), k(1, 1.0f), v(65536, 1.0f), s(65536), a(65536), small(16);
    AttentionOptions o;
    const Status st = attention({q.data(), 65536, 1}, {k.data(), 1, 1}, {v.data(), 1, 65536}, o, {s.data(), 65536, 1},
                                {a.data(), 65536, 1}, {small.data(), 65536, 65536});
    CHECK_THAT(st.message(), StartsWith("memory: attention of 65536 queries x 1 keys"));
}

TEST_CASE("limits: additive with a huge hidden size is refused as too much work", "[limits]") {
    // scores additive with hidden 65536, n = 256: 10.4 s in wasm.
    const std::size_t n = 256, d = 4, hidden = 65536;
    std::vector<float> X(n * d, 0.5f), W1(hidden * d, 0.1f), v(hidden, 1.0f), S(n * n);
    ScoreParams p;
    p.W1 = W1.data();
    p.W2 = W1.data();
    p.v = v.data();
    p.hidden = hidden;
    const Status st = compute_scores(Score::additive, {X.data(), n, d}, {X.data(), n, d}, p, {S.data(), n, n});
    CHECK_THAT(st.message(), StartsWith("work: scores of 256 queries x 256 keys needs") &&
                                 Contains("limit of 4.29e+09 per call (about 2 s in wasm)") &&
                                 Contains("smaller hidden size"));
    p.hidden = 64;  // 256 x 256 x 64 tanh: well inside
    std::vector<float> W1s(64 * d, 0.1f), vs(64, 1.0f);
    p.W1 = p.W2 = W1s.data();
    p.v = vs.data();
    CHECK(compute_scores(Score::additive, {X.data(), n, d}, {X.data(), n, d}, p, {S.data(), n, n}).ok());
}

TEST_CASE("limits: attend refuses too many heads, hidden units or tokens up front", "[limits]") {
    AttendResult r;
    SECTION("512 words, 100 heads: 26M weights (ran for minutes) are refused as work") {
        AttendOptions o;
        o.score = Score::additive;
        o.heads = 100;
        CHECK_THAT(attend(vocab(), words(512), "", false, o, r).message(), StartsWith("work: 100 heads of 512 queries"));
    }
    SECTION("512 words, additive, 100 heads, hidden 4096 (ran for minutes)") {
        AttendOptions o;
        o.score = Score::additive;
        o.heads = 100;
        o.params.hidden = 4096;
        const Status st = attend(vocab(), words(512), "", false, o, r);
        // 100 heads x (512 + 512) x 4096 floats of W1 q and W2 k alone: memory is hit before work.
        CHECK_THAT(st.message(), StartsWith("memory: 100 heads of 512 queries x 512 keys needs") &&
                                     Contains("use fewer heads, shorter text, a smaller hidden size"));
        o.heads = 4;  // 4 x 512 x 512 x 4096 tanh: 4.4e9 x 32 multiply-adds
        CHECK_THAT(attend(vocab(), words(512), "", false, o, r).message(), StartsWith("work: 4 heads of 512 queries"));
        CHECK(r.attention.weights.empty());
    }
    SECTION("4096 tokens: one head is refused as work (3-5 s), ten as memory (29 s and 2.8 GB; twenty aborted)") {
        AttendOptions o;
        o.max_tokens = 4096;
        o.heads = 10;
        o.projection = Projection::random;
        const Status st = attend(vocab(), words(4096), "", false, o, r);
        CHECK_THAT(st.message(), StartsWith("memory: 10 heads of 4096 queries x 4096 keys needs"));
        o.heads = 20;
        CHECK_THAT(attend(vocab(), words(4096), "", false, o, r).message(), StartsWith("memory: 20 heads"));
        o.heads = 1;
        o.projection = Projection::identity;
        CHECK_THAT(attend(vocab(), words(4096), "", false, o, r).message(), StartsWith("work: 1 heads of 4096 queries"));
        CHECK(attend(vocab(), words(2048), "", false, o, r).ok());  // a quarter of the weights: accepted
        CHECK(r.attention.weights.size() == 1);
        o.heads = 4;
        CHECK(attend(vocab(), words(1024), "", false, o, r).ok());
    }
    SECTION("text beyond 1 MiB is refused before tokenizing") {
        std::string big(limits::kMaxTextBytes + 1, 'a');
        std::vector<Token> tokens;
        const Status st = tokenize(big, {}, tokens);
        CHECK(st.message() == "text: 1048577 bytes is more than the limit of 1048576 (1 MiB); split the text into shorter parts");
        AttendOptions o;
        CHECK_THAT(attend(vocab(), big, "", false, o, r).message(), StartsWith("query: text: 1048577 bytes"));
    }
}

TEST_CASE("limits: multi_head_attention checks before it allocates", "[limits]") {
    // 64 heads of identity attention over 4096 x 4096: 2 x 64 x 2^24 floats of scores and weights.
    std::vector<float> X(4096 * 64, 0.25f);
    MultiHeadOptions o;
    o.heads = 64;
    MultiHeadResult r;
    const Status st = multi_head_attention({X.data(), 4096, 64}, {X.data(), 4096, 64}, o, r);
    CHECK_THAT(st.message(), StartsWith("memory: 64 heads of 4096 queries x 4096 keys"));
    CHECK(r.scores.empty());
}
