#include "attnscope/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "attnscope/backward.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/projection.hpp"
#include "attnscope/random.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

namespace attnscope {

namespace {

constexpr float kLnEps = 1e-5f;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Streams of the PRNG for the non-score tensors: one per tensor, in the order tensors() lists them.
constexpr std::uint64_t kTensorStream = 0x7472616e73666d72ULL;  // "transfmr"

std::string num(std::uint64_t x) { return std::to_string(x); }

// The tensor of a score matrix kind: its name's last part, and its slot in ScoreSlots and ScoreGrads.
struct KindSlot {
    const char* suffix = nullptr;
    std::size_t Transformer::ScoreSlots::*slot = nullptr;
    Tensor ScoreGrads::*grad = nullptr;
};
KindSlot kind_slot(MatrixKind kind) {
    switch (kind) {
        case MatrixKind::W_general: return {"W", &Transformer::ScoreSlots::W, &ScoreGrads::dW};
        case MatrixKind::W1_additive: return {"W1", &Transformer::ScoreSlots::W1, &ScoreGrads::dW1};
        case MatrixKind::W2_additive: return {"W2", &Transformer::ScoreSlots::W2, &ScoreGrads::dW2};
        case MatrixKind::v_additive: return {"v", &Transformer::ScoreSlots::v, &ScoreGrads::dv};
        case MatrixKind::Wa_location: return {"Wa", &Transformer::ScoreSlots::Wa, &ScoreGrads::dWa};
        case MatrixKind::Wq:
        case MatrixKind::Wk:
        case MatrixKind::Wv:
        case MatrixKind::Wo:
        case MatrixKind::W_extra: break;
    }
    return {};
}

// Visits the matrices a score's definition lays out for one head (dh wide, max_tokens key positions;
// additive's hidden size = dh): f(rows, cols, kind) returns each matrix's address.
template <class F>
ScoreParams visit_head_matrices(Score score, std::size_t dh, std::size_t max_tokens, F&& f) {
    const scores::ScoreDef& def = scores::score_def(score);
    ScoreParams sp;
    if (!def.head_params) return sp;
    struct Source final : scores::MatrixSource {
        F& f;
        explicit Source(F& g) : f(g) {}
        const float* matrix(const float*, std::size_t rows, std::size_t cols, MatrixKind kind) override {
            return f(rows, cols, kind);
        }
    } source(f);
    def.head_params(sp, ScoreParams{}, dh, max_tokens, source);
    return sp;
}

// Adds the column sums of X (rows x cols, leading dimension ld) to out: a bias's gradient. A loop of
// rows·cols additions beside GEMMs of rows·cols·d_model multiply-adds, so not a kernel of its own.
void add_col_sums(std::size_t rows, std::size_t cols, const float* X, std::size_t ld, float* out) {
    for (std::size_t i = 0; i < rows; ++i) {
        const float* x = X + i * ld;
        for (std::size_t j = 0; j < cols; ++j) out[j] += x[j];
    }
}

// Y (rows x out) = X W^T + b, W [out, in] as nn.Linear stores it; then the activation.
void linear(const kernels::KernelTable& kt, std::size_t rows, std::size_t in, std::size_t out, const float* X,
            const float* W, const float* b, float* Y, kernels::Activation act) {
    kt.gemm_nt(rows, out, in, X, in, W, in, Y, out, 1.0f);
    kt.bias_activation(rows, out, Y, out, b, act);
}

}  // namespace

bool parse_head_label(const std::string& label, std::size_t layers, std::size_t heads, std::size_t& index) {
    const std::size_t dot = label.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == label.size() || dot > 9 || label.size() - dot - 1 > 9) return false;
    std::size_t l = 0, h = 0;
    for (std::size_t i = 0; i < label.size(); ++i) {
        if (i == dot) continue;
        const char ch = label[i];
        if (ch < '0' || ch > '9') return false;
        std::size_t& v = i < dot ? l : h;
        v = v * 10 + static_cast<std::size_t>(ch - '0');
    }
    if (l >= layers || h >= heads) return false;
    index = l * heads + h;
    return true;
}

Status Transformer::create(const TransformerConfig& c, Transformer& out) {
    namespace tl = transformer_limits;
    out = Transformer{};
    if (c.layers < 1 || c.layers > tl::kMaxLayers) return Status::error("layers: expected 1 to " + num(tl::kMaxLayers) + ", got " + num(c.layers));
    if (c.heads < 1 || c.heads > tl::kMaxHeads) return Status::error("heads: expected 1 to " + num(tl::kMaxHeads) + ", got " + num(c.heads));
    if (c.d_model < 1 || c.d_model > tl::kMaxWidth) return Status::error("dModel: expected 1 to " + num(tl::kMaxWidth) + ", got " + num(c.d_model));
    if (c.d_model % c.heads != 0)
        return Status::error("dModel: expected a multiple of heads (" + num(c.heads) + "), got " + num(c.d_model) +
                             "; each head takes dModel / heads of q, k and v");
    if (c.d_ff > tl::kMaxWidth) return Status::error("dFF: expected 0 (attention-only) to " + num(tl::kMaxWidth) + ", got " + num(c.d_ff));
    if (c.vocab < 1 || c.vocab > tl::kMaxVocab) return Status::error("vocab: expected 1 to " + num(tl::kMaxVocab) + ", got " + num(c.vocab));
    if (c.max_tokens < 1 || c.max_tokens > tl::kMaxTokens)
        return Status::error("maxTokens: expected 1 to " + num(tl::kMaxTokens) + ", got " + num(c.max_tokens));
    if (!c.scores.empty() && c.scores.size() != c.layers * c.heads)
        return Status::error("score: expected one scoring function per head (" + num(c.layers * c.heads) + "), got " + num(c.scores.size()));
    if (!c.learned_temperature && !(c.temperature > 0.0f && std::isfinite(c.temperature) && std::isfinite(1.0f / c.temperature)))
        return Status::error("temperature: expected a finite number > 0 (and >= 1e-30) or 'learned', got " + std::to_string(c.temperature));

    Transformer t;
    t.c_ = c;
    if (t.c_.scores.empty()) t.c_.scores.assign(c.layers * c.heads, Score::scaled_dot);
    const std::size_t D = c.d_model, F = c.d_ff, H = c.heads, dh = D / H, T = c.max_tokens;
    // The parameter count in 64 bits first (wasm's size_t has 32): within the per-call float budget,
    // so that one copy of the parameters and one of their gradients fit in any call.
    {
        std::uint64_t total = 0;
        auto add = [&total](std::uint64_t a, std::uint64_t b) { total = Budget::add(total, Budget::mul(a, b)); };
        add(c.vocab + T, D);
        for (std::size_t l = 0; l < c.layers; ++l) {
            add(3 * D + 1, D + 1);  // ln_1, c_attn (weights + bias), c_proj (roughly; a bound)
            add(D + 1, D + 1);
            add(H, 1);
            if (F) add(2 * F + 2, D + 1);
            for (std::size_t h = 0; h < H; ++h)
                if (const auto hf = scores::score_def(t.c_.scores[l * H + h]).head_floats) total = Budget::add(total, hf(ScoreParams{}, dh, T));
        }
        add(2, D);
        if (total > limits::kMaxFloats / 4)
            return Status::error("model: " + num(total) + " parameters are more than the limit of " + num(limits::kMaxFloats / 4) +
                                 "; use fewer layers, a smaller dModel, dFF, vocab or maxTokens");
    }
    std::size_t at = 0;
    auto tensor = [&](std::string name, std::vector<std::size_t> shape) {
        std::size_t size = 1;
        for (std::size_t s : shape) size *= s;
        t.tensors_.push_back(TensorInfo{std::move(name), std::move(shape), at, size});
        at += size;
        return t.tensors_.back().offset;
    };
    t.wte_ = tensor("transformer.wte.weight", {c.vocab, D});
    t.wpe_ = tensor("transformer.wpe.weight", {T, D});
    t.layer_slots_.resize(c.layers);
    t.score_slots_.resize(c.layers * H);
    for (std::size_t l = 0; l < c.layers; ++l) {
        const std::string p = "transformer.h." + num(l) + ".";
        LayerSlots& s = t.layer_slots_[l];
        s.ln1_w = tensor(p + "ln_1.weight", {D});
        s.ln1_b = tensor(p + "ln_1.bias", {D});
        s.attn_w = tensor(p + "attn.c_attn.weight", {3 * D, D});
        s.attn_b = tensor(p + "attn.c_attn.bias", {3 * D});
        s.proj_w = tensor(p + "attn.c_proj.weight", {D, D});
        s.proj_b = tensor(p + "attn.c_proj.bias", {D});
        if (c.learned_temperature) s.log_tau = tensor(p + "attn.log_tau", {H});
        for (std::size_t h = 0; h < H; ++h) {
            ScoreSlots& ss = t.score_slots_[l * H + h];
            visit_head_matrices(t.c_.scores[l * H + h], dh, T, [&](std::size_t rows, std::size_t cols, MatrixKind kind) -> const float* {
                const KindSlot k = kind_slot(kind);
                if (!k.slot) return nullptr;  // not a score's kind: the score's own check refuses the null
                std::vector<std::size_t> shape = cols == 1 ? std::vector<std::size_t>{rows} : std::vector<std::size_t>{rows, cols};
                ss.*k.slot = tensor(p + "attn.score." + num(h) + "." + k.suffix, std::move(shape));
                return nullptr;
            });
        }
        if (F) {
            s.ln2_w = tensor(p + "ln_2.weight", {D});
            s.ln2_b = tensor(p + "ln_2.bias", {D});
            s.fc_w = tensor(p + "mlp.c_fc.weight", {F, D});
            s.fc_b = tensor(p + "mlp.c_fc.bias", {F});
            s.mproj_w = tensor(p + "mlp.c_proj.weight", {D, F});
            s.mproj_b = tensor(p + "mlp.c_proj.bias", {D});
        }
    }
    t.lnf_w_ = tensor("transformer.ln_f.weight", {D});
    t.lnf_b_ = tensor("transformer.ln_f.bias", {D});
    t.params_.assign(at, 0.0f);

    // Initialisation. Uniform draws of the project's PCG32 (exactly rounded operations only, so the
    // same bytes natively and in wasm) with nanoGPT's standard deviations: U(−a, a) has σ = a/√3.
    const float sigma = 0.02f, sigma_proj = 0.02f / std::sqrt(2.0f * static_cast<float>(c.layers));
    for (std::size_t i = 0; i < t.tensors_.size(); ++i) {
        const TensorInfo& ti = t.tensors_[i];
        float* x = t.params_.data() + ti.offset;
        const std::string& n = ti.name;
        auto ends = [&n](const char* suffix) {
            const std::string s(suffix);
            return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
        };
        if (n.find(".attn.score.") != std::string::npos) continue;  // below, from the score's streams
        if (ends("ln_1.weight") || ends("ln_2.weight") || ends("ln_f.weight")) {
            std::fill(x, x + ti.size, 1.0f);
        } else if (ends(".weight")) {
            const float s = ends("c_proj.weight") ? sigma_proj : sigma;
            Pcg32 rng(c.seed, kTensorStream + i);
            for (std::size_t k = 0; k < ti.size; ++k) x[k] = rng.symmetric(s * std::sqrt(3.0f));
        }  // biases and log_tau stay 0
    }
    for (std::size_t l = 0; l < c.layers; ++l)
        for (std::size_t h = 0; h < H; ++h) {
            const ScoreSlots& ss = t.score_slots_[l * H + h];
            visit_head_matrices(t.c_.scores[l * H + h], dh, T, [&](std::size_t rows, std::size_t cols, MatrixKind kind) -> const float* {
                const KindSlot k = kind_slot(kind);
                if (!k.slot) return nullptr;
                const std::vector<float> w = xavier_uniform(rows, cols, c.seed, matrix_stream(kind, l * H + h));
                std::copy(w.begin(), w.end(), t.params_.begin() + static_cast<std::ptrdiff_t>(ss.*k.slot));
                return nullptr;
            });
        }
    out = std::move(t);
    return {};
}

long Transformer::find(const std::string& name) const {
    for (std::size_t i = 0; i < tensors_.size(); ++i)
        if (tensors_[i].name == name) return static_cast<long>(i);
    return -1;
}

Status Transformer::set_tensor(std::size_t index, const float* values, std::size_t count) {
    if (index >= tensors_.size()) return Status::error("parameters: no tensor number " + num(index));
    const TensorInfo& ti = tensors_[index];
    if (count != ti.size)
        return Status::error("parameters['" + ti.name + "']: expected " + num(ti.size) + " numbers, got " + num(count));
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isfinite(values[i]))
            return Status::error("parameters['" + ti.name + "']: element " + num(i) + " is not finite; every element must be a finite number");
    std::copy(values, values + count, params_.begin() + static_cast<std::ptrdiff_t>(ti.offset));
    return {};
}

ScoreParams Transformer::head_score_params(std::size_t index, const float* base) const {
    const ScoreSlots& ss = score_slots_[index];
    return visit_head_matrices(c_.scores[index], head_dim(), c_.max_tokens, [&](std::size_t, std::size_t, MatrixKind kind) -> const float* {
        const KindSlot k = kind_slot(kind);
        return k.slot && ss.*k.slot != kAbsent ? base + ss.*k.slot : nullptr;
    });
}

// What one forward pass keeps for the backward pass: rows x cols sequences stacked as N = rows·cols
// rows of the residual stream.
struct Transformer::Cache {
    std::size_t rows = 0, cols = 0, N = 0;
    struct Layer {
        std::vector<float> xin, h1, qkv, S, A, ho, xmid, h2, f, g;
    };
    std::vector<Layer> layers;
    std::vector<float> x, xf, logits;
};

Budget Transformer::loss_budget(std::uint64_t rows, std::uint64_t cols, bool want_grads) const {
    Budget b;
    const std::uint64_t L = c_.layers, H = c_.heads, D = c_.d_model, F = c_.d_ff, V = c_.vocab, dh = D / H;
    const std::uint64_t N = Budget::mul(rows, cols), pairs = Budget::mul(N, cols);  // N·cols = rows·cols² score entries per head
    // The forward's cache: per layer xin, h1, qkv (3), ho, xmid (+ h2 with an MLP) of D, f and g of F,
    // S and A per head; then x, xf and the logits.
    b.floats(L, N, 7 * D + 2 * F);
    b.floats(L, pairs, 2 * H);
    b.floats(N, 2 * D + V);
    // Per layer: c_attn, c_proj, the MLP; per head the scores (their own cost), softmax and A·V.
    const std::uint64_t passes = want_grads ? 3 : 1;  // the backward pass: two GEMMs per forward one
    b.work(L, N, D, (4 * D + 2 * F) * passes);
    b.work(N, V, D, passes);
    b.work(L, H, pairs, dh * 2 * passes + limits::kWeightCost);
    for (std::size_t l = 0; l < c_.layers; ++l)
        for (std::size_t h = 0; h < c_.heads; ++h) {
            Budget one;  // one sequence's score of one head, forward (and backward, about twice that)
            scores::score_def(c_.scores[l * H + h]).cost(one, scores::CostShape{cols, cols, dh, dh, dh});
            b.work(rows, one.work(), passes);
            b.floats(one.floats());  // its scratch: one head at a time
        }
    if (want_grads) {
        // The gradients, dlogits, the residual stream's and a layer's gradients (dx, dho, dqkv, dh, dg),
        // one head's dA and its score gradients (dQ, dK and its matrices' gradients).
        b.floats(params_.size());
        b.floats(N, V + 7 * D + F);
        b.floats(cols, cols + 2 * dh);
        b.floats(c_.max_tokens + 3 * dh, dh);
        b.work(N, D, 32);  // the layer norms' and GELU's backward passes, the bias sums
    }
    return b;
}

Budget Transformer::encode_budget(std::uint64_t n, const TransformerSurgery& s) const {
    Budget b = loss_budget(1, n, false);
    const std::uint64_t dh = head_dim();
    for (std::size_t i = 0; !s.scores.empty() && i < s.scores.size(); ++i) {
        const scores::ScoreDef& def = scores::score_def(s.scores[i]);
        Budget one;
        def.cost(one, scores::CostShape{n, n, dh, dh, dh});
        b.work(one.work());
        if (def.head_floats) b.floats(def.head_floats(ScoreParams{}, dh, c_.max_tokens));
    }
    b.floats(Budget::mul(c_.layers * c_.heads, n), n);  // the attentions handed back
    return b;
}

Status Transformer::forward(const std::int32_t* ids, std::size_t rows, std::size_t cols, const std::vector<Score>& scores,
                            const std::vector<ScoreParams>& head_params, const std::vector<std::uint8_t>& ablate,
                            Variant variant, Cache& k) const {
    const auto& kt = kernels_for(variant);
    const std::size_t L = c_.layers, H = c_.heads, D = c_.d_model, F = c_.d_ff, V = c_.vocab, dh = D / H, n = cols;
    const std::size_t N = rows * cols;
    const float* P = params_.data();
    k.rows = rows;
    k.cols = cols;
    k.N = N;
    k.layers.assign(L, {});
    k.x.assign(N * D, 0.0f);
    for (std::size_t r = 0; r < N; ++r) {
        const float* e = P + wte_ + static_cast<std::size_t>(ids[r]) * D;
        const float* pe = P + wpe_ + (r % n) * D;
        float* x = k.x.data() + r * D;
        for (std::size_t c = 0; c < D; ++c) x[c] = e[c] + pe[c];
    }
    for (std::size_t l = 0; l < L; ++l) {
        const LayerSlots& s = layer_slots_[l];
        Cache::Layer& y = k.layers[l];
        y.xin = k.x;
        y.h1.resize(N * D);
        kt.layer_norm(N, D, k.x.data(), D, P + s.ln1_w, P + s.ln1_b, kLnEps, y.h1.data(), D);
        y.qkv.resize(N * 3 * D);
        linear(kt, N, D, 3 * D, y.h1.data(), P + s.attn_w, P + s.attn_b, y.qkv.data(), kernels::Activation::none);
        y.S.assign(rows * H * n * n, 0.0f);
        y.A.assign(rows * H * n * n, 0.0f);
        y.ho.assign(N * D, 0.0f);
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t index = l * H + h;
            float inv_tau = 1.0f / c_.temperature;
            if (c_.learned_temperature) {
                inv_tau = std::exp(-P[s.log_tau + h]);
                if (!(std::isfinite(inv_tau) && inv_tau > 0.0f))
                    return Status::error("parameters['transformer.h." + num(l) + ".attn.log_tau']: head " + num(h) + "'s log_tau = " +
                                         std::to_string(P[s.log_tau + h]) + " gives no usable temperature; keep it within ±80");
            }
            for (std::size_t b = 0; b < rows; ++b) {
                const float* base = y.qkv.data() + b * n * 3 * D + h * dh;
                ConstMatrix Q(base, n, dh, 3 * D), K(base + D, n, dh, 3 * D);
                float* S = y.S.data() + (b * H + h) * n * n;
                float* A = y.A.data() + (b * H + h) * n * n;
                if (Status st = compute_scores(scores[index], Q, K, head_params[index], Matrix(S, n, n), variant); !st) return st;
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t j = i + 1; j < n; ++j) S[i * n + j] = kNegInf;
                kt.softmax_rows(n, n, S, n, inv_tau, A, n);
                if (!ablate.empty() && ablate[index]) continue;  // knocked out: its output stays zero
                kt.gemm_nn(n, dh, n, A, n, base + 2 * D, 3 * D, y.ho.data() + b * n * D + h * dh, D);
            }
        }
        // x += c_proj(heads)
        y.xmid.resize(N * D);
        linear(kt, N, D, D, y.ho.data(), P + s.proj_w, P + s.proj_b, y.xmid.data(), kernels::Activation::none);
        for (std::size_t i = 0; i < N * D; ++i) y.xmid[i] += k.x[i];
        k.x = y.xmid;
        if (F) {
            y.h2.resize(N * D);
            kt.layer_norm(N, D, y.xmid.data(), D, P + s.ln2_w, P + s.ln2_b, kLnEps, y.h2.data(), D);
            y.f.resize(N * F);
            linear(kt, N, D, F, y.h2.data(), P + s.fc_w, P + s.fc_b, y.f.data(), kernels::Activation::none);
            y.g = y.f;
            const std::vector<float> zero_bias(F, 0.0f);
            kt.bias_activation(N, F, y.g.data(), F, zero_bias.data(), kernels::Activation::gelu);
            std::vector<float> m(N * D);
            linear(kt, N, F, D, y.g.data(), P + s.mproj_w, P + s.mproj_b, m.data(), kernels::Activation::none);
            for (std::size_t i = 0; i < N * D; ++i) k.x[i] += m[i];
        }
    }
    k.xf.resize(N * D);
    kt.layer_norm(N, D, k.x.data(), D, P + lnf_w_, P + lnf_b_, kLnEps, k.xf.data(), D);
    k.logits.resize(N * V);
    kt.gemm_nt(N, V, D, k.xf.data(), D, P + wte_, D, k.logits.data(), V, 1.0f);
    return {};
}

namespace {

// Seeded score matrices for a re-scored head (seed 1, the head's streams), as USE-Lite's re-scored heads get.
class SeededHeadMatrices final : public scores::MatrixSource {
public:
    SeededHeadMatrices(std::size_t index, std::vector<std::vector<float>>& store) : index_(index), store_(store) {}
    const float* matrix(const float* given, std::size_t rows, std::size_t cols, MatrixKind kind) override {
        if (given) return given;
        store_.push_back(xavier_uniform(rows, cols, 1, matrix_stream(kind, index_)));
        return store_.back().data();
    }

private:
    std::size_t index_;
    std::vector<std::vector<float>>& store_;
};

Status check_ids(const char* what, const std::int32_t* ids, std::size_t count, std::size_t vocab) {
    for (std::size_t i = 0; i < count; ++i)
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= vocab)
            return Status::error(std::string(what) + ": id " + std::to_string(ids[i]) + " at position " + num(i) +
                                 " is outside the vocabulary (0 to " + num(vocab - 1) + ")");
    return {};
}

}  // namespace

Status Transformer::encode(const std::int32_t* ids, std::size_t n, const TransformerSurgery& s, TransformerRun& out) const {
    out = TransformerRun{};
    if (empty()) return Status::error("model: no model was created");
    const std::size_t L = c_.layers, H = c_.heads, count = L * H;
    if (n == 0) return Status::error("ids: expected at least one token id");
    if (n > c_.max_tokens)
        return Status::error("ids: " + num(n) + " ids are more than the model's maxTokens (" + num(c_.max_tokens) +
                             "); pass at most maxTokens ids (the positions wpe has)");
    if (!s.scores.empty() && s.scores.size() != count)
        return Status::error("score: expected one scoring function per head (" + num(count) + "), got " + num(s.scores.size()));
    if (!s.ablate.empty() && s.ablate.size() != count)
        return Status::error("ablate: expected one flag per head (" + num(count) + "), got " + num(s.ablate.size()));
    if (Status st = encode_budget(n, s).check_lazily(
            [&] { return "encoding " + num(n) + " tokens with " + num(L) + " layers of " + num(H) + " heads"; },
            "pass fewer ids");
        !st)
        return Status::error("ids: " + st.message());
    if (Status st = check_ids("ids", ids, n, c_.vocab); !st) return st;
    std::vector<Score> scores = s.scores.empty() ? c_.scores : s.scores;
    std::vector<ScoreParams> hp(count);
    std::vector<std::vector<float>> seeded;
    seeded.reserve(count * 4);
    for (std::size_t i = 0; i < count; ++i) {
        if (scores[i] == c_.scores[i]) {
            hp[i] = head_score_params(i, params_.data());
        } else if (const auto head_params = scores::score_def(scores[i]).head_params) {
            SeededHeadMatrices source(i, seeded);
            head_params(hp[i], ScoreParams{}, head_dim(), c_.max_tokens, source);
        }
    }
    Cache k;
    if (Status st = forward(ids, 1, n, scores, hp, s.ablate, s.variant, k); !st) return st;
    out.n = n;
    out.attentions.resize(count * n * n);
    for (std::size_t l = 0; l < L; ++l)
        std::copy(k.layers[l].A.begin(), k.layers[l].A.end(), out.attentions.begin() + static_cast<std::ptrdiff_t>(l * H * n * n));
    out.logits = std::move(k.logits);
    return {};
}

Status Transformer::loss(const std::int32_t* ids, const std::int32_t* targets, std::size_t rows, std::size_t cols,
                         bool want_grads, Variant variant, TransformerLoss& out) const {
    out = TransformerLoss{};
    if (empty()) return Status::error("model: no model was created");
    if (rows == 0) return Status::error("rows: expected at least one sequence");
    if (cols == 0 || cols > c_.max_tokens)
        return Status::error("cols: expected 1 to maxTokens = " + num(c_.max_tokens) + " tokens per sequence, got " + num(cols));
    if (Status st = loss_budget(rows, cols, want_grads).check_lazily(
            [&] { return "the loss" + std::string(want_grads ? " and gradients" : "") + " of " + num(rows) + " sequences of " + num(cols) + " tokens"; },
            "use fewer or shorter sequences per call");
        !st)
        return st;
    const std::size_t L = c_.layers, H = c_.heads, D = c_.d_model, F = c_.d_ff, V = c_.vocab, dh = D / H, n = cols;
    const std::size_t N = rows * cols;
    if (Status st = check_ids("ids", ids, N, V); !st) return st;
    for (std::size_t r = 0; r < N; ++r)
        if (targets[r] >= 0 && static_cast<std::size_t>(targets[r]) >= V)
            return Status::error("targets: target " + std::to_string(targets[r]) + " at position " + num(r) +
                                 " is outside the vocabulary (0 to " + num(V - 1) + "; a negative target is not counted)");
    std::vector<ScoreParams> hp(L * H);
    for (std::size_t i = 0; i < L * H; ++i) hp[i] = head_score_params(i, params_.data());
    Cache k;
    if (Status st = forward(ids, rows, cols, c_.scores, hp, {}, variant, k); !st) return st;

    // Mean cross-entropy (log-sum-exp in double) and dL/dlogits = (softmax − onehot) / count.
    for (std::size_t r = 0; r < N; ++r) out.count += targets[r] >= 0 ? 1 : 0;
    std::vector<float> dlogits(want_grads ? N * V : 0, 0.0f);
    double total = 0.0;
    for (std::size_t r = 0; r < N; ++r) {
        if (targets[r] < 0) continue;
        const float* z = k.logits.data() + r * V;
        std::size_t arg = 0;
        for (std::size_t j = 1; j < V; ++j)
            if (z[j] > z[arg]) arg = j;
        double sum = 0.0;
        for (std::size_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(z[j]) - z[arg]);
        const double lse = static_cast<double>(z[arg]) + std::log(sum);
        const auto t = static_cast<std::size_t>(targets[r]);
        total += lse - z[t];
        out.hits += arg == t ? 1 : 0;
        if (want_grads) {
            const double scale = 1.0 / static_cast<double>(out.count);
            for (std::size_t j = 0; j < V; ++j)
                dlogits[r * V + j] = static_cast<float>((std::exp(static_cast<double>(z[j]) - lse) - (j == t ? 1.0 : 0.0)) * scale);
        }
    }
    if (!std::isfinite(total)) return Status::error("loss: not finite (the logits overflowed); lower the learning rate or the parameters' scale");
    out.loss = out.count ? total / static_cast<double>(out.count) : 0.0;
    if (!want_grads) return {};

    const auto& kt = kernels_for(variant);
    const float* P = params_.data();
    out.grads.assign(params_.size(), 0.0f);
    float* G = out.grads.data();
    // logits = xf wteᵀ: dwte = dlogitsᵀ xf (the embedding's share is added at the end), dxf = dlogits wte.
    kt.gemm_tn(V, D, N, dlogits.data(), V, k.xf.data(), D, G + wte_, D);
    std::vector<float> dxf(N * D), dx(N * D, 0.0f);
    kt.gemm_nn(N, D, V, dlogits.data(), V, P + wte_, D, dxf.data(), D);
    kt.layer_norm_backward(N, D, k.x.data(), D, P + lnf_w_, kLnEps, dxf.data(), D, dx.data(), D, G + lnf_w_, G + lnf_b_);
    std::vector<float> dh_(N * D), dho(N * D), dqkv(N * 3 * D), dg(N * F), dA(n * n);
    for (std::size_t l = L; l-- > 0;) {
        const LayerSlots& s = layer_slots_[l];
        const Cache::Layer& y = k.layers[l];
        if (F) {
            // x = xmid + mlp.c_proj(GELU(c_fc(ln_2(xmid))))
            kt.gemm_tn(D, F, N, dx.data(), D, y.g.data(), F, G + s.mproj_w, F);
            add_col_sums(N, D, dx.data(), D, G + s.mproj_b);
            kt.gemm_nn(N, F, D, dx.data(), D, P + s.mproj_w, F, dg.data(), F);
            kt.gelu_backward(N, F, y.f.data(), F, dg.data(), F);
            kt.gemm_tn(F, D, N, dg.data(), F, y.h2.data(), D, G + s.fc_w, D);
            add_col_sums(N, F, dg.data(), F, G + s.fc_b);
            kt.gemm_nn(N, D, F, dg.data(), F, P + s.fc_w, D, dh_.data(), D);
            kt.layer_norm_backward(N, D, y.xmid.data(), D, P + s.ln2_w, kLnEps, dh_.data(), D, dx.data(), D, G + s.ln2_w, G + s.ln2_b);
        }
        // xmid = xin + c_proj(ho)
        kt.gemm_tn(D, D, N, dx.data(), D, y.ho.data(), D, G + s.proj_w, D);
        add_col_sums(N, D, dx.data(), D, G + s.proj_b);
        kt.gemm_nn(N, D, D, dx.data(), D, P + s.proj_w, D, dho.data(), D);
        std::fill(dqkv.begin(), dqkv.end(), 0.0f);
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t index = l * H + h;
            const float inv_tau = c_.learned_temperature ? std::exp(-P[s.log_tau + h]) : 1.0f / c_.temperature;
            double dlog_tau = 0.0;
            const ScoreParams& sp = hp[index];
            for (std::size_t b = 0; b < rows; ++b) {
                const float* base = y.qkv.data() + b * n * 3 * D + h * dh;
                float* dbase = dqkv.data() + b * n * 3 * D + h * dh;
                const float* S = y.S.data() + (b * H + h) * n * n;
                const float* A = y.A.data() + (b * H + h) * n * n;
                const float* dY = dho.data() + b * n * D + h * dh;
                // O = A V: dA = dY Vᵀ, dV = Aᵀ dY
                kt.gemm_nt(n, n, dh, dY, D, base + 2 * D, 3 * D, dA.data(), n, 1.0f);
                kt.gemm_tn(n, dh, n, A, n, dY, D, dbase + 2 * D, 3 * D);
                // A = softmax(Z), Z = S / τ: dZ (in place), then dS = dZ / τ and dlog_τ = Σ dZ · (−Z)
                kt.softmax_backward_rows(n, n, A, n, dA.data(), n, 1.0f, dA.data(), n);
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t j = 0; j < n; ++j) {
                        float& d = dA[i * n + j];
                        if (j > i) { d = 0.0f; continue; }  // masked: no gradient
                        if (c_.learned_temperature) dlog_tau -= static_cast<double>(d) * S[i * n + j] * inv_tau;
                        d *= inv_tau;
                    }
                ScoreGrads sg;
                ConstMatrix Q(base, n, dh, 3 * D), K(base + D, n, dh, 3 * D);
                if (Status st = compute_scores_backward(c_.scores[index], Q, K, sp, ConstMatrix(dA.data(), n, n), sg, variant); !st)
                    return st;
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t c = 0; c < dh; ++c) {
                        dbase[i * 3 * D + c] = sg.dQ(i, c);
                        dbase[i * 3 * D + D + c] = sg.dK(i, c);
                    }
                const ScoreSlots& ss = score_slots_[index];
                for (const MatrixKind kind : {MatrixKind::W_general, MatrixKind::W1_additive, MatrixKind::W2_additive,
                                              MatrixKind::v_additive, MatrixKind::Wa_location}) {
                    const KindSlot ks = kind_slot(kind);
                    if (ss.*ks.slot == kAbsent) continue;
                    const Tensor& gt = sg.*ks.grad;
                    float* dst = G + ss.*ks.slot;
                    for (std::size_t e = 0; e < gt.values.size(); ++e) dst[e] += gt.values[e];
                }
            }
            if (c_.learned_temperature) G[s.log_tau + h] += static_cast<float>(dlog_tau);
        }
        // qkv = c_attn(ln_1(xin))
        kt.gemm_tn(3 * D, D, N, dqkv.data(), 3 * D, y.h1.data(), D, G + s.attn_w, D);
        add_col_sums(N, 3 * D, dqkv.data(), 3 * D, G + s.attn_b);
        kt.gemm_nn(N, D, 3 * D, dqkv.data(), 3 * D, P + s.attn_w, D, dh_.data(), D);
        kt.layer_norm_backward(N, D, y.xin.data(), D, P + s.ln1_w, kLnEps, dh_.data(), D, dx.data(), D, G + s.ln1_w, G + s.ln1_b);
    }
    for (std::size_t r = 0; r < N; ++r) {
        float* ge = G + wte_ + static_cast<std::size_t>(ids[r]) * D;
        float* gp = G + wpe_ + (r % n) * D;
        const float* d = dx.data() + r * D;
        for (std::size_t c = 0; c < D; ++c) {
            ge[c] += d[c];
            gp[c] += d[c];
        }
    }
    return {};
}

}  // namespace attnscope
