// Embind glue of the calls on your own vectors (bindings/scope-class.mjs): scores, softmax,
// attention, attentionOutput and attentionBackward, and the costs the JS layer checks before it
// allocates. No state: every array is the caller's. The hot ones (scores, attention,
// attentionOutput and their checks) are plain wasm exports; the rest are Embind functions.
// How the glue is laid out: embind-registry.cpp.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/backward.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/variant.hpp"
#include "embind-shared.hpp"

using namespace attnscope;
using namespace attnscope::glue;

namespace {

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

// Q [nq, d], K [nk, dk] and V [nk, dv] of attention(), attentionOutput() and attentionBackward(),
// from their addresses and shapes.
struct Inputs {
    ConstMatrix Q, K, V;
};
Inputs inputs(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk, int dv) {
    const auto unq = static_cast<std::size_t>(nq), unk = static_cast<std::size_t>(nk);
    return {ConstMatrix(fptr(Q), unq, static_cast<std::size_t>(d)), ConstMatrix(fptr(K), unk, static_cast<std::size_t>(dk)),
            ConstMatrix(fptr(V), unk, static_cast<std::size_t>(dv))};
}

// The options of attention(), attentionOutput() and attentionBackward(), as JS hands them over.
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

// The same from the numbers the plain exports take (enums as their integer values, ScoreParams as
// its fields): "" or the message of an unknown enum index.
std::string attention_options_from(int score, int variant, double p, double eps, std::uintptr_t W, std::uintptr_t W1,
                                   std::uintptr_t W2, std::uintptr_t v, int hidden, std::uintptr_t Wa, int max_keys,
                                   double temperature, int mask, std::uintptr_t padding, int query_offset, AttentionOptions& o) {
    Score s;
    Variant var;
    Mask m;
    if (std::string err = enums_from(score, variant, mask, s, var, m); !err.empty()) return err;
    o = attention_options(s, var, params_from(p, eps, W, W1, W2, v, hidden, Wa, max_keys), temperature, m, padding, query_offset);
    return "";
}

// S, A [nq, nk], O [nq, dv] and stats (3*nq floats: entropy, max weight, argmax as float), each
// written where its address is nonzero.
std::string js_attention(const Inputs& in, const AttentionOptions& o, std::uintptr_t S, std::uintptr_t A, std::uintptr_t O,
                         std::uintptr_t stats) {
    const std::size_t unq = in.Q.rows, unk = in.K.rows, udv = in.V.cols;
    // A null pointer (0 from JS) = not asked for: attention() then neither computes nor writes it.
    std::vector<RowStats> rs(stats ? unq : 0);
    Status st = attnscope::attention(in.Q, in.K, in.V, o, Matrix(mfptr(S), unq, unk), Matrix(mfptr(A), unq, unk),
                                     Matrix(mfptr(O), unq, udv), stats ? rs.data() : nullptr);
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

// O [nq, dv] only, through the fused kernel (attention_output): no nq x nk matrix is allocated.
std::string js_attention_output(const Inputs& in, const AttentionOptions& o, std::uintptr_t O) {
    return attention_output(in.Q, in.K, in.V, o, Matrix(mfptr(O), in.Q.rows, in.V.cols)).message();
}

// ---- gradients (attnscope/backward.hpp) -----------------------------------------------------------

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

// Writes dQ, dK, dV and the score's parameter gradients (each where its address is nonzero).
std::string js_attention_backward(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk,
                                  int dv, Score score, Variant variant, const ScoreParams& params, double temperature,
                                  Mask mask, std::uintptr_t padding, std::uintptr_t dO, std::uintptr_t dQ,
                                  std::uintptr_t dK, std::uintptr_t dV, std::uintptr_t dW, std::uintptr_t dW1,
                                  std::uintptr_t dW2, std::uintptr_t dv_, std::uintptr_t dWa) {
    const Inputs in = inputs(Q, K, V, nq, nk, d, dk, dv);
    AttentionGrads g;
    Status st = attention_backward(in.Q, in.K, in.V, attention_options(score, variant, params, temperature, mask, padding, 0),
                                   ConstMatrix(fptr(dO), in.Q.rows, in.V.cols), g);
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
// The two exports' shared course: checked_first, the options, then call(inputs, options) (a message or "").
template <class Call>
std::intptr_t attention_export(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk, int d, int dk, int dv,
                               int score, int variant, double p, double eps, std::uintptr_t W, std::uintptr_t W1,
                               std::uintptr_t W2, std::uintptr_t v, int hidden, std::uintptr_t Wa, int max_keys,
                               double temperature, int mask, std::uintptr_t padding, int query_offset, int cost,
                               std::uintptr_t finite, int finite_count, Call&& call) {
    if (const std::intptr_t r = checked_first(score, nq, nk, d, dk, dv, hidden, cost, finite, finite_count); r != 0) return r;
    AttentionOptions o;
    if (std::string err = attention_options_from(score, variant, p, eps, W, W1, W2, v, hidden, Wa, max_keys, temperature, mask,
                                                 padding, query_offset, o);
        !err.empty())
        return message_code(err);
    return message_code(call(inputs(Q, K, V, nq, nk, d, dk, dv), o));
}

}  // namespace

// ---- plain exports for the calls that must be cheap ---------------------------------------------
// An Embind function built without dynamic code (the page's Content-Security-Policy forbids it)
// converts every argument and its returned std::string in generic JS loops, and the ScoreParams
// value object field by field through the function table: about 5 µs of a 16 x 64 attention() call
// went there. The checks and the computations of scores(), attention() and attentionOutput() are
// also plain wasm exports: numbers in (enums as their integer values, ScoreParams as its fields),
// and 0 or the address of a NUL-terminated message out, which the JS layer decodes and frees.
// Their arguments stay flat, about thirty of them for attention(): a struct would have to be written
// into the heap by the JS layer (bindings/scope-class.mjs) in a layout kept by hand on both sides of
// the boundary. They become one AttentionOptions as soon as they arrive (attention_options_from).

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

EMSCRIPTEN_KEEPALIVE std::intptr_t attnscope_attention(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq, int nk,
                                                       int d, int dk, int dv, int score, int variant, double p, double eps,
                                                       std::uintptr_t W, std::uintptr_t W1, std::uintptr_t W2, std::uintptr_t v,
                                                       int hidden, std::uintptr_t Wa, int max_keys, double temperature, int mask,
                                                       std::uintptr_t padding, std::uintptr_t S, std::uintptr_t A,
                                                       std::uintptr_t O, std::uintptr_t stats, int query_offset, int cost,
                                                       std::uintptr_t finite, int finite_count) {
    return attention_export(Q, K, V, nq, nk, d, dk, dv, score, variant, p, eps, W, W1, W2, v, hidden, Wa, max_keys, temperature,
                            mask, padding, query_offset, cost, finite, finite_count, [&](const Inputs& in, const AttentionOptions& o) {
                                return js_attention(in, o, S, A, O, stats);
                            });
}

// attention() returning only the output, through the fused path.
EMSCRIPTEN_KEEPALIVE std::intptr_t attnscope_attention_output(std::uintptr_t Q, std::uintptr_t K, std::uintptr_t V, int nq,
                                                              int nk, int d, int dk, int dv, int score, int variant, double p,
                                                              double eps, std::uintptr_t W, std::uintptr_t W1,
                                                              std::uintptr_t W2, std::uintptr_t v, int hidden,
                                                              std::uintptr_t Wa, int max_keys, double temperature, int mask,
                                                              std::uintptr_t padding, std::uintptr_t O, int query_offset,
                                                              int cost, std::uintptr_t finite, int finite_count) {
    return attention_export(Q, K, V, nq, nk, d, dk, dv, score, variant, p, eps, W, W1, W2, v, hidden, Wa, max_keys, temperature,
                            mask, padding, query_offset, cost, finite, finite_count, [&](const Inputs& in, const AttentionOptions& o) {
                                return js_attention_output(in, o, O);
                            });
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(attnscope_attention) {
    using namespace emscripten;
    function("_softmax", &softmax);
    function("_attentionBackward", &js_attention_backward);
    function("_backwardCost", &backward_cost);
}
