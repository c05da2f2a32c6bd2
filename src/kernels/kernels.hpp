// Kernel table: every hot operation of the core, one function pointer per operation, one table per
// variant listed in manifest.hpp. All matrices are row-major with explicit leading dimensions.
// Kernels assume valid input (asserted); the public functions in src/attnscope/ validate first.
#pragma once

#include <cstddef>
#include <cstdint>
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
// The keys of one query row where the distance identity cancels (the Euclidean family's scores and
// the fused kernel recompute those pairs directly): with s[j] = q·k_j, norms = qa + kb[j] and
// d2 = norms - 2 s[j], key j is listed when d2 is not above cancel_fraction * norms and norms is
// finite. Writes the indices in increasing order to out (room for n) and returns how many; the same
// float operations in every variant, so the lists are identical.
using cancelled_keys_fn = std::size_t (*)(std::size_t n, const float* s, float qa, const float* kb,
                                          float cancel_fraction, std::uint32_t* out);
// S[i][j] = -sum_t |A[i][t] - B[j][t]|              A: m x k, B: n x k  (minus the L1 distance of rows;
// no dot-product identity exists for it, so it reads the rows themselves). NaN stays NaN.
using neg_manhattan_fn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                                  const float* B, std::size_t ldb, float* S, std::size_t lds);
// S[i][j] = sum_t v[t] * tanh(Aq[i][t] + Bk[j][t])   Aq: m x h, Bk: n x h  (Bahdanau's additive score)
using additive_fn = void (*)(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                             const float* Bk, std::size_t ldb, const float* v, float* S, std::size_t lds);
// Row softmax of S * inv_tau into W, computed stably (row max subtracted). Conventions, the same in
// every variant: -inf entries get weight 0; a row with no finite or +inf entry (all -inf, i.e. fully
// masked) becomes all zeros rather than NaN; +inf entries share the row's weight equally; a NaN
// anywhere in a row makes the whole row NaN. W may alias S.
using softmax_rows_fn = void (*)(std::size_t rows, std::size_t cols, const float* S, std::size_t lds,
                                 float inv_tau, float* W, std::size_t ldw);


// --- backward passes (attnscope/backward.hpp) ---
// C[i][j] = sum_t A[t][i] * B[t][j]                 A: k x m, B: k x n, C: m x n   (C = Aᵀ B)
using gemm_tn_fn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                            const float* B, std::size_t ldb, float* C, std::size_t ldc);
// The backward pass of the row softmax W = softmax(S * inv_tau), from the weights A and G = dL/dW:
//   dS[i][j] = inv_tau * A[i][j] * (G[i][j] - sum_t G[i][t] A[i][t])
// Entries with weight 0 (masked keys, fully masked rows) get gradient 0 for finite G. dS may alias G.
using softmax_backward_rows_fn = void (*)(std::size_t rows, std::size_t cols, const float* A, std::size_t lda,
                                          const float* G, std::size_t ldg, float inv_tau, float* dS,
                                          std::size_t ldd);
// D[i][j] = sum_t (Q[i][t] - K[j][t])^2, computed directly (not through the dot-product identity), so it
// is exactly 0 for equal rows and has no cancellation near 0: the distance scores' backward needs that.
using sq_distances_fn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float* Q, std::size_t ldq,
                                 const float* K, std::size_t ldk, float* D, std::size_t ldd);
// The backward pass of the additive score S[i][j] = sum_t v[t] tanh(Aq[i][t] + Bk[j][t]) given G = dL/dS.
// With T = tanh(Aq[i][t] + Bk[j][t]) and P = G[i][j] v[t] (1 - T^2), overwrites
//   dAq[i][t] = sum_j P,   dBk[j][t] = sum_i P,   dv[t] = sum_ij G[i][j] T.
using additive_backward_fn = void (*)(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                                      const float* Bk, std::size_t ldb, const float* v, const float* G,
                                      std::size_t ldg, float* dAq, std::size_t ldda, float* dBk, std::size_t lddb,
                                      float* dv);
// The output-only fused attention: O = softmax(mask(score(Q, K)) * inv_tau) V, computed in tiles of
// queries against tiles of keys with an online softmax (a running max and sum per query row, the
// accumulated output rescaled when the max grows), so no nq x nk matrix is ever held: extra memory
// is O(nk * d) for the packed keys plus O(tile) scratch. Every score that is a per-pair function of
// q·k and the row norms goes through it, and minus the L1 distance; the callers prepare Q (general: Q W) and K (location: the
// rows of Wa) so that the kernel only sees these kinds:
enum class FusedScore : std::uint8_t {
    dot,           // alpha * q·k                       (dot, scaled-dot, general, location)
    cosine,        // q·k * qa[i] * kb[j]               (qa, kb: reciprocal norms, 0 for a zero vector)
    sq_euclidean,  // the sq_euclidean_epilogue of q·k  (qa, kb: squared norms)
    euclidean,     // the euclidean_epilogue
    idw,           // the idw_epilogue with p, eps
    manhattan,     // −Σ_t |q_t − k_t|                  (its own tile over the packed keys; no epilogue)
};
struct FusedAttentionArgs {
    std::size_t nq = 0, nk = 0, d = 0, dv = 0;
    const float* Q = nullptr;
    std::size_t ldq = 0;
    const float* K = nullptr;
    std::size_t ldk = 0;
    const float* V = nullptr;
    std::size_t ldv = 0;
    float* O = nullptr;  // nq x dv, written (never read)
    std::size_t ldo = 0;
    FusedScore score = FusedScore::dot;
    float alpha = 1.0f;
    const float* qa = nullptr;  // per query row (cosine, distances)
    const float* kb = nullptr;  // per key row (cosine, distances)
    float p = 2.0f, eps = 1e-3f;
    float inv_tau = 1.0f;
    bool causal = false;                        // query i sees keys j <= query_offset + i
    std::size_t query_offset = 0;               // row 0's index in the whole query (for causal)
    const std::uint8_t* key_padding = nullptr;  // nonzero = hidden key
    // Distances only: where the identity qa[i] + kb[j] - 2 q·k cancels, i.e. its d2 is not above
    // cancel_fraction * (qa[i] + kb[j]) (and the norms are finite), the score is direct(direct_ctx,
    // i, j) instead (the caller's exact distance). Null = always the identity.
    float (*direct)(const void* ctx, std::size_t i, std::size_t j) = nullptr;
    const void* direct_ctx = nullptr;
    float cancel_fraction = 0.0f;
};
// The softmax conventions are those of softmax_rows, carried through to O: a row whose keys are all
// hidden (or all -inf) gives a zero output row; +inf scores share the weight equally; a NaN score
// among the visible keys makes the row NaN.
using attention_fused_fn = void (*)(const FusedAttentionArgs& args);
// One query row of a distance score (kind: sq_euclidean, euclidean or idw) in one pass over it: the
// cancelled_keys scan of s (listing the keys whose identity cancels into out, in increasing order,
// and returning how many) and the kind's epilogue, s[j] = f(d2) with qq = qa and kk = kb. Each key
// gets exactly what cancelled_keys and then the epilogue give in the same variant; one pass reads the
// row, its key norms and its distances once instead of twice (compute_scores' distance rows).
using distance_row_fn = std::size_t (*)(FusedScore kind, std::size_t n, float* s, float qa, const float* kb, float p,
                                        float eps, float cancel_fraction, std::uint32_t* out);
// The backward pass of S[i][j] = -sum_t |Q[i][t] - K[j][t]| given G = dL/dS, with sign(0) = 0 (the
// subgradient 0 where two coordinates are equal). Overwrites
//   dQ[i][t] = -sum_j G[i][j] sign(Q[i][t] - K[j][t]),   dK[j][t] = sum_i G[i][j] sign(Q[i][t] - K[j][t]).
using manhattan_backward_fn = void (*)(std::size_t m, std::size_t n, std::size_t k, const float* Q, std::size_t ldq,
                                       const float* K, std::size_t ldk, const float* G, std::size_t ldg, float* dQ,
                                       std::size_t lddq, float* dK, std::size_t lddk);

// --- the trained model's layers (attnscope/model.hpp) ---
// Layer normalisation of every row with the biased variance, in the order TensorFlow's graph writes it:
//   mean = Σx / cols,  var = Σ(x − mean)² / cols,  r = 1 / sqrt(var + eps),  out = (g·r)(x − mean) + b.
// out may alias X.
using layer_norm_fn = void (*)(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, const float* g,
                               const float* b, float eps, float* out, std::size_t ldo);
// Y[i][j] = act(Y[i][j] + bias[j]): the epilogue of a dense layer.
// gelu is the exact form x Φ(x) = x (1 + erf(x / √2)) / 2 (PyTorch's nn.GELU(), nanoGPT's MLP), computed
// as x erfc(−x / √2) / 2, which keeps its accuracy for negative x (1 + erf cancels there).
enum class Activation : std::uint8_t { none, relu, tanh, gelu };
constexpr float kInvSqrt2 = 0.70710678118654752f;    // 1/√2 (GELU's erf argument)
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1/√(2π) (the normal density's factor)
using bias_activation_fn = void (*)(std::size_t rows, std::size_t cols, float* Y, std::size_t ldy, const float* bias,
                                    Activation act);


// --- the transformer's backward pass (attnscope/transformer.hpp) ---
// The backward pass of layer_norm given dY = dL/d(out), with mean, r and x̂ = (x − mean) r recomputed
// from X as the forward computes them. ADDS (so a residual stream's gradient and a batch's parameter
// gradients accumulate in place):
//   dX[i][t] += r (g[t] dy[t] − mean_t(g dy) − x̂[t] mean_t(g dy x̂)),  dg[t] += Σ_i dy x̂,  db[t] += Σ_i dy.
using layer_norm_backward_fn = void (*)(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, const float* g,
                                        float eps, const float* dY, std::size_t ldy, float* dX, std::size_t lddx, float* dg,
                                        float* db);
// The backward pass of the exact GELU, in place: dY[i][j] *= gelu'(X[i][j]) with X the activation's
// input (after the bias) and gelu'(x) = Φ(x) + x φ(x) (Φ, φ: the standard normal's CDF and density).
using gelu_backward_fn = void (*)(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, float* dY,
                                  std::size_t ldy);

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
