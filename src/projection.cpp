#include "attnscope/projection.hpp"

#include <cmath>

#include "attnscope/random.hpp"

namespace attnscope {

std::vector<float> xavier_uniform(std::size_t rows, std::size_t cols, std::uint32_t seed, std::uint64_t stream) {
    std::vector<float> w(rows * cols);
    // sqrt and division are exactly rounded in IEEE arithmetic, so `a` is the same everywhere.
    const float a = std::sqrt(6.0f / static_cast<float>(rows + cols));
    Pcg32 rng(seed, stream);
    for (auto& x : w) x = rng.symmetric(a);
    return w;
}

}  // namespace attnscope
