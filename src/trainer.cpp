#include "attnscope/trainer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <utility>

#include "attnscope/backward.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/positional.hpp"
#include "attnscope/projection.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"

namespace attnscope {

namespace {

std::string num(std::size_t x) { return std::to_string(x); }

bool hidden_by_mask(Mask mask, std::size_t i, std::size_t j) { return mask == Mask::causal && j > i; }

// Where each sentence starts among the stacked rows, and their total; a length outside 1..max_len is
// refused naming the array (`name`) and what to do (`fix`).
Status stack_offsets(const std::vector<std::uint32_t>& lengths, std::size_t max_len, const char* name, const char* fix,
                     std::vector<std::size_t>& offsets, std::uint64_t& total) {
    offsets.assign(lengths.size(), 0);
    for (std::size_t e = 0; e < lengths.size(); ++e) {
        const std::uint32_t n = lengths[e];
        if (n < 1 || n > max_len)
            return Status::error(std::string(name) + "[" + num(e) + "]: expected 1 to maxLen = " + num(max_len) + " tokens, got " +
                                 num(n) + "; " + fix);
        offsets[e] = static_cast<std::size_t>(total);
        total += n;
    }
    return {};
}

}  // namespace

Status check_trainer_data(TrainerData& data, const TrainerOptions& o) {
    if (data.lengths.empty()) return Status::error("lengths: expected at least one sentence");
    std::uint64_t total = 0;
    if (Status st = stack_offsets(data.lengths, o.max_len, "lengths", "raise maxLen or split the sentence", data.offsets, total); !st)
        return st;
    std::uint64_t key_total = 0;
    data.key_offsets.clear();
    if (data.cross()) {
        if (data.key_lengths.size() != data.lengths.size())
            return Status::error("keyLengths: expected one key sentence per sentence (" + num(data.lengths.size()) + "), got " +
                                 num(data.key_lengths.size()));
        if (Status st = stack_offsets(data.key_lengths, o.max_len, "keyLengths", "raise maxLen or shorten the key sentence",
                                      data.key_offsets, key_total);
            !st)
            return st;
    } else if (!data.KX.empty()) {
        return Status::error("keyVectors: given without keyLengths; give both (cross-attention) or neither");
    }
    if (data.targets.size() != total)
        return Status::error("targets: expected " + std::to_string(total) + " entries (one per token, the sum of lengths), got " +
                             num(data.targets.size()));
    if (data.X.size() != total * o.d_in)
        return Status::error("vectors: expected " + std::to_string(total * o.d_in) + " numbers [tokens = " +
                             std::to_string(total) + ", dIn = " + num(o.d_in) + "], got " + num(data.X.size()));
    if (data.cross() && data.KX.size() != key_total * o.d_in)
        return Status::error("keyVectors: expected " + std::to_string(key_total * o.d_in) + " numbers [key tokens = " +
                             std::to_string(key_total) + ", dIn = " + num(o.d_in) + "], got " + num(data.KX.size()));
    for (std::size_t i = 0; i < data.X.size(); ++i)
        if (!std::isfinite(data.X[i]))
            return Status::error("vectors: element " + num(i) + " is not finite; every element must be a finite number");
    for (std::size_t i = 0; i < data.KX.size(); ++i)
        if (!std::isfinite(data.KX[i]))
            return Status::error("keyVectors: element " + num(i) + " is not finite; every element must be a finite number");
    for (std::size_t e = 0; e < data.lengths.size(); ++e) {
        const std::size_t n = data.lengths[e], m = data.key_length(e), off = data.offsets[e];
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t t = data.targets[off + i];
            if (t == -1) continue;
            if (t < 0 || static_cast<std::size_t>(t) >= m)
                return Status::error("targets[" + num(off + i) + "]: expected -1 (no target) or a key index from 0 to " +
                                     num(m - 1) + (data.cross() ? " of its key sentence" : " of its sentence") + ", got " +
                                     std::to_string(t));
            if (hidden_by_mask(o.mask, i, static_cast<std::size_t>(t)))
                return Status::error("targets[" + num(off + i) + "]: key " + std::to_string(t) + " is hidden from query " +
                                     num(i) + " by the causal mask; use mask 'none' or an earlier key");
        }
    }
    return {};
}

void HeadTrainer::features(const float* x, std::size_t n, float* f) const {
    const std::size_t din = o_.d_in, df = layout_.d_feat;
    std::vector<float> pe(o_.positions == TrainerPositions::concat ? o_.d_pos : din);
    for (std::size_t i = 0; i < n; ++i) {
        float* row = f + i * df;
        for (std::size_t c = 0; c < din; ++c) row[c] = x[i * din + c];
        if (o_.positions == TrainerPositions::none) continue;
        sinusoidal_position(i, pe.size(), pe.data());
        if (o_.positions == TrainerPositions::add)
            for (std::size_t c = 0; c < din; ++c) row[c] += pe[c];
        else
            for (std::size_t c = 0; c < o_.d_pos; ++c) row[din + c] = pe[c];
    }
}

namespace {

// Where the trainer keeps a score's matrix of this kind: its offset in the layout (which JS reads by
// name) and its gradient in ScoreGrads. The other kinds (projections, the output's) are not a score's.
struct ScoreMatrixSlot {
    std::size_t TrainerLayout::*offset = nullptr;
    Tensor ScoreGrads::*grad = nullptr;
};
ScoreMatrixSlot score_matrix_slot(MatrixKind kind) {
    // in the order of score_matrix_kind()
    static constexpr std::size_t TrainerLayout::*kOffsets[] = {&TrainerLayout::W, &TrainerLayout::W1, &TrainerLayout::W2,
                                                               &TrainerLayout::v, &TrainerLayout::Wa};
    const ScoreMatrixKind m = score_matrix_kind(kind);
    if (m.index < 0) return {};
    return {kOffsets[m.index], m.grad};
}

// The score's ScoreParams for the trainer's options, its matrices visited as its definition lays them
// out for one head (ScoreDef::head_params: d_head wide, max_len key positions, in its order):
// f(rows, cols, kind, slot) returns each matrix's address. A score without matrices visits none.
template <class F>
ScoreParams visit_score_matrices(const TrainerOptions& o, F&& f) {
    const scores::ScoreDef& def = scores::score_def(o.score);
    ScoreParams given;
    given.p = o.p;
    given.eps = o.eps;
    if (def.hidden_layer) given.hidden = o.hidden;
    ScoreParams sp = given;
    if (!def.head_params) return sp;
    struct Source final : scores::MatrixSource {
        F& f;
        explicit Source(F& g) : f(g) {}
        const float* matrix(const float*, std::size_t rows, std::size_t cols, MatrixKind kind) override {
            const ScoreMatrixSlot slot = score_matrix_slot(kind);
            // Not a score's kind (a definition's mistake): left null, which the score's own check refuses.
            if (!slot.offset) return nullptr;
            return f(rows, cols, kind, slot);
        }
    } source(f);
    def.head_params(sp, given, o.d_head, o.max_len, source);
    return sp;
}

}  // namespace

ScoreParams HeadTrainer::score_params(const float* base) const {
    return visit_score_matrices(o_, [&](std::size_t, std::size_t, MatrixKind, ScoreMatrixSlot slot) {
        return base + layout_.*slot.offset;
    });
}

float HeadTrainer::inverse_tau(const float* base) const {
    return o_.learned_temperature ? std::exp(-base[layout_.log_tau]) : 1.0f / o_.temperature;
}

Status HeadTrainer::init(const TrainerOptions& o, TrainerData data) {
    if (o.d_in < 1 || o.d_in > 4096) return Status::error("dIn: expected 1 to 4096, got " + num(o.d_in));
    if (o.d_head < 1 || o.d_head > 1024) return Status::error("dHead: expected 1 to 1024, got " + num(o.d_head));
    if (o.positions == TrainerPositions::concat && (o.d_pos < 1 || o.d_pos > 1024))
        return Status::error("dPos: expected 1 to 1024, got " + num(o.d_pos));
    if (o.max_len < 1 || o.max_len > 1024) return Status::error("maxLen: expected 1 to 1024, got " + num(o.max_len));
    if (o.batch < 1 || o.batch > 4096) return Status::error("batch: expected 1 to 4096 sentences, got " + num(o.batch));
    if (!(o.learning_rate > 0.0f && o.learning_rate <= kMaxLearningRate))
        return Status::error("learningRate: expected a number > 0 and <= 1 (Adam moves each weight by about this much per step; 0.001 to 0.03 are usual), got " +
                             std::to_string(o.learning_rate));
    if (scores::score_def(o.score).hidden_layer && (o.hidden < 1 || o.hidden > 1024))
        return Status::error("hidden: expected 1 to 1024, got " + num(o.hidden));
    if (!(o.p > 0.0f) || !std::isfinite(o.p)) return Status::error("p: expected a finite number > 0");
    if (!(o.eps >= 0.0f) || !std::isfinite(o.eps)) return Status::error("eps: expected a finite number >= 0");
    if (o.output != TrainerOutput::none && o.output != TrainerOutput::value && o.output != TrainerOutput::scaled)
        return Status::error("output: expected 'none', 'value' or 'scaled'");
    float inv_tau = 0.0f;
    if (Status st = inverse_temperature(o.temperature, inv_tau); !st) return st;
    if (o.learned_temperature && o.output != TrainerOutput::none)
        return Status::error("temperature: 'learned' trains an attention-only head; with an output (value or scaled) give a number");
    if (Status st = check_trainer_data(data, o); !st) return st;
    AdamOptions ao;
    ao.learning_rate = o.learning_rate;
    o_ = o;
    TrainerLayout& L = layout_;
    L = TrainerLayout{};
    L.d_feat = o.d_in + (o.positions == TrainerPositions::concat ? o.d_pos : 0);
    std::size_t at = 0;
    L.Wq = at; at += L.d_feat * o.d_head;
    L.Wk = at; at += L.d_feat * o.d_head;
    // The score's matrices (none for most scores), in its definition's order.
    constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
    L.W = L.W1 = L.W2 = L.v = L.Wa = kAbsent;
    visit_score_matrices(o, [&](std::size_t rows, std::size_t cols, MatrixKind, ScoreMatrixSlot slot) -> const float* {
        L.*slot.offset = at;
        at += rows * cols;
        return nullptr;
    });
    // The output's matrices come last, so output none keeps the layout (and the bytes) it always had.
    L.Wv = L.Wx = 0;
    if (o.output != TrainerOutput::none) { L.Wv = at; at += L.d_feat * o.d_in; }
    if (o.output == TrainerOutput::scaled) { L.Wx = at; at += o.d_in * o.d_in; }
    L.log_tau = kAbsent;
    if (o.learned_temperature) { L.log_tau = at; at += 1; }
    L.total = at;
    if (L.log_tau == kAbsent) L.log_tau = at;
    for (std::size_t* offset : {&L.W, &L.W1, &L.W2, &L.v, &L.Wa})
        if (*offset == kAbsent) *offset = at;
    if (o.output == TrainerOutput::none) L.Wv = at;
    if (o.output != TrainerOutput::scaled) L.Wx = at;
    if (Status st = adam_.init(L.total, ao); !st) return st;
    data_ = std::move(data);
    reset(o.seed);
    return {};
}

void HeadTrainer::reset(std::uint32_t seed) {
    o_.seed = seed;
    const TrainerLayout& L = layout_;
    params_.assign(L.total, 0.0f);
    auto fill = [&](std::size_t offset, std::size_t rows, std::size_t cols, MatrixKind kind) {
        const std::vector<float> w = xavier_uniform(rows, cols, seed, matrix_stream(kind, 0));
        std::copy(w.begin(), w.end(), params_.begin() + static_cast<std::ptrdiff_t>(offset));
    };
    fill(L.Wq, L.d_feat, o_.d_head, MatrixKind::Wq);
    fill(L.Wk, L.d_feat, o_.d_head, MatrixKind::Wk);
    visit_score_matrices(o_, [&](std::size_t rows, std::size_t cols, MatrixKind kind, ScoreMatrixSlot slot) -> const float* {
        fill(L.*slot.offset, rows, cols, kind);
        return nullptr;
    });
    if (o_.output != TrainerOutput::none) fill(L.Wv, L.d_feat, o_.d_in, MatrixKind::Wv);
    if (o_.output == TrainerOutput::scaled) fill(L.Wx, o_.d_in, o_.d_in, MatrixKind::W_extra);
    adam_.reset();
    losses_.clear();
    // The batch stream: its own PCG stream of the seed, apart from the matrices'.
    batches_ = Pcg32(seed, 0x6c61625f62617463ULL);
}

std::uint64_t HeadTrainer::step_work() const { return batch_work(o_.batch); }

std::uint64_t HeadTrainer::gradient_floats(const std::vector<std::uint32_t>& examples) const {
    // F and G (features), Q, K, dQ, dK (d_head wide), V, dV, dO (d_in wide), the gradient of every
    // parameter, and the same again for the copy handed to JS.
    std::uint64_t rows = 0, key_rows = 0;
    for (std::uint32_t e : examples) {
        if (e >= data_.lengths.size()) continue;
        rows = Budget::add(rows, data_.lengths[e]);
        key_rows = Budget::add(key_rows, data_.key_length(e));
    }
    const std::uint64_t per_row = layout_.d_feat + 2 * o_.d_head + (o_.output != TrainerOutput::none ? o_.d_in : 0);
    const std::uint64_t per_key_row = layout_.d_feat + 2 * o_.d_head + (o_.output != TrainerOutput::none ? 2 * o_.d_in : 0);
    const std::uint64_t one = Budget::add(Budget::add(Budget::mul(rows, per_row), Budget::mul(key_rows, per_key_row)), params_.size());
    return Budget::mul(one, 2);
}

std::uint64_t HeadTrainer::batch_work(std::uint64_t sentences, const TrainerData* other) const {
    const TrainerData& data = other ? *other : data_;
    // Per token: the projections forward (2), their backward (2) and the features; per pair of a
    // sentence: the score forward and backward (~4 d_head, additive 2 tanh per hidden unit) and the
    // softmax (limits::kWeightCost, as the forward counts it). Sentences of the longest length.
    // Cross-attention: the key sentences' rows project (and back) with W_k only.
    std::uint32_t longest = 0, longest_key = 0;
    for (std::size_t e = 0; e < data.lengths.size(); ++e) {
        longest = std::max(longest, data.lengths[e]);
        longest_key = std::max(longest_key, static_cast<std::uint32_t>(data.key_length(e)));
    }
    const std::uint64_t rows = Budget::mul(sentences, longest);
    const std::uint64_t key_rows = Budget::mul(sentences, longest_key);
    const std::uint64_t pairs = Budget::mul(rows, longest_key);
    std::uint64_t per_pair = 4 * o_.d_head + limits::kWeightCost;
    if (scores::score_def(o_.score).hidden_layer) per_pair += 2 * limits::kTanhCost * o_.hidden;
    const std::uint64_t proj = 2 * layout_.d_feat * o_.d_head;
    std::uint64_t work = Budget::add(Budget::add(Budget::mul(rows, proj + layout_.d_feat), Budget::mul(key_rows, proj)),
                                     Budget::mul(pairs, per_pair));
    if (o_.output != TrainerOutput::none) {
        // Output modes: V = G W_v and its backward (2 per key row and output column and feature); the
        // backward recomputes the forward (scores and softmax once more) and multiplies A V, its dV
        // and dA (3 per pair and output column); scaled: A V W_extra and its two backward products.
        const std::uint64_t dout = o_.d_in;
        work = Budget::add(work, Budget::mul(key_rows, 2 * layout_.d_feat * dout));
        work = Budget::add(work, Budget::mul(pairs, per_pair + 3 * dout));
        if (o_.output == TrainerOutput::scaled) work = Budget::add(work, Budget::mul(rows, 4 * dout * dout));
    }
    return work;
}

void HeadTrainer::add_score_grads(std::vector<float>& grads, const ScoreGrads& sg) const {
    auto add = [&grads](std::size_t offset, const Tensor& x) {
        for (std::size_t k = 0; k < x.values.size(); ++k) grads[offset + k] += x.values[k];
    };
    visit_score_matrices(o_, [&](std::size_t, std::size_t, MatrixKind, ScoreMatrixSlot slot) -> const float* {
        add(layout_.*slot.offset, sg.*slot.grad);
        return nullptr;
    });
}

Status HeadTrainer::output_rows(const TrainerData& data, std::size_t e, ConstMatrix Qe, ConstMatrix Ke, ConstMatrix Ve,
                                const AttentionOptions& ao, double scale, Tensor& S, Tensor& A, float* dO, double& loss,
                                std::size_t& hits, std::size_t& out_hits) const {
    const std::size_t n = Qe.rows, m = Ke.rows, dout = Ve.cols;
    Tensor O(n, dout);
    if (Status st = attention(Qe, Ke, Ve, ao, S.view(), A.view(), O.view()); !st) return st;
    const std::int32_t* t = data.targets.data() + data.offsets[e];
    // The key sentence's input vectors (the copy targets): its own rows, or the key sentence's.
    const float* keys = data.cross() ? data.KX.data() + data.key_offsets[e] * o_.d_in : data.X.data() + data.offsets[e] * o_.d_in;
    const double inv_d = 1.0 / static_cast<double>(dout);
    auto dist = [&](std::size_t i, std::size_t j) {
        double s = 0.0;
        for (std::size_t c = 0; c < dout; ++c) {
            const double diff = static_cast<double>(O(i, c)) - keys[j * dout + c];
            s += diff * diff;
        }
        return s;
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (dO)
            for (std::size_t c = 0; c < dout; ++c) dO[i * dout + c] = 0.0f;
        if (t[i] < 0) continue;
        const std::size_t ti = static_cast<std::size_t>(t[i]);
        const double d_t = dist(i, ti);
        loss += d_t * inv_d;
        std::size_t best = 0;
        for (std::size_t j = 1; j < m; ++j)
            if (A(i, j) > A(i, best)) best = j;
        hits += best == ti;
        if (!dO) {  // evaluation only (a training step does not report hits): the nearest key vector
            bool nearest = true;
            for (std::size_t j = 0; j < m && nearest; ++j) nearest = j == ti || dist(i, j) >= d_t;
            out_hits += nearest;
        }
        // d/dO of the mean over target rows of ‖O_i − x_t‖² / d: 2 (O_i − x_t) / (d count).
        if (dO)
            for (std::size_t c = 0; c < dout; ++c)
                dO[i * dout + c] =
                    static_cast<float>(2.0 * inv_d * scale * (static_cast<double>(O(i, c)) - keys[ti * dout + c]));
    }
    return {};
}

Status HeadTrainer::batch_loss(const TrainerData& data, const std::vector<std::uint32_t>& examples, bool want_grads,
                               Gradients* g, TrainerEval* eval) const {
    const auto& kt = kernels_for(o_.variant);
    const std::size_t df = layout_.d_feat, dh = o_.d_head;
    const bool cross = data.cross();
    std::size_t rows = 0, key_rows = 0, count = 0;
    for (std::uint32_t e : examples) {
        rows += data.lengths[e];
        key_rows += data.key_length(e);
        for (std::size_t i = 0; i < data.lengths[e]; ++i) count += data.targets[data.offsets[e] + i] >= 0;
    }
    // F: the queries' features; G: the key sentences' (cross-attention only; else the keys are F's rows).
    Tensor F(rows, df), Q(rows, dh), K(key_rows, dh), G;
    if (cross) G = Tensor(key_rows, df);
    {
        std::size_t r = 0, kr = 0;
        for (std::uint32_t e : examples) {
            features(data.X.data() + data.offsets[e] * o_.d_in, data.lengths[e], F.values.data() + r * df);
            r += data.lengths[e];
            if (!cross) continue;
            features(data.KX.data() + data.key_offsets[e] * o_.d_in, data.key_lengths[e], G.values.data() + kr * df);
            kr += data.key_lengths[e];
        }
    }
    const Tensor& Fk = cross ? G : F;
    const float* P = params_.data();
    kt.gemm_nn(rows, dh, df, F.values.data(), df, P + layout_.Wq, dh, Q.values.data(), dh);
    kt.gemm_nn(key_rows, dh, df, Fk.values.data(), df, P + layout_.Wk, dh, K.values.data(), dh);
    const ScoreParams sp = score_params(P);
    const float inv_tau = inverse_tau(P);
    if (!(std::isfinite(inv_tau) && inv_tau > 0.0f))
        return Status::error("the learnt temperature (log τ = " + std::to_string(P[layout_.log_tau]) + ") gives no usable τ; call reset()");
    SoftmaxOptions so;
    so.temperature = 1.0f / inv_tau;
    so.mask = o_.mask;
    so.variant = o_.variant;
    double dlog_tau = 0.0;   // learnt τ: dL/d log τ of the batch
    const double scale = count ? 1.0 / static_cast<double>(count) : 0.0;

    std::vector<float> grads;
    Tensor dQ, dK;
    if (want_grads) {
        grads.assign(layout_.total, 0.0f);
        dQ = Tensor(rows, dh);
        dK = Tensor(key_rows, dh);
    }
    // Output modes: the values V = G W_v (key rows x d_in), the outputs' gradient dO and dV.
    const bool out_mode = o_.output != TrainerOutput::none;
    const std::size_t dout = o_.d_in;
    Tensor V, dV, dO;
    AttentionOptions ao;
    if (out_mode) {
        V = Tensor(key_rows, dout);
        kt.gemm_nn(key_rows, dout, df, Fk.values.data(), df, P + layout_.Wv, dout, V.values.data(), dout);
        if (want_grads) {
            dV = Tensor(key_rows, dout);
            dO = Tensor(rows, dout);
        }
        ao.score = o_.score;
        ao.params = sp;
        ao.temperature = o_.temperature;
        ao.mask = o_.mask;
        ao.variant = o_.variant;
        ao.experimental_scaled_output = o_.output == TrainerOutput::scaled;
        ao.W_extra = ao.experimental_scaled_output ? P + layout_.Wx : nullptr;
    }
    std::size_t out_hits = 0;
    double loss = 0.0;
    std::size_t hits = 0;
    std::size_t r = 0, kr = 0;
    Tensor S, A;
    ScoreGrads sg;
    for (std::uint32_t e : examples) {
        const std::size_t n = data.lengths[e], m = data.key_length(e);
        const std::int32_t* t = data.targets.data() + data.offsets[e];
        const ConstMatrix Qe(Q.values.data() + r * dh, n, dh), Ke(K.values.data() + kr * dh, m, dh);
        S = Tensor(n, m);
        A = Tensor(n, m);
        if (out_mode) {
            if (Status st = output_rows(data, e, Qe, Ke, ConstMatrix(V.values.data() + kr * dout, m, dout), ao, scale, S, A,
                                        want_grads ? dO.values.data() + r * dout : nullptr, loss, hits, out_hits);
                !st)
                return st;
            if (want_grads) {
                AttentionGrads ag;
                if (Status st = attention_backward(Qe, Ke, ConstMatrix(V.values.data() + kr * dout, m, dout), ao,
                                                   ConstMatrix(dO.values.data() + r * dout, n, dout), ag);
                    !st)
                    return st;
                std::copy(ag.dQ.values.begin(), ag.dQ.values.end(), dQ.values.begin() + static_cast<std::ptrdiff_t>(r * dh));
                std::copy(ag.dK.values.begin(), ag.dK.values.end(), dK.values.begin() + static_cast<std::ptrdiff_t>(kr * dh));
                std::copy(ag.dV.values.begin(), ag.dV.values.end(), dV.values.begin() + static_cast<std::ptrdiff_t>(kr * dout));
                add_score_grads(grads, ag);
                if (ao.experimental_scaled_output)
                    for (std::size_t k = 0; k < ag.dW_extra.values.size(); ++k) grads[layout_.Wx + k] += ag.dW_extra.values[k];
            }
            r += n;
            kr += m;
            continue;
        }
        if (Status st = compute_scores(o_.score, Qe, Ke, sp, S.view(), o_.variant); !st) return st;
        if (Status st = masked_softmax(S.view(), so, A.view()); !st) return st;
        bool any = false;
        for (std::size_t i = 0; i < n; ++i) {
            if (t[i] < 0) continue;
            any = true;
            const std::size_t ti = static_cast<std::size_t>(t[i]);
            loss -= std::log(std::max(static_cast<double>(A(i, ti)), 1e-30));
            std::size_t best = 0;
            for (std::size_t j = 1; j < m; ++j)
                if (A(i, j) > A(i, best)) best = j;
            hits += best == ti;
        }
        if (want_grads && any) {
            // dL/dS of the mean cross-entropy: (A − onehot(t)) / (τ count) on target rows (masked keys
            // have A = 0 and are never targets), 0 elsewhere. The same as masked_softmax_backward with
            // dA = −onehot(t) / (A count), without dividing by A.
            Tensor& dS = S;
            for (std::size_t i = 0; i < n; ++i) {
                float* row = dS.values.data() + i * m;
                if (t[i] < 0) {
                    for (std::size_t j = 0; j < m; ++j) row[j] = 0.0f;
                    continue;
                }
                // Learnt τ, before S is overwritten: A = softmax(Z), Z = S / τ, so dL/d log τ = Σ dZ · (−Z)
                // with dZ = (A − onehot(t)) / count (keys with A = 0 and not the target add nothing: a
                // masked key's S is −∞).
                if (o_.learned_temperature) {
                    for (std::size_t j = 0; j < m; ++j) {
                        const double dz = (static_cast<double>(A(i, j)) - (static_cast<std::int32_t>(j) == t[i] ? 1.0 : 0.0)) * scale;
                        if (dz != 0.0) dlog_tau -= dz * static_cast<double>(row[j]) * inv_tau;
                    }
                }
                const float c = static_cast<float>(scale) * inv_tau;
                for (std::size_t j = 0; j < m; ++j) row[j] = A(i, j) * c;
                row[t[i]] -= c;
            }
            if (Status st = compute_scores_backward(o_.score, Qe, Ke, sp, dS.view(), sg, o_.variant); !st) return st;
            std::copy(sg.dQ.values.begin(), sg.dQ.values.end(), dQ.values.begin() + static_cast<std::ptrdiff_t>(r * dh));
            std::copy(sg.dK.values.begin(), sg.dK.values.end(), dK.values.begin() + static_cast<std::ptrdiff_t>(kr * dh));
            add_score_grads(grads, sg);
        }
        r += n;
        kr += m;
    }
    if (want_grads) {
        if (o_.learned_temperature) grads[layout_.log_tau] = static_cast<float>(dlog_tau);
        const ConstMatrix Fv = F.view();
        if (Status st = linear_backward(Fv, ConstMatrix(P + layout_.Wq, df, dh), dQ.view(), Matrix(),
                                        Matrix(grads.data() + layout_.Wq, df, dh), o_.variant);
            !st)
            return st;
        if (Status st = linear_backward(Fk.view(), ConstMatrix(P + layout_.Wk, df, dh), dK.view(), Matrix(),
                                        Matrix(grads.data() + layout_.Wk, df, dh), o_.variant);
            !st)
            return st;
        if (out_mode)
            if (Status st = linear_backward(Fk.view(), ConstMatrix(P + layout_.Wv, df, dout), dV.view(), Matrix(),
                                            Matrix(grads.data() + layout_.Wv, df, dout), o_.variant);
                !st)
                return st;
    }
    if (g) {
        g->loss = loss * scale;
        g->count = count;
        g->grads = std::move(grads);
        g->F = std::move(F);
        g->Q = std::move(Q);
        g->K = std::move(K);
        g->dQ = std::move(dQ);
        g->dK = std::move(dK);
        g->G = std::move(G);
        g->V = std::move(V);
        g->dV = std::move(dV);
        g->dO = std::move(dO);
    }
    if (eval) {
        eval->loss = loss * scale;
        eval->hits = hits;
        eval->count = count;
        eval->output_hits = out_hits;
    }
    return {};
}

Status HeadTrainer::gradients(const std::vector<std::uint32_t>& examples, Gradients& out) const {
    if (params_.empty()) return Status::error("trainer: not initialised");
    if (examples.empty()) return Status::error("examples: expected at least one sentence index");
    for (std::uint32_t e : examples)
        if (e >= data_.lengths.size())
            return Status::error("examples: index " + std::to_string(e) + " is not a training sentence (there are " +
                                 num(data_.lengths.size()) + ")");
    // The same budget as every public call, before anything is allocated: the examples' multiply-adds
    // (counted as sentences of the longest length, as step() counts its batch) and the floats handed back.
    Budget b;
    b.work(batch_work(examples.size()));
    b.floats(gradient_floats(examples));
    if (Status st = b.check("gradients() of " + std::to_string(examples.size()) + " sentences",
                            "ask for the gradients of fewer sentences at a time");
        !st)
        return st;
    return batch_loss(data_, examples, true, &out, nullptr);
}

Status HeadTrainer::step(std::size_t count) {
    if (params_.empty()) return Status::error("trainer: not initialised");
    std::vector<std::uint32_t> batch(o_.batch);
    Gradients g;
    const auto N = static_cast<std::uint32_t>(data_.lengths.size());
    std::vector<float> last_params;
    for (std::size_t s = 0; s < count; ++s) {
        for (auto& e : batch) e = batches_.next() % N;
        if (Status st = batch_loss(data_, batch, true, &g, nullptr); !st) return st;
        const auto diverged = [&](const std::string& what) {
            return Status::error("training diverged at step " + std::to_string(losses_.size() + 1) + ": " + what +
                                 "; the parameters stay those after step " + std::to_string(losses_.size()) +
                                 ". Lower learningRate (now " + std::to_string(o_.learning_rate) +
                                 ") or the temperature's sharpness, or call reset()");
        };
        // losses() holds floats: a double loss past the float range would be stored as infinity.
        const float loss = static_cast<float>(g.loss);
        if (!std::isfinite(loss)) return diverged(std::string("the loss is ") + (std::isnan(g.loss) ? "NaN" : "infinite"));
        for (float x : g.grads)
            if (!std::isfinite(x)) return diverged("a gradient is not finite");
        last_params = params_;
        const Adam last_adam = adam_;
        if (Status st = adam_.step(params_.data(), g.grads.data(), g.grads.size()); !st) return st;
        for (float x : params_) {
            if (!std::isfinite(x)) {
                params_.swap(last_params);
                adam_ = last_adam;
                return diverged("the update makes a parameter non-finite");
            }
        }
        losses_.push_back(loss);
    }
    return {};
}

Status HeadTrainer::evaluate(TrainerData data, TrainerEval& out) const {
    if (params_.empty()) return Status::error("trainer: not initialised");
    if (Status st = check_trainer_data(data, o_); !st) return st;
    // The call budget (evaluation runs the forward only, counted here like a training batch of these
    // sentences: an upper bound).
    Budget b;
    b.work(batch_work(data.lengths.size(), &data));
    if (Status st = b.check("evaluate() of " + std::to_string(data.lengths.size()) + " sentences", "evaluate fewer sentences at a time");
        !st)
        return st;
    out = TrainerEval{};
    double loss_sum = 0.0;
    std::vector<std::uint32_t> one(1);
    for (std::uint32_t e = 0; e < data.lengths.size(); ++e) {
        one[0] = e;
        TrainerEval ev;
        if (Status st = batch_loss(data, one, false, nullptr, &ev); !st) return st;
        loss_sum += ev.loss * static_cast<double>(ev.count);
        out.hits += ev.hits;
        out.count += ev.count;
        out.output_hits += ev.output_hits;
    }
    out.loss = out.count ? loss_sum / static_cast<double>(out.count) : 0.0;
    return {};
}

Status HeadTrainer::weights_of(ConstMatrix X, Tensor& A) const { return weights_of(X, ConstMatrix(), A); }

Status HeadTrainer::weights_of(ConstMatrix X, ConstMatrix KX, Tensor& A) const {
    if (params_.empty()) return Status::error("trainer: not initialised");
    const bool cross = KX.data != nullptr;
    auto check = [this](ConstMatrix M, const char* name) -> Status {
        if (M.cols != o_.d_in) return Status::error(std::string(name) + ": expected rows of dIn = " + num(o_.d_in) + " numbers");
        if (M.rows < 1 || M.rows > o_.max_len)
            return Status::error(std::string(name) + ": expected 1 to maxLen = " + num(o_.max_len) + " tokens, got " +
                                 num(M.rows));
        for (std::size_t i = 0; i < M.rows; ++i)
            for (std::size_t c = 0; c < M.cols; ++c)
                if (!std::isfinite(M(i, c))) return Status::error(std::string(name) + ": every element must be a finite number");
        return {};
    };
    if (Status st = check(X, "vectors"); !st) return st;
    if (cross)
        if (Status st = check(KX, "keyVectors"); !st) return st;
    // Rows copied contiguous (a view may have a stride).
    auto rows_of = [](ConstMatrix M) {
        std::vector<float> v(M.rows * M.cols);
        for (std::size_t i = 0; i < M.rows; ++i)
            for (std::size_t c = 0; c < M.cols; ++c) v[i * M.cols + c] = M(i, c);
        return v;
    };
    const std::size_t n = X.rows, m = cross ? KX.rows : X.rows, df = layout_.d_feat, dh = o_.d_head;
    Tensor F(n, df), Q(n, dh), K(m, dh), S(n, m);
    features(rows_of(X).data(), n, F.values.data());
    Tensor G;
    if (cross) {
        G = Tensor(m, df);
        features(rows_of(KX).data(), m, G.values.data());
    }
    const Tensor& Fk = cross ? G : F;
    const auto& kt = kernels_for(o_.variant);
    kt.gemm_nn(n, dh, df, F.values.data(), df, params_.data() + layout_.Wq, dh, Q.values.data(), dh);
    kt.gemm_nn(m, dh, df, Fk.values.data(), df, params_.data() + layout_.Wk, dh, K.values.data(), dh);
    if (Status st = compute_scores(o_.score, Q.view(), K.view(), score_params(params_.data()), S.view(), o_.variant); !st)
        return st;
    SoftmaxOptions so;
    so.temperature = 1.0f / inverse_tau(params_.data());
    so.mask = o_.mask;
    so.variant = o_.variant;
    A = Tensor(n, m);
    return masked_softmax(S.view(), so, A.view());
}

}  // namespace attnscope
