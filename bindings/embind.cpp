// Embind glue: low-level names (prefixed `_`) over the C++ core, called only by the JS layer in
// bindings/scope.mjs, which validates arguments, owns the memory of the inputs (_malloc/_free) and
// hands copies to its callers. Matrices cross the boundary as addresses into the wasm heap; names
// (scores, variants, masks, projections) cross as the registry's strings (attnscope/registry.hpp).
// Every call reports failure as an error message (empty string = success), never by throwing: the
// core never throws, so a bad input can never abort the instance.
//
// There is no global mutable state here. A vocabulary belongs to a ScopeState, an Embind class that
// one JS AttnScope owns (several can live in one wasm instance); attend() hands its whole result back
// in one call, copied into one JS Float32Array before the C++ arrays are freed, so nothing stays
// staged between calls.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/embeddings.hpp"
#include "attnscope/pipeline.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tokenizer.hpp"
#include "attnscope/variant.hpp"

using namespace attnscope;
using emscripten::val;

namespace {

const float* fptr(std::uintptr_t p) { return reinterpret_cast<const float*>(p); }
float* mfptr(std::uintptr_t p) { return reinterpret_cast<float*>(p); }

// Pointer fields of the option structs, read from and written as wasm addresses.
template <class T, const float* T::*M>
std::uintptr_t get_address(const T& o) { return reinterpret_cast<std::uintptr_t>(o.*M); }
template <class T, const float* T::*M>
void set_address(T& o, std::uintptr_t a) { o.*M = fptr(a); }

// Names as fields. JS checks every name against the same registry before the call; a name that still
// does not parse leaves an out-of-range value, which check_names() reports.
template <class Enum, bool (*parse)(const std::string&, Enum&), std::size_t Count>
void set_name(Enum& field, const std::string& name) {
    if (!parse(name, field)) field = static_cast<Enum>(Count);
}
// How many names each list has (one "+1" per row).
#define ATTNSCOPE_COUNT(...) +1
constexpr std::size_t kScores = 0 ATTNSCOPE_SCORES(ATTNSCOPE_COUNT);
constexpr std::size_t kMasks = 0 ATTNSCOPE_MASKS(ATTNSCOPE_COUNT);
constexpr std::size_t kProjections = 0 ATTNSCOPE_PROJECTIONS(ATTNSCOPE_COUNT);
constexpr std::size_t kVariants = 1 ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_COUNT);
#undef ATTNSCOPE_COUNT

std::string get_score(const AttendOptions& o) { return static_cast<std::size_t>(o.score) < kScores ? score_info(o.score).name : ""; }
void set_score(AttendOptions& o, std::string n) { set_name<Score, parse_score, kScores>(o.score, n); }
std::string get_variant(const AttendOptions& o) { return static_cast<std::size_t>(o.variant) < kVariants ? variant_name(o.variant) : ""; }
void set_variant(AttendOptions& o, std::string n) { set_name<Variant, parse_variant, kVariants>(o.variant, n); }
std::string get_mask(const AttendOptions& o) { return static_cast<std::size_t>(o.mask) < kMasks ? mask_name(o.mask) : ""; }
void set_mask(AttendOptions& o, std::string n) { set_name<Mask, parse_mask, kMasks>(o.mask, n); }
std::string get_projection(const AttendOptions& o) {
    return static_cast<std::size_t>(o.projection) < kProjections ? projection_name(o.projection) : "";
}
void set_projection(AttendOptions& o, std::string n) { set_name<Projection, parse_projection, kProjections>(o.projection, n); }
// The seed is a uint32 that JS holds as a number.
double get_seed(const AttendOptions& o) { return o.seed; }
void set_seed(AttendOptions& o, double s) { o.seed = static_cast<std::uint32_t>(s); }

std::string check_names(const AttendOptions& o) {
    if (static_cast<std::size_t>(o.score) >= kScores) return "score: unknown name";
    if (static_cast<std::size_t>(o.variant) >= kVariants) return "variant: unknown name";
    if (static_cast<std::size_t>(o.mask) >= kMasks) return "mask: unknown name";
    if (static_cast<std::size_t>(o.projection) >= kProjections) return "projection: unknown name";
    return "";
}
// For the calls that take names as arguments.
bool parse_or(const std::string& name, Score& s, Variant& v, const std::string& variant, std::string& err) {
    if (!parse_score(name, s)) { err = "score: unknown name '" + name + "'"; return false; }
    if (!parse_variant(variant, v)) { err = "variant: unknown name '" + variant + "'"; return false; }
    return true;
}

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
std::string resolved_variant(const std::string& name) {
    Variant v;
    return parse_variant(name, v) ? resolved_variant_name(v) : "";
}
int memory_in_use() { return static_cast<int>(mallinfo().uordblks); }

// ---- bring your own vectors (no state: every array is the caller's) -----------------------------

std::string scores(std::uintptr_t Q, std::uintptr_t K, int nq, int nk, int d, int dk, const std::string& score,
                   const std::string& variant, const ScoreParams& params, std::uintptr_t S) {
    Score s;
    Variant v;
    std::string err;
    if (!parse_or(score, s, v, variant, err)) return err;
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk);
    return compute_scores(s, ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)),
                          ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)), params, Matrix(mfptr(S), unq, unk), v)
        .message();
}

std::string softmax(std::uintptr_t S, int rows, int cols, double temperature, const std::string& mask,
                    std::uintptr_t padding, const std::string& variant, std::uintptr_t A) {
    SoftmaxOptions o;
    o.temperature = static_cast<float>(temperature);
    if (!parse_mask(mask, o.mask)) return "mask: unknown name '" + mask + "'";
    if (!parse_variant(variant, o.variant)) return "variant: unknown name '" + variant + "'";
    o.key_padding = reinterpret_cast<const std::uint8_t*>(padding);
    const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
    return masked_softmax(ConstMatrix(fptr(S), r, c), o, Matrix(mfptr(A), r, c)).message();
}

// stats: 3*nq floats (entropy, max weight, argmax as float) written to `stats`.
std::string js_attention(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk, int dv,
                         const std::string& score, const std::string& variant, const ScoreParams& params,
                         double temperature, const std::string& mask, std::uintptr_t padding, std::uintptr_t S,
                         std::uintptr_t A, std::uintptr_t O, std::uintptr_t stats) {
    AttentionOptions o;
    std::string err;
    if (!parse_or(score, o.score, o.variant, variant, err)) return err;
    if (!parse_mask(mask, o.mask)) return "mask: unknown name '" + mask + "'";
    o.params = params;
    o.temperature = static_cast<float>(temperature);
    o.key_padding = reinterpret_cast<const std::uint8_t*>(padding);
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
            out += ",\"cosine\":" + std::to_string(cosine) + "}";
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

    // The whole sentence pipeline in one call. Returns {error: string} or {data, tokens}:
    //   data: one Float32Array (a copy; the C++ arrays are freed on return) holding, in order,
    //     a header [nq, nk, heads, dOut, dHead[0..heads), dValue[0..heads)],
    //     queryEmbeddings [nq, d], keyEmbeddings [nk, d], scores [heads, nq, nk], weights [heads, nq, nk],
    //     entropy [heads, nq], maxWeight [heads, nq], argmax [heads, nq], output [nq, dOut],
    //     then per head h: q [nq, dHead[h]], k [nk, dHead[h]], v [nk, dValue[h]];
    //   tokens: '{"query":[Token...],"keys":[Token...]}' (JSON, Token as in attnscope.d.ts).
    val attend(const std::string& query, const std::string& keys, bool cross, const AttendOptions& o) const {
        val out = val::object();
        std::string err = check_names(o);
        AttendResult r;
        if (err.empty()) err = attnscope::attend(vocab_, query, keys, cross, o, r).message();
        if (!err.empty()) {
            out.set("error", err);
            return out;
        }
        const MultiHeadResult& a = r.attention;
        const std::size_t H = a.heads, nq = a.nq, nk = a.nk;
        std::size_t total = 4 + 2 * H + r.query_embeddings.values.size() + r.key_embeddings.values.size() +
                            2 * H * nq * nk + 3 * H * nq + a.output.values.size();
        for (std::size_t h = 0; h < H; ++h) total += a.q[h].values.size() + a.k[h].values.size() + a.v[h].values.size();
        std::vector<float> data;
        data.reserve(total);
        auto put = [&data](const std::vector<float>& v) { data.insert(data.end(), v.begin(), v.end()); };
        data.push_back(static_cast<float>(nq));
        data.push_back(static_cast<float>(nk));
        data.push_back(static_cast<float>(H));
        data.push_back(static_cast<float>(a.output.cols));
        for (std::size_t h = 0; h < H; ++h) data.push_back(static_cast<float>(a.q[h].cols));
        for (std::size_t h = 0; h < H; ++h) data.push_back(static_cast<float>(a.v[h].cols));
        put(r.query_embeddings.values);
        put(r.key_embeddings.values);
        for (std::size_t h = 0; h < H; ++h) put(a.scores[h].values);
        for (std::size_t h = 0; h < H; ++h) put(a.weights[h].values);
        for (std::size_t h = 0; h < H; ++h)
            for (const RowStats& s : a.stats[h]) data.push_back(s.entropy);
        for (std::size_t h = 0; h < H; ++h)
            for (const RowStats& s : a.stats[h]) data.push_back(s.max_weight);
        for (std::size_t h = 0; h < H; ++h)
            for (const RowStats& s : a.stats[h]) data.push_back(static_cast<float>(s.argmax));
        put(a.output.values);
        for (std::size_t h = 0; h < H; ++h) {
            put(a.q[h].values);
            put(a.k[h].values);
            put(a.v[h].values);
        }
        std::string tokens = "{\"query\":";
        tokens_json(tokens, vocab_, r.query_tokens, r.query_vocab);
        tokens += ",\"keys\":";
        tokens_json(tokens, vocab_, r.key_tokens, r.key_vocab);
        tokens += '}';
        // new Float32Array(view) copies the floats into JS memory before `data` is freed.
        out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(data.size(), data.data())));
        out.set("tokens", tokens);
        return out;
    }

private:
    Vocabulary vocab_;
};

}  // namespace

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
    value_object<AttendOptions>("AttendOptions")
        .field("score", &get_score, &set_score)
        .field("params", &AttendOptions::params)
        .field("temperature", &AttendOptions::temperature)
        .field("heads", &AttendOptions::heads)
        .field("projection", &get_projection, &set_projection)
        .field("seed", &get_seed, &set_seed)
        .field("positional", &AttendOptions::positional)
        .field("mask", &get_mask, &set_mask)
        .field("variant", &get_variant, &set_variant)
        .field("maxTokens", &AttendOptions::max_tokens)
        .field("experimentalScaledOutput", &AttendOptions::experimental_scaled_output)
        .field("Wq", &get_address<AttendOptions, &AttendOptions::Wq>, &set_address<AttendOptions, &AttendOptions::Wq>)
        .field("Wk", &get_address<AttendOptions, &AttendOptions::Wk>, &set_address<AttendOptions, &AttendOptions::Wk>)
        .field("Wv", &get_address<AttendOptions, &AttendOptions::Wv>, &set_address<AttendOptions, &AttendOptions::Wv>)
        .field("Wo", &get_address<AttendOptions, &AttendOptions::Wo>, &set_address<AttendOptions, &AttendOptions::Wo>)
        .field("dHead", &AttendOptions::d_head)
        .field("dValue", &AttendOptions::d_value)
        .field("dOut", &AttendOptions::d_out);

    class_<ScopeState>("ScopeState")
        .smart_ptr_constructor("ScopeState", &std::make_shared<ScopeState>)
        .function("loadVocabulary", &ScopeState::load_vocabulary)
        .function("vocabularySize", &ScopeState::vocabulary_size)
        .function("vocabularyDim", &ScopeState::vocabulary_dim)
        .function("embed", &ScopeState::embed)
        .function("vocabularyWord", &ScopeState::vocabulary_word)
        .function("nearestJson", &ScopeState::nearest_json)
        .function("tokenizeJson", &ScopeState::tokenize_json)
        .function("attend", &ScopeState::attend);

    function("_registryJson", &registry_json_);
    function("_simdIsa", &simd_isa_name);
    function("_resolvedVariant", &resolved_variant);
    function("_memoryInUse", &memory_in_use);
    function("_scores", &scores);
    function("_softmax", &softmax);
    function("_attention", &js_attention);
}
