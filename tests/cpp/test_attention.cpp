// attention and multi_head_attention: a hand-computed case, every score through the whole chain
// against float64, convex combinations of V, the experimental scaled output, multi-head splitting,
// projections, cross-attention, per-head parameters, and the error messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/variant.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

struct Result {
    Mat S, A, O;
    std::vector<RowStats> stats;
};

Status run_attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& o, Result& r) {
    r.S = Mat(Q.rows, K.rows, 1, 7777.0f);
    r.A = Mat(Q.rows, K.rows, 2, 7777.0f);
    r.O = Mat(Q.rows, V.cols, 1, 7777.0f);
    r.stats.assign(Q.rows, RowStats{});
    return attention(Q.view(), K.view(), V.view(), o, r.S.mview(), r.A.mview(), r.O.mview(), r.stats.data());
}

Result attend(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& o) {
    Result r;
    const Status st = run_attention(Q, K, V, o, r);
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(r.S.padding_intact());
    CHECK(r.A.padding_intact());
    CHECK(r.O.padding_intact());
    return r;
}

bool same(ConstMatrix a, ConstMatrix b) {
    if (a.rows != b.rows || a.cols != b.cols) return false;
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t j = 0; j < a.cols; ++j)
            if (!(a(i, j) == b(i, j))) return false;
    return true;
}

// H heads with projections W_q, W_k [. x H·dh] and W_v [. x H·dv].
MultiHeadOptions projected(std::size_t H, const Mat& Wq, const Mat& Wk, const Mat& Wv, std::size_t dh, std::size_t dv) {
    MultiHeadOptions o;
    o.heads = H;
    o.Wq = Wq.data();
    o.Wk = Wk.data();
    o.Wv = Wv.data();
    o.d_head = dh;
    o.d_value = dv;
    return o;
}

}  // namespace

TEST_CASE("attention: a hand-computed case", "[attention]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            // Scores (dot): query 0 → [0, ln 3] → weights [1/4, 3/4]; query 1 → [0, 0] → [1/2, 1/2].
            const Mat Q = from_rows({{1, 0}, {0, 1}});
            const Mat K = from_rows({{0, 0}, {std::log(3.0f), 0}});
            const Mat V = from_rows({{4, 0}, {0, 8}});
            AttentionOptions o;
            o.score = Score::dot;
            o.variant = variant;
            const Result r = attend(Q, K, V, o);
            const auto approx = [](double x) { return Approx(x).epsilon(1e-6).margin(1e-6); };
            CHECK(r.A(0, 0) == approx(0.25));
            CHECK(r.A(0, 1) == approx(0.75));
            CHECK(r.A(1, 0) == 0.5f);
            CHECK(r.A(1, 1) == 0.5f);
            CHECK(r.O(0, 0) == approx(1));
            CHECK(r.O(0, 1) == approx(6));
            CHECK(r.O(1, 0) == approx(2));
            CHECK(r.O(1, 1) == approx(4));
            CHECK(r.S(0, 1) == std::log(3.0f));
            CHECK(r.stats[0].argmax == 1);
            CHECK(r.stats[0].max_weight == approx(0.75));
            CHECK(r.stats[0].entropy == approx(-(0.25 * std::log(0.25) + 0.75 * std::log(0.75))));
            CHECK(r.stats[1].entropy == approx(std::log(2.0)));
            CHECK(r.stats[1].argmax == 0);
        }
}

// The whole chain against float64: S from ref_scores, A from ref_softmax of the masked S, O from
// ref_weighted_sum, each bound carried from the previous one (test_util.hpp).
TEST_CASE("attention: every score, masks and temperatures against float64", "[attention]") {
    struct Case {
        std::size_t nq, nk, d, dv;
        Mask mask;
        bool padding;
        float tau;
    };
    const Case cases[] = {{1, 1, 1, 1, Mask::none, false, 1.0f},   {3, 5, 7, 2, Mask::none, true, 0.5f},
                          {8, 8, 16, 5, Mask::causal, false, 1.0f}, {17, 9, 33, 17, Mask::causal, true, 2.0f},
                          {5, 40, 64, 3, Mask::none, false, 0.1f},  {12, 12, 5, 8, Mask::causal, true, 1.0f}};
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(500 + static_cast<std::uint32_t>(info.id));
                for (const Case& c : cases) {
                    const Mat Q = uniform_matrix(c.nq, c.d, rng), K = uniform_matrix(c.nk, c.d, rng);
                    const Mat V = uniform_matrix(c.nk, c.dv, rng, -2, 2, 1);
                    RandomParams rp(rng, c.d, c.d, c.nk);
                    std::vector<std::uint8_t> pad(c.nk, 0);
                    if (c.padding)
                        for (std::size_t j = 0; j < c.nk; ++j) pad[j] = j % 4 == 1;
                    AttentionOptions o;
                    o.score = info.id;
                    o.params = rp.p;
                    o.temperature = c.tau;
                    o.mask = c.mask;
                    o.key_padding = c.padding ? pad.data() : nullptr;
                    o.variant = variant;
                    const Result r = attend(Q, K, V, o);

                    RefMatrix s = ref_scores(info.id, Q.view(), K.view(), rp.p);
                    const Checker cs = compare(r.S.view(), s, "S");
                    apply_mask(s, c.mask, o.key_padding);
                    const RefMatrix a = ref_softmax(s, 1.0 / c.tau);
                    const Checker ca = compare(r.A.view(), a, "A");
                    const Checker co = compare(r.O.view(), ref_weighted_sum(a, V.view()), "O");
                    INFO("nq=" << c.nq << " nk=" << c.nk << " d=" << c.d << " dv=" << c.dv << " tau=" << c.tau);
                    ATTNSCOPE_CHECK_ALL(cs);
                    ATTNSCOPE_CHECK_ALL(ca);
                    ATTNSCOPE_CHECK_ALL(co);

                    // The stats are those of A (the entropy from the scores: to float rounding of the direct sum).
                    const std::vector<RowStats> want = row_stats(r.A.view());
                    for (std::size_t i = 0; i < c.nq; ++i) {
                        CHECK(r.stats[i].entropy == Approx(want[i].entropy).margin(1e-5));
                        CHECK(r.stats[i].max_weight == want[i].max_weight);
                        CHECK(r.stats[i].argmax == want[i].argmax);
                    }
                }
            }
}

// A long call runs in blocks of query rows (attention.cpp, row_block: 64 rows at 2,100 keys); its
// scores, weights, output and statistics are those of one pass over the whole matrices, bit for bit:
// the same steps (compute_scores, masked_softmax, A V, row_stats) called here on everything at once.
TEST_CASE("attention: a long call in blocks of query rows equals one pass bit for bit", "[attention]") {
    auto same_bits = [](const Tensor& a, const Tensor& b) {
        return a.values.size() == b.values.size() &&
               std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) == 0;
    };
    const std::size_t nq = 150, nk = 2100, d = 8, dv = 5;  // blocks of 64, 64 and 22 rows
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos()) {
            if (info.id == Score::additive) continue;  // one pass (attention.cpp says why)
            for (Mask mask : {Mask::none, Mask::causal})
                DYNAMIC_SECTION(info.name << ", variant " << vname << ", mask " << static_cast<int>(mask)) {
                    Rng rng(960 + static_cast<std::uint32_t>(info.id));
                    const Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng), V = uniform_matrix(nk, dv, rng);
                    const RandomParams rp(rng, d, d, nk);
                    std::vector<std::uint8_t> pad(nk, 0);
                    for (std::size_t j = 0; j < nk; ++j) pad[j] = j % 7 == 2;
                    AttentionOptions o;
                    o.score = info.id;
                    o.params = rp.p;
                    o.temperature = 0.6f;
                    o.mask = mask;
                    o.key_padding = pad.data();
                    o.variant = variant;
                    o.query_offset = mask == Mask::causal ? 1000 : 0;  // rows past some keys, before others
                    Tensor S(nq, nk), A(nq, nk), O(nq, dv);
                    std::vector<RowStats> stats(nq);
                    REQUIRE(attention(Q.view(), K.view(), V.view(), o, S.view(), A.view(), O.view(), stats.data()).ok());

                    Tensor S1(nq, nk), A1(nq, nk), O1(nq, dv);
                    REQUIRE(compute_scores(info.id, Q.view(), K.view(), rp.p, S1.view(), variant).ok());
                    SoftmaxOptions so;
                    so.temperature = o.temperature;
                    so.mask = mask;
                    so.key_padding = pad.data();
                    so.variant = variant;
                    so.query_offset = o.query_offset;
                    REQUIRE(masked_softmax(S1.view(), so, A1.view()).ok());
                    kernels_for(variant).gemm_nn(nq, dv, nk, A1.values.data(), nk, V.data(), V.stride, O1.values.data(), dv);
                    float inv_tau = 0.0f;
                    REQUIRE(inverse_temperature(o.temperature, inv_tau).ok());
                    const std::vector<RowStats> stats1 = row_stats(A1.view(), S1.view(), inv_tau, [](std::size_t) { return false; });
                    CHECK(same_bits(S, S1));
                    CHECK(same_bits(A, A1));
                    CHECK(same_bits(O, O1));
                    for (std::size_t i = 0; i < nq; ++i) {
                        INFO("row " << i);
                        CHECK(stats[i].entropy == stats1[i].entropy);
                        CHECK(stats[i].max_weight == stats1[i].max_weight);
                        CHECK(stats[i].argmax == stats1[i].argmax);
                    }
                }
        }
}

// Rows of A sum to 1 and each output row is a convex combination of the rows of V, so every
// coordinate lies between the column's min and max over V. With rounding: Σ_j a_j = 1 ± (n+2)ε
// (test_softmax.cpp), so Σ a_j V_jc lies within (n+2)ε·max|V_c| of [min V_c, max V_c], and the float
// sum adds ≤ (n+1)ε Σ a_j |V_jc|: tolerance (2n + 4)ε · max_j |V_jc|.
TEST_CASE("attention: rows sum to 1 and outputs lie in the convex hull of V", "[attention][property]") {
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(600 + static_cast<std::uint32_t>(info.id));
                for (std::size_t nk : {1, 2, 5, 16, 31, 100}) {
                    const std::size_t nq = 7, d = 9, dv = 6;
                    const Mat Q = uniform_matrix(nq, d, rng, -3, 3), K = uniform_matrix(nk, d, rng, -3, 3);
                    const Mat V = uniform_matrix(nk, dv, rng, -5, 5);
                    RandomParams rp(rng, d, d, nk);
                    AttentionOptions o;
                    o.score = info.id;
                    o.params = rp.p;
                    o.temperature = 0.7f;
                    o.variant = variant;
                    const Result r = attend(Q, K, V, o);
                    const double n = static_cast<double>(nk);
                    bool inside = true, sums = true;
                    for (std::size_t i = 0; i < nq; ++i) {
                        double s = 0.0;
                        for (std::size_t j = 0; j < nk; ++j) s += r.A(i, j);
                        sums = sums && std::fabs(s - 1.0) <= (n + 2.0) * kEps;
                        for (std::size_t c = 0; c < dv; ++c) {
                            double lo = V(0, c), hi = V(0, c), mag = 0.0;
                            for (std::size_t j = 0; j < nk; ++j) {
                                lo = std::min<double>(lo, V(j, c));
                                hi = std::max<double>(hi, V(j, c));
                                mag = std::max<double>(mag, std::fabs(V(j, c)));
                            }
                            const double tol = (2.0 * n + 4.0) * kEps * mag;
                            inside = inside && r.O(i, c) >= lo - tol && r.O(i, c) <= hi + tol;
                        }
                    }
                    INFO("nk=" << nk);
                    CHECK(sums);
                    CHECK(inside);
                }
            }
}

// The experimental "more symmetric" output O = (A V W_extra)/√d_v: the formula against float64, and a
// case where it leaves the convex hull of V — with W_extra = I already, since it divides by √d_v.
TEST_CASE("attention: the experimental scaled output can leave the convex hull of V", "[attention][experimental]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(700);
            const std::size_t nq = 3, nk = 5, d = 4, dv = 4;
            const Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng);
            const Mat ones(nk, dv, 0, 1.0f);  // every row of V is (1, 1, 1, 1): the hull is that point
            Mat I(dv, dv);
            for (std::size_t t = 0; t < dv; ++t) I(t, t) = 1.0f;
            AttentionOptions o;
            o.variant = variant;
            const Result plain = attend(Q, K, ones, o);
            o.experimental_scaled_output = true;
            o.W_extra = I.data();
            const Result scaled = attend(Q, K, ones, o);
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t c = 0; c < dv; ++c) {
                    CHECK(plain.O(i, c) == Approx(1.0).epsilon(1e-6));
                    CHECK(scaled.O(i, c) == Approx(0.5).epsilon(1e-6));  // 1/√4: outside {1}
                }
            CHECK(same(plain.A.view(), scaled.A.view()));  // only the output changes

            // Random V and W_extra: O = (A V W) / √d_v. Bound: A V as in ref_weighted_sum, then a
            // second product with W ((dv+1)ε Σ|(AV)_t W_tc| plus the propagated error Σ|Δ(AV)_t||W_tc|),
            // then one more rounding for the scale.
            const Mat V = uniform_matrix(nk, dv, rng, 0, 1), W = uniform_matrix(dv, dv, rng, 2, 3);
            o.W_extra = W.data();
            const Result r = attend(Q, K, V, o);
            RefMatrix s = ref_scores(Score::scaled_dot, Q.view(), K.view(), {});
            const RefMatrix av = ref_weighted_sum(ref_softmax(s, 1.0), V.view());
            RefMatrix want(nq, dv);
            const double scale = 1.0 / std::sqrt(static_cast<double>(dv));
            bool outside = false;
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t c = 0; c < dv; ++c) {
                    double x = 0.0, tol = 0.0, mag = 0.0;
                    for (std::size_t t = 0; t < dv; ++t) {
                        x += av.at(i, t) * W(t, c);
                        tol += av.tol_at(i, t) * std::fabs(W(t, c));
                        mag += std::fabs(av.at(i, t) * W(t, c));
                    }
                    want.at(i, c) = x * scale;
                    want.tol_at(i, c) = (tol + (static_cast<double>(dv) + 3.0) * kEps * mag) * scale;
                    outside = outside || r.O(i, c) > 1.0f;  // V is in [0, 1): so is its hull
                }
            const Checker ch = compare(r.O.view(), want);
            ATTNSCOPE_CHECK_ALL(ch);
            CHECK(outside);
        }
}

TEST_CASE("attention: errors name the argument", "[attention][errors]") {
    Rng rng(800);
    const Mat Q = uniform_matrix(3, 4, rng), K = uniform_matrix(5, 4, rng), V = uniform_matrix(5, 2, rng);
    Result r;
    AttentionOptions o;
    SECTION("shapes") {
        const Mat V4 = uniform_matrix(4, 2, rng);
        CHECK_THAT(run_attention(Q, K, V4, o, r).message(), StartsWith("V:") && Contains("5"));
        Mat S(3, 5), A(3, 5), O(3, 2);
        Mat bad(5, 3);
        CHECK_THAT(attention(Q.view(), K.view(), V.view(), o, S.mview(), bad.mview(), O.mview()).message(), StartsWith("A:"));
        CHECK_THAT(attention(Q.view(), K.view(), V.view(), o, S.mview(), A.mview(), bad.mview()).message(), StartsWith("O:"));
        CHECK_THAT(attention(Q.view(), K.view(), V.view(), o, bad.mview(), A.mview(), O.mview()).message(), StartsWith("S:"));
        const Mat K3 = uniform_matrix(5, 3, rng);
        CHECK_THAT(run_attention(Q, K3, V, o, r).message(), StartsWith("K:"));
        CHECK(attention(Q.view(), K.view(), V.view(), o, S.mview(), A.mview(), O.mview()).ok());  // stats optional
    }
    SECTION("missing score matrices") {
        o.score = Score::general;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("W:"));
        o.score = Score::additive;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("W1, W2, v:"));
        o.score = Score::location;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("Wa:"));
        const Mat Wa = uniform_matrix(4, 4, rng);
        o.params.Wa = Wa.data();
        o.params.max_keys = 4;  // 5 keys
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("Wa:") && Contains("5 keys"));
    }
    SECTION("idw p <= 0, temperature <= 0") {
        o.score = Score::idw;
        o.params.p = 0.0f;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("p:"));
        o.params.p = -2.0f;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("p:"));
        o.params.p = 2.0f;
        o.temperature = 0.0f;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("temperature:"));
        o.temperature = -1.0f;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("temperature:"));
    }
    SECTION("experimental scaled output without W_extra") {
        o.experimental_scaled_output = true;
        CHECK_THAT(run_attention(Q, K, V, o, r).message(), StartsWith("W_extra:"));
    }
}

// ------------------------------------------------------------------------------------------------
// Multi-head attention

TEST_CASE("multi-head: head_columns splits d as evenly as possible", "[multihead]") {
    CHECK(head_columns(10, 3, 0).begin == 0);
    CHECK(head_columns(10, 3, 0).end == 4);
    CHECK(head_columns(10, 3, 1).begin == 4);
    CHECK(head_columns(10, 3, 1).end == 7);
    CHECK(head_columns(10, 3, 2).begin == 7);
    CHECK(head_columns(10, 3, 2).end == 10);
    for (std::size_t d = 1; d <= 40; ++d)
        for (std::size_t heads = 1; heads <= d; ++heads) {
            std::size_t next = 0;
            bool ok = true;
            for (std::size_t h = 0; h < heads; ++h) {
                const ColumnRange r = head_columns(d, heads, h);
                // contiguous, and the first d % heads heads get one column more
                ok = ok && r.begin == next && r.size() == d / heads + (h < d % heads ? 1 : 0);
                next = r.end;
            }
            INFO("d=" << d << " heads=" << heads);
            CHECK((ok && next == d));
        }
}

// With the identity split, head h is single-head attention on columns head_columns(d, H, h) of the
// inputs. The same kernels see the same numbers in the same shapes, so the results are identical
// bit for bit (the kernels do not depend on the row stride).
TEST_CASE("multi-head: identity split, self- and cross-attention, equals single-head on the slices", "[multihead]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(900);
            struct Case {
                std::size_t nq, nk, d, heads;
                Score score;
                Mask mask;
            };
            const Case cases[] = {{6, 6, 10, 3, Score::scaled_dot, Mask::none}, {6, 6, 10, 3, Score::cosine, Mask::causal},
                                  {5, 8, 10, 3, Score::dot, Mask::none},        {4, 9, 12, 4, Score::neg_euclidean, Mask::none},
                                  {7, 3, 5, 5, Score::idw, Mask::causal},       {3, 3, 7, 1, Score::scaled_dot, Mask::none}};
            for (const Case& c : cases) {
                INFO("nq=" << c.nq << " nk=" << c.nk << " d=" << c.d << " heads=" << c.heads << " score "
                           << score_info(c.score).name);
                const Mat Xq = uniform_matrix(c.nq, c.d, rng, -2, 2);
                const Mat Xkv = c.nq == c.nk ? Xq : uniform_matrix(c.nk, c.d, rng, -2, 2);
                MultiHeadOptions o;
                o.heads = c.heads;
                o.attention.score = c.score;
                o.attention.mask = c.mask;
                o.attention.temperature = 0.8f;
                o.attention.variant = variant;
                MultiHeadResult out;
                const Status st = multi_head_attention(Xq.view(), Xkv.view(), o, out);
                INFO(st.message());
                REQUIRE(st.ok());
                REQUIRE(out.heads == c.heads);
                CHECK(out.nq == c.nq);
                CHECK(out.nk == c.nk);
                REQUIRE(out.head_outputs.size() == c.heads);
                CHECK(out.concat.rows == c.nq);
                CHECK(out.concat.cols == c.d);  // the identity split's values add up to d columns
                CHECK(same(out.output.view(), out.concat.view()));  // no W_o: the concatenation
                for (std::size_t h = 0; h < c.heads; ++h) {
                    const ColumnRange r = head_columns(c.d, c.heads, h);
                    const ConstMatrix q(Xq.data() + r.begin, c.nq, r.size(), Xq.stride);
                    const ConstMatrix kv(Xkv.data() + r.begin, c.nk, r.size(), Xkv.stride);
                    CHECK(same(out.q[h].view(), q));
                    CHECK(same(out.k[h].view(), kv));
                    CHECK(same(out.v[h].view(), kv));
                    Tensor S(c.nq, c.nk), A(c.nq, c.nk), O(c.nq, r.size());
                    std::vector<RowStats> rs(c.nq);
                    REQUIRE(attention(q, kv, kv, o.attention, S.view(), A.view(), O.view(), rs.data()).ok());
                    INFO("head " << h << " columns [" << r.begin << ", " << r.end << ")");
                    CHECK(same(out.scores[h].view(), S.view()));
                    CHECK(same(out.weights[h].view(), A.view()));
                    CHECK(same(out.head_outputs[h].view(), O.view()));
                    CHECK(same(ConstMatrix(out.concat.values.data() + r.begin, c.nq, r.size(), c.d), O.view()));
                    REQUIRE(out.stats[h].size() == c.nq);
                    for (std::size_t i = 0; i < c.nq; ++i) CHECK(out.stats[h][i].entropy == rs[i].entropy);
                    if (c.mask == Mask::causal)
                        for (std::size_t i = 0; i < c.nq; ++i)
                            for (std::size_t j = i + 1; j < c.nk; ++j) CHECK(out.weights[h](i, j) == 0.0f);
                }
            }
        }
}

// Projections: head h sees Xq W_q[:, h·d_head ...], Xkv W_k[...], Xkv W_v[:, h·d_value ...]; cross-
// attention with different input widths; W_o maps the concatenation. Projections are checked
// against float64 (dot-product bound), the heads against attention() on the projected matrices
// (identical), and the output against concat·W_o in float64.
TEST_CASE("multi-head: projections, W_o and cross-attention", "[multihead]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(910);
            const std::size_t nq = 5, nk = 7, din_q = 9, din_kv = 6, H = 3, dh = 4, dval = 5, dout = 7;
            const Mat Xq = uniform_matrix(nq, din_q, rng), Xkv = uniform_matrix(nk, din_kv, rng);
            const Mat Wq = uniform_matrix(din_q, H * dh, rng), Wk = uniform_matrix(din_kv, H * dh, rng);
            const Mat Wv = uniform_matrix(din_kv, H * dval, rng), Wo = uniform_matrix(H * dval, dout, rng);
            for (bool with_wo : {false, true}) {
                INFO((with_wo ? "with W_o" : "without W_o"));
                MultiHeadOptions o = projected(H, Wq, Wk, Wv, dh, dval);
                if (with_wo) {
                    o.Wo = Wo.data();
                    o.d_out = dout;
                }
                o.attention.variant = variant;
                MultiHeadResult out;
                const Status st = multi_head_attention(Xq.view(), Xkv.view(), o, out);
                INFO(st.message());
                REQUIRE(st.ok());
                for (std::size_t h = 0; h < H; ++h) {
                    INFO("head " << h);
                    const Checker cq = compare(out.q[h].view(), ref_matmul(Xq.view(), Wq.data() + h * dh, H * dh, dh), "q");
                    const Checker ck = compare(out.k[h].view(), ref_matmul(Xkv.view(), Wk.data() + h * dh, H * dh, dh), "k");
                    const Checker cv = compare(out.v[h].view(), ref_matmul(Xkv.view(), Wv.data() + h * dval, H * dval, dval), "v");
                    ATTNSCOPE_CHECK_ALL(cq);
                    ATTNSCOPE_CHECK_ALL(ck);
                    ATTNSCOPE_CHECK_ALL(cv);
                    Tensor S(nq, nk), A(nq, nk), O(nq, dval);
                    REQUIRE(attention(out.q[h].view(), out.k[h].view(), out.v[h].view(), o.attention, S.view(), A.view(), O.view()).ok());
                    CHECK(same(out.weights[h].view(), A.view()));
                    CHECK(same(out.head_outputs[h].view(), O.view()));
                    CHECK(same(ConstMatrix(out.concat.values.data() + h * dval, nq, dval, H * dval), O.view()));
                }
                if (with_wo) {
                    REQUIRE(out.output.rows == nq);
                    REQUIRE(out.output.cols == dout);
                    const Checker co = compare(out.output.view(), ref_matmul(out.concat.view(), Wo.data(), dout, dout), "output");
                    ATTNSCOPE_CHECK_ALL(co);
                } else {
                    CHECK(same(out.output.view(), out.concat.view()));
                }
            }
        }
}

TEST_CASE("multi-head: per-head score parameters", "[multihead]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(920);
            const std::size_t n = 6, d = 6, H = 2;  // identity split: 3 columns per head
            const Mat X = uniform_matrix(n, d, rng);
            const Mat W0 = uniform_matrix(3, 3, rng), W1 = uniform_matrix(3, 3, rng);
            MultiHeadOptions o;
            o.heads = H;
            o.attention.score = Score::general;
            o.attention.variant = variant;
            o.head_params.resize(H);
            o.head_params[0].W = W0.data();
            o.head_params[1].W = W1.data();
            MultiHeadResult out;
            REQUIRE(multi_head_attention(X.view(), X.view(), o, out).ok());
            const float* Ws[] = {W0.data(), W1.data()};
            for (std::size_t h = 0; h < H; ++h) {
                ScoreParams p;
                p.W = Ws[h];
                Tensor S(n, n);
                REQUIRE(compute_scores(Score::general, out.q[h].view(), out.k[h].view(), p, S.view(), variant).ok());
                INFO("head " << h);
                CHECK(same(out.scores[h].view(), S.view()));
            }
            CHECK_FALSE(same(out.scores[0].view(), out.scores[1].view()));

            // An error inside a head names the head and the argument.
            o.head_params[1].W = nullptr;
            const Status st = multi_head_attention(X.view(), X.view(), o, out);
            CHECK_THAT(st.message(), StartsWith("head 1: W:"));
            o.head_params.resize(3);
            CHECK_THAT(multi_head_attention(X.view(), X.view(), o, out).message(), StartsWith("head_params:"));
        }
}

// The scores and weights written into room the caller gives (MultiHeadOptions::place, as the
// bindings' attend() does: uninitialised memory from malloc) are those of the fresh tensors bit for
// bit, whatever the room held before (NaN here: an element left unwritten would show), for every
// score, both masks, key padding, self- and cross-attention, every head or a range of heads, and
// every variant (tile tails: 13 and 19 rows, 21 keys).
TEST_CASE("multi-head: placed scores and weights equal the tensors' bit for bit", "[multihead]") {
    auto same_bits = [](ConstMatrix a, const Tensor& b) {
        if (a.rows != b.rows || a.cols != b.cols) return false;
        for (std::size_t i = 0; i < a.rows; ++i)
            if (std::memcmp(a.row(i), b.values.data() + i * b.cols, a.cols * sizeof(float)) != 0) return false;
        return true;
    };
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(940 + static_cast<std::uint32_t>(info.id));
                const std::size_t din = 12, H = 3, dh = 8, dv = 5, nk = 21;
                const Mat Wq = uniform_matrix(din, H * dh, rng), Wk = uniform_matrix(din, H * dh, rng);
                const Mat Wv = uniform_matrix(din, H * dv, rng);
                const RandomParams rp(rng, dh, dh, nk);
                std::vector<std::uint8_t> pad(nk, 0);
                for (std::size_t j = 0; j < nk; ++j) pad[j] = j % 5 == 3;
                for (bool cross : {false, true})
                    for (Mask mask : {Mask::none, Mask::causal})
                        for (bool padding : {false, true})
                            for (std::size_t h0 : {0, 1}) {
                                const std::size_t nq = cross ? 13 : nk;
                                const Mat Xkv = uniform_matrix(nk, din, rng, -2, 2);
                                const Mat Xq = cross ? uniform_matrix(nq, din, rng, -2, 2) : Xkv;
                                INFO("cross " << cross << ", mask " << static_cast<int>(mask) << ", padding " << padding
                                              << ", heads from " << h0);
                                MultiHeadOptions o = projected(H, Wq, Wk, Wv, dh, dv);
                                o.head_begin = h0;
                                o.attention.score = info.id;
                                o.attention.params = rp.p;
                                o.attention.mask = mask;
                                o.attention.key_padding = padding ? pad.data() : nullptr;
                                o.attention.temperature = 0.7f;
                                o.attention.variant = variant;
                                MultiHeadResult fresh, placed;
                                REQUIRE(multi_head_attention(Xq.view(), Xkv.view(), o, fresh).ok());
                                std::vector<float> room;
                                std::size_t asked = 0, calls = 0;
                                o.place = [&](std::size_t n) {
                                    asked = n;
                                    ++calls;
                                    room.assign(n, std::numeric_limits<float>::quiet_NaN());
                                    return room.data();
                                };
                                REQUIRE(multi_head_attention(Xq.view(), Xkv.view(), o, placed).ok());
                                const std::size_t heads = H - h0, cells = nq * nk;
                                CHECK(calls == 1);
                                REQUIRE(asked == 2 * heads * cells);
                                CHECK(placed.placed == room.data());
                                CHECK(placed.scores.empty());
                                CHECK(placed.weights.empty());
                                REQUIRE(fresh.scores.size() == heads);
                                for (std::size_t e = 0; e < heads; ++e) {
                                    INFO("head " << h0 + e);
                                    CHECK(same_bits(ConstMatrix(room.data() + e * cells, nq, nk), fresh.scores[e]));
                                    CHECK(same_bits(ConstMatrix(room.data() + (heads + e) * cells, nq, nk), fresh.weights[e]));
                                    CHECK(same_bits(placed.head_outputs[e].view(), fresh.head_outputs[e]));
                                    for (std::size_t i = 0; i < nq; ++i) {
                                        CHECK(placed.stats[e][i].entropy == fresh.stats[e][i].entropy);
                                        CHECK(placed.stats[e][i].argmax == fresh.stats[e][i].argmax);
                                    }
                                }
                                CHECK(same_bits(placed.output.view(), fresh.output));
                            }
            }
    // No room: a memory error, nothing computed.
    Rng rng(949);
    const Mat X = uniform_matrix(4, 6, rng);
    MultiHeadOptions o;
    o.heads = 2;
    o.place = [](std::size_t) -> float* { return nullptr; };
    MultiHeadResult out;
    const Status st = multi_head_attention(X.view(), X.view(), o, out);
    CHECK_THAT(st.message(), StartsWith("memory:") && Contains("2 heads of 4 x 4"));
    CHECK(out.head_outputs.empty());
}

TEST_CASE("multi-head: errors name the argument", "[multihead][errors]") {
    Rng rng(930);
    const Mat X = uniform_matrix(4, 6, rng), X5 = uniform_matrix(4, 5, rng), W = uniform_matrix(6, 6, rng);
    MultiHeadOptions o;
    MultiHeadResult out;
    auto msg = [&](const Mat& xq, const Mat& xkv) { return multi_head_attention(xq.view(), xkv.view(), o, out).message(); };
    SECTION("heads") {
        o.heads = 0;
        CHECK_THAT(msg(X, X), StartsWith("heads:"));
        o.heads = 7;  // identity split of 6 columns
        CHECK_THAT(msg(X, X), StartsWith("heads:") && Contains("at most 6"));
        o.heads = 6;
        CHECK(msg(X, X).empty());
    }
    SECTION("projections") {
        o.heads = 2;
        o.Wq = W.data();
        CHECK_THAT(msg(X, X), StartsWith("Wq, Wk, Wv:"));
        o.Wk = W.data();
        o.Wv = W.data();
        CHECK_THAT(msg(X, X), StartsWith("d_head, d_value:"));
        o.d_head = 3;
        CHECK_THAT(msg(X, X), StartsWith("d_head, d_value:"));
        o.d_value = 3;
        CHECK(msg(X, X).empty());
        o.Wo = W.data();
        CHECK_THAT(msg(X, X), StartsWith("d_out:"));
    }
    SECTION("identity split needs equal widths") {
        o.heads = 1;
        CHECK_THAT(msg(X, X5), StartsWith("Xkv:"));
    }
    SECTION("errors of the heads") {
        o.heads = 2;
        o.attention.temperature = 0.0f;
        CHECK_THAT(msg(X, X), StartsWith("head 0: temperature:"));
        o.attention.temperature = 1.0f;
        o.attention.score = Score::idw;
        o.attention.params.p = -1.0f;
        CHECK_THAT(msg(X, X), StartsWith("head 0: p:"));
        o.attention.score = Score::location;
        const Mat Wa = uniform_matrix(3, 3, rng);
        o.attention.params.Wa = Wa.data();
        o.attention.params.max_keys = 3;  // 4 keys
        CHECK_THAT(msg(X, X), StartsWith("head 0: Wa:"));
        o.attention.score = Score::additive;
        CHECK_THAT(msg(X, X), StartsWith("head 0: W1, W2, v:"));
    }
}
