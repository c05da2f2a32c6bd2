// The scalar reference of the fused attention kernel: one query row at a time against blocks of
// keys, plain loops, the scores' epilogues from the scalar table, the online softmax of
// online_softmax.hpp. The oracle of f32_attention_fused__simd, and itself tested against
// attention() (scores -> softmax -> A·V) in tests/cpp/test_fused.cpp.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/online_softmax.hpp"

namespace attnscope::kernels {

namespace {
constexpr std::size_t kScalarKeyBlock = 64;

// The score epilogue of a tile of raw dot products (m rows from query row i, n keys from j0).
inline void apply_score(const FusedAttentionArgs& a, const KernelTable& kt, std::size_t m, std::size_t n,
                        float* S, std::size_t lds, std::size_t i, std::size_t j0) {
    switch (a.score) {
        case FusedScore::manhattan: break;  // the loop below computed the score itself
        case FusedScore::dot:
            for (std::size_t r = 0; r < m; ++r)
                for (std::size_t j = 0; j < n; ++j) S[r * lds + j] *= a.alpha;
            break;
        case FusedScore::cosine: kt.cosine_epilogue(m, n, S, lds, a.qa + i, a.kb + j0); break;
        case FusedScore::sq_euclidean: kt.sq_euclidean_epilogue(m, n, S, lds, a.qa + i, a.kb + j0); break;
        case FusedScore::euclidean: kt.euclidean_epilogue(m, n, S, lds, a.qa + i, a.kb + j0); break;
        case FusedScore::idw: kt.idw_epilogue(m, n, S, lds, a.qa + i, a.kb + j0, a.p, a.eps); break;
    }
}
}  // namespace

void f32_attention_fused__scalar(const FusedAttentionArgs& a) {
    assert(a.ldq >= a.d && a.ldk >= a.d && a.ldv >= a.dv && a.ldo >= a.dv);
    float s[kScalarKeyBlock];
    std::vector<DirectPatch> patches;
    std::vector<std::uint32_t> cancelled;
    for (std::size_t i = 0; i < a.nq; ++i) {
        const float* q = a.Q + i * a.ldq;
        float* o = a.O + i * a.ldo;
        for (std::size_t c = 0; c < a.dv; ++c) o[c] = 0.0f;
        OnlineRow st;
        // Keys after the diagonal are hidden under the causal mask: never computed.
        const std::size_t nk = a.causal ? std::min(a.nk, a.query_offset + i + 1) : a.nk;
        for (std::size_t j0 = 0; j0 < nk; j0 += kScalarKeyBlock) {
            const std::size_t nb = std::min(kScalarKeyBlock, nk - j0);
            for (std::size_t j = 0; j < nb; ++j) {
                const float* k = a.K + (j0 + j) * a.ldk;
                float acc = 0.0f;
                if (a.score == FusedScore::manhattan) {
                    for (std::size_t t = 0; t < a.d; ++t) acc += std::fabs(q[t] - k[t]);
                    acc = -acc;
                } else {
                    for (std::size_t t = 0; t < a.d; ++t) acc += q[t] * k[t];
                }
                s[j] = acc;
            }
            find_direct(a, 1, nb, s, kScalarKeyBlock, i, j0, patches, f32_cancelled_keys__scalar, cancelled);
            apply_score(a, table_scalar, 1, nb, s, kScalarKeyBlock, i, j0);
            patch_direct(patches, s, kScalarKeyBlock);
            fused_mask_row(a, i, j0, nb, s);
            float scale;
            online_update_scalar(st, s, nb, a.inv_tau, scale);
            if (scale != 1.0f)
                for (std::size_t c = 0; c < a.dv; ++c) o[c] *= scale;
            for (std::size_t j = 0; j < nb; ++j) {
                if (s[j] == 0.0f) continue;  // a zero weight adds nothing (and keeps V's other rows out)
                const float* v = a.V + (j0 + j) * a.ldv;
                for (std::size_t c = 0; c < a.dv; ++c) o[c] += s[j] * v[c];
            }
        }
        online_finish_row(st, o, a.dv);
    }
}

}  // namespace attnscope::kernels
