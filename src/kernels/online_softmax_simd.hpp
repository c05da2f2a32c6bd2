// The SIMD fused kernels' tile sizes, the online softmax update of one row and the accumulator's
// rescale, shared by fused_simd.cpp and fused_idw_simd.cpp (conventions in online_softmax.hpp).
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/online_softmax.hpp"
#include "kernels/simd_tiles.hpp"

namespace attnscope::kernels {
namespace {

#ifndef ATTNSCOPE_FUSED_KEYS  // (overridable to measure other tile sizes)
#define ATTNSCOPE_FUSED_KEYS 128
#endif
#ifndef ATTNSCOPE_FUSED_QUERIES
#define ATTNSCOPE_FUSED_QUERIES 64
#endif
constexpr std::size_t kKeys = ATTNSCOPE_FUSED_KEYS;        // keys per panel (a multiple of kNR)
constexpr std::size_t kQueries = ATTNSCOPE_FUSED_QUERIES;  // query rows per block

// The online update of one row (simd_tiles' exp), same decisions as online_update_scalar.
inline void online_update_simd(OnlineRow& st, float* s, std::size_t nb, float inv_tau, float& scale) {
    batch mx_v(-kFusedInf);
    auto has_nan = batch(0.0f) != batch(0.0f);
    std::size_t j = 0;
    for (; j + W <= nb; j += W) {
        const batch x = batch::load_aligned(s + j);
        has_nan = has_nan || (x != x);
        mx_v = xsimd::max(mx_v, x);
    }
    float tmax = hmax(mx_v);
    bool tnan = xsimd::any(has_nan);
    for (; j < nb; ++j) {
        if (std::isnan(s[j])) tnan = true;
        if (s[j] > tmax) tmax = s[j];
    }
    if (online_special(st, s, nb, tmax, tnan, scale)) return;
    const float m_new = tmax > st.m ? tmax : st.m;
    scale = std::exp((st.m - m_new) * inv_tau);
    const batch mb(m_new), itb(inv_tau);
    batch sum0(0.0f), sum1(0.0f);
    j = 0;
    for (; j + 2 * W <= nb; j += 2 * W) {
        const batch e0 = exp_nonpositive((batch::load_aligned(s + j) - mb) * itb);
        const batch e1 = exp_nonpositive((batch::load_aligned(s + j + W) - mb) * itb);
        e0.store_aligned(s + j);
        e1.store_aligned(s + j + W);
        sum0 += e0;
        sum1 += e1;
    }
    for (; j + W <= nb; j += W) {
        const batch e0 = exp_nonpositive((batch::load_aligned(s + j) - mb) * itb);
        e0.store_aligned(s + j);
        sum0 += e0;
    }
    float sum = hsum(sum0 + sum1);
    for (; j < nb; ++j) {
        s[j] = std::exp((s[j] - m_new) * inv_tau);
        sum += s[j];
    }
    st.l = st.l * scale + sum;
    st.m = m_new;
}

inline void scale_row(float* o, std::size_t dv, float scale) {
    const batch sb(scale);
    std::size_t c = 0;
    for (; c + W <= dv; c += W) (batch::load_unaligned(o + c) * sb).store_unaligned(o + c);
    for (; c < dv; ++c) o[c] *= scale;
}

}  // namespace
}  // namespace attnscope::kernels
