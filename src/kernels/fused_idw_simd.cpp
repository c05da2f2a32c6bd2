// idw's ratio path of the SIMD fused attention kernel (p = 2, τ = 1, eps >= FLT_MIN), and the
// kernel's entry point, which sends every other call to f32_attention_fused_general__simd
// (fused_simd.cpp). The loop is fused_simd.cpp's, with the epilogue and the online softmax replaced by
// ratio_update below. It is a separate copy in its own file on purpose: with the ratio path in the
// general kernel's function (or a template instantiated twice there), node 20's V8 compiled that
// kernel 1.4-1.5x slower for every score, the cause being its wasm loop unrolling (the difference
// disappears under --no-wasm-loop-unrolling); see docs/benchmarks.md.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/online_softmax.hpp"
#include "kernels/online_softmax_simd.hpp"
#include "kernels/simd_tiles.hpp"

namespace attnscope::kernels {

void f32_attention_fused_general__simd(const FusedAttentionArgs& a);  // fused_simd.cpp

namespace {

// ---- idw's ratio path (p = 2, τ = 1, eps >= FLT_MIN) -----------------------------------------------
// With s_j = −log u_j, u_j = eps + d2_j, the softmax weight exp(s_j − m) of a key relative to the
// row's best key (smallest u, u_ref = e^−m) is u_ref / u_j: the logarithm and the exponential cancel
// into one division, and the rescale exp(m_old − m_new) is u_new / u_old. The tile holds u (hidden
// keys +inf, weight 0) and each row keeps u_ref beside its OnlineRow, whose m stays in score units
// (−log u_ref) for the general update and the finish. The same decisions as online_update_simd:
// a NaN, a row already in its NaN or +inf state, or a row with exactly computed distances in the
// tile (the direct hook returns scores) go to the general update on the tile's scores −log u (the bits the
// log path gives); a tile with nothing visible gives zero weights. eps >= FLT_MIN keeps every u
// normal (u >= eps), so no ratio loses precision to subnormals and no u is 0 (the +inf score of an
// exact match with eps = 0 stays with the general update).

// The scores −log u of a row (the idw epilogue's values at the same positions).
inline void neg_log_row(float* s, std::size_t nb) {
    std::size_t j = 0;
    for (; j + W <= nb; j += W) neg_log_nonnegative(batch::load_aligned(s + j)).store_aligned(s + j);
    for (; j < nb; ++j) s[j] = -std::log(s[j]);
}

// The online update of one row from a tile of u; s becomes the weights, scale the factor for the
// row's accumulator.
inline void ratio_update(OnlineRow& st, float& u_ref, float* s, std::size_t nb, float& scale) {
    batch mn_v(kFusedInf);
    auto has_nan = batch(0.0f) != batch(0.0f);
    std::size_t j = 0;
    for (; j + W <= nb; j += W) {
        const batch x = batch::load_aligned(s + j);
        has_nan = has_nan || (x != x);
        mn_v = min_not_nan(mn_v, x);
    }
    float tmin = hmin(mn_v);
    bool tnan = xsimd::any(has_nan);
    for (; j < nb; ++j) {
        if (std::isnan(s[j])) tnan = true;
        if (s[j] < tmin) tmin = s[j];
    }
    if (tnan || st.nan || st.m == kFusedInf || !(tmin > 0.0f)) {
        neg_log_row(s, nb);
        online_update_simd(st, s, nb, 1.0f, scale);
        u_ref = std::exp(-st.m);
        return;
    }
    scale = 1.0f;
    if (tmin == kFusedInf) {  // nothing visible in this tile
        for (j = 0; j < nb; ++j) s[j] = 0.0f;
        return;
    }
    if (tmin < u_ref) {  // a better key: the running max moves (u_ref = +inf before the first visible key: 0)
        scale = tmin / u_ref;
        u_ref = tmin;
        st.m = -std::log(tmin);
    }
    const batch ub(u_ref);
    batch sum0(0.0f), sum1(0.0f);
    j = 0;
    for (; j + 2 * W <= nb; j += 2 * W) {
        const batch w0 = ub / batch::load_aligned(s + j);
        const batch w1 = ub / batch::load_aligned(s + j + W);
        w0.store_aligned(s + j);
        w1.store_aligned(s + j + W);
        sum0 += w0;
        sum1 += w1;
    }
    for (; j + W <= nb; j += W) {
        const batch w0 = ub / batch::load_aligned(s + j);
        w0.store_aligned(s + j);
        sum0 += w0;
    }
    float sum = hsum(sum0 + sum1);
    for (; j < nb; ++j) {
        s[j] = u_ref / s[j];
        sum += s[j];
    }
    st.l = st.l * scale + sum;
}

// One tile of idw's ratio path: S holds the raw dot products of mr query rows from i0 against nb
// keys from j0; the rows' states and accumulators are updated (state and u_ref point at row i0's).
inline void idw_ratio_tile(const FusedAttentionArgs& a, std::size_t mr, std::size_t nb, float* S,
                                              std::size_t i0, std::size_t j0, const std::vector<DirectPatch>& patches,
                                              OnlineRow* state, float* u_ref, float* const* o) {
    const batch eps_v(a.eps);
    for (std::size_t r = 0; r < mr; ++r) {
        float* s = S + r * kKeys;
        const float qa = a.qa[i0 + r];
        const float* kb = a.kb + j0;
        const batch qv(qa);
        std::size_t j = 0;
        for (; j + W <= nb; j += W)
            idw_arg(qv, batch::load_unaligned(kb + j), batch::load_aligned(s + j), eps_v).store_aligned(s + j);
        for (; j < nb; ++j) s[j] = idw_arg(qa, kb[j], s[j], a.eps);
    }
    // Rows with exact scores for some pairs take the general update (row by row: a row's numbers
    // never depend on which rows share its tile).
    bool direct[kMR] = {};
    for (const DirectPatch& d : patches) direct[d.r] = true;
    if (!patches.empty()) {
        for (std::size_t r = 0; r < mr; ++r)
            if (direct[r]) neg_log_row(S + r * kKeys, nb);
        patch_direct(patches, S, kKeys);
    }
    for (std::size_t r = 0; r < mr; ++r) {
        float* s = S + r * kKeys;
        float scale;
        if (direct[r]) {
            fused_mask_row(a, i0 + r, j0, nb, s);
            online_update_simd(state[r], s, nb, 1.0f, scale);
            u_ref[r] = std::exp(-state[r].m);
        } else {
            fused_mask_row(a, i0 + r, j0, nb, s, kFusedInf);
            ratio_update(state[r], u_ref[r], s, nb, scale);
        }
        if (scale != 1.0f) scale_row(o[r], a.dv, scale);
    }
}

void fused_idw_ratio(const FusedAttentionArgs& a) {
    if (a.nq == 0) return;
    for (std::size_t i = 0; i < a.nq; ++i)
        for (std::size_t c = 0; c < a.dv; ++c) a.O[i * a.ldo + c] = 0.0f;

    const std::size_t panels = (a.nk + kKeys - 1) / kKeys;
    const std::size_t per_panel = panel_floats(kKeys, a.d);
    AlignedFloats kt_buf, s_buf;
    float* kt = kt_buf.get(panels * per_panel);
    for (std::size_t b = 0; b < panels; ++b)
        pack_kt_panel(a.K + b * kKeys * a.ldk, a.ldk, std::min(kKeys, a.nk - b * kKeys), a.d, kt + b * per_panel);
    float* S = s_buf.get(kMR * kKeys);

    OnlineRow state[kQueries];
    float u_ref[kQueries];  // the row's smallest eps + d2 so far (its best key)
    std::vector<DirectPatch> patches;
    std::vector<std::uint32_t> cancelled;
    for (std::size_t q0 = 0; q0 < a.nq; q0 += kQueries) {
        const std::size_t qrows = std::min(kQueries, a.nq - q0);
        for (std::size_t r = 0; r < qrows; ++r) {
            state[r] = OnlineRow{};
            u_ref[r] = kFusedInf;
        }
        // Under the causal mask no row of the block sees keys past its last row.
        const std::size_t kend = a.causal ? std::min(a.nk, a.query_offset + q0 + qrows) : a.nk;
        for (std::size_t j0 = 0; j0 < kend; j0 += kKeys) {
            const std::size_t nb = std::min(kKeys, kend - j0);
            const std::size_t strips = (nb + kNR - 1) / kNR;
            const float* panel = kt + (j0 / kKeys) * per_panel;
            for (std::size_t i0 = q0; i0 < q0 + qrows; i0 += kMR) {
                const std::size_t mr = std::min(kMR, q0 + qrows - i0);
                if (a.causal && j0 > a.query_offset + i0 + mr - 1) continue;  // every key of the panel is hidden
                const float* q[kMR];
                const float* p[kMR];
                float* o[kMR];
                for (std::size_t r = 0; r < mr; ++r) {
                    q[r] = a.Q + (i0 + r) * a.ldq;
                    p[r] = S + r * kKeys;
                    o[r] = a.O + (i0 + r) * a.ldo;
                }
                score_rows(mr, q, a.d, panel, strips, 1.0f, S, kKeys);
                find_direct(a, mr, nb, S, kKeys, i0, j0, patches, f32_cancelled_keys__simd, cancelled);
                idw_ratio_tile(a, mr, nb, S, i0, j0, patches, state + (i0 - q0), u_ref + (i0 - q0), o);
                av_rows(mr, p, nb, a.V + j0 * a.ldv, a.ldv, a.dv, o);
            }
        }
        for (std::size_t r = 0; r < qrows; ++r) online_finish_row(state[r], a.O + (q0 + r) * a.ldo, a.dv);
    }
}
}  // namespace

void f32_attention_fused__simd(const FusedAttentionArgs& a) {
    assert(a.ldq >= a.d && a.ldk >= a.d && a.ldv >= a.dv && a.ldo >= a.dv);
    if (a.score == FusedScore::idw && a.p == 2.0f && a.inv_tau == 1.0f && a.eps >= std::numeric_limits<float>::min())
        fused_idw_ratio(a);
    else
        f32_attention_fused_general__simd(a);
}

}  // namespace attnscope::kernels
