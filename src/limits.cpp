#include "attnscope/limits.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace attnscope {

namespace {
void* volatile probe_sink = nullptr;

std::string approx(std::uint64_t n) {
    char buf[32];
    if (n == std::numeric_limits<std::uint64_t>::max()) return "more than 1.8e19";
    if (n < 100000) std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
    else std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(n));
    return buf;
}
std::string mib(std::uint64_t floats) {
    char buf[48];
    if (floats == std::numeric_limits<std::uint64_t>::max()) return "more than 64 EiB";
    std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(floats) * 4.0 / 1048576.0);
    return buf;
}
}  // namespace

std::uint64_t Budget::mul(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
    return a * b;
}
std::uint64_t Budget::add(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

Status Budget::check(const std::string& call, const std::string& alternative, std::uint64_t max_work) const {
    if (floats_ > limits::kMaxFloats)
        return Status::error("memory: " + call + " needs " + approx(floats_) + " floats (" + mib(floats_) +
                             "), more than the limit of " + approx(limits::kMaxFloats) + " (" + mib(limits::kMaxFloats) +
                             " per call, so it fits in the wasm heap); " + alternative);
    if (work_ > max_work)
        return Status::error("work: " + call + " needs " + approx(work_) +
                             " multiply-adds, more than the limit of " + approx(max_work) + " per call (about " +
                             (max_work == limits::kMaxWork ? "2 s" : "40 s") + " in wasm); " + alternative);
    // Within the limits, the memory must still be there: a wasm heap grows only as far as the
    // engine allows. malloc reports failure by returning null (Emscripten's ABORTING_MALLOC=0),
    // whereas a std::vector that cannot allocate aborts the instance; so the call's memory is
    // reserved once here (the heap grows to hold it) and released for the call to use.
    if (floats_ > 0) {
        void* probe = std::malloc(static_cast<std::size_t>(floats_) * sizeof(float));
        if (!probe)
            return Status::error("memory: " + call + " needs " + mib(floats_) +
                                 " and the heap could not grow that far (the engine refused memory); " + alternative);
        probe_sink = probe;  // a volatile store: the compiler may not elide the malloc/free pair
        std::free(probe);
        probe_sink = nullptr;
    }
    return {};
}

namespace {

// The scores with weights: general projects the queries (Q W, then a dot product per pair); additive
// projects both sides to `hidden` and evaluates one tanh per query, key and hidden unit. Shared by
// compute_scores' cost and the fused output path's.
void add_weighted_score_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq,
                             std::uint64_t dk, std::uint64_t hidden) {
    if (score == Score::general) {
        b.floats(nq, dk);
        b.work(nq, dk, dq);
        b.work(nq, nk, dk);
    } else if (score == Score::additive) {
        b.floats(nq + nk, hidden);
        b.work(nq, hidden, dq);
        b.work(nk, hidden, dk);
        b.work(nq, nk, hidden, limits::kTanhCost);
    }
}

}  // namespace

void add_score_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq, std::uint64_t dk,
                    std::uint64_t hidden) {
    b.floats(nq, nk);  // S
    switch (score) {
        case Score::cosine:
            b.floats(nq + nk, dq + 1);  // rescaled copies (only when needed) and norms
            b.work(nq, nk, dq);
            break;
        case Score::general:
        case Score::additive:
            add_weighted_score_cost(b, score, nq, nk, dq, dk, hidden);
            break;
        case Score::neg_euclidean:
        case Score::neg_sq_euclidean:
        case Score::idw:
            b.floats(nq + 2 * nk);  // norms and one row of direct distances
            b.work(nq, nk, dq);
            b.work(nq, nk, dq);  // the direct (double) distances, where the identity cancels
            break;
        default: b.work(nq, nk, dq); break;
    }
}

void add_fused_output_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq,
                           std::uint64_t dk, std::uint64_t dv, std::uint64_t hidden) {
    b.floats(nq, dv);                  // O
    b.floats(nk, dk + 1);              // packed keys and their norms
    b.floats(nq, 1);                   // query norms
    b.work(nq, nk, dv);                // P V
    b.work(nq, nk, 16);                // the online softmax's exponentials and rescaling
    switch (score) {
        case Score::general:
            add_weighted_score_cost(b, score, nq, nk, dq, dk, hidden);
            break;
        case Score::additive:
            add_weighted_score_cost(b, score, nq, nk, dq, dk, hidden);
            b.floats(64, nk);          // one block of scores
            break;
        case Score::cosine:
        case Score::neg_euclidean:
        case Score::neg_sq_euclidean:
        case Score::idw:
        case Score::neg_manhattan:
            b.floats(nq + nk, dq);     // rescaled copies of out-of-range rows, or blocks of scores
            b.floats(64, nk);
            b.work(nq, nk, dq);
            break;
        default: b.work(nq, nk, dq); break;
    }
}

}  // namespace attnscope
