// Scalar steps of the row kernels that the reference (scalar.cpp) and the SIMD kernels' scalar tails
// (simd.cpp) share, so a tail column gets the reference's operations in the reference's order: one
// definition each (as idw.hpp is for idw's log term). A layer norm row's mean and r stay each
// variant's own (its layer_norm_row_stats, which its forward kernel uses too): the SIMD one sums
// over vectors.
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/kernels.hpp"

namespace attnscope::kernels {
namespace {

// The exact GELU, x Φ(x) with Φ(x) = erfc(−x/√2)/2.
inline float gelu(float x) { return 0.5f * x * std::erfc(-x * kInvSqrt2); }

// Its derivative Φ(x) + x φ(x), the factor gelu_backward multiplies dy by.
inline float gelu_derivative(float x) {
    const float cdf = 0.5f * std::erfc(-x * kInvSqrt2);
    const float pdf = kInvSqrt2Pi * std::exp(-0.5f * x * x);
    return cdf + x * pdf;
}

// The row loop of the layer norm kernels, forward and backward: for row i, x = X + i ldx, its mean
// and r from stats(x, cols, eps, mean, r), then row(i, x, mean, r).
template <class Stats, class Row>
inline void layer_norm_rows(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, float eps, Stats stats,
                            Row row) {
    for (std::size_t i = 0; i < rows; ++i) {
        const float* x = X + i * ldx;
        float mean, r;
        stats(x, cols, eps, mean, r);
        row(i, x, mean, r);
    }
}

// The row loop of softmax_backward_rows: row(a, g, ds) on row i of A, G and dS. A row reads g in
// full before it writes ds (which may alias G).
template <class Row>
inline void softmax_backward_row_loop(std::size_t rows, const float* A, std::size_t lda, const float* G, std::size_t ldg,
                                      float* dS, std::size_t ldd, Row row) {
    for (std::size_t i = 0; i < rows; ++i) row(A + i * lda, G + i * ldg, dS + i * ldd);
}

// A softmax backward row over columns [j, cols), with r = Σ g a over the row: ds = (1/τ) a (g − r).
inline void softmax_backward_cols(std::size_t j, std::size_t cols, const float* a, const float* g, float inv_tau, float r,
                                  float* ds) {
    for (; j < cols; ++j) ds[j] = inv_tau * a[j] * (g[j] - r);
}

// A layer norm row's backward sums over columns [t, cols), added to s1 and s2: Σ g dy and Σ g dy x̂
// with x̂ = (x − mean) r.
inline void layer_norm_backward_sums(std::size_t t, std::size_t cols, const float* x, const float* g, const float* dy,
                                     float mean, float r, float& s1, float& s2) {
    for (; t < cols; ++t) {
        const float gdy = g[t] * dy[t];
        s1 += gdy;
        s2 += gdy * ((x[t] - mean) * r);
    }
}

// Its gradients over columns [t, cols), with m1 and m2 those sums divided by cols:
// dx += r (g dy − m1 − x̂ m2), dg += dy x̂, db += dy.
inline void layer_norm_backward_cols(std::size_t t, std::size_t cols, const float* x, const float* g, const float* dy,
                                     float mean, float r, float m1, float m2, float* dx, float* dg, float* db) {
    for (; t < cols; ++t) {
        const float xhat = (x[t] - mean) * r;
        dx[t] += r * (g[t] * dy[t] - m1 - xhat * m2);
        dg[t] += dy[t] * xhat;
        db[t] += dy[t];
    }
}

}  // namespace
}  // namespace attnscope::kernels
