// libFuzzer target: attention rollout and attention flow (attnscope/rollout.hpp, flow.hpp) on stacks
// whose every weight the fuzzer chooses: any float bit pattern (NaN, infinities, negatives, subnormals
// such as 1e-45), 1 to 5 layers, 1 to 3 heads, 1 to 6 tokens, any residual and head mode. Each call
// either refuses the stack with a message or returns in bounded time (libFuzzer's -timeout) numbers
// that keep the promises of docs/flow.md: rollout rows are shares (finite, in [0, 1], summing to 1),
// flows lie in [0, 1], and with two layers Dinic equals the closed form.
#include <cmath>
#include <cstdint>
#include <vector>

#include "attnscope/flow.hpp"
#include "attnscope/rollout.hpp"
#include "fuzz_input.hpp"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::size_t layers = in.in(1, 5), heads = in.in(1, 3), n = in.in(1, 6);
    RolloutOptions o;
    const std::uint8_t r = in.byte();
    o.residual = r >= 240 ? static_cast<double>(in.f32(true)) : r / 239.0;  // mostly in [0, 1], sometimes anything
    const std::uint8_t mode = in.byte() % 3;
    o.head = mode == 0 ? RolloutHead::mean : mode == 1 ? RolloutHead::max : RolloutHead::index;
    o.head_index = in.in(0, 3);
    const bool raw = in.flag();  // raw bit patterns, or weights from a byte each (mostly valid rows)
    std::vector<float> A(layers * heads * n * n);
    for (float& a : A) a = raw ? in.f32(true) : static_cast<float>(in.byte()) / 255.0f;
    std::vector<float> rolled(n * n, -1.0f), flow(n * n, -1.0f);
    const Status rs = attention_rollout(A.data(), layers, heads, n, o, rolled.data());
    const Status fs = attention_flow(A.data(), layers, heads, n, o, flow.data());
    FUZZ_ASSERT(rs.ok() == fs.ok());  // the same checks of the same input
    if (!rs.ok()) {
        FUZZ_ASSERT(!rs.message().empty() && !fs.message().empty());
        return 0;
    }
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const float v = rolled[i * n + j], f = flow[i * n + j];
            FUZZ_ASSERT(std::isfinite(v) && v >= 0.0f && v <= 1.0f + 1e-5f);
            FUZZ_ASSERT(std::isfinite(f) && f >= 0.0f && f <= 1.0f + 1e-5f);
            sum += v;
        }
        FUZZ_ASSERT(std::fabs(sum - 1.0) < 1e-4);
    }
    if (layers == 2) {
        std::vector<float> dinic(n * n);
        FUZZ_ASSERT(attention_flow(A.data(), layers, heads, n, o, dinic.data(), FlowSolver::dinic).ok());
        for (std::size_t k = 0; k < n * n; ++k) FUZZ_ASSERT(std::fabs(dinic[k] - flow[k]) < 1e-5f);
    }
    return 0;
}
