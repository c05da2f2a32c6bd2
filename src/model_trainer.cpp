#include "attnscope/model_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attnscope/checked.hpp"
#include "attnscope/limits.hpp"

namespace attnscope {

namespace {
std::string num(std::uint64_t x) { return std::to_string(x); }
}  // namespace

namespace {
Status check_block(const std::string& w, const char* ids_name, const char* cols_name, const std::vector<std::int32_t>& v, std::size_t rows,
                   std::size_t cols, std::size_t max_tokens, std::size_t vocab, bool targets) {
    if (cols < 1 || cols > max_tokens)
        return Status::error(w + "." + cols_name + ": expected 1 to the model's maxTokens (" + num(max_tokens) + "), got " + num(cols));
    std::uint64_t n = 0;
    if (!checked_mul(rows, cols, n) || v.size() != n)
        return Status::error(w + "." + ids_name + ": expected rows x " + cols_name + " = " + num(n) + " ids, got " + num(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) {
        const bool ok = (v[i] >= 0 && static_cast<std::size_t>(v[i]) < vocab) || (targets && v[i] < 0);
        if (ok) continue;
        return Status::error(w + "." + ids_name + "[" + num(i) + "]: expected " + (targets ? "-1 (none) or " : "") + "an id from 0 to " +
                             num(vocab - 1) + ", got " + std::to_string(v[i]));
    }
    return {};
}
}  // namespace

Status check_token_data(const TokenData& d, const Transformer& model, const char* what) {
    const std::string w(what);
    const std::size_t V = model.config().vocab, T = model.config().max_tokens;
    if (d.rows < 1) return Status::error(w + ".rows: expected at least one " + (model.config().kind == ModelKind::encoder_decoder ? "pair" : "sequence"));
    if (model.config().kind == ModelKind::encoder_decoder) {
        if (Status st = check_block(w, "source", "sourceCols", d.source, d.rows, d.source_cols, T, V, false); !st) return st;
        return check_block(w, "target", "targetCols", d.target, d.rows, d.target_cols, T, V, true);
    }
    if (Status st = check_block(w, "ids", "cols", d.ids, d.rows, d.cols, T, V, false); !st) return st;
    if (d.targets.size() != d.ids.size())
        return Status::error(w + ".targets: expected rows x cols = " + num(d.ids.size()) + " targets, got " + num(d.targets.size()));
    return check_block(w, "targets", "cols", d.targets, d.rows, d.cols, T, V, true);
}

Status ModelTrainer::init(Transformer& model, const ModelTrainerOptions& o, TokenData data) {
    if (model.empty()) return Status::error("model: no model was created");
    if (o.batch < 1 || o.batch > 4096) return Status::error("batch: expected 1 to 4096 sequences, got " + num(o.batch));
    if (!(o.learning_rate > 0.0f && o.learning_rate <= 1.0f))
        return Status::error("learningRate: expected a number > 0 and <= 1 (AdamW moves each weight by about this much per step; 1e-3 to 1e-2 are usual), got " +
                             std::to_string(o.learning_rate));
    if (!(o.clip >= 0.0f) || !std::isfinite(o.clip)) return Status::error("clip: expected a finite number >= 0 (0 = no clipping)");
    if (Status st = check_token_data(data, model, "data"); !st) return st;
    const bool pairs = model.config().kind == ModelKind::encoder_decoder;
    if (Status st = (pairs ? model.pair_budget(o.batch, data.source_cols, data.target_cols, true) : model.loss_budget(o.batch, data.cols, true))
                        .check("one training step of " + num(o.batch) + (pairs ? " pairs" : " sequences"), "use a smaller batch or shorter sequences");
        !st)
        return st;
    AdamOptions ao;
    ao.learning_rate = o.learning_rate;
    ao.beta1 = o.beta1;
    ao.beta2 = o.beta2;
    ao.weight_decay = o.weight_decay;
    if (Status st = adam_.init(model.params().size(), ao); !st) return Status::error(st.message());
    decay_.assign(model.params().size(), 0);
    for (const TensorInfo& t : model.tensors())
        if (t.shape.size() >= 2) std::fill(decay_.begin() + static_cast<std::ptrdiff_t>(t.offset), decay_.begin() + static_cast<std::ptrdiff_t>(t.offset + t.size), 1);
    model_ = &model;
    o_ = o;
    data_ = std::move(data);
    losses_.clear();
    batches_ = Pcg32(o.seed, 0x6261746368ULL);  // "batch"
    last_norm_ = 0.0;
    return {};
}

std::uint64_t ModelTrainer::step_work() const {
    if (!model_) return 0;
    if (model_->config().kind == ModelKind::encoder_decoder) return model_->pair_budget(o_.batch, data_.source_cols, data_.target_cols, true).work();
    return model_->loss_budget(o_.batch, data_.cols, true).work();
}

namespace {
// Rows `pick` of a row-major block of `cols` columns, stacked into out.
template <class Pick>
void gather(const std::vector<std::int32_t>& v, std::size_t cols, std::size_t count, Pick pick, std::vector<std::int32_t>& out) {
    out.resize(count * cols);
    for (std::size_t r = 0; r < count; ++r)
        std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(pick(r) * cols), cols, out.begin() + static_cast<std::ptrdiff_t>(r * cols));
}
}  // namespace

Status ModelTrainer::batch_loss(const TokenData& d, std::size_t r0, std::size_t count, const std::vector<std::size_t>* rows, bool want_grads,
                                TransformerLoss& out) const {
    auto pick = [&](std::size_t r) { return rows ? (*rows)[r] : r0 + r; };
    std::vector<std::int32_t> a, b;
    if (model_->config().kind == ModelKind::encoder_decoder) {
        gather(d.source, d.source_cols, count, pick, a);
        gather(d.target, d.target_cols, count, pick, b);
        return model_->loss_pairs(a.data(), b.data(), count, d.source_cols, d.target_cols, want_grads, o_.variant, out);
    }
    gather(d.ids, d.cols, count, pick, a);
    gather(d.targets, d.cols, count, pick, b);
    return model_->loss(a.data(), b.data(), count, d.cols, want_grads, o_.variant, out);
}

Status ModelTrainer::step(std::size_t count) {
    if (!model_) return Status::error("trainer: not initialised");
    Budget b;
    b.work(count, step_work());
    if (Status st = b.check(num(count) + " training steps", "call step() with fewer steps at a time"); !st) return st;
    const std::size_t B = o_.batch;
    std::vector<std::size_t> rows(B);
    for (std::size_t s = 0; s < count; ++s) {
        for (std::size_t r = 0; r < B; ++r) rows[r] = static_cast<std::size_t>(batches_.next() % data_.rows);
        TransformerLoss out;
        if (Status st = batch_loss(data_, 0, B, &rows, true, out); !st) return st;
        double sq = 0.0;
        for (float g : out.grads) sq += static_cast<double>(g) * g;
        const double norm = std::sqrt(sq);
        if (!std::isfinite(out.loss) || !std::isfinite(norm))
            return Status::error("step " + num(losses_.size() + 1) + ": the loss or the gradient is not finite; the step was not taken — lower learningRate");
        last_norm_ = norm;
        if (o_.clip > 0.0f && norm > static_cast<double>(o_.clip)) {
            const float scale = static_cast<float>(static_cast<double>(o_.clip) / norm);
            for (float& g : out.grads) g *= scale;
        }
        if (Status st = adam_.step(model_->mutable_params(), out.grads.data(), out.grads.size(), decay_.data()); !st) return st;
        losses_.push_back(static_cast<float>(out.loss));
    }
    return {};
}

Status ModelTrainer::evaluate(const TokenData& data, ModelEval& out) const {
    out = ModelEval{};
    if (!model_) return Status::error("trainer: not initialised");
    if (Status st = check_token_data(data, *model_, "data"); !st) return st;
    const std::size_t chunk = o_.batch;
    double total = 0.0;
    for (std::size_t r0 = 0; r0 < data.rows; r0 += chunk) {
        const std::size_t rows = std::min(chunk, data.rows - r0);
        TransformerLoss part;
        if (Status st = batch_loss(data, r0, rows, nullptr, false, part); !st) return st;
        total += part.loss * static_cast<double>(part.count);
        out.hits += part.hits;
        out.count += part.count;
    }
    out.loss = out.count ? total / static_cast<double>(out.count) : 0.0;
    return {};
}

}  // namespace attnscope
