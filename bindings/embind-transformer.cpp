// Embind glue of the transformer (src/attnscope/transformer.hpp): one TransformerState per JS model
// (bindings/scope-transformer.mjs), which validates arguments, owns the memory of the inputs
// (_malloc/_free) and hands copies to its callers. Arrays cross as addresses into the wasm heap;
// results come back as copies (new Float32Array of a memory view). Failure is an error message (empty
// string, or an object with `error`), never a throw: the core never throws, so the instance survives.
// How the glue is laid out: embind-registry.cpp.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "attnscope/model_trainer.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/transformer.hpp"
#include "attnscope/variant.hpp"
#include "embind-shared.hpp"
#include "embind-surgery.hpp"

using namespace attnscope;
using emscripten::val;
using attnscope::glue::error_object;
using attnscope::glue::float_copy;
using attnscope::glue::json_string;
using attnscope::glue::parse_scores;
using attnscope::glue::parse_surgery;

namespace {

// A count from JS as a size: a negative one as 0, which the core refuses with its own message.
std::size_t size_arg(int v) { return v < 0 ? std::size_t{0} : static_cast<std::size_t>(v); }

// What a loss call hands back: {error}, or {loss, count, hits, gradients?: Float32Array}.
val loss_object(const Status& st, const TransformerLoss& r, bool want_grads) {
    if (!st) return error_object(st.message());
    val out = val::object();
    out.set("loss", r.loss);
    out.set("count", static_cast<int>(r.count));
    out.set("hits", static_cast<int>(r.hits));
    if (want_grads) out.set("gradients", float_copy(r.grads));
    return out;
}

class TransformerState {
public:
    // kind: 0 = decoder, 1 = encoder-decoder. scores: "" or one registry name per head (layer-major; an
    // encoder-decoder's encoder heads, then its decoder's self-attention heads, then its cross-attention heads), comma separated.
    // positions: 0 learned, 1 sinusoidal; norm: 0 pre, 1 post; activation: 0 gelu, 1 relu, 2 tanh.
    std::string create(int kind, int layers, int heads, int d_model, int d_ff, int vocab, int max_tokens,
                       const std::string& scores, bool learned, double temperature, double seed, int positions, int norm, int activation) {
        if (kind != 0 && kind != 1) return "kind: expected 'decoder' or 'encoder-decoder'";
        if (positions < 0 || positions > 1 || norm < 0 || norm > 1 || activation < 0 || activation > 2)
            return "model: positions, norm or activation out of range (an internal error)";
        if (layers < 0 || heads < 0 || d_model < 0 || d_ff < 0 || vocab < 0 || max_tokens < 0 || !(seed >= 0 && seed <= 4294967295.0))
            return "model: a negative size or an out-of-range seed (an internal error)";
        TransformerConfig c;
        c.kind = kind == 1 ? ModelKind::encoder_decoder : ModelKind::decoder;
        c.layers = static_cast<std::size_t>(layers);
        c.heads = static_cast<std::size_t>(heads);
        c.d_model = static_cast<std::size_t>(d_model);
        c.d_ff = static_cast<std::size_t>(d_ff);
        c.vocab = static_cast<std::size_t>(vocab);
        c.max_tokens = static_cast<std::size_t>(max_tokens);
        std::string error;
        if (!parse_scores(scores, c.scores, error)) return error;
        c.learned_temperature = learned;
        c.temperature = static_cast<float>(temperature);
        c.seed = static_cast<std::uint32_t>(seed);
        c.positions = static_cast<Positions>(positions);
        c.norm = static_cast<Norm>(norm);
        c.activation = static_cast<MlpActivation>(activation);
        return Transformer::create(c, model_).message();
    }
    // [{"name", "shape": [..], "offset", "size"}, ...] in the order of the flat parameter array.
    std::string tensors_json() const {
        std::string out = "[";
        for (std::size_t i = 0; i < model_.tensors().size(); ++i) {
            const TensorInfo& t = model_.tensors()[i];
            if (i) out += ',';
            out += "{\"name\":";
            json_string(out, t.name);
            out += ",\"shape\":[";
            for (std::size_t k = 0; k < t.shape.size(); ++k) out += (k ? "," : "") + std::to_string(t.shape[k]);
            out += "],\"offset\":" + std::to_string(t.offset) + ",\"size\":" + std::to_string(t.size) + "}";
        }
        return out + "]";
    }
    // Every parameter, a copy: Float32Array laid out as tensors_json says.
    val params() const { return float_copy(model_.params()); }
    std::string set_tensor(int index, std::uintptr_t values, int count) {
        if (index < 0 || count < 0) return "parameters: a negative index or count (an internal error)";
        return model_.set_tensor(static_cast<std::size_t>(index), reinterpret_cast<const float*>(values), static_cast<std::size_t>(count))
            .message();
    }
    // ids: `count` int32 at `ids`; scores: "" or one name per head; ablate: "" or one '0'/'1' per head.
    // {error} or {n, attentions: Float32Array [L, H, n, n], logits: Float32Array [n, vocab]}.
    val encode(std::uintptr_t ids, int count, const std::string& scores, const std::string& ablate, Variant variant) const {
        val out = val::object();
        TransformerSurgery s;
        std::string error;
        if (!parse_surgery(scores, ablate, variant, s, error)) return error_object(error);
        TransformerRun r;
        if (Status st = model_.encode(reinterpret_cast<const std::int32_t*>(ids), size_arg(count), s, r);
            !st) {
            out.set("error", st.message());
            return out;
        }
        out.set("n", static_cast<int>(r.n));
        out.set("attentions", float_copy(r.attentions));
        out.set("logits", float_copy(r.logits));
        return out;
    }
    // encoder-decoder: source (ns ids) and target (nt). {error} or {n, nSource, attentions, encoderAttentions, cross, logits}.
    val encode_pair(std::uintptr_t source, int ns, std::uintptr_t target, int nt, const std::string& scores, const std::string& ablate,
                    Variant variant) const {
        val out = val::object();
        TransformerSurgery s;
        std::string error;
        if (!parse_surgery(scores, ablate, variant, s, error)) return error_object(error);
        TransformerRun r;
        if (Status st = model_.encode_pair(reinterpret_cast<const std::int32_t*>(source), size_arg(ns),
                                           reinterpret_cast<const std::int32_t*>(target), size_arg(nt), s, r);
            !st) {
            out.set("error", st.message());
            return out;
        }
        out.set("n", static_cast<int>(r.n));
        out.set("nSource", static_cast<int>(r.n_source));
        out.set("attentions", float_copy(r.attentions));
        out.set("encoderAttentions", float_copy(r.encoder_attentions));
        out.set("cross", float_copy(r.cross));
        out.set("logits", float_copy(r.logits));
        return out;
    }
    // ∂ logits[position, token] / ∂ A of every head (token < 0: the argmax at that position) on `count`
    // ids (a decoder), or on ns source ids and nt target ids (an encoder-decoder: pass ns > 0). {error} or
    // {n, position, token, logit, logits, attentions, gradients} (and nSource, encoderAttentions,
    // encoderGradients, cross, crossGradients for an encoder-decoder).
    val attention_gradients(std::uintptr_t source, int ns, std::uintptr_t ids, int count, int position, int token, const std::string& scores,
                            const std::string& ablate, Variant variant) const {
        TransformerSurgery s;
        std::string error;
        if (!parse_surgery(scores, ablate, variant, s, error)) return error_object(error);
        TransformerAttribution a;
        const auto* i = reinterpret_cast<const std::int32_t*>(ids);
        const Status st = model_.config().kind == ModelKind::encoder_decoder
                              ? model_.attention_gradients_pair(reinterpret_cast<const std::int32_t*>(source), size_arg(ns), i, size_arg(count),
                                                                size_arg(position), token, s, a)
                              : model_.attention_gradients(i, size_arg(count), size_arg(position), token, s, a);
        if (!st) return error_object(st.message());
        val out = val::object();
        out.set("n", static_cast<int>(a.run.n));
        out.set("position", static_cast<int>(a.position));
        out.set("token", static_cast<int>(a.token));
        out.set("logit", a.logit);
        out.set("logits", float_copy(a.run.logits));
        out.set("attentions", float_copy(a.run.attentions));
        out.set("gradients", float_copy(a.gradients));
        if (model_.config().kind == ModelKind::encoder_decoder) {
            out.set("nSource", static_cast<int>(a.run.n_source));
            out.set("encoderAttentions", float_copy(a.run.encoder_attentions));
            out.set("encoderGradients", float_copy(a.encoder_gradients));
            out.set("cross", float_copy(a.run.cross));
            out.set("crossGradients", float_copy(a.cross_gradients));
        }
        return out;
    }
    // encoder-decoder: rows pairs of ns source and nt target ids. {error} or {loss, count, hits, gradients?}.
    val loss_pairs(std::uintptr_t source, std::uintptr_t target, int rows, int ns, int nt, bool want_grads, Variant variant) const {
        TransformerLoss r;
        const Status st = model_.loss_pairs(reinterpret_cast<const std::int32_t*>(source), reinterpret_cast<const std::int32_t*>(target),
                                            size_arg(rows), size_arg(ns), size_arg(nt), want_grads, variant, r);
        return loss_object(st, r, want_grads);
    }
    // rows x cols ids and targets at the addresses. {error} or {loss, count, hits, gradients?: Float32Array}.
    val loss(std::uintptr_t ids, std::uintptr_t targets, int rows, int cols, bool want_grads, Variant variant) const {
        TransformerLoss r;
        const Status st = model_.loss(reinterpret_cast<const std::int32_t*>(ids), reinterpret_cast<const std::int32_t*>(targets), size_arg(rows),
                                      size_arg(cols), want_grads, variant, r);
        return loss_object(st, r, want_grads);
    }

    // The model as safetensors bytes (a Uint8Array copy), or {error}.
    val save() const {
        std::vector<std::uint8_t> bytes;
        if (Status st = model_.save_safetensors(bytes); !st) {
            val out = val::object();
            out.set("error", st.message());
            return out;
        }
        return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    }
    // Replaces the model with the one in a safetensors file (`size` bytes at `bytes`); "" or the message.
    std::string load(std::uintptr_t bytes, int size) {
        return Transformer::from_safetensors(reinterpret_cast<const std::uint8_t*>(bytes), size_arg(size), model_)
            .message();
    }
    std::string config_json() const { return model_.config_json(); }
    // The text of each id: a JS array of strings (the JS layer checked its type), or [] for none; "" or the message.
    std::string set_tokens(const val& list) {
        return model_.set_tokens(emscripten::vecFromJSArray<std::string>(list)).message();
    }
    // The text of each id (an array of strings), or [] when the model has none.
    val tokens() const {
        val out = val::array();
        for (const std::string& t : model_.tokens()) out.call<void>("push", t);
        return out;
    }
    Transformer& model() { return model_; }

private:
    Transformer model_;
};

// A decoder's ids and targets (rows x cols each), or (pairs) an encoder-decoder's source (rows x cols)
// and target (rows x target_cols). The JS layer checked the sizes against the arrays it copied.
// The copy token_data makes, checked against the per-call budget (and the heap) before it is made.
std::string data_cost(int rows, int cols, int target_cols) {
    Budget b;
    b.floats(static_cast<std::uint64_t>(rows < 0 ? 0 : rows), static_cast<std::uint64_t>(cols < 0 ? 0 : cols) + static_cast<std::uint64_t>(target_cols < 0 ? 0 : target_cols));
    return b.check("a copy of " + std::to_string(rows) + " rows of token data", "train on fewer rows, or in parts").message();
}

TokenData token_data(const Transformer& m, std::uintptr_t ids, std::uintptr_t targets, int rows, int cols, int target_cols) {
    TokenData d;
    d.rows = size_arg(rows);
    const std::size_t c = size_arg(cols), tc = size_arg(target_cols);
    const auto* i = reinterpret_cast<const std::int32_t*>(ids);
    const auto* t = reinterpret_cast<const std::int32_t*>(targets);
    if (m.config().kind == ModelKind::encoder_decoder) {
        d.source_cols = c;
        d.target_cols = tc;
        d.source.assign(i, i + d.rows * c);
        d.target.assign(t, t + d.rows * tc);
    } else {
        d.cols = c;
        d.ids.assign(i, i + d.rows * c);
        d.targets.assign(t, t + d.rows * c);
    }
    return d;
}

// One ModelTrainer owned by one JS ModelTrainer; it updates the TransformerState's model, which the JS
// layer keeps alive (and refuses to step once that model is disposed).
class ModelTrainerState {
public:
    // ids, targets, rows, cols: a decoder's data; an encoder-decoder's source, target, rows, sourceCols
    // (and target_cols). Keeps a pointer to the model (the JS layer keeps the model alive).
    std::string init(TransformerState& model, std::uintptr_t ids, std::uintptr_t targets, int rows, int cols, int target_cols, int batch,
                     double lr, double weight_decay, double clip, double seed, Variant variant) {
        ModelTrainerOptions o;
        o.batch = size_arg(batch);
        o.learning_rate = static_cast<float>(lr);
        o.weight_decay = static_cast<float>(weight_decay);
        o.clip = static_cast<float>(clip);
        o.seed = static_cast<std::uint32_t>(seed);
        o.variant = variant;
        if (std::string err = data_cost(rows, cols, target_cols); !err.empty()) return "data: " + err;
        model_ = &model.model();
        return t_.init(model.model(), o, token_data(model.model(), ids, targets, rows, cols, target_cols)).message();
    }
    std::string step(int count) { return t_.step(size_arg(count)).message(); }
    val losses() const { return float_copy(t_.losses()); }
    double last_grad_norm() const { return t_.last_grad_norm(); }
    // {error} or {loss, hits, count}
    val evaluate(std::uintptr_t ids, std::uintptr_t targets, int rows, int cols, int target_cols) const {
        val out = val::object();
        ModelEval e;
        if (!model_) return error_object("trainer: not initialised");
        if (std::string err = data_cost(rows, cols, target_cols); !err.empty()) return error_object("data: " + err);
        if (Status st = t_.evaluate(token_data(*model_, ids, targets, rows, cols, target_cols), e); !st) return error_object(st.message());
        out.set("loss", e.loss);
        out.set("hits", static_cast<double>(e.hits));
        out.set("count", static_cast<double>(e.count));
        return out;
    }

private:
    ModelTrainer t_;
    const Transformer* model_ = nullptr;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope_transformer) {
    using namespace emscripten;
    {
        using Self = TransformerState;
        class_<Self>("TransformerState")
            .constructor<>()
            ATTNSCOPE_JS_METHODS(create, tensors_json, params, set_tensor, encode, loss, encode_pair, attention_gradients,
                                 loss_pairs, save, load, config_json, set_tokens, tokens);
    }
    {
        using Self = ModelTrainerState;
        class_<Self>("ModelTrainerState")
            .constructor<>()
            ATTNSCOPE_JS_METHODS(init, step, losses, last_grad_norm, evaluate);
    }
}
