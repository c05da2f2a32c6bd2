// Every operation of every kernel variant in the manifest, against a float64 evaluation of the same
// formula with an error bound (test_util.hpp derives them) and against the scalar reference variant.
// The scalar and the SIMD results each lie within the bound B of the exact value, so they differ
// from each other by at most 2B: that is the tolerance of "SIMD vs scalar".
//
// Test case names are the kernel op names (f32_<op>) and sections the full kernel names
// (f32_<op>__<variant>), so one grep finds the kernel, its test and its benchmark.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "attnscope/variant.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using kernels::FusedScore;
using kernels::KernelTable;

namespace {

const KernelTable& scalar_table() { return kernels_for(Variant::scalar); }

// got within ref's bound, and within twice that bound of the scalar reference's result.
void check_both(const Mat& got, const Mat& scalar, const RefMatrix& ref, const std::string& where) {
    Checker vs_ref("vs float64"), vs_scalar("vs scalar");
    for (std::size_t i = 0; i < ref.rows; ++i)
        for (std::size_t j = 0; j < ref.cols; ++j) {
            vs_ref(got(i, j), ref.at(i, j), ref.tol_at(i, j), i, j);
            vs_scalar(got(i, j), scalar(i, j), 2.0 * ref.tol_at(i, j), i, j);
        }
    INFO(where);
    ATTNSCOPE_CHECK_ALL(vs_ref);
    ATTNSCOPE_CHECK_ALL(vs_scalar);
    CHECK(got.padding_intact());
}

// The (m, k) pairs run over every pair of tail sizes; the third size cycles through the list too so
// that every size appears in every role without running all 17³ shapes.
std::size_t third_size(std::size_t a, std::size_t b) { return kTailSizes[(7 * a + 3 * b + 5) % kTailSizes.size()]; }

std::string shape_label(std::size_t m, std::size_t n, std::size_t k, std::size_t pad) {
    std::ostringstream s;
    s << "m=" << m << " n=" << n << " k=" << k << " pad=" << pad;
    return s.str();
}

// ----------------------------------------------------------------------------------------------
// C = alpha·A·Bᵀ. Bound per entry: (k+2)ε|alpha| Σ_t|A_it B_jt| (k products summed, one more
// rounding for alpha, one of margin).
void check_f32_gemm_nt(const KernelTable& kt) {
    Rng rng(101);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); ++b) {
            const std::size_t m = kTailSizes[a], k = kTailSizes[b], n = third_size(a, b), pad = (a + b) % 3;
            const float alpha = (a + b) % 2 ? 1.0f : -0.37f;
            const Mat A = uniform_matrix(m, k, rng, -1, 1, pad), B = uniform_matrix(n, k, rng, -1, 1, pad + 1);
            Mat C(m, n, pad, 7777.0f), Cs(m, n, pad, 7777.0f);
            kt.gemm_nt(m, n, k, A.data(), A.stride, B.data(), B.stride, C.data(), C.stride, alpha);
            scalar_table().gemm_nt(m, n, k, A.data(), A.stride, B.data(), B.stride, Cs.data(), Cs.stride, alpha);
            RefMatrix ref(m, n);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    ref.at(i, j) = alpha * dot64(A.row(i), B.row(j), k);
                    ref.tol_at(i, j) = (static_cast<double>(k) + 2.0) * kEps * std::fabs(alpha) * absdot64(A.row(i), B.row(j), k);
                }
            check_both(C, Cs, ref, shape_label(m, n, k, pad));
        }
}

// C = A·B. Bound per entry: (k+1)ε Σ_t|A_it B_tj|.
void check_f32_gemm_nn(const KernelTable& kt) {
    Rng rng(102);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); ++b) {
            const std::size_t m = kTailSizes[a], n = kTailSizes[b], k = third_size(a, b), pad = (a + 2 * b) % 3;
            const Mat A = uniform_matrix(m, k, rng, -1, 1, pad), B = uniform_matrix(k, n, rng, -1, 1, pad + 1);
            Mat C(m, n, pad, 7777.0f), Cs(m, n, pad, 7777.0f);
            kt.gemm_nn(m, n, k, A.data(), A.stride, B.data(), B.stride, C.data(), C.stride);
            scalar_table().gemm_nn(m, n, k, A.data(), A.stride, B.data(), B.stride, Cs.data(), Cs.stride);
            const RefMatrix ref = ref_matmul(A.view(), B.data(), B.stride, n);
            check_both(C, Cs, ref, shape_label(m, n, k, pad));
        }
}

// out_i = Σ_t X_it². All terms are positive, so the bound is relative: (cols+1)ε Σ_t X_it².
void check_f32_row_sumsq(const KernelTable& kt) {
    Rng rng(103);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t cols = kTailSizes[a], rows = third_size(a, a) % 9 + 1, pad = a % 3;
        const Mat X = uniform_matrix(rows, cols, rng, -2, 2, pad);
        Mat out(1, rows, 1, 7777.0f), outs(1, rows, 1, 7777.0f);  // one row: the sentinel follows the last entry
        kt.row_sumsq(rows, cols, X.data(), X.stride, out.data());
        scalar_table().row_sumsq(rows, cols, X.data(), X.stride, outs.data());
        RefMatrix ref(1, rows);
        for (std::size_t i = 0; i < rows; ++i) {
            ref.at(0, i) = dot64(X.row(i), X.row(i), cols);
            ref.tol_at(0, i) = (static_cast<double>(cols) + 1.0) * kEps * ref.at(0, i);
        }
        check_both(out, outs, ref, shape_label(rows, 1, cols, pad));
    }
}

// S_ij *= a_i b_j: two float products, each rounded once: ≤ 2ε|S a b| with a factor 2 of margin.
// a and b hold some zeros (the reciprocal norm of a zero vector), which must give exact zeros.
void check_f32_cosine_epilogue(const KernelTable& kt) {
    Rng rng(104);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); b += 2) {
            const std::size_t m = kTailSizes[a] % 40 + 1, n = kTailSizes[b], pad = (a + b) % 3;
            Mat S = uniform_matrix(m, n, rng, -3, 3, pad);
            const Mat sa = uniform_matrix(1, m, rng, 0.01, 2), sb = uniform_matrix(1, n, rng, 0.01, 2);
            Mat va = sa, vb = sb;
            va(0, m / 2) = 0.0f;
            vb(0, n - 1) = 0.0f;
            Mat Ss = S;
            RefMatrix ref(m, n);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    ref.at(i, j) = static_cast<double>(S(i, j)) * va(0, i) * vb(0, j);
                    ref.tol_at(i, j) = 2.0 * kEps * std::fabs(ref.at(i, j));
                }
            kt.cosine_epilogue(m, n, S.data(), S.stride, va.data(), vb.data());
            scalar_table().cosine_epilogue(m, n, Ss.data(), Ss.stride, va.data(), vb.data());
            check_both(S, Ss, ref, shape_label(m, n, 0, pad));
        }
}

// Inputs for the distance epilogues: squared norms qq, kk and a "dot product" S = c·√(qq kk) with
// c in [−1, 1.02] (a little over 1 drives qq + kk − 2S below zero, which the kernels clamp), plus
// entries with qq = kk = S = 1, where d2 = 0 exactly, and a NaN, which must stay NaN.
struct DistanceInputs {
    Mat S, qq, kk;
};
DistanceInputs distance_inputs(Rng& rng, std::size_t m, std::size_t n, std::size_t pad) {
    DistanceInputs in{Mat(m, n, pad), uniform_matrix(1, m, rng, 0, 4), uniform_matrix(1, n, rng, 0, 4)};
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j)
            in.S(i, j) = static_cast<float>(rng.uniform(-1.0, 1.02) * std::sqrt(static_cast<double>(in.qq(0, i)) * in.kk(0, j)));
    in.qq(0, 0) = 1.0f;
    in.kk(0, n - 1) = 1.0f;
    in.S(0, n - 1) = 1.0f;
    in.S(m - 1, n / 2) = kNaN;
    return in;
}

// The epilogue's own d2 = fl(fl(qq + kk) − 2S) errs by ≤ ε(qq + kk + 2|S|) (two roundings of
// magnitude ≤ that, each ≤ u, factor 2 of margin); ref_distance carries it through f.
template <class Run>
void check_distance_epilogue(const KernelTable& kt, Score score, double p, double eps, std::uint32_t seed,
                             Run run) {
    Rng rng(seed);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); b += 2) {
            const std::size_t m = kTailSizes[a] % 40 + 1, n = kTailSizes[b], pad = (a + b) % 3;
            DistanceInputs in = distance_inputs(rng, m, n, pad);
            Mat Ss = in.S;
            RefMatrix ref(m, n);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    const double qq = in.qq(0, i), kk = in.kk(0, j), s = in.S(i, j);
                    const double x = qq + kk - 2.0 * s, d2 = x < 0.0 ? 0.0 : x;  // NaN stays NaN
                    const Ref r = ref_distance(score, d2, kEps * (qq + kk + 2.0 * std::fabs(s)), p, eps);
                    ref.at(i, j) = r.value;
                    ref.tol_at(i, j) = r.tol;
                }
            run(kt, m, n, in.S.data(), in.S.stride, in.qq.data(), in.kk.data());
            run(scalar_table(), m, n, Ss.data(), Ss.stride, in.qq.data(), in.kk.data());
            std::ostringstream where;
            where << shape_label(m, n, 0, pad) << " p=" << p << " eps=" << eps;
            check_both(in.S, Ss, ref, where.str());
        }
}

void check_f32_sq_euclidean_epilogue(const KernelTable& kt) {
    check_distance_epilogue(kt, Score::neg_sq_euclidean, 2, 0, 105,
                            [](const KernelTable& t, std::size_t m, std::size_t n, float* S, std::size_t lds,
                               const float* qq, const float* kk) { t.sq_euclidean_epilogue(m, n, S, lds, qq, kk); });
}

void check_f32_euclidean_epilogue(const KernelTable& kt) {
    check_distance_epilogue(kt, Score::neg_euclidean, 1, 0, 106,
                            [](const KernelTable& t, std::size_t m, std::size_t n, float* S, std::size_t lds,
                               const float* qq, const float* kk) { t.euclidean_epilogue(m, n, S, lds, qq, kk); });
}

// p = 2 takes the SIMD variant's log-only path, the others go through exp(p/2 · log d2); eps = 0
// needs log(0) = −inf in both (the score of an exact match is +inf).
void check_f32_idw_epilogue(const KernelTable& kt) {
    const std::pair<float, float> cases[] = {{2.0f, 1e-3f}, {1.0f, 1e-3f}, {3.0f, 1e-3f},
                                             {0.5f, 1e-2f}, {2.0f, 0.0f},  {3.0f, 0.0f}};
    std::uint32_t seed = 107;
    for (const auto& [p, eps] : cases)
        check_distance_epilogue(kt, Score::idw, p, eps, seed++,
                                [p = p, eps = eps](const KernelTable& t, std::size_t m, std::size_t n, float* S,
                                                   std::size_t lds, const float* qq, const float* kk) {
                                    t.idw_epilogue(m, n, S, lds, qq, kk, p, eps);
                                });
}

// Rows for the scan of cancelling keys: random keys with planted exact and near duplicates of the
// query (the cancelling pairs), an infinite key norm (round 1) and a NaN dot product (round 2), at
// lengths that reach the vector bodies and the tails. s = q·k, qa = ‖q‖², kb = ‖k‖², in float.
struct CancelRow {
    std::vector<float> s, kb;
    float qa = 0.0f;
    std::size_t planted = 0;
};
constexpr std::size_t kCancelLengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 64, 131};
CancelRow cancel_row(Rng& rng, std::size_t n, int round) {
    constexpr std::size_t d = 8;
    CancelRow row;
    Mat q = uniform_matrix(1, d, rng, -2, 2);
    Mat K = uniform_matrix(n, d, rng, -2, 2);
    for (std::size_t j = round; j < n; j += 5) {  // duplicates and near duplicates of q
        for (std::size_t t = 0; t < d; ++t) K(j, t) = q(0, t) + (j % 2 ? 1e-3f * rng.uniform(-1, 1) : 0.0f);
        ++row.planted;
    }
    row.s.resize(n);
    row.kb.resize(n);
    for (std::size_t t = 0; t < d; ++t) row.qa += q(0, t) * q(0, t);
    for (std::size_t j = 0; j < n; ++j) {
        float acc = 0.0f, kk = 0.0f;
        for (std::size_t t = 0; t < d; ++t) {
            acc += q(0, t) * K(j, t);
            kk += K(j, t) * K(j, t);
        }
        row.s[j] = acc;
        row.kb[j] = kk;
    }
    if (round == 1) row.kb[n - 1] = std::numeric_limits<float>::infinity();  // never listed
    if (round == 2) row.s[n / 2] = std::numeric_limits<float>::quiet_NaN();  // d2 NaN: listed if norms finite
    return row;
}

// The keys where the distance identity cancels, against the definition (kernels.hpp) evaluated here in
// the same float operations. The lists must be identical, not just close.
void check_f32_cancelled_keys(const KernelTable& kt) {
    Rng rng(141);
    constexpr float cf = 0.25f;
    std::size_t planted_total = 0;
    for (std::size_t n : kCancelLengths) {
        for (int round = 0; round < 4; ++round) {
            const CancelRow row = cancel_row(rng, n, round);
            planted_total += row.planted;
            std::vector<std::uint32_t> expected;
            for (std::size_t j = 0; j < n; ++j) {
                const float norms = row.qa + row.kb[j];
                const float d2 = norms - 2.0f * row.s[j];
                if (!(d2 > cf * norms) && std::isfinite(norms)) expected.push_back(static_cast<std::uint32_t>(j));
            }
            std::vector<std::uint32_t> got(n, 0xffffffffu);
            const std::size_t count = kt.cancelled_keys(n, row.s.data(), row.qa, row.kb.data(), cf, got.data());
            INFO("n=" << n << " round=" << round);
            REQUIRE(count == expected.size());
            got.resize(count);
            CHECK(got == expected);
        }
    }
    CHECK(planted_total > 40);  // the planted pairs were there to find
}

// One distance row in one pass: exactly what cancelled_keys and then the kind's epilogue give in the
// same variant (the same list, the same bits in every score), for each kind and the idw paths (p = 2
// with eps normal or 0, another p), on the rows of the scan's test.
void check_f32_distance_row(const KernelTable& kt) {
    struct Case {
        FusedScore kind;
        float p, eps;
    };
    const Case cases[] = {{FusedScore::sq_euclidean, 2.0f, 0.0f}, {FusedScore::euclidean, 2.0f, 0.0f},
                          {FusedScore::idw, 2.0f, 1e-3f},         {FusedScore::idw, 2.0f, 0.0f},
                          {FusedScore::idw, 3.0f, 1e-3f},         {FusedScore::idw, 0.5f, 0.0f}};
    constexpr float cf = 0.25f;
    Rng rng(142);
    for (const Case& c : cases) {
        for (std::size_t n : kCancelLengths) {
            for (int round = 0; round < 4; ++round) {
                const CancelRow row = cancel_row(rng, n, round);
                std::vector<float> want = row.s, got = row.s;
                std::vector<std::uint32_t> want_keys(n), got_keys(n, 0xffffffffu);
                want_keys.resize(kt.cancelled_keys(n, want.data(), row.qa, row.kb.data(), cf, want_keys.data()));
                switch (c.kind) {
                    case FusedScore::sq_euclidean: kt.sq_euclidean_epilogue(1, n, want.data(), n, &row.qa, row.kb.data()); break;
                    case FusedScore::euclidean: kt.euclidean_epilogue(1, n, want.data(), n, &row.qa, row.kb.data()); break;
                    default: kt.idw_epilogue(1, n, want.data(), n, &row.qa, row.kb.data(), c.p, c.eps); break;
                }
                got_keys.resize(kt.distance_row(c.kind, n, got.data(), row.qa, row.kb.data(), c.p, c.eps, cf, got_keys.data()));
                INFO("kind " << static_cast<int>(c.kind) << " p=" << c.p << " eps=" << c.eps << " n=" << n << " round=" << round);
                CHECK(got_keys == want_keys);
                CHECK(std::memcmp(got.data(), want.data(), n * sizeof(float)) == 0);
            }
        }
    }
}

// S_ij = −Σ_t |A_it − B_jt|. Each difference rounds once (≤ ε|a − b|), |·| and the negation are exact,
// and a sum of k non-negative terms errs by ≤ kε of it: ≤ (k+2)ε Σ|a − b| with one ε of margin. A NaN
// in one row of A makes that row NaN, in both variants.
void check_f32_neg_manhattan(const KernelTable& kt) {
    Rng rng(140);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); ++b) {
            const std::size_t m = kTailSizes[a] % 23 + 1, k = kTailSizes[b], n = third_size(a, b), pad = (a + b) % 3;
            Mat A = uniform_matrix(m, k, rng, -2, 2, pad);
            const Mat B = uniform_matrix(n, k, rng, -2, 2, pad + 1);
            const bool with_nan = (a + b) % 5 == 0;
            if (with_nan) A(m - 1, k / 2) = kNaN;
            Mat S(m, n, pad, 7777.0f), Ss(m, n, pad, 7777.0f);
            kt.neg_manhattan(m, n, k, A.data(), A.stride, B.data(), B.stride, S.data(), S.stride);
            scalar_table().neg_manhattan(m, n, k, A.data(), A.stride, B.data(), B.stride, Ss.data(), Ss.stride);
            RefMatrix ref(m, n);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double l1 = 0.0;
                    for (std::size_t t = 0; t < k; ++t) l1 += std::fabs(static_cast<double>(A(i, t)) - B(j, t));
                    ref.at(i, j) = -l1;
                    ref.tol_at(i, j) = (static_cast<double>(k) + 2.0) * kEps * l1;
                }
            check_both(S, Ss, ref, shape_label(m, n, k, pad) + (with_nan ? " with a NaN in the last query" : ""));
        }
}

// S_ij = Σ_t v_t tanh(Aq_it + Bk_jt). The float sum x = a + b rounds once (tanh is 1-Lipschitz, so
// ≤ u|x| passes through), tanh adds kFnUlps ulps, and the weighted sum (h+1)ε Σ|v_t tanh_t|.
void check_f32_additive(const KernelTable& kt) {
    Rng rng(120);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t h = kTailSizes[a], m = a % 5 + 1, n = third_size(a, 1) % 11 + 1, pad = a % 3;
        const Mat Aq = uniform_matrix(m, h, rng, -2.5, 2.5, pad), Bk = uniform_matrix(n, h, rng, -2.5, 2.5, pad + 1);
        const Mat v = uniform_matrix(1, h, rng, -1, 1, 1);
        Mat S(m, n, pad, 7777.0f), Ss(m, n, pad, 7777.0f);
        kt.additive(m, n, h, Aq.data(), Aq.stride, Bk.data(), Bk.stride, v.data(), S.data(), S.stride);
        scalar_table().additive(m, n, h, Aq.data(), Aq.stride, Bk.data(), Bk.stride, v.data(), Ss.data(), Ss.stride);
        RefMatrix ref(m, n);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double val = 0.0, tol = 0.0, mag = 0.0;
                for (std::size_t t = 0; t < h; ++t) {
                    const double x = static_cast<double>(Aq(i, t)) + Bk(j, t), th = std::tanh(x);
                    val += v(0, t) * th;
                    mag += std::fabs(v(0, t) * th);
                    tol += std::fabs(v(0, t)) * kEps * (std::fabs(x) + kFnUlps * std::fabs(th));
                }
                ref.at(i, j) = val;
                ref.tol_at(i, j) = tol + (static_cast<double>(h) + 1.0) * kEps * mag;
            }
        check_both(S, Ss, ref, shape_label(m, n, h, pad));
    }
}

// Row softmax of finite scores, the bound from ref_softmax (exact inputs: δ = 0). One of every
// three shapes runs in place (W = S), as the masked path of masked_softmax does.
void check_f32_softmax_rows(const KernelTable& kt) {
    Rng rng(130);
    const float inv_taus[] = {1.0f, 0.25f, 7.5f};
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); b += 3) {
            const std::size_t cols = kTailSizes[a], rows = kTailSizes[b] % 23 + 1, pad = (a + b) % 3;
            const float inv_tau = inv_taus[(a + b) % 3];
            const bool in_place = (a + b) % 3 == 1;
            Mat S = uniform_matrix(rows, cols, rng, -5, 5, pad);
            RefMatrix s(rows, cols);
            for (std::size_t i = 0; i < rows; ++i)
                for (std::size_t j = 0; j < cols; ++j) s.at(i, j) = S(i, j);
            const RefMatrix ref = ref_softmax(s, inv_tau);
            Mat Wt(rows, cols, pad, 7777.0f), Ws(rows, cols, pad, 7777.0f);
            scalar_table().softmax_rows(rows, cols, S.data(), S.stride, inv_tau, Ws.data(), Ws.stride);
            if (in_place) {
                kt.softmax_rows(rows, cols, S.data(), S.stride, inv_tau, S.data(), S.stride);
                Wt = S;
            } else {
                kt.softmax_rows(rows, cols, S.data(), S.stride, inv_tau, Wt.data(), Wt.stride);
            }
            std::ostringstream where;
            where << shape_label(rows, cols, 0, pad) << " inv_tau=" << inv_tau << (in_place ? " in place" : "");
            check_both(Wt, Ws, ref, where.str());
        }
}

// ----------------------------------------------------------------------------------------------
// Backward kernels.

// C = Aᵀ·B (A: k x m, B: k x n). Bound per entry: (k+1)ε Σ_t|A_ti B_tj|.
void check_f32_gemm_tn(const KernelTable& kt) {
    Rng rng(150);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); b += 2) {
            const std::size_t m = kTailSizes[a], n = kTailSizes[b], k = third_size(a, b), pad = (a + b) % 3;
            const Mat A = uniform_matrix(k, m, rng, -1, 1, pad), B = uniform_matrix(k, n, rng, -1, 1, pad + 1);
            Mat C(m, n, pad, 7777.0f), Cs(m, n, pad, 7777.0f);
            kt.gemm_tn(m, n, k, A.data(), A.stride, B.data(), B.stride, C.data(), C.stride);
            scalar_table().gemm_tn(m, n, k, A.data(), A.stride, B.data(), B.stride, Cs.data(), Cs.stride);
            RefMatrix ref(m, n);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double val = 0.0, mag = 0.0;
                    for (std::size_t t = 0; t < k; ++t) {
                        val += static_cast<double>(A(t, i)) * B(t, j);
                        mag += std::fabs(static_cast<double>(A(t, i)) * B(t, j));
                    }
                    ref.at(i, j) = val;
                    ref.tol_at(i, j) = (static_cast<double>(k) + 1.0) * kEps * mag;
                }
            check_both(C, Cs, ref, shape_label(m, n, k, pad));
        }
}

// dS = τ⁻¹ A ⊙ (G − Σ_t G_t A_t) per row. r = Σ G A errs by (cols+1)ε Σ|G A|; G − r adds ε|G − r|,
// the two products 2ε more: |err| ≤ τ⁻¹ A ((cols+1)ε Σ|GA| + 4ε(|G| + |r|)). Weights are a real
// softmax row with some exact zeros (masked keys), which must give exactly 0; every third shape runs
// in place (dS = G).
void check_f32_softmax_backward_rows(const KernelTable& kt) {
    Rng rng(151);
    const float inv_taus[] = {1.0f, 0.25f, 7.5f};
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t cols = kTailSizes[a], rows = a % 4 + 1, pad = a % 3;
        const float inv_tau = inv_taus[a % 3];
        const bool in_place = a % 3 == 2;
        Mat A = uniform_matrix(rows, cols, rng, 0, 1, pad);
        for (std::size_t i = 0; i < rows; ++i) {
            double sum = 0.0;
            for (std::size_t j = 0; j < cols; ++j) {
                if ((i + j) % 4 == 3) A(i, j) = 0.0f;  // a masked key
                sum += A(i, j);
            }
            for (std::size_t j = 0; j < cols; ++j) A(i, j) = sum > 0 ? static_cast<float>(A(i, j) / sum) : 0.0f;
        }
        const Mat G = uniform_matrix(rows, cols, rng, -2, 2, pad + 1);
        Mat dS(rows, cols, pad + 1, 7777.0f), dSs(rows, cols, pad + 1, 7777.0f);
        if (in_place) dS = G;
        kt.softmax_backward_rows(rows, cols, A.data(), A.stride, in_place ? dS.data() : G.data(), G.stride, inv_tau,
                                 dS.data(), dS.stride);
        scalar_table().softmax_backward_rows(rows, cols, A.data(), A.stride, G.data(), G.stride, inv_tau, dSs.data(),
                                             dSs.stride);
        RefMatrix ref(rows, cols);
        for (std::size_t i = 0; i < rows; ++i) {
            const double r = dot64(G.row(i), A.row(i), cols), mag = absdot64(G.row(i), A.row(i), cols);
            for (std::size_t j = 0; j < cols; ++j) {
                ref.at(i, j) = inv_tau * static_cast<double>(A(i, j)) * (G(i, j) - r);
                ref.tol_at(i, j) = inv_tau * static_cast<double>(A(i, j)) *
                                   ((static_cast<double>(cols) + 1.0) * kEps * mag + 4.0 * kEps * (std::fabs(G(i, j)) + std::fabs(r)));
            }
        }
        std::ostringstream where;
        where << shape_label(rows, cols, 0, pad) << " inv_tau=" << inv_tau << (in_place ? " in place" : "");
        check_both(dS, dSs, ref, where.str());
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j)
                if (A(i, j) == 0.0f) CHECK(dS(i, j) == 0.0f);
    }
}

// D = Σ_t (Q_it − K_jt)²: each difference rounds once (2ε relative on its square), the square once,
// the sum of k positive terms kε: bound (k+3)ε D. Rows of K copied from Q give exactly 0.
void check_f32_sq_distances(const KernelTable& kt) {
    Rng rng(152);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (std::size_t b = 0; b < kTailSizes.size(); b += 3) {
            const std::size_t m = kTailSizes[a] % 13 + 1, k = kTailSizes[b], n = third_size(a, b), pad = (a + b) % 3;
            const Mat Q = uniform_matrix(m, k, rng, -1, 1, pad);
            Mat K = uniform_matrix(n, k, rng, -1, 1, pad + 1);
            for (std::size_t j = 0; j < n; j += 3)
                for (std::size_t t = 0; t < k; ++t) K(j, t) = Q(j % m, t);
            Mat D(m, n, pad, 7777.0f), Ds(m, n, pad, 7777.0f);
            kt.sq_distances(m, n, k, Q.data(), Q.stride, K.data(), K.stride, D.data(), D.stride);
            scalar_table().sq_distances(m, n, k, Q.data(), Q.stride, K.data(), K.stride, Ds.data(), Ds.stride);
            RefMatrix ref(m, n);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double val = 0.0;
                    for (std::size_t t = 0; t < k; ++t) {
                        const double diff = static_cast<double>(Q(i, t)) - K(j, t);
                        val += diff * diff;
                    }
                    ref.at(i, j) = val;
                    ref.tol_at(i, j) = (static_cast<double>(k) + 3.0) * kEps * val;
                }
            check_both(D, Ds, ref, shape_label(m, n, k, pad));
            for (std::size_t j = 0; j < n; j += 3)
                CHECK(D(j % m, j) == 0.0f);
        }
}

// The additive score's backward. T = tanh(x) errs by δT = ε(|x| + ulps|T|) (x = a + b rounds once;
// tanh is 1-Lipschitz), 1 − T² then by 2δT + 2ε, the product g v (1 − T²) by 2ε more; sums of n
// terms add (n+1)ε Σ|terms|. dv: Σ |g| δT + (m n + 1)ε Σ|g T|.
void check_f32_additive_backward(const KernelTable& kt) {
    Rng rng(153);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t h = kTailSizes[a], m = a % 5 + 1, n = third_size(a, 1) % 11 + 1, pad = a % 3;
        const Mat Aq = uniform_matrix(m, h, rng, -2.5, 2.5, pad), Bk = uniform_matrix(n, h, rng, -2.5, 2.5, pad + 1);
        const Mat v = uniform_matrix(1, h, rng, -1, 1, 1), G = uniform_matrix(m, n, rng, -1, 1, pad);
        Mat dA(m, h, pad, 7777.0f), dAs(m, h, pad, 7777.0f), dB(n, h, pad + 1, 7777.0f), dBs(n, h, pad + 1, 7777.0f);
        Mat dv(1, h, 1, 7777.0f), dvs(1, h, 1, 7777.0f);
        kt.additive_backward(m, n, h, Aq.data(), Aq.stride, Bk.data(), Bk.stride, v.data(), G.data(), G.stride,
                             dA.data(), dA.stride, dB.data(), dB.stride, dv.data());
        scalar_table().additive_backward(m, n, h, Aq.data(), Aq.stride, Bk.data(), Bk.stride, v.data(), G.data(),
                                         G.stride, dAs.data(), dAs.stride, dBs.data(), dBs.stride, dvs.data());
        RefMatrix rA(m, h), rB(n, h), rv(1, h), magA(m, h), magB(n, h), magv(1, h);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t t = 0; t < h; ++t) {
                    const double x = static_cast<double>(Aq(i, t)) + Bk(j, t), th = std::tanh(x);
                    const double dT = kEps * (std::fabs(x) + kFnUlps * std::fabs(th));
                    const double g = G(i, j), gv = g * v(0, t), pterm = gv * (1.0 - th * th);
                    const double e = std::fabs(gv) * (2.0 * dT + 6.0 * kEps);
                    rA.at(i, t) += pterm;
                    rA.tol_at(i, t) += e;
                    magA.at(i, t) += std::fabs(pterm);
                    rB.at(j, t) += pterm;
                    rB.tol_at(j, t) += e;
                    magB.at(j, t) += std::fabs(pterm);
                    rv.at(0, t) += g * th;
                    rv.tol_at(0, t) += std::fabs(g) * dT;
                    magv.at(0, t) += std::fabs(g * th);
                }
        for (std::size_t t = 0; t < h; ++t) {
            for (std::size_t i = 0; i < m; ++i) rA.tol_at(i, t) += (static_cast<double>(n) + 1.0) * kEps * magA.at(i, t);
            for (std::size_t j = 0; j < n; ++j) rB.tol_at(j, t) += (static_cast<double>(m) + 1.0) * kEps * magB.at(j, t);
            rv.tol_at(0, t) += (static_cast<double>(m * n) + 1.0) * kEps * magv.at(0, t);
        }
        const std::string where = shape_label(m, n, h, pad);
        check_both(dA, dAs, rA, where + " dAq");
        check_both(dB, dBs, rB, where + " dBk");
        check_both(dv, dvs, rv, where + " dv");
    }
}

// The fused attention output against the float64 chain (scores, mask, softmax, A·V with the bounds
// of test_util.hpp) and the scalar reference, for every score kind of the kernel, shapes that cross
// the SIMD variant's 4-row tiles, 8-column strips, 128-key panels and 64-row query blocks, with and
// without the causal mask and key padding, at three temperatures. The rows and keys of every kind
// are prepared as attention_output does (norms from the scalar row_sumsq).
void check_f32_attention_fused(const KernelTable& kt) {
    Rng rng(140);
    const Score kinds[] = {Score::dot, Score::scaled_dot, Score::cosine, Score::neg_sq_euclidean,
                           Score::neg_euclidean, Score::idw};
    const float taus[] = {1.0f, 0.25f, 3.0f};
    std::size_t c = 0;
    for (std::size_t a = 0; a < kTailSizes.size(); ++a)
        for (const Score score : kinds) {
            ++c;
            const std::size_t nk = kTailSizes[a], d = third_size(a, c) % 70 + 1;
            const std::size_t nq = kTailSizes[(a + 3 * c) % kTailSizes.size()] % 71 + 1;
            const std::size_t dv = kTailSizes[(5 * c + a) % kTailSizes.size()] % 41 + 1, pad = c % 3;
            const bool causal = c % 3 == 0, padding = c % 4 == 1;
            const float tau = taus[c % 3];
            const Mat Q = uniform_matrix(nq, d, rng, -1, 1, pad), K = uniform_matrix(nk, d, rng, -1, 1, pad + 1);
            const Mat V = uniform_matrix(nk, dv, rng, -2, 2, pad);
            std::vector<std::uint8_t> hidden(nk, 0);
            for (std::size_t j = 0; j < nk; ++j) hidden[j] = padding && j % 5 == 2;
            ScoreParams sp;
            sp.p = 2.0f;
            sp.eps = 1e-3f;
            std::vector<float> qa(nq), kb(nk);
            kernels::FusedAttentionArgs f;
            f.nq = nq;
            f.nk = nk;
            f.d = d;
            f.dv = dv;
            f.Q = Q.data();
            f.ldq = Q.stride;
            f.K = K.data();
            f.ldk = K.stride;
            f.V = V.data();
            f.ldv = V.stride;
            f.inv_tau = 1.0f / tau;
            f.causal = causal;
            f.key_padding = padding ? hidden.data() : nullptr;
            f.p = sp.p;
            f.eps = sp.eps;
            if (score == Score::scaled_dot) f.alpha = 1.0f / std::sqrt(static_cast<float>(d));
            if (score != Score::dot && score != Score::scaled_dot) {
                scalar_table().row_sumsq(nq, d, Q.data(), Q.stride, qa.data());
                scalar_table().row_sumsq(nk, d, K.data(), K.stride, kb.data());
                if (score == Score::cosine) {
                    for (auto& x : qa) x = x > 0.0f ? 1.0f / std::sqrt(x) : 0.0f;
                    for (auto& x : kb) x = x > 0.0f ? 1.0f / std::sqrt(x) : 0.0f;
                }
                f.score = score == Score::cosine             ? kernels::FusedScore::cosine
                          : score == Score::neg_sq_euclidean ? kernels::FusedScore::sq_euclidean
                          : score == Score::neg_euclidean    ? kernels::FusedScore::euclidean
                                                             : kernels::FusedScore::idw;
                f.qa = qa.data();
                f.kb = kb.data();
            }
            Mat O(nq, dv, pad, 7777.0f), Os(nq, dv, pad + 1, 7777.0f);
            f.O = O.data();
            f.ldo = O.stride;
            kt.attention_fused(f);
            f.O = Os.data();
            f.ldo = Os.stride;
            scalar_table().attention_fused(f);
            RefMatrix s = ref_scores(score, Q.view(), K.view(), sp);
            apply_mask(s, causal ? Mask::causal : Mask::none, f.key_padding);
            const RefMatrix ref = ref_weighted_sum(ref_softmax(s, 1.0 / tau), V.view());
            std::ostringstream where;
            where << score_info(score).name << " nq=" << nq << " nk=" << nk << " d=" << d << " dv=" << dv
                  << " pad=" << pad << " tau=" << tau << (causal ? " causal" : "") << (padding ? " padding" : "");
            check_both(O, Os, ref, where.str());
            CHECK(Os.padding_intact());
        }
}

// The neg-manhattan backward: sums of ±G (sign(0) = 0), n (or m) terms: bound (n+1)ε Σ|G|. Some
// rows of K copy a row of Q (every coordinate equal: sign 0), so those pairs contribute nothing.
void check_f32_manhattan_backward(const KernelTable& kt) {
    Rng rng(154);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t k = kTailSizes[a], m = a % 5 + 1, n = third_size(a, 2) % 11 + 1, pad = a % 3;
        const Mat Q = uniform_matrix(m, k, rng, -1, 1, pad);
        Mat K = uniform_matrix(n, k, rng, -1, 1, pad + 1);
        for (std::size_t j = 0; j < n; j += 3)
            for (std::size_t t = 0; t < k; ++t) K(j, t) = Q(j % m, t);
        const Mat G = uniform_matrix(m, n, rng, -1, 1, pad);
        Mat dQ(m, k, pad, 7777.0f), dQs(m, k, pad, 7777.0f), dK(n, k, pad + 1, 7777.0f), dKs(n, k, pad + 1, 7777.0f);
        kt.manhattan_backward(m, n, k, Q.data(), Q.stride, K.data(), K.stride, G.data(), G.stride, dQ.data(), dQ.stride,
                              dK.data(), dK.stride);
        scalar_table().manhattan_backward(m, n, k, Q.data(), Q.stride, K.data(), K.stride, G.data(), G.stride,
                                          dQs.data(), dQs.stride, dKs.data(), dKs.stride);
        RefMatrix rQ(m, k), rK(n, k);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t t = 0; t < k; ++t) {
                    const double diff = static_cast<double>(Q(i, t)) - K(j, t);
                    const double s = diff > 0 ? 1.0 : (diff < 0 ? -1.0 : 0.0), g = G(i, j);
                    rQ.at(i, t) -= g * s;
                    rK.at(j, t) += g * s;
                    rQ.tol_at(i, t) += (static_cast<double>(n) + 1.0) * kEps * std::fabs(g);
                    rK.tol_at(j, t) += (static_cast<double>(m) + 1.0) * kEps * std::fabs(g);
                }
        const std::string where = shape_label(m, n, k, pad);
        check_both(dQ, dQs, rQ, where + " dQ");
        check_both(dK, dKs, rK, where + " dK");
    }
}

// Layer norm of rows with an offset (so the mean matters), gains and biases of both signs. With the
// exact r = 1/sqrt(var + eps): the float mean errs by (cols+1)ε·mean|x|, each x − mean by that plus
// ε|x − mean|, the variance (a sum of cols squares) by about (cols+4)ε relatively, so r by half of
// that; bound (cols+8)ε·|g|·r·(|x − mean| + 2·mean|x|) + 2ε(|b| + |out|).
void check_f32_layer_norm(const KernelTable& kt) {
    Rng rng(211);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t cols = kTailSizes[a], rows = a % 5 + 1, pad = a % 3;
        Mat X = uniform_matrix(rows, cols, rng, -2, 2, pad);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t t = 0; t < cols; ++t) X(i, t) += static_cast<float>(i) * 3.0f;  // row offsets
        const Mat g = uniform_matrix(1, cols, rng, -2, 2), b = uniform_matrix(1, cols, rng, -1, 1);
        const float eps = a % 2 ? 1e-6f : 1e-3f;
        Mat out(rows, cols, pad, 7777.0f), outs(rows, cols, pad, 7777.0f);
        kt.layer_norm(rows, cols, X.data(), X.stride, g.data(), b.data(), eps, out.data(), out.stride);
        scalar_table().layer_norm(rows, cols, X.data(), X.stride, g.data(), b.data(), eps, outs.data(), outs.stride);
        RefMatrix ref(rows, cols);
        for (std::size_t i = 0; i < rows; ++i) {
            double mean = 0.0, mabs = 0.0, var = 0.0;
            for (std::size_t t = 0; t < cols; ++t) { mean += X(i, t); mabs += std::fabs(X(i, t)); }
            mean /= static_cast<double>(cols);
            mabs /= static_cast<double>(cols);
            for (std::size_t t = 0; t < cols; ++t) var += (X(i, t) - mean) * (X(i, t) - mean);
            const double r = 1.0 / std::sqrt(var / static_cast<double>(cols) + static_cast<double>(eps));
            for (std::size_t t = 0; t < cols; ++t) {
                const double dev = X(i, t) - mean, o = g(0, t) * r * dev + b(0, t);
                ref.at(i, t) = o;
                ref.tol_at(i, t) = (static_cast<double>(cols) + 8.0) * kEps * std::fabs(g(0, t)) * r * (std::fabs(dev) + 2.0 * mabs) +
                                   2.0 * kEps * (std::fabs(b(0, t)) + std::fabs(o));
            }
        }
        check_both(out, outs, ref, shape_label(rows, cols, 0, pad));
        // In place (out aliasing X) gives the same numbers.
        Mat inplace = X;
        kt.layer_norm(rows, cols, inplace.data(), inplace.stride, g.data(), b.data(), eps, inplace.data(), inplace.stride);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t t = 0; t < cols; ++t) CHECK(inplace(i, t) == out(i, t));
    }
}

// Bias + activation: one rounded addition (bound ε|y + b|), then nothing (none), max(·, 0) (relu; NaN
// stays NaN), or tanh (a few ulps: 4e-7 relatively, as the additive score's tanh is held to).
void check_f32_bias_activation(const KernelTable& kt) {
    Rng rng(223);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t cols = kTailSizes[a], rows = a % 4 + 1, pad = a % 3;
        const Mat Y0 = uniform_matrix(rows, cols, rng, -6, 6, pad);
        const Mat bias = uniform_matrix(1, cols, rng, -1, 1);
        for (auto act : {kernels::Activation::none, kernels::Activation::relu, kernels::Activation::tanh, kernels::Activation::gelu}) {
            Mat Y = Y0, Ys = Y0;
            kt.bias_activation(rows, cols, Y.data(), Y.stride, bias.data(), act);
            scalar_table().bias_activation(rows, cols, Ys.data(), Ys.stride, bias.data(), act);
            RefMatrix ref(rows, cols);
            for (std::size_t i = 0; i < rows; ++i)
                for (std::size_t t = 0; t < cols; ++t) {
                    const double v = static_cast<double>(Y0(i, t)) + bias(0, t);
                    const double o = act == kernels::Activation::none   ? v
                                     : act == kernels::Activation::relu ? std::max(v, 0.0)
                                     : act == kernels::Activation::tanh ? std::tanh(v)
                                                                        : 0.5 * v * std::erfc(-v / std::sqrt(2.0));
                    ref.at(i, t) = o;
                    if (act == kernels::Activation::tanh) {
                        ref.tol_at(i, t) = kEps * std::fabs(v) * (1.0 - o * o) + 4e-7 * std::fabs(o) + 1e-38;
                    } else if (act == kernels::Activation::gelu) {
                        // the rounded input (ε|v|, times |gelu'| <= 1.13), the argument's product and erfc (a
                        // few ulps: 1e-6 relatively, as the tanh above is held to 4e-7), the two products
                        ref.tol_at(i, t) = 2.0 * kEps * std::fabs(v) * 1.13 + 1e-6 * std::fabs(o) +
                                           std::fabs(v) * kEps * std::fabs(v) * std::exp(-0.5 * v * v) + 4.0 * kEps * std::fabs(o) + 1e-38;
                    } else {
                        ref.tol_at(i, t) = kEps * std::fabs(v);
                    }
                }
            check_both(Y, Ys, ref, shape_label(rows, cols, 0, pad) + " act=" + std::to_string(static_cast<int>(act)));
        }
        Mat nan = Y0;
        nan(0, 0) = kNaN;
        kt.bias_activation(rows, cols, nan.data(), nan.stride, bias.data(), kernels::Activation::relu);
        CHECK(std::isnan(nan(0, 0)));
    }
}

// Layer norm's backward pass: rows with offsets (so the mean matters), gains of both signs, dX starting
// from nonzero values (the kernel adds). Each output is a few sums of cols (or rows) terms, each term
// carrying the forward's error in x̂ ((cols+8)ε relatively, plus the mean's (cols+1)ε·mean|x|·r):
// bound 2(cols+rows+8)ε times the sum of the terms' magnitudes, plus ε|out| for the final addition.
void check_f32_layer_norm_backward(const KernelTable& kt) {
    Rng rng(227);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t cols = kTailSizes[a], rows = a % 5 + 1, pad = a % 3;
        Mat X = uniform_matrix(rows, cols, rng, -2, 2, pad);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t t = 0; t < cols; ++t) X(i, t) += static_cast<float>(i) * 3.0f;
        const Mat g = uniform_matrix(1, cols, rng, -2, 2), dY = uniform_matrix(rows, cols, rng, -1, 1, pad + 1);
        const Mat dX0 = uniform_matrix(rows, cols, rng, -1, 1, pad), dg0 = uniform_matrix(1, cols, rng, -1, 1),
                  db0 = uniform_matrix(1, cols, rng, -1, 1);
        const float eps = a % 2 ? 1e-5f : 1e-3f;
        Mat dX = dX0, dXs = dX0, dg = dg0, dgs = dg0, db = db0, dbs = db0;
        kt.layer_norm_backward(rows, cols, X.data(), X.stride, g.data(), eps, dY.data(), dY.stride, dX.data(), dX.stride,
                               dg.data(), db.data());
        scalar_table().layer_norm_backward(rows, cols, X.data(), X.stride, g.data(), eps, dY.data(), dY.stride, dXs.data(),
                                           dXs.stride, dgs.data(), dbs.data());
        RefMatrix rX(rows, cols), rg(1, cols), rb(1, cols);
        const double K = 2.0 * (static_cast<double>(cols + rows) + 8.0) * kEps;
        for (std::size_t t = 0; t < cols; ++t) {
            rg.at(0, t) = dg0(0, t);
            rb.at(0, t) = db0(0, t);
        }
        for (std::size_t i = 0; i < rows; ++i) {
            double mean = 0.0, mabs = 0.0, var = 0.0;
            for (std::size_t t = 0; t < cols; ++t) { mean += X(i, t); mabs += std::fabs(X(i, t)); }
            mean /= static_cast<double>(cols);
            mabs /= static_cast<double>(cols);
            for (std::size_t t = 0; t < cols; ++t) var += (X(i, t) - mean) * (X(i, t) - mean);
            const double r = 1.0 / std::sqrt(var / static_cast<double>(cols) + static_cast<double>(eps));
            double m1 = 0.0, m2 = 0.0, a1 = 0.0, a2 = 0.0;
            for (std::size_t t = 0; t < cols; ++t) {
                const double gdy = static_cast<double>(g(0, t)) * dY(i, t), xh = (X(i, t) - mean) * r;
                m1 += gdy;
                m2 += gdy * xh;
                a1 += std::fabs(gdy);
                a2 += std::fabs(gdy) * (std::fabs(xh) + mabs * r);
            }
            m1 /= static_cast<double>(cols);
            m2 /= static_cast<double>(cols);
            a1 /= static_cast<double>(cols);
            a2 /= static_cast<double>(cols);
            for (std::size_t t = 0; t < cols; ++t) {
                const double xh = (X(i, t) - mean) * r, gdy = static_cast<double>(g(0, t)) * dY(i, t);
                const double o = dX0(i, t) + r * (gdy - m1 - xh * m2);
                rX.at(i, t) = o;
                rX.tol_at(i, t) = K * r * (std::fabs(gdy) + a1 + (std::fabs(xh) + mabs * r) * a2 + std::fabs(m2) * mabs * r) +
                                  2.0 * kEps * std::fabs(o);
                rg.at(0, t) += static_cast<double>(dY(i, t)) * xh;
                rg.tol_at(0, t) += K * std::fabs(dY(i, t)) * (std::fabs(xh) + mabs * r);
                rb.at(0, t) += dY(i, t);
                rb.tol_at(0, t) += K * std::fabs(dY(i, t));
            }
        }
        for (std::size_t t = 0; t < cols; ++t) {
            rg.tol_at(0, t) += 2.0 * kEps * std::fabs(rg.at(0, t)) + K * std::fabs(dg0(0, t));
            rb.tol_at(0, t) += 2.0 * kEps * std::fabs(rb.at(0, t)) + K * std::fabs(db0(0, t));
        }
        const std::string where = shape_label(rows, cols, 0, pad);
        check_both(dX, dXs, rX, where + " dX");
        check_both(dg, dgs, rg, where + " dg");
        check_both(db, dbs, rb, where + " db");
    }
}

// GELU's backward pass: dY ⊙ (Φ(x) + x φ(x)) over inputs in [−6, 6] (both tails) with upstream
// gradients of both signs. erfc and exp err by a few ulps (1e-6 relatively, as bias_activation's
// gelu is held to), the products and the sum by 4ε: bound 2e-6 |dy| (Φ + |x| φ) + 4ε |out|.
void check_f32_gelu_backward(const KernelTable& kt) {
    Rng rng(229);
    for (std::size_t a = 0; a < kTailSizes.size(); ++a) {
        const std::size_t cols = kTailSizes[a], rows = a % 4 + 1, pad = a % 3;
        const Mat X = uniform_matrix(rows, cols, rng, -6, 6, pad), dY0 = uniform_matrix(rows, cols, rng, -1, 1, pad + 1);
        Mat dY = dY0, dYs = dY0;
        kt.gelu_backward(rows, cols, X.data(), X.stride, dY.data(), dY.stride);
        scalar_table().gelu_backward(rows, cols, X.data(), X.stride, dYs.data(), dYs.stride);
        RefMatrix ref(rows, cols);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t t = 0; t < cols; ++t) {
                const double x = X(i, t), cdf = 0.5 * std::erfc(-x / std::sqrt(2.0)),
                             pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.14159265358979323846);
                const double o = dY0(i, t) * (cdf + x * pdf);
                ref.at(i, t) = o;
                ref.tol_at(i, t) = 2e-6 * std::fabs(dY0(i, t)) * (cdf + std::fabs(x) * pdf) + 4.0 * kEps * std::fabs(o) + 1e-38;
            }
        check_both(dY, dYs, ref, shape_label(rows, cols, 0, pad));
    }
}

// A compile-time guard: every op in the manifest needs a check_f32_<op> above, so a kernel op added
// to manifest.hpp without a test does not build.
#define ATTNSCOPE_REQUIRE_CHECK(op) \
    static_assert(sizeof(&check_f32_##op) > 0, "kernel op " #op " has no test in test_kernels.cpp");
ATTNSCOPE_KERNEL_OPS(ATTNSCOPE_REQUIRE_CHECK)
#undef ATTNSCOPE_REQUIRE_CHECK

}  // namespace

// One test case per op, one section per variant of the manifest.
#define ATTNSCOPE_VARIANT_SECTIONS(op)                              \
    for (const KernelTable* t : kernels::all_variants())            \
        DYNAMIC_SECTION("f32_" #op "__" << t->name << " (" << t->isa << ")") { check_f32_##op(*t); }

TEST_CASE("f32_gemm_nt", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(gemm_nt) }
TEST_CASE("f32_gemm_nn", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(gemm_nn) }
TEST_CASE("f32_row_sumsq", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(row_sumsq) }
TEST_CASE("f32_cosine_epilogue", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(cosine_epilogue) }
TEST_CASE("f32_sq_euclidean_epilogue", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(sq_euclidean_epilogue) }
TEST_CASE("f32_euclidean_epilogue", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(euclidean_epilogue) }
TEST_CASE("f32_idw_epilogue", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(idw_epilogue) }
TEST_CASE("f32_cancelled_keys", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(cancelled_keys) }
TEST_CASE("f32_distance_row", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(distance_row) }
TEST_CASE("f32_neg_manhattan", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(neg_manhattan) }
TEST_CASE("f32_additive", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(additive) }
TEST_CASE("f32_softmax_rows", "[kernels]") { ATTNSCOPE_VARIANT_SECTIONS(softmax_rows) }
TEST_CASE("f32_gemm_tn", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(gemm_tn) }
TEST_CASE("f32_softmax_backward_rows", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(softmax_backward_rows) }
TEST_CASE("f32_sq_distances", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(sq_distances) }
TEST_CASE("f32_additive_backward", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(additive_backward) }
TEST_CASE("f32_manhattan_backward", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(manhattan_backward) }
TEST_CASE("f32_layer_norm_backward", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(layer_norm_backward) }
TEST_CASE("f32_gelu_backward", "[kernels][backward]") { ATTNSCOPE_VARIANT_SECTIONS(gelu_backward) }
TEST_CASE("f32_attention_fused", "[kernels][fused]") { ATTNSCOPE_VARIANT_SECTIONS(attention_fused) }
TEST_CASE("f32_layer_norm", "[kernels][model]") { ATTNSCOPE_VARIANT_SECTIONS(layer_norm) }
TEST_CASE("f32_bias_activation", "[kernels][model]") { ATTNSCOPE_VARIANT_SECTIONS(bias_activation) }

// The conventions of kernels.hpp for rows holding −inf, +inf or NaN, with the special value at every
// position of rows whose length reaches the vector body and the scalar tail.
TEST_CASE("f32_softmax_rows: -inf, +inf and NaN conventions", "[kernels][softmax]") {
    for (const KernelTable* t : kernels::all_variants())
        DYNAMIC_SECTION("f32_softmax_rows__" << t->name) {
            Rng rng(140);
            for (std::size_t cols : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17}) {
                for (std::size_t pos = 0; pos < cols; ++pos) {
                    INFO("cols=" << cols << " special at " << pos);
                    Mat S = uniform_matrix(6, cols, rng, -3, 3, 1);
                    S(0, pos) = -kInf;                         // row 0: one −inf
                    for (std::size_t j = 0; j < cols; ++j) S(1, j) = -kInf;  // row 1: all −inf
                    for (std::size_t j = 0; j < cols; ++j) S(2, j) = j == pos ? 0.5f : -kInf;  // one finite
                    S(3, pos) = kInf;                          // row 3: +inf at pos and at the last column
                    S(3, cols - 1) = kInf;
                    S(4, pos) = kNaN;                          // row 4: a NaN
                    S(5, pos) = -kInf;                         // row 5: −inf and +inf
                    S(5, (pos + 1) % cols) = kInf;
                    Mat Wt(6, cols, 1, 7777.0f);
                    t->softmax_rows(6, cols, S.data(), S.stride, 1.0f, Wt.data(), Wt.stride);

                    // −inf gets exactly 0 (this runs xsimd::exp(−inf) in the SIMD body), and the rest
                    // is the softmax of the finite entries.
                    RefMatrix s(1, cols);
                    for (std::size_t j = 0; j < cols; ++j) s.at(0, j) = S(0, j);
                    const RefMatrix ref = ref_softmax(s, 1.0);
                    Checker row0("row with one -inf");
                    for (std::size_t j = 0; j < cols; ++j) row0(Wt(0, j), ref.at(0, j), ref.tol_at(0, j), 0, j);
                    ATTNSCOPE_CHECK_ALL(row0);
                    CHECK(Wt(0, pos) == 0.0f);

                    const std::size_t n_inf = pos == cols - 1 ? 1 : 2;
                    bool all_zero = true, one_hot = true, inf_share = true, all_nan = true, inf_wins = true;
                    for (std::size_t j = 0; j < cols; ++j) {
                        all_zero = all_zero && Wt(1, j) == 0.0f;  // also false for NaN
                        one_hot = one_hot && Wt(2, j) == (j == pos ? 1.0f : 0.0f);
                        const bool is_inf = j == pos || j == cols - 1;
                        inf_share = inf_share && Wt(3, j) == (is_inf ? 1.0f / static_cast<float>(n_inf) : 0.0f);
                        all_nan = all_nan && std::isnan(Wt(4, j));
                        const bool plus = j == (pos + 1) % cols;
                        inf_wins = inf_wins && Wt(5, j) == (plus ? 1.0f : 0.0f);
                    }
                    CHECK(all_zero);
                    CHECK(one_hot);
                    CHECK(inf_share);
                    CHECK(all_nan);
                    if (cols > 1) CHECK(inf_wins);
                    CHECK(Wt.padding_intact());
                }
            }
        }
}

// The SIMD softmax relies on xsimd::exp(−inf) = 0 for masked keys and the idw epilogue on
// xsimd::log(0) = −inf and exp(−inf) = 0; checked here on the batch type the kernels use.
TEST_CASE("xsimd::exp and xsimd::log at the edges the kernels rely on", "[kernels][simd]") {
    using batch = xsimd::batch<float>;
    alignas(64) float out[batch::size];
    xsimd::exp(batch(-kInf)).store_aligned(out);
    for (float x : out) CHECK(x == 0.0f);
    xsimd::exp(batch(-200.0f)).store_aligned(out);
    for (float x : out) CHECK(x == 0.0f);
    xsimd::exp(batch(0.0f)).store_aligned(out);
    for (float x : out) CHECK(x == 1.0f);
    xsimd::log(batch(0.0f)).store_aligned(out);
    for (float x : out) CHECK(x == -kInf);
    xsimd::exp(batch(1.5f) * xsimd::log(batch(0.0f))).store_aligned(out);
    for (float x : out) CHECK(x == 0.0f);
}

TEST_CASE("dispatch: parse_variant, kernels_for, resolved_variant_name, variant_names", "[dispatch]") {
    Variant v = Variant::scalar;
    CHECK(parse_variant("auto", v));
    CHECK(v == Variant::automatic);
    CHECK(parse_variant("scalar", v));
    CHECK(v == Variant::scalar);
    CHECK(parse_variant("simd", v));
    CHECK(v == Variant::simd);
    v = Variant::scalar;
    for (const char* bad : {"", "SIMD", "Auto", "avx2", "simd ", "scalar\n"}) {
        INFO("name '" << bad << "'");
        CHECK_FALSE(parse_variant(bad, v));
        CHECK(v == Variant::scalar);  // untouched on failure
    }

    // `auto` is SIMD where it was built, and says so.
    CHECK(&kernels_for(Variant::automatic) == &kernels_for(Variant::simd));
    CHECK(&kernels_for(Variant::scalar) != &kernels_for(Variant::simd));
    CHECK(std::string(resolved_variant_name(Variant::automatic)) == "simd");
    CHECK(std::string(resolved_variant_name(Variant::simd)) == "simd");
    CHECK(std::string(resolved_variant_name(Variant::scalar)) == "scalar");
    CHECK(std::string(kernels_for(Variant::scalar).name) == "scalar");
    CHECK(std::string(simd_isa()) == kernels_for(Variant::simd).isa);
    CHECK_FALSE(std::string(simd_isa()).empty());

    // variant_names lists every table of the manifest, in order, and parses back.
    const std::vector<std::string> names = variant_names();
    REQUIRE(names.size() == kernels::all_variants().size());
    CHECK(names == std::vector<std::string>{"scalar", "simd"});
    for (std::size_t i = 0; i < names.size(); ++i) {
        CHECK(names[i] == kernels::all_variants()[i]->name);
        Variant parsed;
        CHECK(parse_variant(names[i], parsed));
        CHECK(&kernels_for(parsed) == kernels::all_variants()[i]);
    }
}

// The SIMD variant computes tanh and exp with its own polynomials (src/kernels/simd.cpp): check them
// one element at a time over the whole range they meet, against float64 std::tanh / std::exp.
TEST_CASE("f32_additive: tanh over its whole range, element by element", "[kernels][additive]") {
    for (const KernelTable* t : kernels::all_variants())
        DYNAMIC_SECTION("f32_additive__" << t->name) {
            // a + b = x for one hidden unit and v = 1, so S = tanh(x); 8 units per row to hit the
            // vector body (h = 8) as well as the scalar tail (h = 1).
            std::vector<float> xs;
            for (float m : {0.0f, 1e-30f, 1e-7f, 1e-4f, 0.01f, 0.3f, 0.6f, 0.624f, 0.625f, 0.626f, 0.9f, 1.0f,
                            2.0f, 5.0f, 9.0f, 10.0f, 20.0f, 44.0f, 100.0f, 1e30f})
                for (float sgn : {1.0f, -1.0f}) xs.push_back(sgn * m);
            Rng rng(7);
            for (int i = 0; i < 2000; ++i) xs.push_back(rng.uniform(-12.0, 12.0));
            for (std::size_t h : {1u, 8u}) {
                INFO("h=" << h);
                const std::vector<float> v(h, 0.0f);
                for (float x : xs) {
                    std::vector<float> a(h, 0.0f), b(h, 0.0f), vv(v);
                    a[h - 1] = x;  // the last unit: the scalar tail for h = 1, the vector body for h = 8
                    vv[h - 1] = 1.0f;
                    float s = 0.0f;
                    t->additive(1, 1, h, a.data(), h, b.data(), h, vv.data(), &s, 1);
                    const double ref = std::tanh(static_cast<double>(x));
                    INFO("x=" << x);
                    // A few float ulps of the result, and of |x| below the smallest normal result.
                    CHECK(std::fabs(s - ref) <= 4e-7 * std::fabs(ref) + 1e-38);
                }
                std::vector<float> a(h, 0.0f), b(h, 0.0f), vv(h, 1.0f);
                a[h - 1] = kNaN;
                float s = 0.0f;
                t->additive(1, 1, h, a.data(), h, b.data(), h, vv.data(), &s, 1);
                CHECK(std::isnan(s));
            }
        }
}

TEST_CASE("f32_softmax_rows: exponentials across the float range", "[kernels][softmax]") {
    for (const KernelTable* t : kernels::all_variants())
        DYNAMIC_SECTION("f32_softmax_rows__" << t->name) {
            // Two entries per row: 0 (the max) and -x, so the smaller weight is e^-x / (1 + e^-x).
            for (double x = 0.0; x < 110.0; x += 0.37) {
                const float S[8] = {0.0f, static_cast<float>(-x), -1e30f, -1e30f, -1e30f, -1e30f, -1e30f, -1e30f};
                float Wt[8];
                t->softmax_rows(1, 8, S, 8, 1.0f, Wt, 8);
                const double e = std::exp(-static_cast<double>(static_cast<float>(x)));
                INFO("x=" << x);
                // Relative to the weight where it is normal; below FLT_MIN the SIMD variant flushes to 0.
                CHECK(std::fabs(Wt[1] - e / (1.0 + e)) <= 1e-6 * (e / (1.0 + e)) + 1.2e-38);
                CHECK(Wt[2] == 0.0f);
            }
        }
}

// The distance kernels' hook for exact distances: where the identity cancels (here an exact match,
// query 0 = key 2), the score comes from `direct`, in every variant.
TEST_CASE("f32_attention_fused: direct scores where the distance identity cancels", "[kernels][fused]") {
    Rng rng(150);
    const std::size_t nq = 3, nk = 5, d = 4, dv = 2;
    Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng), V = uniform_matrix(nk, dv, rng);
    for (std::size_t t = 0; t < d; ++t) Q(0, t) = K(2, t);
    std::vector<float> qq(nq), kk(nk);
    scalar_table().row_sumsq(nq, d, Q.data(), Q.stride, qq.data());
    scalar_table().row_sumsq(nk, d, K.data(), K.stride, kk.data());
    struct Calls { std::vector<std::pair<std::size_t, std::size_t>> seen; } calls;
    for (const KernelTable* t : kernels::all_variants()) {
        INFO("variant " << t->name);
        calls.seen.clear();
        kernels::FusedAttentionArgs f;
        f.nq = nq; f.nk = nk; f.d = d; f.dv = dv;
        f.Q = Q.data(); f.ldq = Q.stride; f.K = K.data(); f.ldk = K.stride; f.V = V.data(); f.ldv = V.stride;
        f.score = kernels::FusedScore::sq_euclidean;
        f.qa = qq.data();
        f.kb = kk.data();
        f.cancel_fraction = 0.25f;
        f.direct_ctx = &calls;
        f.direct = [](const void* ctx, std::size_t i, std::size_t j) {
            const_cast<Calls*>(static_cast<const Calls*>(ctx))->seen.emplace_back(i, j);
            return 30.0f;  // far above every real score (<= 0): key 2 takes all of query 0's weight
        };
        Mat O(nq, dv);
        f.O = O.data();
        f.ldo = O.stride;
        t->attention_fused(f);
        CHECK(std::find(calls.seen.begin(), calls.seen.end(), std::make_pair(std::size_t{0}, std::size_t{2})) !=
              calls.seen.end());
        for (std::size_t c = 0; c < dv; ++c) CHECK(O(0, c) == Approx(V(2, c)).margin(1e-6));
    }
}
