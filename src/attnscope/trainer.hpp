// Training one attention head on "which key should this query attend to?" examples: the attention
// lab's trainer. A loop over the backward passes (backward.hpp) and Adam (optim.hpp), deterministic for
// a seed (the same seed, data and options give the same bytes on every run of one build).
//
// The model, per sentence of n tokens with input vectors x_i (d_in wide):
//   f_i = x_i                       (positions none)
//       = x_i + PE(i)               (positions add: sinusoidal, d_in wide)
//       = [x_i ; PE_dpos(i)]        (positions concat: d_in + d_pos wide)
//   Q = F W_q, K = F W_k            (F: n x d_feat, W_q, W_k: d_feat x d_head)
//   A = masked_softmax(score(Q, K; its parameters) / τ)
// and the loss of a batch is the mean over its target rows of the cross-entropy −log A[i, t_i]
// (t_i = the key query i should attend to; rows without a target are not counted).
// Cross-attention (data with key sentences, e.g. a sentence and its paraphrase): the queries come from
// the sentence's features F and the keys from its key sentence's features G (m tokens, positions
// counted within that sentence): Q = F W_q, K = G W_k, A is n x m and t_i indexes the key sentence. Trained: W_q, W_k
// and the score's own matrices (general W; additive W1, W2, v; location Wa), all Xavier-initialised
// from the seed; idw's p and ε stay fixed.
//
// Output modes (options.output), for a task where the head's output matters: copy the target key's
// input vector. The values are V = G W_v (W_v: d_feat x d_in, trained; G = the keys' features) and
//   value:  O = A V
//   scaled: O = A V W_extra / √d_in   (the experimental "more symmetric" output, W_extra d_in x d_in,
//           trained; AttentionOptions::experimental_scaled_output)
// and the loss is the mean over the target rows of ‖O_i − x_{t_i}‖² / d_in, where x_{t_i} is the
// target key's input vector (fixed, so V = 0 does not zero the loss). The attention weights get no
// direct supervision in these modes: the head must learn where to look from the output alone.
// output none (the default) is the cross-entropy model above, unchanged bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnscope/attention.hpp"
#include "attnscope/backward.hpp"
#include "attnscope/optim.hpp"
#include "attnscope/random.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope {

enum class TrainerPositions { none, add, concat };
enum class TrainerOutput { none, value, scaled };

struct TrainerOptions {
    std::size_t d_in = 0;            // width of the token vectors (required, >= 1)
    std::size_t d_head = 16;         // width of the projected queries and keys
    TrainerPositions positions = TrainerPositions::none;
    std::size_t d_pos = 16;          // positions concat: width of the concatenated encoding
    std::size_t max_len = 64;        // longest sentence (location's Wa has this many rows)
    Score score = Score::scaled_dot;
    float p = 2.0f, eps = 1e-3f;     // idw (fixed)
    std::size_t hidden = 16;         // additive's hidden size
    float temperature = 1.0f;
    // The temperature learnt with the rest: a parameter log τ (start 0, τ = 1; `temperature` is then
    // unused), trained by Adam like the matrices. Attention-only heads (output none).
    bool learned_temperature = false;
    Mask mask = Mask::none;
    float learning_rate = 0.01f;     // 0 < learning_rate <= kMaxLearningRate
    TrainerOutput output = TrainerOutput::none;
    std::size_t batch = 32;          // sentences per step, drawn with replacement from the seed's stream
    std::uint32_t seed = 1;
    Variant variant = Variant::automatic;
};

// Sentences stacked: X [sum of lengths, d_in], lengths, and per token the index (within its sentence)
// of the key it should attend to, or -1 for none.
// Cross-attention (optional): one key sentence per sentence, stacked the same way in KX [sum of
// key_lengths, d_in]; the targets then index the key sentence. Empty key_lengths (and KX): the keys
// are the sentence itself (self-attention).
struct TrainerData {
    std::vector<float> X;
    std::vector<std::uint32_t> lengths;
    std::vector<std::int32_t> targets;
    std::vector<float> KX;
    std::vector<std::uint32_t> key_lengths;
    std::vector<std::size_t> offsets;      // filled by check_trainer_data
    std::vector<std::size_t> key_offsets;  // filled by check_trainer_data (cross-attention only)

    bool cross() const { return !key_lengths.empty(); }
    // Keys of sentence e: its key sentence (cross) or itself.
    std::size_t key_length(std::size_t e) const { return cross() ? key_lengths[e] : lengths[e]; }
};

// Checks shapes, lengths (1..max_len), targets (-1 or a key the mask lets the query see) and finite
// values; fills data.offsets (and key_offsets). Messages name the argument (vectors, lengths, targets,
// keyVectors, keyLengths).
Status check_trainer_data(TrainerData& data, const TrainerOptions& options);

struct TrainerEval {
    double loss = 0.0;         // mean cross-entropy (output modes: mean ‖O_i − x_t‖² / d_in) over the target rows
    std::size_t hits = 0;      // target rows whose argmax is the target
    std::size_t count = 0;     // target rows
    // Output modes: target rows whose output O_i is at least as near the target key's input vector as
    // to every other key's of that sentence (a repeated word counts as its target). 0 for output none.
    std::size_t output_hits = 0;
};

// The trained matrices, each a flat row-major block of params(): W_q, W_k, then the score's, then the
// output's (W_v d_feat x d_in, W_extra d_in x d_in).
struct TrainerLayout {
    std::size_t Wq = 0, Wk = 0, W = 0, W1 = 0, W2 = 0, v = 0, Wa = 0, Wv = 0, Wx = 0, log_tau = 0,
                total = 0;  // offsets; W.. (and log_tau) = total if absent
    std::size_t d_feat = 0;
};

// Adam's step moves each parameter by about the learning rate: past 1 a head's weights leave any
// useful range in one step (and at 1e20 every loss and weight is NaN after it).
constexpr float kMaxLearningRate = 1.0f;

class HeadTrainer {
public:
    // Checks the options and the data, initialises the parameters from options.seed.
    Status init(const TrainerOptions& options, TrainerData data);
    // `count` optimisation steps; each appends its batch loss to losses(). A step whose loss or
    // gradient is not finite, or whose update would make a parameter non-finite, is not taken: the
    // parameters and Adam's state stay those of the last finite step and the error says which step
    // diverged and what to lower.
    Status step(std::size_t count);
    // Back to the state init() left, with another seed (parameters, Adam, batch stream, losses).
    void reset(std::uint32_t seed);
    // Loss and argmax accuracy on other data (checked like the training data).
    Status evaluate(TrainerData data, TrainerEval& out) const;
    // The attention weights (n x n) of one sentence X [n, d_in] under the current parameters.
    Status weights_of(ConstMatrix X, Tensor& A) const;
    // Cross-attention: the weights (n x m) of the queries of X [n, d_in] over the keys of KX [m, d_in].
    Status weights_of(ConstMatrix X, ConstMatrix KX, Tensor& A) const;

    // The loss and gradient of the given training sentences as one batch, at the current parameters
    // (what step() computes before its update). Q, dQ, F: the batch's query rows stacked; K, dK: its
    // key rows (cross-attention: the key sentences', whose features are G; self-attention: G is empty
    // and the keys' rows are F's). Output modes: V, dV (key rows x d_in) and dO (query rows x d_in,
    // the loss's gradient with respect to the output); empty for output none.
    struct Gradients {
        double loss = 0.0;
        std::size_t count = 0;
        std::vector<float> grads;  // laid out as params()
        Tensor F, Q, K, dQ, dK, G, V, dV, dO;
    };
    Status gradients(const std::vector<std::uint32_t>& examples, Gradients& out) const;

    const std::vector<float>& params() const { return params_; }
    const std::vector<float>& losses() const { return losses_; }
    const TrainerLayout& layout() const { return layout_; }
    const TrainerOptions& options() const { return o_; }
    std::size_t examples() const { return data_.lengths.size(); }
    bool cross() const { return data_.cross(); }
    // Multiply-adds of one step (for the callers' budget checks).
    std::uint64_t step_work() const;
    // Multiply-adds of the loss and gradient of `sentences` sentences of the longest length, and the
    // floats gradients() hands back for the given examples (features, Q, K, their gradients, values).
    // (`other`: sentences of that data instead of the training data.)
    std::uint64_t batch_work(std::uint64_t sentences, const TrainerData* other = nullptr) const;
    std::uint64_t gradient_floats(const std::vector<std::uint32_t>& examples) const;

private:
    Status batch_loss(const TrainerData& data, const std::vector<std::uint32_t>& examples, bool want_grads,
                      Gradients* g, TrainerEval* eval) const;
    void features(const float* x, std::size_t n, float* f) const;
    void add_score_grads(std::vector<float>& grads, const ScoreGrads& sg) const;
    // Output modes, one sentence e: S, A and O = attention(Qe, Ke, Ve), the squared-error loss and
    // argmax hits of its target rows added to loss/hits; dO (n x d_in, if not null: a training step)
    // gets the loss's gradient with respect to O (scale = 1 / target rows of the batch); without dO
    // (evaluation) the output hits are added to out_hits.
    Status output_rows(const TrainerData& data, std::size_t e, ConstMatrix Qe, ConstMatrix Ke, ConstMatrix Ve,
                       const AttentionOptions& ao, double scale, Tensor& S, Tensor& A, float* dO, double& loss,
                       std::size_t& hits, std::size_t& out_hits) const;
    ScoreParams score_params(const float* base) const;
    // 1/τ at the parameters `base`: exp(−log τ) when learnt, else 1 / options.temperature.
    float inverse_tau(const float* base) const;

    TrainerOptions o_;
    TrainerData data_;
    TrainerLayout layout_;
    std::vector<float> params_;
    std::vector<float> losses_;
    Adam adam_;
    Pcg32 batches_{1};  // the stream batches are drawn from (seeded from options.seed)
};

}  // namespace attnscope
