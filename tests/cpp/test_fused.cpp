// attention_output (the fused, output-only path) against attention()'s O and the float64 chain:
// every score, masks, temperatures, odd shapes that cross the kernel's tiles, panels and blocks;
// the softmax conventions (fully masked rows, +inf, NaN) carried through to O; errors; and a long
// sequence (65,536 keys) that attention() could not hold as an nq x nk matrix at full size.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attnscope/attention.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

Mat fused(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& o) {
    Mat O(Q.rows, V.cols, 2, 7777.0f);
    const Status st = attention_output(Q.view(), K.view(), V.view(), o, O.mview());
    INFO(st.message());
    REQUIRE(st.ok());
    CHECK(O.padding_intact());
    return O;
}

Mat full(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& o) {
    Mat S(Q.rows, K.rows), A(Q.rows, K.rows), O(Q.rows, V.cols);
    const Status st = attention(Q.view(), K.view(), V.view(), o, S.mview(), A.mview(), O.mview());
    INFO(st.message());
    REQUIRE(st.ok());
    return O;
}

// Rows r0.. of Q: the queries of a share of the call from row offset r0.
Mat rows_from(const Mat& Q, std::size_t r0) {
    Mat Qs(Q.rows - r0, Q.cols);
    for (std::size_t i = 0; i < Qs.rows; ++i)
        for (std::size_t t = 0; t < Q.cols; ++t) Qs(i, t) = Q(r0 + i, t);
    return Qs;
}

// Both outputs lie within the float64 chain's bound B, so within 2B of each other.
void check_against(const Mat& got, const Mat& attn, const RefMatrix& ref) {
    Checker vs_ref("fused vs float64"), vs_attn("fused vs attention()");
    for (std::size_t i = 0; i < ref.rows; ++i)
        for (std::size_t j = 0; j < ref.cols; ++j) {
            vs_ref(got(i, j), ref.at(i, j), ref.tol_at(i, j), i, j);
            vs_attn(got(i, j), attn(i, j), 2.0 * ref.tol_at(i, j), i, j);
        }
    ATTNSCOPE_CHECK_ALL(vs_ref);
    ATTNSCOPE_CHECK_ALL(vs_attn);
}

}  // namespace

TEST_CASE("attention_output: every score, masks and temperatures against attention() and float64", "[fused]") {
    struct Case {
        std::size_t nq, nk, d, dv;
        Mask mask;
        bool padding;
        float tau;
    };
    // Tiles are 4 query rows x 8 keys, panels 128 keys, query blocks 64 rows: cross all of them.
    const Case cases[] = {{1, 1, 1, 1, Mask::none, false, 1.0f},      {3, 5, 7, 2, Mask::none, true, 0.5f},
                          {8, 8, 16, 5, Mask::causal, false, 1.0f},    {17, 9, 33, 17, Mask::causal, true, 2.0f},
                          {5, 40, 64, 3, Mask::none, false, 0.1f},     {70, 130, 20, 9, Mask::causal, false, 1.0f},
                          {66, 257, 64, 64, Mask::none, true, 0.5f},   {130, 131, 13, 31, Mask::causal, true, 1.0f}};
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(900 + static_cast<std::uint32_t>(info.id));
                for (const Case& c : cases) {
                    const Mat Q = uniform_matrix(c.nq, c.d, rng, -1, 1, 1), K = uniform_matrix(c.nk, c.d, rng);
                    const Mat V = uniform_matrix(c.nk, c.dv, rng, -2, 2, 3);
                    RandomParams rp(rng, c.d, c.d, c.nk, 6, 3);
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
                    INFO("nq=" << c.nq << " nk=" << c.nk << " d=" << c.d << " dv=" << c.dv << " tau=" << c.tau);
                    RefMatrix s = ref_scores(info.id, Q.view(), K.view(), rp.p);
                    apply_mask(s, c.mask, o.key_padding);
                    check_against(fused(Q, K, V, o), full(Q, K, V, o), ref_weighted_sum(ref_softmax(s, 1.0 / c.tau), V.view()));
                }
            }
}

TEST_CASE("attention_output: the experimental scaled output equals attention()'s", "[fused][experimental]") {
    Rng rng(950);
    const Mat Q = uniform_matrix(9, 6, rng), K = uniform_matrix(11, 6, rng), V = uniform_matrix(11, 5, rng);
    const Mat Wx = uniform_matrix(5, 5, rng);
    for (const auto& [vname, variant] : public_variants()) {
        AttentionOptions o;
        o.variant = variant;
        o.experimental_scaled_output = true;
        o.W_extra = Wx.data();
        const Mat a = fused(Q, K, V, o), b = full(Q, K, V, o);
        for (std::size_t i = 0; i < a.rows; ++i)
            for (std::size_t j = 0; j < a.cols; ++j) CHECK(a(i, j) == Approx(b(i, j)).epsilon(1e-5).margin(1e-6));
    }
}

// The conventions of softmax_rows, through the online softmax: they must hold whichever key panel
// (128 keys) the special entries fall in, so the keys here span three panels.
TEST_CASE("attention_output: masked rows, +inf and NaN scores follow attention()", "[fused][conventions]") {
    for (const auto& [vname, variant] : public_variants())
        DYNAMIC_SECTION("variant " << vname) {
            Rng rng(960);
            const std::size_t nq = 9, nk = 300, d = 5, dv = 7;
            Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng);
            const Mat V = uniform_matrix(nk, dv, rng, -3, 3);
            // idw with eps = 0: an exact match scores +inf. Query 1 matches keys 5 and 200 (two panels:
            // the weight is shared, 1/2 each); query 2 matches key 290 only, after finite keys in two
            // panels; query 3 matches key 7, and finite keys follow.
            // Dyadic entries, so that ‖q‖² + ‖k‖² − 2 q·k is exactly 0 at a match.
            const float k5[d] = {0.5f, -0.25f, 1.0f, 0.75f, -1.0f}, k290[d] = {-0.5f, 0.25f, 0.125f, 1.0f, 0.5f},
                        k7[d] = {1.0f, 1.0f, -0.5f, 0.0f, 0.25f};
            for (std::size_t t = 0; t < d; ++t) {
                K(5, t) = k5[t];
                K(290, t) = k290[t];
                K(7, t) = k7[t];
                K(200, t) = K(5, t);
                Q(1, t) = K(5, t);
                Q(2, t) = K(290, t);
                Q(3, t) = K(7, t);
            }
            Q(4, 2) = kNaN;  // a NaN query: its row is NaN
            AttentionOptions o;
            o.score = Score::idw;
            o.params.eps = 0.0f;
            o.variant = variant;
            const Mat a = fused(Q, K, V, o), b = full(Q, K, V, o);
            for (std::size_t c = 0; c < dv; ++c) {
                CHECK(a(1, c) == Approx(0.5 * (V(5, c) + V(200, c))).margin(1e-6));
                CHECK(a(2, c) == V(290, c));
                CHECK(a(3, c) == V(7, c));
                CHECK(std::isnan(a(4, c)));
                CHECK(std::isnan(b(4, c)));
                for (std::size_t i : {0, 5, 8}) CHECK(a(i, c) == Approx(b(i, c)).margin(1e-5));
            }
            for (std::size_t i : {1, 2, 3})
                for (std::size_t c = 0; c < dv; ++c) CHECK(a(i, c) == Approx(b(i, c)).margin(1e-6));

            // Every key hidden: zero rows, as attention() gives. Causal + padding of key 0: row 0 sees
            // nothing, the others see keys 1..i.
            std::vector<std::uint8_t> all(nk, 1);
            AttentionOptions m;
            m.variant = variant;
            m.key_padding = all.data();
            const Mat z = fused(Q, K, V, m);
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t c = 0; c < dv; ++c) CHECK(z(i, c) == 0.0f);  // even the NaN query's: nothing seen
            std::vector<std::uint8_t> first(nk, 0);
            first[0] = 1;
            m.key_padding = first.data();
            m.mask = Mask::causal;
            const Mat zc = fused(Q, K, V, m), bc = full(Q, K, V, m);
            for (std::size_t c = 0; c < dv; ++c) CHECK(zc(0, c) == 0.0f);
            for (std::size_t i : {1, 2, 3, 5, 8})
                for (std::size_t c = 0; c < dv; ++c) CHECK(zc(i, c) == Approx(bc(i, c)).margin(1e-6));
            // A NaN in a hidden key is not seen (padding, or after the diagonal under the causal mask).
            Mat Kn = K;
            Kn(150, 1) = kNaN;
            std::vector<std::uint8_t> hide(nk, 0);
            hide[150] = 1;
            AttentionOptions h;
            h.variant = variant;
            h.key_padding = hide.data();
            const Mat hn = fused(Q, Kn, V, h);
            for (std::size_t c = 0; c < dv; ++c) CHECK(std::isfinite(hn(0, c)));
            h.key_padding = nullptr;
            h.mask = Mask::causal;
            const Mat cn = fused(Q, Kn, V, h);
            for (std::size_t c = 0; c < dv; ++c) CHECK(std::isfinite(cn(8, c)));
        }
}

TEST_CASE("attention_output: errors name the argument", "[fused][errors]") {
    Rng rng(970);
    const Mat Q = uniform_matrix(3, 4, rng), K = uniform_matrix(5, 4, rng), V = uniform_matrix(5, 2, rng);
    Mat O(3, 2);
    AttentionOptions o;
    CHECK_THAT(attention_output(Q.view(), K.view(), uniform_matrix(4, 2, rng).view(), o, O.mview()).message(),
               StartsWith("V: expected one row per key (5)"));
    Mat bad(3, 3);
    CHECK_THAT(attention_output(Q.view(), K.view(), V.view(), o, bad.mview()).message(), StartsWith("O: expected 3x2"));
    o.temperature = 0.0f;
    CHECK_THAT(attention_output(Q.view(), K.view(), V.view(), o, O.mview()).message(), StartsWith("temperature:"));
    o.temperature = 1.0f;
    o.score = Score::general;
    CHECK_THAT(attention_output(Q.view(), K.view(), V.view(), o, O.mview()).message(), StartsWith("W: score 'general' needs W"));
    o.score = Score::cosine;
    CHECK_THAT(attention_output(Q.view(), uniform_matrix(5, 3, rng).view(), V.view(), o, O.mview()).message(),
               Contains("columns like Q"));
}

// 65,536 keys at d = 64: the online softmax runs over 512 key panels, in memory O(n d). A few
// (odd) query rows keep the test short; the float64 chain checks them.
TEST_CASE("attention_output: 65,536 keys at d = 64", "[fused][large]") {
    Rng rng(980);
    const std::size_t nq = 5, nk = 65536, d = 64, dv = 64;
    const Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng), V = uniform_matrix(nk, dv, rng);
    std::vector<std::uint8_t> pad(nk, 0);
    for (std::size_t j = 0; j < nk; j += 7) pad[j] = 1;
    for (const char* vname : {"scalar", "simd"}) {
        Variant variant;
        REQUIRE(parse_variant(vname, variant));
        AttentionOptions o;
        o.variant = variant;
        o.temperature = 0.125f;  // sharp rows: the running max moves across many panels
        o.key_padding = pad.data();
        INFO("variant " << vname);
        const Mat O = fused(Q, K, V, o);
        RefMatrix s = ref_scores(Score::scaled_dot, Q.view(), K.view(), o.params);
        apply_mask(s, Mask::none, pad.data());
        const RefMatrix ref = ref_weighted_sum(ref_softmax(s, 8.0), V.view());
        ATTNSCOPE_CHECK_ALL(compare(O.view(), ref, "O"));
    }
}

// attention() computes only what is asked for: null S, A or O (or stats) are left out, and the
// parts that are given hold exactly what the full call gives (O via the fused path when A is not
// asked for, so within the float64 chain's bound of it).
TEST_CASE("attention: null results are neither computed nor written", "[fused][attention]") {
    Rng rng(990);
    const std::size_t nq = 13, nk = 21, d = 9, dv = 6;
    const Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng), V = uniform_matrix(nk, dv, rng);
    for (const auto& [vname, variant] : public_variants()) {
        INFO("variant " << vname);
        AttentionOptions o;
        o.variant = variant;
        o.mask = Mask::causal;
        o.temperature = 0.7f;
        Mat S(nq, nk), A(nq, nk), O(nq, dv);
        std::vector<RowStats> st(nq);
        REQUIRE(attention(Q.view(), K.view(), V.view(), o, S.mview(), A.mview(), O.mview(), st.data()).ok());

        Mat O2(nq, dv, 1, 7777.0f);
        REQUIRE(attention(Q.view(), K.view(), V.view(), o, Matrix(), Matrix(), O2.mview(), nullptr).ok());
        const Mat Of = fused(Q, K, V, o);
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t c = 0; c < dv; ++c) {
                CHECK(O2(i, c) == Of(i, c));
                CHECK(O2(i, c) == Approx(O(i, c)).margin(1e-6));
            }
        CHECK(O2.padding_intact());

        Mat S3(nq, nk, 0, 7777.0f);
        std::vector<RowStats> st3(nq);
        REQUIRE(attention(Q.view(), K.view(), V.view(), o, S3.mview(), Matrix(), Matrix(), st3.data()).ok());
        for (std::size_t i = 0; i < nq; ++i) {
            CHECK(st3[i].entropy == st[i].entropy);
            CHECK(st3[i].argmax == st[i].argmax);
            for (std::size_t j = 0; j < nk; ++j) CHECK(S3(i, j) == S(i, j));
        }
        Mat A4(nq, nk, 0, 7777.0f);
        REQUIRE(attention(Q.view(), K.view(), V.view(), o, Matrix(), A4.mview(), Matrix(), nullptr).ok());
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t j = 0; j < nk; ++j) CHECK(A4(i, j) == A(i, j));
        // Errors still name the argument when nothing is asked for.
        o.score = Score::general;
        CHECK_THAT(attention(Q.view(), K.view(), V.view(), o, Matrix(), Matrix(), Matrix(), nullptr).message(),
                   StartsWith("W: score 'general' needs W"));
    }
}

namespace {
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

// query_offset: rows [r0, r1) of a query, computed with query_offset = r0, equal those rows of the
// whole call bit for bit under the causal mask (what the worker pool relies on when it splits a call
// at multiples of 64 rows), for the fused path (neg-manhattan included), the blocked path (additive) and the
// full attention() (scores, weights, stats); and with it the causal mask hides the right keys.
TEST_CASE("query_offset: a share of the query rows equals those rows of the whole causal call", "[fused][offset]") {
    const std::size_t nq = 200, nk = 230, d = 12, dv = 5;
    for (const auto& [vname, variant] : public_variants())
        for (const ScoreInfo& info : score_infos())
            DYNAMIC_SECTION(info.name << ", variant " << vname) {
                Rng rng(4242 + static_cast<std::uint32_t>(info.id));
                const Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng), V = uniform_matrix(nk, dv, rng);
                RandomParams rp(rng, d, d, nk, 6, 3);
                AttentionOptions o;
                o.score = info.id;
                o.params = rp.p;
                o.mask = Mask::causal;
                o.temperature = 0.8f;
                o.variant = variant;
                const Mat Ow = fused(Q, K, V, o);
                Mat Sw(nq, nk), Aw(nq, nk), Ofw(nq, dv);
                std::vector<RowStats> stw(nq);
                REQUIRE(attention(Q.view(), K.view(), V.view(), o, Sw.mview(), Aw.mview(), Ofw.mview(), stw.data()).ok());
                for (const std::size_t r0 : {std::size_t{64}, std::size_t{128}}) {
                    INFO("r0 = " << r0);
                    const std::size_t rows = nq - r0;
                    const Mat Qs = rows_from(Q, r0);
                    AttentionOptions os = o;
                    os.query_offset = r0;
                    const Mat Os = fused(Qs, K, V, os);
                    Mat Ss(rows, nk), As(rows, nk), Ofs(rows, dv);
                    std::vector<RowStats> sts(rows);
                    REQUIRE(attention(Qs.view(), K.view(), V.view(), os, Ss.mview(), As.mview(), Ofs.mview(), sts.data()).ok());
                    std::size_t differ = 0;
                    for (std::size_t i = 0; i < rows; ++i) {
                        for (std::size_t c = 0; c < dv; ++c)
                            differ += !same_bits(Os(i, c), Ow(r0 + i, c)) + !same_bits(Ofs(i, c), Ofw(r0 + i, c));
                        for (std::size_t j = 0; j < nk; ++j) {
                            differ += !same_bits(Ss(i, j), Sw(r0 + i, j)) + !same_bits(As(i, j), Aw(r0 + i, j));
                            if (j > r0 + i) differ += As(i, j) != 0.0f;  // hidden by the causal mask
                        }
                        differ += sts[i].argmax != stw[r0 + i].argmax || !same_bits(sts[i].entropy, stw[r0 + i].entropy);
                    }
                    CHECK(differ == 0);
                }
            }
}

// idw at p = 2 and τ = 1 (the defaults) with what the SIMD kernel's logarithm and its fallbacks must
// get right: self-attention (Q = K: the exact distances of the diagonal pairs), a NaN key, a panel
// hidden from every row, causal rows that see nothing in a panel, a far key, eps normal and below
// FLT_MIN. Against attention() and the float64 chain, and a share of the rows from an offset that is
// not a multiple of the 4-row tile equals those rows of the whole call bit for bit.
TEST_CASE("attention_output: idw at p = 2, tau = 1 against attention() and float64", "[fused][idw]") {
    const std::size_t nq = 70, nk = 300, d = 9, dv = 6;
    for (const auto& [vname, variant] : public_variants())
        for (const float eps : {0.5f, 1e-3f, 1e-40f})
            for (const int kind : {0, 1, 2})
                DYNAMIC_SECTION("variant " << vname << " eps=" << eps << " kind=" << kind) {
                    Rng rng(970 + static_cast<std::uint32_t>(kind));
                    Mat K = uniform_matrix(nk, d, rng), V = uniform_matrix(nk, dv, rng, -2, 2, 1);
                    for (std::size_t t = 0; t < d; ++t) K(40, t) = 8.0f;  // a far key
                    Mat Q(nq, d, 2);
                    for (std::size_t i = 0; i < nq; ++i)  // self-attention: query i is key i
                        for (std::size_t t = 0; t < d; ++t) Q(i, t) = K(i, t);
                    std::vector<std::uint8_t> pad(nk, 0);
                    AttentionOptions o;
                    o.score = Score::idw;
                    o.params.eps = eps;
                    o.variant = variant;
                    if (kind == 1) {  // keys 128..255 (the second panel) hidden from every row, causal
                        for (std::size_t j = 128; j < 256; ++j) pad[j] = 1;
                        o.key_padding = pad.data();
                        o.mask = Mask::causal;
                    }
                    if (kind == 2) K(200, 3) = kNaN;  // every row sees a NaN key: NaN rows
                    const Mat a = fused(Q, K, V, o), b = full(Q, K, V, o);
                    if (kind == 2) {
                        for (std::size_t i = 0; i < nq; ++i)
                            for (std::size_t c = 0; c < dv; ++c) CHECK(std::isnan(a(i, c)));
                    } else {
                        RefMatrix s = ref_scores(Score::idw, Q.view(), K.view(), o.params);
                        apply_mask(s, o.mask, o.key_padding);
                        check_against(a, b, ref_weighted_sum(ref_softmax(s, 1.0), V.view()));
                    }
                    const std::size_t r0 = 5, rows = nq - r0;
                    const Mat Qs = rows_from(Q, r0);
                    AttentionOptions os = o;
                    os.query_offset = r0;
                    const Mat as = fused(Qs, K, V, os);
                    std::size_t differ = 0;
                    for (std::size_t i = 0; i < rows; ++i)
                        for (std::size_t c = 0; c < dv; ++c) differ += !same_bits(as(i, c), a(r0 + i, c));
                    CHECK(differ == 0);
                }
}
