// The SIMD fused attention kernel (the scalar reference is fused_scalar.cpp; conventions in
// kernels.hpp and online_softmax.hpp). Loop structure, FlashAttention-2's on one core:
//
//   pack Kᵀ and V once, in panels of kKeys keys (simd_tiles.hpp)
//   for each block of kQueries query rows          (their outputs are the accumulators, in O)
//     for each key panel (skipped where the causal mask hides it from the whole block)
//       for each tile of 4 query rows
//         S(4 x kKeys) = Q_tile Kᵀ_panel              register-blocked micro-kernel (or −L1)
//         score epilogue, mask, online softmax       S becomes the weights P, rows rescaled
//         O_tile += P V_panel                         register-blocked micro-kernel
//     O rows /= their running sums
//
// The key panel and its V rows (kKeys x d and kKeys x dv floats) stay in cache while the query
// tiles of a block pass over them. Extra memory: the packed Kᵀ (nk x d), V packed in column strips
// (nk x dv, rounded down to whole strips), the block's packed query tiles (kQueries x d) and one
// kFusedMR x kKeys tile.
//
// Code size and register pressure matter here: V8 (11.x) hands functions it deems huge to its
// mid-tier register allocator, and 5 x 8 tiles with multiply and add measured 1.5-1.9x slower than
// 4 x 8, inlined or out of line (docs/benchmarks.md, "What we tried"); the relaxed-SIMD build, whose
// fused multiply-add frees a register, uses 5 x 8 (simd_tiles.hpp, kFusedMR). A/B anything added
// (bench/kernel-ab.mjs in node, bench/attention-chromium.mjs --baseline in Chromium).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/online_softmax.hpp"
#include "kernels/simd_tiles.hpp"

namespace attnscope::kernels {

namespace {
#ifndef ATTNSCOPE_FUSED_KEYS  // (overridable to measure other tile sizes)
#define ATTNSCOPE_FUSED_KEYS 256
#endif
#ifndef ATTNSCOPE_FUSED_QUERIES
#define ATTNSCOPE_FUSED_QUERIES 64
#endif
constexpr std::size_t kKeys = ATTNSCOPE_FUSED_KEYS;        // keys per panel (a multiple of kNR)
constexpr std::size_t kQueries = ATTNSCOPE_FUSED_QUERIES;  // query rows per block

// The online update of one row (simd_tiles' exp), same decisions as online_update_scalar.
inline void online_update_simd(OnlineRow& st, float* s, std::size_t nb, float inv_tau, float& scale,
                               const ExpConstants& ek) {
    bool tnan = false;
    const float tmax = row_max_nan<xsimd::aligned_mode>(s, nb, tnan);
    if (online_special(st, s, nb, tmax, tnan, scale)) return;
    const float m_new = tmax > st.m ? tmax : st.m;
    scale = std::exp((st.m - m_new) * inv_tau);
    const float sum = exp_shifted_sum<xsimd::aligned_mode>(s, s, nb, m_new, inv_tau, ek);
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

void f32_attention_fused__simd(const FusedAttentionArgs& a) {
    assert(a.ldq >= a.d && a.ldk >= a.d && a.ldv >= a.dv && a.ldo >= a.dv);
    if (a.nq == 0) return;
    for (std::size_t i = 0; i < a.nq; ++i)
        for (std::size_t c = 0; c < a.dv; ++c) a.O[i * a.ldo + c] = 0.0f;

    const std::size_t panels = (a.nk + kKeys - 1) / kKeys;
    const std::size_t per_panel = panel_floats(kKeys, a.d);
    AlignedFloats kt_buf, s_buf;
    float* kt = kt_buf.get(panels * per_panel);
    for (std::size_t b = 0; b < panels; ++b)
        pack_kt_panel(a.K + b * kKeys * a.ldk, a.ldk, std::min(kKeys, a.nk - b * kKeys), a.d, kt + b * per_panel);
    // V packed the same way, panel by panel, in whole column strips (pack_v_panel).
    const std::size_t per_vpanel = kKeys * (a.dv / kNR) * kNR;
    AlignedFloats vp_buf;
    float* vp = vp_buf.get(panels * per_vpanel);
    for (std::size_t b = 0; b < panels; ++b)
        pack_v_panel(a.V + b * kKeys * a.ldv, a.ldv, std::min(kKeys, a.nk - b * kKeys), a.dv, kKeys, vp + b * per_vpanel);
    float* S = s_buf.get(kFusedMR * kKeys);
    // The block's query rows in packed tiles (score_tile_packed), for the dot product.
    const bool packed_q = a.score != FusedScore::manhattan;
    const std::size_t tile_floats = kFusedMR * a.d;
    AlignedFloats qt_buf;
    float* QT = packed_q ? qt_buf.get((kQueries + kFusedMR - 1) / kFusedMR * tile_floats) : nullptr;
    const float alpha = a.score == FusedScore::dot ? a.alpha : 1.0f;
    const ExpConstants ek = exp_constants();

    OnlineRow state[kQueries];
    std::vector<DirectPatch> patches;
    std::vector<std::uint32_t> cancelled;
    for (std::size_t q0 = 0; q0 < a.nq; q0 += kQueries) {
        const std::size_t qrows = std::min(kQueries, a.nq - q0);
        for (std::size_t r = 0; r < qrows; ++r) state[r] = OnlineRow{};
        if (packed_q) {
            for (std::size_t i0 = q0; i0 < q0 + qrows; i0 += kFusedMR) {
                const std::size_t mr = std::min(kFusedMR, q0 + qrows - i0);
                const float* q[kFusedMR] = {};
                for (std::size_t r = 0; r < mr; ++r) q[r] = a.Q + (i0 + r) * a.ldq;
                pack_q_tile(q, mr, a.d, QT + (i0 - q0) / kFusedMR * tile_floats);
            }
        }
        // Under the causal mask no row of the block sees keys past its last row.
        const std::size_t kend = a.causal ? std::min(a.nk, a.query_offset + q0 + qrows) : a.nk;
        for (std::size_t j0 = 0; j0 < kend; j0 += kKeys) {
            const std::size_t nb = std::min(kKeys, kend - j0);
            const std::size_t strips = (nb + kNR - 1) / kNR;
            const float* panel = kt + (j0 / kKeys) * per_panel;
            for (std::size_t i0 = q0; i0 < q0 + qrows; i0 += kFusedMR) {
                const std::size_t mr = std::min(kFusedMR, q0 + qrows - i0);
                if (a.causal && j0 > a.query_offset + i0 + mr - 1) continue;  // every key of the panel is hidden
                const float* q[kFusedMR];
                float* o[kFusedMR];
                for (std::size_t r = 0; r < mr; ++r) {
                    q[r] = a.Q + (i0 + r) * a.ldq;
                    o[r] = a.O + (i0 + r) * a.ldo;
                }
                if (a.score == FusedScore::manhattan)
                    for (std::size_t r0 = 0; r0 < mr; r0 += kMR)
                        l1_rows(std::min(kMR, mr - r0), q + r0, a.d, panel, strips, S + r0 * kKeys, kKeys);
                else
                    score_rows_packed(mr, QT + (i0 - q0) / kFusedMR * tile_floats, a.d, panel, strips, alpha, S, kKeys);
                find_direct(a, mr, nb, S, kKeys, i0, j0, patches, f32_cancelled_keys__simd, cancelled);
                switch (a.score) {
                    case FusedScore::dot:
                    case FusedScore::manhattan: break;
                    case FusedScore::cosine: f32_cosine_epilogue__simd(mr, nb, S, kKeys, a.qa + i0, a.kb + j0); break;
                    case FusedScore::sq_euclidean:
                        f32_sq_euclidean_epilogue__simd(mr, nb, S, kKeys, a.qa + i0, a.kb + j0);
                        break;
                    case FusedScore::euclidean:
                        f32_euclidean_epilogue__simd(mr, nb, S, kKeys, a.qa + i0, a.kb + j0);
                        break;
                    case FusedScore::idw:
                        f32_idw_epilogue__simd(mr, nb, S, kKeys, a.qa + i0, a.kb + j0, a.p, a.eps);
                        break;
                }
                patch_direct(patches, S, kKeys);
                for (std::size_t r = 0; r < mr; ++r) {
                    float* s = S + r * kKeys;
                    fused_mask_row(a, i0 + r, j0, nb, s);
                    float scale;
                    online_update_simd(state[i0 + r - q0], s, nb, a.inv_tau, scale, ek);
                    if (scale != 1.0f) scale_row(o[r], a.dv, scale);
                }
                av_rows_strided<kKeys>(mr, S, nb, vp + (j0 / kKeys) * per_vpanel, a.V + j0 * a.ldv, a.ldv, a.dv, o);
            }
        }
        for (std::size_t r = 0; r < qrows; ++r) online_finish_row(state[r], a.O + (q0 + r) * a.ldo, a.dv);
    }
}

}  // namespace attnscope::kernels
