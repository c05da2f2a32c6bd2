// Training a transformer (attnscope/transformer.hpp) on token sequences: batches drawn from the data
// with the seed's stream, the mean cross-entropy's gradient (Transformer::loss), its global L2 norm
// clipped, and AdamW (optim.hpp: decoupled weight decay on the matrices, as nanoGPT groups them:
// every parameter of two or more dimensions; biases, LayerNorm gains, log_tau and additive's v not).
// Deterministic: the same model, data, options and seed give the same bytes on every run of one build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnscope/optim.hpp"
#include "attnscope/random.hpp"
#include "attnscope/tensor.hpp"
#include "attnscope/transformer.hpp"
#include "attnscope/variant.hpp"

namespace attnscope {

// A decoder's data: rows sequences of cols token ids, row-major, and their targets (one per id;
// negative = not counted). An encoder-decoder's: rows pairs of a source (source_cols ids) and a target
// (target_cols ids, negative = padding, not counted), in `source` and `target`.
struct TokenData {
    std::vector<std::int32_t> ids, targets;
    std::size_t rows = 0, cols = 0;
    std::vector<std::int32_t> source, target;
    std::size_t source_cols = 0, target_cols = 0;
};
// Checks the sizes (rows x cols, cols 1 to the model's maxTokens) and the values (ids in the
// vocabulary, targets below it) of the fields the model's kind uses; messages name `what` (e.g.
// "data") and the field.
Status check_token_data(const TokenData& data, const Transformer& model, const char* what);

struct ModelTrainerOptions {
    std::size_t batch = 16;         // sequences per step (1 to 4096), drawn with replacement
    float learning_rate = 1e-3f;    // 0 < learning_rate <= 1
    float weight_decay = 0.1f;      // AdamW's λ on the matrices (nanoGPT's default)
    float beta1 = 0.9f, beta2 = 0.95f;  // nanoGPT's
    float clip = 1.0f;              // the gradient's global L2 norm is scaled down to this (0 = no clipping)
    std::uint32_t seed = 1;         // the stream batches are drawn from
    Variant variant = Variant::automatic;
};

struct ModelEval {
    double loss = 0.0;       // mean cross-entropy over the counted positions
    std::size_t hits = 0;    // counted positions whose argmax logit is the target
    std::size_t count = 0;   // counted positions
};

class ModelTrainer {
public:
    // The trainer updates `model` in place; the model must outlive it (the bindings make sure).
    Status init(Transformer& model, const ModelTrainerOptions& options, TokenData data);
    // `count` steps; each appends its batch's loss (before its update) to losses(). A step whose loss or
    // gradient is not finite is not taken (the parameters and AdamW's state stay those of the last
    // finite step) and the error says which step diverged and what to lower.
    Status step(std::size_t count);
    // Loss and argmax accuracy of the current model on data (in chunks of `batch` rows).
    Status evaluate(const TokenData& data, ModelEval& out) const;
    const std::vector<float>& losses() const { return losses_; }
    // The gradient's global L2 norm of the last step, before clipping.
    double last_grad_norm() const { return last_norm_; }
    // Multiply-adds of one step (for the callers' budget checks).
    std::uint64_t step_work() const;

private:
    // The loss (and gradient) of `count` rows of d: rows r0 … r0 + count − 1, or the listed ones.
    Status batch_loss(const TokenData& d, std::size_t r0, std::size_t count, const std::vector<std::size_t>* rows, bool want_grads,
                      TransformerLoss& out) const;
    Transformer* model_ = nullptr;
    ModelTrainerOptions o_;
    TokenData data_;
    Adam adam_;
    std::vector<std::uint8_t> decay_;
    std::vector<float> losses_;
    Pcg32 batches_{1};
    double last_norm_ = 0.0;
};

}  // namespace attnscope
