// Internal to the trained models (src/model.cpp, src/transformer.cpp): where a re-scored head's score
// matrices come from.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/projection.hpp"
#include "scores/score_def.hpp"

namespace attnscope {

// A re-scored head's score matrices: the given ones, or seeded Xavier matrices of seed 1 on head
// `index`'s streams (USE-Lite's re-scored heads and a transformer's get the same), kept in `store`.
class SeededHeadMatrices final : public scores::MatrixSource {
public:
    SeededHeadMatrices(std::size_t index, std::vector<std::vector<float>>& store) : index_(index), store_(store) {}
    const float* matrix(const float* given, std::size_t rows, std::size_t cols, MatrixKind kind) override {
        if (given) return given;
        store_.push_back(xavier_uniform(rows, cols, 1, matrix_stream(kind, index_)));
        return store_.back().data();  // (an inner vector keeps its buffer when `store_` grows)
    }

private:
    std::size_t index_;
    std::vector<std::vector<float>>& store_;
};

}  // namespace attnscope
