// Embind glue of attentions that come from elsewhere (bindings/scope-imported.mjs): a model's
// attentions read from a file (npy, npz, safetensors, or raw floats), and what is computed over such a
// stack, rollout, attention flow and the per-head summaries. No state: every array is the caller's.
// How the glue is laid out: embind-registry.cpp.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/flow.hpp"
#include "attnscope/imported.hpp"
#include "attnscope/rollout.hpp"
#include "embind-shared.hpp"

using namespace attnscope;
using namespace attnscope::glue;
using emscripten::val;

namespace {

// format: "npy" | "npz" | "safetensors" | "f32" (raw float32 values of shape `shape`, "2,3,5,5": the
// JSON route, parsed in JS). tokens/key_tokens: JSON arrays of strings, or "" for none given.
// Returns {error} or {data: Float32Array [layers, heads, nq, nk] (a copy), meta: JSON
// {layers, heads, nq, nk, tokens, keyTokens, warnings}}.
val load_attentions(const std::string& format, std::uintptr_t bytes, int size, const std::string& shape,
                    const std::string& tokens_json, const std::string& key_tokens_json, bool apply_softmax) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(bytes);
    const auto n = static_cast<std::size_t>(size);
    FloatArray array;
    std::vector<std::string> tokens, key_tokens, file_tokens, file_key_tokens;
    Status st;
    if (format == "npy") st = parse_npy(b, n, array);
    else if (format == "npz") st = parse_npz(b, n, array, file_tokens, file_key_tokens);
    else if (format == "safetensors") st = parse_safetensors(b, n, array, file_tokens, file_key_tokens);
    else if (format == "f32") {
        std::size_t count = 1, d = 0;
        bool digit = false;
        for (std::size_t i = 0; i <= shape.size(); ++i) {
            if (i < shape.size() && shape[i] >= '0' && shape[i] <= '9') {
                if (d >= 100000000) return error_object("attentions: shape '" + shape + "' is over the limit");
                d = d * 10 + static_cast<std::size_t>(shape[i] - '0');
                digit = true;
            } else {
                if (!digit) return error_object("attentions: invalid shape '" + shape + "'");
                array.shape.push_back(d);
                count = d == 0 || count > kMaxAttentionValues ? 0 : count * d;
                d = 0;
                digit = false;
            }
        }
        if (count * 4 != n) return error_object("attentions: shape '" + shape + "' does not match " + std::to_string(n / 4) + " numbers");
        array.values.resize(count);
        if (count) std::memcpy(array.values.data(), b, n);
    } else {
        return error_object("format: unknown '" + format + "'");
    }
    if (!st) return error_object(st.message());
    if (!tokens_json.empty() && !(st = parse_string_array(tokens_json, tokens))) return error_object("tokens: " + st.message());
    if (!key_tokens_json.empty() && !(st = parse_string_array(key_tokens_json, key_tokens))) return error_object("keyTokens: " + st.message());
    // Tokens given to the call win over tokens stored in the file.
    if (tokens.empty()) tokens = std::move(file_tokens);
    if (key_tokens.empty()) key_tokens = std::move(file_key_tokens);
    ImportOptions o;
    o.apply_softmax = apply_softmax;
    ImportedAttention r;
    if (!(st = validate_attention(std::move(array), std::move(tokens), std::move(key_tokens), o, r))) return error_object(st.message());
    auto strings = [](std::string& s, const std::vector<std::string>& v) {
        s += '[';
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i) s += ',';
            json_string(s, v[i]);
        }
        s += ']';
    };
    std::string meta = "{\"layers\":" + std::to_string(r.layers) + ",\"heads\":" + std::to_string(r.heads) +
                       ",\"nq\":" + std::to_string(r.nq) + ",\"nk\":" + std::to_string(r.nk) + ",\"tokens\":";
    strings(meta, r.tokens);
    meta += ",\"keyTokens\":";
    strings(meta, r.key_tokens);
    meta += ",\"warnings\":";
    strings(meta, r.warnings);
    meta += '}';
    val out = val::object();
    out.set("data", float_copy(r.values));
    out.set("meta", meta);
    return out;
}

// Rollout's options (also attention flow's); head: "mean" | "max" | "index" (then head_index). False
// for another head name.
bool rollout_options(double residual, const std::string& head, int head_index, RolloutOptions& o) {
    o.residual = residual;
    if (head == "mean") o.head = RolloutHead::mean;
    else if (head == "max") o.head = RolloutHead::max;
    else if (head == "index") { o.head = RolloutHead::index; o.head_index = static_cast<std::size_t>(head_index); }
    else return false;
    return true;
}

std::string rollout_cost(int layers, int heads, int n) {
    return rollout_budget(static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(n)).message();
}
// Rollout and flow on a stack of attentions A ([layers, heads, n, n]) into out: their options read,
// then the core's `method` (attention_rollout or attention_flow); "" or the message.
template <class Method>
std::string on_stack(Method method, std::uintptr_t A, int layers, int heads, int n, double residual, const std::string& head,
                     int head_index, std::uintptr_t out) {
    RolloutOptions o;
    if (!rollout_options(residual, head, head_index, o)) return "head: unknown '" + head + "'";
    return method(fptr(A), static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(n), o, mfptr(out))
        .message();
}
std::string rollout(std::uintptr_t A, int layers, int heads, int n, double residual, const std::string& head, int head_index,
                    std::uintptr_t out) {
    return on_stack([](auto&&... a) { return attention_rollout(a...); }, A, layers, heads, n, residual, head, head_index, out);
}

// Attention flow, rollout's options (attnscope/flow.hpp); its budget, checked before the stack is copied.
std::string attention_flow_cost(int layers, int heads, int n) {
    return flow_budget(static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(n)).message();
}
std::string js_attention_flow(std::uintptr_t A, int layers, int heads, int n, double residual, const std::string& head, int head_index,
                              std::uintptr_t out) {
    return on_stack([](auto&&... a) { return attention_flow(a...); }, A, layers, heads, n, residual, head, head_index, out);
}

// out: 3 * layers * heads floats: entropy, max, meanMax, each [layers, heads].
std::string js_head_summaries(std::uintptr_t A, int layers, int heads, int nq, int nk, std::uintptr_t out) {
    const auto lh = static_cast<std::size_t>(layers) * static_cast<std::size_t>(heads);
    std::vector<HeadSummary> s(lh);
    Status st = head_summaries(fptr(A), static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(nq),
                               static_cast<std::size_t>(nk), s.data());
    if (!st) return st.message();
    float* o = mfptr(out);
    for (std::size_t i = 0; i < lh; ++i) {
        o[i] = s[i].entropy;
        o[lh + i] = s[i].max;
        o[2 * lh + i] = s[i].mean_max;
    }
    return "";
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope_imported) {
    using namespace emscripten;
    function("_loadAttentions", &load_attentions);
    function("_rollout", &rollout);
    function("_rolloutCost", &rollout_cost);
    function("_attentionFlow", &js_attention_flow);
    function("_attentionFlowCost", &attention_flow_cost);
    function("_headSummaries", &js_head_summaries);
}
