// .npy internals the .npz reader shares (zip.cpp). Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/tensor.hpp"

namespace attnscope::io {

// A numpy array of unicode strings (dtype '<U..', from np.array(tokens)) into `out`; `name` prefixes
// the error messages.
Status npy_strings(const std::uint8_t* bytes, std::size_t size, const char* name, std::vector<std::string>& out);

}  // namespace attnscope::io
