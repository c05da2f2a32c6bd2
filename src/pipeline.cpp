#include "attnscope/pipeline.hpp"

#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "attnscope/positional.hpp"
#include "attnscope/projection.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

namespace attnscope {

namespace {

// attend()'s seeded projections, drawn again only when their shape or seed changes: a demo that
// re-attends on every keystroke with the same seed and heads drew the same four matrices each time
// (a third of a 12-word, 8-head call). One slot per kind of matrix, per thread (the native library
// may attend on several); a slot's pointer is valid until the next draw for that kind on the thread,
// so within one call the four kinds never disturb one another.
const float* seeded_projection(MatrixKind kind, std::size_t rows, std::size_t cols, std::uint32_t seed) {
    struct Slot {
        std::size_t rows = 0, cols = 0;
        std::uint32_t seed = 0;
        std::vector<float> values;
    };
    thread_local Slot slots[4];  // Wq, Wk, Wv, Wo
    Slot& slot = slots[static_cast<std::size_t>(kind) - static_cast<std::size_t>(MatrixKind::Wq)];
    if (slot.values.empty() || slot.rows != rows || slot.cols != cols || slot.seed != seed) {
        slot.values = xavier_uniform(rows, cols, seed, matrix_stream(kind, 0));
        slot.rows = rows;
        slot.cols = cols;
        slot.seed = seed;
    }
    return slot.values.data();
}

Status embed_text(const Vocabulary& vocab, std::string_view text, const char* arg, const AttendOptions& o,
                  std::vector<Token>& tokens, std::vector<std::uint8_t>& oov, std::vector<std::int64_t>& entries,
                  Tensor& X) {
    TokenizerOptions to;
    to.max_tokens = o.max_tokens;
    if (Status st = tokenize(text, to, tokens); !st) return Status::error(std::string(arg) + ": " + st.message());
    if (tokens.empty()) return Status::error(std::string(arg) + ": expected text with at least one word, got none");
    const std::size_t d = vocab.dim();
    X = Tensor(tokens.size(), d);
    oov.assign(tokens.size(), 0);
    entries.assign(tokens.size(), -1);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        float* row = X.values.data() + i * d;
        entries[i] = vocab.resolve(tokens[i].lookup);
        if (entries[i] >= 0) {
            vocab.vector(static_cast<std::size_t>(entries[i]), row);
        } else {
            vocab.oov_vector(tokens[i].lookup, row);
            oov[i] = 1;
        }
    }
    if (o.positional) add_sinusoidal_positions(X.view());
    return {};
}

// A score-weight matrix for head h: the caller's, or a seeded one kept in `store`.
const float* weights_or_seeded(const float* given, std::size_t rows, std::size_t cols, MatrixKind kind,
                               std::size_t h, std::uint32_t seed, std::vector<std::vector<float>>& store) {
    if (given) return given;
    store.push_back(xavier_uniform(rows, cols, seed, matrix_stream(kind, h)));
    return store.back().data();
}

// The score's per-head matrices: the caller's, or seeded ones for head h kept in `store`.
class SeededMatrices final : public scores::MatrixSource {
public:
    SeededMatrices(std::size_t h, std::uint32_t seed, std::vector<std::vector<float>>& store)
        : h_(h), seed_(seed), store_(store) {}
    const float* matrix(const float* given, std::size_t rows, std::size_t cols, MatrixKind kind) override {
        return weights_or_seeded(given, rows, cols, kind, h_, seed_, store_);
    }

private:
    std::size_t h_;
    std::uint32_t seed_;
    std::vector<std::vector<float>>& store_;
};

}  // namespace

Status attend(const Vocabulary& vocab, std::string_view query, std::string_view keys, bool cross,
              const AttendOptions& o, AttendResult& out) {
    out = AttendResult{};
    if (vocab.empty()) return Status::error("vocabulary: none loaded");
    if (o.heads == 0) return Status::error("heads: expected at least 1");
    if (Status st = embed_text(vocab, query, "query", o, out.query_tokens, out.query_oov, out.query_vocab,
                               out.query_embeddings); !st)
        return st;
    if (cross) {
        if (Status st = embed_text(vocab, keys, "keys", o, out.key_tokens, out.key_oov, out.key_vocab, out.key_embeddings); !st)
            return st;
    } else {
        out.key_tokens = out.query_tokens;
        out.key_oov = out.query_oov;
        out.key_vocab = out.query_vocab;
        out.key_embeddings = out.query_embeddings;
    }
    const std::size_t d = vocab.dim(), H = o.heads, nk = out.key_tokens.size();

    MultiHeadOptions mo;
    mo.heads = H;
    std::vector<std::size_t> head_dims(H);
    switch (o.projection) {
        case Projection::identity:
            if (H > d) return Status::error("heads: at most " + std::to_string(d) + " heads without a projection");
            for (std::size_t h = 0; h < H; ++h) head_dims[h] = head_columns(d, H, h).size();
            break;
        case Projection::random: {
            const std::size_t dh = d / H > 0 ? d / H : 1;
            // One draw per matrix: head h's block of columns is part of a single Xavier matrix.
            mo.Wq = seeded_projection(MatrixKind::Wq, d, H * dh, o.seed);
            mo.Wk = seeded_projection(MatrixKind::Wk, d, H * dh, o.seed);
            mo.Wv = seeded_projection(MatrixKind::Wv, d, H * dh, o.seed);
            mo.Wo = seeded_projection(MatrixKind::Wo, H * dh, d, o.seed);
            mo.d_head = mo.d_value = dh;
            mo.d_out = d;
            head_dims.assign(H, dh);
            break;
        }
        case Projection::user:
            if (!o.Wq || !o.Wk || !o.Wv || o.d_head == 0 || o.d_value == 0)
                return Status::error("projection: user projections need Wq, Wk, Wv, dHead and dValue");
            mo.Wq = o.Wq; mo.Wk = o.Wk; mo.Wv = o.Wv; mo.Wo = o.Wo;
            mo.d_head = o.d_head; mo.d_value = o.d_value; mo.d_out = o.d_out;
            head_dims.assign(H, o.d_head);
            break;
    }

    {
        // Checked before the seeded score weights and the heads' matrices are allocated.
        MultiHeadShape sh;
        sh.nq = out.query_tokens.size();
        sh.nk = nk;
        sh.d_in = d;
        sh.heads = H;
        sh.identity = o.projection == Projection::identity;
        sh.d_head = mo.d_head;
        sh.d_value = mo.d_value;
        sh.d_out = mo.Wo ? mo.d_out : 0;
        sh.score = o.score;
        const std::uint64_t dh = sh.identity ? (d + H - 1) / H : mo.d_head;
        sh.hidden = o.params.hidden ? o.params.hidden : dh;  // (only a score with a hidden size reads it)
        if (const auto head_floats = scores::score_def(o.score).head_floats)
            sh.extra_floats = Budget::mul(H, head_floats(o.params, dh, nk));
        if (o.experimental_scaled_output) sh.extra_floats = Budget::add(sh.extra_floats, Budget::mul(H, dh * dh));
        if (Status st = check_multi_head_cost(sh); !st) return st;
    }

    AttentionOptions& ao = mo.attention;
    ao.score = o.score;
    ao.temperature = o.temperature;
    ao.mask = o.mask;
    ao.variant = o.variant;
    ao.params.p = o.params.p;
    ao.params.eps = o.params.eps;
    ao.experimental_scaled_output = o.experimental_scaled_output;

    // Per-head score weights (and the experimental W_x), seeded unless given.
    auto& store = out.score_weights;
    // (Pointers into the inner vectors stay valid as `store` grows: moving a vector keeps its buffer.)
    const bool needs_weights = score_has_weights(o.score);
    if (needs_weights || o.experimental_scaled_output) mo.head_params.resize(H);
    std::vector<const float*> extra(H, nullptr);
    for (std::size_t h = 0; h < H; ++h) {
        const std::size_t dh = head_dims[h];
        if (needs_weights) {
            ScoreParams& sp = mo.head_params[h];
            sp = ao.params;
            SeededMatrices source(h, o.seed, store);
            scores::score_def(o.score).head_params(sp, o.params, dh, nk, source);
        } else if (o.experimental_scaled_output) {
            mo.head_params[h] = ao.params;
        }
        if (o.experimental_scaled_output) {
            const std::size_t dv = o.projection == Projection::user ? o.d_value : dh;
            extra[h] = weights_or_seeded(nullptr, dv, dv, MatrixKind::W_extra, h, o.seed, store);
        }
    }
    if (o.experimental_scaled_output) {
        // W_extra differs per head; run the heads through per-head options.
        mo.head_extra = extra;
    }
    mo.head_begin = o.head_begin;
    mo.head_end = o.head_end;
    mo.place = o.place;
    return multi_head_attention(out.query_embeddings.view(), out.key_embeddings.view(), mo, out.attention);
}

Status attend_output_projection(const Vocabulary& vocab, const AttendOptions& o, ConstMatrix concat, Tensor& out) {
    const std::size_t d = vocab.dim(), H = o.heads, nq = concat.rows;
    if (H == 0) return Status::error("heads: expected at least 1");
    const float* Wo = nullptr;
    std::size_t d_out = 0, cols = 0;
    if (o.projection == Projection::random) {
        const std::size_t dh = d / H > 0 ? d / H : 1;
        Wo = seeded_projection(MatrixKind::Wo, H * dh, d, o.seed);  // as attend() draws it
        d_out = d;
        cols = H * dh;
    } else if (o.projection == Projection::user && o.Wo) {
        Wo = o.Wo;
        d_out = o.d_out;
        cols = H * o.d_value;
    }
    if (!Wo) {
        out = Tensor(nq, concat.cols);
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t j = 0; j < concat.cols; ++j) out(i, j) = concat(i, j);
        return {};
    }
    if (concat.cols != cols || d_out == 0)
        return Status::error("concat: expected " + std::to_string(cols) + " columns (heads x value width), got " +
                             std::to_string(concat.cols));
    out = Tensor(nq, d_out);
    kernels_for(o.variant).gemm_nn(nq, d_out, cols, concat.data, concat.stride, Wo, d_out, out.values.data(), d_out);
    return {};
}

}  // namespace attnscope
