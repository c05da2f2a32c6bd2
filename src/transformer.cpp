#include "attnscope/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "attnscope/backward.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/positional.hpp"
#include "attnscope/projection.hpp"
#include "attnscope/random.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"
#include "seeded_head.hpp"

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
    // in the order of score_matrix_kind()
    static constexpr const char* kSuffixes[] = {"W", "W1", "W2", "v", "Wa"};
    static constexpr std::size_t Transformer::ScoreSlots::*kSlots[] = {&Transformer::ScoreSlots::W, &Transformer::ScoreSlots::W1,
                                                                      &Transformer::ScoreSlots::W2, &Transformer::ScoreSlots::v,
                                                                      &Transformer::ScoreSlots::Wa};
    const ScoreMatrixKind m = score_matrix_kind(kind);
    if (m.index < 0) return {};
    return {kSuffixes[m.index], kSlots[m.index], m.grad};
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

kernels::Activation kernel_activation(MlpActivation a) {
    switch (a) {
        case MlpActivation::relu: return kernels::Activation::relu;
        case MlpActivation::tanh: return kernels::Activation::tanh;
        case MlpActivation::gelu: break;
    }
    return kernels::Activation::gelu;
}

// The activation's backward pass, in place on dG: f its input, g its output. ReLU's derivative at 0 is
// 0 (PyTorch's); tanh's 1 − g². Loops of rows·cols beside GEMMs of rows·cols·d_model, as add_col_sums.
void activation_backward(const kernels::KernelTable& kt, MlpActivation a, std::size_t rows, std::size_t cols, const float* f, const float* g,
                         float* dG) {
    const std::size_t count = rows * cols;
    switch (a) {
        case MlpActivation::gelu: kt.gelu_backward(rows, cols, f, cols, dG, cols); return;
        case MlpActivation::relu:
            for (std::size_t i = 0; i < count; ++i) dG[i] = f[i] > 0.0f ? dG[i] : 0.0f;
            return;
        case MlpActivation::tanh:
            for (std::size_t i = 0; i < count; ++i) dG[i] *= 1.0f - g[i] * g[i];
            return;
    }
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

// The config checked and the tensors laid out (names, shapes, offsets, the heads' score slots), in
// `t`; nothing allocated for the parameters yet: create() initialises them, from_safetensors() reads
// them once the file is known to hold them.
Status Transformer::layout(const TransformerConfig& c, Transformer& t) {
    namespace tl = transformer_limits;

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
    const bool pairs = c.kind == ModelKind::encoder_decoder;
    const std::size_t heads_total = (pairs ? 3 : 1) * c.layers * c.heads;
    if (!c.scores.empty() && c.scores.size() != heads_total)
        return Status::error("score: expected one scoring function per head (" + num(heads_total) + "), got " + num(c.scores.size()));
    if (!c.learned_temperature && !(c.temperature > 0.0f && std::isfinite(c.temperature) && std::isfinite(1.0f / c.temperature)))
        return Status::error("temperature: expected a finite number > 0 (and >= 1e-30) or 'learned', got " + std::to_string(c.temperature));

    t = Transformer{};
    t.c_ = c;
    if (t.c_.scores.empty()) t.c_.scores.assign(heads_total, Score::scaled_dot);
    const std::size_t D = c.d_model, F = c.d_ff, H = c.heads, dh = D / H, T = c.max_tokens;
    // The parameter count in 64 bits first (wasm's size_t has 32): within the per-call float budget,
    // so that one copy of the parameters and one of their gradients fit in any call.
    {
        std::uint64_t total = 0;
        auto add = [&total](std::uint64_t a, std::uint64_t b) { total = Budget::add(total, Budget::mul(a, b)); };
        add(c.vocab + 2 * T, D);
        for (std::size_t l = 0; l < (pairs ? 2 : 1) * c.layers; ++l) {
            add(3 * D + 1, D + 1);  // ln_1, c_attn, c_proj (a bound)
            add(D + 1, D + 1);
            add(H, 1);
            if (F) add(2 * F + 2, D + 1);
            if (pairs) add(4 * D + 2, D + 1);  // cross-attention (a bound)
        }
        for (std::size_t i = 0; i < heads_total; ++i)
            if (const auto hf = scores::score_def(t.c_.scores[i]).head_floats) total = Budget::add(total, hf(ScoreParams{}, dh, T));
        add(4, D);
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
    // A layer's <name>.weight of `shape` and <name>.bias of shape[0] (nn.Linear, nn.LayerNorm), in that order.
    auto weight_bias = [&](const std::string& name, std::vector<std::size_t> shape, std::size_t& w, std::size_t& b) {
        const std::size_t out = shape[0];
        w = tensor(name + ".weight", std::move(shape));
        b = tensor(name + ".bias", {out});
    };
    t.score_slots_.resize(heads_total);
    // The heads' score matrices: named <prefix>score.<head>.<W | W1 | W2 | v | Wa>, where used.
    auto score_tensors = [&](const std::string& prefix, std::size_t base) {
        for (std::size_t h = 0; h < H; ++h) {
            ScoreSlots& ss = t.score_slots_[base + h];
            visit_head_matrices(t.c_.scores[base + h], dh, T, [&](std::size_t rows, std::size_t cols, MatrixKind kind) -> const float* {
                const KindSlot k = kind_slot(kind);
                if (!k.slot) return nullptr;  // not a score's kind: the score's own check refuses the null
                std::vector<std::size_t> shape = cols == 1 ? std::vector<std::size_t>{rows} : std::vector<std::size_t>{rows, cols};
                ss.*k.slot = tensor(prefix + "score." + num(h) + "." + k.suffix, std::move(shape));
                return nullptr;
            });
        }
    };
    auto stack = [&](const std::string& name, StackSlots& st, bool causal, bool cross, std::size_t self_base, std::size_t cross_base) {
        st.causal = causal;
        st.cross = cross;
        st.self_base = self_base;
        st.cross_base = cross_base;
        st.wpe = c.positions == Positions::learned ? tensor(name + ".wpe.weight", {T, D}) : kAbsent;
        st.layers.resize(c.layers);
        for (std::size_t l = 0; l < c.layers; ++l) {
            const std::string p = name + ".h." + num(l) + ".";
            LayerSlots& s = st.layers[l];
            // An attention block's output projection, learned temperatures and score matrices (self or cross).
            const auto block_tail = [&](const std::string& block, std::size_t& proj_w, std::size_t& proj_b, std::size_t& log_tau,
                                        std::size_t first_head) {
                weight_bias(block + "c_proj", {D, D}, proj_w, proj_b);
                if (c.learned_temperature) log_tau = tensor(block + "log_tau", {H});
                score_tensors(block, first_head);
            };
            weight_bias(p + "ln_1", {D}, s.ln1_w, s.ln1_b);
            weight_bias(p + "attn.c_attn", {3 * D, D}, s.attn_w, s.attn_b);
            block_tail(p + "attn.", s.proj_w, s.proj_b, s.log_tau, self_base + l * H);
            if (cross) {
                weight_bias(p + "ln_cross", {D}, s.lnc_w, s.lnc_b);
                weight_bias(p + "cross.c_q", {D, D}, s.cq_w, s.cq_b);
                weight_bias(p + "cross.c_kv", {2 * D, D}, s.ckv_w, s.ckv_b);
                block_tail(p + "cross.", s.cproj_w, s.cproj_b, s.clog_tau, cross_base + l * H);
            }
            if (F) {
                weight_bias(p + "ln_2", {D}, s.ln2_w, s.ln2_b);
                weight_bias(p + "mlp.c_fc", {F, D}, s.fc_w, s.fc_b);
                weight_bias(p + "mlp.c_proj", {D, F}, s.mproj_w, s.mproj_b);
            }
        }
        st.lnf_w = st.lnf_b = kAbsent;
        if (c.norm == Norm::pre) weight_bias(name + ".ln_f", {D}, st.lnf_w, st.lnf_b);
    };
    const std::size_t LH = c.layers * H;
    if (pairs) {
        t.wte_ = tensor("transformer.wte.weight", {c.vocab, D});
        stack("encoder", t.enc_, false, false, 0, 0);
        stack("decoder", t.dec_, true, true, LH, 2 * LH);
    } else {
        // nanoGPT's order: wte, wpe, the blocks, ln_f.
        t.wte_ = tensor("transformer.wte.weight", {c.vocab, D});
        stack("transformer", t.dec_, true, false, 0, 0);
    }
    return {};
}

Status Transformer::create(const TransformerConfig& c, Transformer& out) {
    out = Transformer{};
    Transformer t;
    if (Status st = layout(c, t); !st) return st;
    const std::size_t D = c.d_model, H = c.heads, dh = D / H, T = c.max_tokens;
    const std::size_t heads_total = t.c_.scores.size();
    const TensorInfo& last = t.tensors_.back();
    t.params_.assign(last.offset + last.size, 0.0f);

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
        if (n.find(".score.") != std::string::npos) continue;  // below, from the score's streams
        if (ends("ln_1.weight") || ends("ln_2.weight") || ends("ln_cross.weight") || ends("ln_f.weight")) {
            std::fill(x, x + ti.size, 1.0f);
        } else if (ends(".weight")) {
            const float s = ends("c_proj.weight") ? sigma_proj : sigma;
            Pcg32 rng(c.seed, kTensorStream + i);
            for (std::size_t k = 0; k < ti.size; ++k) x[k] = rng.symmetric(s * std::sqrt(3.0f));
        }  // biases and log_tau stay 0
    }
    for (std::size_t g = 0; g < heads_total; ++g) {
        const ScoreSlots& ss = t.score_slots_[g];
        visit_head_matrices(t.c_.scores[g], dh, T, [&](std::size_t rows, std::size_t cols, MatrixKind kind) -> const float* {
            const KindSlot k = kind_slot(kind);
            if (!k.slot) return nullptr;
            const std::vector<float> w = xavier_uniform(rows, cols, c.seed, matrix_stream(kind, g));
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

// What one stack's forward pass keeps for its backward pass: rows sequences of n tokens stacked as
// N = rows·n rows of the residual stream; attention caches S and A are [rows, heads, nq, nk].
struct Transformer::StackCache {
    std::size_t rows = 0, n = 0, N = 0;
    struct Attn {
        // xin: the sublayer's input (the residual); h: what its linear layers read (LN(xin), or xin when
        // post-LN); sum: xin + its output, the post-LN LayerNorm's input (empty when pre-LN).
        std::vector<float> xin, h, q, kv, S, A, ho, sum;  // self-attention: q holds q | k | v (3·D wide), kv is empty
    };
    struct Layer {
        Attn self, cross;
        std::vector<float> xm, h2, f, g, sum2;  // the MLP's input (the residual), its LayerNorm (post-LN: xm), c_fc's output, the activation's, xm + the MLP (post-LN)
    };
    std::vector<Layer> layers;
    std::vector<float> x, xf;  // the stack's output residual and its final LayerNorm
};

namespace {

// One attention sublayer's heads over rows sequences: Q (nq rows each), K and V (nk rows each) with
// their leading dimensions; head h uses columns h·dh … (h+1)·dh of each. S, A: [rows, H, nq, nk].
struct HeadsArgs {
    const kernels::KernelTable* kt = nullptr;
    Variant variant = Variant::automatic;
    std::size_t rows = 0, nq = 0, nk = 0, H = 0, dh = 0, D = 0;
    const float *Q = nullptr, *K = nullptr, *V = nullptr;
    std::size_t ldq = 0, ldk = 0, ldv = 0;
    bool causal = false;
    const Score* scores = nullptr;     // H
    const ScoreParams* hp = nullptr;   // H
    const float* log_tau = nullptr;    // H, or null: fixed_inv_tau
    float fixed_inv_tau = 1.0f;
    const std::uint8_t* ablate = nullptr;  // H, or null
};

// What every sublayer of one pass shares: the kernels, the rows, the heads' sizes, the fixed temperature.
HeadsArgs heads_args(const kernels::KernelTable& kt, Variant variant, std::size_t rows, std::size_t H, std::size_t D, float fixed_inv_tau) {
    HeadsArgs a;
    a.kt = &kt;
    a.variant = variant;
    a.rows = rows;
    a.H = H;
    a.dh = D / H;
    a.D = D;
    a.fixed_inv_tau = fixed_inv_tau;
    return a;
}

// Points a at one sublayer: Q (leading dimension ldq), K and V side by side in KV (K's D columns, then
// V's; leading dimension ldkv), the heads' scores, parameters and knock-outs from entry `base`.
void aim_heads(HeadsArgs& a, std::size_t nq, std::size_t nk, const float* Q, std::size_t ldq, const float* KV, std::size_t ldkv,
               bool causal, std::size_t base, const std::vector<Score>& scores, const std::vector<ScoreParams>& hp,
               const std::vector<std::uint8_t>& ablate, const float* log_tau) {
    a.nq = nq;
    a.nk = nk;
    a.Q = Q;
    a.ldq = ldq;
    a.K = KV;
    a.V = KV + a.D;
    a.ldk = a.ldv = ldkv;
    a.causal = causal;
    a.scores = scores.data() + base;
    a.hp = hp.data() + base;
    a.log_tau = log_tau;
    a.ablate = ablate.empty() ? nullptr : ablate.data() + base;
}

float head_inv_tau(const HeadsArgs& a, std::size_t h) { return a.log_tau ? std::exp(-a.log_tau[h]) : a.fixed_inv_tau; }

Status heads_forward(const HeadsArgs& a, float* S, float* A, float* ho) {
    const std::size_t nq = a.nq, nk = a.nk, H = a.H, dh = a.dh;
    for (std::size_t h = 0; h < H; ++h) {
        const float inv_tau = head_inv_tau(a, h);
        if (!(std::isfinite(inv_tau) && inv_tau > 0.0f))
            return Status::error("log_tau = " + std::to_string(a.log_tau[h]) + " of head " + num(h) + " gives no usable temperature; keep it within ±80");
        for (std::size_t b = 0; b < a.rows; ++b) {
            ConstMatrix Q(a.Q + b * nq * a.ldq + h * dh, nq, dh, a.ldq), K(a.K + b * nk * a.ldk + h * dh, nk, dh, a.ldk);
            float* Sb = S + (b * H + h) * nq * nk;
            float* Ab = A + (b * H + h) * nq * nk;
            if (Status st = compute_scores(a.scores[h], Q, K, a.hp[h], Matrix(Sb, nq, nk), a.variant); !st) return st;
            if (a.causal)
                for (std::size_t i = 0; i < nq; ++i)
                    for (std::size_t j = i + 1; j < nk; ++j) Sb[i * nk + j] = kNegInf;
            a.kt->softmax_rows(nq, nk, Sb, nk, inv_tau, Ab, nk);
            if (a.ablate && a.ablate[h]) continue;  // knocked out: its output stays zero
            a.kt->gemm_nn(nq, dh, nk, Ab, nk, a.V + b * nk * a.ldv + h * dh, a.ldv, ho + b * nq * a.D + h * dh, a.D);
        }
    }
    return {};
}

// The backward pass of heads_forward given dho (rows·nq x D): dQ, dK, dV written (each region once) at
// their leading dimensions; the score matrices' gradients added at `slots` (one per head) into G, and
// dlog_tau[h] added (when log_tau is learned); with dA_out, ∂/∂A written there (laid out as A; an ablated
// head's left as it is). slots null: the score matrices' gradients are not kept.
Status heads_backward(const HeadsArgs& a, const float* S, const float* A, const float* dho, float* dQ, float* dK, float* dV,
                      std::size_t lddq, std::size_t lddk, std::size_t lddv, const Transformer::ScoreSlots* slots, float* G,
                      float* dlog_tau, float* dA_out) {
    const std::size_t nq = a.nq, nk = a.nk, H = a.H, dh = a.dh;
    std::vector<float> dA(nq * nk);
    for (std::size_t h = 0; h < H; ++h) {
        const float inv_tau = head_inv_tau(a, h);
        double dlt = 0.0;
        for (std::size_t b = 0; b < a.rows; ++b) {
            const float* Sb = S + (b * H + h) * nq * nk;
            const float* Ab = A + (b * H + h) * nq * nk;
            const float* dY = dho + b * nq * a.D + h * dh;
            const float* V = a.V + b * nk * a.ldv + h * dh;
            float* dVb = dV + b * nk * lddv + h * dh;
            if (a.ablate && a.ablate[h]) {  // its output was zeroed: no gradient flows into it
                for (std::size_t j = 0; j < nk; ++j) std::fill(dVb + j * lddv, dVb + j * lddv + dh, 0.0f);
                for (std::size_t i = 0; i < nq; ++i) std::fill(dQ + (b * nq + i) * lddq + h * dh, dQ + (b * nq + i) * lddq + (h + 1) * dh, 0.0f);
                for (std::size_t j = 0; j < nk; ++j) std::fill(dK + (b * nk + j) * lddk + h * dh, dK + (b * nk + j) * lddk + (h + 1) * dh, 0.0f);
                continue;
            }
            // O = A V: dA = dY Vᵀ, dV = Aᵀ dY
            a.kt->gemm_nt(nq, nk, dh, dY, a.D, V, a.ldv, dA.data(), nk, 1.0f);
            if (dA_out) std::copy(dA.begin(), dA.end(), dA_out + (b * H + h) * nq * nk);  // ∂/∂A, before the softmax's backward
            a.kt->gemm_tn(nk, dh, nq, Ab, nk, dY, a.D, dVb, lddv);
            // A = softmax(Z), Z = S / τ: dZ (in place), then dS = dZ / τ and dlog_τ = Σ dZ · (−Z)
            a.kt->softmax_backward_rows(nq, nk, Ab, nk, dA.data(), nk, 1.0f, dA.data(), nk);
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t j = 0; j < nk; ++j) {
                    float& d = dA[i * nk + j];
                    if (a.causal && j > i) { d = 0.0f; continue; }  // masked: no gradient
                    if (a.log_tau) dlt -= static_cast<double>(d) * Sb[i * nk + j] * inv_tau;
                    d *= inv_tau;
                }
            ScoreGrads sg;
            ConstMatrix Q(a.Q + b * nq * a.ldq + h * dh, nq, dh, a.ldq), K(a.K + b * nk * a.ldk + h * dh, nk, dh, a.ldk);
            if (Status st = compute_scores_backward(a.scores[h], Q, K, a.hp[h], ConstMatrix(dA.data(), nq, nk), sg, a.variant); !st)
                return st;
            for (std::size_t i = 0; i < nq; ++i) std::copy_n(sg.dQ.values.data() + i * dh, dh, dQ + (b * nq + i) * lddq + h * dh);
            for (std::size_t j = 0; j < nk; ++j) std::copy_n(sg.dK.values.data() + j * dh, dh, dK + (b * nk + j) * lddk + h * dh);
            for (const MatrixKind kind : {MatrixKind::W_general, MatrixKind::W1_additive, MatrixKind::W2_additive,
                                          MatrixKind::v_additive, MatrixKind::Wa_location}) {
                const KindSlot ks = kind_slot(kind);
                if (!slots || slots[h].*ks.slot == Transformer::kAbsent) continue;
                const Tensor& gt = sg.*ks.grad;
                float* dst = G + slots[h].*ks.slot;
                for (std::size_t e = 0; e < gt.values.size(); ++e) dst[e] += gt.values[e];
            }
        }
        if (a.log_tau) dlog_tau[h] += static_cast<float>(dlt);
    }
    return {};
}

// Y (rows x out) = X Wᵀ + b: dW = dYᵀ X, db = Σ dY, and dX = dY W written (or added when `add`) into dX.
void linear_backward_into(const kernels::KernelTable& kt, std::size_t rows, std::size_t in, std::size_t out, const float* X,
                          const float* W, const float* dY, float* dW, float* db, float* dX, bool add, std::vector<float>& scratch) {
    kt.gemm_tn(out, in, rows, dY, out, X, in, dW, in);
    add_col_sums(rows, out, dY, out, db);
    if (!add) {
        kt.gemm_nn(rows, in, out, dY, out, W, in, dX, in);
        return;
    }
    scratch.resize(rows * in);
    kt.gemm_nn(rows, in, out, dY, out, W, in, scratch.data(), in);
    for (std::size_t i = 0; i < rows * in; ++i) dX[i] += scratch[i];
}

}  // namespace

Budget Transformer::loss_budget(std::uint64_t rows, std::uint64_t cols, bool want_grads) const {
    return pair_budget(rows, pairs() ? cols : 0, cols, want_grads);
}

// What a call allocates and computes: the encoder over rows x ns (encoder_decoder), the decoder over rows x nt.
Budget Transformer::pair_budget(std::uint64_t rows, std::uint64_t ns, std::uint64_t nt, bool want_grads) const {
    Budget b;
    const std::uint64_t L = c_.layers, H = c_.heads, D = c_.d_model, F = c_.d_ff, V = c_.vocab, dh = D / H;
    const std::uint64_t passes = want_grads ? 3 : 1;  // the backward pass: two GEMMs per forward one
    auto stack = [&](std::uint64_t n, bool cross, std::size_t self_base, std::size_t cross_base) {
        const std::uint64_t N = Budget::mul(rows, n), pairs_self = Budget::mul(N, n), pairs_cross = Budget::mul(N, ns);
        // Per layer: xin, h, q|k|v, ho of self-attention (6 D), the MLP's xm, h2 (2 D), f, g (2 F); S and A per head;
        // cross-attention: xin, h, q, ho (4 D) per target row, k|v (2 D) per source row, S and A.
        b.floats(L, N, 8 * D + 2 * F);
        b.floats(L, pairs_self, 2 * H);
        b.work(L, N, D, (4 * D + 2 * F) * passes);
        b.work(L, H, pairs_self, dh * 2 * passes + limits::kWeightCost);
        if (cross) {
            b.floats(L, N, 4 * D);
            b.floats(L, Budget::mul(rows, ns), 2 * D);
            b.floats(L, pairs_cross, 2 * H);
            b.work(L, N, D, 2 * D * passes);
            b.work(L, Budget::mul(rows, ns), D, 2 * D * passes);
            b.work(L, H, pairs_cross, dh * 2 * passes + limits::kWeightCost);
        }
        b.floats(N, 2 * D);  // x, xf
        if (c_.positions == Positions::sinusoidal) b.floats(n, D);          // the positions' table
        if (c_.norm == Norm::post) b.floats(L, N, cross ? 3 * D : 2 * D);   // the LayerNorms' inputs (sum, sum2)
        for (std::size_t l = 0; l < c_.layers; ++l)
            for (std::size_t h = 0; h < c_.heads; ++h) {
                Budget one;  // one sequence's score of one head (its backward about twice that)
                scores::score_def(c_.scores[self_base + l * c_.heads + h]).cost(one, scores::CostShape{n, n, dh, dh, dh});
                if (cross) scores::score_def(c_.scores[cross_base + l * c_.heads + h]).cost(one, scores::CostShape{n, ns, dh, dh, dh});
                b.work(rows, one.work(), passes);
                b.floats(one.floats());  // its scratch: one head at a time
            }
        if (want_grads) {
            b.floats(N, 8 * D + F);  // dx, dxf, dho, dq|k|v, dh and a scratch, dg
            if (c_.norm == Norm::post) b.floats(N, D);  // dsum
            if (cross) b.floats(Budget::mul(rows, ns), 4 * D);
            b.work(N, D, 32);  // the layer norms' and GELU's backward passes, the bias sums
        }
    };
    if (pairs()) stack(ns, false, enc_.self_base, 0);
    stack(nt, pairs(), dec_.self_base, dec_.cross_base);
    const std::uint64_t Nt = Budget::mul(rows, nt);
    b.floats(Nt, V);  // logits
    b.work(Nt, V, D, passes);
    if (want_grads) {
        b.floats(params_.size());  // the gradients
        b.floats(Nt, V);           // dlogits
        b.floats(std::max(nt, ns), std::max(nt, ns) + 2 * dh);  // one head's dA and its dQ, dK
        b.floats(c_.max_tokens + 3 * dh, dh);                    // its matrices' gradients
    }
    return b;
}

Budget Transformer::encode_budget(std::uint64_t ns, std::uint64_t n, const TransformerSurgery& s, bool want_grads) const {
    Budget b = pair_budget(1, ns, n, want_grads);
    const std::uint64_t dh = head_dim();
    for (std::size_t i = 0; !s.scores.empty() && i < s.scores.size(); ++i) {
        const scores::ScoreDef& def = scores::score_def(s.scores[i]);
        Budget one;
        def.cost(one, scores::CostShape{n, std::max(n, ns), dh, dh, dh});
        b.work(one.work());
        if (def.head_floats) b.floats(def.head_floats(ScoreParams{}, dh, c_.max_tokens));
    }
    // the attentions handed back (and their gradients)
    b.floats(want_grads ? 2 : 1, Budget::mul(c_.layers * c_.heads, Budget::mul(n, n) + Budget::mul(ns, ns) + Budget::mul(n, ns)));
    return b;
}

Status Transformer::run_stack(const StackSlots& st, const std::int32_t* ids, std::size_t rows, std::size_t n, const float* memory,
                              std::size_t nm, const std::vector<Score>& scores, const std::vector<ScoreParams>& hp,
                              const std::vector<std::uint8_t>& ablate, Variant variant, StackCache& k) const {
    const auto& kt = kernels_for(variant);
    const std::size_t L = c_.layers, H = c_.heads, D = c_.d_model, F = c_.d_ff;
    const std::size_t N = rows * n;
    const float* P = params_.data();
    k.rows = rows;
    k.n = n;
    k.N = N;
    k.layers.assign(L, {});
    k.x.assign(N * D, 0.0f);
    std::vector<float> table;  // sinusoidal positions: the n rows this call reads
    if (st.wpe == kAbsent) {
        table.resize(n * D);
        for (std::size_t i = 0; i < n; ++i) sinusoidal_position(i, D, table.data() + i * D);
    }
    const float* positions = st.wpe == kAbsent ? table.data() : P + st.wpe;
    const bool post = c_.norm == Norm::post;
    for (std::size_t r = 0; r < N; ++r) {
        const float* e = P + wte_ + static_cast<std::size_t>(ids[r]) * D;
        const float* pe = positions + (r % n) * D;
        float* x = k.x.data() + r * D;
        for (std::size_t c = 0; c < D; ++c) x[c] = e[c] + pe[c];
    }
    std::vector<float> tmp;
    // A sublayer reads h = LN(x) (pre-LN) or x itself (post-LN); xin keeps x for the backward pass.
    auto enter = [&](std::vector<float>& xin, std::vector<float>& h, std::size_t w, std::size_t b) {
        xin = k.x;
        if (post) {
            h = k.x;
        } else {
            h.resize(N * D);
            kt.layer_norm(N, D, k.x.data(), D, P + w, P + b, kLnEps, h.data(), D);
        }
    };
    // Its output (in tmp) joins the residual; post-LN then normalises the sum, which it keeps.
    auto leave = [&](std::vector<float>& sum, std::size_t w, std::size_t b) {
        for (std::size_t i = 0; i < N * D; ++i) k.x[i] += tmp[i];
        if (post) {
            sum = k.x;
            kt.layer_norm(N, D, sum.data(), D, P + w, P + b, kLnEps, k.x.data(), D);
        }
    };
    HeadsArgs a = heads_args(kt, variant, rows, H, D, 1.0f / c_.temperature);
    for (std::size_t l = 0; l < L; ++l) {
        const LayerSlots& s = st.layers[l];
        StackCache::Layer& y = k.layers[l];
        // self-attention: x += c_proj(heads(c_attn(ln_1(x))))
        StackCache::Attn& at = y.self;
        enter(at.xin, at.h, s.ln1_w, s.ln1_b);
        at.q.resize(N * 3 * D);
        linear(kt, N, D, 3 * D, at.h.data(), P + s.attn_w, P + s.attn_b, at.q.data(), kernels::Activation::none);
        at.S.assign(rows * H * n * n, 0.0f);
        at.A.assign(rows * H * n * n, 0.0f);
        at.ho.assign(N * D, 0.0f);
        const std::size_t sb = st.self_base + l * H;
        aim_heads(a, n, n, at.q.data(), 3 * D, at.q.data() + D, 3 * D, st.causal, sb, scores, hp, ablate,
                  s.log_tau == kAbsent ? nullptr : P + s.log_tau);
        if (Status st2 = heads_forward(a, at.S.data(), at.A.data(), at.ho.data()); !st2) return st2;
        tmp.resize(N * D);
        linear(kt, N, D, D, at.ho.data(), P + s.proj_w, P + s.proj_b, tmp.data(), kernels::Activation::none);
        leave(at.sum, s.ln1_w, s.ln1_b);
        if (st.cross) {
            // cross-attention: x += c_proj(heads(c_q(ln_cross(x)), c_kv(memory)))
            StackCache::Attn& ct = y.cross;
            enter(ct.xin, ct.h, s.lnc_w, s.lnc_b);
            ct.q.resize(N * D);
            linear(kt, N, D, D, ct.h.data(), P + s.cq_w, P + s.cq_b, ct.q.data(), kernels::Activation::none);
            ct.kv.resize(rows * nm * 2 * D);
            linear(kt, rows * nm, D, 2 * D, memory, P + s.ckv_w, P + s.ckv_b, ct.kv.data(), kernels::Activation::none);
            ct.S.assign(rows * H * n * nm, 0.0f);
            ct.A.assign(rows * H * n * nm, 0.0f);
            ct.ho.assign(N * D, 0.0f);
            const std::size_t cb = st.cross_base + l * H;
            aim_heads(a, n, nm, ct.q.data(), D, ct.kv.data(), 2 * D, false, cb, scores, hp, ablate,
                      s.clog_tau == kAbsent ? nullptr : P + s.clog_tau);
            if (Status st2 = heads_forward(a, ct.S.data(), ct.A.data(), ct.ho.data()); !st2) return st2;
            linear(kt, N, D, D, ct.ho.data(), P + s.cproj_w, P + s.cproj_b, tmp.data(), kernels::Activation::none);
            leave(ct.sum, s.lnc_w, s.lnc_b);
        }
        if (F) {
            enter(y.xm, y.h2, s.ln2_w, s.ln2_b);
            y.f.resize(N * F);
            linear(kt, N, D, F, y.h2.data(), P + s.fc_w, P + s.fc_b, y.f.data(), kernels::Activation::none);
            y.g = y.f;
            const std::vector<float> zero_bias(F, 0.0f);
            kt.bias_activation(N, F, y.g.data(), F, zero_bias.data(), kernel_activation(c_.activation));
            linear(kt, N, F, D, y.g.data(), P + s.mproj_w, P + s.mproj_b, tmp.data(), kernels::Activation::none);
            leave(y.sum2, s.ln2_w, s.ln2_b);
        }
    }
    if (st.lnf_w == kAbsent) {
        k.xf = k.x;  // post-LN: the last sublayer's LayerNorm is the output
    } else {
        k.xf.resize(N * D);
        kt.layer_norm(N, D, k.x.data(), D, P + st.lnf_w, P + st.lnf_b, kLnEps, k.xf.data(), D);
    }
    return {};
}

Status Transformer::back_stack(const StackSlots& st, const std::int32_t* ids, const StackCache& k, const float* memory, std::size_t nm,
                               const std::vector<Score>& scores, const std::vector<ScoreParams>& hp, const std::vector<std::uint8_t>& ablate,
                               Variant variant, const float* dxf, float* dmemory, float* G, float* dA, float* dA_cross) const {
    // A re-scored head's matrices are not the config's: their gradients have no place in G.
    const ScoreSlots* slots = &scores == &c_.scores || scores == c_.scores ? score_slots_.data() : nullptr;
    const auto& kt = kernels_for(variant);
    const std::size_t L = c_.layers, H = c_.heads, D = c_.d_model, F = c_.d_ff, n = k.n, N = k.N, rows = k.rows;
    const float* P = params_.data();
    std::vector<float> dx(N * D, 0.0f), dh_(N * D), dho(N * D), dq(N * 3 * D), dg(N * F), dkv(st.cross ? rows * nm * 2 * D : 0), scratch;
    if (st.lnf_w == kAbsent)
        std::copy(dxf, dxf + N * D, dx.begin());
    else
        kt.layer_norm_backward(N, D, k.x.data(), D, P + st.lnf_w, kLnEps, dxf, D, dx.data(), D, G + st.lnf_w, G + st.lnf_b);
    const bool post = c_.norm == Norm::post;
    std::vector<float> dsum(post ? N * D : 0);
    // Post-LN: x = LN(sum) with sum = xin + f(xin): dx becomes d sum (the residual's share and f's).
    auto through_norm = [&](const std::vector<float>& sum, std::size_t w, std::size_t b) {
        std::fill(dsum.begin(), dsum.end(), 0.0f);
        kt.layer_norm_backward(N, D, sum.data(), D, P + w, kLnEps, dx.data(), D, dsum.data(), D, G + w, G + b);
        dx.swap(dsum);
    };
    // f read h = LN(xin) (pre-LN) or xin itself (post-LN): its gradient dh joins the residual's.
    auto into_residual = [&](const std::vector<float>& xin, std::size_t w, std::size_t b) {
        if (post) {
            for (std::size_t i = 0; i < N * D; ++i) dx[i] += dh_[i];
        } else {
            kt.layer_norm_backward(N, D, xin.data(), D, P + w, kLnEps, dh_.data(), D, dx.data(), D, G + w, G + b);
        }
    };
    HeadsArgs a = heads_args(kt, variant, rows, H, D, 1.0f / c_.temperature);
    for (std::size_t l = L; l-- > 0;) {
        const LayerSlots& s = st.layers[l];
        const StackCache::Layer& y = k.layers[l];
        if (F) {
            // x = xm + mlp.c_proj(act(c_fc(ln_2(xm))))  (post-LN: x = ln_2(xm + mlp.c_proj(act(c_fc(xm)))))
            if (post) through_norm(y.sum2, s.ln2_w, s.ln2_b);
            linear_backward_into(kt, N, F, D, y.g.data(), P + s.mproj_w, dx.data(), G + s.mproj_w, G + s.mproj_b, dg.data(), false, scratch);
            activation_backward(kt, c_.activation, N, F, y.f.data(), y.g.data(), dg.data());
            linear_backward_into(kt, N, D, F, y.h2.data(), P + s.fc_w, dg.data(), G + s.fc_w, G + s.fc_b, dh_.data(), false, scratch);
            into_residual(y.xm, s.ln2_w, s.ln2_b);
        }
        if (st.cross) {
            // x = xin + c_proj(heads(c_q(ln_cross(xin)), c_kv(memory)))
            const StackCache::Attn& ct = y.cross;
            if (post) through_norm(ct.sum, s.lnc_w, s.lnc_b);
            linear_backward_into(kt, N, D, D, ct.ho.data(), P + s.cproj_w, dx.data(), G + s.cproj_w, G + s.cproj_b, dho.data(), false, scratch);
            const std::size_t cb = st.cross_base + l * H;
            aim_heads(a, n, nm, ct.q.data(), D, ct.kv.data(), 2 * D, false, cb, scores, hp, ablate,
                      s.clog_tau == kAbsent ? nullptr : P + s.clog_tau);
            if (Status st2 = heads_backward(a, ct.S.data(), ct.A.data(), dho.data(), dq.data(), dkv.data(), dkv.data() + D, D, 2 * D,
                                            2 * D, slots ? slots + cb : nullptr, G, s.clog_tau == kAbsent ? nullptr : G + s.clog_tau,
                                            dA_cross ? dA_cross + l * rows * H * n * nm : nullptr);
                !st2)
                return st2;
            linear_backward_into(kt, rows * nm, D, 2 * D, memory, P + s.ckv_w, dkv.data(), G + s.ckv_w, G + s.ckv_b, dmemory, true, scratch);
            linear_backward_into(kt, N, D, D, ct.h.data(), P + s.cq_w, dq.data(), G + s.cq_w, G + s.cq_b, dh_.data(), false, scratch);
            into_residual(ct.xin, s.lnc_w, s.lnc_b);
        }
        // x = xin + c_proj(heads(c_attn(ln_1(xin))))
        const StackCache::Attn& at = y.self;
        if (post) through_norm(at.sum, s.ln1_w, s.ln1_b);
        linear_backward_into(kt, N, D, D, at.ho.data(), P + s.proj_w, dx.data(), G + s.proj_w, G + s.proj_b, dho.data(), false, scratch);
        const std::size_t sb = st.self_base + l * H;
        aim_heads(a, n, n, at.q.data(), 3 * D, at.q.data() + D, 3 * D, st.causal, sb, scores, hp, ablate,
                  s.log_tau == kAbsent ? nullptr : P + s.log_tau);
        if (Status st2 = heads_backward(a, at.S.data(), at.A.data(), dho.data(), dq.data(), dq.data() + D, dq.data() + 2 * D, 3 * D,
                                        3 * D, 3 * D, slots ? slots + sb : nullptr, G, s.log_tau == kAbsent ? nullptr : G + s.log_tau,
                                        dA ? dA + l * rows * H * n * n : nullptr);
            !st2)
            return st2;
        linear_backward_into(kt, N, D, 3 * D, at.h.data(), P + s.attn_w, dq.data(), G + s.attn_w, G + s.attn_b, dh_.data(), false, scratch);
        into_residual(at.xin, s.ln1_w, s.ln1_b);
    }
    for (std::size_t r = 0; r < N; ++r) {
        float* ge = G + wte_ + static_cast<std::size_t>(ids[r]) * D;
        const float* d = dx.data() + r * D;
        for (std::size_t c = 0; c < D; ++c) ge[c] += d[c];
        if (st.wpe == kAbsent) continue;  // fixed sinusoidal positions: nothing to learn
        float* gp = G + st.wpe + (r % n) * D;
        for (std::size_t c = 0; c < D; ++c) gp[c] += d[c];
    }
    return {};
}

Status Transformer::head_loss(const StackCache& k, const std::int32_t* targets, bool want_grads, Variant variant, TransformerLoss& out,
                              std::vector<float>& dxf) const {
    const auto& kt = kernels_for(variant);
    const std::size_t D = c_.d_model, V = c_.vocab, N = k.N;
    std::vector<float> logits(N * V);
    kt.gemm_nt(N, V, D, k.xf.data(), D, params_.data() + wte_, D, logits.data(), V, 1.0f);
    // Mean cross-entropy (log-sum-exp in double) and dL/dlogits = (softmax − onehot) / count.
    for (std::size_t r = 0; r < N; ++r) out.count += targets[r] >= 0 ? 1 : 0;
    std::vector<float> dlogits(want_grads ? N * V : 0, 0.0f);
    double total = 0.0;
    for (std::size_t r = 0; r < N; ++r) {
        if (targets[r] < 0) continue;
        const float* z = logits.data() + r * V;
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
    out.grads.assign(params_.size(), 0.0f);
    // logits = xf wteᵀ: dwte = dlogitsᵀ xf (the embeddings' share is added by the stacks), dxf = dlogits wte.
    kt.gemm_tn(V, D, N, dlogits.data(), V, k.xf.data(), D, out.grads.data() + wte_, D);
    dxf.resize(N * D);
    kt.gemm_nn(N, D, V, dlogits.data(), V, params_.data() + wte_, D, dxf.data(), D);
    return {};
}

namespace {

Status check_ids(const char* what, const std::int32_t* ids, std::size_t count, std::size_t vocab) {
    for (std::size_t i = 0; i < count; ++i)
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= vocab)
            return Status::error(std::string(what) + ": id " + std::to_string(ids[i]) + " at position " + num(i) +
                                 " is outside the vocabulary (0 to " + num(vocab - 1) + ")");
    return {};
}
Status check_targets(const char* what, const std::int32_t* targets, std::size_t count, std::size_t vocab) {
    for (std::size_t r = 0; r < count; ++r)
        if (targets[r] >= 0 && static_cast<std::size_t>(targets[r]) >= vocab)
            return Status::error(std::string(what) + ": target " + std::to_string(targets[r]) + " at position " + num(r) +
                                 " is outside the vocabulary (0 to " + num(vocab - 1) + "; a negative target is not counted)");
    return {};
}

}  // namespace

Status Transformer::call_heads(const TransformerSurgery& s, std::vector<Score>& scores, std::vector<ScoreParams>& hp,
                               std::vector<std::vector<float>>& store) const {
    const std::size_t count = c_.scores.size();
    if (!s.scores.empty() && s.scores.size() != count)
        return Status::error("score: expected one scoring function per head (" + num(count) + "), got " + num(s.scores.size()));
    if (!s.ablate.empty() && s.ablate.size() != count)
        return Status::error("ablate: expected one flag per head (" + num(count) + "), got " + num(s.ablate.size()));
    scores = s.scores.empty() ? c_.scores : s.scores;
    hp.assign(count, ScoreParams{});
    store.reserve(count * 4);
    for (std::size_t i = 0; i < count; ++i) {
        if (scores[i] == c_.scores[i]) {
            hp[i] = head_score_params(i, params_.data());
        } else if (const auto head_params = scores::score_def(scores[i]).head_params) {
            SeededHeadMatrices source(i, store);
            head_params(hp[i], ScoreParams{}, head_dim(), c_.max_tokens, source);
        }
    }
    return {};
}

namespace {
// The attentions of one stack's layers for the first sequence: [L, H, nq, nk] from each layer's cache.
template <class Pick>
std::vector<float> gather_attentions(const std::vector<Transformer::StackCache::Layer>& layers, std::size_t per_layer, Pick pick) {
    std::vector<float> out;
    out.reserve(layers.size() * per_layer);
    for (const auto& y : layers) {
        const std::vector<float>& A = pick(y);
        out.insert(out.end(), A.begin(), A.begin() + static_cast<std::ptrdiff_t>(per_layer));
    }
    return out;
}
}  // namespace

namespace {
// The decoder's input: the target shifted right after the start id 0 (padding, a negative target, feeds 0).
std::vector<std::int32_t> shifted_right(const std::int32_t* target, std::size_t rows, std::size_t nt) {
    std::vector<std::int32_t> in(rows * nt, 0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 1; i < nt; ++i) in[r * nt + i] = std::max(target[r * nt + i - 1], 0);
    return in;
}
const std::vector<float>& self_of(const Transformer::StackCache::Layer& y) { return y.self.A; }
const std::vector<float>& cross_of(const Transformer::StackCache::Layer& y) { return y.cross.A; }
}  // namespace

Status Transformer::forward_one(const std::int32_t* source, std::size_t ns, const std::int32_t* ids, std::size_t n, const TransformerSurgery& s,
                                bool want_grads, std::vector<Score>& scores, std::vector<ScoreParams>& hp,
                                std::vector<std::vector<float>>& seeded, std::vector<std::int32_t>& in, StackCache& e, StackCache& d,
                                TransformerRun& out) const {
    out = TransformerRun{};
    if (empty()) return Status::error("model: no model was created");
    const std::size_t L = c_.layers, H = c_.heads;
    if (!pairs()) {
        if (n == 0) return Status::error("ids: expected at least one token id");
        if (n > c_.max_tokens)
            return Status::error("ids: " + num(n) + " ids are more than the model's maxTokens (" + num(c_.max_tokens) +
                                 "); pass at most maxTokens ids (the positions wpe has)");
        if (Status st = call_heads(s, scores, hp, seeded); !st) return st;
        if (Status st = encode_budget(0, n, s, want_grads).check_lazily(
                [&] { return "encoding " + num(n) + " tokens with " + num(L) + " layers of " + num(H) + " heads"; }, "pass fewer ids");
            !st)
            return Status::error("ids: " + st.message());
        if (Status st = check_ids("ids", ids, n, c_.vocab); !st) return st;
        in.assign(ids, ids + n);
        if (Status st = run_stack(dec_, ids, 1, n, nullptr, 0, scores, hp, s.ablate, s.variant, d); !st) return st;
        out.attentions = gather_attentions(d.layers, H * n * n, self_of);
    } else {
        if (ns == 0 || ns > c_.max_tokens) return Status::error("source: expected 1 to maxTokens = " + num(c_.max_tokens) + " ids, got " + num(ns));
        if (n == 0 || n > c_.max_tokens) return Status::error("target: expected 1 to maxTokens = " + num(c_.max_tokens) + " ids, got " + num(n));
        if (Status st = call_heads(s, scores, hp, seeded); !st) return st;
        if (Status st = encode_budget(ns, n, s, want_grads).check_lazily(
                [&] { return "encoding " + num(ns) + " source and " + num(n) + " target tokens"; }, "pass shorter sequences");
            !st)
            return Status::error("source: " + st.message());
        if (Status st = check_ids("source", source, ns, c_.vocab); !st) return st;
        if (Status st = check_targets("target", ids, n, c_.vocab); !st) return st;
        if (Status st = run_stack(enc_, source, 1, ns, nullptr, 0, scores, hp, s.ablate, s.variant, e); !st) return st;
        in = shifted_right(ids, 1, n);
        if (Status st = run_stack(dec_, in.data(), 1, n, e.xf.data(), ns, scores, hp, s.ablate, s.variant, d); !st) return st;
        out.n_source = ns;
        out.encoder_attentions = gather_attentions(e.layers, H * ns * ns, self_of);
        out.attentions = gather_attentions(d.layers, H * n * n, self_of);
        out.cross = gather_attentions(d.layers, H * n * ns, cross_of);
    }
    out.n = n;
    out.logits.resize(n * c_.vocab);
    kernels_for(s.variant).gemm_nt(n, c_.vocab, c_.d_model, d.xf.data(), c_.d_model, params_.data() + wte_, c_.d_model, out.logits.data(),
                                   c_.vocab, 1.0f);
    return {};
}

Status Transformer::encode(const std::int32_t* ids, std::size_t n, const TransformerSurgery& s, TransformerRun& out) const {
    out = TransformerRun{};
    if (empty()) return Status::error("model: no model was created");
    if (pairs()) return Status::error("model: an encoder-decoder runs on a source and a target; use encode_pair");
    std::vector<Score> scores;
    std::vector<ScoreParams> hp;
    std::vector<std::vector<float>> seeded;
    std::vector<std::int32_t> in;
    StackCache e, d;
    return forward_one(nullptr, 0, ids, n, s, false, scores, hp, seeded, in, e, d, out);
}

Status Transformer::encode_pair(const std::int32_t* source, std::size_t ns, const std::int32_t* target, std::size_t nt,
                                const TransformerSurgery& s, TransformerRun& out) const {
    out = TransformerRun{};
    if (empty()) return Status::error("model: no model was created");
    if (!pairs()) return Status::error("model: a decoder runs on one sequence; use encode");
    std::vector<Score> scores;
    std::vector<ScoreParams> hp;
    std::vector<std::vector<float>> seeded;
    std::vector<std::int32_t> in;
    StackCache e, d;
    return forward_one(source, ns, target, nt, s, false, scores, hp, seeded, in, e, d, out);
}

Status Transformer::attention_gradients(const std::int32_t* ids, std::size_t n, std::size_t position, long token,
                                        const TransformerSurgery& s, TransformerAttribution& out) const {
    out = TransformerAttribution{};
    if (empty()) return Status::error("model: no model was created");
    if (pairs()) return Status::error("model: an encoder-decoder runs on a source and a target; use attention_gradients_pair");
    return attribute(nullptr, 0, ids, n, position, token, s, out);
}

Status Transformer::attention_gradients_pair(const std::int32_t* source, std::size_t ns, const std::int32_t* target, std::size_t nt,
                                             std::size_t position, long token, const TransformerSurgery& s, TransformerAttribution& out) const {
    out = TransformerAttribution{};
    if (empty()) return Status::error("model: no model was created");
    if (!pairs()) return Status::error("model: a decoder runs on one sequence; use attention_gradients");
    return attribute(source, ns, target, nt, position, token, s, out);
}

Status Transformer::attribute(const std::int32_t* source, std::size_t ns, const std::int32_t* ids, std::size_t n, std::size_t position,
                              long token, const TransformerSurgery& s, TransformerAttribution& out) const {
    const std::size_t D = c_.d_model, V = c_.vocab, L = c_.layers, H = c_.heads;
    if (n >= 1 && position >= n)
        return Status::error("position: expected 0 to " + num(n - 1) + " (a position of the " + std::string(pairs() ? "target" : "ids") + "), got " + num(position));
    if (token >= 0 && static_cast<std::size_t>(token) >= V)
        return Status::error("token: expected 0 to " + num(V - 1) + " (a token id of the vocabulary), got " + std::to_string(token));
    std::vector<Score> scores;
    std::vector<ScoreParams> hp;
    std::vector<std::vector<float>> seeded;
    std::vector<std::int32_t> in;
    StackCache e, d;
    if (Status st = forward_one(source, ns, ids, n, s, true, scores, hp, seeded, in, e, d, out.run); !st) return st;
    const float* z = out.run.logits.data() + position * V;
    std::size_t t = 0;
    if (token < 0) {
        for (std::size_t j = 1; j < V; ++j)
            if (z[j] > z[t]) t = j;
    } else {
        t = static_cast<std::size_t>(token);
    }
    out.position = position;
    out.token = t;
    out.logit = z[t];
    // logits[position, t] = xf[position] · wte[t]: its gradient into xf is wte[t] on that row, 0 elsewhere.
    std::vector<float> dxf(n * D, 0.0f), G(params_.size(), 0.0f);
    std::copy_n(params_.data() + wte_ + t * D, D, dxf.data() + position * D);
    // The scores' matrices' gradients land where the config's heads keep theirs; a re-scored head has
    // other matrices, so back_stack leaves them out when the scores are not the config's (G is scratch here).
    out.gradients.assign(L * H * n * n, 0.0f);
    if (!pairs()) return back_stack(dec_, in.data(), d, nullptr, 0, scores, hp, s.ablate, s.variant, dxf.data(), nullptr, G.data(), out.gradients.data());
    out.cross_gradients.assign(L * H * n * ns, 0.0f);
    out.encoder_gradients.assign(L * H * ns * ns, 0.0f);
    std::vector<float> dmem(ns * D, 0.0f);
    if (Status st = back_stack(dec_, in.data(), d, e.xf.data(), ns, scores, hp, s.ablate, s.variant, dxf.data(), dmem.data(), G.data(),
                               out.gradients.data(), out.cross_gradients.data());
        !st)
        return st;
    return back_stack(enc_, source, e, nullptr, 0, scores, hp, s.ablate, s.variant, dmem.data(), nullptr, G.data(),
                      out.encoder_gradients.data());
}

Status Transformer::loss(const std::int32_t* ids, const std::int32_t* targets, std::size_t rows, std::size_t cols, bool want_grads,
                         Variant variant, TransformerLoss& out) const {
    out = TransformerLoss{};
    if (empty()) return Status::error("model: no model was created");
    if (pairs()) return Status::error("model: an encoder-decoder trains on sources and targets; use loss_pairs");
    if (rows == 0) return Status::error("rows: expected at least one sequence");
    if (cols == 0 || cols > c_.max_tokens)
        return Status::error("cols: expected 1 to maxTokens = " + num(c_.max_tokens) + " tokens per sequence, got " + num(cols));
    if (Status st = loss_budget(rows, cols, want_grads).check_lazily(
            [&] { return "the loss" + std::string(want_grads ? " and gradients" : "") + " of " + num(rows) + " sequences of " + num(cols) + " tokens"; },
            "use fewer or shorter sequences per call");
        !st)
        return st;
    const std::size_t N = rows * cols;
    if (Status st = check_ids("ids", ids, N, c_.vocab); !st) return st;
    if (Status st = check_targets("targets", targets, N, c_.vocab); !st) return st;
    std::vector<ScoreParams> hp(c_.scores.size());
    for (std::size_t i = 0; i < hp.size(); ++i) hp[i] = head_score_params(i, params_.data());
    StackCache k;
    if (Status st = run_stack(dec_, ids, rows, cols, nullptr, 0, c_.scores, hp, {}, variant, k); !st) return st;
    std::vector<float> dxf;
    if (Status st = head_loss(k, targets, want_grads, variant, out, dxf); !st) return st;
    if (!want_grads) return {};
    return back_stack(dec_, ids, k, nullptr, 0, c_.scores, hp, {}, variant, dxf.data(), nullptr, out.grads.data());
}

Status Transformer::loss_pairs(const std::int32_t* source, const std::int32_t* target, std::size_t rows, std::size_t ns, std::size_t nt,
                               bool want_grads, Variant variant, TransformerLoss& out) const {
    out = TransformerLoss{};
    if (empty()) return Status::error("model: no model was created");
    if (!pairs()) return Status::error("model: a decoder trains on one sequence per row; use loss");
    if (rows == 0) return Status::error("rows: expected at least one pair");
    if (ns == 0 || ns > c_.max_tokens)
        return Status::error("sourceCols: expected 1 to maxTokens = " + num(c_.max_tokens) + " tokens per source, got " + num(ns));
    if (nt == 0 || nt > c_.max_tokens)
        return Status::error("targetCols: expected 1 to maxTokens = " + num(c_.max_tokens) + " tokens per target, got " + num(nt));
    if (Status st = pair_budget(rows, ns, nt, want_grads).check_lazily(
            [&] { return "the loss" + std::string(want_grads ? " and gradients" : "") + " of " + num(rows) + " pairs of " + num(ns) + " and " + num(nt) + " tokens"; },
            "use fewer or shorter pairs per call");
        !st)
        return st;
    if (Status st = check_ids("source", source, rows * ns, c_.vocab); !st) return st;
    if (Status st = check_targets("target", target, rows * nt, c_.vocab); !st) return st;
    std::vector<ScoreParams> hp(c_.scores.size());
    for (std::size_t i = 0; i < hp.size(); ++i) hp[i] = head_score_params(i, params_.data());
    StackCache e, d;
    if (Status st = run_stack(enc_, source, rows, ns, nullptr, 0, c_.scores, hp, {}, variant, e); !st) return st;
    const std::vector<std::int32_t> in = shifted_right(target, rows, nt);
    if (Status st = run_stack(dec_, in.data(), rows, nt, e.xf.data(), ns, c_.scores, hp, {}, variant, d); !st) return st;
    std::vector<float> dxf;
    if (Status st = head_loss(d, target, want_grads, variant, out, dxf); !st) return st;
    if (!want_grads) return {};
    std::vector<float> dmem(rows * ns * c_.d_model, 0.0f);
    if (Status st = back_stack(dec_, in.data(), d, e.xf.data(), ns, c_.scores, hp, {}, variant, dxf.data(), dmem.data(), out.grads.data()); !st)
        return st;
    return back_stack(enc_, source, e, nullptr, 0, c_.scores, hp, {}, variant, dmem.data(), nullptr, out.grads.data());
}

}  // namespace attnscope
