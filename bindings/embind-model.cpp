// Embind glue of the trained model (attnscope/model.hpp, USE-Lite): one ModelState per JS Model
// (bindings/scope-model.mjs), loaded from the model file's bytes; encode() with a surgery (re-scored,
// knocked-out or re-tempered heads) read by embind-surgery.hpp. How the glue is laid out:
// embind-registry.cpp.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/model.hpp"
#include "attnscope/variant.hpp"
#include "embind-shared.hpp"
#include "embind-surgery.hpp"

using namespace attnscope;
using namespace attnscope::glue;
using emscripten::val;

namespace {

class ModelState {
public:
    std::string load(std::uintptr_t bytes, int size) {
        return Model::from_bytes(reinterpret_cast<const std::uint8_t*>(bytes), static_cast<std::size_t>(size), model_).message();
    }
    int layers() const { return static_cast<int>(model_.layers()); }
    int heads() const { return static_cast<int>(model_.heads()); }
    int max_tokens() const { return static_cast<int>(model_.max_tokens()); }
    int vocabulary_rows() const { return static_cast<int>(model_.vocabulary_rows()); }
    int output_dim() const { return static_cast<int>(model_.output_dim()); }
    int head_dim(int layer) const { return static_cast<int>(model_.head_dim(static_cast<std::size_t>(layer))); }
    // The SentencePiece vocabulary as JSON: [[piece, score | null], ...] (the package's vocab.json form).
    std::string pieces_json() const {
        std::string out = "[";
        for (std::size_t i = 0; i < model_.pieces(); ++i) {
            if (i) out += ',';
            out += '[';
            json_string(out, std::string(model_.piece(i)));
            if (model_.piece_score_is_null(i)) {
                out += ",null]";
            } else {
                char num[32];
                std::snprintf(num, sizeof num, ",%.17g]", model_.piece_score(i));
                out += num;
            }
        }
        return out + "]";
    }
    // ids: `count` int32 at `ids`. scores: "" (the model's own) or one registry name per head, comma
    // separated, layer-major; ablate: "" or one '0'/'1' per head; temperatures: "" (τ = 1) or one
    // number per head, comma separated. Returns {error} or
    // {data: Float32Array [attentions [layers, heads, n, n] then embedding [dim]] (a copy), n, truncated}.
    val encode(std::uintptr_t ids, int count, const std::string& scores, const std::string& ablate, const std::string& temperatures,
               Variant variant) const {
        val out = val::object();
        ModelSurgery s;
        std::string error;
        if (!parse_surgery(scores, ablate, variant, s, error) || !parse_temperatures(temperatures, s.temperatures, error))
            return error_object(error);
        ModelResult r;
        const Status st = model_.encode(reinterpret_cast<const std::int32_t*>(ids), static_cast<std::size_t>(count), s, r);
        if (!st) return error_object(st.message());
        std::vector<float> all(std::move(r.attentions));
        all.insert(all.end(), r.embedding.begin(), r.embedding.end());
        out.set("data", float_copy(all));
        out.set("n", static_cast<double>(r.n));
        out.set("truncated", r.truncated);
        return out;
    }

private:
    Model model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope_model) {
    using namespace emscripten;
    using Self = ModelState;
    class_<Self>("ModelState")
        .smart_ptr_constructor("ModelState", &std::make_shared<Self>)
        ATTNSCOPE_JS_METHODS(load, layers, heads, max_tokens, vocabulary_rows, output_dim, head_dim, pieces_json, encode);
}
