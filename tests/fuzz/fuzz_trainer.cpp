// libFuzzer target: the head trainer's options and data (attnscope/trainer.hpp) from arbitrary bytes.
// Sizes, the score, positions, output mode, temperature, learning rate and idw's p and ε come from the
// fuzzer (any float bit pattern for the numbers, one run in eight), the sentences are small. Whatever
// the options, init() either refuses them with a message or gives a trainer whose steps keep their
// promise: a step either fails with a message (its loss, gradient or update was not finite) and leaves
// the parameters as they were, or appends a finite loss with every parameter finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/trainer.hpp"
#include "fuzz_input.hpp"

using namespace attnscope;
using attnscope::fuzz::Input;

namespace {
bool all_finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input in(data, size);
    const auto& infos = score_infos();
    TrainerOptions o;
    const bool any = in.in(0, 7) == 0;
    o.d_in = in.in(0, 9);
    o.d_head = in.in(0, 9);
    o.positions = static_cast<TrainerPositions>(in.in(0, 2));
    o.d_pos = in.in(0, 9);
    o.max_len = in.in(0, 8);
    o.score = infos[in.in(0, infos.size() - 1)].id;
    o.hidden = in.in(0, 6);
    o.batch = in.in(0, 5);
    o.output = static_cast<TrainerOutput>(in.in(0, 2));
    o.seed = in.byte();
    o.temperature = in.flag() ? in.f32(any) : std::ldexp(1.0f, static_cast<int>(in.in(0, 40)) - 20);
    o.learning_rate = in.flag() ? in.f32(any) : std::ldexp(1.0f, static_cast<int>(in.in(0, 30)) - 20);
    if (in.flag()) {
        o.p = in.f32(any);
        o.eps = in.f32(any);
    }
    TrainerData d;
    const std::size_t sentences = in.in(0, 4);
    std::size_t total = 0;
    for (std::size_t s = 0; s < sentences; ++s) {
        const std::size_t n = in.in(1, 8);
        d.lengths.push_back(static_cast<std::uint32_t>(n));
        for (std::size_t i = 0; i < n; ++i) d.targets.push_back(static_cast<std::int32_t>(in.in(0, n)) - 1);
        total += n;
    }
    const int e = static_cast<int>(in.in(0, 160)) - 80;   // vectors from tiny to overflowing once projected
    for (std::size_t i = 0; i < total * o.d_in; ++i) d.X.push_back(std::ldexp(static_cast<float>(static_cast<std::int8_t>(in.byte())), e));

    HeadTrainer t;
    Status st = t.init(o, d);
    if (!st) {
        FUZZ_ASSERT(!st.message().empty());
        return 0;
    }
    FUZZ_ASSERT(all_finite(t.params()));
    for (int k = 0; k < 3; ++k) {
        const std::vector<float> before = t.params();
        const std::size_t steps = t.losses().size();
        st = t.step(1);
        if (!st) {
            FUZZ_ASSERT(!st.message().empty() && t.params() == before && t.losses().size() == steps);
            break;
        }
        FUZZ_ASSERT(t.losses().size() == steps + 1 && std::isfinite(t.losses().back()) && all_finite(t.params()));
    }
    // evaluate() and gradients() report what the (finite) parameters give on this data, which may
    // overflow for vectors near the float limit: run for memory safety and UB only.
    TrainerEval ev;
    (void)t.evaluate(d, ev);
    HeadTrainer::Gradients g;
    (void)t.gradients({0}, g);
    return 0;
}
