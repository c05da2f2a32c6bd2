#include "attnscope/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

namespace attnscope {

namespace {
std::string shape(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

// Finite input must give finite answers: rows whose float path overflowed are computed again in
// double from the definition's exact scores (scores::exact_row). `suspect(i)` says which rows; K
// and V are checked once, Q row by row, and rows with non-finite input keep their float result
// (NaN and infinity follow the softmax conventions there). S, A: null or full nq x nk; O: the
// output (experimental scaled output: A V before W_extra).
template <class Suspect>
void exact_rows(Score score, ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o, float inv_tau, Matrix S,
                Matrix A, Matrix O, Suspect suspect) {
    int kv_ok = -1;
    for (std::size_t i = 0; i < Q.rows; ++i) {
        if (!suspect(i)) continue;
        if (kv_ok < 0) kv_ok = scores::all_finite(K) && scores::all_finite(V) ? 1 : 0;
        if (!kv_ok) return;
        if (!scores::row_finite(Q.row(i), Q.cols)) continue;
        scores::exact_row(scores::score_def(score), Q, K, V, o, static_cast<double>(inv_tau), i, S.data ? S.row(i) : nullptr,
                          A.data ? A.row(i) : nullptr, O.data ? O.row(i) : nullptr);
    }
}
// The query rows attention() takes at a time for nk keys: a multiple of 64 whose scores and weights
// (8 nk bytes a row) fit in about 1 MiB, at least 64.
std::size_t row_block(std::size_t nk) {
    constexpr std::size_t kBytes = std::size_t{1} << 20, kRows = 64;
    const std::size_t fit = nk > 0 ? kBytes / (8 * nk) / kRows * kRows : kBytes;
    return std::max(kRows, fit);
}

// A visible score of row i at ±FLT_MAX (compute_scores' saturation) or infinite: the row's float
// softmax cannot rank its scores. An unsigned maximum over the bits of |s| first (it vectorises; a
// NaN's bits exceed FLT_MAX's and send the row to the second loop, which does not count it), the
// mask only for a row that reaches FLT_MAX.
bool row_saturated(const float* s, std::size_t n, const AttentionOptions& o, std::size_t i) {
    constexpr float fmax = std::numeric_limits<float>::max();
    std::uint32_t m = 0;
    for (std::size_t j = 0; j < n; ++j) m = std::max(m, scores::float_bits(s[j]) & 0x7fffffffu);
    if (m < scores::float_bits(fmax)) return false;
    for (std::size_t j = 0; j < n; ++j)
        if (std::fabs(s[j]) >= fmax && !scores::hidden_key(o, i, j)) return true;
    return false;
}
}  // namespace

Status attention(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o, Matrix S, Matrix A,
                 Matrix O, RowStats* stats) {
    if (V.rows != K.rows)
        return Status::error("V: expected one row per key (" + std::to_string(K.rows) + "), got " + std::to_string(V.rows));
    if (A.data && (A.rows != Q.rows || A.cols != K.rows))
        return Status::error("A: expected " + shape(Q.rows, K.rows) + ", got " + shape(A.rows, A.cols));
    if (O.data && (O.rows != Q.rows || O.cols != V.cols))
        return Status::error("O: expected " + shape(Q.rows, V.cols) + ", got " + shape(O.rows, O.cols));
    if (o.experimental_scaled_output && !o.W_extra)
        return Status::error("W_extra: the experimental scaled output needs a d_v x d_v matrix");
    const std::size_t nq = Q.rows, nk = K.rows, dv = V.cols;
    // Nothing needs the weights: the output through the fused path, the scores on their own.
    if (!A.data && !stats) {
        if (S.data)
            if (Status st = compute_scores(o.score, Q, K, o.params, S, o.variant); !st) return st;
        if (O.data) return attention_output(Q, K, V, o, O);
        return S.data ? Status{} : check_score_inputs(o.score, Q, K, o.params);
    }
    {
        Budget b;
        add_score_cost(b, o.score, Q.rows, K.rows, Q.cols, K.cols, o.params.hidden);
        b.floats(Q.rows, K.rows);        // A (S is counted by add_score_cost)
        b.floats(Q.rows, V.cols);        // O
        b.work(Q.rows, K.rows, V.cols);  // A V
        b.work(Q.rows, K.rows, limits::kWeightCost);
        if (o.experimental_scaled_output) {
            b.floats(Q.rows, V.cols);
            b.work(Q.rows, V.cols, V.cols);
        }
        if (Status st = b.check_lazily(
                [&] { return "attention of " + std::to_string(Q.rows) + " queries x " + std::to_string(K.rows) + " keys"; },
                "attend fewer queries per call (chunks of queries), or use fewer value columns");
            !st)
            return st;
    }
    // A long call runs in blocks of query rows: each block's scores and weights are written, turned
    // into weights, multiplied by V and summarised while they are still in cache, where one pass per
    // step sent the whole nq x nk matrices through memory five times. A block is a multiple of 64 rows
    // (every tile height divides it, and every step is row by row), so each row gets the same
    // operations as in one pass: the numbers are identical. Additive scores run in one pass: they
    // would project every key again per block, and their cost is their tanh, not memory.
    const std::size_t block = row_block(nk);
    if (nq > block && o.score != Score::additive && !o.experimental_scaled_output) {
        for (std::size_t r0 = 0; r0 < nq; r0 += block) {
            const std::size_t rows = std::min(block, nq - r0);
            AttentionOptions ob = o;
            ob.query_offset = o.query_offset + r0;
            const auto part = [r0, rows](Matrix M) { return M.data ? Matrix(M.row(r0), rows, M.cols, M.stride) : Matrix(); };
            if (Status st = attention(ConstMatrix(Q.row(r0), rows, Q.cols, Q.stride), K, V, ob, part(S), part(A), part(O),
                                      stats ? stats + r0 : nullptr);
                !st)
                return st;
        }
        return {};
    }
    Tensor s_tmp, a_tmp;
    if (!S.data) {
        s_tmp = Tensor(nq, nk);
        S = s_tmp.view();
    }
    if (!A.data) {
        a_tmp = Tensor(nq, nk);
        A = a_tmp.view();
    }
    if (Status st = compute_scores(o.score, Q, K, o.params, S, o.variant); !st) return st;
    SoftmaxOptions so;
    so.temperature = o.temperature;
    so.mask = o.mask;
    so.key_padding = o.key_padding;
    so.variant = o.variant;
    so.query_offset = o.query_offset;
    if (Status st = masked_softmax(S, so, A); !st) return st;

    const auto& kt = kernels_for(o.variant);
    // Rows whose visible scores left float's range (saturated at ±FLT_MAX by compute_scores, so the
    // float softmax cannot rank them) get their scores, weights and output in double.
    float inv_tau = 1.0f;
    if (Status st = inverse_temperature(o.temperature, inv_tau); !st) return st;
    // Each row's saturation, found once: exact_rows and the statistics both ask.
    std::vector<unsigned char> saturated_rows(nq);
    for (std::size_t i = 0; i < nq; ++i) saturated_rows[i] = row_saturated(S.row(i), nk, o, i) ? 1 : 0;
    const auto saturated = [&](std::size_t i) { return saturated_rows[i] != 0; };
    if (O.data && o.experimental_scaled_output) {
        std::vector<float> av(nq * dv);
        kt.gemm_nn(nq, dv, nk, A.data, A.stride, V.data, V.stride, av.data(), dv);
        exact_rows(o.score, Q, K, V, o, inv_tau, S, A, Matrix(av.data(), nq, dv),
                   [&](std::size_t i) { return !scores::row_finite(av.data() + i * dv, dv) || saturated(i); });
        kt.gemm_nn(nq, dv, dv, av.data(), dv, o.W_extra, dv, O.data, O.stride);
        const float scale = dv > 0 ? 1.0f / std::sqrt(static_cast<float>(dv)) : 1.0f;
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t j = 0; j < dv; ++j) O(i, j) *= scale;
    } else if (O.data) {
        kt.gemm_nn(nq, dv, nk, A.data, A.stride, V.data, V.stride, O.data, O.stride);
        exact_rows(o.score, Q, K, V, o, inv_tau, S, A, O, [&](std::size_t i) { return !scores::row_finite(O.row(i), dv) || saturated(i); });
    } else {
        exact_rows(o.score, Q, K, V, o, inv_tau, S, A, Matrix(), saturated);
    }
    if (stats) {
        const auto rs = row_stats(A, S, inv_tau, saturated);
        for (std::size_t i = 0; i < nq; ++i) stats[i] = rs[i];
    }
    return {};
}

Status check_multi_head_cost(const MultiHeadShape& sh) {
    Budget b;
    b.floats(sh.extra_floats);
    const std::uint64_t nq = sh.nq, nk = sh.nk;
    // Heads of equal width cost the same: the identity split gives the first d % heads heads one
    // more column, so every head is counted at the widest.
    const std::uint64_t dh = sh.identity ? (sh.heads ? (sh.d_in + sh.heads - 1) / sh.heads : 0) : sh.d_head;
    const std::uint64_t dv = sh.identity ? dh : sh.d_value;
    Budget head;
    add_score_cost(head, sh.score, nq, nk, dh, dh, sh.hidden);
    head.floats(nq, nk);           // weights (the scores are in add_score_cost)
    head.floats(nq + 2 * nk, dh);  // q, k, v of the head
    head.floats(nq, 2 * dv);       // its output and its place in the concatenation
    head.work(nq, nk, dv);         // A V
    head.work(nq, nk, limits::kWeightCost);
    if (!sh.identity) head.work(nq + 2 * nk, sh.d_in, dh);
    b.floats(head.floats(), sh.heads);
    b.work(head.work(), sh.heads);
    if (sh.d_out) {
        b.floats(nq, sh.d_out);
        b.work(nq, sh.d_out, sh.heads, dv);
    }
    return b.check(std::to_string(sh.heads) + " heads of " + std::to_string(sh.nq) + " queries x " +
                       std::to_string(sh.nk) + " keys",
                   "use fewer heads, shorter text, a smaller hidden size, or a cheaper score such as scaled-dot");
}

Status attention_output(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o, Matrix O) {
    if (V.rows != K.rows)
        return Status::error("V: expected one row per key (" + std::to_string(K.rows) + "), got " + std::to_string(V.rows));
    if (O.rows != Q.rows || O.cols != V.cols)
        return Status::error("O: expected " + shape(Q.rows, V.cols) + ", got " + shape(O.rows, O.cols));
    if (o.experimental_scaled_output && !o.W_extra)
        return Status::error("W_extra: the experimental scaled output needs a d_v x d_v matrix");
    if (Status st = check_score_inputs(o.score, Q, K, o.params); !st) return st;
    float inv_tau = 1.0f;
    if (Status st = inverse_temperature(o.temperature, inv_tau); !st) return st;
    const std::size_t nq = Q.rows, nk = K.rows, dv = V.cols;
    {
        Budget b;
        add_fused_output_cost(b, o.score, nq, nk, Q.cols, K.cols, dv, o.params.hidden);
        if (o.experimental_scaled_output) {
            b.floats(nq, dv);
            b.work(nq, dv, dv);
        }
        if (Status st = b.check_lazily(
                [&] { return "attention output of " + std::to_string(nq) + " queries x " + std::to_string(nk) + " keys"; },
                "attend fewer queries per call (chunks of queries)", limits::kMaxFusedWork);
            !st)
            return st;
    }
    if (nq == 0 || dv == 0) return {};
    const auto& kt = kernels_for(o.variant);

    // The experimental scaled output multiplies A V by W_extra / √dv afterwards.
    Tensor av;
    Matrix out = O;
    if (o.experimental_scaled_output) {
        av = Tensor(nq, dv);
        out = av.view();
    }
    // The score's definition sets up the fused kernel's epilogue (or runs its own blocked loop).
    const scores::ScoreDef& def = scores::score_def(o.score);
    if (Status st = def.output(kt, Q, K, V, o, inv_tau, out); !st) return st;
    // The fused kernel keeps no score to look at afterwards: rows whose scores could leave float's
    // range (by the definition's bound) and rows whose output did (V near FLT_MAX: the accumulator
    // Σ exp(s - m) V overflows before its division) are computed again in double.
    const scores::KeyBounds kb = scores::key_bounds(o.score, K, Q.cols, o.params);
    exact_rows(o.score, Q, K, V, o, inv_tau, Matrix(), Matrix(), out, [&](std::size_t i) {
        return !scores::row_finite(out.row(i), dv) || def.bound(Q.row(i), Q.cols, kb, o.params) >= scores::kOverflowBound;
    });
    if (o.experimental_scaled_output) {
        kt.gemm_nn(nq, dv, dv, av.values.data(), dv, o.W_extra, dv, O.data, O.stride);
        const float scale = 1.0f / std::sqrt(static_cast<float>(dv));
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t j = 0; j < dv; ++j) O(i, j) *= scale;
    }
    return {};
}

ColumnRange head_columns(std::size_t d, std::size_t heads, std::size_t h) {
    const std::size_t base = d / heads, extra = d % heads;
    const std::size_t begin = h * base + (h < extra ? h : extra);
    return {begin, begin + base + (h < extra ? 1 : 0)};
}

namespace {

// X (n x d_in) times columns [c0, c0 + cols) of W (d_in x ld_w) into a new n x cols tensor.
Tensor project(const kernels::KernelTable& kt, ConstMatrix X, const float* Wm, std::size_t ld_w, std::size_t c0,
               std::size_t cols) {
    Tensor out(X.rows, cols);
    kt.gemm_nn(X.rows, cols, X.cols, X.data, X.stride, Wm + c0, ld_w, out.values.data(), cols);
    return out;
}

Tensor copy_columns(ConstMatrix X, ColumnRange r) {
    Tensor out(X.rows, r.size());
    for (std::size_t i = 0; i < X.rows; ++i)
        for (std::size_t j = 0; j < r.size(); ++j) out(i, j) = X(i, r.begin + j);
    return out;
}

}  // namespace

Status multi_head_attention(ConstMatrix Xq, ConstMatrix Xkv, const MultiHeadOptions& o, MultiHeadResult& out) {
    const std::size_t H = o.heads;
    if (H == 0) return Status::error("heads: expected at least 1");
    const bool identity = !o.Wq && !o.Wk && !o.Wv;
    if (!identity && (!o.Wq || !o.Wk || !o.Wv))
        return Status::error("Wq, Wk, Wv: give all three projection matrices, or none for the identity");
    if (identity) {
        if (Xq.cols != Xkv.cols)
            return Status::error("Xkv: without projections queries and keys need the same width (" +
                                 std::to_string(Xq.cols) + "), got " + std::to_string(Xkv.cols));
        if (H > Xq.cols)
            return Status::error("heads: at most " + std::to_string(Xq.cols) + " heads can split " +
                                 std::to_string(Xq.cols) + " dimensions without a projection");
    } else if (o.d_head == 0 || o.d_value == 0) {
        return Status::error("d_head, d_value: expected > 0 with projection matrices");
    }
    if (!o.head_params.empty() && o.head_params.size() != H)
        return Status::error("head_params: expected one entry per head (" + std::to_string(H) + ")");
    if (!o.head_extra.empty() && o.head_extra.size() != H)
        return Status::error("head_extra: expected one entry per head (" + std::to_string(H) + ")");

    // Everything this call allocates and computes, checked before the first allocation.
    {
        MultiHeadShape sh;
        sh.nq = Xq.rows;
        sh.nk = Xkv.rows;
        sh.d_in = Xq.cols;
        sh.heads = H;
        sh.identity = identity;
        sh.d_head = o.d_head;
        sh.d_value = o.d_value;
        sh.score = o.attention.score;
        for (const ScoreParams& sp : o.head_params) sh.hidden = std::max<std::uint64_t>(sh.hidden, sp.hidden);
        if (o.head_params.empty()) sh.hidden = o.attention.params.hidden;
        sh.d_out = o.Wo ? o.d_out : 0;
        if (Status st = check_multi_head_cost(sh); !st) return st;
    }
    const std::size_t h0 = o.head_begin, h1 = o.head_end == 0 ? H : o.head_end;
    if (h0 >= h1 || h1 > H)
        return Status::error("headBegin, headEnd: expected 0 <= headBegin < headEnd <= heads (" + std::to_string(H) + "), got " +
                             std::to_string(h0) + ", " + std::to_string(h1));
    const bool every_head = h0 == 0 && h1 == H;
    const auto& kt = kernels_for(o.attention.variant);
    out = MultiHeadResult{};
    out.heads = h1 - h0;
    out.nq = Xq.rows;
    out.nk = Xkv.rows;
    std::size_t concat_cols = 0;
    for (std::size_t h = h0; h < h1; ++h) {
        if (identity) {
            const ColumnRange r = head_columns(Xq.cols, H, h);
            out.q.push_back(copy_columns(Xq, r));
            out.k.push_back(copy_columns(Xkv, r));
            out.v.push_back(copy_columns(Xkv, r));
        } else {
            out.q.push_back(project(kt, Xq, o.Wq, H * o.d_head, h * o.d_head, o.d_head));
            out.k.push_back(project(kt, Xkv, o.Wk, H * o.d_head, h * o.d_head, o.d_head));
            out.v.push_back(project(kt, Xkv, o.Wv, H * o.d_value, h * o.d_value, o.d_value));
        }
        concat_cols += out.v.back().cols;
    }
    out.concat = Tensor(Xq.rows, concat_cols);
    const std::size_t cells = Xq.rows * Xkv.rows;  // (fits: check_multi_head_cost bounded 2 x heads x cells)
    if (o.place) {
        out.placed = o.place(2 * out.heads * cells);
        if (!out.placed)
            return Status::error("memory: the scores and weights of " + std::to_string(out.heads) + " heads of " +
                                 std::to_string(Xq.rows) + " x " + std::to_string(Xkv.rows) + " found no room");
    }
    std::size_t col = 0;
    for (std::size_t h = h0; h < h1; ++h) {
        const std::size_t e = h - h0;  // the entry of head h in `out`
        AttentionOptions ao = o.attention;
        if (!o.head_params.empty()) ao.params = o.head_params[h];
        if (!o.head_extra.empty()) ao.W_extra = o.head_extra[h];
        const std::size_t dv = out.v[e].cols;
        Matrix S, A;
        if (out.placed) {
            S = Matrix(out.placed + e * cells, Xq.rows, Xkv.rows);
            A = Matrix(out.placed + (out.heads + e) * cells, Xq.rows, Xkv.rows);
        } else {
            S = out.scores.emplace_back(Xq.rows, Xkv.rows).view();
            A = out.weights.emplace_back(Xq.rows, Xkv.rows).view();
        }
        out.head_outputs.emplace_back(Xq.rows, dv);
        out.stats.emplace_back(Xq.rows);
        Status st = attention(out.q[e].view(), out.k[e].view(), out.v[e].view(), ao, S, A, out.head_outputs[e].view(),
                              out.stats[e].data());
        if (!st) return Status::error("head " + std::to_string(h) + ": " + st.message());
        for (std::size_t i = 0; i < Xq.rows; ++i)
            for (std::size_t j = 0; j < dv; ++j) out.concat(i, col + j) = out.head_outputs[e](i, j);
        col += dv;
    }
    if (o.Wo && every_head) {
        if (o.d_out == 0) return Status::error("d_out: expected > 0 with an output projection W_o");
        out.output = Tensor(Xq.rows, o.d_out);
        kt.gemm_nn(Xq.rows, o.d_out, concat_cols, out.concat.values.data(), concat_cols, o.Wo, o.d_out,
                   out.output.values.data(), o.d_out);
    } else {
        out.output = out.concat;
    }
    return {};
}

}  // namespace attnscope
