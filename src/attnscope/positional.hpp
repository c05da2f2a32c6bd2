// Sinusoidal positional encodings (Vaswani et al. 2017):
//   PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
#pragma once

#include <cstddef>

#include "attnscope/tensor.hpp"

namespace attnscope {

// The encoding of one position into out[0..d).
void sinusoidal_position(std::size_t position, std::size_t d, float* out);
// Adds PE(first_position + i) to row i of X.
void add_sinusoidal_positions(Matrix X, std::size_t first_position = 0);

}  // namespace attnscope
