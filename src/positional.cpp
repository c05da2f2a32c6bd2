#include "attnscope/positional.hpp"

#include <cmath>

namespace attnscope {

void sinusoidal_position(std::size_t position, std::size_t d, float* out) {
    const double pos = static_cast<double>(position);
    for (std::size_t j = 0; j < d; ++j) {
        const double i2 = static_cast<double>(j - (j % 2));  // 2i for both members of a pair
        const double angle = pos / std::pow(10000.0, i2 / static_cast<double>(d));
        out[j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
}

void add_sinusoidal_positions(Matrix X, std::size_t first_position) {
    std::vector<float> pe(X.cols);
    for (std::size_t i = 0; i < X.rows; ++i) {
        sinusoidal_position(first_position + i, X.cols, pe.data());
        float* row = X.row(i);
        for (std::size_t j = 0; j < X.cols; ++j) row[j] += pe[j];
    }
}

}  // namespace attnscope
