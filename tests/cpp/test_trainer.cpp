// The head trainer (attnscope/trainer.hpp): its gradient against central finite differences of its own
// loss (in double, through evaluate()), determinism for a seed, a loss that falls and an accuracy that
// rises on a learnable rule (each word attends to the previous one), and its input checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attnscope/random.hpp"
#include "attnscope/trainer.hpp"
#include "test_util.hpp"

using namespace attnscope;

namespace {

// Sentences of random "word vectors" (a vocabulary of `words` random vectors) and previous-word targets.
TrainerData previous_word_data(std::size_t sentences, std::size_t d_in, std::uint32_t seed, std::size_t min_len = 3,
                               std::size_t max_len = 8) {
    Pcg32 rng(seed, 99);
    const std::size_t words = 40;
    std::vector<float> vocab(words * d_in);
    for (auto& x : vocab) x = rng.symmetric(1.0f);
    TrainerData d;
    for (std::size_t s = 0; s < sentences; ++s) {
        const auto n = static_cast<std::uint32_t>(min_len + rng.next() % (max_len - min_len + 1));
        d.lengths.push_back(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::size_t w = rng.next() % words;
            d.X.insert(d.X.end(), vocab.begin() + static_cast<std::ptrdiff_t>(w * d_in),
                       vocab.begin() + static_cast<std::ptrdiff_t>((w + 1) * d_in));
            d.targets.push_back(i == 0 ? -1 : static_cast<std::int32_t>(i - 1));
        }
    }
    return d;
}

// Pairs of a sentence of random "word vectors" and its "paraphrase": the same words rotated, one of
// them replaced by another word, and one dropped or one added (so the two lengths differ). Targets
// (cross-attention): the index in the paraphrase of the same word where it occurs exactly once in
// each; -1 otherwise. causal: targets a causal mask hides (key > query) become -1 too.
TrainerData paraphrase_data(std::size_t pairs, std::size_t d_in, std::uint32_t seed, std::size_t min_len = 3,
                            std::size_t max_len = 8, bool causal = false) {
    Pcg32 rng(seed, 77);
    const std::size_t words = 40;
    std::vector<float> vocab(words * d_in);
    for (auto& x : vocab) x = rng.symmetric(1.0f);
    TrainerData d;
    for (std::size_t s = 0; s < pairs; ++s) {
        const auto n = static_cast<std::uint32_t>(min_len + rng.next() % (max_len - min_len));
        std::vector<std::size_t> w(n), k;
        for (auto& x : w) x = rng.next() % words;
        const std::size_t rot = rng.next() % n;
        for (std::size_t i = 0; i < n; ++i) k.push_back(w[(i + rot) % n]);
        k[rng.next() % n] = rng.next() % words;
        if (rng.next() % 2 == 0 && k.size() > 1) k.erase(k.begin() + static_cast<std::ptrdiff_t>(rng.next() % k.size()));
        else k.insert(k.begin() + static_cast<std::ptrdiff_t>(rng.next() % (k.size() + 1)), rng.next() % words);
        d.lengths.push_back(n);
        d.key_lengths.push_back(static_cast<std::uint32_t>(k.size()));
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto at = [&](std::size_t id) { return vocab.begin() + static_cast<std::ptrdiff_t>(id * d_in); };
            d.X.insert(d.X.end(), at(w[i]), at(w[i] + 1));
            std::int32_t target = -1;
            std::size_t in_sentence = 0, in_key = 0;
            for (std::size_t x : w) in_sentence += x == w[i];
            for (std::size_t j = 0; j < k.size(); ++j)
                if (k[j] == w[i]) {
                    ++in_key;
                    target = static_cast<std::int32_t>(j);
                }
            if (in_sentence != 1 || in_key != 1 || (causal && static_cast<std::uint32_t>(target) > i)) target = -1;
            d.targets.push_back(target);
        }
        for (std::size_t id : k) d.KX.insert(d.KX.end(), vocab.begin() + static_cast<std::ptrdiff_t>(id * d_in),
                                             vocab.begin() + static_cast<std::ptrdiff_t>((id + 1) * d_in));
    }
    return d;
}

TrainerOptions small_options(Score score) {
    TrainerOptions o;
    o.d_in = 6;
    o.d_head = 4;
    o.positions = TrainerPositions::concat;
    o.d_pos = 6;
    o.max_len = 8;
    o.score = score;
    o.hidden = 3;
    o.batch = 4;
    o.seed = 7;
    o.learning_rate = 0.02f;
    return o;
}

const Score kScores[] = {Score::dot, Score::scaled_dot, Score::cosine, Score::general, Score::additive,
                         Score::location, Score::neg_euclidean, Score::neg_sq_euclidean, Score::idw,
                         Score::neg_manhattan};

}  // namespace

TEST_CASE("trainer: gradient equals finite differences of its loss, every score", "[trainer]") {
    for (Score score : kScores) {
        for (Mask mask : {Mask::none, Mask::causal}) {
            CAPTURE(std::string(score_info(score).name), mask == Mask::causal);
            TrainerOptions o = small_options(score);
            o.mask = mask;
            o.temperature = mask == Mask::causal ? 0.7f : 1.0f;
            TrainerData data = previous_word_data(3, o.d_in, 5);
            HeadTrainer t;
            REQUIRE(t.init(o, data).ok());
            HeadTrainer::Gradients g;
            REQUIRE(t.gradients({0, 1, 2}, g).ok());
            REQUIRE(g.grads.size() == t.params().size());
            // The loss of the same three sentences as a function of one parameter, through evaluate()
            // on a trainer whose parameters are moved (evaluate() averages over the same target rows).
            TrainerData three = data;
            three.offsets.clear();
            const double h = 1e-3;
            double scale = 0.0;
            for (float x : g.grads) scale = std::max(scale, static_cast<double>(std::fabs(x)));
            REQUIRE(scale > 0.0);
            Pcg32 pick(11, static_cast<std::uint64_t>(score) + 1);
            for (int k = 0; k < 24; ++k) {
                const std::size_t idx = pick.next() % t.params().size();
                auto loss_at = [&](double delta) {
                    HeadTrainer m;
                    REQUIRE(m.init(o, data).ok());
                    auto& p = const_cast<std::vector<float>&>(m.params());
                    p[idx] = static_cast<float>(static_cast<double>(p[idx]) + delta);
                    TrainerEval ev;
                    REQUIRE(m.evaluate(three, ev).ok());
                    return ev.loss;
                };
                // float parameters: the step is the float difference actually taken.
                const float p0 = t.params()[idx];
                const double up = static_cast<double>(static_cast<float>(p0 + h)) - p0;
                const double down = p0 - static_cast<double>(static_cast<float>(p0 - h));
                const double fd = (loss_at(up) - loss_at(-down)) / (up + down);
                CAPTURE(idx, fd, g.grads[idx]);
                CHECK(std::fabs(g.grads[idx] - fd) <= 2e-2 * std::fabs(fd) + 2e-3 * scale);
            }
        }
    }
}

TEST_CASE("trainer: same seed gives the same bytes, another seed others; loss falls on previous-word", "[trainer]") {
    TrainerOptions o;
    o.d_in = 12;
    o.d_head = 8;
    o.positions = TrainerPositions::concat;
    o.d_pos = 8;
    o.max_len = 10;
    o.batch = 8;
    o.seed = 3;
    o.learning_rate = 0.03f;
    const TrainerData train = previous_word_data(60, o.d_in, 1, 3, 10);
    const TrainerData held = previous_word_data(20, o.d_in, 2, 3, 10);
    HeadTrainer a, b, c;
    REQUIRE(a.init(o, train).ok());
    REQUIRE(b.init(o, train).ok());
    TrainerOptions oc = o;
    oc.seed = 4;
    REQUIRE(c.init(oc, train).ok());
    TrainerEval before;
    REQUIRE(a.evaluate(held, before).ok());
    REQUIRE(a.step(150).ok());
    REQUIRE(b.step(100).ok());
    REQUIRE(b.step(50).ok());
    REQUIRE(c.step(150).ok());
    REQUIRE(a.params().size() == b.params().size());
    CHECK(std::memcmp(a.params().data(), b.params().data(), a.params().size() * sizeof(float)) == 0);
    CHECK(std::memcmp(a.losses().data(), b.losses().data(), a.losses().size() * sizeof(float)) == 0);
    CHECK(std::memcmp(a.params().data(), c.params().data(), a.params().size() * sizeof(float)) != 0);
    TrainerEval after;
    REQUIRE(a.evaluate(held, after).ok());
    CAPTURE(before.loss, after.loss, before.hits, after.hits, after.count);
    CHECK(after.loss < 0.5 * before.loss);
    CHECK(static_cast<double>(after.hits) > 0.9 * static_cast<double>(after.count));
    // Reset by seed: back to the start, the same run again.
    a.reset(3);
    CHECK(a.losses().empty());
    REQUIRE(a.step(150).ok());
    CHECK(std::memcmp(a.params().data(), b.params().data(), a.params().size() * sizeof(float)) == 0);
}

TEST_CASE("trainer: checks its options and data", "[trainer]") {
    TrainerOptions o = small_options(Score::scaled_dot);
    HeadTrainer t;
    TrainerData d = previous_word_data(2, o.d_in, 1);
    TrainerData bad = d;
    bad.targets[1] = 5;
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("targets[1]"));
    bad = d;
    bad.lengths[0] = 9;
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("lengths[0]"));
    bad = d;
    bad.X.pop_back();
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("vectors"));
    bad = d;
    bad.X[3] = NAN;
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("element 3"));
    TrainerOptions causal = o;
    causal.mask = Mask::causal;
    bad = d;
    bad.targets[0] = 1;  // query 0 → key 1: hidden by the causal mask
    CHECK_THAT(t.init(causal, bad).message(), Catch::Contains("causal"));
    TrainerOptions zero = o;
    zero.temperature = 0.0f;
    CHECK_THAT(t.init(zero, d).message(), Catch::Contains("temperature"));
    CHECK_THAT(t.step(1).message(), Catch::Contains("not initialised"));
    REQUIRE(t.init(o, d).ok());
    Tensor A;
    Tensor X(9, o.d_in);
    CHECK_THAT(t.weights_of(X.view(), A).message(), Catch::Contains("maxLen"));
    Tensor X3(3, o.d_in, 0.5f);
    REQUIRE(t.weights_of(X3.view(), A).ok());
    for (std::size_t i = 0; i < 3; ++i) CHECK(std::fabs(A(i, 0) + A(i, 1) + A(i, 2) - 1.0f) < 1e-5f);
}

// ---- cross-attention (queries from a sentence, keys from its paraphrase) ----

TEST_CASE("trainer, cross-attention: gradient equals finite differences of its loss, every score and variant",
          "[trainer][cross]") {
    for (const auto& [vname, variant] : test::public_variants()) {
        if (variant == Variant::automatic) continue;  // the same code as one of the two
        for (Score score : kScores) {
            for (Mask mask : {Mask::none, Mask::causal}) {
                CAPTURE(vname, std::string(score_info(score).name), mask == Mask::causal);
                TrainerOptions o = small_options(score);
                o.mask = mask;
                o.variant = variant;
                o.temperature = mask == Mask::causal ? 0.7f : 1.0f;
                TrainerData data = paraphrase_data(3, o.d_in, 5, 3, 8, mask == Mask::causal);
                HeadTrainer t;
                REQUIRE(t.init(o, data).ok());
                REQUIRE(t.cross());
                HeadTrainer::Gradients g;
                REQUIRE(t.gradients({0, 1, 2}, g).ok());
                REQUIRE(g.count > 0);
                REQUIRE(g.grads.size() == t.params().size());
                const std::size_t key_rows = data.key_lengths[0] + data.key_lengths[1] + data.key_lengths[2];
                CHECK(g.G.rows == key_rows);
                CHECK(g.K.rows == key_rows);
                CHECK(g.dK.rows == key_rows);
                CHECK(g.Q.rows == data.lengths[0] + data.lengths[1] + data.lengths[2]);
                TrainerData three = data;
                double scale = 0.0;
                for (float x : g.grads) scale = std::max(scale, static_cast<double>(std::fabs(x)));
                REQUIRE(scale > 0.0);
                // Half the picks in W_k (whose gradient is the key sentences' features times dK), the
                // rest anywhere.
                const TrainerLayout& L = t.layout();
                Pcg32 pick(13, static_cast<std::uint64_t>(score) + 1);
                for (int k = 0; k < 24; ++k) {
                    const std::size_t idx = k % 2 ? L.Wk + pick.next() % (L.d_feat * o.d_head) : pick.next() % t.params().size();
                    auto loss_at = [&](double delta) {
                        HeadTrainer m;
                        REQUIRE(m.init(o, data).ok());
                        auto& p = const_cast<std::vector<float>&>(m.params());
                        p[idx] = static_cast<float>(static_cast<double>(p[idx]) + delta);
                        TrainerEval ev;
                        REQUIRE(m.evaluate(three, ev).ok());
                        return ev.loss;
                    };
                    const double h = 1e-3;
                    const float p0 = t.params()[idx];
                    const double up = static_cast<double>(static_cast<float>(p0 + h)) - p0;
                    const double down = p0 - static_cast<double>(static_cast<float>(p0 - h));
                    const double fd = (loss_at(up) - loss_at(-down)) / (up + down);
                    CAPTURE(idx, fd, g.grads[idx]);
                    CHECK(std::fabs(g.grads[idx] - fd) <= 2e-2 * std::fabs(fd) + 2e-3 * scale);
                }
            }
        }
    }
}

TEST_CASE("trainer, cross-attention: SIMD gradient matches the scalar reference", "[trainer][cross]") {
    for (Score score : kScores) {
        CAPTURE(std::string(score_info(score).name));
        TrainerOptions o = small_options(score);
        const TrainerData data = paraphrase_data(5, o.d_in, 9);
        HeadTrainer a, b;
        o.variant = Variant::scalar;
        REQUIRE(a.init(o, data).ok());
        o.variant = Variant::simd;
        REQUIRE(b.init(o, data).ok());
        HeadTrainer::Gradients ga, gb;
        REQUIRE(a.gradients({0, 1, 2, 3, 4}, ga).ok());
        REQUIRE(b.gradients({0, 1, 2, 3, 4}, gb).ok());
        double scale = 0.0;
        for (float x : ga.grads) scale = std::max(scale, static_cast<double>(std::fabs(x)));
        REQUIRE(ga.grads.size() == gb.grads.size());
        for (std::size_t i = 0; i < ga.grads.size(); ++i) {
            CAPTURE(i, ga.grads[i], gb.grads[i]);
            CHECK(std::fabs(ga.grads[i] - gb.grads[i]) <= 1e-3 * std::fabs(ga.grads[i]) + 1e-4 * scale);
        }
        CHECK(std::fabs(ga.loss - gb.loss) <= 1e-4 * std::fabs(ga.loss) + 1e-6);
    }
}

TEST_CASE("trainer, cross-attention: keys given as the sentence itself are self-attention, bit for bit", "[trainer][cross]") {
    for (Score score : {Score::scaled_dot, Score::general, Score::location, Score::idw}) {
        CAPTURE(std::string(score_info(score).name));
        TrainerOptions o = small_options(score);
        const TrainerData self = previous_word_data(12, o.d_in, 4);
        TrainerData cross = self;
        cross.KX = self.X;
        cross.key_lengths = self.lengths;
        HeadTrainer a, b;
        REQUIRE(a.init(o, self).ok());
        REQUIRE(b.init(o, cross).ok());
        CHECK_FALSE(a.cross());
        CHECK(b.cross());
        CHECK(a.step_work() == b.step_work());
        REQUIRE(a.step(20).ok());
        REQUIRE(b.step(20).ok());
        CHECK(std::memcmp(a.params().data(), b.params().data(), a.params().size() * sizeof(float)) == 0);
        CHECK(std::memcmp(a.losses().data(), b.losses().data(), a.losses().size() * sizeof(float)) == 0);
        Tensor X(5, o.d_in, 0.25f), A1, A2;
        X(2, 1) = -1.0f;
        REQUIRE(a.weights_of(X.view(), A1).ok());
        REQUIRE(a.weights_of(X.view(), X.view(), A2).ok());
        CHECK(A1.values == A2.values);
    }
}

TEST_CASE("trainer, cross-attention: deterministic, and learns to find the same word in the paraphrase", "[trainer][cross]") {
    TrainerOptions o;
    o.d_in = 12;
    o.d_head = 8;
    o.max_len = 10;
    o.batch = 8;
    o.seed = 3;
    o.learning_rate = 0.03f;
    o.score = Score::scaled_dot;
    const TrainerData train = paraphrase_data(60, o.d_in, 1, 3, 9);
    const TrainerData held = paraphrase_data(20, o.d_in, 2, 3, 9);
    HeadTrainer a, b;
    REQUIRE(a.init(o, train).ok());
    REQUIRE(b.init(o, train).ok());
    TrainerEval before;
    REQUIRE(a.evaluate(held, before).ok());
    REQUIRE(a.step(200).ok());
    REQUIRE(b.step(120).ok());
    REQUIRE(b.step(80).ok());
    CHECK(std::memcmp(a.params().data(), b.params().data(), a.params().size() * sizeof(float)) == 0);
    TrainerEval after;
    REQUIRE(a.evaluate(held, after).ok());
    CAPTURE(before.loss, after.loss, before.hits, after.hits, after.count);
    REQUIRE(after.count > 20);
    CHECK(after.loss < 0.5 * before.loss);
    CHECK(static_cast<double>(after.hits) > 0.9 * static_cast<double>(after.count));
    // The weights of one pair: n x m, rows summing to 1.
    Tensor X(4, o.d_in, 0.5f), KX(6, o.d_in, -0.5f), A;
    REQUIRE(a.weights_of(X.view(), KX.view(), A).ok());
    REQUIRE(A.rows == 4);
    REQUIRE(A.cols == 6);
    for (std::size_t i = 0; i < 4; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < 6; ++j) sum += A(i, j);
        CHECK(std::fabs(sum - 1.0) < 1e-5);
    }
}

TEST_CASE("trainer, cross-attention: checks the key sentences", "[trainer][cross]") {
    TrainerOptions o = small_options(Score::scaled_dot);
    HeadTrainer t;
    const TrainerData d = paraphrase_data(3, o.d_in, 1);
    TrainerData bad = d;
    bad.key_lengths.pop_back();
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("keyLengths: expected one key sentence per sentence"));
    bad = d;
    bad.key_lengths[1] = 9;
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("keyLengths[1]"));
    bad = d;
    bad.KX.pop_back();
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("keyVectors: expected"));
    bad = d;
    bad.KX[4] = INFINITY;
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("keyVectors: element 4"));
    bad = d;
    bad.key_lengths.clear();
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("keyVectors: given without keyLengths"));
    bad = d;
    bad.targets[0] = static_cast<std::int32_t>(d.key_lengths[0]);  // one past the key sentence's end
    CHECK_THAT(t.init(o, bad).message(), Catch::Contains("of its key sentence"));
    REQUIRE(t.init(o, d).ok());
    Tensor X(3, o.d_in, 0.5f), KX(9, o.d_in), A;
    CHECK_THAT(t.weights_of(X.view(), KX.view(), A).message(), Catch::Contains("keyVectors: expected 1 to maxLen"));
    // Evaluating self-attention data on a trainer trained on pairs (and back) is allowed.
    TrainerEval ev;
    CHECK(t.evaluate(previous_word_data(2, o.d_in, 1), ev).ok());
}

// ---- output modes: O = A V (value) or A V W_extra / √d (scaled), loss ‖O_i − x_t‖² / d ----

namespace {

// The loss of `data` under trainer options `o` with parameter idx moved by delta, through evaluate().
double moved_loss(const TrainerOptions& o, const TrainerData& data, std::size_t idx, double delta) {
    HeadTrainer m;
    REQUIRE(m.init(o, data).ok());
    auto& p = const_cast<std::vector<float>&>(m.params());
    p[idx] = static_cast<float>(static_cast<double>(p[idx]) + delta);
    TrainerEval ev;
    REQUIRE(m.evaluate(data, ev).ok());
    return ev.loss;
}

const char* output_name(TrainerOutput out) { return out == TrainerOutput::value ? "value" : "scaled"; }

}  // namespace

TEST_CASE("trainer, output modes: gradient equals finite differences of the squared-error loss, every score and variant",
          "[trainer][output]") {
    for (const auto& [vname, variant] : test::public_variants()) {
        if (variant == Variant::automatic) continue;
        for (TrainerOutput out : {TrainerOutput::value, TrainerOutput::scaled}) {
            for (Score score : kScores) {
                for (int shape = 0; shape < 3; ++shape) {  // self, self with the causal mask, cross
                    const bool causal = shape == 1, cross = shape == 2;
                    CAPTURE(vname, output_name(out), std::string(score_info(score).name), causal, cross);
                    TrainerOptions o = small_options(score);
                    o.variant = variant;
                    o.output = out;
                    o.mask = causal ? Mask::causal : Mask::none;
                    o.temperature = causal ? 0.7f : 1.0f;
                    // Three sentences; previous-word rows leave row 0 without a target (a row not counted).
                    const TrainerData data = cross ? paraphrase_data(3, o.d_in, 5) : previous_word_data(3, o.d_in, 5);
                    HeadTrainer t;
                    REQUIRE(t.init(o, data).ok());
                    const TrainerLayout& L = t.layout();
                    REQUIRE(L.Wv < L.total);
                    CHECK((L.Wx < L.total) == (out == TrainerOutput::scaled));
                    HeadTrainer::Gradients g;
                    REQUIRE(t.gradients({0, 1, 2}, g).ok());
                    REQUIRE(g.count > 0);
                    REQUIRE(g.V.cols == o.d_in);
                    REQUIRE(g.dV.rows == g.K.rows);
                    REQUIRE(g.dO.rows == g.Q.rows);
                    double scale = 0.0;
                    for (float x : g.grads) scale = std::max(scale, static_cast<double>(std::fabs(x)));
                    REQUIRE(scale > 0.0);
                    // A third of the probes in W_v, a third in W_extra (scaled) or W_q / W_k, the rest anywhere.
                    const std::size_t wv = L.d_feat * o.d_in, wx = o.d_in * o.d_in;
                    Pcg32 pick(17, static_cast<std::uint64_t>(score) * 7 + static_cast<std::uint64_t>(shape));
                    for (int k = 0; k < 18; ++k) {
                        std::size_t idx = pick.next() % t.params().size();
                        if (k % 3 == 0) idx = L.Wv + pick.next() % wv;
                        if (k % 3 == 1) idx = out == TrainerOutput::scaled ? L.Wx + pick.next() % wx : pick.next() % L.W;
                        const double h = 1e-3;
                        const float p0 = t.params()[idx];
                        const double up = static_cast<double>(static_cast<float>(p0 + h)) - p0;
                        const double down = p0 - static_cast<double>(static_cast<float>(p0 - h));
                        const double fd = (moved_loss(o, data, idx, up) - moved_loss(o, data, idx, -down)) / (up + down);
                        CAPTURE(idx, fd, g.grads[idx]);
                        CHECK(std::fabs(g.grads[idx] - fd) <= 2e-2 * std::fabs(fd) + 2e-3 * scale);
                    }
                    // dW_v = Gᵀ dV (G: the keys' features), in double.
                    const Tensor& G = cross ? g.G : g.F;
                    for (int k = 0; k < 6; ++k) {
                        const std::size_t a = pick.next() % L.d_feat, c = pick.next() % o.d_in;
                        double ref = 0.0;
                        for (std::size_t j = 0; j < G.rows; ++j) ref += static_cast<double>(G(j, a)) * g.dV(j, c);
                        CHECK(std::fabs(g.grads[L.Wv + a * o.d_in + c] - ref) <= 1e-4 * (std::fabs(ref) + scale));
                    }
                }
            }
        }
    }
}

TEST_CASE("trainer, output modes: SIMD gradient matches the scalar reference", "[trainer][output]") {
    for (TrainerOutput out : {TrainerOutput::value, TrainerOutput::scaled}) {
        for (Score score : kScores) {
            CAPTURE(output_name(out), std::string(score_info(score).name));
            TrainerOptions o = small_options(score);
            o.output = out;
            const TrainerData data = previous_word_data(5, o.d_in, 9);
            HeadTrainer a, b;
            o.variant = Variant::scalar;
            REQUIRE(a.init(o, data).ok());
            o.variant = Variant::simd;
            REQUIRE(b.init(o, data).ok());
            HeadTrainer::Gradients ga, gb;
            REQUIRE(a.gradients({0, 1, 2, 3, 4}, ga).ok());
            REQUIRE(b.gradients({0, 1, 2, 3, 4}, gb).ok());
            double scale = 0.0;
            for (float x : ga.grads) scale = std::max(scale, static_cast<double>(std::fabs(x)));
            REQUIRE(ga.grads.size() == gb.grads.size());
            for (std::size_t i = 0; i < ga.grads.size(); ++i) {
                CAPTURE(i, ga.grads[i], gb.grads[i]);
                CHECK(std::fabs(ga.grads[i] - gb.grads[i]) <= 1e-3 * std::fabs(ga.grads[i]) + 1e-4 * scale);
            }
            CHECK(std::fabs(ga.loss - gb.loss) <= 1e-4 * std::fabs(ga.loss) + 1e-6);
        }
    }
}

TEST_CASE("trainer, output modes: deterministic; output none keeps its parameters and bytes", "[trainer][output]") {
    TrainerOptions o = small_options(Score::scaled_dot);
    const TrainerData data = previous_word_data(20, o.d_in, 3);
    HeadTrainer none, value, scaled, again;
    REQUIRE(none.init(o, data).ok());
    o.output = TrainerOutput::value;
    REQUIRE(value.init(o, data).ok());
    o.output = TrainerOutput::scaled;
    REQUIRE(scaled.init(o, data).ok());
    REQUIRE(again.init(o, data).ok());
    const TrainerLayout& L = none.layout();
    CHECK(L.Wv == L.total);
    CHECK(L.Wx == L.total);
    // The same seed draws the same W_q, W_k in every mode (the output's matrices come after them).
    const std::size_t shared = L.total;
    CHECK(value.layout().Wv == shared);
    CHECK(scaled.layout().Wx == value.layout().total);
    CHECK(std::memcmp(none.params().data(), value.params().data(), shared * sizeof(float)) == 0);
    CHECK(std::memcmp(value.params().data(), scaled.params().data(), value.params().size() * sizeof(float)) == 0);
    REQUIRE(scaled.step(30).ok());
    REQUIRE(again.step(10).ok());
    REQUIRE(again.step(20).ok());
    CHECK(std::memcmp(scaled.params().data(), again.params().data(), scaled.params().size() * sizeof(float)) == 0);
    CHECK(std::memcmp(scaled.losses().data(), again.losses().data(), scaled.losses().size() * sizeof(float)) == 0);
    scaled.reset(o.seed);
    REQUIRE(scaled.step(30).ok());
    CHECK(std::memcmp(scaled.params().data(), again.params().data(), scaled.params().size() * sizeof(float)) == 0);
    HeadTrainer::Gradients g;
    REQUIRE(none.gradients({0, 1}, g).ok());
    CHECK(g.V.values.empty());
    CHECK(g.dV.values.empty());
    CHECK(g.dO.values.empty());
    TrainerEval ev;
    REQUIRE(none.evaluate(data, ev).ok());
    CHECK(ev.output_hits == 0);
}

TEST_CASE("trainer, output modes: learn to copy the previous word's vector from the output alone", "[trainer][output]") {
    for (TrainerOutput out : {TrainerOutput::value, TrainerOutput::scaled}) {
        CAPTURE(output_name(out));
        TrainerOptions o;
        o.d_in = 12;
        o.d_head = 8;
        o.positions = TrainerPositions::concat;
        o.d_pos = 8;
        o.max_len = 10;
        o.batch = 8;
        o.seed = 3;
        o.learning_rate = 0.03f;
        o.output = out;
        const TrainerData train = previous_word_data(60, o.d_in, 1, 3, 10);
        const TrainerData held = previous_word_data(20, o.d_in, 2, 3, 10);
        HeadTrainer t;
        REQUIRE(t.init(o, train).ok());
        TrainerEval before, after;
        REQUIRE(t.evaluate(held, before).ok());
        REQUIRE(t.step(300).ok());
        REQUIRE(t.evaluate(held, after).ok());
        CAPTURE(before.loss, after.loss, before.hits, after.hits, after.output_hits, after.count);
        CHECK(after.loss < 0.5 * before.loss);
        CHECK(static_cast<double>(after.output_hits) > 0.8 * static_cast<double>(after.count));
        CHECK(after.output_hits > before.output_hits);
    }
}

TEST_CASE("trainer, output modes: checks the option", "[trainer][output]") {
    TrainerOptions o = small_options(Score::scaled_dot);
    o.output = static_cast<TrainerOutput>(7);
    HeadTrainer t;
    CHECK_THAT(t.init(o, previous_word_data(2, o.d_in, 1)).message(), Catch::Contains("output: expected 'none', 'value' or 'scaled'"));
}

// evaluate() had no work budget: thousands of pairs per sentence times many sentences ran as long as
// they were given. It now counts them like a training batch and refuses past the call limit.
TEST_CASE("trainer: evaluate() of data too large for one call is refused before any work", "[trainer][budget]") {
    TrainerOptions o;
    o.d_in = 1;
    o.max_len = 1024;
    o.batch = 1;
    TrainerData train;
    train.lengths = {4};
    train.X = {0.1f, 0.2f, 0.3f, 0.4f};
    train.targets = {-1, 0, 1, 2};
    HeadTrainer t;
    REQUIRE(t.init(o, train).ok());
    TrainerData big;
    big.lengths.assign(13, 1024);   // 13 x 1024^2 pairs, each a score, its softmax and its share of the loss
    big.X.assign(13 * 1024, 0.5f);
    big.targets.assign(13 * 1024, -1);
    TrainerEval ev;
    const Status st = t.evaluate(big, ev);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Matchers::Contains("work: evaluate() of 13 sentences") &&
                                 Catch::Matchers::Contains("fewer sentences"));
    REQUIRE(t.evaluate(train, ev).ok());
    CHECK(ev.count == 3);
}
