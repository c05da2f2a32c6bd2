// Scalar reference kernels: the oracle the SIMD variants are tested against, and a variant users
// can select at run time. Plain loops in the order the math is written; float accumulation, so the
// numbers are what a straightforward implementation gives.
#include <cassert>
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/idw.hpp"
#include "kernels/kernels.hpp"
#include "kernels/scalar_steps.hpp"

namespace attnscope::kernels {

namespace {
// out[i ldo + j] = finish(Σ_t term(i, j, t)) for i < m, j < n, t < k: each sum a float from 0 in t
// order. The loops of every pairwise kernel here (the products, the distances, additive's tanh sums).
template <class Term, class Finish>
inline void pair_sums(std::size_t m, std::size_t n, std::size_t k, float* out, std::size_t ldo, Term term, Finish finish) {
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::size_t t = 0; t < k; ++t) acc += term(i, j, t);
            out[i * ldo + j] = finish(acc);
        }
    }
}
constexpr auto as_summed = [](float acc) { return acc; };

// X[i ld + t] = 0 for i < rows, t < cols.
inline void zero_rows(std::size_t rows, std::size_t cols, float* X, std::size_t ld) {
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t t = 0; t < cols; ++t) X[i * ld + t] = 0.0f;
}
}  // namespace

void f32_gemm_nt__scalar(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                         const float* B, std::size_t ldb, float* C, std::size_t ldc, float alpha) {
    assert(lda >= k && ldb >= k && ldc >= n);
    pair_sums(m, n, k, C, ldc, [&](std::size_t i, std::size_t j, std::size_t t) { return A[i * lda + t] * B[j * ldb + t]; },
              [&](float acc) { return alpha * acc; });
}

void f32_gemm_nn__scalar(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                         const float* B, std::size_t ldb, float* C, std::size_t ldc) {
    assert(lda >= k && ldb >= n && ldc >= n);
    pair_sums(m, n, k, C, ldc, [&](std::size_t i, std::size_t j, std::size_t t) { return A[i * lda + t] * B[t * ldb + j]; },
              as_summed);
}

void f32_row_sumsq__scalar(std::size_t rows, std::size_t cols, const float* X, std::size_t ld, float* out) {
    for (std::size_t i = 0; i < rows; ++i) {
        float acc = 0.0f;
        for (std::size_t t = 0; t < cols; ++t) acc += X[i * ld + t] * X[i * ld + t];
        out[i] = acc;
    }
}

void f32_neg_manhattan__scalar(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                               const float* B, std::size_t ldb, float* S, std::size_t lds) {
    assert(lda >= k && ldb >= k && lds >= n);
    pair_sums(m, n, k, S, lds,
              [&](std::size_t i, std::size_t j, std::size_t t) { return std::fabs(A[i * lda + t] - B[j * ldb + t]); },
              [](float acc) { return -acc; });
}

void f32_cosine_epilogue__scalar(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* a,
                                 const float* b) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) S[i * lds + j] *= a[i] * b[j];
}

namespace {
inline float sq_distance(float qq, float kk, float qk) {
    // Rounding can push the identity slightly below zero for (near-)equal vectors. Written so that a
    // NaN stays NaN (a clamp `d2 > 0 ? d2 : 0` would turn it into a perfect match).
    const float d2 = qq + kk - 2.0f * qk;
    return d2 < 0.0f ? 0.0f : d2;
}
}  // namespace

void f32_sq_euclidean_epilogue__scalar(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                                       const float* kk) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) S[i * lds + j] = -sq_distance(qq[i], kk[j], S[i * lds + j]);
}

void f32_euclidean_epilogue__scalar(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                                    const float* kk) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) S[i * lds + j] = -std::sqrt(sq_distance(qq[i], kk[j], S[i * lds + j]));
}

void f32_idw_epilogue__scalar(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                              const float* kk, float p, float eps) {
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const float d2 = sq_distance(qq[i], kk[j], S[i * lds + j]);
            // p = 2 (the default): -log(eps + ||q-k||²), which cannot overflow for the rows the
            // caller sends here (|components| <= 2^40). Other p: the log-sum form of idw.hpp, since
            // ||q-k||^p itself overflows float from p log||q-k|| > 88.7; saturated at ±FLT_MAX.
            S[i * lds + j] = p == 2.0f ? -std::log(eps + d2) : idw_score(d2, p, eps);
        }
    }
}

void f32_additive__scalar(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                          const float* Bk, std::size_t ldb, const float* v, float* S, std::size_t lds) {
    pair_sums(m, n, h, S, lds,
              [&](std::size_t i, std::size_t j, std::size_t t) { return v[t] * std::tanh(Aq[i * lda + t] + Bk[j * ldb + t]); },
              as_summed);
}

void f32_softmax_rows__scalar(std::size_t rows, std::size_t cols, const float* S, std::size_t lds, float inv_tau,
                              float* W, std::size_t ldw) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < rows; ++i) {
        const float* s = S + i * lds;
        float* w = W + i * ldw;
        float mx = -inf;
        bool nan = false;
        for (std::size_t j = 0; j < cols; ++j) {
            if (std::isnan(s[j])) nan = true;
            if (s[j] > mx) mx = s[j];
        }
        if (nan) {
            for (std::size_t j = 0; j < cols; ++j) w[j] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        if (mx == -inf) {  // every key masked: a defined all-zero row
            for (std::size_t j = 0; j < cols; ++j) w[j] = 0.0f;
            continue;
        }
        if (mx == inf) {  // the limit of softmax: +inf entries share the weight equally
            float count = 0.0f;
            for (std::size_t j = 0; j < cols; ++j) count += (s[j] == inf) ? 1.0f : 0.0f;
            for (std::size_t j = 0; j < cols; ++j) w[j] = (s[j] == inf) ? 1.0f / count : 0.0f;
            continue;
        }
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols; ++j) {
            const float e = std::exp((s[j] - mx) * inv_tau);  // exp(-inf) = 0 for masked keys
            w[j] = e;
            sum += e;
        }
        const float inv_sum = 1.0f / sum;  // sum >= 1: the max entry contributes exp(0)
        for (std::size_t j = 0; j < cols; ++j) w[j] *= inv_sum;
    }
}

// --- backward passes ---

void f32_gemm_tn__scalar(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                         const float* B, std::size_t ldb, float* C, std::size_t ldc) {
    assert(lda >= m && ldb >= n && ldc >= n);
    pair_sums(m, n, k, C, ldc, [&](std::size_t i, std::size_t j, std::size_t t) { return A[t * lda + i] * B[t * ldb + j]; },
              as_summed);
}

void f32_softmax_backward_rows__scalar(std::size_t rows, std::size_t cols, const float* A, std::size_t lda,
                                       const float* G, std::size_t ldg, float inv_tau, float* dS, std::size_t ldd) {
    softmax_backward_row_loop(rows, A, lda, G, ldg, dS, ldd, [cols, inv_tau](const float* a, const float* g, float* ds) {
        float r = 0.0f;
        for (std::size_t j = 0; j < cols; ++j) r += g[j] * a[j];
        softmax_backward_cols(0, cols, a, g, inv_tau, r, ds);
    });
}

void f32_sq_distances__scalar(std::size_t m, std::size_t n, std::size_t k, const float* Q, std::size_t ldq,
                              const float* K, std::size_t ldk, float* D, std::size_t ldd) {
    assert(ldq >= k && ldk >= k && ldd >= n);
    pair_sums(m, n, k, D, ldd, [&](std::size_t i, std::size_t j, std::size_t t) {
        const float diff = Q[i * ldq + t] - K[j * ldk + t];
        return diff * diff;
    }, as_summed);
}

void f32_additive_backward__scalar(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                                   const float* Bk, std::size_t ldb, const float* v, const float* G, std::size_t ldg,
                                   float* dAq, std::size_t ldda, float* dBk, std::size_t lddb, float* dv) {
    zero_rows(m, h, dAq, ldda);
    zero_rows(n, h, dBk, lddb);
    for (std::size_t t = 0; t < h; ++t) dv[t] = 0.0f;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const float g = G[i * ldg + j];
            for (std::size_t t = 0; t < h; ++t) {
                const float th = std::tanh(Aq[i * lda + t] + Bk[j * ldb + t]);
                const float p = g * v[t] * (1.0f - th * th);
                dAq[i * ldda + t] += p;
                dBk[j * lddb + t] += p;
                dv[t] += g * th;
            }
        }
    }
}

void f32_manhattan_backward__scalar(std::size_t m, std::size_t n, std::size_t k, const float* Q, std::size_t ldq,
                                    const float* K, std::size_t ldk, const float* G, std::size_t ldg, float* dQ,
                                    std::size_t lddq, float* dK, std::size_t lddk) {
    zero_rows(m, k, dQ, lddq);
    zero_rows(n, k, dK, lddk);
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const float g = G[i * ldg + j];
            for (std::size_t t = 0; t < k; ++t) {
                const float diff = Q[i * ldq + t] - K[j * ldk + t];
                const float s = diff > 0.0f ? 1.0f : (diff < 0.0f ? -1.0f : 0.0f);
                dQ[i * lddq + t] -= g * s;
                dK[j * lddk + t] += g * s;
            }
        }
    }
}

std::size_t f32_cancelled_keys__scalar(std::size_t n, const float* s, float qa, const float* kb, float cancel_fraction,
                                       std::uint32_t* out) {
    std::size_t count = 0;
    for (std::size_t j = 0; j < n; ++j) {
        const float norms = qa + kb[j];
        const float d2 = norms - 2.0f * s[j];
        if (!(d2 > cancel_fraction * norms) && std::isfinite(norms)) out[count++] = static_cast<std::uint32_t>(j);
    }
    return count;
}

std::size_t f32_distance_row__scalar(FusedScore kind, std::size_t n, float* s, float qa, const float* kb, float p,
                                     float eps, float cancel_fraction, std::uint32_t* out) {
    const std::size_t count = f32_cancelled_keys__scalar(n, s, qa, kb, cancel_fraction, out);
    switch (kind) {
        case FusedScore::sq_euclidean: f32_sq_euclidean_epilogue__scalar(1, n, s, n, &qa, kb); break;
        case FusedScore::euclidean: f32_euclidean_epilogue__scalar(1, n, s, n, &qa, kb); break;
        case FusedScore::idw: f32_idw_epilogue__scalar(1, n, s, n, &qa, kb, p, eps); break;
        default: assert(false && "distance_row: not a distance kind");
    }
    return count;
}

#define ATTNSCOPE_OP_PTR(op) &f32_##op##__scalar,
// A layer norm row's mean and r = 1/√(var + eps), for the forward and the backward kernel alike.
static void layer_norm_row_stats(const float* x, std::size_t cols, float eps, float& mean, float& r) {
    const float inv_cols = 1.0f / static_cast<float>(cols);
    float sum = 0.0f;
    for (std::size_t t = 0; t < cols; ++t) sum += x[t];
    mean = sum * inv_cols;
    float sq = 0.0f;
    for (std::size_t t = 0; t < cols; ++t) sq += (x[t] - mean) * (x[t] - mean);
    r = 1.0f / std::sqrt(sq * inv_cols + eps);
}

void f32_layer_norm__scalar(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, const float* g,
                            const float* b, float eps, float* out, std::size_t ldo) {
    layer_norm_rows(rows, cols, X, ldx, eps, layer_norm_row_stats, [&](std::size_t i, const float* x, float mean, float r) {
        float* o = out + i * ldo;
        for (std::size_t t = 0; t < cols; ++t) o[t] = g[t] * r * (x[t] - mean) + b[t];
    });
}

void f32_bias_activation__scalar(std::size_t rows, std::size_t cols, float* Y, std::size_t ldy, const float* bias,
                                 Activation act) {
    for (std::size_t i = 0; i < rows; ++i) {
        float* y = Y + i * ldy;
        switch (act) {
            case Activation::none:
                for (std::size_t j = 0; j < cols; ++j) y[j] += bias[j];
                break;
            case Activation::relu:
                for (std::size_t j = 0; j < cols; ++j) y[j] = std::max(y[j] + bias[j], 0.0f);
                break;
            case Activation::tanh:
                for (std::size_t j = 0; j < cols; ++j) y[j] = std::tanh(y[j] + bias[j]);
                break;
            case Activation::gelu:
                for (std::size_t j = 0; j < cols; ++j) y[j] = gelu(y[j] + bias[j]);
                break;
        }
    }
}

void f32_layer_norm_backward__scalar(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, const float* g,
                                     float eps, const float* dY, std::size_t ldy, float* dX, std::size_t lddx, float* dg,
                                     float* db) {
    const float inv_cols = 1.0f / static_cast<float>(cols);
    layer_norm_rows(rows, cols, X, ldx, eps, layer_norm_row_stats, [&](std::size_t i, const float* x, float mean, float r) {
        const float* dy = dY + i * ldy;
        float* dx = dX + i * lddx;
        float s1 = 0.0f, s2 = 0.0f;
        layer_norm_backward_sums(0, cols, x, g, dy, mean, r, s1, s2);
        layer_norm_backward_cols(0, cols, x, g, dy, mean, r, s1 * inv_cols, s2 * inv_cols, dx, dg, db);
    });
}

void f32_gelu_backward__scalar(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, float* dY,
                               std::size_t ldy) {
    for (std::size_t i = 0; i < rows; ++i) {
        const float* x = X + i * ldx;
        float* dy = dY + i * ldy;
        for (std::size_t j = 0; j < cols; ++j) dy[j] *= gelu_derivative(x[j]);
    }
}

const KernelTable table_scalar = {"scalar", "scalar", ATTNSCOPE_KERNEL_OPS(ATTNSCOPE_OP_PTR)};
#undef ATTNSCOPE_OP_PTR

}  // namespace attnscope::kernels
