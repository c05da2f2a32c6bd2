// Documented limits of one call (README, "Limits and guarantees"), checked in 64-bit arithmetic
// before anything is allocated: no size product can wrap (wasm's size_t has 32 bits), no call can
// exhaust the wasm heap (at most 2 GiB, Emscripten's default maximum), and no accepted call runs
// for more than about 2 s in wasm on the project's machine. A refused call costs microseconds and
// its message names the limit and what to do instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "attnscope/score.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope {

namespace limits {
// Floats one call may allocate in all (results and scratch): 2^27 = 512 MiB, a quarter of the
// largest wasm32 heap, so a call fits even beside a page's other allocations.
constexpr std::uint64_t kMaxFloats = std::uint64_t{1} << 27;
// Multiply-adds one call may do: 2^32 (4.3e9). The benchmark table's kernel rates put that at
// about 0.25 s with the wasm SIMD kernels and 2 s with the scalar ones (README, measured calls).
constexpr std::uint64_t kMaxWork = std::uint64_t{1} << 32;
// Multiply-adds of one output-only call (attentionOutput, or attention() asked only for the output):
// 2^40 (1.1e12), about 40 s of the fused wasm SIMD kernel at 65,536 x 65,536, d = 64 on the
// project's machine. That path exists for long sequences, so its bound is a documented long call
// rather than the 2 s of the others: run it in a worker.
constexpr std::uint64_t kMaxFusedWork = std::uint64_t{1} << 40;
// The additive score evaluates one tanh per query, key and hidden unit: it counts as this many
// multiply-adds (the benchmark table: the additive kernel per (query, key, hidden unit) costs 25 to
// 40 times the dot kernel per (query, key, dimension)).
constexpr std::uint64_t kTanhCost = 32;
// Every weight of an attention (a query, key and head) also costs a softmax exponential, its share
// of the row statistics (a log) and copies into the result handed to JS: it counts as this many
// multiply-adds. (The issue measured 100 heads of 512 x 512 cheap scores, 26M weights, running for
// more than 90 s, and one head of 4096 x 4096 taking 3-5 s: far more than their multiply-adds.)
constexpr std::uint64_t kWeightCost = 256;
// Longest text tokenize() accepts, in bytes: 1 MiB, tokenized in about 0.1 s; longer text is refused
// before any work.
constexpr std::uint64_t kMaxTextBytes = std::uint64_t{1} << 20;
}  // namespace limits

// What a call will allocate (floats) and compute (multiply-adds); sums and products saturate at
// 2^64 - 1 instead of wrapping, so an absurd shape can never look small.
class Budget {
public:
    static std::uint64_t mul(std::uint64_t a, std::uint64_t b);
    static std::uint64_t add(std::uint64_t a, std::uint64_t b);
    void floats(std::uint64_t a, std::uint64_t b = 1, std::uint64_t c = 1) { floats_ = add(floats_, mul(mul(a, b), c)); }
    void work(std::uint64_t a, std::uint64_t b = 1, std::uint64_t c = 1, std::uint64_t e = 1) {
        work_ = add(work_, mul(mul(a, b), mul(c, e)));
    }
    std::uint64_t floats() const { return floats_; }
    std::uint64_t work() const { return work_; }
    // OK, or an error naming the limit exceeded, the call's size, and `alternative`.
    Status check(const std::string& call, const std::string& alternative,
                 std::uint64_t max_work = limits::kMaxWork) const;
    // check() for the calls that run it on every call, mostly within the limits: `describe()` gives
    // the call's description and is run only when the call is refused (an accepted small call
    // writes no string).
    template <class Describe>
    Status check_lazily(Describe&& describe, const char* alternative, std::uint64_t max_work = limits::kMaxWork) const {
        const Verdict v = verdict(max_work);
        return v == Verdict::ok ? Status{} : refusal(v, describe(), alternative, max_work);
    }

private:
    enum class Verdict { ok, floats, work, memory };
    // Which limit the call exceeds, if any (the memory probe included): check()'s decision.
    Verdict verdict(std::uint64_t max_work) const;
    // check()'s message for a refused call.
    Status refusal(Verdict v, const std::string& call, const std::string& alternative, std::uint64_t max_work) const;
    std::uint64_t floats_ = 0, work_ = 0;
};

// The cost of compute_scores for these shapes (S itself included): what the bindings check before
// they allocate S, and what compute_scores checks again.
void add_score_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq, std::uint64_t dk,
                    std::uint64_t hidden);

// The cost of attention_output (the fused, output-only path) for these shapes: no nq x nk matrix,
// only the packed keys, the norms, the output and the additive score's per-block scratch.
void add_fused_output_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq,
                           std::uint64_t dk, std::uint64_t dv, std::uint64_t hidden);

}  // namespace attnscope
