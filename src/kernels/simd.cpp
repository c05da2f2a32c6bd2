// SIMD kernels on xsimd batches (4 float lanes: SSE natively; wasm simd128 through Emscripten's
// SSE emulation, see CMakeLists.txt). Each kernel has the shape: an unrolled main loop with several
// accumulators, a one-vector loop, then a scalar tail; accumulators combined pairwise at the end.
// The conventions (masking, NaN, zero norms) are exactly those of scalar.cpp, the reference.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "kernels/idw.hpp"
#include "kernels/kernels.hpp"
#include "kernels/scalar_steps.hpp"
#include "kernels/simd_tiles.hpp"

namespace attnscope::kernels {
namespace {

// Keys are processed in blocks so a packed panel of K rows (128 x d floats, 32 KB at d = 64) stays
// in cache while every query tile passes over it.
constexpr std::size_t kKeyBlock = 128;
// gemm_nn's column strip: B's block is read a strip at a time by every row tile (a multiple of kNR).
constexpr std::size_t kGemmStrip = 4 * kNR;

// Dot product of two rows: 4 accumulators over 4 vectors, a one-vector loop, a scalar tail.
inline float dot_row(const float* a, const float* b, std::size_t k) {
    batch acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
    std::size_t t = 0;
    for (; t + 4 * W <= k; t += 4 * W) {
        acc0 = madd(batch::load_unaligned(a + t), batch::load_unaligned(b + t), acc0);
        acc1 = madd(batch::load_unaligned(a + t + W), batch::load_unaligned(b + t + W), acc1);
        acc2 = madd(batch::load_unaligned(a + t + 2 * W), batch::load_unaligned(b + t + 2 * W), acc2);
        acc3 = madd(batch::load_unaligned(a + t + 3 * W), batch::load_unaligned(b + t + 3 * W), acc3);
    }
    for (; t + W <= k; t += W) acc0 = madd(batch::load_unaligned(a + t), batch::load_unaligned(b + t), acc0);
    float acc = hsum((acc0 + acc1) + (acc2 + acc3));
    for (; t < k; ++t) acc += a[t] * b[t];
    return acc;
}

// tanh in Cephes' tanhf form: an odd polynomial for |x| < 0.625 (where 1 - e^{-2|x|} would cancel),
// else sign(x) (1 - e) / (1 + e) with e = e^{-2|x|} <= e^{-1.25} from exp_core. NaN stays NaN.
// Replaces xsimd::tanh, whose float→int conversions Emscripten emulates one lane at a time.
inline batch tanh_fast(const batch& x) {
    const batch ax = xsimd::abs(x);
    const batch z = x * x;
    batch poly = batch(-5.70498872745e-3f);
    poly = xsimd::fma(poly, z, batch(2.06390887954e-2f));
    poly = xsimd::fma(poly, z, batch(-5.37397155531e-2f));
    poly = xsimd::fma(poly, z, batch(1.33314422036e-1f));
    poly = xsimd::fma(poly, z, batch(-3.33332819422e-1f));
    const batch small = xsimd::fma(poly * z, x, x);
    const batch e = exp_core(xsimd::max(batch(-2.0f) * ax, batch(-87.33654f)));
    const batch large = xsimd::copysign((batch(1.0f) - e) / (batch(1.0f) + e), x);
    const batch t = xsimd::select(ax < batch(0.625f), small, large);
    return xsimd::select(x != x, x, t);
}

// The loop gemm_nt and neg_manhattan share: B packed once per key block (Kᵀ panels, simd_tiles.hpp)
// and every 4-row tile of A run over it by a register tile, rows(mr, q, panel, strips, out, ldo);
// the tile writes whole 8-column strips, so the last, partial strip of a block goes through a small
// buffer.
template <class Rows>
ATTNSCOPE_TILE_INLINE void over_key_panels(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                                           const float* B, std::size_t ldb, float* C, std::size_t ldc, Rows rows) {
    if (m == 0 || n == 0) return;
    AlignedFloats panel_buf, tail_buf;
    float* panel = panel_buf.get(panel_floats(std::min(n, kKeyBlock), k));
    float* tail = tail_buf.get(kMR * kNR);
    for (std::size_t j0 = 0; j0 < n; j0 += kKeyBlock) {
        const std::size_t nb = std::min(kKeyBlock, n - j0);
        pack_kt_panel(B + j0 * ldb, ldb, nb, k, panel);
        const std::size_t full = nb / kNR, rest = nb - full * kNR;
        for (std::size_t i = 0; i < m; i += kMR) {
            const std::size_t mr = std::min(kMR, m - i);
            const float* q[kMR];
            for (std::size_t r = 0; r < kMR; ++r) q[r] = A + (i + std::min(r, mr - 1)) * lda;
            if (full) rows(mr, q, panel, full, C + i * ldc + j0, ldc);
            if (rest) {
                rows(mr, q, panel + full * k * kNR, 1, tail, kNR);
                for (std::size_t r = 0; r < mr; ++r)
                    for (std::size_t c = 0; c < rest; ++c) C[(i + r) * ldc + j0 + full * kNR + c] = tail[r * kNR + c];
            }
        }
    }
}

}  // namespace

// Minus the L1 distance of rows: the register tile of simd_tiles.hpp (l1_tile: no horizontal sums,
// each lane one key) over the packed keys.
void f32_neg_manhattan__simd(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                             const float* B, std::size_t ldb, float* S, std::size_t lds) {
    assert(lda >= k && ldb >= k && lds >= n);
    over_key_panels(m, n, k, A, lda, B, ldb, S, lds,
                    [k](std::size_t mr, const float* const* q, const float* panel, std::size_t strips, float* out,
                        std::size_t ldo) ATTNSCOPE_LAMBDA_INLINE { l1_rows(mr, q, k, panel, strips, out, ldo); });
}

void f32_gemm_nt__simd(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                       const float* B, std::size_t ldb, float* C, std::size_t ldc, float alpha) {
    assert(lda >= k && ldb >= k && ldc >= n);
    over_key_panels(m, n, k, A, lda, B, ldb, C, ldc,
                    [k, alpha](std::size_t mr, const float* const* q, const float* panel, std::size_t strips, float* out,
                               std::size_t ldo) ATTNSCOPE_LAMBDA_INLINE { score_rows(mr, q, k, panel, strips, alpha, out, ldo); });
}

void f32_gemm_nn__simd(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                       const float* B, std::size_t ldb, float* C, std::size_t ldc) {
    assert(lda >= k && ldb >= n && ldc >= n);
    // Register tiles of 4 rows x 8 columns over the shared dimension (simd_tiles.hpp). The k rows of
    // B are taken in blocks, and each block in strips of kNR columns: every row tile runs over one
    // strip (kb rows of 32 bytes, in L1) before the next strip is read, so B comes from memory once
    // per block whatever m is. (Row tiles over the whole block width re-read it from the outer caches
    // once per tile: a model's dense layers have blocks of 128 x 1,536 floats.) Every sum is made of
    // the same operations in the same order as a tile over the whole width.
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) C[i * ldc + j] = 0.0f;
    for (std::size_t t0 = 0; t0 < k; t0 += kKeyBlock) {
        const std::size_t kb = std::min(kKeyBlock, k - t0);
        for (std::size_t c0 = 0; c0 < n; c0 += kGemmStrip) {
            const std::size_t nc = std::min(kGemmStrip, n - c0);
            for (std::size_t i = 0; i < m; i += kMR) {
                const std::size_t mr = std::min(kMR, m - i);
                const float* a[kMR];
                float* c[kMR];
                for (std::size_t r = 0; r < mr; ++r) {
                    a[r] = A + (i + r) * lda + t0;
                    c[r] = C + (i + r) * ldc + c0;
                }
                av_rows(mr, a, kb, B + t0 * ldb + c0, ldb, nc, c);
            }
        }
    }
}

void f32_row_sumsq__simd(std::size_t rows, std::size_t cols, const float* X, std::size_t ld, float* out) {
    for (std::size_t i = 0; i < rows; ++i) out[i] = dot_row(X + i * ld, X + i * ld, cols);
}

void f32_cosine_epilogue__simd(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* a,
                               const float* b) {
    for (std::size_t i = 0; i < m; ++i) {
        float* s = S + i * lds;
        const batch ai(a[i]);
        std::size_t j = 0;
        for (; j + W <= n; j += W) (batch::load_unaligned(s + j) * ai * batch::load_unaligned(b + j)).store_unaligned(s + j);
        for (; j < n; ++j) s[j] *= a[i] * b[j];
    }
}

namespace {
// The cancelled_keys test (kernels.hpp) of keys [j, end) of one row, appended to out: the reference's
// float operations, key by key.
inline std::size_t append_cancelled(std::size_t j, std::size_t end, const float* s, float qa, const float* kb,
                                    float cancel_fraction, std::uint32_t* out, std::size_t count) {
    for (; j < end; ++j) {
        const float norms = qa + kb[j];
        const float d2 = norms - 2.0f * s[j];
        if (!(d2 > cancel_fraction * norms) && std::isfinite(norms)) out[count++] = static_cast<std::uint32_t>(j);
    }
    return count;
}
// The lanes of a vector of keys that may cancel: d2 = norms − 2 s not above cancel_fraction · norms,
// norms finite (norms − norms is 0 exactly when norms is finite: inf − inf and NaN give NaN).
inline auto cancel_mask(const batch& norms, const batch& s, const batch& cancel_fraction) {
    return !((norms - batch(2.0f) * s) > cancel_fraction * norms) && ((norms - norms) == batch(0.0f));
}

// d2 = max(0, qq + kk - 2 qk), the squared distance through the dot-product identity; NaN stays NaN
// (xsimd::max follows SSE's maxps, which returns its second operand when either is NaN, so the
// clamp is an explicit select).
inline batch sq_distance(const batch& qq, const batch& kk, const batch& qk) {
    const batch d2 = qq + kk - batch(2.0f) * qk;
    return xsimd::select(d2 < batch(0.0f), batch(0.0f), d2);
}
inline float sq_distance(float qq, float kk, float qk) {
    const float d2 = qq + kk - 2.0f * qk;
    return d2 < 0.0f ? 0.0f : d2;
}

// Applies f(d2) to every score, vectorised along the keys.
template <class VecFn, class ScalarFn>
inline void distance_epilogue(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                              const float* kk, VecFn vf, ScalarFn sf) {
    for (std::size_t i = 0; i < m; ++i) {
        float* s = S + i * lds;
        const batch qi(qq[i]);
        std::size_t j = 0;
        for (; j + W <= n; j += W)
            vf(sq_distance(qi, batch::load_unaligned(kk + j), batch::load_unaligned(s + j))).store_unaligned(s + j);
        for (; j < n; ++j) s[j] = sf(sq_distance(qq[i], kk[j], s[j]));
    }
}

// distance_epilogue of one row with the cancelled_keys scan in the same pass: each vector's keys are
// tested before f overwrites them (the distance is the same expression in both, computed once).
template <class VecFn, class ScalarFn>
inline std::size_t distance_row_scanned(std::size_t n, float* s, float qa, const float* kk, float cancel_fraction,
                                        std::uint32_t* out, VecFn vf, ScalarFn sf) {
    std::size_t count = 0;
    const batch qi(qa), cf(cancel_fraction);
    std::size_t j = 0;
    for (; j + W <= n; j += W) {
        const batch kv = batch::load_unaligned(kk + j), sv = batch::load_unaligned(s + j);
        if (xsimd::any(cancel_mask(qi + kv, sv, cf))) count = append_cancelled(j, j + W, s, qa, kk, cancel_fraction, out, count);
        vf(sq_distance(qi, kv, sv)).store_unaligned(s + j);
    }
    for (; j < n; ++j) {
        count = append_cancelled(j, j + 1, s, qa, kk, cancel_fraction, out, count);
        s[j] = sf(sq_distance(qa, kk[j], s[j]));
    }
    return count;
}

// idw with p = 2: −log(eps + d2), two vectors at a time. Where all eight arguments are normal and
// finite, neg_log_normal; else neg_log_nonnegative, which gives a normal lane the same bits (so a
// score never depends on its neighbours) and handles 0, subnormals, +inf and NaN. With
// eps >= FLT_MIN (the default 1e-3) eps + d2 >= eps is normal unless NaN or +inf, so the check is
// one compare per vector.
// With kScan (one row, m = 1), the cancelled_keys scan of that row in the same pass, as
// distance_row_scanned; the count of cancelled keys is returned (0 without kScan).
template <bool kEpsNormal, bool kScan = false>
inline std::size_t idw2_rows(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq, const float* kk,
                             float eps, float cancel_fraction = 0.0f, std::uint32_t* out = nullptr) {
    const batch eps_v(eps), inf(std::numeric_limits<float>::infinity()), tiny(std::numeric_limits<float>::min());
    const batch cf(cancel_fraction);
    std::size_t count = 0;
    for (std::size_t i = 0; i < m; ++i) {
        float* s = S + i * lds;
        const batch qi(qq[i]);
        std::size_t j = 0;
        for (; j + 2 * W <= n; j += 2 * W) {
            const batch k0 = batch::load_unaligned(kk + j), k1 = batch::load_unaligned(kk + j + W);
            const batch s0 = batch::load_unaligned(s + j), s1 = batch::load_unaligned(s + j + W);
            if constexpr (kScan) {
                if (xsimd::any(cancel_mask(qi + k0, s0, cf) || cancel_mask(qi + k1, s1, cf)))
                    count = append_cancelled(j, j + 2 * W, s, qq[i], kk, cancel_fraction, out, count);
            }
            const batch u0 = idw_arg(qi, k0, s0, eps_v);
            const batch u1 = idw_arg(qi, k1, s1, eps_v);
            auto normal = (u0 < inf) && (u1 < inf);
            if (!kEpsNormal) normal = normal && (u0 >= tiny) && (u1 >= tiny);
            if (xsimd::all(normal)) {
                neg_log_normal(u0).store_unaligned(s + j);
                neg_log_normal(u1).store_unaligned(s + j + W);
            } else {
                neg_log_nonnegative(u0).store_unaligned(s + j);
                neg_log_nonnegative(u1).store_unaligned(s + j + W);
            }
        }
        for (; j + W <= n; j += W) {
            const batch kv = batch::load_unaligned(kk + j), sv = batch::load_unaligned(s + j);
            if constexpr (kScan) {
                if (xsimd::any(cancel_mask(qi + kv, sv, cf)))
                    count = append_cancelled(j, j + W, s, qq[i], kk, cancel_fraction, out, count);
            }
            neg_log_nonnegative(idw_arg(qi, kv, sv, eps_v)).store_unaligned(s + j);
        }
        for (; j < n; ++j) {
            if constexpr (kScan) count = append_cancelled(j, j + 1, s, qq[i], kk, cancel_fraction, out, count);
            s[j] = -std::log(idw_arg(qq[i], kk[j], s[j], eps));
        }
    }
    return count;
}

// idw for p != 2: log(eps + d2^(p/2)) as a log-sum (idw.hpp), since d2^(p/2) itself overflows float
// from (p/2) log d2 > 88.7. With L = (p/2) log d2 and le = log eps: max(L, le) + log1p(exp(-|L - le|)).
// log 0 = -inf gives L = -inf, hence -le; eps = 0 gives le = -inf, hence L; both -inf (an exact match
// with eps = 0) is +inf, as in the reference.
struct IdwGeneral {
    float p, eps, le;
    batch half_p_v, le_v;
    IdwGeneral(float p_, float eps_) : p(p_), eps(eps_), le(std::log(eps_)), half_p_v(0.5f * p_), le_v(le) {}
    batch operator()(const batch& d2) const {
        const batch L = half_p_v * xsimd::log(d2);
        const batch hi = xsimd::select(L > le_v, L, le_v);
        const batch gap = xsimd::abs(L - le_v);
        batch r = -(hi + xsimd::log1p(xsimd::exp(-gap)));
        if (eps == 0.0f) r = -L;
        // Saturate at ±FLT_MAX (huge p: -p log r leaves float's range), except an exact match.
        const batch big(std::numeric_limits<float>::max());
        r = xsimd::select(r < -big, -big, xsimd::select(r > big, big, r));
        r = xsimd::select(d2 == batch(0.0f), batch(-le), r);
        return xsimd::select(d2 != d2, d2, r);
    }
    float operator()(float d2) const { return idw_score(d2, p, eps); }
};
}  // namespace

void f32_sq_euclidean_epilogue__simd(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                                     const float* kk) {
    distance_epilogue(m, n, S, lds, qq, kk, [](const batch& d2) { return -d2; }, [](float d2) { return -d2; });
}

void f32_euclidean_epilogue__simd(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                                  const float* kk) {
    distance_epilogue(
        m, n, S, lds, qq, kk, [](const batch& d2) { return -xsimd::sqrt(d2); },
        [](float d2) { return -std::sqrt(d2); });
}

void f32_idw_epilogue__simd(std::size_t m, std::size_t n, float* S, std::size_t lds, const float* qq,
                            const float* kk, float p, float eps) {
    if (p == 2.0f) {  // the default: ||q-k||^2 needs no pow
        if (eps >= std::numeric_limits<float>::min())
            idw2_rows<true>(m, n, S, lds, qq, kk, eps);
        else
            idw2_rows<false>(m, n, S, lds, qq, kk, eps);
        return;
    }
    const IdwGeneral f(p, eps);
    distance_epilogue(m, n, S, lds, qq, kk, f, f);
}

std::size_t f32_distance_row__simd(FusedScore kind, std::size_t n, float* s, float qa, const float* kb, float p,
                                   float eps, float cancel_fraction, std::uint32_t* out) {
    switch (kind) {
        case FusedScore::sq_euclidean:
            return distance_row_scanned(
                n, s, qa, kb, cancel_fraction, out, [](const batch& d2) { return -d2; }, [](float d2) { return -d2; });
        case FusedScore::euclidean:
            return distance_row_scanned(
                n, s, qa, kb, cancel_fraction, out, [](const batch& d2) { return -xsimd::sqrt(d2); },
                [](float d2) { return -std::sqrt(d2); });
        case FusedScore::idw:
            // The default (p = 2, eps normal) in one pass; the others, whose logs and exps outweigh a
            // second pass, scan and then run the epilogue (one copy of their code in the module).
            if (p == 2.0f && eps >= std::numeric_limits<float>::min())
                return idw2_rows<true, true>(1, n, s, n, &qa, kb, eps, cancel_fraction, out);
            {
                const std::size_t count = f32_cancelled_keys__simd(n, s, qa, kb, cancel_fraction, out);
                f32_idw_epilogue__simd(1, n, s, n, &qa, kb, p, eps);
                return count;
            }
        default: assert(false && "distance_row: not a distance kind"); return 0;
    }
}

void f32_additive__simd(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                        const float* Bk, std::size_t ldb, const float* v, float* S, std::size_t lds) {
    for (std::size_t i = 0; i < m; ++i) {
        const float* a = Aq + i * lda;
        for (std::size_t j = 0; j < n; ++j) {
            const float* b = Bk + j * ldb;
            batch acc0(0.0f), acc1(0.0f);
            std::size_t t = 0;
            for (; t + 2 * W <= h; t += 2 * W) {
                const batch x0 = batch::load_unaligned(a + t) + batch::load_unaligned(b + t);
                const batch x1 = batch::load_unaligned(a + t + W) + batch::load_unaligned(b + t + W);
                acc0 = xsimd::fma(batch::load_unaligned(v + t), tanh_fast(x0), acc0);
                acc1 = xsimd::fma(batch::load_unaligned(v + t + W), tanh_fast(x1), acc1);
            }
            for (; t + W <= h; t += W)
                acc0 = xsimd::fma(batch::load_unaligned(v + t),
                                  tanh_fast(batch::load_unaligned(a + t) + batch::load_unaligned(b + t)), acc0);
            float acc = hsum(acc0 + acc1);
            for (; t < h; ++t) acc += v[t] * std::tanh(a[t] + b[t]);
            S[i * lds + j] = acc;
        }
    }
}

void f32_softmax_rows__simd(std::size_t rows, std::size_t cols, const float* S, std::size_t lds, float inv_tau,
                            float* Wt, std::size_t ldw) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    const ExpConstants ek = exp_constants();  // loop invariants (simd_tiles.hpp)
    for (std::size_t i = 0; i < rows; ++i) {
        const float* s = S + i * lds;
        float* w = Wt + i * ldw;
        // Pass 1: row max and NaN detection.
        bool nan = false;
        const float mx = row_max_nan<xsimd::unaligned_mode>(s, cols, nan);
        if (nan || mx == -inf || mx == inf) {
            // Rare rows with the special conventions: share the reference's code path.
            f32_softmax_rows__scalar(1, cols, s, lds, inv_tau, w, ldw);
            continue;
        }
        // Pass 2: exponentials and their sum.
        const float sum = exp_shifted_sum<xsimd::unaligned_mode>(s, w, cols, mx, inv_tau, ek);
        // Pass 3: normalise.
        const batch inv_sum(1.0f / sum);
        std::size_t j = 0;
        for (; j + W <= cols; j += W) (batch::load_unaligned(w + j) * inv_sum).store_unaligned(w + j);
        for (; j < cols; ++j) w[j] *= 1.0f / sum;
    }
}

// --- backward passes ---

void f32_gemm_tn__simd(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                       const float* B, std::size_t ldb, float* C, std::size_t ldc) {
    assert(lda >= m && ldb >= n && ldc >= n);
    // As gemm_nn with A read down a column: row i of C = sum_t A[t][i] · (row t of B).
    for (std::size_t i = 0; i < m; ++i) {
        const float* a = A + i;
        float* c = C + i * ldc;
        std::size_t j = 0;
        for (; j + 4 * W <= n; j += 4 * W) {
            batch c0(0.0f), c1(0.0f), c2(0.0f), c3(0.0f);
            for (std::size_t t = 0; t < k; ++t) {
                const batch at(a[t * lda]);
                const float* b = B + t * ldb + j;
                c0 = madd(at, batch::load_unaligned(b), c0);
                c1 = madd(at, batch::load_unaligned(b + W), c1);
                c2 = madd(at, batch::load_unaligned(b + 2 * W), c2);
                c3 = madd(at, batch::load_unaligned(b + 3 * W), c3);
            }
            c0.store_unaligned(c + j);
            c1.store_unaligned(c + j + W);
            c2.store_unaligned(c + j + 2 * W);
            c3.store_unaligned(c + j + 3 * W);
        }
        for (; j + W <= n; j += W) {
            batch c0(0.0f);
            for (std::size_t t = 0; t < k; ++t) c0 = madd(batch(a[t * lda]), batch::load_unaligned(B + t * ldb + j), c0);
            c0.store_unaligned(c + j);
        }
        for (; j < n; ++j) {
            float acc = 0.0f;
            for (std::size_t t = 0; t < k; ++t) acc += a[t * lda] * B[t * ldb + j];
            c[j] = acc;
        }
    }
}

void f32_softmax_backward_rows__simd(std::size_t rows, std::size_t cols, const float* A, std::size_t lda,
                                     const float* G, std::size_t ldg, float inv_tau, float* dS, std::size_t ldd) {
    softmax_backward_row_loop(rows, A, lda, G, ldg, dS, ldd, [cols, inv_tau](const float* a, const float* g, float* ds)
                                  ATTNSCOPE_LAMBDA_INLINE {
        const float r = dot_row(g, a, cols);
        const batch rb(r), itb(inv_tau);
        std::size_t j = 0;
        for (; j + W <= cols; j += W) {
            const batch av = batch::load_unaligned(a + j);
            (itb * av * (batch::load_unaligned(g + j) - rb)).store_unaligned(ds + j);
        }
        softmax_backward_cols(j, cols, a, g, inv_tau, r, ds);
    });
}

namespace {
// Squared distance of two rows, summed directly: 4 accumulators, a one-vector loop, a scalar tail.
inline float sq_dist_row(const float* a, const float* b, std::size_t k) {
    batch acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
    std::size_t t = 0;
    for (; t + 4 * W <= k; t += 4 * W) {
        const batch d0 = batch::load_unaligned(a + t) - batch::load_unaligned(b + t);
        const batch d1 = batch::load_unaligned(a + t + W) - batch::load_unaligned(b + t + W);
        const batch d2 = batch::load_unaligned(a + t + 2 * W) - batch::load_unaligned(b + t + 2 * W);
        const batch d3 = batch::load_unaligned(a + t + 3 * W) - batch::load_unaligned(b + t + 3 * W);
        acc0 = madd(d0, d0, acc0);
        acc1 = madd(d1, d1, acc1);
        acc2 = madd(d2, d2, acc2);
        acc3 = madd(d3, d3, acc3);
    }
    for (; t + W <= k; t += W) {
        const batch d0 = batch::load_unaligned(a + t) - batch::load_unaligned(b + t);
        acc0 = madd(d0, d0, acc0);
    }
    float acc = hsum((acc0 + acc1) + (acc2 + acc3));
    for (; t < k; ++t) acc += (a[t] - b[t]) * (a[t] - b[t]);
    return acc;
}
}  // namespace

void f32_sq_distances__simd(std::size_t m, std::size_t n, std::size_t k, const float* Q, std::size_t ldq,
                            const float* K, std::size_t ldk, float* D, std::size_t ldd) {
    assert(ldq >= k && ldk >= k && ldd >= n);
    for (std::size_t j0 = 0; j0 < n; j0 += kKeyBlock) {
        const std::size_t j1 = std::min(n, j0 + kKeyBlock);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = j0; j < j1; ++j) D[i * ldd + j] = sq_dist_row(Q + i * ldq, K + j * ldk, k);
    }
}

namespace {
// The loops of the pairwise scores' backward passes (additive_backward, manhattan_backward): dA's m
// rows and dB's n rows zeroed over their h columns, then for every pair (i, j), with g = G[i][j],
// pair(a, b, g, da, db) on the rows a = A_i, b = B_j, da = dA_i, db = dB_j.
template <class Pair>
ATTNSCOPE_TILE_INLINE void pairs_backward(std::size_t m, std::size_t n, std::size_t h, const float* A, std::size_t lda,
                                          const float* B, std::size_t ldb, const float* G, std::size_t ldg, float* dA,
                                          std::size_t ldda, float* dB, std::size_t lddb, Pair pair) {
    for (std::size_t i = 0; i < m; ++i) std::fill(dA + i * ldda, dA + i * ldda + h, 0.0f);
    for (std::size_t j = 0; j < n; ++j) std::fill(dB + j * lddb, dB + j * lddb + h, 0.0f);
    for (std::size_t i = 0; i < m; ++i) {
        const float* a = A + i * lda;
        float* da = dA + i * ldda;
        for (std::size_t j = 0; j < n; ++j) pair(a, B + j * ldb, G[i * ldg + j], da, dB + j * lddb);
    }
}
}  // namespace

void f32_additive_backward__simd(std::size_t m, std::size_t n, std::size_t h, const float* Aq, std::size_t lda,
                                 const float* Bk, std::size_t ldb, const float* v, const float* G, std::size_t ldg,
                                 float* dAq, std::size_t ldda, float* dBk, std::size_t lddb, float* dv) {
    std::fill(dv, dv + h, 0.0f);
    const batch one(1.0f);
    pairs_backward(m, n, h, Aq, lda, Bk, ldb, G, ldg, dAq, ldda, dBk, lddb,
                   [h, v, dv, one](const float* a, const float* b, float g, float* da, float* db) ATTNSCOPE_LAMBDA_INLINE {
                       const batch gb(g);
                       std::size_t t = 0;
                       for (; t + W <= h; t += W) {
                           const batch th = tanh_fast(batch::load_unaligned(a + t) + batch::load_unaligned(b + t));
                           const batch vv = batch::load_unaligned(v + t);
                           const batch p = gb * vv * xsimd::fnma(th, th, one);  // g v (1 − T²)
                           (batch::load_unaligned(da + t) + p).store_unaligned(da + t);
                           (batch::load_unaligned(db + t) + p).store_unaligned(db + t);
                           xsimd::fma(gb, th, batch::load_unaligned(dv + t)).store_unaligned(dv + t);
                       }
                       for (; t < h; ++t) {
                           const float th = std::tanh(a[t] + b[t]);
                           const float p = g * v[t] * (1.0f - th * th);
                           da[t] += p;
                           db[t] += p;
                           dv[t] += g * th;
                       }
                   });
}

void f32_manhattan_backward__simd(std::size_t m, std::size_t n, std::size_t k, const float* Q, std::size_t ldq,
                                  const float* K, std::size_t ldk, const float* G, std::size_t ldg, float* dQ,
                                  std::size_t lddq, float* dK, std::size_t lddk) {
    const batch zero(0.0f), one(1.0f);
    pairs_backward(m, n, k, Q, ldq, K, ldk, G, ldg, dQ, lddq, dK, lddk,
                   [k, zero, one](const float* q, const float* kr, float g, float* dq, float* dk) ATTNSCOPE_LAMBDA_INLINE {
                       const batch gb(g);
                       std::size_t t = 0;
                       for (; t + W <= k; t += W) {
                           const batch diff = batch::load_unaligned(q + t) - batch::load_unaligned(kr + t);
                           // sign(diff) with sign(0) = 0, times g
                           const batch gs = gb * (xsimd::select(diff > zero, one, zero) - xsimd::select(diff < zero, one, zero));
                           (batch::load_unaligned(dq + t) - gs).store_unaligned(dq + t);
                           (batch::load_unaligned(dk + t) + gs).store_unaligned(dk + t);
                       }
                       for (; t < k; ++t) {
                           const float diff = q[t] - kr[t];
                           const float s = diff > 0.0f ? 1.0f : (diff < 0.0f ? -1.0f : 0.0f);
                           dq[t] -= g * s;
                           dk[t] += g * s;
                       }
                   });
}

// Four keys at a time; only a group where some lane cancels (rare: near-duplicate rows) and the
// tail take the one-key test, which makes the same decisions (the same float operations).
std::size_t f32_cancelled_keys__simd(std::size_t n, const float* s, float qa, const float* kb, float cancel_fraction,
                                     std::uint32_t* out) {
    std::size_t count = 0;
    const batch qv(qa), cf(cancel_fraction);
    std::size_t j = 0;
    for (; j + W <= n; j += W)
        if (xsimd::any(cancel_mask(qv + batch::load_unaligned(kb + j), batch::load_unaligned(s + j), cf)))
            count = append_cancelled(j, j + W, s, qa, kb, cancel_fraction, out, count);
    return append_cancelled(j, n, s, qa, kb, cancel_fraction, out, count);
}

#define ATTNSCOPE_OP_PTR(op) &f32_##op##__simd,
// A layer norm row's mean and r = 1/√(var + eps): the row's sum and its squared deviations each with two
// accumulators over vectors and a scalar tail. The forward and the backward kernel both take them from
// here, so the backward uses the very mean and r the forward normalised with (in every build).
// (A lambda, not a function: layer_norm_rows calls it through its parameter, and a function passed
// there is an indirect call, which GCC refuses to force inline at -O1, the sanitizer build's level.)
constexpr auto layer_norm_row_stats = [](const float* x, std::size_t cols, float eps, float& mean, float& r) ATTNSCOPE_LAMBDA_INLINE {
    const float inv_cols = 1.0f / static_cast<float>(cols);
    batch s0(0.0f), s1(0.0f);
    std::size_t t = 0;
    for (; t + 2 * W <= cols; t += 2 * W) {
        s0 += batch::load_unaligned(x + t);
        s1 += batch::load_unaligned(x + t + W);
    }
    for (; t + W <= cols; t += W) s0 += batch::load_unaligned(x + t);
    float sum = hsum(s0 + s1);
    for (; t < cols; ++t) sum += x[t];
    mean = sum * inv_cols;
    const batch mb(mean);
    batch q0(0.0f), q1(0.0f);
    t = 0;
    for (; t + 2 * W <= cols; t += 2 * W) {
        const batch d0 = batch::load_unaligned(x + t) - mb, d1 = batch::load_unaligned(x + t + W) - mb;
        q0 = madd(d0, d0, q0);
        q1 = madd(d1, d1, q1);
    }
    for (; t + W <= cols; t += W) {
        const batch d0 = batch::load_unaligned(x + t) - mb;
        q0 = madd(d0, d0, q0);
    }
    float sq = hsum(q0 + q1);
    for (; t < cols; ++t) sq += (x[t] - mean) * (x[t] - mean);
    r = 1.0f / std::sqrt(sq * inv_cols + eps);
};

// Layer norm: the row's statistics (layer_norm_row_stats), then one pass writing (g·r)(x − mean) + b.
void f32_layer_norm__simd(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, const float* g,
                          const float* b, float eps, float* out, std::size_t ldo) {
    layer_norm_rows(rows, cols, X, ldx, eps, layer_norm_row_stats,
                    [&](std::size_t i, const float* x, float mean, float r) ATTNSCOPE_LAMBDA_INLINE {
        float* o = out + i * ldo;
        const batch mb(mean), rb(r);
        std::size_t t = 0;
        for (; t + W <= cols; t += W) {
            const batch gr = batch::load_unaligned(g + t) * rb;
            xsimd::fma(gr, batch::load_unaligned(x + t) - mb, batch::load_unaligned(b + t)).store_unaligned(o + t);
        }
        for (; t < cols; ++t) o[t] = g[t] * r * (x[t] - mean) + b[t];
    });
}

// Bias and activation over each row: vectors, then a scalar tail. ReLU keeps NaN (as the scalar
// std::max(v, 0) does): select(v < 0, 0, v).
void f32_bias_activation__simd(std::size_t rows, std::size_t cols, float* Y, std::size_t ldy, const float* bias,
                               Activation act) {
    const batch zero(0.0f);
    for (std::size_t i = 0; i < rows; ++i) {
        float* y = Y + i * ldy;
        std::size_t j = 0;
        switch (act) {
            case Activation::none:
                for (; j + W <= cols; j += W)
                    (batch::load_unaligned(y + j) + batch::load_unaligned(bias + j)).store_unaligned(y + j);
                for (; j < cols; ++j) y[j] += bias[j];
                break;
            case Activation::relu:
                for (; j + W <= cols; j += W) {
                    const batch v = batch::load_unaligned(y + j) + batch::load_unaligned(bias + j);
                    xsimd::select(v < zero, zero, v).store_unaligned(y + j);
                }
                for (; j < cols; ++j) y[j] = std::max(y[j] + bias[j], 0.0f);
                break;
            case Activation::tanh:
                for (; j + W <= cols; j += W)
                    tanh_fast(batch::load_unaligned(y + j) + batch::load_unaligned(bias + j)).store_unaligned(y + j);
                for (; j < cols; ++j) y[j] = std::tanh(y[j] + bias[j]);
                break;
            case Activation::gelu:
                for (; j + W <= cols; j += W) {
                    const batch x = batch::load_unaligned(y + j) + batch::load_unaligned(bias + j);
                    (batch(0.5f) * x * xsimd::erfc(x * batch(-kInvSqrt2))).store_unaligned(y + j);
                }
                for (; j < cols; ++j) y[j] = gelu(y[j] + bias[j]);
                break;
        }
    }
}

void f32_layer_norm_backward__simd(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, const float* g,
                                   float eps, const float* dY, std::size_t ldy, float* dX, std::size_t lddx, float* dg,
                                   float* db) {
    const float inv_cols = 1.0f / static_cast<float>(cols);
    // mean and r as f32_layer_norm__simd computed them (this file's layer_norm_row_stats)
    layer_norm_rows(rows, cols, X, ldx, eps, layer_norm_row_stats,
                    [&](std::size_t i, const float* x, float mean, float r) ATTNSCOPE_LAMBDA_INLINE {
        const float* dy = dY + i * ldy;
        float* dx = dX + i * lddx;
        const batch mb(mean), rb(r);
        // Σ g dy and Σ g dy x̂
        batch a0(0.0f), a1(0.0f);
        std::size_t t = 0;
        for (; t + W <= cols; t += W) {
            const batch gdy = batch::load_unaligned(g + t) * batch::load_unaligned(dy + t);
            a0 += gdy;
            a1 = xsimd::fma(gdy, (batch::load_unaligned(x + t) - mb) * rb, a1);
        }
        float m1 = hsum(a0), m2 = hsum(a1);
        layer_norm_backward_sums(t, cols, x, g, dy, mean, r, m1, m2);
        m1 *= inv_cols;
        m2 *= inv_cols;
        const batch m1b(m1), m2b(m2);
        t = 0;
        for (; t + W <= cols; t += W) {
            const batch xhat = (batch::load_unaligned(x + t) - mb) * rb;
            const batch d = batch::load_unaligned(dy + t);
            const batch gdy = batch::load_unaligned(g + t) * d;
            (batch::load_unaligned(dx + t) + rb * (gdy - m1b - xhat * m2b)).store_unaligned(dx + t);
            xsimd::fma(d, xhat, batch::load_unaligned(dg + t)).store_unaligned(dg + t);
            (batch::load_unaligned(db + t) + d).store_unaligned(db + t);
        }
        layer_norm_backward_cols(t, cols, x, g, dy, mean, r, m1, m2, dx, dg, db);
    });
}

void f32_gelu_backward__simd(std::size_t rows, std::size_t cols, const float* X, std::size_t ldx, float* dY, std::size_t ldy) {
    for (std::size_t i = 0; i < rows; ++i) {
        const float* x = X + i * ldx;
        float* dy = dY + i * ldy;
        std::size_t j = 0;
        for (; j + W <= cols; j += W) {
            const batch v = batch::load_unaligned(x + j);
            const batch cdf = batch(0.5f) * xsimd::erfc(v * batch(-kInvSqrt2));
            const batch pdf = batch(kInvSqrt2Pi) * xsimd::exp(batch(-0.5f) * v * v);
            (batch::load_unaligned(dy + j) * xsimd::fma(v, pdf, cdf)).store_unaligned(dy + j);
        }
        for (; j < cols; ++j) dy[j] *= gelu_derivative(x[j]);
    }
}

const KernelTable table_simd = {"simd", xsimd::default_arch::name(), ATTNSCOPE_KERNEL_OPS(ATTNSCOPE_OP_PTR)};
#undef ATTNSCOPE_OP_PTR

}  // namespace attnscope::kernels
