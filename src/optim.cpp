#include "attnscope/optim.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attnscope {

Status Adam::init(std::size_t size, const AdamOptions& o) {
    if (!(o.learning_rate > 0.0f) || !std::isfinite(o.learning_rate))
        return Status::error("learning_rate: expected a finite number > 0, got " + std::to_string(o.learning_rate));
    if (!(o.beta1 >= 0.0f && o.beta1 < 1.0f)) return Status::error("beta1: expected 0 <= beta1 < 1, got " + std::to_string(o.beta1));
    if (!(o.beta2 >= 0.0f && o.beta2 < 1.0f)) return Status::error("beta2: expected 0 <= beta2 < 1, got " + std::to_string(o.beta2));
    if (!(o.epsilon >= 0.0f) || !std::isfinite(o.epsilon))
        return Status::error("epsilon: expected a finite number >= 0, got " + std::to_string(o.epsilon));
    if (!(o.weight_decay >= 0.0f) || !(o.weight_decay * o.learning_rate < 1.0f))
        return Status::error("weight_decay: expected a number >= 0 with learning_rate * weight_decay < 1, got " + std::to_string(o.weight_decay));
    o_ = o;
    m_.assign(size, 0.0f);
    v_.assign(size, 0.0f);
    reset();
    return {};
}

void Adam::reset() {
    std::fill(m_.begin(), m_.end(), 0.0f);
    std::fill(v_.begin(), v_.end(), 0.0f);
    t_ = 0;
    beta1_t_ = beta2_t_ = 1.0;
}

Status Adam::step(float* params, const float* grads, std::size_t count, const std::uint8_t* decay) {
    if (count != m_.size())
        return Status::error("params, grads: expected " + std::to_string(m_.size()) + " values (the size given to init), got " +
                             std::to_string(count));
    ++t_;
    beta1_t_ *= static_cast<double>(o_.beta1);
    beta2_t_ *= static_cast<double>(o_.beta2);
    const float c1 = static_cast<float>(1.0 / (1.0 - beta1_t_));  // m̂ = m c1
    const float c2 = static_cast<float>(1.0 / (1.0 - beta2_t_));  // v̂ = v c2
    const float b1 = o_.beta1, b2 = o_.beta2, lr = o_.learning_rate, eps = o_.epsilon;
    if (o_.weight_decay > 0.0f) {
        const float keep = 1.0f - lr * o_.weight_decay;
        for (std::size_t i = 0; i < count; ++i)
            if (!decay || decay[i]) params[i] *= keep;
    }
    for (std::size_t i = 0; i < count; ++i) {
        const float g = grads[i];
        m_[i] = b1 * m_[i] + (1.0f - b1) * g;
        v_[i] = b2 * v_[i] + (1.0f - b2) * (g * g);
        params[i] -= lr * (m_[i] * c1) / (std::sqrt(v_[i] * c2) + eps);
    }
    return {};
}

}  // namespace attnscope
