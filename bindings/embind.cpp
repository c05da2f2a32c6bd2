// Embind glue: low-level functions (prefixed `_`) over the C++ core, called only by the JS layer in
// bindings/attnscope.mjs, which validates arguments, owns the memory (_malloc/_free) and copies
// results out. Matrices cross the boundary as addresses into the wasm heap. Every function reports
// failure by returning an error message (empty string = success): the core never throws, so a bad
// input can never abort the instance.
#include <emscripten/bind.h>

#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/embeddings.hpp"
#include "attnscope/pipeline.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tokenizer.hpp"
#include "attnscope/variant.hpp"

using namespace attnscope;

namespace {

// One module instance = one scope: its vocabulary and the arrays of its last attend() call, which JS
// copies out before the next call.
Vocabulary g_vocab;
AttendResult g_last;

const float* fptr(std::uintptr_t p) { return reinterpret_cast<const float*>(p); }
float* mfptr(std::uintptr_t p) { return reinterpret_cast<float*>(p); }

// Enum values are the indices of the JS name lists (scoreFunctions order, ['auto','scalar','simd'], ...).
Variant to_variant(int v) { return v == 1 ? Variant::scalar : v == 2 ? Variant::simd : Variant::automatic; }
Mask to_mask(int m) { return m == 1 ? Mask::causal : Mask::none; }

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

// entries: the vocabulary entry each token's vector came from (-1 = out of vocabulary).
std::string tokens_json(const std::vector<Token>& tokens, const std::vector<std::int64_t>& entries) {
    std::string out = "[";
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
        else json_string(out, g_vocab.word(static_cast<std::size_t>(entries[i])));
        out += '}';
    }
    out += ']';
    return out;
}

// ---- information --------------------------------------------------------------------------------

std::string score_list_json() {
    std::string out = "[";
    for (const auto& info : score_infos()) {
        if (out.size() > 1) out += ',';
        out += "{\"name\":";
        json_string(out, info.name);
        out += ",\"formula\":";
        json_string(out, info.formula);
        out += ",\"latex\":";
        json_string(out, info.latex);
        out += ",\"source\":";
        json_string(out, info.source);
        out += ",\"needsWeights\":";
        out += score_has_weights(info.id) ? "true" : "false";
        out += '}';
    }
    return out + "]";
}

std::string simd_isa_name() { return simd_isa(); }
std::string resolved_variant(int v) { return resolved_variant_name(to_variant(v)); }
int memory_in_use() { return static_cast<int>(mallinfo().uordblks); }

// ---- vocabulary -----------------------------------------------------------------------------------

std::string load_vocabulary(std::uintptr_t bytes, int size) {
    Vocabulary v;
    Status st = Vocabulary::from_bytes(reinterpret_cast<const std::uint8_t*>(bytes), static_cast<std::size_t>(size), v);
    if (!st) return st.message();
    g_vocab = std::move(v);
    return "";
}
int vocabulary_size() { return static_cast<int>(g_vocab.size()); }
int vocabulary_dim() { return static_cast<int>(g_vocab.dim()); }

// Writes the vector of `word` to out (dim floats). The word is normalised as the sentence pipeline
// would (a single token's lookup form: lower-cased, curly apostrophes straightened), then resolved
// with the documented stand-ins. Returns the vocabulary entry used, -1 when out of vocabulary,
// -2 with no vocabulary.
int embed(const std::string& word, std::uintptr_t out) {
    if (g_vocab.empty()) return -2;
    std::vector<Token> tokens;
    const std::string lookup = tokenize(word, TokenizerOptions{}, tokens).ok() && tokens.size() == 1 ? tokens[0].lookup : word;
    const std::int64_t entry = g_vocab.resolve(lookup);
    if (entry >= 0) g_vocab.vector(static_cast<std::size_t>(entry), mfptr(out));
    else g_vocab.oov_vector(lookup, mfptr(out));
    return static_cast<int>(entry);
}
std::string vocabulary_word(int index) { return g_vocab.word(static_cast<std::size_t>(index)); }

std::string nearest_json(std::uintptr_t vec, int k) {
    std::string out = "[";
    for (const auto& [index, cosine] : g_vocab.nearest(fptr(vec), static_cast<std::size_t>(k))) {
        if (out.size() > 1) out += ',';
        out += "{\"word\":";
        json_string(out, g_vocab.word(index));
        out += ",\"cosine\":" + std::to_string(cosine) + "}";
    }
    return out + "]";
}

// ---- text -----------------------------------------------------------------------------------------

// {"tokens":[...]} or {"error":"..."}
std::string tokenize_json(const std::string& text, int max_tokens) {
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
    for (std::size_t i = 0; i < tokens.size(); ++i) entries[i] = g_vocab.resolve(tokens[i].lookup);
    return "{\"tokens\":" + tokens_json(tokens, entries) + "}";
}

// ---- bring your own vectors ---------------------------------------------------------------------

struct JsScoreParams {
    int score = 1;
    int variant = 0;
    double p = 2, eps = 1e-3;
    std::uintptr_t W = 0, W1 = 0, W2 = 0, v = 0, Wa = 0;
    int hidden = 0, max_keys = 0;
};

ScoreParams to_params(const JsScoreParams& j) {
    ScoreParams p;
    p.W = fptr(j.W);
    p.W1 = fptr(j.W1);
    p.W2 = fptr(j.W2);
    p.v = fptr(j.v);
    p.hidden = static_cast<std::size_t>(j.hidden);
    p.Wa = fptr(j.Wa);
    p.max_keys = static_cast<std::size_t>(j.max_keys);
    p.p = static_cast<float>(j.p);
    p.eps = static_cast<float>(j.eps);
    return p;
}

std::string scores(std::uintptr_t Q, std::uintptr_t K, int nq, int nk, int d, int dk, const JsScoreParams& jp,
                   std::uintptr_t S) {
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk);
    return compute_scores(static_cast<Score>(jp.score), ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                          ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)), to_params(jp),
                          Matrix(mfptr(S), unq, unk), to_variant(jp.variant))
        .message();
}

std::string softmax(std::uintptr_t S, int rows, int cols, double temperature, int mask, std::uintptr_t padding,
                    int variant, std::uintptr_t A) {
    SoftmaxOptions o;
    o.temperature = static_cast<float>(temperature);
    o.mask = to_mask(mask);
    o.key_padding = reinterpret_cast<const std::uint8_t*>(padding);
    o.variant = to_variant(variant);
    const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
    return masked_softmax(ConstMatrix(fptr(S), r, c), o, Matrix(mfptr(A), r, c)).message();
}

// stats: 3*nq floats (entropy, max weight, argmax as float) written to `stats`.
std::string js_attention(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk, int dv,
                      const JsScoreParams& jp, double temperature, int mask, std::uintptr_t padding,
                      std::uintptr_t S, std::uintptr_t A, std::uintptr_t O, std::uintptr_t stats) {
    AttentionOptions o;
    o.score = static_cast<Score>(jp.score);
    o.params = to_params(jp);
    o.temperature = static_cast<float>(temperature);
    o.mask = to_mask(mask);
    o.key_padding = reinterpret_cast<const std::uint8_t*>(padding);
    o.variant = to_variant(jp.variant);
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk), udv = static_cast<std::size_t>(dv);
    std::vector<RowStats> rs(unq);
    Status st = attnscope::attention(ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                                     ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)),
                                     ConstMatrix(fptr(V), unk, udv), o, Matrix(mfptr(S), unq, unk),
                                     Matrix(mfptr(A), unq, unk), Matrix(mfptr(O), unq, udv), rs.data());
    if (!st) return st.message();
    float* out = mfptr(stats);
    for (std::size_t i = 0; i < unq; ++i) {
        out[i] = rs[i].entropy;
        out[unq + i] = rs[i].max_weight;
        out[2 * unq + i] = static_cast<float>(rs[i].argmax);
    }
    return "";
}

// ---- the sentence pipeline ----------------------------------------------------------------------

struct JsAttendOptions {
    JsScoreParams params;
    double temperature = 1;
    int heads = 1;
    int projection = 0;  // 0 identity, 1 random, 2 user
    double seed = 1;     // a uint32 (a JS number)
    bool positional = false;
    int mask = 0;
    int max_tokens = 512;
    bool experimental = false;
    std::uintptr_t Wq = 0, Wk = 0, Wv = 0, Wo = 0;
    int d_head = 0, d_value = 0, d_out = 0;
};

// Runs the pipeline; the JS layer then copies arrays out with last_* below. Returns "" or an error.
std::string js_attend(const std::string& query, const std::string& keys, bool cross, const JsAttendOptions& j) {
    if (g_vocab.empty()) return "vocabulary: none loaded";
    AttendOptions o;
    o.score = static_cast<Score>(j.params.score);
    o.variant = to_variant(j.params.variant);
    o.p = static_cast<float>(j.params.p);
    o.eps = static_cast<float>(j.params.eps);
    o.W = fptr(j.params.W);
    o.W1 = fptr(j.params.W1);
    o.W2 = fptr(j.params.W2);
    o.v = fptr(j.params.v);
    o.hidden = static_cast<std::size_t>(j.params.hidden);
    o.Wa = fptr(j.params.Wa);
    o.max_keys = static_cast<std::size_t>(j.params.max_keys);
    o.temperature = static_cast<float>(j.temperature);
    o.heads = static_cast<std::size_t>(j.heads);
    o.projection = j.projection == 1 ? Projection::random : j.projection == 2 ? Projection::user : Projection::identity;
    o.seed = static_cast<std::uint32_t>(j.seed);
    o.positional = j.positional;
    o.mask = to_mask(j.mask);
    o.max_tokens = static_cast<std::size_t>(j.max_tokens);
    o.experimental_scaled_output = j.experimental;
    o.Wq = fptr(j.Wq);
    o.Wk = fptr(j.Wk);
    o.Wv = fptr(j.Wv);
    o.Wo = fptr(j.Wo);
    o.d_head = static_cast<std::size_t>(j.d_head);
    o.d_value = static_cast<std::size_t>(j.d_value);
    o.d_out = static_cast<std::size_t>(j.d_out);
    Status st = attnscope::attend(g_vocab, query, keys, cross, o, g_last);
    if (!st) g_last = AttendResult{};
    return st.message();
}

std::string last_tokens_json(bool keys) {
    return keys ? tokens_json(g_last.key_tokens, g_last.key_vocab) : tokens_json(g_last.query_tokens, g_last.query_vocab);
}

const Tensor* last_tensor(const std::string& name, int head) {
    const auto& a = g_last.attention;
    const auto h = static_cast<std::size_t>(head);
    if (name == "queryEmbeddings") return &g_last.query_embeddings;
    if (name == "keyEmbeddings") return &g_last.key_embeddings;
    if (name == "output") return &a.output;
    if (h >= a.heads) return nullptr;
    if (name == "q") return &a.q[h];
    if (name == "k") return &a.k[h];
    if (name == "v") return &a.v[h];
    if (name == "scores") return &a.scores[h];
    if (name == "weights") return &a.weights[h];
    return nullptr;
}
// Address and shape of one array of the last attend() result (0 when there is none).
std::uintptr_t last_ptr(const std::string& name, int head) {
    const Tensor* t = last_tensor(name, head);
    return t ? reinterpret_cast<std::uintptr_t>(t->values.data()) : 0;
}
int last_rows(const std::string& name, int head) {
    const Tensor* t = last_tensor(name, head);
    return t ? static_cast<int>(t->rows) : 0;
}
int last_cols(const std::string& name, int head) {
    const Tensor* t = last_tensor(name, head);
    return t ? static_cast<int>(t->cols) : 0;
}
// stats of head h into out: nq entropies, nq max weights, nq argmaxes (as floats).
void last_stats(int head, std::uintptr_t out) {
    const auto& rows = g_last.attention.stats[static_cast<std::size_t>(head)];
    float* o = mfptr(out);
    const std::size_t n = rows.size();
    for (std::size_t i = 0; i < n; ++i) {
        o[i] = rows[i].entropy;
        o[n + i] = rows[i].max_weight;
        o[2 * n + i] = static_cast<float>(rows[i].argmax);
    }
}
// Frees the last result's arrays once JS has copied them.
void release_last() { g_last = AttendResult{}; }

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope) {
    using namespace emscripten;
    value_object<JsScoreParams>("ScoreParams")
        .field("score", &JsScoreParams::score)
        .field("variant", &JsScoreParams::variant)
        .field("p", &JsScoreParams::p)
        .field("eps", &JsScoreParams::eps)
        .field("W", &JsScoreParams::W)
        .field("W1", &JsScoreParams::W1)
        .field("W2", &JsScoreParams::W2)
        .field("v", &JsScoreParams::v)
        .field("Wa", &JsScoreParams::Wa)
        .field("hidden", &JsScoreParams::hidden)
        .field("maxKeys", &JsScoreParams::max_keys);
    value_object<JsAttendOptions>("AttendOptions")
        .field("params", &JsAttendOptions::params)
        .field("temperature", &JsAttendOptions::temperature)
        .field("heads", &JsAttendOptions::heads)
        .field("projection", &JsAttendOptions::projection)
        .field("seed", &JsAttendOptions::seed)
        .field("positional", &JsAttendOptions::positional)
        .field("mask", &JsAttendOptions::mask)
        .field("maxTokens", &JsAttendOptions::max_tokens)
        .field("experimental", &JsAttendOptions::experimental)
        .field("Wq", &JsAttendOptions::Wq)
        .field("Wk", &JsAttendOptions::Wk)
        .field("Wv", &JsAttendOptions::Wv)
        .field("Wo", &JsAttendOptions::Wo)
        .field("dHead", &JsAttendOptions::d_head)
        .field("dValue", &JsAttendOptions::d_value)
        .field("dOut", &JsAttendOptions::d_out);

    function("_scoreListJson", &score_list_json);
    function("_simdIsa", &simd_isa_name);
    function("_resolvedVariant", &resolved_variant);
    function("_memoryInUse", &memory_in_use);
    function("_loadVocabulary", &load_vocabulary);
    function("_vocabularySize", &vocabulary_size);
    function("_vocabularyDim", &vocabulary_dim);
    function("_embed", &embed);
    function("_vocabularyWord", &vocabulary_word);
    function("_nearestJson", &nearest_json);
    function("_tokenizeJson", &tokenize_json);
    function("_scores", &scores);
    function("_softmax", &softmax);
    function("_attention", &js_attention);
    function("_attend", &js_attend);
    function("_lastTokensJson", &last_tokens_json);
    function("_lastPtr", &last_ptr);
    function("_lastRows", &last_rows);
    function("_lastCols", &last_cols);
    function("_lastStats", &last_stats);
    function("_releaseLast", &release_last);
}
