// Embind glue of the lab's head trainer (attnscope/trainer.hpp): one HeadTrainer per JS Trainer
// (bindings/scope-trainer.mjs), its options as one value object, its arrays as addresses the JS layer
// allocated. How the glue is laid out: embind-registry.cpp.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/trainer.hpp"
#include "attnscope/variant.hpp"
#include "embind-shared.hpp"

using namespace attnscope;
using namespace attnscope::glue;
using emscripten::val;

namespace {

// The JS trainer's options as one value object (names as in attnscope.d.ts).
struct JsTrainerOptions {
    int d_in = 0, d_head = 16, positions = 0, d_pos = 16, max_len = 64, hidden = 16, batch = 32, output = 0;
    Score score = Score::scaled_dot;
    double p = 2, eps = 1e-3, temperature = 1, learning_rate = 0.01, seed = 1;
    bool learned_temperature = false;
    Mask mask = Mask::none;
    Variant variant = Variant::automatic;
};

// Cross-attention: key_lengths nonzero, one key sentence per sentence (KX: key_tokens rows).
TrainerData trainer_data(std::uintptr_t X, int tokens, int d_in, std::uintptr_t lengths, int sentences, std::uintptr_t targets,
                         std::uintptr_t KX, int key_tokens, std::uintptr_t key_lengths) {
    TrainerData d;
    const auto nt = static_cast<std::size_t>(tokens), ns = static_cast<std::size_t>(sentences);
    d.X.assign(fptr(X), fptr(X) + nt * static_cast<std::size_t>(d_in));
    const auto* l = reinterpret_cast<const std::uint32_t*>(lengths);
    d.lengths.assign(l, l + ns);
    const auto* t = reinterpret_cast<const std::int32_t*>(targets);
    d.targets.assign(t, t + nt);
    if (key_lengths) {
        const auto* kl = reinterpret_cast<const std::uint32_t*>(key_lengths);
        d.key_lengths.assign(kl, kl + ns);
        d.KX.assign(fptr(KX), fptr(KX) + static_cast<std::size_t>(key_tokens) * static_cast<std::size_t>(d_in));
    }
    return d;
}

// One HeadTrainer owned by one JS Trainer. Arrays cross as addresses the JS layer allocated.
class JsTrainer {
public:
    std::string init(const JsTrainerOptions& jo, std::uintptr_t X, int tokens, std::uintptr_t lengths, int sentences,
                     std::uintptr_t targets, std::uintptr_t KX, int key_tokens, std::uintptr_t key_lengths) {
        TrainerOptions o;
        o.d_in = static_cast<std::size_t>(jo.d_in);
        o.d_head = static_cast<std::size_t>(jo.d_head);
        o.positions = static_cast<TrainerPositions>(jo.positions);
        o.d_pos = static_cast<std::size_t>(jo.d_pos);
        o.max_len = static_cast<std::size_t>(jo.max_len);
        o.hidden = static_cast<std::size_t>(jo.hidden);
        o.batch = static_cast<std::size_t>(jo.batch);
        o.score = jo.score;
        o.p = static_cast<float>(jo.p);
        o.eps = static_cast<float>(jo.eps);
        o.temperature = static_cast<float>(jo.temperature);
        o.learned_temperature = jo.learned_temperature;
        o.learning_rate = static_cast<float>(jo.learning_rate);
        o.seed = static_cast<std::uint32_t>(jo.seed);
        o.mask = jo.mask;
        o.variant = jo.variant;
        o.output = static_cast<TrainerOutput>(jo.output);
        return t_.init(o, trainer_data(X, tokens, jo.d_in, lengths, sentences, targets, KX, key_tokens, key_lengths)).message();
    }
    // "" or the limit's message for `count` steps in one call.
    std::string step_cost(double count) const {
        Budget b;
        b.work(static_cast<std::uint64_t>(count), t_.step_work());
        return b.check(std::to_string(static_cast<std::uint64_t>(count)) + " training steps", "call step() with fewer steps at a time")
            .message();
    }
    std::string step(int count) { return t_.step(static_cast<std::size_t>(count)).message(); }
    void reset(double seed) { t_.reset(static_cast<std::uint32_t>(seed)); }
    int param_count() const { return static_cast<int>(t_.params().size()); }
    void read_params(std::uintptr_t out) const {
        std::memcpy(mfptr(out), t_.params().data(), t_.params().size() * sizeof(float));
    }
    // [Wq, Wk, W, W1, W2, v, Wa, Wv, Wx, logTau, total, dFeat] offsets, as JSON.
    std::string layout_json() const {
        const TrainerLayout& L = t_.layout();
        return "{\"Wq\":" + std::to_string(L.Wq) + ",\"Wk\":" + std::to_string(L.Wk) + ",\"W\":" + std::to_string(L.W) +
               ",\"W1\":" + std::to_string(L.W1) + ",\"W2\":" + std::to_string(L.W2) + ",\"v\":" + std::to_string(L.v) +
               ",\"Wa\":" + std::to_string(L.Wa) + ",\"Wv\":" + std::to_string(L.Wv) + ",\"Wx\":" + std::to_string(L.Wx) +
               ",\"logTau\":" + std::to_string(L.log_tau) + ",\"total\":" + std::to_string(L.total) +
               ",\"dFeat\":" + std::to_string(L.d_feat) + "}";
    }
    val losses() const {
        const auto& l = t_.losses();
        return float_copy(l);
    }
    int examples() const { return static_cast<int>(t_.examples()); }
    bool cross() const { return t_.cross(); }
    // {error} or {loss, hits, count}
    val evaluate(std::uintptr_t X, int tokens, std::uintptr_t lengths, int sentences, std::uintptr_t targets, std::uintptr_t KX,
                 int key_tokens, std::uintptr_t key_lengths) const {
        val out = val::object();
        TrainerEval ev;
        Status st = t_.evaluate(trainer_data(X, tokens, static_cast<int>(t_.options().d_in), lengths, sentences, targets, KX,
                                             key_tokens, key_lengths),
                                ev);
        if (!st) return error_object(st.message());
        out.set("loss", ev.loss);
        out.set("hits", static_cast<double>(ev.hits));
        out.set("count", static_cast<double>(ev.count));
        out.set("outputHits", static_cast<double>(ev.output_hits));
        return out;
    }
    // KX = 0: self-attention (n x n); else cross-attention over m key rows (n x m).
    std::string weights_of(std::uintptr_t X, int n, std::uintptr_t KX, int m, std::uintptr_t out) const {
        Tensor A;
        const std::size_t d_in = t_.options().d_in;
        Status st = t_.weights_of(ConstMatrix(fptr(X), static_cast<std::size_t>(n), d_in),
                                  KX ? ConstMatrix(fptr(KX), static_cast<std::size_t>(m), d_in) : ConstMatrix(), A);
        if (!st) return st.message();
        copy_out(A, out);
        return "";
    }
    // {error} or {loss, count, rows, keyRows, data: Float32Array [grads (params), F, Q, K, dQ, dK, G, V, dV, dO]}
    // for the given training sentences (uint32 indices at `examples`); G (the key sentences' features)
    // is empty for self-attention; V, dV, dO are empty for output none.
    val gradients(std::uintptr_t examples, int count) const {
        val out = val::object();
        const auto* e = reinterpret_cast<const std::uint32_t*>(examples);
        HeadTrainer::Gradients g;
        Status st = t_.gradients(std::vector<std::uint32_t>(e, e + count), g);
        if (!st) return error_object(st.message());
        std::vector<float> all(g.grads);
        for (const Tensor* t : {&g.F, &g.Q, &g.K, &g.dQ, &g.dK, &g.G, &g.V, &g.dV, &g.dO}) all.insert(all.end(), t->values.begin(), t->values.end());
        out.set("loss", g.loss);
        out.set("count", static_cast<double>(g.count));
        out.set("rows", static_cast<double>(g.F.rows));
        out.set("keyRows", static_cast<double>(g.K.rows));
        out.set("data", float_copy(all));
        return out;
    }

private:
    HeadTrainer t_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope_trainer) {
    using namespace emscripten;
    {
        using Self = JsTrainerOptions;
        value_object<Self>("TrainerOptions")
            ATTNSCOPE_JS_FIELDS(d_in, d_head, positions, d_pos, max_len, hidden, batch, score, p, eps, temperature,
                                learned_temperature, learning_rate, seed, mask, variant, output);
    }
    {
        using Self = JsTrainer;
        class_<Self>("HeadTrainer")
            .constructor<>()
            ATTNSCOPE_JS_METHODS(init, step_cost, step, reset, param_count, read_params, layout_json, losses, examples, cross,
                                 evaluate, weights_of, gradients);
    }
}
