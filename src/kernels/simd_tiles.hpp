// Pieces shared by the SIMD kernels (simd.cpp, fused_simd.cpp): xsimd batches, the exp and log the
// softmax and idw need, and the register-blocked micro-kernels of the two matrix products of
// attention, S = Q Kᵀ (against a packed Kᵀ panel) and O += P V.
//
// Register blocking (XNNPACK's and BLIS's shape): a micro-kernel keeps an MR x (NV vectors) tile of
// accumulators in registers while it runs over the shared dimension, so each loaded vector feeds MR
// multiply-adds and each broadcast scalar NV of them. 4 x 8 floats (8 accumulators, 2 loads and
// 4 broadcasts per step) fits the 16 vector registers V8 allocates on x86-64 with room to spare;
// bench/bench_kernels.cpp measures it against the machine's multiply+add peak.
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <xsimd/xsimd.hpp>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace attnscope::kernels {
namespace {

// The micro-kernels are inlined into the kernels that call them, so each f32_*__simd kernel's own
// body holds its SIMD loop (scripts/check-wasm-simd.mjs checks that, function by function).
#if defined(__GNUC__)
#define ATTNSCOPE_TILE_INLINE inline __attribute__((always_inline))
#define ATTNSCOPE_LAMBDA_INLINE __attribute__((always_inline))  // a lambda a tile loop calls: [](...) ATTNSCOPE_LAMBDA_INLINE {}
#else
#define ATTNSCOPE_TILE_INLINE inline
#define ATTNSCOPE_LAMBDA_INLINE
#endif

using batch = xsimd::batch<float>;
using ibatch = xsimd::batch<std::int32_t>;
constexpr std::size_t W = batch::size;
// The micro-kernel tile: kMR rows by kNR columns (two vectors).
constexpr std::size_t kMR = 4;
constexpr std::size_t kNR = 2 * W;

inline float hsum(const batch& b) { return xsimd::hadd(b); }

// a·b + c for the products' accumulations (the GEMM tiles, P·V, dot products, squared norms). In the
// relaxed-SIMD build (ATTNSCOPE_RELAXED_SIMD, wasm only) one f32x4.relaxed_madd: the engine fuses it
// where the machine has a fused multiply-add (one rounding) and may not elsewhere, so that build's
// numbers are within float32 rounding of this build's, not equal bit for bit. Emscripten 3.1.6 only
// has the proposal's prototype builtin (whose meaning was a + b·c); scripts/wasm-relaxed.mjs rewrites
// its opcode to the final one, whose meaning is a·b + c: hence the argument order. Elsewhere two
// operations, as xsimd::fma is on SSE4.1 and on wasm SIMD without relaxed SIMD.
ATTNSCOPE_TILE_INLINE batch madd(const batch& a, const batch& b, const batch& c) {
#if defined(ATTNSCOPE_RELAXED_SIMD)
    using f32x4 = float __attribute__((__vector_size__(16)));
    return batch(static_cast<typename batch::register_type>(__builtin_wasm_fma_f32x4(
        static_cast<f32x4>(static_cast<typename batch::register_type>(a)), static_cast<f32x4>(static_cast<typename batch::register_type>(b)),
        static_cast<f32x4>(static_cast<typename batch::register_type>(c)))));
#else
    return xsimd::fma(a, b, c);
#endif
}

inline float hmax(const batch& b) {
    alignas(16) float lanes[W];
    b.store_aligned(lanes);
    float m = lanes[0];
    for (std::size_t l = 1; l < W; ++l) m = std::max(m, lanes[l]);
    return m;
}

// max(a, b) as a < b ? b : a: wasm's f32x4.pmax, one maxps in V8. xsimd::max goes through
// Emscripten's SSE emulation of _mm_max_ps, a compare and a bitselect (four instructions in V8). A
// NaN in b is ignored, a NaN in a kept.
inline batch pmax(const batch& a, const batch& b) {
#if defined(__wasm_simd128__)
    return batch(reinterpret_cast<batch::register_type>(wasm_f32x4_pmax(reinterpret_cast<v128_t>(a.data),
                                                                       reinterpret_cast<v128_t>(b.data))));
#else
    return xsimd::select(a < b, b, a);
#endif
}

// The exp's constants, as vectors a loop keeps in registers (or spill slots). Written as splatted
// constants inside a loop, clang puts one v128.const per use in the loop body, and V8 (11.x, x86-64)
// materialises each with three instructions per iteration (an immediate move, a move to xmm and a
// shuffle), which cost the softmax more than its arithmetic. Loaded from memory V8 cannot see
// through (exp_constant_table, external linkage, never written) before the loop, they are loop
// invariants instead: at most a reload from the stack.
struct ExpConstants {
    batch lo, log2e, magic, ln2_hi, ln2_lo, c3, c2, c1, c0, one;
};
}  // namespace

alignas(16) inline float exp_constant_table[10] = {
    -88.0f,                // the clamp
    1.44269504088896341f,  // log2(e)
    12583039.0f,           // 1.5 * 2^23 + 127
    -0.693359375f,         // −ln2, high part (Cody and Waite)
    2.12194440e-4f,        // −ln2, low part
    8.3125252277e-03f,     // q(r), highest coefficient first
    4.1890114546e-02f,
    1.6667114198e-01f,
    4.9999231100e-01f,
    1.0f,
};

namespace {
inline ExpConstants exp_constants() {
    const float* t = exp_constant_table;
    return {batch(t[0]), batch(t[1]), batch(t[2]), batch(t[3]), batch(t[4]),
            batch(t[5]), batch(t[6]), batch(t[7]), batch(t[8]), batch(t[9])};
}

// e^x for x in [-88, 0] (callers clamp): x = n ln2 + r with |r| <= ln2/2 (Cody and Waite's two-part
// ln2, exact products with or without an FMA: madd fuses them in the relaxed-SIMD build only), e^r = 1 + r + r² q(r) with q a cubic fitted for the least
// maximum relative error on that interval (1.1e-7 in exact arithmetic), and 2^n built in the exponent
// bits. Relative error at most 2.5e-7 (about 2 ulp) wherever the result is a normal float,
// tests/cpp/test_kernels.cpp checks it against double std::exp at every float of [-88, 0] it visits.
// The softmax needs no more: its weights carry the rounding of their argument (s − m)/τ already,
// |x| ulp(1)/2 relative, which exceeds this above |x| = 4. For n = −127 (x <= −87.68) the
// exponent field is 0, so the result is exactly 0: the clamp at −88 makes −inf and every x below
// it give 0 without a compare and select.
ATTNSCOPE_TILE_INLINE batch exp_core(const batch& xc, const ExpConstants& k) {
    // Round x log2(e) to the nearest integer n by adding 1.5 * 2^23 + 127: the float's low mantissa
    // bits then hold n + 127, the biased exponent of 2^n. (No float→int conversion: Emscripten
    // emulates _mm_cvttps_epi32 lane by lane, which cost more than the whole polynomial.)
    const batch t = madd(xc, k.log2e, k.magic);
    const batch n = t - k.magic;
    const batch r = madd(n, k.ln2_lo, madd(n, k.ln2_hi, xc));
    batch q = k.c3;
    q = madd(q, r, k.c2);
    q = madd(q, r, k.c1);
    q = madd(q, r, k.c0);
    const batch p = madd(q, r * r, r + k.one);
    const batch scale = xsimd::bitwise_cast<batch>(xsimd::bitwise_cast<ibatch>(t) << 23);  // 2^n (0 for n = -127)
    return p * scale;
}
inline batch exp_core(const batch& xc) { return exp_core(xc, exp_constants()); }

// exp(x) for x <= 0, the only arguments the softmax has (scores minus the row max, times 1/tau > 0;
// -inf for masked keys). Results below FLT_MIN (x < -87.34) are the reference's denormal or 0
// (exactly 0 from x = -87.68 down, -inf included): an absolute difference below 1.2e-38. NaN gives
// NaN. xsimd::exp covers the whole real line and measured no faster than scalar expf in wasm; this
// one skips what the softmax never needs. (A compare and select that flushed everything below
// FLT_MIN to 0 cost 5 of its ~30 vector operations; the clamp alone gives 0 where it matters: -inf.)
// Loops pass exp_constants() read once before the loop.
ATTNSCOPE_TILE_INLINE batch exp_nonpositive(const batch& x, const ExpConstants& k) { return exp_core(pmax(x, k.lo), k); }
inline batch exp_nonpositive(const batch& x) { return exp_nonpositive(x, exp_constants()); }

// The first pass of a softmax row (softmax_rows, the online softmax's update): the maximum of s[0, n)
// and whether a NaN is among them (nan; the maximum then means nothing: both callers take their
// special path). pmax ignores a NaN x, has_nan catches it; an empty row gives -inf. Mode is
// xsimd::aligned_mode where s is 16-byte aligned.
template <class Mode>
ATTNSCOPE_TILE_INLINE float row_max_nan(const float* s, std::size_t n, bool& nan) {
    batch mx_v(-std::numeric_limits<float>::infinity());
    auto has_nan = batch(0.0f) != batch(0.0f);
    std::size_t j = 0;
    for (; j + W <= n; j += W) {
        const batch x = batch::load(s + j, Mode{});
        has_nan = has_nan || (x != x);
        mx_v = pmax(mx_v, x);
    }
    float mx = hmax(mx_v);
    nan = xsimd::any(has_nan);
    for (; j < n; ++j) {
        if (std::isnan(s[j])) nan = true;
        if (s[j] > mx) mx = s[j];
    }
    return mx;
}

// w[j] = exp((s[j] − m) inv_tau) for j < n, s[j] <= m, returning their sum: two vectors a step (two
// partial sums), one, then a scalar tail with std::exp. softmax_rows' exponentials and the online
// softmax's (in place, w = s); Mode is xsimd::aligned_mode where s and w are 16-byte aligned.
template <class Mode>
ATTNSCOPE_TILE_INLINE float exp_shifted_sum(const float* s, float* w, std::size_t n, float m, float inv_tau,
                                            const ExpConstants& ek) {
    const batch mb(m), itb(inv_tau);
    batch sum0(0.0f), sum1(0.0f);
    std::size_t j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
        const batch e0 = exp_nonpositive((batch::load(s + j, Mode{}) - mb) * itb, ek);
        const batch e1 = exp_nonpositive((batch::load(s + j + W, Mode{}) - mb) * itb, ek);
        e0.store(w + j, Mode{});
        e1.store(w + j + W, Mode{});
        sum0 += e0;
        sum1 += e1;
    }
    for (; j + W <= n; j += W) {
        const batch e0 = exp_nonpositive((batch::load(s + j, Mode{}) - mb) * itb, ek);
        e0.store(w + j, Mode{});
        sum0 += e0;
    }
    float sum = hsum(sum0 + sum1);
    for (; j < n; ++j) {
        w[j] = std::exp((s[j] - m) * inv_tau);
        sum += w[j];
    }
    return sum;
}

// −log x, the idw score's logarithm (−log(eps + d2)), for x = 2^k m with m in [√½, √2): k and m
// come from the bits of x minus those of √½ (k = that difference >> 23, m = its low 23 bits plus √½'s
// bits), so no compare and select picks the mantissa's range, and k becomes a float through the
// exponent-bits trick (magic − (1.5·2^23 + k)), no float↔int conversion: Emscripten emulates
// those lane by lane. Then log m = 2 atanh(t) with t = (m − 1)/(m + 1), |t| <= 0.1716:
// 2t + t³ P(t²), P a quadratic fitted for the least maximum relative error of log m on that
// interval (1.4e-9 in exact arithmetic), and k ln 2 added in Cody and Waite's two parts (k ln2_hi
// is exact). m − 1 is exact (Sterbenz), so log m keeps its relative accuracy near m = 1. About 22
// vector operations and one division, where Cephes' logf (a degree-8 polynomial in m − 1 and a
// compare for the mantissa's range) took 38 in the form this replaced. The sign is carried through
// (t = (1 − m)/(1 + m), −k), which is the exact negation of the same operations on log x.
// `magic` is 1.5·2^23 (normal x) or 1.5·2^23 + 23 (x scaled up by 2^23 from a subnormal).
// Measured against double std::log at every normal positive float: at most 1.76e-7 relative
// error (about 3 units of 2^-24); tests/cpp/test_simd_math.cpp asserts 2e-7 on a sweep of floats.
ATTNSCOPE_TILE_INLINE batch neg_log_core(const batch& x, const batch& magic) {
    const ibatch ui = xsimd::bitwise_cast<ibatch>(x) - ibatch(0x3f3504f3);  // 0x3f3504f3: √½'s bits
    const batch neg_k = magic - xsimd::bitwise_cast<batch>((ui >> 23) + ibatch(0x4B400000));
    const batch m = xsimd::bitwise_cast<batch>((ui & ibatch(0x007fffff)) + ibatch(0x3f3504f3));
    const batch t = (batch(1.0f) - m) / (batch(1.0f) + m);  // −atanh's argument
    const batch z = t * t;
    batch p = xsimd::fma(batch(2.9925452487e-01f), z, batch(3.9976082772e-01f));
    p = xsimd::fma(p, z, batch(6.6666778259e-01f));
    const batch neg_log_m = xsimd::fma(t * z, p, t + t);
    return xsimd::fma(neg_k, batch(0.693359375f), xsimd::fma(neg_k, batch(-2.12194440e-4f), neg_log_m));
}

// −log x for four lanes that are all normal, positive and finite (idw's eps + d2 nearly always).
ATTNSCOPE_TILE_INLINE batch neg_log_normal(const batch& x) { return neg_log_core(x, batch(12582912.0f)); }

// −log x for any x >= 0, lane by lane: subnormal x is scaled by 2^23 first (its k corrected in the
// magic constant); −log 0 = +inf, −log(+inf) = −inf, NaN and x < 0 give NaN. A normal lane gets
// exactly neg_log_normal's bits, whatever its neighbours are.
inline batch neg_log_nonnegative(const batch& x0) {
    const batch tiny(std::numeric_limits<float>::min());
    const auto sub = x0 < tiny;
    const batch x = xsimd::select(sub, x0 * batch(8388608.0f), x0);  // 2^23
    batch r = neg_log_core(x, xsimd::select(sub, batch(12582912.0f + 23.0f), batch(12582912.0f)));
    const batch inf(std::numeric_limits<float>::infinity());
    r = xsimd::select(x0 == batch(0.0f), inf, r);
    r = xsimd::select(x0 == inf, -inf, r);
    return xsimd::select(x0 < batch(0.0f) || x0 != x0, batch(std::numeric_limits<float>::quiet_NaN()), r);
}

// idw's argument eps + d2 from the dot product qk and the squared norms (d2 = qq + kk − 2 qk), with
// the clamp d2 >= 0 as a maximum with eps: eps + d2 < eps exactly when d2 < 0. Bit for bit
// eps + max(0, d2) for every input, NaN included: wasm's pmax(u, eps) is u < eps ? eps : u and
// SSE's maxps(eps, u) is eps > u ? eps : u, both u when u is NaN. (xsimd::max is a compare and a
// select in wasm, and the select of the clamp two more operations.)
ATTNSCOPE_TILE_INLINE batch idw_arg(const batch& qq, const batch& kk, const batch& qk, const batch& eps) {
    const batch u = eps + (qq + kk - batch(2.0f) * qk);
#if defined(__wasm_simd128__)
    return batch((batch::register_type)wasm_f32x4_pmax((v128_t)u.data, (v128_t)eps.data));
#else
    return batch(_mm_max_ps(eps, u));
#endif
}
inline float idw_arg(float qq, float kk, float qk, float eps) {
    const float d2 = qq + kk - 2.0f * qk;
    return eps + (d2 < 0.0f ? 0.0f : d2);
}

// ---- S = Q Kᵀ ------------------------------------------------------------------------------------
// A packed Kᵀ panel holds keys [j0, j0 + nb) in strips of kNR keys: strip s is d rows of kNR floats,
// panel[(s d + t) kNR + c] = K[j0 + s kNR + c][t], zero past nb. The micro-kernel then reads one
// contiguous, aligned run per strip, and the panel is reused by every query tile.
inline std::size_t panel_floats(std::size_t nb, std::size_t d) { return (nb + kNR - 1) / kNR * kNR * d; }

inline void pack_kt_panel(const float* K, std::size_t ldk, std::size_t nb, std::size_t d, float* panel) {
    const std::size_t strips = (nb + kNR - 1) / kNR;
    for (std::size_t s = 0; s < strips; ++s) {
        float* p = panel + s * d * kNR;
        const std::size_t c_end = std::min(kNR, nb - s * kNR);
        for (std::size_t c = 0; c < c_end; ++c) {
            const float* k = K + (s * kNR + c) * ldk;
            for (std::size_t t = 0; t < d; ++t) p[t * kNR + c] = k[t];
        }
        for (std::size_t c = c_end; c < kNR; ++c)
            for (std::size_t t = 0; t < d; ++t) p[t * kNR + c] = 0.0f;
    }
}

// The register tile of rows q[0..MR) (d floats each) against `strips` strips of a packed panel: per
// strip, acc = step(q_r[t], k_t, acc) over t from zero accumulators, one lane per key, then
// out[r][s kNR + c] = finish(acc), written as whole vectors (out has room for strips * kNR columns
// per row). score_tile and l1_tile below.
template <std::size_t MR, class Step, class Finish>
ATTNSCOPE_TILE_INLINE void panel_tile(const float* const* q, std::size_t d, const float* panel, std::size_t strips, float* out,
                                      std::size_t ldo, Step step, Finish finish) {
    for (std::size_t s = 0; s < strips; ++s) {
        const float* p = panel + s * d * kNR;
        batch acc0[MR], acc1[MR];
        for (std::size_t r = 0; r < MR; ++r) acc0[r] = acc1[r] = batch(0.0f);
        for (std::size_t t = 0; t < d; ++t) {
            const batch k0 = batch::load_aligned(p + t * kNR);
            const batch k1 = batch::load_aligned(p + t * kNR + W);
            for (std::size_t r = 0; r < MR; ++r) {
                const batch qb(q[r][t]);
                acc0[r] = step(qb, k0, acc0[r]);
                acc1[r] = step(qb, k1, acc1[r]);
            }
        }
        for (std::size_t r = 0; r < MR; ++r) {
            finish(acc0[r]).store_unaligned(out + r * ldo + s * kNR);
            finish(acc1[r]).store_unaligned(out + r * ldo + s * kNR + W);
        }
    }
}

// out[r][s kNR + c] = alpha * q_r · k_c.
template <std::size_t MR>
ATTNSCOPE_TILE_INLINE void score_tile(const float* const* q, std::size_t d, const float* panel, std::size_t strips, float alpha,
                       float* out, std::size_t ldo) {
    panel_tile<MR>(
        q, d, panel, strips, out, ldo,
        [](const batch& qb, const batch& k, const batch& acc) ATTNSCOPE_LAMBDA_INLINE { return madd(qb, k, acc); },
        [alpha](const batch& acc) ATTNSCOPE_LAMBDA_INLINE { return acc * batch(alpha); });
}

// Up to kMR rows, dispatched to the matching register tile.
ATTNSCOPE_TILE_INLINE void score_rows(std::size_t mr, const float* const* q, std::size_t d, const float* panel, std::size_t strips,
                       float alpha, float* out, std::size_t ldo) {
    switch (mr) {
        case 4: score_tile<4>(q, d, panel, strips, alpha, out, ldo); break;
        case 3: score_tile<3>(q, d, panel, strips, alpha, out, ldo); break;
        case 2: score_tile<2>(q, d, panel, strips, alpha, out, ldo); break;
        default: score_tile<1>(q, d, panel, strips, alpha, out, ldo); break;
    }
}

// ---- S = −L1(Q, K) -------------------------------------------------------------------------------
// The same register tile over the same packed panel for minus the L1 distance: out[r][s kNR + c] =
// −Σ_t |q_r[t] − k_c[t]|. Three vector operations per 4 pairs and coordinate (subtract, clear the
// sign, add) where the dot product has two, and no horizontal sum: each lane is one key. NaN stays
// NaN (|NaN| is NaN).
template <std::size_t MR>
ATTNSCOPE_TILE_INLINE void l1_tile(const float* const* q, std::size_t d, const float* panel, std::size_t strips, float* out,
                                   std::size_t ldo) {
    panel_tile<MR>(
        q, d, panel, strips, out, ldo,
        [](const batch& qb, const batch& k, const batch& acc) ATTNSCOPE_LAMBDA_INLINE { return acc + xsimd::abs(qb - k); },
        [](const batch& acc) ATTNSCOPE_LAMBDA_INLINE { return -acc; });
}

ATTNSCOPE_TILE_INLINE void l1_rows(std::size_t mr, const float* const* q, std::size_t d, const float* panel, std::size_t strips,
                                   float* out, std::size_t ldo) {
    switch (mr) {
        case 4: l1_tile<4>(q, d, panel, strips, out, ldo); break;
        case 3: l1_tile<3>(q, d, panel, strips, out, ldo); break;
        case 2: l1_tile<2>(q, d, panel, strips, out, ldo); break;
        default: l1_tile<1>(q, d, panel, strips, out, ldo); break;
    }
}

// ---- O += P V ------------------------------------------------------------------------------------
// A two-vector column strip's accumulators, a0[r] and a1[r] = acc[r][c, c + kNR), and their store.
template <std::size_t MR>
ATTNSCOPE_TILE_INLINE void av_load_strip(float* const* acc, std::size_t c, batch* a0, batch* a1) {
    for (std::size_t r = 0; r < MR; ++r) {
        a0[r] = batch::load_unaligned(acc[r] + c);
        a1[r] = batch::load_unaligned(acc[r] + c + W);
    }
}
template <std::size_t MR>
ATTNSCOPE_TILE_INLINE void av_store_strip(float* const* acc, std::size_t c, const batch* a0, const batch* a1) {
    for (std::size_t r = 0; r < MR; ++r) {
        a0[r].store_unaligned(acc[r] + c);
        a1[r].store_unaligned(acc[r] + c + W);
    }
}

// The columns from c on that the two-vector strips below leave: one-vector strips, then scalar
// columns, with P[r][j] read as pw(r, j) (av_tile's row pointers or av_tile_strided's fixed stride).
template <std::size_t MR, class Weight>
ATTNSCOPE_TILE_INLINE void av_tail(std::size_t c, Weight pw, std::size_t nb, const float* V, std::size_t ldv, std::size_t dv,
                                   float* const* acc) {
    for (; c + W <= dv; c += W) {
        batch a0[MR];
        for (std::size_t r = 0; r < MR; ++r) a0[r] = batch::load_unaligned(acc[r] + c);
        const float* v = V + c;
        for (std::size_t j = 0; j < nb; ++j, v += ldv) {
            const batch v0 = batch::load_unaligned(v);
            for (std::size_t r = 0; r < MR; ++r) a0[r] = madd(batch(pw(r, j)), v0, a0[r]);
        }
        for (std::size_t r = 0; r < MR; ++r) a0[r].store_unaligned(acc[r] + c);
    }
    for (; c < dv; ++c) {
        for (std::size_t r = 0; r < MR; ++r) {
            float s = acc[r][c];
            for (std::size_t j = 0; j < nb; ++j) s += pw(r, j) * V[j * ldv + c];
            acc[r][c] = s;
        }
    }
}

// acc[r][0..dv) += Σ_j P[r][j] V[j][0..dv) for MR rows: 2-vector column strips with MR x 2
// accumulators in registers over the nb keys, then a one-vector strip, then scalar columns (av_tail).
template <std::size_t MR>
ATTNSCOPE_TILE_INLINE void av_tile(const float* const* P, std::size_t nb, const float* V, std::size_t ldv, std::size_t dv,
                    float* const* acc) {
    std::size_t c = 0;
    for (; c + kNR <= dv; c += kNR) {
        batch a0[MR], a1[MR];
        av_load_strip<MR>(acc, c, a0, a1);
        const float* v = V + c;
        for (std::size_t j = 0; j < nb; ++j, v += ldv) {
            const batch v0 = batch::load_unaligned(v);
            const batch v1 = batch::load_unaligned(v + W);
            for (std::size_t r = 0; r < MR; ++r) {
                const batch pb(P[r][j]);
                a0[r] = madd(pb, v0, a0[r]);
                a1[r] = madd(pb, v1, a1[r]);
            }
        }
        av_store_strip<MR>(acc, c, a0, a1);
    }
    av_tail<MR>(c, [P](std::size_t r, std::size_t j) ATTNSCOPE_LAMBDA_INLINE { return P[r][j]; }, nb, V, ldv, dv, acc);
}

ATTNSCOPE_TILE_INLINE void av_rows(std::size_t mr, const float* const* P, std::size_t nb, const float* V, std::size_t ldv,
                    std::size_t dv, float* const* acc) {
    switch (mr) {
        case 4: av_tile<4>(P, nb, V, ldv, dv, acc); break;
        case 3: av_tile<3>(P, nb, V, ldv, dv, acc); break;
        case 2: av_tile<2>(P, nb, V, ldv, dv, acc); break;
        default: av_tile<1>(P, nb, V, ldv, dv, acc); break;
    }
}

// ---- The fused kernel's tiles: one pointer per operand -----------------------------------------
// In the micro-kernels above each broadcast reads q[r][t] or P[r][j] through its own row pointer: an
// integer add per row and step besides the load, and with 6 loads and 16 float operations per step
// the x86-64 front end (not the two multiply and two add pipes) is what sets the pace. The fused
// kernel reuses its query rows against every key panel and writes P itself, so it lays both out for
// one pointer with constant offsets (v128.load32_splat's offset field). Its tile has kFusedMR rows.
// (Unrolling these loops by two measured 25-30% slower: clang interleaves the halves, and the four
// live vectors of V or Kᵀ make V8 spill accumulators inside the loop.) The tile is 4 x 8 with
// multiply and add, 5 x 8 with the fused multiply-add: a product then needs no register of its own,
// so 10 accumulators, 2 vectors of Kᵀ or V and a broadcast fit x86-64's 16 xmm registers, and with 10
// independent chains the FMA's latency (4 cycles on 2 pipes wants 8) no longer sets the pace. In
// Chromium 156 that read 0.90-0.94 of the 4 x 8 relaxed build's time; 6 x 8 spilled (1.06-1.12).
// The tile's height changes no number: every score and output element is the same sum in the same order.
#ifndef ATTNSCOPE_FUSED_MR  // (overridable to measure other tile heights)
#if defined(ATTNSCOPE_RELAXED_SIMD)
#define ATTNSCOPE_FUSED_MR 5
#else
#define ATTNSCOPE_FUSED_MR 4
#endif
#endif
constexpr std::size_t kFusedMR = ATTNSCOPE_FUSED_MR;

// A query tile, packed once per block: tile[t kFusedMR + r] = q[r][t], zeros for the rows past mr.
inline void pack_q_tile(const float* const* q, std::size_t mr, std::size_t d, float* tile) {
    for (std::size_t t = 0; t < d; ++t)
        for (std::size_t r = 0; r < kFusedMR; ++r) tile[t * kFusedMR + r] = r < mr ? q[r][t] : 0.0f;
}

// score_tile's products (the same operations in the same order) from a packed query tile.
template <std::size_t MR>
ATTNSCOPE_TILE_INLINE void score_tile_packed(const float* qt, std::size_t d, const float* panel, std::size_t strips,
                                             float alpha, float* out, std::size_t ldo) {
    for (std::size_t s = 0; s < strips; ++s) {
        const float* p = panel + s * d * kNR;
        const float* qq = qt;
        batch acc0[MR], acc1[MR];
        for (std::size_t r = 0; r < MR; ++r) acc0[r] = acc1[r] = batch(0.0f);
        for (std::size_t t = 0; t < d; ++t, p += kNR, qq += kFusedMR) {
            const batch k0 = batch::load_aligned(p);
            const batch k1 = batch::load_aligned(p + W);
            for (std::size_t r = 0; r < MR; ++r) {
                const batch qb(qq[r]);
                acc0[r] = madd(qb, k0, acc0[r]);
                acc1[r] = madd(qb, k1, acc1[r]);
            }
        }
        const batch al(alpha);
        for (std::size_t r = 0; r < MR; ++r) {
            (acc0[r] * al).store_unaligned(out + r * ldo + s * kNR);
            (acc1[r] * al).store_unaligned(out + r * ldo + s * kNR + W);
        }
    }
}

// Up to kFusedMR rows, dispatched to the matching register tile.
template <std::size_t MR = kFusedMR>
ATTNSCOPE_TILE_INLINE void score_rows_packed(std::size_t mr, const float* qt, std::size_t d, const float* panel,
                                             std::size_t strips, float alpha, float* out, std::size_t ldo) {
    if constexpr (MR > 1) {
        if (mr < MR) return score_rows_packed<MR - 1>(mr, qt, d, panel, strips, alpha, out, ldo);
    }
    score_tile_packed<MR>(qt, d, panel, strips, alpha, out, ldo);
}

// av_tile's sums (the same operations in the same order) with the weights' rows at a fixed stride
// LDP: P[r LDP + j].
template <std::size_t MR, std::size_t LDP>
ATTNSCOPE_TILE_INLINE void av_tile_strided(const float* P, std::size_t nb, const float* VP, const float* V, std::size_t ldv,
                                           std::size_t dv, float* const* acc) {
    std::size_t c = 0;
    for (; c + kNR <= dv; c += kNR) {
        batch a0[MR], a1[MR];
        av_load_strip<MR>(acc, c, a0, a1);
        const float* v = VP + (c / kNR) * LDP * kNR;
        const float* p = P;
        for (std::size_t j = 0; j < nb; ++j, v += kNR, ++p) {
            const batch v0 = batch::load_aligned(v);
            const batch v1 = batch::load_aligned(v + W);
            for (std::size_t r = 0; r < MR; ++r) {
                const batch pb(p[r * LDP]);
                a0[r] = madd(pb, v0, a0[r]);
                a1[r] = madd(pb, v1, a1[r]);
            }
        }
        av_store_strip<MR>(acc, c, a0, a1);
    }
    av_tail<MR>(c, [P](std::size_t r, std::size_t j) ATTNSCOPE_LAMBDA_INLINE { return P[r * LDP + j]; }, nb, V, ldv, dv,
                acc);
}

// A V panel packed in column strips of kNR: strip c holds the panel's rows j = 0..nb of columns
// [c kNR, c kNR + kNR) contiguously, vp[c kKeysPanel kNR + j kNR + l] (the columns past the last
// whole strip stay in V). av_tile_strided then reads each strip as one run of 32-byte rows
// instead of 32 bytes from every ldv-long row.
inline void pack_v_panel(const float* V, std::size_t ldv, std::size_t nb, std::size_t dv, std::size_t panel_keys, float* vp) {
    for (std::size_t c = 0; c + kNR <= dv; c += kNR) {
        float* out = vp + (c / kNR) * panel_keys * kNR;
        for (std::size_t j = 0; j < nb; ++j)
            for (std::size_t l = 0; l < kNR; ++l) out[j * kNR + l] = V[j * ldv + c + l];
    }
}

template <std::size_t LDP, std::size_t MR = kFusedMR>
ATTNSCOPE_TILE_INLINE void av_rows_strided(std::size_t mr, const float* P, std::size_t nb, const float* VP, const float* V,
                                           std::size_t ldv, std::size_t dv, float* const* acc) {
    if constexpr (MR > 1) {
        if (mr < MR) return av_rows_strided<LDP, MR - 1>(mr, P, nb, VP, V, ldv, dv, acc);
    }
    av_tile_strided<MR, LDP>(P, nb, VP, V, ldv, dv, acc);
}

// A growable, 16-byte aligned float buffer (std::vector<float> promises only alignof(float)).
class AlignedFloats {
public:
    float* get(std::size_t n) {
        if (n + 4 > buf_.size()) buf_.assign(n + 4, 0.0f);
        const auto addr = reinterpret_cast<std::uintptr_t>(buf_.data());
        return buf_.data() + ((16 - addr % 16) % 16) / sizeof(float);
    }

private:
    std::vector<float> buf_;
};

}  // namespace
}  // namespace attnscope::kernels
