// Embind glue: low-level names (prefixed `_`) over the C++ core, called only by the JS layer in
// bindings/scope*.mjs, which validates arguments, owns the memory of the inputs (_malloc/_free) and
// hands copies to its callers. Matrices cross the boundary as addresses into the wasm heap; names
// (scores, variants, masks, projections) cross as Embind enums generated from the registry's lists
// (attnscope/registry.hpp): module.Score['scaled-dot'] and so on, one int on the wire.
// Every call reports failure as an error message (empty string = success), never by throwing: the
// core never throws, so a bad input can never abort the instance.
//
// There is no global mutable state here. A vocabulary belongs to a ScopeState, an Embind class that
// one JS AttnScope owns (several can live in one wasm instance); attend() leaves its whole result in
// one heap block that the JS layer copies out and frees within the same call (the pool's attend_kept
// holds its result only until release_kept), so nothing stays staged between calls.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/backward.hpp"
#include "attnscope/checked.hpp"
#include "attnscope/embeddings.hpp"
#include "attnscope/imported.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/model.hpp"
#include "attnscope/pipeline.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/flow.hpp"
#include "attnscope/rollout.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tokenizer.hpp"
#include "attnscope/trainer.hpp"
#include "attnscope/variant.hpp"
#include "embind-surgery.hpp"

using namespace attnscope;
using emscripten::val;

namespace {

const float* fptr(std::uintptr_t p) { return reinterpret_cast<const float*>(p); }
float* mfptr(std::uintptr_t p) { return reinterpret_cast<float*>(p); }

// The index of the first NaN or ±Inf among the n floats at p, or -1. The JS layer checks the large
// inputs of scores(), attention() and attentionOutput() here after copying them in: a JS loop over a
// 16 x 64 call's 3,072 inputs took about a fifth of the call. Blocks are scanned with an OR of the
// exponent test (vectorised), and only a block that has one is searched.
int first_non_finite(std::uintptr_t p, int n) {
    const float* f = fptr(p);
    constexpr int kBlock = 256;
    for (int start = 0; start < n; start += kBlock) {
        const int end = std::min(n, start + kBlock);
        std::uint32_t bad = 0;
        for (int i = start; i < end; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, f + i, sizeof bits);
            bad |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
        }
        if (bad) {
            for (int i = start; i < end; ++i) {
                if (!std::isfinite(f[i])) return i;
            }
        }
    }
    return -1;
}

// Pointer fields of the option structs, read from and written as wasm addresses.
template <class T, const float* T::*M>
std::uintptr_t get_address(const T& o) { return reinterpret_cast<std::uintptr_t>(o.*M); }
template <class T, const float* T::*M>
void set_address(T& o, std::uintptr_t a) { o.*M = fptr(a); }

// The seed is a uint32 that JS holds as a number.
double get_seed(const AttendOptions& o) { return o.seed; }
void set_seed(AttendOptions& o, double s) { o.seed = static_cast<std::uint32_t>(s); }

void json_string(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);  // UTF-8 bytes pass through: JSON is UTF-8
                }
        }
    }
    out += '"';
}

// The floats of an attend() result, in the order its JS readers take them (bindings/scope-text.mjs):
//   a header [nq, nk, heads, dOut, dHead[0..heads), dValue[0..heads)],
//   queryEmbeddings [nq, d], keyEmbeddings [nk, d], then (with `matrices`) scores [heads, nq, nk] and
//   weights [heads, nq, nk], entropy [heads, nq], maxWeight [heads, nq], argmax [heads, nq],
//   output [nq, dOut], then per head h: q [nq, dHead[h]], k [nk, dHead[h]], v [nk, dValue[h]].
// Without `matrices` the scores and weights are left out (the pool's shares read them in place).
std::size_t attend_float_count(const AttendResult& r, bool matrices) {
    const MultiHeadResult& a = r.attention;
    const std::size_t H = a.heads;
    std::size_t floats = 4 + 2 * H + r.query_embeddings.values.size() + r.key_embeddings.values.size() +
                         (matrices ? 2 * H * a.nq * a.nk : 0) + 3 * H * a.nq + a.output.values.size();
    for (std::size_t h = 0; h < H; ++h) floats += a.q[h].values.size() + a.k[h].values.size() + a.v[h].values.size();
    return floats;
}
// Writes attend_float_count(r, matrices) floats at `data`.
void write_attend_floats(const AttendResult& r, bool matrices, float* data) {
    const MultiHeadResult& a = r.attention;
    const std::size_t H = a.heads;
    std::size_t n = 0;
    auto push = [data, &n](float x) { data[n++] = x; };
    auto put = [data, &n](const std::vector<float>& v) {
        std::copy(v.begin(), v.end(), data + n);
        n += v.size();
    };
    push(static_cast<float>(a.nq));
    push(static_cast<float>(a.nk));
    push(static_cast<float>(H));
    push(static_cast<float>(a.output.cols));
    for (std::size_t h = 0; h < H; ++h) push(static_cast<float>(a.q[h].cols));
    for (std::size_t h = 0; h < H; ++h) push(static_cast<float>(a.v[h].cols));
    put(r.query_embeddings.values);
    put(r.key_embeddings.values);
    if (matrices) {
        for (std::size_t h = 0; h < H; ++h) put(a.scores[h].values);
        for (std::size_t h = 0; h < H; ++h) put(a.weights[h].values);
    }
    for (std::size_t h = 0; h < H; ++h)
        for (const RowStats& s : a.stats[h]) push(s.entropy);
    for (std::size_t h = 0; h < H; ++h)
        for (const RowStats& s : a.stats[h]) push(s.max_weight);
    for (std::size_t h = 0; h < H; ++h)
        for (const RowStats& s : a.stats[h]) push(static_cast<float>(s.argmax));
    put(a.output.values);
    for (std::size_t h = 0; h < H; ++h) {
        put(a.q[h].values);
        put(a.k[h].values);
        put(a.v[h].values);
    }
}

// entries: the vocabulary entry each token's vector came from (-1 = out of vocabulary).
void tokens_json(std::string& out, const Vocabulary& vocab, const std::vector<Token>& tokens,
                 const std::vector<std::int64_t>& entries) {
    out += '[';
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const Token& t = tokens[i];
        if (i) out += ',';
        out += "{\"text\":";
        json_string(out, t.text);
        out += ",\"lookup\":";
        json_string(out, t.lookup);
        out += ",\"start\":" + std::to_string(t.utf16_begin) + ",\"end\":" + std::to_string(t.utf16_end);
        out += ",\"kind\":\"";
        out += token_kind_name(t.kind);
        out += "\",\"oov\":";
        out += entries[i] < 0 ? "true" : "false";
        out += ",\"vocabWord\":";
        if (entries[i] < 0) out += "null";
        else json_string(out, vocab.word(static_cast<std::size_t>(entries[i])));
        out += '}';
    }
    out += ']';
}

// ---- information (no state) ---------------------------------------------------------------------

std::string registry_json_() { return registry_json(); }
std::string simd_isa_name() { return simd_isa(); }
std::string resolved_variant(Variant v) { return resolved_variant_name(v); }
int memory_in_use() { return static_cast<int>(mallinfo().uordblks); }

// ---- limits (attnscope/limits.hpp) ---------------------------------------------------------------

// The score name and the shapes of a cost query (backward_cost): "" when the name is
// known (then in `s`) and every shape is a whole number JS can hold exactly, else the message.
std::string cost_arguments(const std::string& score, Score& s, std::initializer_list<double> shapes) {
    if (!parse_score(score, s)) return "score: unknown name '" + score + "'";
    for (double x : shapes)
        if (!(x >= 0 && x <= 9007199254740992.0)) return "shape: expected whole numbers >= 0";
    return "";
}

// What scores() (dv = 0) or attention() (dv > 0) of these shapes will allocate and compute, checked
// by the JS layer before it allocates the outputs: "" or the message naming the limit. The shapes
// arrive as doubles (JS numbers, exact to 2^53) and are multiplied in 64 bits: nothing wraps.
std::string call_cost_of(Score s, double nq, double nk, double d, double dk, double dv, double hidden, bool output_only) {
    for (double x : {nq, nk, d, dk, dv, hidden})
        if (!(x >= 0 && x <= 9007199254740992.0)) return "shape: expected whole numbers >= 0";
    const auto u = [](double x) { return static_cast<std::uint64_t>(x); };
    Budget b;
    // The inputs are in the heap too (the JS layer copies them in).
    b.floats(u(nq), u(d));
    b.floats(u(nk), u(dk) + u(dv));
    // The call's description, written only for a refused call (this check runs on every call).
    const auto shape = [&](const char* what) {
        return what + std::to_string(u(nq)) + " queries x " + std::to_string(u(nk)) + " keys";
    };
    if (output_only && dv > 0) {
        add_fused_output_cost(b, s, u(nq), u(nk), u(d), u(dk), u(dv), u(hidden));
        return b.check_lazily([&] { return shape("attention output of "); }, "attend fewer queries per call (chunks of queries)",
                              limits::kMaxFusedWork)
            .message();
    }
    add_score_cost(b, s, u(nq), u(nk), u(d), u(dk), u(hidden));
    if (dv > 0) {
        b.floats(u(nq), u(nk));      // A
        b.floats(u(nq), u(dv) + 3);  // O and the row statistics
        b.work(u(nq), u(nk), u(dv));
        b.work(u(nq), u(nk), limits::kWeightCost);
    }
    return b.check_lazily([&] { return shape(dv > 0 ? "attention of " : "scores of "); },
                          dv > 0 ? "ask only for the output (attentionOutput(), which holds no queries x keys matrix), or attend fewer queries per call"
                                 : "score fewer queries or keys per call (chunks of queries), or use a smaller hidden size")
        .message();
}

// ---- bring your own vectors (no state: every array is the caller's) -----------------------------

std::string scores(std::uintptr_t Q, std::uintptr_t K, int nq, int nk, int d, int dk, Score s, Variant v,
                   const ScoreParams& params, std::uintptr_t S) {
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk);
    return compute_scores(s, ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                          ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)), params, Matrix(mfptr(S), unq, unk), v)
        .message();
}

std::string softmax(std::uintptr_t S, int rows, int cols, double temperature, Mask mask, std::uintptr_t padding,
                    Variant variant, std::uintptr_t A) {
    SoftmaxOptions o;
    o.temperature = static_cast<float>(temperature);
    o.mask = mask;
    o.variant = variant;
    o.key_padding = reinterpret_cast<const std::uint8_t*>(padding);
    const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
    return masked_softmax(ConstMatrix(fptr(S), r, c), o, Matrix(mfptr(A), r, c)).message();
}

// The options of attention() and attentionOutput(), as JS hands them over.
AttentionOptions attention_options(Score score, Variant variant, const ScoreParams& params, double temperature,
                                   Mask mask, std::uintptr_t padding, int query_offset) {
    AttentionOptions o;
    o.query_offset = static_cast<std::size_t>(query_offset < 0 ? 0 : query_offset);
    o.score = score;
    o.variant = variant;
    o.mask = mask;
    o.params = params;
    o.temperature = static_cast<float>(temperature);
    o.key_padding = reinterpret_cast<const std::uint8_t*>(padding);
    return o;
}

// stats: 3*nq floats (entropy, max weight, argmax as float) written to `stats`.
std::string js_attention(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk, int dv,
                         Score score, Variant variant, const ScoreParams& params, double temperature, Mask mask,
                         std::uintptr_t padding, std::uintptr_t S, std::uintptr_t A, std::uintptr_t O,
                         std::uintptr_t stats, int query_offset) {
    const AttentionOptions o = attention_options(score, variant, params, temperature, mask, padding, query_offset);
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk), udv = static_cast<std::size_t>(dv);
    // A null pointer (0 from JS) = not asked for: attention() then neither computes nor writes it.
    std::vector<RowStats> rs(stats ? unq : 0);
    Status st = attnscope::attention(ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                                     ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)),
                                     ConstMatrix(fptr(V), unk, udv), o, Matrix(mfptr(S), unq, unk),
                                     Matrix(mfptr(A), unq, unk), Matrix(mfptr(O), unq, udv), stats ? rs.data() : nullptr);
    if (!st) return st.message();
    if (!stats) return "";
    float* out = mfptr(stats);
    for (std::size_t i = 0; i < unq; ++i) {
        out[i] = rs[i].entropy;
        out[unq + i] = rs[i].max_weight;
        out[2 * unq + i] = static_cast<float>(rs[i].argmax);
    }
    return "";
}

// ---- imported attention (no state) ----------------------------------------------------------------

// format: "npy" | "npz" | "safetensors" | "f32" (raw float32 values of shape `shape`, "2,3,5,5": the
// JSON route, parsed in JS). tokens/key_tokens: JSON arrays of strings, or "" for none given.
// Returns {error} or {data: Float32Array [layers, heads, nq, nk] (a copy), meta: JSON
// {layers, heads, nq, nk, tokens, keyTokens, warnings}}.
val load_attentions(const std::string& format, std::uintptr_t bytes, int size, const std::string& shape,
                    const std::string& tokens_json, const std::string& key_tokens_json, bool apply_softmax) {
    val out = val::object();
    auto fail = [&out](const std::string& m) { out.set("error", m); return out; };
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
                if (d >= 100000000) return fail("attentions: shape '" + shape + "' is over the limit");
                d = d * 10 + static_cast<std::size_t>(shape[i] - '0');
                digit = true;
            } else {
                if (!digit) return fail("attentions: invalid shape '" + shape + "'");
                array.shape.push_back(d);
                count = d == 0 || count > kMaxAttentionValues ? 0 : count * d;
                d = 0;
                digit = false;
            }
        }
        if (count * 4 != n) return fail("attentions: shape '" + shape + "' does not match " + std::to_string(n / 4) + " numbers");
        array.values.resize(count);
        if (count) std::memcpy(array.values.data(), b, n);
    } else {
        return fail("format: unknown '" + format + "'");
    }
    if (!st) return fail(st.message());
    if (!tokens_json.empty() && !(st = parse_string_array(tokens_json, tokens))) return fail("tokens: " + st.message());
    if (!key_tokens_json.empty() && !(st = parse_string_array(key_tokens_json, key_tokens))) return fail("keyTokens: " + st.message());
    // Tokens given to the call win over tokens stored in the file.
    if (tokens.empty()) tokens = std::move(file_tokens);
    if (key_tokens.empty()) key_tokens = std::move(file_key_tokens);
    ImportOptions o;
    o.apply_softmax = apply_softmax;
    ImportedAttention r;
    if (!(st = validate_attention(std::move(array), std::move(tokens), std::move(key_tokens), o, r))) return fail(st.message());
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
    out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(r.values.size(), r.values.data())));
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
std::string rollout(std::uintptr_t A, int layers, int heads, int n, double residual, const std::string& head, int head_index,
                    std::uintptr_t out) {
    RolloutOptions o;
    if (!rollout_options(residual, head, head_index, o)) return "head: unknown '" + head + "'";
    return attention_rollout(fptr(A), static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(n), o,
                             mfptr(out))
        .message();
}

// Attention flow, rollout's options (attnscope/flow.hpp); its budget, checked before the stack is copied.
std::string attention_flow_cost(int layers, int heads, int n) {
    return flow_budget(static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(n)).message();
}
std::string js_attention_flow(std::uintptr_t A, int layers, int heads, int n, double residual, const std::string& head, int head_index,
                              std::uintptr_t out) {
    RolloutOptions o;
    if (!rollout_options(residual, head, head_index, o)) return "head: unknown '" + head + "'";
    return attention_flow(fptr(A), static_cast<std::size_t>(layers), static_cast<std::size_t>(heads), static_cast<std::size_t>(n), o,
                          mfptr(out))
        .message();
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

// O [nq, dv] only, through the fused kernel (attention_output): no nq x nk matrix is allocated.
std::string js_attention_output(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk,
                                int dv, Score score, Variant variant, const ScoreParams& params, double temperature,
                                Mask mask, std::uintptr_t padding, std::uintptr_t O, int query_offset) {
    const AttentionOptions o = attention_options(score, variant, params, temperature, mask, padding, query_offset);
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk), udv = static_cast<std::size_t>(dv);
    return attention_output(ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                            ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)), ConstMatrix(fptr(V), unk, udv), o,
                            Matrix(mfptr(O), unq, udv))
        .message();
}

// ---- gradients (attnscope/backward.hpp) and the head trainer (attnscope/trainer.hpp) -------------

// What attentionBackward() of these shapes will allocate and compute: the forward it recomputes
// (S, A, O), dA, the gradients (as large as the inputs) and the score's backward (counted as its
// forward twice). "" or the message naming the limit.
std::string backward_cost(const std::string& score, double nq, double nk, double d, double dk, double dv, double hidden) {
    Score s;
    if (std::string err = cost_arguments(score, s, {nq, nk, d, dk, dv, hidden}); !err.empty()) return err;
    const auto u = [](double x) { return static_cast<std::uint64_t>(x); };
    Budget b;
    for (int twice = 0; twice < 2; ++twice) {  // the inputs and dO, then their gradients
        b.floats(u(nq), u(d) + u(dv));
        b.floats(u(nk), u(dk) + u(dv));
    }
    for (int k = 0; k < 3; ++k) add_score_cost(b, s, u(nq), u(nk), u(d), u(dk), u(hidden));
    b.floats(u(nq), u(nk), 3);  // A, dA, the score backward's scratch
    b.work(u(nq), u(nk), u(dv), 3);
    b.work(u(nq), u(nk), limits::kWeightCost);
    return b.check("attention backward of " + std::to_string(u(nq)) + " queries x " + std::to_string(u(nk)) + " keys",
                   "differentiate fewer queries or keys per call")
        .message();
}

void copy_out(const Tensor& t, std::uintptr_t to) {
    if (to && !t.values.empty()) std::memcpy(mfptr(to), t.values.data(), t.values.size() * sizeof(float));
}

// Writes dQ, dK, dV and the score's parameter gradients (each where its address is nonzero).
std::string js_attention_backward(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk,
                                  int dv, Score score, Variant variant, const ScoreParams& params, double temperature,
                                  Mask mask, std::uintptr_t padding, std::uintptr_t dO, std::uintptr_t dQ,
                                  std::uintptr_t dK, std::uintptr_t dV, std::uintptr_t dW, std::uintptr_t dW1,
                                  std::uintptr_t dW2, std::uintptr_t dv_, std::uintptr_t dWa) {
    const AttentionOptions o = attention_options(score, variant, params, temperature, mask, padding, 0);
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk), udv = static_cast<std::size_t>(dv);
    AttentionGrads g;
    Status st = attention_backward(ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                                   ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)), ConstMatrix(fptr(V), unk, udv), o,
                                   ConstMatrix(fptr(dO), unq, udv), g);
    if (!st) return st.message();
    copy_out(g.dQ, dQ);
    copy_out(g.dK, dK);
    copy_out(g.dV, dV);
    copy_out(g.dW, dW);
    copy_out(g.dW1, dW1);
    copy_out(g.dW2, dW2);
    copy_out(g.dv, dv_);
    copy_out(g.dWa, dWa);
    return "";
}

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
        return val::global("Float32Array").new_(emscripten::typed_memory_view(l.size(), l.data()));
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
        if (!st) {
            out.set("error", st.message());
            return out;
        }
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
        if (!st) {
            out.set("error", st.message());
            return out;
        }
        std::vector<float> all(g.grads);
        for (const Tensor* t : {&g.F, &g.Q, &g.K, &g.dQ, &g.dK, &g.G, &g.V, &g.dV, &g.dO}) all.insert(all.end(), t->values.begin(), t->values.end());
        out.set("loss", g.loss);
        out.set("count", static_cast<double>(g.count));
        out.set("rows", static_cast<double>(g.F.rows));
        out.set("keyRows", static_cast<double>(g.K.rows));
        out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(all.size(), all.data())));
        return out;
    }

private:
    HeadTrainer t_;
};

// ---- one scope's state: its vocabulary ------------------------------------------------------------

class ScopeState {
public:
    std::string load_vocabulary(std::uintptr_t bytes, int size) {
        Vocabulary v;
        Status st = Vocabulary::from_bytes(reinterpret_cast<const std::uint8_t*>(bytes), static_cast<std::size_t>(size), v);
        if (!st) return st.message();
        vocab_ = std::move(v);
        return "";
    }
    int vocabulary_size() const { return static_cast<int>(vocab_.size()); }
    // This state's address, for the plain export attnscope_attend (the JS layer asks once per scope).
    std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(this); }
    const Vocabulary& vocabulary() const { return vocab_; }
    int vocabulary_dim() const { return static_cast<int>(vocab_.dim()); }

    // Writes the vector of `word` to out (dim floats). The word is normalised as the sentence pipeline
    // would (a single token's lookup form: lower-cased, curly apostrophes straightened), then resolved
    // with the documented stand-ins. Returns the vocabulary entry used, -1 when out of vocabulary,
    // -2 with no vocabulary.
    int embed(const std::string& word, std::uintptr_t out) const {
        if (vocab_.empty()) return -2;
        std::vector<Token> tokens;
        const std::string lookup =
            tokenize(word, TokenizerOptions{}, tokens).ok() && tokens.size() == 1 ? tokens[0].lookup : word;
        const std::int64_t entry = vocab_.resolve(lookup);
        if (entry >= 0) vocab_.vector(static_cast<std::size_t>(entry), mfptr(out));
        else vocab_.oov_vector(lookup, mfptr(out));
        return static_cast<int>(entry);
    }
    std::string vocabulary_word(int index) const { return vocab_.word(static_cast<std::size_t>(index)); }

    std::string nearest_json(std::uintptr_t vec, int k) const {
        std::string out = "[";
        for (const auto& [index, cosine] : vocab_.nearest(fptr(vec), static_cast<std::size_t>(k))) {
            if (out.size() > 1) out += ',';
            out += "{\"word\":";
            json_string(out, vocab_.word(index));
            // %.9g round-trips a float and is valid JSON for every finite value (std::to_string
            // printed 1e-40 as "0.000000" and a NaN as "nan"); a non-finite one becomes null.
            char num[32];
            if (std::isfinite(cosine)) std::snprintf(num, sizeof num, "%.9g", static_cast<double>(cosine));
            else std::snprintf(num, sizeof num, "null");
            out += ",\"cosine\":";
            out += num;
            out += "}";
        }
        return out + "]";
    }

    // {"tokens":[...]} or {"error":"..."}
    std::string tokenize_json(const std::string& text, int max_tokens) const {
        TokenizerOptions o;
        o.max_tokens = static_cast<std::size_t>(max_tokens);
        std::vector<Token> tokens;
        Status st = tokenize(text, o, tokens);
        std::string out;
        if (!st) {
            out = "{\"error\":";
            json_string(out, st.message());
            return out + "}";
        }
        std::vector<std::int64_t> entries(tokens.size(), -1);
        for (std::size_t i = 0; i < tokens.size(); ++i) entries[i] = vocab_.resolve(tokens[i].lookup);
        out = "{\"tokens\":";
        tokens_json(out, vocab_, tokens, entries);
        return out + "}";
    }

    // The pool's attend (never the scope's, which is the plain export attnscope_attend): `data`
    // without the scores and weights (attend_packed), which stay in the core's result, kept in the
    // heap until release_kept() (or the next
    // attend_kept): `scores` and `weights` are the heap addresses of each head's [nq, nk] floats.
    // The worker copies them from there straight into an array of its choice (the joined buffer, or
    // one it reuses), so that no call makes a fresh array of them, nor a second copy in the heap.
    // The addresses hold until the heap is freed or grows: the caller copies before any other call
    // into this instance.
    val attend_kept(const std::string& query, const std::string& keys, bool cross, const AttendOptions& o) {
        kept_ = std::make_unique<AttendResult>();
        return attend_packed(query, keys, cross, o, *kept_);
    }
    void release_kept() { kept_.reset(); }

    // The pool's share of attend() in one call. Returns {error: string} or {data, scores, weights, tokens}:
    //   data: one Float32Array (a copy), write_attend_floats' layout without the scores and weights;
    //   scores, weights: each head's [nq, nk] floats' heap address in `kept` (see attend_kept);
    //   tokens: '{"query":[Token...],"keys":[Token...]}' (JSON, Token as in attnscope.d.ts).
    val attend_packed(const std::string& query, const std::string& keys, bool cross, const AttendOptions& o, AttendResult& r) const {
        val out = val::object();
        const std::string err = attnscope::attend(vocab_, query, keys, cross, o, r).message();
        if (!err.empty()) {
            out.set("error", err);
            return out;
        }
        const MultiHeadResult& a = r.attention;
        const std::size_t H = a.heads, nq = a.nq, nk = a.nk;
        const std::size_t total = attend_float_count(r, false);
        // The one copy handed to JS, allocated with malloc so that a heap that cannot grow gives
        // an error message rather than the abort of a std::vector (the core's own allocations were
        // reserved by its budget check; this copy comes on top of them).
        float* data = static_cast<float*>(std::malloc(total * sizeof(float)));
        if (!data) {
            out.set("error", "memory: the result of " + std::to_string(H) + " heads of " + std::to_string(nq) +
                                 " queries x " + std::to_string(nk) + " keys needs " +
                                 std::to_string(total * sizeof(float) / 1048576) +
                                 " MiB more and the heap could not grow that far (the engine refused memory); "
                                 "use fewer heads or shorter text");
            return out;
        }
        std::unique_ptr<float, decltype(&std::free)> owner(data, &std::free);
        write_attend_floats(r, false, data);
        val scores = val::array(), weights = val::array();
        for (std::size_t h = 0; h < H; ++h) {
            scores.call<void>("push", static_cast<double>(reinterpret_cast<std::uintptr_t>(a.scores[h].values.data())));
            weights.call<void>("push", static_cast<double>(reinterpret_cast<std::uintptr_t>(a.weights[h].values.data())));
        }
        out.set("scores", scores);
        out.set("weights", weights);
        std::string tokens = "{\"query\":";
        tokens_json(tokens, vocab_, r.query_tokens, r.query_vocab);
        tokens += ",\"keys\":";
        tokens_json(tokens, vocab_, r.key_tokens, r.key_vocab);
        tokens += '}';
        // new Float32Array(view) copies the floats into JS memory before `data` is freed.
        out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(total, data)));
        out.set("tokens", tokens);
        return out;
    }

    // attend()'s output from its heads' outputs side by side (concat: nq x cols floats at `concat`),
    // for calls split over heads: {error} or {data: Float32Array [nq, dOut] (a copy), dOut}.
    val attend_output(std::uintptr_t concat, int nq, int cols, const AttendOptions& o) const {
        val out = val::object();
        Tensor result;
        const Status st = attend_output_projection(
            vocab_, o, ConstMatrix(fptr(concat), static_cast<std::size_t>(nq), static_cast<std::size_t>(cols)), result);
        if (!st) {
            out.set("error", st.message());
            return out;
        }
        out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(result.values.size(), result.values.data())));
        out.set("dOut", static_cast<double>(result.cols));
        return out;
    }

private:
    Vocabulary vocab_;
    // attend_kept()'s result (its scores and weights), until release_kept().
    std::unique_ptr<AttendResult> kept_;
};

// ---- a trained model (attnscope/model.hpp), owned by one JS Model object ---------------------------

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
        if (!glue::parse_surgery(scores, ablate, variant, s, error) || !glue::parse_temperatures(temperatures, s.temperatures, error)) {
            out.set("error", error);
            return out;
        }
        ModelResult r;
        const Status st = model_.encode(reinterpret_cast<const std::int32_t*>(ids), static_cast<std::size_t>(count), s, r);
        if (!st) {
            out.set("error", st.message());
            return out;
        }
        std::vector<float> all(std::move(r.attentions));
        all.insert(all.end(), r.embedding.begin(), r.embedding.end());
        out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(all.size(), all.data())));
        out.set("n", static_cast<double>(r.n));
        out.set("truncated", r.truncated);
        return out;
    }

private:
    Model model_;
};

}  // namespace

// ---- plain exports for the calls that must be cheap ---------------------------------------------
// An Embind function built without dynamic code (the page's Content-Security-Policy forbids it)
// converts every argument and its returned std::string in generic JS loops, and the ScoreParams
// value object field by field through the function table: about 5 µs of a 16 x 64 attention() call
// went there. The checks and the computations of scores(), attention() and attentionOutput() are
// also plain wasm exports: numbers in (enums as their integer values, ScoreParams as its fields),
// and 0 or the address of a NUL-terminated message out, which the JS layer decodes and frees.
namespace {
// A message is handed over in a malloc'ed copy that the JS layer frees after decoding it (nothing
// stays allocated between calls; malloc failing gives the generic message below, never an abort).
const char* message_or_null(const std::string& m) {
    if (m.empty()) return nullptr;
    char* out = static_cast<char*>(std::malloc(m.size() + 1));
    if (!out) return "memory: the heap could not grow for an error message";
    std::memcpy(out, m.c_str(), m.size() + 1);
    return out;
}
#define ATTNSCOPE_COUNT_ROW(...) +1
constexpr int kScoreCount = 0 ATTNSCOPE_SCORES(ATTNSCOPE_COUNT_ROW);
constexpr int kMaskCount = 0 ATTNSCOPE_MASKS(ATTNSCOPE_COUNT_ROW);
constexpr int kVariantCount = 1 ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_COUNT_ROW);
constexpr int kProjectionCount = 0 ATTNSCOPE_PROJECTIONS(ATTNSCOPE_COUNT_ROW);
#undef ATTNSCOPE_COUNT_ROW
// The enums and ScoreParams from the integers and fields JS passes; "" or the message.
std::string enums_from(int score, int variant, int mask, Score& s, Variant& v, Mask& m) {
    if (score < 0 || score >= kScoreCount) return "score: unknown score index " + std::to_string(score);
    if (variant < 0 || variant >= kVariantCount) return "variant: unknown variant index " + std::to_string(variant);
    if (mask < 0 || mask >= kMaskCount) return "mask: unknown mask index " + std::to_string(mask);
    s = static_cast<Score>(score);
    v = static_cast<Variant>(variant);
    m = static_cast<Mask>(mask);
    return "";
}
ScoreParams params_from(double p, double eps, std::uintptr_t W, std::uintptr_t W1, std::uintptr_t W2, std::uintptr_t v,
                        int hidden, std::uintptr_t Wa, int max_keys) {
    ScoreParams sp;
    sp.p = static_cast<float>(p);
    sp.eps = static_cast<float>(eps);
    sp.W = fptr(W);
    sp.W1 = fptr(W1);
    sp.W2 = fptr(W2);
    sp.v = fptr(v);
    sp.hidden = static_cast<std::size_t>(hidden < 0 ? 0 : hidden);
    sp.Wa = fptr(Wa);
    sp.max_keys = static_cast<std::size_t>(max_keys < 0 ? 0 : max_keys);
    return sp;
}

// ---- attend() as a plain export: the scope's call (the pool's shares with a place use attend_kept) ----
// The UTF-16 code units of UTF-8 text (a 4-byte sequence is a surrogate pair). For valid UTF-8 this
// is the decoded string's length; the JS layer checks the total and decodes string by string when
// it differs (bytes that are not UTF-8 decode to U+FFFD).
std::size_t utf16_units(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xc0u) == 0x80u ? 0 : (c >= 0xf0u ? 2 : 1);
    return n;
}

// The whole result of attend() in one malloc'ed block, which the JS layer copies out of and frees
// (bindings/scope-text.mjs, readAttendBlock). In order:
//   write_attend_floats' floats, the scores and weights included (`floats` of them);
//   per token (the query's, then the keys'), int32 [start, end, oov] (start, end in UTF-16 units);
//   per token, four strings: its text, lookup, kind and vocabulary word ("" when out of vocabulary):
//     int32 each string's end in UTF-16 units of the decoded table, then each string's end in bytes;
//   the string table, UTF-8.
// slot (int32[6]) receives: the block's address, floats, query tokens, key tokens, the table's
// UTF-16 units, the table's bytes. Returns "" or the message (nothing allocated then).
std::string attend_block(const Vocabulary& vocab, std::string_view query, std::string_view keys, bool cross,
                         const AttendOptions& o, std::int32_t* slot) {
    AttendResult r;
    if (Status st = attnscope::attend(vocab, query, keys, cross, o, r); !st) return st.message();
    const MultiHeadResult& a = r.attention;
    const std::size_t H = a.heads, nq = a.nq, nk = a.nk;
    const std::size_t floats = attend_float_count(r, true);
    const std::size_t ntok = r.query_tokens.size() + r.key_tokens.size();
    auto token = [&r](std::size_t i) -> const Token& {
        return i < r.query_tokens.size() ? r.query_tokens[i] : r.key_tokens[i - r.query_tokens.size()];
    };
    auto entry = [&r](std::size_t i) {
        return i < r.query_vocab.size() ? r.query_vocab[i] : r.key_vocab[i - r.query_vocab.size()];
    };
    auto word = [&](std::size_t i) -> std::string_view {
        const std::int64_t e = entry(i);
        return e < 0 ? std::string_view() : std::string_view(vocab.word(static_cast<std::size_t>(e)));
    };
    auto strings = [&](std::size_t i, auto&& fn) {
        const Token& t = token(i);
        fn(std::string_view(t.text));
        fn(std::string_view(t.lookup));
        fn(std::string_view(token_kind_name(t.kind)));
        fn(word(i));
    };
    std::uint64_t table = 0;
    for (std::size_t i = 0; i < ntok; ++i) strings(i, [&table](std::string_view s) { table += s.size(); });
    // Bytes: the floats, 3 + 8 int32 per token, the table (checked: wasm's size_t is 32 bits).
    std::uint64_t bytes = 0, ints = 0;
    std::size_t total = 0;
    const bool fits = checked_mul(11, ntok, ints) && checked_add(floats, ints, bytes) && checked_mul(bytes, 4, bytes) &&
                      checked_add(bytes, table, bytes) && bytes < (std::uint64_t{1} << 31) && to_size(bytes, total);
    char* block = fits ? static_cast<char*>(std::malloc(total)) : nullptr;
    if (!block) {
        return "memory: the result of " + std::to_string(H) + " heads of " + std::to_string(nq) + " queries x " +
               std::to_string(nk) + " keys needs " + std::to_string(bytes / 1048576) +
               " MiB more and the heap could not grow that far (the engine refused memory); use fewer heads or shorter text";
    }
    float* data = reinterpret_cast<float*>(block);
    write_attend_floats(r, true, data);
    std::int32_t* rec = reinterpret_cast<std::int32_t*>(data + floats);
    std::int32_t* u16_end = rec + 3 * ntok;
    std::int32_t* byte_end = u16_end + 4 * ntok;
    char* text = reinterpret_cast<char*>(byte_end + 4 * ntok);
    std::size_t k = 0, u16 = 0, at = 0;
    for (std::size_t i = 0; i < ntok; ++i) {
        const Token& t = token(i);
        rec[3 * i] = static_cast<std::int32_t>(t.utf16_begin);
        rec[3 * i + 1] = static_cast<std::int32_t>(t.utf16_end);
        rec[3 * i + 2] = entry(i) < 0 ? 1 : 0;
        strings(i, [&](std::string_view s) {
            std::memcpy(text + at, s.data(), s.size());
            at += s.size();
            u16 += utf16_units(s);
            u16_end[k] = static_cast<std::int32_t>(u16);
            byte_end[k++] = static_cast<std::int32_t>(at);
        });
    }
    slot[0] = static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(block));
    slot[1] = static_cast<std::int32_t>(floats);
    slot[2] = static_cast<std::int32_t>(r.query_tokens.size());
    slot[3] = static_cast<std::int32_t>(r.key_tokens.size());
    slot[4] = static_cast<std::int32_t>(u16);
    slot[5] = static_cast<std::int32_t>(at);
    return "";
}
}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* attnscope_call_cost(int score, double nq, double nk, double d, double dk, double dv,
                                                     double hidden, int output_only) {
    if (score < 0 || score >= kScoreCount) return message_or_null("score: unknown score index " + std::to_string(score));
    return message_or_null(call_cost_of(static_cast<Score>(score), nq, nk, d, dk, dv, hidden, output_only != 0));
}

EMSCRIPTEN_KEEPALIVE int attnscope_first_non_finite(std::uintptr_t p, int n) { return first_non_finite(p, n); }

EMSCRIPTEN_KEEPALIVE const char* attnscope_scores(std::uintptr_t Q, std::uintptr_t K, int nq, int nk, int d, int dk, int score,
                                                  int variant, double p, double eps, std::uintptr_t W, std::uintptr_t W1,
                                                  std::uintptr_t W2, std::uintptr_t v, int hidden, std::uintptr_t Wa,
                                                  int max_keys, std::uintptr_t S) {
    Score s;
    Variant var;
    Mask m;
    if (std::string err = enums_from(score, variant, 0, s, var, m); !err.empty()) return message_or_null(err);
    return message_or_null(scores(Q, K, nq, nk, d, dk, s, var, params_from(p, eps, W, W1, W2, v, hidden, Wa, max_keys), S));
}

}  // extern "C"

namespace {
// attention() and attentionOutput() make their checks in the same call as the computation, in the
// order the JS layer made them as separate calls: the call's cost (cost: 0 = already checked by the
// caller, before it allocated a large block; 1 = attention()'s; 2 = the output-only path's), then
// the inputs' finiteness over the floats [finite, finite + 4 * finite_count) (Q, K and V with the
// gaps between them zeroed), then the call. One crossing of the boundary instead of three.
// Returns 0 when done, the address of a message (message_or_null) when refused, or -1 - i when the
// span's element i is NaN or infinite (the JS layer names the array and the index).
std::intptr_t message_code(const std::string& m) {
    return static_cast<std::intptr_t>(reinterpret_cast<std::uintptr_t>(message_or_null(m)));
}
std::intptr_t checked_first(int score, int nq, int nk, int d, int dk, int dv, int hidden, int cost, std::uintptr_t finite,
                            int finite_count) {
    if (cost != 0) {
        if (score < 0 || score >= kScoreCount) return message_code("score: unknown score index " + std::to_string(score));
        if (std::string err = call_cost_of(static_cast<Score>(score), nq, nk, d, dk, dv, hidden, cost == 2); !err.empty())
            return message_code(err);
    }
    if (finite_count > 0)
        if (const int bad = first_non_finite(finite, finite_count); bad >= 0) return -1 - static_cast<std::intptr_t>(bad);
    return 0;
}
}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE std::intptr_t attnscope_attention(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk,
                                                       int d, int dk, int dv, int score, int variant, double p, double eps,
                                                       std::uintptr_t W, std::uintptr_t W1, std::uintptr_t W2, std::uintptr_t v,
                                                       int hidden, std::uintptr_t Wa, int max_keys, double temperature, int mask,
                                                       std::uintptr_t padding, std::uintptr_t S, std::uintptr_t A,
                                                       std::uintptr_t O, std::uintptr_t stats, int query_offset, int cost,
                                                       std::uintptr_t finite, int finite_count) {
    if (const std::intptr_t r = checked_first(score, nq, nk, d, dk, dv, hidden, cost, finite, finite_count); r != 0) return r;
    Score s;
    Variant var;
    Mask m;
    if (std::string err = enums_from(score, variant, mask, s, var, m); !err.empty()) return message_code(err);
    return message_code(js_attention(Q, K, V, nq, nk, d, dk, dv, s, var, params_from(p, eps, W, W1, W2, v, hidden, Wa, max_keys),
                                     temperature, m, padding, S, A, O, stats, query_offset));
}

EMSCRIPTEN_KEEPALIVE std::intptr_t attnscope_attention_output(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq,
                                                              int nk, int d, int dk, int dv, int score, int variant, double p,
                                                              double eps, std::uintptr_t W, std::uintptr_t W1,
                                                              std::uintptr_t W2, std::uintptr_t v, int hidden,
                                                              std::uintptr_t Wa, int max_keys, double temperature, int mask,
                                                              std::uintptr_t padding, std::uintptr_t O, int query_offset,
                                                              int cost, std::uintptr_t finite, int finite_count) {
    if (const std::intptr_t r = checked_first(score, nq, nk, d, dk, dv, hidden, cost, finite, finite_count); r != 0) return r;
    Score s;
    Variant var;
    Mask m;
    if (std::string err = enums_from(score, variant, mask, s, var, m); !err.empty()) return message_code(err);
    return message_code(js_attention_output(Q, K, V, nq, nk, d, dk, dv, s, var,
                                            params_from(p, eps, W, W1, W2, v, hidden, Wa, max_keys), temperature, m, padding,
                                            O, query_offset));
}

// attend() for one scope (state: ScopeState::address()): the texts as UTF-8 bytes, AttendOptions as
// its fields (enums as integers, ScoreParams as in attnscope_scores); the result goes to `slot` as
// attend_block says. Returns 0 or the message.
EMSCRIPTEN_KEEPALIVE const char* attnscope_attend(std::uintptr_t state, std::uintptr_t query, int query_bytes, std::uintptr_t keys,
                                                  int keys_bytes, int cross, int score, int variant, double p, double eps,
                                                  std::uintptr_t W, std::uintptr_t W1, std::uintptr_t W2, std::uintptr_t v,
                                                  int hidden, std::uintptr_t Wa, int max_keys, double temperature, int heads,
                                                  int projection, double seed, int positional, int mask, int max_tokens,
                                                  int experimental_scaled_output, std::uintptr_t Wq, std::uintptr_t Wk,
                                                  std::uintptr_t Wv, std::uintptr_t Wo, int d_head, int d_value, int d_out,
                                                  int head_begin, int head_end, std::uintptr_t slot) {
    AttendOptions o;
    if (std::string err = enums_from(score, variant, mask, o.score, o.variant, o.mask); !err.empty()) return message_or_null(err);
    if (projection < 0 || projection >= kProjectionCount)
        return message_or_null("projection: unknown projection index " + std::to_string(projection));
    if (heads < 1 || max_tokens < 1 || d_head < 0 || d_value < 0 || d_out < 0 || head_begin < 0 || head_end < 0 ||
        query_bytes < 0 || keys_bytes < 0 || !(seed >= 0 && seed <= 4294967295.0))
        return message_or_null("attend: a negative count or an out-of-range seed (an internal error)");
    o.projection = static_cast<Projection>(projection);
    o.params = params_from(p, eps, W, W1, W2, v, hidden, Wa, max_keys);
    o.temperature = static_cast<float>(temperature);
    o.heads = static_cast<std::size_t>(heads);
    o.seed = static_cast<std::uint32_t>(seed);
    o.positional = positional != 0;
    o.max_tokens = static_cast<std::size_t>(max_tokens);
    o.experimental_scaled_output = experimental_scaled_output != 0;
    o.Wq = fptr(Wq);
    o.Wk = fptr(Wk);
    o.Wv = fptr(Wv);
    o.Wo = fptr(Wo);
    o.d_head = static_cast<std::size_t>(d_head);
    o.d_value = static_cast<std::size_t>(d_value);
    o.d_out = static_cast<std::size_t>(d_out);
    o.head_begin = static_cast<std::size_t>(head_begin);
    o.head_end = static_cast<std::size_t>(head_end);
    const auto* s = reinterpret_cast<const ScopeState*>(state);
    return message_or_null(attend_block(s->vocabulary(), std::string_view(reinterpret_cast<const char*>(query), static_cast<std::size_t>(query_bytes)),
                                        std::string_view(reinterpret_cast<const char*>(keys), static_cast<std::size_t>(keys_bytes)),
                                        cross != 0, o, reinterpret_cast<std::int32_t*>(slot)));
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(attnscope) {
    using namespace emscripten;
    value_object<ScoreParams>("ScoreParams")
        .field("W", &get_address<ScoreParams, &ScoreParams::W>, &set_address<ScoreParams, &ScoreParams::W>)
        .field("W1", &get_address<ScoreParams, &ScoreParams::W1>, &set_address<ScoreParams, &ScoreParams::W1>)
        .field("W2", &get_address<ScoreParams, &ScoreParams::W2>, &set_address<ScoreParams, &ScoreParams::W2>)
        .field("v", &get_address<ScoreParams, &ScoreParams::v>, &set_address<ScoreParams, &ScoreParams::v>)
        .field("hidden", &ScoreParams::hidden)
        .field("Wa", &get_address<ScoreParams, &ScoreParams::Wa>, &set_address<ScoreParams, &ScoreParams::Wa>)
        .field("maxKeys", &ScoreParams::max_keys)
        .field("p", &ScoreParams::p)
        .field("eps", &ScoreParams::eps);
    // The registry's lists as enums: JS passes module.Score[name] etc. (names from registry_json()).
#define ATTNSCOPE_ENUM_VALUE(id, name, ...) .value(name, Enum::id)
    {
        using Enum = Score;
        enum_<Score>("Score") ATTNSCOPE_SCORES(ATTNSCOPE_ENUM_VALUE);
    }
    {
        using Enum = Mask;
        enum_<Mask>("Mask") ATTNSCOPE_MASKS(ATTNSCOPE_ENUM_VALUE);
    }
    {
        using Enum = Projection;
        enum_<Projection>("Projection") ATTNSCOPE_PROJECTIONS(ATTNSCOPE_ENUM_VALUE);
    }
    {
        using Enum = Variant;
        enum_<Variant>("Variant").value("auto", Variant::automatic) ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_ENUM_VALUE);
    }
#undef ATTNSCOPE_ENUM_VALUE
    value_object<AttendOptions>("AttendOptions")
        .field("score", &AttendOptions::score)
        .field("params", &AttendOptions::params)
        .field("temperature", &AttendOptions::temperature)
        .field("heads", &AttendOptions::heads)
        .field("projection", &AttendOptions::projection)
        .field("seed", &get_seed, &set_seed)
        .field("positional", &AttendOptions::positional)
        .field("mask", &AttendOptions::mask)
        .field("variant", &AttendOptions::variant)
        .field("maxTokens", &AttendOptions::max_tokens)
        .field("experimentalScaledOutput", &AttendOptions::experimental_scaled_output)
        .field("Wq", &get_address<AttendOptions, &AttendOptions::Wq>, &set_address<AttendOptions, &AttendOptions::Wq>)
        .field("Wk", &get_address<AttendOptions, &AttendOptions::Wk>, &set_address<AttendOptions, &AttendOptions::Wk>)
        .field("Wv", &get_address<AttendOptions, &AttendOptions::Wv>, &set_address<AttendOptions, &AttendOptions::Wv>)
        .field("Wo", &get_address<AttendOptions, &AttendOptions::Wo>, &set_address<AttendOptions, &AttendOptions::Wo>)
        .field("dHead", &AttendOptions::d_head)
        .field("dValue", &AttendOptions::d_value)
        .field("dOut", &AttendOptions::d_out)
        .field("headBegin", &AttendOptions::head_begin)
        .field("headEnd", &AttendOptions::head_end);

    class_<ScopeState>("ScopeState")
        .smart_ptr_constructor("ScopeState", &std::make_shared<ScopeState>)
        .function("loadVocabulary", &ScopeState::load_vocabulary)
        .function("vocabularySize", &ScopeState::vocabulary_size)
        .function("address", &ScopeState::address)
        .function("vocabularyDim", &ScopeState::vocabulary_dim)
        .function("embed", &ScopeState::embed)
        .function("vocabularyWord", &ScopeState::vocabulary_word)
        .function("nearestJson", &ScopeState::nearest_json)
        .function("tokenizeJson", &ScopeState::tokenize_json)
        .function("attendKept", &ScopeState::attend_kept)
        .function("releaseKept", &ScopeState::release_kept)
        .function("attendOutput", &ScopeState::attend_output);

    class_<ModelState>("ModelState")
        .smart_ptr_constructor("ModelState", &std::make_shared<ModelState>)
        .function("load", &ModelState::load)
        .function("layers", &ModelState::layers)
        .function("heads", &ModelState::heads)
        .function("maxTokens", &ModelState::max_tokens)
        .function("vocabularyRows", &ModelState::vocabulary_rows)
        .function("outputDim", &ModelState::output_dim)
        .function("headDim", &ModelState::head_dim)
        .function("piecesJson", &ModelState::pieces_json)
        .function("encode", &ModelState::encode);

    function("_registryJson", &registry_json_);
    function("_simdIsa", &simd_isa_name);
    function("_resolvedVariant", &resolved_variant);
    function("_memoryInUse", &memory_in_use);
    function("_softmax", &softmax);
    function("_loadAttentions", &load_attentions);
    function("_rollout", &rollout);
    function("_rolloutCost", &rollout_cost);
    function("_attentionFlow", &js_attention_flow);
    function("_attentionFlowCost", &attention_flow_cost);
    function("_headSummaries", &js_head_summaries);
    function("_attentionBackward", &js_attention_backward);
    function("_backwardCost", &backward_cost);

    value_object<JsTrainerOptions>("TrainerOptions")
        .field("dIn", &JsTrainerOptions::d_in)
        .field("dHead", &JsTrainerOptions::d_head)
        .field("positions", &JsTrainerOptions::positions)
        .field("dPos", &JsTrainerOptions::d_pos)
        .field("maxLen", &JsTrainerOptions::max_len)
        .field("hidden", &JsTrainerOptions::hidden)
        .field("batch", &JsTrainerOptions::batch)
        .field("score", &JsTrainerOptions::score)
        .field("p", &JsTrainerOptions::p)
        .field("eps", &JsTrainerOptions::eps)
        .field("temperature", &JsTrainerOptions::temperature)
        .field("learnedTemperature", &JsTrainerOptions::learned_temperature)
        .field("learningRate", &JsTrainerOptions::learning_rate)
        .field("seed", &JsTrainerOptions::seed)
        .field("mask", &JsTrainerOptions::mask)
        .field("variant", &JsTrainerOptions::variant)
        .field("output", &JsTrainerOptions::output);
    class_<JsTrainer>("HeadTrainer")
        .constructor<>()
        .function("init", &JsTrainer::init)
        .function("stepCost", &JsTrainer::step_cost)
        .function("step", &JsTrainer::step)
        .function("reset", &JsTrainer::reset)
        .function("paramCount", &JsTrainer::param_count)
        .function("readParams", &JsTrainer::read_params)
        .function("layoutJson", &JsTrainer::layout_json)
        .function("losses", &JsTrainer::losses)
        .function("examples", &JsTrainer::examples)
        .function("cross", &JsTrainer::cross)
        .function("evaluate", &JsTrainer::evaluate)
        .function("weightsOf", &JsTrainer::weights_of)
        .function("gradients", &JsTrainer::gradients);
}
