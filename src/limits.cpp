#include "attnscope/limits.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "scores/score_def.hpp"

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
    const Verdict v = verdict(max_work);
    return v == Verdict::ok ? Status{} : refusal(v, call, alternative, max_work);
}

Budget::Verdict Budget::verdict(std::uint64_t max_work) const {
    if (floats_ > limits::kMaxFloats) return Verdict::floats;
    if (work_ > max_work) return Verdict::work;
    // Within the limits, the memory must still be there: a wasm heap grows only as far as the
    // engine allows. malloc reports failure by returning null (Emscripten's ABORTING_MALLOC=0),
    // whereas a std::vector that cannot allocate aborts the instance; so the call's memory is
    // reserved once here (the heap grows to hold it) and released for the call to use.
    if (floats_ > 0) {
        void* probe = std::malloc(static_cast<std::size_t>(floats_) * sizeof(float));
        if (!probe) return Verdict::memory;
        probe_sink = probe;  // a volatile store: the compiler may not elide the malloc/free pair
        std::free(probe);
        probe_sink = nullptr;
    }
    return Verdict::ok;
}

Status Budget::refusal(Verdict v, const std::string& call, const std::string& alternative, std::uint64_t max_work) const {
    switch (v) {
        case Verdict::ok: return {};
        case Verdict::floats:
            return Status::error("memory: " + call + " needs " + approx(floats_) + " floats (" + mib(floats_) +
                                 "), more than the limit of " + approx(limits::kMaxFloats) + " (" + mib(limits::kMaxFloats) +
                                 " per call, so it fits in the wasm heap); " + alternative);
        case Verdict::work:
            return Status::error("work: " + call + " needs " + approx(work_) +
                                 " multiply-adds, more than the limit of " + approx(max_work) + " per call (about " +
                                 (max_work == limits::kMaxWork ? "2 s" : "40 s") + " in wasm); " + alternative);
        case Verdict::memory:
            return Status::error("memory: " + call + " needs " + mib(floats_) +
                                 " and the heap could not grow that far (the engine refused memory); " + alternative);
    }
    return {};
}

void add_score_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq, std::uint64_t dk,
                    std::uint64_t hidden) {
    b.floats(nq, nk);  // S
    scores::score_def(score).cost(b, scores::CostShape{nq, nk, dq, dk, hidden});
}

void add_fused_output_cost(Budget& b, Score score, std::uint64_t nq, std::uint64_t nk, std::uint64_t dq,
                           std::uint64_t dk, std::uint64_t dv, std::uint64_t hidden) {
    b.floats(nq, dv);                  // O
    b.floats(nk, dk + 1);              // packed keys and their norms
    b.floats(nq, 1);                   // query norms
    b.work(nq, nk, dv);                // P V
    b.work(nq, nk, 16);                // the online softmax's exponentials and rescaling
    scores::score_def(score).output_cost(b, scores::CostShape{nq, nk, dq, dk, hidden});
}

}  // namespace attnscope
