// A transformer built from a config and run by attnscope's own kernels, with its backward pass: the
// models the page trains (issue #32). The first kind is `decoder`, nanoGPT's GPT:
//   x₀ = wte[ids] + wpe[0 … n)                                    (learned positions)
//   per layer:  x += c_proj(heads(c_attn(ln_1(x))))               (pre-LN, causal self-attention)
//               x += mlp.c_proj(GELU(mlp.c_fc(ln_2(x))))          (left out when d_ff = 0)
//   logits = ln_f(x) · wteᵀ                                       (lm_head tied to wte)
// LayerNorm with bias, ε = 1e-5; GELU exact (erf); every linear layer has a bias; no dropout. Head h of
// a layer takes rows h·dh … (h+1)·dh of q, k and v (dh = d_model / heads) and scores them with its own
// scoring function of the registry (scaled-dot = q·k/√dh; general, additive and location with their
// own matrices, trained); the scores are divided by the temperature τ, fixed or learned per head
// (τ = exp(log_tau)), masked causally and softmaxed.
//
// Parameters live in one flat float array, as named tensors with nanoGPT's names and PyTorch's shapes
// (row-major; nn.Linear's weight is [out, in]); see tensors() and docs/transformer.md. Every call sizes
// its buffers and work in checked 64-bit arithmetic (Budget) and checks them before it allocates.
// Deterministic: the same config and seed give the same parameters, and the same parameters and input
// the same bytes, on every run of one build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "attnscope/tensor.hpp"
#include "attnscope/variant.hpp"

namespace attnscope {

class Budget;  // attnscope/limits.hpp

// decoder: nanoGPT's GPT. encoder_decoder: an encoder stack (self-attention without a mask) over the
// source and a decoder stack (causal self-attention, then cross-attention over the encoder's output,
// then the MLP) over the target shifted right after the start id 0; one vocabulary and one wte for
// both and for the lm_head.
enum class ModelKind { decoder, encoder_decoder };

// learned: a trained wpe table per stack (nanoGPT). sinusoidal: Vaswani et al.'s fixed table,
// PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(the same); no wpe parameter.
enum class Positions { learned, sinusoidal };
// pre: x += f(LN(x)), and a final ln_f (nanoGPT). post: x = LN(x + f(x)), no ln_f (the original
// Transformer); the LayerNorms keep their names (ln_1 after self-attention, ln_cross, ln_2).
enum class Norm { pre, post };
// The MLP's activation: GELU (exact, erf), ReLU, tanh.
enum class MlpActivation { gelu, relu, tanh };

struct TransformerConfig {
    ModelKind kind = ModelKind::decoder;
    std::size_t layers = 2, heads = 4, d_model = 64;
    std::size_t d_ff = 256;        // 0 = attention-only: no MLP and no ln_2
    std::size_t vocab = 64;        // token ids 0 … vocab − 1
    std::size_t max_tokens = 64;   // rows of wpe (and location's Wa)
    // One scoring function per head, layer-major (layer · heads + head); empty = scaled-dot everywhere.
    // encoder_decoder: 3 · layers · heads of them: the encoder's self-attention heads, then the
    // decoder's self-attention heads, then its cross-attention heads.
    std::vector<Score> scores;
    bool learned_temperature = false;  // true: per-head log_tau parameters (τ = exp(log_tau), init 0)
    float temperature = 1.0f;          // the fixed τ when not learned (> 0)
    std::uint32_t seed = 1;
    Positions positions = Positions::learned;
    Norm norm = Norm::pre;
    MlpActivation activation = MlpActivation::gelu;
};

// Limits of a config (checked by Transformer::create): enough for the page's models and the
// benchmark's, small enough that one parameter array stays far inside the per-call budget.
namespace transformer_limits {
constexpr std::size_t kMaxLayers = 64, kMaxHeads = 64, kMaxWidth = 4096, kMaxVocab = 1 << 20, kMaxTokens = 4096;
}

// One named tensor of the flat parameter array.
struct TensorInfo {
    std::string name;                // e.g. "transformer.h.0.attn.c_attn.weight"
    std::vector<std::size_t> shape;  // PyTorch's shape, row-major
    std::size_t offset = 0, size = 0;
};

// What to change for one encode: empty lists = the model as it is.
struct TransformerSurgery {
    // One scoring function per head (layer-major), or empty. A head re-scored to a function whose
    // matrices it does not have gets seeded Xavier matrices (seed 1, one stream per head), as USE-Lite's do.
    std::vector<Score> scores;
    std::vector<std::uint8_t> ablate;  // one flag per head (layer-major): nonzero = its output is zeroed
    Variant variant = Variant::automatic;
};

struct TransformerRun {
    std::size_t n = 0;                      // tokens of the decoder (encoder_decoder: of the target)
    std::vector<float> attentions;          // [layers, heads, n, n], row-major; rows sum to 1
    std::vector<float> logits;              // [n, vocab]
    // encoder_decoder only: the source's length, the encoder's self-attention [layers, heads, ns, ns]
    // and the decoder's cross-attention [layers, heads, n, ns].
    std::size_t n_source = 0;
    std::vector<float> encoder_attentions, cross;
};

// The gradient of one logit with respect to every attention weight (gradient × attention, for one
// prediction): ∂ logits[position, token] / ∂ A[l, h, i, j], A the weights after softmax, every head of
// every stack, laid out as the run's attentions. The derivative at a causally masked weight (A = 0) is
// the one the logit would have if that weight were free (what autograd gives for the probabilities);
// an ablated head's is 0 (its output is zeroed).
struct TransformerAttribution {
    TransformerRun run;                      // the forward pass: attentions, logits, …
    std::size_t position = 0, token = 0;     // the prediction: logits[position, token]
    float logit = 0.0f;
    std::vector<float> gradients;            // [layers, heads, n, n], as run.attentions
    std::vector<float> encoder_gradients;    // encoder_decoder: as run.encoder_attentions
    std::vector<float> cross_gradients;      // encoder_decoder: as run.cross
};

// Loss and gradients of a batch of rows × cols token ids and targets (target < 0: not counted).
struct TransformerLoss {
    double loss = 0.0;          // mean cross-entropy over the counted positions (0 when none)
    std::size_t count = 0;      // counted positions
    std::size_t hits = 0;       // counted positions whose argmax logit is the target
    std::vector<float> grads;   // laid out as params() (empty when not asked for)
};

class Transformer {
public:
    // Checks the config and initialises the parameters from config.seed: weights uniform with standard
    // deviation 0.02 (the projections into the residual stream 0.02/√(2·layers), as nanoGPT), biases 0,
    // LayerNorm gains 1, log_tau 0, the scores' matrices Xavier-uniform (one stream per layer and head).
    static Status create(const TransformerConfig& config, Transformer& out);

    bool empty() const { return params_.empty(); }
    const TransformerConfig& config() const { return c_; }
    std::size_t head_dim() const { return c_.d_model / c_.heads; }
    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    // The index of the named tensor in tensors(), or -1.
    long find(const std::string& name) const;
    const std::vector<float>& params() const { return params_; }
    // The same array, writable: for a trainer's update (ModelTrainer). Its size never changes.
    float* mutable_params() { return params_.data(); }
    // Replaces tensor `index` with `count` floats (its size, all finite), or says why not.
    Status set_tensor(std::size_t index, const float* values, std::size_t count);

    // Runs the model on ids (each in [0, vocab), 1 to max_tokens of them). Decoders only.
    Status encode(const std::int32_t* ids, std::size_t n, const TransformerSurgery& surgery, TransformerRun& out) const;
    // encoder_decoder: runs the encoder on source (ns ids) and the decoder on target (nt ids, each 0 …
    // vocab − 1 or negative = padding, fed as the start id 0) shifted right after the start id 0, so
    // logits[i] predicts target[i] from the source and target[0 … i−1].
    Status encode_pair(const std::int32_t* source, std::size_t ns, const std::int32_t* target, std::size_t nt,
                       const TransformerSurgery& surgery, TransformerRun& out) const;
    // The attentions' gradients of logits[position, token] (token < 0: the argmax at that position) on
    // ids (a decoder) or on source and target (encoder_decoder: then ids = source, n = ns), surgery
    // applied. One forward pass and the loss's backward pass, from the one logit instead of the loss.
    Status attention_gradients(const std::int32_t* ids, std::size_t n, std::size_t position, long token, const TransformerSurgery& surgery,
                               TransformerAttribution& out) const;
    Status attention_gradients_pair(const std::int32_t* source, std::size_t ns, const std::int32_t* target, std::size_t nt,
                                    std::size_t position, long token, const TransformerSurgery& surgery, TransformerAttribution& out) const;
    // encoder_decoder: rows pairs of source (rows × ns) and target (rows × nt) sequences; the loss is the
    // mean cross-entropy of logits[i] against target[i] over the target entries >= 0.
    Status loss_pairs(const std::int32_t* source, const std::int32_t* target, std::size_t rows, std::size_t ns, std::size_t nt,
                      bool want_grads, Variant variant, TransformerLoss& out) const;
    // rows × cols ids and targets (row-major; cols from 1 to max_tokens; targets −1 … vocab − 1, −1 or
    // any negative = not counted). With want_grads, out.grads is the gradient of out.loss.
    Status loss(const std::int32_t* ids, const std::int32_t* targets, std::size_t rows, std::size_t cols, bool want_grads,
                Variant variant, TransformerLoss& out) const;

    // The model as a safetensors file: every tensor of tensors() as F32 under its name (contiguous, in
    // that order), and in __metadata__ "format": "pt", "attnscope.architecture": "decoder" and
    // "attnscope.config": the config as JSON ({"kind", "layers", "heads", "dModel", "dFF", "vocab",
    // "maxTokens", "score": [one name per head], "temperature": number | "learned", "seed"}).
    // With tokens (set_tokens, or read from a file), also "attnscope.tokens": the text of each id, a JSON
    // array of strings (one per id of the vocabulary) as a string.
    Status save_safetensors(std::vector<std::uint8_t>& out) const;
    // The text each id stands for (one per id of the vocabulary, none empty, each at most kMaxTokenBytes
    // bytes), or none (empty): saved with the model so that a reader can turn text into ids and back.
    Status set_tokens(std::vector<std::string> tokens);
    const std::vector<std::string>& tokens() const { return tokens_; }
    static constexpr std::size_t kMaxTokenBytes = 256;
    // Reads such a file: the config from its metadata, then every tensor (F32, the shape the config
    // implies; an extra "lm_head.weight", as PyTorch's state_dict of a tied model has, is ignored). Every
    // size is checked in 64-bit arithmetic against the file before it is read; on error `out` is empty.
    static Status from_safetensors(const std::uint8_t* bytes, std::size_t size, Transformer& out);
    // The config as the JSON of the metadata's "attnscope.config".
    std::string config_json() const;

    // What loss() of rows × cols allocates and computes (for the callers' own checks, e.g. a trainer's step).
    Budget loss_budget(std::uint64_t rows, std::uint64_t cols, bool want_grads) const;
    // The same for loss_pairs() of rows pairs of ns source and nt target tokens.
    Budget pair_budget(std::uint64_t rows, std::uint64_t ns, std::uint64_t nt, bool want_grads) const;

    // Where each layer's tensors start in params() (kAbsent: the config has no such tensor).
    static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
    struct LayerSlots {
        std::size_t ln1_w = 0, ln1_b = 0, attn_w = 0, attn_b = 0, proj_w = 0, proj_b = 0, log_tau = kAbsent;
        // the decoder's cross-attention (encoder_decoder)
        std::size_t lnc_w = kAbsent, lnc_b = kAbsent, cq_w = kAbsent, cq_b = kAbsent, ckv_w = kAbsent, ckv_b = kAbsent,
                    cproj_w = kAbsent, cproj_b = kAbsent, clog_tau = kAbsent;
        std::size_t ln2_w = kAbsent, ln2_b = kAbsent, fc_w = kAbsent, fc_b = kAbsent, mproj_w = kAbsent, mproj_b = kAbsent;
    };
    // One stack of blocks: its position table, blocks and final LayerNorm, whether its self-attention is
    // causal and has cross-attention, and where its heads' scores start in config().scores.
    struct StackSlots {
        std::size_t wpe = 0, lnf_w = 0, lnf_b = 0;  // kAbsent: sinusoidal positions; post-LN (no ln_f)
        std::vector<LayerSlots> layers;
        bool causal = true, cross = false;
        std::size_t self_base = 0, cross_base = 0;
    };
    // Per head (layer-major): where its score's matrices start in params() (kAbsent: not used).
    struct ScoreSlots {
        std::size_t W = kAbsent, W1 = kAbsent, W2 = kAbsent, v = kAbsent, Wa = kAbsent;
    };

    struct StackCache;  // what one stack's forward pass keeps for its backward pass (transformer.cpp)

private:
    // The config checked and the tensors laid out in `t` (no parameter allocated): create() and
    // from_safetensors() start from it.
    static Status layout(const TransformerConfig& config, Transformer& t);
    bool pairs() const { return c_.kind == ModelKind::encoder_decoder; }
    Budget encode_budget(std::uint64_t ns, std::uint64_t n, const TransformerSurgery& s, bool want_grads = false) const;
    // The checks of encode / encode_pair and the forward pass of one sequence (ns = 0: a decoder's ids);
    // `in` receives the decoder's input ids (the shifted target of a pair).
    Status forward_one(const std::int32_t* source, std::size_t ns, const std::int32_t* ids, std::size_t n, const TransformerSurgery& s,
                       bool want_grads, std::vector<Score>& scores, std::vector<ScoreParams>& hp, std::vector<std::vector<float>>& seeded,
                       std::vector<std::int32_t>& in, StackCache& e, StackCache& d, TransformerRun& out) const;
    Status attribute(const std::int32_t* source, std::size_t ns, const std::int32_t* ids, std::size_t n, std::size_t position, long token,
                     const TransformerSurgery& s, TransformerAttribution& out) const;
    // The score parameters of head `index` (layer-major) read from `base` (params() or a gradient array).
    ScoreParams head_score_params(std::size_t index, const float* base) const;
    // The scores and their parameters of every head for a call (surgery applied; seeded matrices kept in `store`).
    Status call_heads(const TransformerSurgery& s, std::vector<Score>& scores, std::vector<ScoreParams>& hp,
                      std::vector<std::vector<float>>& store) const;
    Status run_stack(const StackSlots& st, const std::int32_t* ids, std::size_t rows, std::size_t n, const float* memory,
                     std::size_t nm, const std::vector<Score>& scores, const std::vector<ScoreParams>& hp,
                     const std::vector<std::uint8_t>& ablate, Variant variant, StackCache& sc) const;
    // The backward pass of run_stack from dxf: parameter gradients added into G (the scores' matrices'
    // only when `scores` are the config's), dmemory (cross-attention), and, when dA / dA_cross are not
    // null, every layer's ∂/∂A laid out as the caches' A ([L, rows, H, nq, nk]).
    Status back_stack(const StackSlots& st, const std::int32_t* ids, const StackCache& sc, const float* memory, std::size_t nm,
                      const std::vector<Score>& scores, const std::vector<ScoreParams>& hp, const std::vector<std::uint8_t>& ablate,
                      Variant variant, const float* dxf, float* dmemory, float* G, float* dA = nullptr, float* dA_cross = nullptr) const;
    // logits = xf wteᵀ, the loss, and (with grads) dlogits and the gradient through the tied head.
    Status head_loss(const StackCache& sc, const std::int32_t* targets, bool want_grads, Variant variant, TransformerLoss& out,
                     std::vector<float>& dxf) const;

    TransformerConfig c_;
    std::vector<TensorInfo> tensors_;
    std::vector<float> params_;
    std::vector<std::string> tokens_;
    Status check_tokens(const std::vector<std::string>& tokens) const;
    std::size_t wte_ = 0;
    StackSlots enc_, dec_;  // enc_: encoder_decoder only
    std::vector<ScoreSlots> score_slots_;
};

// Parses a head label 'L.H' (layer and head counted from 0, any number of digits) against layers ×
// heads: true and the layer-major index, or false.
bool parse_head_label(const std::string& label, std::size_t layers, std::size_t heads, std::size_t& index);

}  // namespace attnscope
