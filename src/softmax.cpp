#include "attnscope/softmax.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "kernels/kernels.hpp"

namespace attnscope {

Status inverse_temperature(float temperature, float& inv_tau) {
    if (!(temperature > 0.0f) || !std::isfinite(temperature))
        return Status::error("temperature: expected a finite number > 0, got " + std::to_string(temperature));
    inv_tau = 1.0f / temperature;
    if (!std::isfinite(inv_tau))
        return Status::error("temperature: too small to divide by; use a value >= 1e-30");
    return {};
}

Status masked_softmax(ConstMatrix S, const SoftmaxOptions& o, Matrix A) {
    if (A.rows != S.rows || A.cols != S.cols)
        return Status::error("A: expected the shape of S, " + std::to_string(S.rows) + "x" + std::to_string(S.cols));
    float inv_tau = 1.0f;
    if (Status st = inverse_temperature(o.temperature, inv_tau); !st) return st;
    const auto& kt = kernels_for(o.variant);
    const bool masked = o.mask != Mask::none || o.key_padding != nullptr;
    if (!masked) {
        kt.softmax_rows(S.rows, S.cols, S.data, S.stride, inv_tau, A.data, A.stride);
        return {};
    }
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < S.rows; ++i) {
        const float* s = S.row(i);
        float* a = A.row(i);
        for (std::size_t j = 0; j < S.cols; ++j) {
            const bool hidden = (o.mask == Mask::causal && j > o.query_offset + i) || (o.key_padding && o.key_padding[j] != 0);
            a[j] = hidden ? neg_inf : s[j];
        }
    }
    kt.softmax_rows(A.rows, A.cols, A.data, A.stride, inv_tau, A.data, A.stride);
    return {};
}

namespace {
// The largest weight of a row and its key (the first, on ties).
void row_max(const float* a, std::size_t n, RowStats& st) {
    for (std::size_t j = 0; j < n; ++j) {
        if (a[j] > st.max_weight) {
            st.max_weight = a[j];
            st.argmax = static_cast<std::uint32_t>(j);
        }
    }
}
// −Σ a log a over the positive weights, in double.
float entropy_direct(const float* a, std::size_t n) {
    double h = 0.0;
    for (std::size_t j = 0; j < n; ++j)
        if (a[j] > 0.0f) h -= static_cast<double>(a[j]) * std::log(static_cast<double>(a[j]));
    return static_cast<float>(h);
}
}  // namespace

std::vector<RowStats> row_stats(ConstMatrix A) {
    std::vector<RowStats> stats(A.rows);
    for (std::size_t i = 0; i < A.rows; ++i) {
        row_max(A.row(i), A.cols, stats[i]);
        stats[i].entropy = entropy_direct(A.row(i), A.cols);
    }
    return stats;
}

std::vector<RowStats> row_stats(ConstMatrix A, ConstMatrix S, float inv_tau, const std::function<bool(std::size_t)>& direct) {
    std::vector<RowStats> stats(A.rows);
    for (std::size_t i = 0; i < A.rows; ++i) {
        const float* a = A.row(i);
        const float* s = S.row(i);
        RowStats& st = stats[i];
        row_max(a, A.cols, st);
        const float sr = s[st.argmax];
        if (!(st.max_weight > 0.0f) || !std::isfinite(sr) || direct(i)) {
            st.entropy = entropy_direct(a, A.cols);
            continue;
        }
        double sum = 0.0, spread = 0.0;
        for (std::size_t j = 0; j < A.cols; ++j) {
            const double w = a[j] > 0.0f ? static_cast<double>(a[j]) : 0.0;  // masked keys: 0, whatever their score
            sum += w;
            spread += w > 0.0 ? w * (static_cast<double>(s[j]) - sr) : 0.0;
        }
        // A one-hot row gives −0 and a nearly one-hot one a rounding below 0: the entropy is ≥ 0, +0 at least.
        const double h = -std::log(static_cast<double>(st.max_weight)) * sum - static_cast<double>(inv_tau) * spread;
        st.entropy = static_cast<float>(h > 0.0 ? h : 0.0);
    }
    return stats;
}

}  // namespace attnscope
