// The online softmax of the fused attention kernels (fused_scalar.cpp, fused_simd.cpp): the per-row
// state and its scalar update, shared so both variants follow the same conventions as softmax_rows
// (kernels.hpp). A row's weights are softmax((s - max) * inv_tau) over every key seen so far; the
// output accumulator holds Σ_j exp((s_j - m) * inv_tau) V_j for the running max m, and is multiplied
// by exp((m_old - m_new) * inv_tau) whenever the max grows, so the final division by the running sum
// gives exactly the softmax-weighted sum.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnscope::kernels {
namespace {

constexpr float kFusedInf = std::numeric_limits<float>::infinity();

struct OnlineRow {
    float m = -kFusedInf;  // running max of the visible scores (+inf: only +inf entries count now)
    float l = 0.0f;        // running sum of exp((s - m) * inv_tau), or the count of +inf entries
    bool nan = false;      // a visible NaN score: the row's output is NaN
};

// The pairs of a tile of raw dot products (m rows from query i0, n keys from j0, row stride lds)
// whose distance identity cancels (FusedAttentionArgs::direct): their exact scores are computed
// before the epilogue overwrites the dot products, and written back after it by patch_direct.
struct DirectPatch {
    std::size_t r, j;
    float value;
};
inline void find_direct(const FusedAttentionArgs& a, std::size_t m, std::size_t n, const float* S, std::size_t lds,
                        std::size_t i0, std::size_t j0, std::vector<DirectPatch>& out, cancelled_keys_fn scan,
                        std::vector<std::uint32_t>& keys) {
    out.clear();
    if (!a.direct) return;
    keys.resize(n);
    for (std::size_t r = 0; r < m; ++r) {
        const std::size_t count = scan(n, S + r * lds, a.qa[i0 + r], a.kb + j0, a.cancel_fraction, keys.data());
        for (std::size_t c = 0; c < count; ++c) out.push_back({r, keys[c], a.direct(a.direct_ctx, i0 + r, j0 + keys[c])});
    }
}
inline void patch_direct(const std::vector<DirectPatch>& patches, float* S, std::size_t lds) {
    for (const DirectPatch& p : patches) S[p.r * lds + p.j] = p.value;
}

// Hides the keys a query may not see: causal (key j > query i) and padding. s holds the scores of
// query row `i` against keys [j0, j0 + nb).
inline void fused_mask_row(const FusedAttentionArgs& a, std::size_t row, std::size_t j0, std::size_t nb, float* s) {
    const std::size_t i = a.query_offset + row;  // the row's index in the whole query
    if (a.causal && j0 + nb > i + 1)
        for (std::size_t j = (i + 1 > j0 ? i + 1 - j0 : 0); j < nb; ++j) s[j] = -kFusedInf;
    if (a.key_padding)
        for (std::size_t j = 0; j < nb; ++j)
            if (a.key_padding[j0 + j]) s[j] = -kFusedInf;
}

// The rare tiles: a NaN, a +inf, or a row already in its +inf state. Turns s into the weights to add
// to the accumulator (after multiplying it by the returned scale). Returns false when the caller's
// fast path should run instead (finite max, nothing special).
inline bool online_special(OnlineRow& st, float* s, std::size_t nb, float tmax, bool tnan, float& scale) {
    scale = 1.0f;
    if (st.nan || tnan) {
        st.nan = true;
        for (std::size_t j = 0; j < nb; ++j) s[j] = 0.0f;
        return true;
    }
    if (tmax == kFusedInf || st.m == kFusedInf) {
        // The limit of softmax: +inf entries share the row's weight equally; everything else gets 0.
        if (st.m != kFusedInf) {
            scale = 0.0f;
            st.l = 0.0f;
            st.m = kFusedInf;
        }
        for (std::size_t j = 0; j < nb; ++j) {
            s[j] = s[j] == kFusedInf ? 1.0f : 0.0f;
            st.l += s[j];
        }
        return true;
    }
    if (tmax == -kFusedInf) {  // nothing visible in this tile
        for (std::size_t j = 0; j < nb; ++j) s[j] = 0.0f;
        return true;
    }
    return false;
}

// The scalar update of one row by one tile of (masked) scores; s becomes the weights to add.
inline void online_update_scalar(OnlineRow& st, float* s, std::size_t nb, float inv_tau, float& scale) {
    float tmax = -kFusedInf;
    bool tnan = false;
    for (std::size_t j = 0; j < nb; ++j) {
        if (std::isnan(s[j])) tnan = true;
        if (s[j] > tmax) tmax = s[j];
    }
    if (online_special(st, s, nb, tmax, tnan, scale)) return;
    const float m_new = tmax > st.m ? tmax : st.m;
    scale = std::exp((st.m - m_new) * inv_tau);  // m = -inf (first visible key): 0
    float sum = 0.0f;
    for (std::size_t j = 0; j < nb; ++j) {
        s[j] = std::exp((s[j] - m_new) * inv_tau);
        sum += s[j];
    }
    st.l = st.l * scale + sum;
    st.m = m_new;
}

// The output row from its accumulator: acc / l; zeros when no key was visible; NaN for a NaN row.
inline void online_finish_row(const OnlineRow& st, float* o, std::size_t dv) {
    if (st.nan) {
        for (std::size_t c = 0; c < dv; ++c) o[c] = std::numeric_limits<float>::quiet_NaN();
    } else if (st.m == -kFusedInf) {
        for (std::size_t c = 0; c < dv; ++c) o[c] = 0.0f;
    } else {
        const float inv = 1.0f / st.l;  // l >= 1: the max entry contributes exp(0) (or one +inf)
        for (std::size_t c = 0; c < dv; ++c) o[c] *= inv;
    }
}

}  // namespace
}  // namespace attnscope::kernels
