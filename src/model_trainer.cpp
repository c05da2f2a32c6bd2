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

Status check_token_data(const TokenData& d, const Transformer& model, const char* what) {
    const std::string w(what);
    const std::size_t V = model.config().vocab;
    if (d.rows < 1) return Status::error(w + ".rows: expected at least one sequence");
    if (d.cols < 1 || d.cols > model.config().max_tokens)
        return Status::error(w + ".cols: expected 1 to the model's maxTokens (" + num(model.config().max_tokens) + "), got " + num(d.cols));
    std::uint64_t n = 0;
    if (!checked_mul(d.rows, d.cols, n) || d.ids.size() != n)
        return Status::error(w + ".ids: expected rows x cols = " + num(n) + " ids, got " + num(d.ids.size()));
    if (d.targets.size() != n)
        return Status::error(w + ".targets: expected rows x cols = " + num(n) + " targets, got " + num(d.targets.size()));
    for (std::size_t i = 0; i < d.ids.size(); ++i)
        if (d.ids[i] < 0 || static_cast<std::size_t>(d.ids[i]) >= V)
            return Status::error(w + ".ids[" + num(i) + "]: expected an id from 0 to " + num(V - 1) + ", got " + std::to_string(d.ids[i]));
    for (std::size_t i = 0; i < d.targets.size(); ++i)
        if (d.targets[i] >= 0 && static_cast<std::size_t>(d.targets[i]) >= V)
            return Status::error(w + ".targets[" + num(i) + "]: expected -1 (no target) or an id from 0 to " + num(V - 1) + ", got " +
                                 std::to_string(d.targets[i]));
    return {};
}

Status ModelTrainer::init(Transformer& model, const ModelTrainerOptions& o, TokenData data) {
    if (model.empty()) return Status::error("model: no model was created");
    if (o.batch < 1 || o.batch > 4096) return Status::error("batch: expected 1 to 4096 sequences, got " + num(o.batch));
    if (!(o.learning_rate > 0.0f && o.learning_rate <= 1.0f))
        return Status::error("learningRate: expected a number > 0 and <= 1 (AdamW moves each weight by about this much per step; 1e-3 to 1e-2 are usual), got " +
                             std::to_string(o.learning_rate));
    if (!(o.clip >= 0.0f) || !std::isfinite(o.clip)) return Status::error("clip: expected a finite number >= 0 (0 = no clipping)");
    if (Status st = check_token_data(data, model, "data"); !st) return st;
    if (Status st = model.loss_budget(o.batch, data.cols, true).check(
            "one training step of " + num(o.batch) + " sequences of " + num(data.cols) + " tokens", "use a smaller batch or shorter sequences");
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

std::uint64_t ModelTrainer::step_work() const { return model_ ? model_->loss_budget(o_.batch, data_.cols, true).work() : 0; }

Status ModelTrainer::step(std::size_t count) {
    if (!model_) return Status::error("trainer: not initialised");
    Budget b;
    b.work(count, step_work());
    if (Status st = b.check(num(count) + " training steps", "call step() with fewer steps at a time"); !st) return st;
    const std::size_t B = o_.batch, n = data_.cols;
    std::vector<std::int32_t> ids(B * n), targets(B * n);
    for (std::size_t s = 0; s < count; ++s) {
        for (std::size_t r = 0; r < B; ++r) {
            const std::size_t row = static_cast<std::size_t>(batches_.next() % data_.rows);
            std::copy_n(data_.ids.begin() + static_cast<std::ptrdiff_t>(row * n), n, ids.begin() + static_cast<std::ptrdiff_t>(r * n));
            std::copy_n(data_.targets.begin() + static_cast<std::ptrdiff_t>(row * n), n, targets.begin() + static_cast<std::ptrdiff_t>(r * n));
        }
        TransformerLoss out;
        if (Status st = model_->loss(ids.data(), targets.data(), B, n, true, o_.variant, out); !st) return st;
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
    const std::size_t chunk = o_.batch, n = data.cols;
    double total = 0.0;
    for (std::size_t r0 = 0; r0 < data.rows; r0 += chunk) {
        const std::size_t rows = std::min(chunk, data.rows - r0);
        TransformerLoss part;
        if (Status st = model_->loss(data.ids.data() + r0 * n, data.targets.data() + r0 * n, rows, n, false, o_.variant, part); !st)
            return st;
        total += part.loss * static_cast<double>(part.count);
        out.hits += part.hits;
        out.count += part.count;
    }
    out.loss = out.count ? total / static_cast<double>(out.count) : 0.0;
    return {};
}

}  // namespace attnscope
