// Adam (Kingma & Ba 2015), bias-corrected: the optimiser the attention lab trains its heads with; with
// weight_decay > 0 it is AdamW (Loshchilov & Hutter 2019, decoupled weight decay, as PyTorch's AdamW),
// which the transformer trainer uses.
// Deterministic: plain loops in one fixed order, the bias corrections kept as running products in
// double (no pow), so the same parameters, gradients and options give the same bytes on every run
// (no FMA contraction is possible on the targets' baselines: x86-64 SSE2, wasm simd128).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnscope/tensor.hpp"

namespace attnscope {

struct AdamOptions {
    float learning_rate = 1e-3f;  // α > 0
    float beta1 = 0.9f;           // 0 <= β1 < 1
    float beta2 = 0.999f;         // 0 <= β2 < 1
    float epsilon = 1e-8f;        // ε >= 0, added to √v̂
    float weight_decay = 0.0f;    // λ >= 0: AdamW's decoupled decay (0 = plain Adam, bit for bit)
};

// The state of Adam over one flat array of parameters (concatenate several matrices, or use one Adam
// per matrix). Each step, with g the gradient and t the step number (1, 2, ...):
//   m ← β1 m + (1 − β1) g,  v ← β2 v + (1 − β2) g²,
//   m̂ = m / (1 − β1^t),  v̂ = v / (1 − β2^t),  θ ← θ − α m̂ / (√v̂ + ε);
// with weight_decay λ > 0, θ ← θ (1 − α λ) first (PyTorch's AdamW order), for the parameters `decay`
// marks (nonzero; null = all).
class Adam {
public:
    Adam() = default;
    // Checks the options; `size` parameters, moments at 0, t = 0.
    Status init(std::size_t size, const AdamOptions& options);
    // One update of params (size() entries) from grads (size() entries).
    Status step(float* params, const float* grads, std::size_t count, const std::uint8_t* decay = nullptr);
    void reset();  // moments to 0, t to 0 (options and size kept)
    std::size_t size() const { return m_.size(); }
    std::size_t steps() const { return t_; }
    const std::vector<float>& first_moment() const { return m_; }
    const std::vector<float>& second_moment() const { return v_; }
    const AdamOptions& options() const { return o_; }

private:
    AdamOptions o_;
    std::vector<float> m_, v_;
    std::size_t t_ = 0;
    double beta1_t_ = 1.0, beta2_t_ = 1.0;  // β1^t, β2^t
};

}  // namespace attnscope
