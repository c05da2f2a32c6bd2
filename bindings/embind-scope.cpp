// Embind glue of one scope's state, its vocabulary (ScopeState, owned by one JS AttnScope; several
// can live in one wasm instance), and the sentence pipeline over it (bindings/scope-text.mjs):
// tokenize, embed, nearest, and attend, whose scope call is the plain export attnscope_attend (the
// pool's shares use ScopeState::attendKept). attend() leaves its whole result in one heap block that
// the JS layer copies out and frees within the same call (the pool's attend_kept holds its result
// only until release_kept), so nothing stays staged between calls.
// How the glue is laid out: embind-registry.cpp.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/checked.hpp"
#include "attnscope/embeddings.hpp"
#include "attnscope/pipeline.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/tokenizer.hpp"
#include "embind-shared.hpp"

using namespace attnscope;
using namespace attnscope::glue;
using emscripten::val;

namespace {

// The seed is a uint32 that JS holds as a number.
double get_seed(const AttendOptions& o) { return o.seed; }
void set_seed(AttendOptions& o, double s) { o.seed = static_cast<std::uint32_t>(s); }

// The floats of an attend() result but its scores and weights (which the JS layer copies from where
// the core left them and puts after the embeddings: bindings/scope-text.mjs), in the order its JS
// readers take them:
//   a header [nq, nk, heads, dOut, dHead[0..heads), dValue[0..heads)],
//   queryEmbeddings [nq, d], keyEmbeddings [nk, d], entropy [heads, nq], maxWeight [heads, nq],
//   argmax [heads, nq], output [nq, dOut], then per head h: q [nq, dHead[h]], k [nk, dHead[h]], v [nk, dValue[h]].
std::size_t attend_float_count(const AttendResult& r) {
    const MultiHeadResult& a = r.attention;
    const std::size_t H = a.heads;
    std::size_t floats = 4 + 2 * H + r.query_embeddings.values.size() + r.key_embeddings.values.size() + 3 * H * a.nq +
                         a.output.values.size();
    for (std::size_t h = 0; h < H; ++h) floats += a.q[h].values.size() + a.k[h].values.size() + a.v[h].values.size();
    return floats;
}
// Writes attend_float_count(r) floats at `data`.
void write_attend_floats(const AttendResult& r, float* data) {
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

// ---- one scope's state: its vocabulary ------------------------------------------------------------

// The message when the heap cannot hold attend()'s result (the engine refused to grow it).
std::string no_room_message(std::size_t heads, std::size_t nq, std::size_t nk, std::uint64_t bytes) {
    return "memory: the result of " + std::to_string(heads) + " heads of " + std::to_string(nq) + " queries x " +
           std::to_string(nk) + " keys needs " + std::to_string(bytes / 1048576) +
           " MiB more and the heap could not grow that far (the engine refused memory); use fewer heads or shorter text";
}

struct FreeFloats {
    void operator()(float* p) const { std::free(p); }
};

// Room for attend()'s scores and weights (AttendOptions::place: the core writes them straight into
// it, with no zeroed tensors and no copy between), from malloc, so that a heap that cannot grow gives
// a message rather than the abort of a std::vector. place() refers to this room: it stays put.
struct MatrixRoom {
    std::unique_ptr<float, FreeFloats> floats;
    std::size_t count = 0;    // floats asked for
    bool refused = false;     // malloc gave nothing

    MatrixRoom() = default;
    MatrixRoom(const MatrixRoom&) = delete;
    MatrixRoom& operator=(const MatrixRoom&) = delete;
    void clear() {
        floats.reset();
        count = 0;
        refused = false;
    }
    std::function<float*(std::size_t)> place() {
        return [this](std::size_t n) -> float* {
            count = n;
            std::size_t bytes = 0;
            // (At least one float: malloc(0) may return null, which would read as no room.)
            floats.reset(n < (std::size_t{1} << 29) && to_size(std::uint64_t{std::max<std::size_t>(n, 1)} * sizeof(float), bytes)
                             ? static_cast<float*>(std::malloc(bytes)) : nullptr);
            refused = !floats;
            return floats.get();
        };
    }
};

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
    // without the scores and weights (attend_packed), which the core wrote into kept_room_, kept in
    // the heap with the core's result until release_kept() (or the next attend_kept): `scores` and
    // `weights` are the heap addresses of each head's [nq, nk] floats.
    // The worker copies them from there straight into an array of its choice (the joined buffer, or
    // one it reuses), so that no call makes a fresh array of them, nor a second copy in the heap.
    // The addresses hold until the heap is freed or grows: the caller copies before any other call
    // into this instance.
    val attend_kept(const std::string& query, const std::string& keys, bool cross, const AttendOptions& o) {
        kept_ = std::make_unique<AttendResult>();
        kept_room_.clear();
        AttendOptions placed = o;
        placed.place = kept_room_.place();
        return attend_packed(query, keys, cross, placed, *kept_, kept_room_);
    }
    void release_kept() {
        kept_.reset();
        kept_room_.clear();
    }

    // The pool's share of attend() in one call. Returns {error: string} or {data, scores, weights, tokens}:
    //   data: one Float32Array (a copy), write_attend_floats' layout without the scores and weights;
    //   scores, weights: each head's [nq, nk] floats' heap address in `room` (see attend_kept);
    //   tokens: '{"query":[Token...],"keys":[Token...]}' (JSON, Token as in attnscope.d.ts).
    val attend_packed(const std::string& query, const std::string& keys, bool cross, const AttendOptions& o, AttendResult& r,
                      const MatrixRoom& room) const {
        val out = val::object();
        const Status st = attnscope::attend(vocab_, query, keys, cross, o, r);
        const MultiHeadResult& a = r.attention;
        const std::size_t H = a.heads, nq = a.nq, nk = a.nk;
        if (room.refused) return error_object(no_room_message(H, nq, nk, std::uint64_t{room.count} * sizeof(float)));
        if (!st) return error_object(st.message());
        const std::size_t total = attend_float_count(r);
        // The one copy handed to JS, allocated with malloc so that a heap that cannot grow gives
        // an error message rather than the abort of a std::vector (the core's own allocations were
        // reserved by its budget check; this copy comes on top of them).
        float* data = static_cast<float*>(std::malloc(total * sizeof(float)));
        if (!data) return error_object(no_room_message(H, nq, nk, total * sizeof(float)));
        std::unique_ptr<float, decltype(&std::free)> owner(data, &std::free);
        write_attend_floats(r, data);
        val scores = val::array(), weights = val::array();
        const std::size_t cells = nq * nk;
        for (std::size_t h = 0; h < H; ++h) {
            scores.call<void>("push", static_cast<double>(reinterpret_cast<std::uintptr_t>(a.placed + h * cells)));
            weights.call<void>("push", static_cast<double>(reinterpret_cast<std::uintptr_t>(a.placed + (H + h) * cells)));
        }
        out.set("scores", scores);
        out.set("weights", weights);
        std::string tokens = "{\"query\":";
        tokens_json(tokens, vocab_, r.query_tokens, r.query_vocab);
        tokens += ",\"keys\":";
        tokens_json(tokens, vocab_, r.key_tokens, r.key_vocab);
        tokens += '}';
        // new Float32Array(view) copies the floats into JS memory before `data` is freed.
        out.set("data", float_copy(data, total));
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
        if (!st) return error_object(st.message());
        out.set("data", float_copy(result.values));
        out.set("dOut", static_cast<double>(result.cols));
        return out;
    }

private:
    Vocabulary vocab_;
    // attend_kept()'s result (its scores and weights), until release_kept().
    std::unique_ptr<AttendResult> kept_;
    MatrixRoom kept_room_;  // kept_'s scores and weights
};

// ---- attend() as a plain export: the scope's call (the pool's shares with a place use attend_kept) ----
// The UTF-16 code units of UTF-8 text (a 4-byte sequence is a surrogate pair). For valid UTF-8 this
// is the decoded string's length; the JS layer checks the total and decodes string by string when
// it differs (bytes that are not UTF-8 decode to U+FFFD).
std::size_t utf16_units(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xc0u) == 0x80u ? 0 : (c >= 0xf0u ? 2 : 1);
    return n;
}

// The result of attend() in two malloc'ed blocks, which the JS layer copies out of and frees
// (bindings/scope-text.mjs, readAttendBlock). The heads' scores and weights are written by the core
// straight into the second (MultiHeadOptions::place: no zeroed tensors, no copy between them); the
// first holds, in order:
//   write_attend_floats' floats without the scores and weights (`floats` of them);
//   per token (the query's, then the keys'), int32 [start, end, oov] (start, end in UTF-16 units);
//   per token, four strings: its text, lookup, kind and vocabulary word ("" when out of vocabulary):
//     int32 each string's end in UTF-16 units of the decoded table, then each string's end in bytes;
//   the string table, UTF-8.
// slot (int32[8]) receives: the first block's address, floats, query tokens, key tokens, the table's
// UTF-16 units, the table's bytes, the scores and weights' address and their floats
// (2 x heads x nq x nk: every head's scores, then every head's weights). Returns "" or the message
// (nothing allocated then).
std::string attend_block(const Vocabulary& vocab, std::string_view query, std::string_view keys, bool cross,
                         const AttendOptions& options, std::int32_t* slot) {
    AttendOptions o = options;
    MatrixRoom room;
    o.place = room.place();
    AttendResult r;
    const Status st = attnscope::attend(vocab, query, keys, cross, o, r);
    const MultiHeadResult& a = r.attention;
    const std::size_t H = a.heads, nq = a.nq, nk = a.nk;
    if (room.refused) return no_room_message(H, nq, nk, std::uint64_t{room.count} * sizeof(float));
    if (!st) return st.message();
    const std::size_t floats = attend_float_count(r);
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
    if (!block) return no_room_message(H, nq, nk, bytes);
    float* data = reinterpret_cast<float*>(block);
    write_attend_floats(r, data);
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
    slot[7] = static_cast<std::int32_t>(room.count);
    slot[6] = static_cast<std::int32_t>(reinterpret_cast<std::uintptr_t>(room.floats.release()));
    return "";
}

}  // namespace

extern "C" {

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

EMSCRIPTEN_BINDINGS(attnscope_scope) {
    using namespace emscripten;
    {
        using Self = AttendOptions;
        value_object<Self>("AttendOptions")
            ATTNSCOPE_JS_FIELDS(score, params, temperature, heads, projection)
            .field("seed", &get_seed, &set_seed)
            ATTNSCOPE_JS_FIELDS(positional, mask, variant, max_tokens, experimental_scaled_output)
            ATTNSCOPE_JS_ADDRESSES(Wq, Wk, Wv, Wo)
            ATTNSCOPE_JS_FIELDS(d_head, d_value, d_out, head_begin, head_end);
    }
    {
        using Self = ScopeState;
        class_<Self>("ScopeState")
            .smart_ptr_constructor("ScopeState", &std::make_shared<Self>)
            ATTNSCOPE_JS_METHODS(load_vocabulary, vocabulary_size, address, vocabulary_dim, embed, vocabulary_word, nearest_json,
                                 tokenize_json, attend_kept, release_kept, attend_output);
    }
}
