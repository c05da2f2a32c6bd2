// Kernel table: every hot operation of the core, one function pointer per operation, one table per
// variant listed in manifest.hpp. All matrices are row-major with explicit leading dimensions.
// Kernels assume valid input (asserted); the public functions in src/attnscope/ validate first.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "kernels/manifest.hpp"

namespace attnscope::kernels {

// C[i][j] = alpha * sum_t A[i][t] * B[j][t]        A: m x k, B: n x k, C: m x n   (C = alpha A Bᵀ)
using gemm_nt_fn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                            const float* B, std::size_t ldb, float* C, std::size_t ldc, float alpha);
// C[i][j] = sum_t A[i][t] * B[t][j]                 A: m x k, B: k x n, C: m x n   (C = A B)
using gemm_nn_fn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                            const float* B, std::size_t ldb, float* C, std::size_t ldc);
// out[i] = sum_t X[i][t]^2
using row_sumsq_fn = void (*)(std::size_t rows, std::size_t cols, const float* X, std::size_t ld, float* out);
// S[i][j] *= a[i] * b[j]            (cosine: a, b are reciprocal norms, 0 for a zero vector)
using cosine_epilogue_fn = void (*)(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* a,
                                    const float* b);
// With S = Q Kᵀ and qq, kk the squared row norms, d2 = max(0, qq[i] + kk[j] - 2 S[i][j]) (NaN stays NaN):
//   sq_euclidean: S = -d2      euclidean: S = -sqrt(d2)      idw: S = -log(eps + d2^(p/2))
using sq_euclidean_epilogue_fn = void (*)(std::size_t m, std::size_t n, float* S, std::size_t lds,
                                          const float* qq, const float* kk);
using euclidean_epilogue_fn = sq_euclidean_epilogue_fn;
using idw_epilogue_fn = void (*)(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                                 const float* kk, float p, float eps);
// S[i][j] = sum_t v[t] * tanh(Aq[i][t] + Bk[j][t])   Aq: m x h, Bk: n x h  (Bahdanau's additive score)
using additive_fn = void (*)(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                             const float* Bk, std::size_t ldb, const float* v, float* S, std::size_t lds);
// Row softmax of S * inv_tau into W, computed stably (row max subtracted). Conventions, the same in
// every variant: -inf entries get weight 0; a row with no finite or +inf entry (all -inf, i.e. fully
// masked) becomes all zeros rather than NaN; +inf entries share the row's weight equally; a NaN
// anywhere in a row makes the whole row NaN. W may alias S.
using softmax_rows_fn = void (*)(std::size_t rows, std::size_t cols, const float* S, std::size_t lds,
                                 float inv_tau, float* W, std::size_t ldw);

#define ATTNSCOPE_KERNEL_FIELD(op) op##_fn op;
struct KernelTable {
    const char* name;  // "scalar" or "simd"
    const char* isa;   // the instruction set the variant was compiled for
    ATTNSCOPE_KERNEL_OPS(ATTNSCOPE_KERNEL_FIELD)
};
#undef ATTNSCOPE_KERNEL_FIELD

// f32_<op>__<variant> for every op and variant of the manifest, declared from the <op>_fn types above
// (a function type declares a function): one signature per op, written once.
#define ATTNSCOPE_DECLARE_KERNEL(op, variant) std::remove_pointer_t<op##_fn> f32_##op##__##variant;
#define ATTNSCOPE_DECLARE_KERNELS(variant, label)                       \
    ATTNSCOPE_KERNEL_OPS_WITH(ATTNSCOPE_DECLARE_KERNEL, variant)        \
    extern const KernelTable table_##variant;
ATTNSCOPE_KERNEL_VARIANTS(ATTNSCOPE_DECLARE_KERNELS)
#undef ATTNSCOPE_DECLARE_KERNEL
#undef ATTNSCOPE_DECLARE_KERNELS

// Every compiled variant, in manifest order (tests and benchmarks loop over this).
const std::vector<const KernelTable*>& all_variants();

}  // namespace attnscope::kernels
