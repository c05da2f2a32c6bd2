// Attention rollout and head summaries (see attnscope/rollout.hpp).
#include "attnscope/rollout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/imported.hpp"
#include "attnscope/limits.hpp"

namespace attnscope {
namespace {

Status check_stack(const float* A, std::size_t layers, std::size_t heads, std::size_t nq, std::size_t nk) {
    if (!A) return Status::error("attentions: missing");
    if (layers == 0 || layers > kMaxLayersOrHeads) return Status::error("layers: expected 1 to " + std::to_string(kMaxLayersOrHeads));
    if (heads == 0 || heads > kMaxLayersOrHeads) return Status::error("heads: expected 1 to " + std::to_string(kMaxLayersOrHeads));
    if (nq == 0 || nq > kMaxTokens || nk == 0 || nk > kMaxTokens) return Status::error("n: expected 1 to " + std::to_string(kMaxTokens));
    if (layers * heads > kMaxAttentionValues / (nq * nk)) return Status::error("attentions: over the limit of " + std::to_string(kMaxAttentionValues) + " numbers");
    return {};
}

}  // namespace

Status rollout_budget(std::size_t layers, std::size_t heads, std::size_t n) {
    // Work: combining the heads (layers x heads x n^2) and one n x n x n product per layer after the
    // first; memory: three n x n matrices. The same budget as every public call, before any work: a
    // [4, 1, 4096, 4096] stack (within the limit of numbers) is 2e11 multiply-adds, minutes in wasm.
    Budget b;
    b.work(layers, heads, n, n);
    b.work(layers > 0 ? layers - 1 : 0, n, n, n);
    b.floats(3, n, n);
    return b.check("rollout of " + std::to_string(layers) + " layers x " + std::to_string(n) + " tokens",
                   "roll out fewer layers or tokens (e.g. the first tokens of the sentence)");
}

Status check_rollout_input(const float* A, std::size_t layers, std::size_t heads, std::size_t n, const RolloutOptions& o) {
    Status st = check_stack(A, layers, heads, n, n);
    if (!st) return st;
    if (!(o.residual >= 0.0 && o.residual <= 1.0)) return Status::error("residual: expected a number from 0 to 1 (the weight of the identity)");
    if (o.head == RolloutHead::index && o.head_index >= heads)
        return Status::error("head: index " + std::to_string(o.head_index) + " but there are " + std::to_string(heads) + " heads; use 0 to " +
                             std::to_string(heads - 1) + ", 'mean' or 'max'");
    return {};
}

Status check_rollout_call(const float* A, std::size_t layers, std::size_t heads, std::size_t n, const RolloutOptions& o,
                          const float* out, Status (*budget)(std::size_t layers, std::size_t heads, std::size_t n)) {
    if (Status st = check_rollout_input(A, layers, heads, n, o); !st) return st;
    if (!out) return Status::error("out: missing");
    if (Status cost = budget(layers, heads, n); !cost) return cost;
    return check_rollout_weights(A, layers, heads, n);
}

Status check_rollout_weights(const float* A, std::size_t layers, std::size_t heads, std::size_t n) {
    // Every weight, not only each row's sum: a row of negative and positive weights with a positive sum
    // would give flows outside [0, 1] and "shares" below 0.
    const std::size_t nn = n * n, total = layers * heads * nn;
    for (std::size_t k = 0; k < total; ++k) {
        if (A[k] >= 0.0f && A[k] <= std::numeric_limits<float>::max()) continue;
        const std::size_t l = k / (heads * nn), h = k / nn % heads, i = k % nn / n, j = k % n;
        return Status::error("attentions: the weight at layer " + std::to_string(l) + ", head " + std::to_string(h) + ", row " +
                             std::to_string(i) + ", column " + std::to_string(j) + " is " + std::to_string(A[k]) +
                             "; rollout and flow need finite, non-negative attention weights (a softmax's output)");
    }
    return {};
}

Status residual_attention(const float* A, std::size_t heads, std::size_t n, const RolloutOptions& o, std::size_t l, float* bar) {
    const std::size_t nn = n * n;
    const double r = o.residual, a = 1.0 - o.residual, inv_heads = 1.0 / static_cast<double>(heads);
    const float* layer = A + l * heads * nn;
    std::vector<double> row(n);
    for (std::size_t i = 0; i < n; ++i) {
        // 1. combine the heads, in double: the mean of two weights of 3e38 is 3e38, their float sum infinite
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t k = i * n + j;
            double v;
            if (o.head == RolloutHead::index) {
                v = layer[o.head_index * nn + k];
            } else if (o.head == RolloutHead::max) {
                v = layer[k];
                for (std::size_t h = 1; h < heads; ++h) v = std::max(v, static_cast<double>(layer[h * nn + k]));
            } else {
                v = 0.0;
                for (std::size_t h = 0; h < heads; ++h) v += layer[h * nn + k];
                v *= inv_heads;
            }
            row[j] = v;
        }
        // 2. residual and row normalisation, in double: 1/sum of a row of subnormal weights (1e-45) is past
        // float's range; each quotient is at most 1.
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            row[j] = a * row[j] + (i == j ? r : 0.0);
            sum += row[j];
        }
        if (!(sum > 0)) return Status::error("attentions: layer " + std::to_string(l) + ", row " + std::to_string(i) +
                                             " sums to 0 after the residual; rollout needs a positive weight in every row (or residual > 0)");
        for (std::size_t j = 0; j < n; ++j) bar[i * n + j] = static_cast<float>(row[j] / sum);
    }
    return {};
}

Status attention_rollout(const float* A, std::size_t layers, std::size_t heads, std::size_t n,
                         const RolloutOptions& o, float* out) {
    Status st = check_rollout_call(A, layers, heads, n, o, out, rollout_budget);
    if (!st) return st;
    const std::size_t nn = n * n;
    std::vector<float> bar(nn), R(nn), next(nn);
    for (std::size_t l = 0; l < layers; ++l) {
        st = residual_attention(A, heads, n, o, l, bar.data());
        if (!st) return st;
        // 3. R = bar · R (first layer: R = bar)
        if (l == 0) {
            R = bar;
            continue;
        }
        std::fill(next.begin(), next.end(), 0.0f);
        for (std::size_t i = 0; i < n; ++i) {
            float* dst = next.data() + i * n;
            const float* brow = bar.data() + i * n;
            for (std::size_t k = 0; k < n; ++k) {
                const float b = brow[k];
                if (b == 0.0f) continue;
                const float* src = R.data() + k * n;
                for (std::size_t j = 0; j < n; ++j) dst[j] += b * src[j];
            }
        }
        R.swap(next);
    }
    std::copy(R.begin(), R.end(), out);
    return {};
}

Status head_summaries(const float* A, std::size_t layers, std::size_t heads, std::size_t nq, std::size_t nk,
                      HeadSummary* out) {
    Status st = check_stack(A, layers, heads, nq, nk);
    if (!st) return st;
    if (!out) return Status::error("out: missing");
    for (std::size_t lh = 0; lh < layers * heads; ++lh) {
        const float* m = A + lh * nq * nk;
        double entropy = 0, mean_max = 0;
        float mx = m[0];
        for (std::size_t i = 0; i < nq; ++i) {
            const float* row = m + i * nk;
            float row_max = row[0];
            double h = 0;
            for (std::size_t j = 0; j < nk; ++j) {
                row_max = std::max(row_max, row[j]);
                if (row[j] > 0) h -= static_cast<double>(row[j]) * std::log(static_cast<double>(row[j]));
            }
            entropy += h;
            mean_max += row_max;
            mx = std::max(mx, row_max);
        }
        out[lh].entropy = static_cast<float>(entropy / static_cast<double>(nq));
        out[lh].max = mx;
        out[lh].mean_max = static_cast<float>(mean_max / static_cast<double>(nq));
    }
    return {};
}

}  // namespace attnscope
