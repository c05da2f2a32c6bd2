// The transformer (attnscope/transformer.hpp) against a float64 evaluation of the same model written
// here from its definition (embeddings, pre-LN blocks, every scoring function from its formula, the
// causal softmax with τ, GELU by erf, the tied lm_head, the mean cross-entropy): forward logits and
// attentions, and every parameter's gradient against float64 central differences of that loss, for
// every scoring function of the registry and with a learned temperature; the scalar and SIMD variants
// against each other; determinism; the budget refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/transformer.hpp"
#include "test_util.hpp"

using namespace attnscope;

namespace {

// ---- the float64 model ------------------------------------------------------------------------
// A hook on the attention weights: `delta` added to one weight after the softmax (masked or not), the
// way the central differences of ∂ logit / ∂ A perturb it. stack: 0 the decoder's (or the encoder's)
// self-attention, 1 an encoder-decoder's decoder self-attention, 2 its cross-attention; index into
// that stack's [L, H, nq, nk].
struct Bump {
    int stack = 0;
    std::size_t index = 0;
    double delta = 0.0;
};

struct Ref {
    const Transformer& m;
    std::vector<double> p;  // the parameters, as params() lays them out

    const double* t(const std::string& name) const {
        const long i = m.find(name);
        if (i < 0) throw std::runtime_error("no tensor " + name);
        return p.data() + m.tensors()[static_cast<std::size_t>(i)].offset;
    }
    bool has(const std::string& name) const { return m.find(name) >= 0; }

    static void layer_norm(const std::vector<double>& x, std::size_t N, std::size_t D, const double* g, const double* b,
                           std::vector<double>& out) {
        out.assign(N * D, 0.0);
        for (std::size_t r = 0; r < N; ++r) {
            double mean = 0.0, var = 0.0;
            for (std::size_t c = 0; c < D; ++c) mean += x[r * D + c];
            mean /= static_cast<double>(D);
            for (std::size_t c = 0; c < D; ++c) var += (x[r * D + c] - mean) * (x[r * D + c] - mean);
            var /= static_cast<double>(D);
            for (std::size_t c = 0; c < D; ++c) out[r * D + c] = (x[r * D + c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
        }
    }
    // The position row added to token i's embedding: wpe's, or Vaswani et al.'s sinusoid in float64.
    double position(const std::string& stack, std::size_t i, std::size_t d) const {
        const TransformerConfig& c = m.config();
        if (c.positions == Positions::learned) return t(stack + ".wpe.weight")[i * c.d_model + d];
        const double angle = static_cast<double>(i) / std::pow(10000.0, static_cast<double>(d - d % 2) / static_cast<double>(c.d_model));
        return d % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
    double activate(double v) const {
        switch (m.config().activation) {
            case MlpActivation::relu: return v > 0.0 ? v : 0.0;
            case MlpActivation::tanh: return std::tanh(v);
            case MlpActivation::gelu: break;
        }
        return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    }
    // One residual sublayer around f: pre-LN x += f(LN(x)), post-LN x = LN(x + f(x)).
    template <class Fn>
    void sublayer(std::vector<double>& x, std::size_t n, const std::string& ln, Fn f) const {
        const std::size_t D = m.config().d_model;
        std::vector<double> h;
        if (m.config().norm == Norm::post) {
            const std::vector<double> o = f(x);
            for (std::size_t i = 0; i < n * D; ++i) x[i] += o[i];
            layer_norm(std::vector<double>(x), n, D, t(ln + ".weight"), t(ln + ".bias"), x);
            return;
        }
        layer_norm(x, n, D, t(ln + ".weight"), t(ln + ".bias"), h);
        const std::vector<double> o = f(h);
        for (std::size_t i = 0; i < n * D; ++i) x[i] += o[i];
    }
    // The stack's output: ln_f(x) (pre-LN), x itself (post-LN).
    std::vector<double> final_norm(const std::vector<double>& x, std::size_t n, const std::string& stack) const {
        if (m.config().norm == Norm::post) return x;
        std::vector<double> h;
        layer_norm(x, n, m.config().d_model, t(stack + ".ln_f.weight"), t(stack + ".ln_f.bias"), h);
        return h;
    }

    // Y = X Wᵀ + b (W [out, in]).
    static std::vector<double> linear(const std::vector<double>& X, std::size_t N, std::size_t in, std::size_t out, const double* W,
                                      const double* b) {
        std::vector<double> Y(N * out);
        for (std::size_t r = 0; r < N; ++r)
            for (std::size_t o = 0; o < out; ++o) {
                double s = b[o];
                for (std::size_t i = 0; i < in; ++i) s += X[r * in + i] * W[o * in + i];
                Y[r * out + o] = s;
            }
        return Y;
    }

    double score(Score sc, const double* q, const double* k, std::size_t j, std::size_t dh, const std::string& prefix) const {
        auto dot = [&] {
            double s = 0.0;
            for (std::size_t a = 0; a < dh; ++a) s += q[a] * k[a];
            return s;
        };
        auto d2 = [&] {
            double s = 0.0;
            for (std::size_t a = 0; a < dh; ++a) s += (q[a] - k[a]) * (q[a] - k[a]);
            return s;
        };
        switch (sc) {
            case Score::dot: return dot();
            case Score::scaled_dot: return dot() / std::sqrt(static_cast<double>(dh));
            case Score::cosine: {
                double qq = 0.0, kk = 0.0;
                for (std::size_t a = 0; a < dh; ++a) { qq += q[a] * q[a]; kk += k[a] * k[a]; }
                return qq > 0.0 && kk > 0.0 ? dot() / std::sqrt(qq * kk) : 0.0;
            }
            case Score::general: {
                const double* W = t(prefix + "W");
                double s = 0.0;
                for (std::size_t a = 0; a < dh; ++a)
                    for (std::size_t b = 0; b < dh; ++b) s += q[a] * W[a * dh + b] * k[b];
                return s;
            }
            case Score::additive: {
                const double *W1 = t(prefix + "W1"), *W2 = t(prefix + "W2"), *v = t(prefix + "v");
                double s = 0.0;
                for (std::size_t u = 0; u < dh; ++u) {
                    double x = 0.0;
                    for (std::size_t a = 0; a < dh; ++a) x += W1[u * dh + a] * q[a] + W2[u * dh + a] * k[a];
                    s += v[u] * std::tanh(x);
                }
                return s;
            }
            case Score::location: {
                const double* Wa = t(prefix + "Wa");
                double s = 0.0;
                for (std::size_t a = 0; a < dh; ++a) s += Wa[j * dh + a] * q[a];
                return s;
            }
            case Score::neg_euclidean: return -std::sqrt(d2());
            case Score::neg_sq_euclidean: return -d2();
            case Score::idw: return -std::log(1e-3 + d2());  // p = 2, ε = 1e-3
            case Score::neg_manhattan: {
                double s = 0.0;
                for (std::size_t a = 0; a < dh; ++a) s += std::fabs(q[a] - k[a]);
                return -s;
            }
        }
        return 0.0;
    }

    // The mean cross-entropy of one sequence; logits [n, V] and attentions [L, H, n, n] when asked.
    double loss(const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& targets, std::vector<double>* logits = nullptr,
                std::vector<double>* attentions = nullptr, const std::vector<std::uint8_t>& ablate = {}, const Bump* bump = nullptr) const {
        const TransformerConfig& c = m.config();
        const std::size_t n = ids.size(), D = c.d_model, H = c.heads, dh = D / H, F = c.d_ff, V = c.vocab;
        std::vector<double> x(n * D);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t d = 0; d < D; ++d)
                x[i * D + d] = t("transformer.wte.weight")[static_cast<std::size_t>(ids[i]) * D + d] + position("transformer", i, d);
        if (attentions) attentions->assign(c.layers * H * n * n, 0.0);
        for (std::size_t l = 0; l < c.layers; ++l) {
            const std::string pre = "transformer.h." + std::to_string(l) + ".";
            sublayer(x, n, pre + "ln_1", [&](const std::vector<double>& h) {
                const std::vector<double> qkv = linear(h, n, D, 3 * D, t(pre + "attn.c_attn.weight"), t(pre + "attn.c_attn.bias"));
                std::vector<double> ho(n * D, 0.0), s(n);
                for (std::size_t hd = 0; hd < H; ++hd) {
                    const std::size_t index = l * H + hd;
                    const double tau = c.learned_temperature ? std::exp(t(pre + "attn.log_tau")[hd]) : static_cast<double>(c.temperature);
                    const std::string sp = pre + "attn.score." + std::to_string(hd) + ".";
                    for (std::size_t i = 0; i < n; ++i) {
                        double mx = -std::numeric_limits<double>::infinity();
                        for (std::size_t j = 0; j <= i; ++j) {
                            s[j] = score(c.scores[index], &qkv[i * 3 * D + hd * dh], &qkv[j * 3 * D + D + hd * dh], j, dh, sp) / tau;
                            mx = std::max(mx, s[j]);
                        }
                        double sum = 0.0;
                        for (std::size_t j = 0; j <= i; ++j) sum += (s[j] = std::exp(s[j] - mx));
                        for (std::size_t j = 0; j <= i; ++j) {
                            const double w = s[j] / sum;
                            if (attentions) (*attentions)[(index * n + i) * n + j] = w;
                            if (!ablate.empty() && ablate[index]) continue;
                            for (std::size_t e = 0; e < dh; ++e) ho[i * D + hd * dh + e] += w * qkv[j * 3 * D + 2 * D + hd * dh + e];
                        }
                        if (bump && bump->index / n == index * n + i && (ablate.empty() || !ablate[index])) {
                            const std::size_t j = bump->index % n;
                            for (std::size_t e = 0; e < dh; ++e) ho[i * D + hd * dh + e] += bump->delta * qkv[j * 3 * D + 2 * D + hd * dh + e];
                        }
                    }
                }
                return linear(ho, n, D, D, t(pre + "attn.c_proj.weight"), t(pre + "attn.c_proj.bias"));
            });
            if (F) {
                sublayer(x, n, pre + "ln_2", [&](const std::vector<double>& h) {
                    std::vector<double> f = linear(h, n, D, F, t(pre + "mlp.c_fc.weight"), t(pre + "mlp.c_fc.bias"));
                    for (double& v : f) v = activate(v);
                    return linear(f, n, F, D, t(pre + "mlp.c_proj.weight"), t(pre + "mlp.c_proj.bias"));
                });
            }
        }
        const std::vector<double> h = final_norm(x, n, "transformer");
        std::vector<double> z(n * V, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t v = 0; v < V; ++v)
                for (std::size_t d = 0; d < D; ++d) z[i * V + v] += h[i * D + d] * t("transformer.wte.weight")[v * D + d];
        if (logits) *logits = z;
        double L = 0.0;
        std::size_t count = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (targets[i] < 0) continue;
            double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
            for (std::size_t v = 0; v < V; ++v) mx = std::max(mx, z[i * V + v]);
            for (std::size_t v = 0; v < V; ++v) sum += std::exp(z[i * V + v] - mx);
            L += mx + std::log(sum) - z[i * V + static_cast<std::size_t>(targets[i])];
            ++count;
        }
        return count ? L / static_cast<double>(count) : 0.0;
    }
};

// Parameters at a scale where every part of the model matters (the init's 0.02 leaves attention
// nearly uniform): weights U(−0.5, 0.5), LayerNorm gains 1 ± 0.3, biases ± 0.1, log_tau ± 0.3.
void randomise(Transformer& m, std::uint32_t seed) {
    test::Rng rng(seed);
    for (std::size_t i = 0; i < m.tensors().size(); ++i) {
        const TensorInfo& ti = m.tensors()[i];
        std::vector<float> v(ti.size);
        const bool gain = ti.name.find("ln_") != std::string::npos && ti.name.find(".weight") != std::string::npos;
        const bool bias = ti.name.find(".bias") != std::string::npos, tau = ti.name.find("log_tau") != std::string::npos;
        for (float& x : v) {
            const float u = rng.uniform(-1.0, 1.0);
            x = gain ? 1.0f + 0.3f * u : bias ? 0.1f * u : tau ? 0.3f * u : 0.5f * u;
        }
        REQUIRE(m.set_tensor(i, v.data(), v.size()).ok());
    }
}

TransformerConfig small_config(Score score, bool learned, std::size_t d_ff) {
    TransformerConfig c;
    c.layers = 2;
    c.heads = 2;
    c.d_model = 6;
    c.d_ff = d_ff;
    c.vocab = 7;
    c.max_tokens = 6;
    c.scores.assign(c.layers * c.heads, score);
    c.learned_temperature = learned;
    c.temperature = learned ? 1.0f : 0.7f;
    c.seed = 5;
    return c;
}

const std::vector<std::int32_t> kIds{3, 1, 4, 1, 5};
const std::vector<std::int32_t> kTargets{1, 4, -1, 5, 2};

// Every parameter's gradient against central differences (h = 1e-6) of the float64 loss, and the
// forward against the float64 model. The float gradient errs by float32 rounding through two layers:
// |got − fd| <= 2e-3 |fd| + 2e-4 · (the largest |fd| of the model), far below a wrong term's error.
void check_model(Transformer& m, const std::string& label) {
    INFO(label);
    TransformerLoss out;
    REQUIRE(m.loss(kIds.data(), kTargets.data(), 1, kIds.size(), true, Variant::automatic, out).ok());
    Ref ref{m, std::vector<double>(m.params().begin(), m.params().end())};
    std::vector<double> logits, attentions;
    const double L = ref.loss(kIds, kTargets, &logits, &attentions);
    CHECK(out.count == 4);
    CHECK(std::fabs(out.loss - L) <= 1e-5 * std::max(1.0, std::fabs(L)));
    TransformerRun run;
    REQUIRE(m.encode(kIds.data(), kIds.size(), TransformerSurgery{}, run).ok());
    REQUIRE(run.logits.size() == logits.size());
    REQUIRE(run.attentions.size() == attentions.size());
    double worst_logit = 0.0, worst_attention = 0.0;
    for (std::size_t i = 0; i < logits.size(); ++i) worst_logit = std::max(worst_logit, std::fabs(run.logits[i] - logits[i]));
    for (std::size_t i = 0; i < attentions.size(); ++i)
        worst_attention = std::max(worst_attention, std::fabs(run.attentions[i] - attentions[i]));
    CHECK(worst_logit <= 1e-5);
    CHECK(worst_attention <= 1e-5);

    const double h = 1e-6;
    std::vector<double> fd(ref.p.size());
    double scale = 0.0;
    for (std::size_t i = 0; i < ref.p.size(); ++i) {
        const double old = ref.p[i];
        ref.p[i] = old + h;
        const double up = ref.loss(kIds, kTargets);
        ref.p[i] = old - h;
        const double down = ref.loss(kIds, kTargets);
        ref.p[i] = old;
        fd[i] = (up - down) / (2.0 * h);
        scale = std::max(scale, std::fabs(fd[i]));
    }
    REQUIRE(out.grads.size() == fd.size());
    std::size_t bad = 0;
    double worst = 0.0;
    std::string where;
    for (const TensorInfo& ti : m.tensors()) {
        for (std::size_t e = 0; e < ti.size; ++e) {
            const std::size_t i = ti.offset + e;
            const double err = std::fabs(out.grads[i] - fd[i]), tol = 2e-3 * std::fabs(fd[i]) + 2e-4 * scale;
            if (err > tol) {
                if (bad++ < 5) where += ti.name + "[" + std::to_string(e) + "]: " + std::to_string(out.grads[i]) + " vs " + std::to_string(fd[i]) + "; ";
            }
            worst = std::max(worst, err / (std::fabs(fd[i]) + scale));
        }
    }
    INFO(where << " worst |err| / (|fd| + max|fd|) = " << worst);
    CHECK(bad == 0);
    // The variants agree with each other as they do with float64.
    TransformerLoss scalar, simd;
    REQUIRE(m.loss(kIds.data(), kTargets.data(), 1, kIds.size(), true, Variant::scalar, scalar).ok());
    REQUIRE(m.loss(kIds.data(), kTargets.data(), 1, kIds.size(), true, Variant::simd, simd).ok());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < fd.size(); ++i)
        differ += std::fabs(scalar.grads[i] - simd.grads[i]) <= 4e-3 * std::fabs(fd[i]) + 4e-4 * scale ? 0 : 1;
    CHECK(differ == 0);
}

}  // namespace

TEST_CASE("transformer: every gradient matches float64 central differences, for every scoring function", "[transformer]") {
    for (const ScoreInfo& info : score_infos()) {
        DYNAMIC_SECTION(info.name) {
            Transformer m;
            REQUIRE(Transformer::create(small_config(info.id, false, 8), m).ok());
            randomise(m, 17 + static_cast<std::uint32_t>(info.id));
            check_model(m, std::string(info.name) + ", MLP, τ = 0.7");
        }
    }
}

TEST_CASE("transformer: learned temperature, mixed heads, attention-only", "[transformer]") {
    SECTION("every scoring function with a learned τ") {
        for (const ScoreInfo& info : score_infos()) {
            Transformer m;
            REQUIRE(Transformer::create(small_config(info.id, true, 8), m).ok());
            randomise(m, 41 + static_cast<std::uint32_t>(info.id));
            check_model(m, std::string(info.name) + ", learned τ");
        }
    }
    SECTION("one scoring function per head, attention-only (dFF = 0: no MLP, no ln_2)") {
        TransformerConfig c = small_config(Score::scaled_dot, true, 0);
        c.scores = {Score::general, Score::additive, Score::location, Score::cosine};
        Transformer m;
        REQUIRE(Transformer::create(c, m).ok());
        CHECK(m.find("transformer.h.0.ln_2.weight") < 0);
        CHECK(m.find("transformer.h.0.mlp.c_fc.weight") < 0);
        CHECK(m.find("transformer.h.0.attn.score.0.W") >= 0);
        CHECK(m.find("transformer.h.0.attn.score.1.W") < 0);  // head 1 is additive: W1, W2, v
        CHECK(m.find("transformer.h.0.attn.score.1.W1") >= 0);
        CHECK(m.find("transformer.h.1.attn.score.0.Wa") >= 0);
        CHECK(m.find("transformer.h.1.attn.score.1.W") < 0);
        randomise(m, 99);
        check_model(m, "mixed heads, attention-only");
    }
}

TEST_CASE("transformer: nanoGPT's names and PyTorch's shapes", "[transformer]") {
    TransformerConfig c;
    c.layers = 2;
    c.heads = 4;
    c.d_model = 64;
    c.d_ff = 256;
    c.vocab = 64;
    c.max_tokens = 64;
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    std::ostringstream names;
    for (const TensorInfo& t : m.tensors()) {
        names << t.name << " [";
        for (std::size_t i = 0; i < t.shape.size(); ++i) names << (i ? ", " : "") << t.shape[i];
        names << "]\n";
    }
    const std::string expected =
        "transformer.wte.weight [64, 64]\ntransformer.wpe.weight [64, 64]\n"
        "transformer.h.0.ln_1.weight [64]\ntransformer.h.0.ln_1.bias [64]\n"
        "transformer.h.0.attn.c_attn.weight [192, 64]\ntransformer.h.0.attn.c_attn.bias [192]\n"
        "transformer.h.0.attn.c_proj.weight [64, 64]\ntransformer.h.0.attn.c_proj.bias [64]\n"
        "transformer.h.0.ln_2.weight [64]\ntransformer.h.0.ln_2.bias [64]\n"
        "transformer.h.0.mlp.c_fc.weight [256, 64]\ntransformer.h.0.mlp.c_fc.bias [256]\n"
        "transformer.h.0.mlp.c_proj.weight [64, 256]\ntransformer.h.0.mlp.c_proj.bias [64]\n"
        "transformer.h.1.ln_1.weight [64]\ntransformer.h.1.ln_1.bias [64]\n"
        "transformer.h.1.attn.c_attn.weight [192, 64]\ntransformer.h.1.attn.c_attn.bias [192]\n"
        "transformer.h.1.attn.c_proj.weight [64, 64]\ntransformer.h.1.attn.c_proj.bias [64]\n"
        "transformer.h.1.ln_2.weight [64]\ntransformer.h.1.ln_2.bias [64]\n"
        "transformer.h.1.mlp.c_fc.weight [256, 64]\ntransformer.h.1.mlp.c_fc.bias [256]\n"
        "transformer.h.1.mlp.c_proj.weight [64, 256]\ntransformer.h.1.mlp.c_proj.bias [64]\n"
        "transformer.ln_f.weight [64]\ntransformer.ln_f.bias [64]\n";
    CHECK(names.str() == expected);
    // The init: σ 0.02 for the weights, 0.02/√(2·layers) for the projections into the residual stream.
    auto sigma = [&](const std::string& name) {
        const TensorInfo& t = m.tensors()[static_cast<std::size_t>(m.find(name))];
        double s = 0.0;
        for (std::size_t i = 0; i < t.size; ++i) s += static_cast<double>(m.params()[t.offset + i]) * m.params()[t.offset + i];
        return std::sqrt(s / static_cast<double>(t.size));
    };
    CHECK(sigma("transformer.wte.weight") == Approx(0.02).epsilon(0.05));
    CHECK(sigma("transformer.h.1.mlp.c_fc.weight") == Approx(0.02).epsilon(0.05));
    CHECK(sigma("transformer.h.0.attn.c_proj.weight") == Approx(0.01).epsilon(0.05));
    CHECK(sigma("transformer.h.0.attn.c_attn.bias") == 0.0);
    CHECK(m.params()[m.tensors()[static_cast<std::size_t>(m.find("transformer.ln_f.weight"))].offset] == 1.0f);
}

TEST_CASE("transformer: deterministic for a seed; surgery; head labels", "[transformer]") {
    TransformerConfig c = small_config(Score::general, true, 8);
    Transformer a, b, other;
    REQUIRE(Transformer::create(c, a).ok());
    REQUIRE(Transformer::create(c, b).ok());
    c.seed = 6;
    REQUIRE(Transformer::create(c, other).ok());
    CHECK(a.params() == b.params());
    CHECK(a.params() != other.params());
    randomise(a, 3);
    TransformerLoss g1, g2;
    REQUIRE(a.loss(kIds.data(), kTargets.data(), 1, kIds.size(), true, Variant::automatic, g1).ok());
    REQUIRE(a.loss(kIds.data(), kTargets.data(), 1, kIds.size(), true, Variant::automatic, g2).ok());
    CHECK(g1.grads == g2.grads);
    CHECK(g1.loss == g2.loss);

    // Knocking heads out is the float64 model with those heads' outputs zeroed.
    TransformerSurgery s;
    s.ablate = {1, 0, 0, 1};
    TransformerRun run;
    REQUIRE(a.encode(kIds.data(), kIds.size(), s, run).ok());
    Ref ref{a, std::vector<double>(a.params().begin(), a.params().end())};
    std::vector<double> logits;
    ref.loss(kIds, kTargets, &logits, nullptr, s.ablate);
    double worst = 0.0;
    for (std::size_t i = 0; i < logits.size(); ++i) worst = std::max(worst, std::fabs(run.logits[i] - logits[i]));
    CHECK(worst <= 1e-5);
    // Re-scoring a general head as scaled-dot changes its weights; re-scoring it as itself does not.
    TransformerRun own, same, rescored;
    REQUIRE(a.encode(kIds.data(), kIds.size(), TransformerSurgery{}, own).ok());
    s = TransformerSurgery{};
    s.scores.assign(4, Score::general);
    REQUIRE(a.encode(kIds.data(), kIds.size(), s, same).ok());
    CHECK(same.attentions == own.attentions);
    s.scores[0] = Score::scaled_dot;
    REQUIRE(a.encode(kIds.data(), kIds.size(), s, rescored).ok());
    CHECK(rescored.attentions != own.attentions);

    std::size_t index = 0;
    CHECK(parse_head_label("0.0", 2, 4, index));
    CHECK(index == 0);
    CHECK(parse_head_label("1.3", 2, 4, index));
    CHECK(index == 7);
    CHECK(parse_head_label("11.12", 12, 16, index));
    CHECK(index == 11 * 16 + 12);
    CHECK_FALSE(parse_head_label("2.0", 2, 4, index));
    CHECK_FALSE(parse_head_label("1.4", 2, 4, index));
    CHECK_FALSE(parse_head_label("1", 2, 4, index));
    CHECK_FALSE(parse_head_label("a.1", 2, 4, index));
    CHECK_FALSE(parse_head_label("1.", 2, 4, index));
    CHECK_FALSE(parse_head_label("-1.0", 2, 4, index));
}

TEST_CASE("transformer: bad configs and inputs are refused, sizes before any allocation", "[transformer]") {
    Transformer m;
    TransformerConfig c = small_config(Score::scaled_dot, false, 8);
    c.d_model = 7;
    CHECK(Transformer::create(c, m).message().find("dModel: expected a multiple of heads") == 0);
    c = small_config(Score::scaled_dot, false, 8);
    c.temperature = 0.0f;
    CHECK(Transformer::create(c, m).message().find("temperature") == 0);
    c = small_config(Score::scaled_dot, false, 8);
    c.d_model = 4096;
    c.vocab = 1 << 20;
    CHECK(Transformer::create(c, m).message().find("model: ") == 0);  // 4e9 parameters: refused by count
    CHECK(m.empty());
    REQUIRE(Transformer::create(small_config(Score::scaled_dot, false, 8), m).ok());
    const std::vector<std::int32_t> bad{1, 7};
    TransformerRun run;
    CHECK(m.encode(bad.data(), bad.size(), TransformerSurgery{}, run).message().find("ids: id 7 at position 1") == 0);
    const std::vector<std::int32_t> long_ids(7, 1);
    CHECK(m.encode(long_ids.data(), long_ids.size(), TransformerSurgery{}, run).message().find("ids: 7 ids are more than") == 0);
    TransformerLoss out;
    const std::vector<std::int32_t> t{1, 9};
    CHECK(m.loss(bad.data(), t.data(), 1, 2, true, Variant::automatic, out).message().find("ids: id 7") == 0);
    const std::vector<std::int32_t> ok{1, 2};
    CHECK(m.loss(ok.data(), t.data(), 1, 2, true, Variant::automatic, out).message().find("targets: target 9") == 0);
    // 2^30 sequences: refused by the budget before anything is read or allocated (only 2 ids exist).
    const Status huge = m.loss(ok.data(), t.data(), std::size_t{1} << 30, 2, true, Variant::automatic, out);
    CHECK(huge.message().find("memory: the loss and gradients of") == 0);
    // The budget counts in 64 bits whatever size_t is.
    const Budget b = m.loss_budget(std::uint64_t{1} << 40, 6, true);
    CHECK(b.floats() > limits::kMaxFloats);
    // A refused call leaves the model working.
    REQUIRE(m.loss(ok.data(), ok.data(), 1, 2, true, Variant::automatic, out).ok());
    CHECK(std::isfinite(out.loss));
}

// ---- the registry's options: positions, norm, activation --------------------------------------------
TEST_CASE("transformer: sinusoidal positions, post-LN, ReLU and tanh: forward and every gradient against float64", "[transformer]") {
    struct Case {
        Positions positions;
        Norm norm;
        MlpActivation activation;
        const char* label;
    };
    for (const Case& k : {Case{Positions::sinusoidal, Norm::post, MlpActivation::relu, "sinusoidal, post-LN, ReLU"},
                          Case{Positions::learned, Norm::post, MlpActivation::tanh, "learned, post-LN, tanh"},
                          Case{Positions::sinusoidal, Norm::pre, MlpActivation::tanh, "sinusoidal, pre-LN, tanh"},
                          Case{Positions::learned, Norm::pre, MlpActivation::relu, "learned, pre-LN, ReLU"}}) {
        TransformerConfig c = small_config(Score::scaled_dot, true, 8);
        c.scores = {Score::general, Score::additive, Score::cosine, Score::location};
        c.positions = k.positions;
        c.norm = k.norm;
        c.activation = k.activation;
        Transformer m;
        REQUIRE(Transformer::create(c, m).ok());
        CHECK((m.find("transformer.wpe.weight") >= 0) == (k.positions == Positions::learned));
        CHECK((m.find("transformer.ln_f.weight") >= 0) == (k.norm == Norm::pre));
        CHECK(m.find("transformer.h.1.ln_2.weight") >= 0);
        randomise(m, 81);
        check_model(m, k.label);
        // The options travel in the file and come back.
        std::vector<std::uint8_t> bytes;
        REQUIRE(m.save_safetensors(bytes).ok());
        Transformer back;
        REQUIRE(Transformer::from_safetensors(bytes.data(), bytes.size(), back).ok());
        CHECK(back.config().positions == k.positions);
        CHECK(back.config().norm == k.norm);
        CHECK(back.config().activation == k.activation);
        CHECK(back.params() == m.params());
    }
    SECTION("a default model's config says nothing of the options, as before them") {
        Transformer m;
        REQUIRE(Transformer::create(small_config(Score::scaled_dot, false, 8), m).ok());
        CHECK(m.config_json().find("positions") == std::string::npos);
        CHECK(m.config_json().find("norm") == std::string::npos);
        CHECK(m.config_json().find("activation") == std::string::npos);
    }
}

// ---- gradient × attention ----------------------------------------------------------------------------
namespace {
// Every ∂ logits[position, token] / ∂ A against float64 central differences (h = 1e-6) of the float64
// model's logit with that weight bumped through the hook; the same tolerance as the parameters'.
// `ref_logit(bump)` evaluates the float64 logit, `parts` are (stack, got) in the hook's numbering.
template <class RefLogit>
void check_attention_gradients(const std::vector<std::pair<int, const std::vector<float>*>>& parts, RefLogit ref_logit) {
    const double h = 1e-6;
    std::vector<std::vector<double>> fd(parts.size());
    double scale = 0.0;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        for (std::size_t i = 0; i < parts[p].second->size(); ++i) {
            const Bump up{parts[p].first, i, h}, down{parts[p].first, i, -h};
            fd[p].push_back((ref_logit(&up) - ref_logit(&down)) / (2.0 * h));
            scale = std::max(scale, std::fabs(fd[p].back()));
        }
    }
    REQUIRE(scale > 1e-3);  // the logit depends on the attentions: the check is not of zeros
    std::size_t bad = 0, nonzero = 0;
    double worst = 0.0;
    std::string where;
    for (std::size_t p = 0; p < parts.size(); ++p)
        for (std::size_t i = 0; i < fd[p].size(); ++i) {
            const double got = (*parts[p].second)[i], err = std::fabs(got - fd[p][i]);
            nonzero += std::fabs(fd[p][i]) > 1e-3 * scale ? 1 : 0;
            if (err > 2e-3 * std::fabs(fd[p][i]) + 2e-4 * scale && bad++ < 5)
                where += "stack " + std::to_string(parts[p].first) + " [" + std::to_string(i) + "]: " + std::to_string(got) + " vs " + std::to_string(fd[p][i]) + "; ";
            worst = std::max(worst, err / (std::fabs(fd[p][i]) + scale));
        }
    INFO(where << " worst |err| / (|fd| + max|fd|) = " << worst << ", " << nonzero << " nonzero");
    CHECK(bad == 0);
    CHECK(nonzero > 10);
}
}  // namespace

TEST_CASE("transformer: attention gradients of a logit match float64 central differences through a hook on A", "[transformer]") {
    TransformerConfig c = small_config(Score::scaled_dot, true, 8);
    c.scores = {Score::general, Score::additive, Score::cosine, Score::scaled_dot};
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    randomise(m, 61);
    Ref ref{m, std::vector<double>(m.params().begin(), m.params().end())};
    const std::size_t n = kIds.size(), V = c.vocab;
    for (const std::size_t position : {std::size_t{3}, n - 1}) {
        for (const long token : {-1L, 2L}) {
            for (const bool knock : {false, true}) {
                DYNAMIC_SECTION("position " << position << ", token " << token << (knock ? ", head 1.0 ablated" : "")) {
                    TransformerSurgery s;
                    if (knock) s.ablate = {0, 0, 1, 0};
                    TransformerAttribution a;
                    REQUIRE(m.attention_gradients(kIds.data(), n, position, token, s, a).ok());
                    TransformerRun run;
                    REQUIRE(m.encode(kIds.data(), n, s, run).ok());
                    CHECK(a.run.attentions == run.attentions);
                    CHECK(a.run.logits == run.logits);
                    const float* z = run.logits.data() + position * V;
                    CHECK(a.position == position);
                    CHECK(a.token == (token < 0 ? static_cast<std::size_t>(std::max_element(z, z + V) - z) : static_cast<std::size_t>(token)));
                    CHECK(a.logit == z[a.token]);
                    REQUIRE(a.gradients.size() == run.attentions.size());
                    check_attention_gradients({{0, &a.gradients}}, [&](const Bump* b) {
                        std::vector<double> logits;
                        ref.loss(kIds, kTargets, &logits, nullptr, s.ablate, b);
                        return logits[position * V + a.token];
                    });
                    // Rows after the position do not reach its logit; an ablated head's weights do not either.
                    for (std::size_t lh = 0; lh < c.layers * c.heads; ++lh)
                        for (std::size_t i = 0; i < n; ++i)
                            for (std::size_t j = 0; j < n; ++j) {
                                const float g = a.gradients[(lh * n + i) * n + j];
                                if (i > position || (knock && lh == 2)) CHECK(g == 0.0f);
                            }
                }
            }
        }
    }
}

TEST_CASE("transformer: attention gradients: the variants agree; bad arguments and the budget refused", "[transformer]") {
    Transformer m;
    REQUIRE(Transformer::create(small_config(Score::additive, false, 8), m).ok());
    randomise(m, 62);
    TransformerSurgery scalar, simd;
    scalar.variant = Variant::scalar;
    simd.variant = Variant::simd;
    TransformerAttribution a, b;
    REQUIRE(m.attention_gradients(kIds.data(), kIds.size(), 4, -1, scalar, a).ok());
    REQUIRE(m.attention_gradients(kIds.data(), kIds.size(), 4, -1, simd, b).ok());
    float scale = 0.0f;
    for (float g : a.gradients) scale = std::max(scale, std::fabs(g));
    for (std::size_t i = 0; i < a.gradients.size(); ++i) CHECK(std::fabs(a.gradients[i] - b.gradients[i]) <= 1e-3f * scale);
    // Re-scored heads: the gradients are those of the re-scored model (seeded matrices), not the config's.
    TransformerSurgery rescored;
    rescored.scores.assign(4, Score::cosine);
    TransformerAttribution r;
    REQUIRE(m.attention_gradients(kIds.data(), kIds.size(), 4, -1, rescored, r).ok());
    CHECK(r.gradients != a.gradients);
    CHECK(m.attention_gradients(kIds.data(), kIds.size(), 5, -1, TransformerSurgery{}, a).message().find("position: expected 0 to 4") == 0);
    CHECK(m.attention_gradients(kIds.data(), kIds.size(), 0, 7, TransformerSurgery{}, a).message().find("token: expected 0 to 6") == 0);
    CHECK(m.attention_gradients_pair(kIds.data(), 2, kIds.data(), 2, 0, -1, TransformerSurgery{}, a).message().find("model: a decoder") == 0);
    // Over the per-call budget: refused before the forward pass allocates its caches.
    TransformerConfig c = small_config(Score::scaled_dot, false, 0);
    c.layers = 64;
    c.heads = 64;
    c.d_model = 64;
    c.max_tokens = 4096;
    c.scores.clear();
    Transformer big;
    REQUIRE(Transformer::create(c, big).ok());
    const std::vector<std::int32_t> ids(4096, 1);
    const Status st = big.attention_gradients(ids.data(), ids.size(), 0, -1, TransformerSurgery{}, a);
    CHECK(st.message().find("ids: memory: encoding 4096 tokens") == 0);
}

// ---- training ---------------------------------------------------------------------------------------
#include "attnscope/model_trainer.hpp"

namespace {
// Sequences of `cols` ids that repeat their first half; each position's target is the next id (the
// last one has none): the second half is predictable only by attending back (an induction task).
TokenData repeated_sequences(std::size_t rows, std::size_t cols, std::size_t vocab, std::uint32_t seed) {
    test::Rng rng(seed);
    TokenData d;
    d.rows = rows;
    d.cols = cols;
    for (std::size_t r = 0; r < rows; ++r) {
        std::vector<std::int32_t> row(cols);
        for (std::size_t i = 0; i < cols / 2; ++i) row[i] = static_cast<std::int32_t>(rng.below(vocab));
        for (std::size_t i = cols / 2; i < cols; ++i) row[i] = row[i - cols / 2];
        for (std::size_t i = 0; i < cols; ++i) {
            d.ids.push_back(row[i]);
            d.targets.push_back(i + 1 < cols ? row[i + 1] : -1);
        }
    }
    return d;
}
}  // namespace

TEST_CASE("transformer trainer: one AdamW step is the formula's; training lowers the loss, the same for a seed", "[transformer]") {
    TransformerConfig c = small_config(Score::scaled_dot, true, 8);
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    randomise(m, 12);
    SECTION("one step on one sequence: θ(1 − αλ) − α g/(|g| + ε) on the matrices, without the decay elsewhere") {
        TokenData d;
        d.rows = 1;
        d.cols = kIds.size();
        d.ids = kIds;
        d.targets = kTargets;
        TransformerLoss g;
        REQUIRE(m.loss(kIds.data(), kTargets.data(), 1, kIds.size(), true, Variant::automatic, g).ok());
        const std::vector<float> before = m.params();
        ModelTrainerOptions o;
        o.batch = 1;
        o.learning_rate = 0.01f;
        o.weight_decay = 0.1f;
        o.clip = 0.0f;  // the first step of Adam ignores the gradient's scale anyway: tested in the PyTorch check
        ModelTrainer t;
        REQUIRE(t.init(m, o, d).ok());
        REQUIRE(t.step(1).ok());
        REQUIRE(t.losses().size() == 1);
        CHECK(t.losses()[0] == Approx(g.loss).epsilon(1e-6));
        std::size_t bad = 0;
        for (const TensorInfo& ti : m.tensors()) {
            const bool decays = ti.shape.size() >= 2;
            for (std::size_t e = 0; e < ti.size; ++e) {
                const std::size_t i = ti.offset + e;
                const double gi = g.grads[i], th = before[i];
                const double want = th * (decays ? 1.0 - 0.01 * 0.1 : 1.0) - 0.01 * gi / (std::fabs(gi) + 1e-8);
                if (std::fabs(m.params()[i] - want) > 4e-7 * (std::fabs(want) + 0.01)) ++bad;
            }
        }
        CHECK(bad == 0);
    }
    SECTION("an induction task: the loss falls, and the same seed gives the same losses") {
        TransformerConfig ic;
        ic.layers = 2;
        ic.heads = 2;
        ic.d_model = 16;
        ic.d_ff = 0;
        ic.vocab = 8;
        ic.max_tokens = 12;
        ic.seed = 2;
        Transformer a, b;
        REQUIRE(Transformer::create(ic, a).ok());
        REQUIRE(Transformer::create(ic, b).ok());
        const TokenData d = repeated_sequences(64, 12, 8, 5);
        ModelTrainerOptions o;
        o.batch = 8;
        o.learning_rate = 0.01f;
        ModelTrainer ta, tb;
        REQUIRE(ta.init(a, o, d).ok());
        REQUIRE(tb.init(b, o, d).ok());
        ModelEval e0;
        REQUIRE(ta.evaluate(d, e0).ok());
        REQUIRE(ta.step(150).ok());
        REQUIRE(tb.step(150).ok());
        CHECK(ta.losses() == tb.losses());
        CHECK(a.params() == b.params());
        ModelEval e1;
        REQUIRE(ta.evaluate(d, e1).ok());
        INFO("loss " << e0.loss << " -> " << e1.loss << ", accuracy " << e1.hits << " / " << e1.count);
        CHECK(e0.loss == Approx(std::log(8.0)).epsilon(0.05));
        CHECK(e1.loss < 0.75 * e0.loss);
        CHECK(std::isfinite(ta.last_grad_norm()));
    }
    SECTION("refusals") {
        TokenData d = repeated_sequences(4, 6, 7, 1);
        ModelTrainer t;
        ModelTrainerOptions o;
        o.learning_rate = 2.0f;
        CHECK(t.init(m, o, d).message().find("learningRate") == 0);
        o = ModelTrainerOptions{};
        o.batch = 0;
        CHECK(t.init(m, o, d).message().find("batch") == 0);
        o = ModelTrainerOptions{};
        d.targets[3] = 7;
        CHECK(t.init(m, o, d).message().find("data.targets[3]") == 0);
        d.targets[3] = -1;
        d.cols = 7;
        CHECK(t.init(m, o, d).message().find("data.cols") == 0);
        d.cols = 6;
        REQUIRE(t.init(m, o, d).ok());
        CHECK(t.step(std::size_t{1} << 40).message().find("work: ") == 0);
        CHECK(t.losses().empty());
    }
}

// ---- saving and loading -------------------------------------------------------------------------------
namespace {
// A safetensors file with its header (the first `header` bytes after the length) replaced by `h`, padded to 8 bytes.
std::vector<std::uint8_t> with_header(const std::vector<std::uint8_t>& file, std::uint64_t header, std::string h) {
    while (h.size() % 8) h += ' ';
    std::vector<std::uint8_t> out;
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(h.size()) >> (8 * i)));
    out.insert(out.end(), h.begin(), h.end());
    out.insert(out.end(), file.begin() + 8 + static_cast<std::ptrdiff_t>(header), file.end());
    return out;
}
}  // namespace

TEST_CASE("transformer: safetensors round trip, and damaged files refused with their fault named", "[transformer]") {
    TransformerConfig c = small_config(Score::scaled_dot, true, 8);
    c.scores = {Score::general, Score::additive, Score::location, Score::idw};
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    randomise(m, 31);
    std::vector<std::uint8_t> file;
    REQUIRE(m.save_safetensors(file).ok());
    const std::uint64_t header = file[0] | (std::uint64_t{file[1]} << 8) | (std::uint64_t{file[2]} << 16);
    CHECK(header % 8 == 0);
    CHECK(file.size() == 8 + header + 4 * m.params().size());
    const std::string head(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(header));
    CHECK(head.find("\"attnscope.architecture\":\"decoder\"") != std::string::npos);
    CHECK(head.find("\"transformer.h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[18,6]") != std::string::npos);
    Transformer back;
    REQUIRE(Transformer::from_safetensors(file.data(), file.size(), back).ok());
    CHECK(back.params() == m.params());
    CHECK(back.config_json() == m.config_json());
    CHECK(back.config().scores == m.config().scores);
    CHECK(back.config().learned_temperature);
    TransformerRun r1, r2;
    REQUIRE(m.encode(kIds.data(), kIds.size(), TransformerSurgery{}, r1).ok());
    REQUIRE(back.encode(kIds.data(), kIds.size(), TransformerSurgery{}, r2).ok());
    CHECK(r1.logits == r2.logits);

    auto refused = [&](std::vector<std::uint8_t> bytes, const std::string& expect) {
        Transformer t;
        const Status st = Transformer::from_safetensors(bytes.data(), bytes.size(), t);
        INFO(st.message());
        CHECK(st.message().find(expect) != std::string::npos);
        CHECK(t.empty());
    };
    refused(std::vector<std::uint8_t>(file.begin(), file.begin() + 5), "file truncated");
    refused(std::vector<std::uint8_t>(file.begin(), file.end() - 4), "file truncated: 'transformer.ln_f.bias'");
    std::vector<std::uint8_t> big = file;
    big[7] = 0x7f;
    refused(big, "header length");
    auto edit = [&](const std::string& from, const std::string& to) {
        std::string h = head;
        const std::size_t at = h.find(from);
        REQUIRE(at != std::string::npos);
        h.replace(at, from.size(), to);
        return with_header(file, header, h);
    };
    refused(edit("\"attnscope.architecture\":\"decoder\"", "\"attnscope.architecture\":\"encoder\""), "architecture 'encoder'");
    refused(edit("\"attnscope.config\"", "\"other\""), "no attnscope.architecture and attnscope.config");
    refused(edit("\"shape\":[18,6]", "\"shape\":[6,18]"), "'transformer.h.0.attn.c_attn.weight' has another shape than [18, 6]");
    refused(edit("\"transformer.wpe.weight\"", "\"transformer.wpe.weights\""), "'transformer.wpe.weights' is not a parameter");
    refused(edit("{\"dtype\":\"F32\",\"shape\":[7,6]", "{\"dtype\":\"F16\",\"shape\":[7,6]"), "'transformer.wte.weight' is F16");
    refused(edit("\\\"layers\\\":2", "\\\"layers\\\":-2"), "attnscope.config.layers");
    refused(edit("\\\"dModel\\\":6", "\\\"dModel\\\":7"), "dModel: expected a multiple of heads");
    // A small file that claims a large model: refused at its first tensor's header, before the model's
    // 8 million parameters take any memory.
    refused(edit("\\\"dModel\\\":6", "\\\"dModel\\\":1024"), "'transformer.wte.weight' has another shape than [7, 1024]");
    std::vector<std::uint8_t> nan = file;
    const std::size_t at = 8 + header;  // the first float of wte
    nan[at] = 0; nan[at + 1] = 0; nan[at + 2] = 0xc0; nan[at + 3] = 0x7f;
    refused(nan, "element 0 is not finite");
}

TEST_CASE("transformer: the text of each id travels in the file (attnscope.tokens), checked on the way in", "[transformer]") {
    TransformerConfig c = small_config(Score::scaled_dot, false, 8);
    c.vocab = 5;
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    CHECK(m.tokens().empty());
    std::vector<std::uint8_t> file;
    REQUIRE(m.save_safetensors(file).ok());
    CHECK(std::string(file.begin(), file.end()).find("attnscope.tokens") == std::string::npos);  // none: not written

    // A newline, a quote, a backslash, a control character and UTF-8 come back as they were.
    const std::vector<std::string> tokens = {"a", "\n", "\"q\\", "\x01\t", "\xc3\xa9t\xc3\xa9"};
    REQUIRE(m.set_tokens(tokens).ok());
    REQUIRE(m.save_safetensors(file).ok());
    Transformer back;
    REQUIRE(Transformer::from_safetensors(file.data(), file.size(), back).ok());
    CHECK(back.tokens() == tokens);
    CHECK(back.params() == m.params());
    std::vector<std::uint8_t> again;
    REQUIRE(back.save_safetensors(again).ok());
    CHECK(again == file);  // a loaded model saves the same file

    CHECK(m.set_tokens({"a", "b"}).message().find("2 of them for a vocabulary of 5") != std::string::npos);
    CHECK(m.set_tokens({"a", "b", "", "d", "e"}).message().find("tokens[2]: empty") != std::string::npos);
    CHECK(m.set_tokens({"a", "b", "c", "d", std::string(300, 'x')}).message().find("tokens[4]: 300 bytes") != std::string::npos);
    CHECK(m.tokens() == tokens);  // a refused call changes nothing
    REQUIRE(m.set_tokens({}).ok());
    CHECK(m.tokens().empty());

    // Damaged metadata: not a string, not an array of strings, the wrong count.
    const std::uint64_t header = file[0] | (std::uint64_t{file[1]} << 8) | (std::uint64_t{file[2]} << 16);
    const std::string head(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(header));
    auto with_tokens = [&](const std::string& value) {
        std::string h = head;
        const std::size_t at = h.find("\"attnscope.tokens\":");
        REQUIRE(at != std::string::npos);
        const std::size_t end = h.find("]\"", at);
        REQUIRE(end != std::string::npos);
        h.replace(at, end + 2 - at, "\"attnscope.tokens\":" + value);
        const std::vector<std::uint8_t> out = with_header(file, header, h);
        Transformer t;
        const Status st = Transformer::from_safetensors(out.data(), out.size(), t);
        CHECK(t.empty() == !st.ok());
        return st.message();
    };
    CHECK(with_tokens("\"[\\\"a\\\",\\\"b\\\",\\\"c\\\",\\\"d\\\",\\\"e\\\"]\"").empty());  // a list written by hand
    CHECK(with_tokens("5").find("attnscope.tokens is not a JSON array of strings") != std::string::npos);
    CHECK(with_tokens("\"[1,2,3,4,5]\"").find("attnscope.tokens is not a JSON array of strings") != std::string::npos);
    CHECK(with_tokens("\"[\\\"a\\\"\"").find("attnscope.tokens is not a JSON array of strings") != std::string::npos);
    CHECK(with_tokens("\"[\\\"a\\\"]\"").find("attnscope.tokens: 1 of them for a vocabulary of 5") != std::string::npos);
}

// ---- the encoder-decoder ------------------------------------------------------------------------------
namespace {

// One attention sublayer of the float64 model: q (nq x D), k, v (nk x D) → the heads' outputs (nq x D).
std::vector<double> ref_heads(const Ref& ref, const std::vector<double>& q, std::size_t ldq, const std::vector<double>& kv, std::size_t ldk,
                              std::size_t koff, std::size_t voff, std::size_t nq, std::size_t nk, bool causal, std::size_t score_base,
                              const std::string& prefix, std::vector<double>* attentions, const Bump* bump = nullptr, int stack = 0,
                              std::size_t layer = 0) {
    const TransformerConfig& c = ref.m.config();
    const std::size_t D = c.d_model, H = c.heads, dh = D / H;
    std::vector<double> ho(nq * D, 0.0), s(nk);
    for (std::size_t hd = 0; hd < H; ++hd) {
        const double tau = c.learned_temperature ? std::exp(ref.t(prefix + "log_tau")[hd]) : static_cast<double>(c.temperature);
        const std::string sp = prefix + "score." + std::to_string(hd) + ".";
        for (std::size_t i = 0; i < nq; ++i) {
            const std::size_t last = causal ? i : nk - 1;
            double mx = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j <= last; ++j) {
                s[j] = ref.score(c.scores[score_base + hd], &q[i * ldq + hd * dh], &kv[j * ldk + koff + hd * dh], j, dh, sp) / tau;
                mx = std::max(mx, s[j]);
            }
            double sum = 0.0;
            for (std::size_t j = 0; j <= last; ++j) sum += (s[j] = std::exp(s[j] - mx));
            for (std::size_t j = 0; j <= last; ++j) {
                const double w = s[j] / sum;
                if (attentions) attentions->push_back(w);
                for (std::size_t e = 0; e < dh; ++e) ho[i * D + hd * dh + e] += w * kv[j * ldk + voff + hd * dh + e];
            }
            if (bump && bump->stack == stack && bump->index / nk == (layer * H + hd) * nq + i) {
                const std::size_t j = bump->index % nk;
                for (std::size_t e = 0; e < dh; ++e) ho[i * D + hd * dh + e] += bump->delta * kv[j * ldk + voff + hd * dh + e];
            }
            if (attentions) for (std::size_t j = last + 1; j < nk; ++j) attentions->push_back(0.0);
        }
    }
    return ho;
}

// The float64 encoder-decoder: the mean cross-entropy of one pair; the attentions when asked (each
// [L, H, nq, nk] layer after layer).
double ref_pair_loss(const Ref& ref, const std::vector<std::int32_t>& src, const std::vector<std::int32_t>& tgt, std::vector<double>* logits = nullptr,
                     std::vector<double>* enc_att = nullptr, std::vector<double>* dec_att = nullptr, std::vector<double>* cross_att = nullptr,
                     const Bump* bump = nullptr) {
    const TransformerConfig& c = ref.m.config();
    const std::size_t D = c.d_model, F = c.d_ff, V = c.vocab, LH = c.layers * c.heads;
    auto stack = [&](const std::string& name, const std::vector<std::int32_t>& ids, const std::vector<double>* memory, std::size_t nm,
                     bool causal, std::size_t self_base, std::size_t cross_base, std::vector<double>* self_att, std::vector<double>* x_att) {
        const std::size_t n = ids.size();
        std::vector<double> x(n * D);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t d = 0; d < D; ++d)
                x[i * D + d] = ref.t("transformer.wte.weight")[static_cast<std::size_t>(ids[i]) * D + d] + ref.position(name, i, d);
        for (std::size_t l = 0; l < c.layers; ++l) {
            const std::string p = name + ".h." + std::to_string(l) + ".";
            ref.sublayer(x, n, p + "ln_1", [&](const std::vector<double>& h) {
                const std::vector<double> qkv = Ref::linear(h, n, D, 3 * D, ref.t(p + "attn.c_attn.weight"), ref.t(p + "attn.c_attn.bias"));
                const std::vector<double> ho = ref_heads(ref, qkv, 3 * D, qkv, 3 * D, D, 2 * D, n, n, causal, self_base + l * c.heads, p + "attn.",
                                                         self_att, bump, memory ? 1 : 0, l);
                return Ref::linear(ho, n, D, D, ref.t(p + "attn.c_proj.weight"), ref.t(p + "attn.c_proj.bias"));
            });
            if (memory) {
                ref.sublayer(x, n, p + "ln_cross", [&](const std::vector<double>& h) {
                    const std::vector<double> q = Ref::linear(h, n, D, D, ref.t(p + "cross.c_q.weight"), ref.t(p + "cross.c_q.bias"));
                    const std::vector<double> kv = Ref::linear(*memory, nm, D, 2 * D, ref.t(p + "cross.c_kv.weight"), ref.t(p + "cross.c_kv.bias"));
                    const std::vector<double> ho = ref_heads(ref, q, D, kv, 2 * D, 0, D, n, nm, false, cross_base + l * c.heads, p + "cross.", x_att, bump, 2, l);
                    return Ref::linear(ho, n, D, D, ref.t(p + "cross.c_proj.weight"), ref.t(p + "cross.c_proj.bias"));
                });
            }
            if (F) {
                ref.sublayer(x, n, p + "ln_2", [&](const std::vector<double>& h) {
                    std::vector<double> f = Ref::linear(h, n, D, F, ref.t(p + "mlp.c_fc.weight"), ref.t(p + "mlp.c_fc.bias"));
                    for (double& v : f) v = ref.activate(v);
                    return Ref::linear(f, n, F, D, ref.t(p + "mlp.c_proj.weight"), ref.t(p + "mlp.c_proj.bias"));
                });
            }
        }
        return ref.final_norm(x, n, name);
    };
    const std::vector<double> mem = stack("encoder", src, nullptr, 0, false, 0, 0, enc_att, nullptr);
    std::vector<std::int32_t> in(tgt.size(), 0);
    for (std::size_t i = 1; i < tgt.size(); ++i) in[i] = std::max(tgt[i - 1], 0);
    const std::vector<double> h = stack("decoder", in, &mem, src.size(), true, LH, 2 * LH, dec_att, cross_att);
    const std::size_t n = tgt.size();
    std::vector<double> z(n * V, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t v = 0; v < V; ++v)
            for (std::size_t d = 0; d < D; ++d) z[i * V + v] += h[i * D + d] * ref.t("transformer.wte.weight")[v * D + d];
    if (logits) *logits = z;
    double L = 0.0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (tgt[i] < 0) continue;
        double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (std::size_t v = 0; v < V; ++v) mx = std::max(mx, z[i * V + v]);
        for (std::size_t v = 0; v < V; ++v) sum += std::exp(z[i * V + v] - mx);
        L += mx + std::log(sum) - z[i * V + static_cast<std::size_t>(tgt[i])];
        ++count;
    }
    return count ? L / static_cast<double>(count) : 0.0;
}

// Reorders attentions written query row by query row per head, layer after layer, into [L, H, nq, nk]:
// ref_heads already writes them in that order (head-major within a layer).
double worst_diff(const std::vector<float>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    double w = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) w = std::max(w, std::fabs(got[i] - want[i]));
    return w;
}

const std::vector<std::int32_t> kSource{4, 2, 6, 1};
const std::vector<std::int32_t> kTarget{5, 3, -1, 2, 6};

void check_pair_model(Transformer& m, const std::string& label) {
    INFO(label);
    Ref ref{m, std::vector<double>(m.params().begin(), m.params().end())};
    std::vector<double> logits, ea, da, xa;
    const double L = ref_pair_loss(ref, kSource, kTarget, &logits, &ea, &da, &xa);
    TransformerRun run;
    REQUIRE(m.encode_pair(kSource.data(), kSource.size(), kTarget.data(), kTarget.size(), TransformerSurgery{}, run).ok());
    CHECK(worst_diff(run.logits, logits) <= 1e-5);
    CHECK(worst_diff(run.encoder_attentions, ea) <= 1e-5);
    CHECK(worst_diff(run.attentions, da) <= 1e-5);
    CHECK(worst_diff(run.cross, xa) <= 1e-5);
    TransformerLoss out;
    REQUIRE(m.loss_pairs(kSource.data(), kTarget.data(), 1, kSource.size(), kTarget.size(), true, Variant::automatic, out).ok());
    CHECK(out.count == 4);
    CHECK(std::fabs(out.loss - L) <= 1e-5 * std::max(1.0, L));
    const double h = 1e-6;
    std::vector<double> fd(ref.p.size());
    double scale = 0.0;
    for (std::size_t i = 0; i < ref.p.size(); ++i) {
        const double old = ref.p[i];
        ref.p[i] = old + h;
        const double up = ref_pair_loss(ref, kSource, kTarget);
        ref.p[i] = old - h;
        const double down = ref_pair_loss(ref, kSource, kTarget);
        ref.p[i] = old;
        fd[i] = (up - down) / (2.0 * h);
        scale = std::max(scale, std::fabs(fd[i]));
    }
    std::size_t bad = 0;
    std::string where;
    double worst = 0.0;
    for (const TensorInfo& ti : m.tensors())
        for (std::size_t e = 0; e < ti.size; ++e) {
            const std::size_t i = ti.offset + e;
            const double err = std::fabs(out.grads[i] - fd[i]);
            if (err > 2e-3 * std::fabs(fd[i]) + 2e-4 * scale && bad++ < 5)
                where += ti.name + "[" + std::to_string(e) + "]: " + std::to_string(out.grads[i]) + " vs " + std::to_string(fd[i]) + "; ";
            worst = std::max(worst, err / (std::fabs(fd[i]) + scale));
        }
    INFO(where << " worst " << worst);
    CHECK(bad == 0);
    TransformerLoss scalar, simd;
    REQUIRE(m.loss_pairs(kSource.data(), kTarget.data(), 1, kSource.size(), kTarget.size(), true, Variant::scalar, scalar).ok());
    REQUIRE(m.loss_pairs(kSource.data(), kTarget.data(), 1, kSource.size(), kTarget.size(), true, Variant::simd, simd).ok());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < fd.size(); ++i) differ += std::fabs(scalar.grads[i] - simd.grads[i]) <= 4e-3 * std::fabs(fd[i]) + 4e-4 * scale ? 0 : 1;
    CHECK(differ == 0);
}

TransformerConfig pair_config(bool learned, std::size_t d_ff) {
    TransformerConfig c = small_config(Score::scaled_dot, learned, d_ff);
    c.kind = ModelKind::encoder_decoder;
    c.scores.assign(3 * c.layers * c.heads, Score::scaled_dot);
    return c;
}

}  // namespace

TEST_CASE("encoder-decoder: forward and every gradient against the float64 model, every scoring function", "[transformer]") {
    const auto& infos = score_infos();
    SECTION("each scoring function on some encoder, decoder and cross-attention heads, learned τ, MLP") {
        TransformerConfig c = pair_config(true, 8);
        for (std::size_t i = 0; i < c.scores.size(); ++i) c.scores[i] = infos[i % infos.size()].id;
        Transformer m;
        REQUIRE(Transformer::create(c, m).ok());
        randomise(m, 61);
        check_pair_model(m, "rotated scores, learned τ");
    }
    SECTION("the rest of the rotation, τ = 0.7, attention-only") {
        TransformerConfig c = pair_config(false, 0);
        for (std::size_t i = 0; i < c.scores.size(); ++i) c.scores[i] = infos[(i + 12) % infos.size()].id;
        Transformer m;
        REQUIRE(Transformer::create(c, m).ok());
        randomise(m, 62);
        check_pair_model(m, "rotated scores, fixed τ, no MLP");
    }
    SECTION("names, shapes, the start token, a file round trip") {
        TransformerConfig c = pair_config(false, 8);
        c.scores[2 * c.layers * c.heads + 1] = Score::additive;  // cross-attention head 0.1
        Transformer m;
        REQUIRE(Transformer::create(c, m).ok());
        CHECK(m.find("transformer.wte.weight") == 0);
        CHECK(m.find("encoder.wpe.weight") >= 0);
        CHECK(m.find("encoder.h.1.attn.c_attn.weight") >= 0);
        CHECK(m.find("encoder.h.0.ln_cross.weight") < 0);
        CHECK(m.find("decoder.h.1.cross.c_kv.weight") >= 0);
        CHECK(m.tensors()[static_cast<std::size_t>(m.find("decoder.h.1.cross.c_kv.weight"))].shape == std::vector<std::size_t>{12, 6});
        CHECK(m.find("decoder.h.0.cross.score.1.W1") >= 0);
        CHECK(m.find("decoder.ln_f.bias") >= 0);
        CHECK(m.find("transformer.h.0.ln_1.weight") < 0);
        std::vector<std::uint8_t> file;
        REQUIRE(m.save_safetensors(file).ok());
        Transformer back;
        REQUIRE(Transformer::from_safetensors(file.data(), file.size(), back).ok());
        CHECK(back.params() == m.params());
        CHECK(back.config().kind == ModelKind::encoder_decoder);
        // logits[0] depends on the source alone (the decoder sees only the start id)
        randomise(m, 63);
        TransformerRun a, b;
        const std::vector<std::int32_t> t1{1, 2, 3}, t2{4, 5, 6};
        REQUIRE(m.encode_pair(kSource.data(), 4, t1.data(), 3, TransformerSurgery{}, a).ok());
        REQUIRE(m.encode_pair(kSource.data(), 4, t2.data(), 3, TransformerSurgery{}, b).ok());
        for (std::size_t v = 0; v < c.vocab; ++v) CHECK(a.logits[v] == b.logits[v]);
        CHECK(a.logits[c.vocab] != b.logits[c.vocab]);
        TransformerLoss out;
        CHECK(m.loss(t1.data(), t1.data(), 1, 3, true, Variant::automatic, out).message().find("use loss_pairs") != std::string::npos);
    }
}

TEST_CASE("encoder-decoder: attention gradients of a logit, encoder, decoder and cross-attention, against float64 central differences", "[transformer]") {
    TransformerConfig c = pair_config(true, 8);
    const auto& infos = score_infos();
    for (std::size_t i = 0; i < c.scores.size(); ++i) c.scores[i] = infos[(i + 3) % infos.size()].id;
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    randomise(m, 63);
    Ref ref{m, std::vector<double>(m.params().begin(), m.params().end())};
    const std::size_t position = 3, V = c.vocab;
    TransformerAttribution a;
    REQUIRE(m.attention_gradients_pair(kSource.data(), kSource.size(), kTarget.data(), kTarget.size(), position, -1, TransformerSurgery{}, a).ok());
    REQUIRE(a.encoder_gradients.size() == a.run.encoder_attentions.size());
    REQUIRE(a.cross_gradients.size() == a.run.cross.size());
    REQUIRE(a.gradients.size() == a.run.attentions.size());
    check_attention_gradients({{0, &a.encoder_gradients}, {1, &a.gradients}, {2, &a.cross_gradients}}, [&](const Bump* b) {
        std::vector<double> logits;
        ref_pair_loss(ref, kSource, kTarget, &logits, nullptr, nullptr, nullptr, b);
        return logits[position * V + a.token];
    });
    CHECK(m.attention_gradients(kSource.data(), kSource.size(), 0, -1, TransformerSurgery{}, a).message().find("model: an encoder-decoder") == 0);
}

TEST_CASE("encoder-decoder: sinusoidal positions, post-LN, ReLU: forward and every gradient against float64", "[transformer]") {
    TransformerConfig c = pair_config(false, 8);
    const auto& infos = score_infos();
    for (std::size_t i = 0; i < c.scores.size(); ++i) c.scores[i] = infos[(i + 5) % infos.size()].id;
    c.positions = Positions::sinusoidal;
    c.norm = Norm::post;
    c.activation = MlpActivation::relu;
    Transformer m;
    REQUIRE(Transformer::create(c, m).ok());
    CHECK(m.find("encoder.wpe.weight") < 0);
    CHECK(m.find("decoder.ln_f.weight") < 0);
    randomise(m, 82);
    check_pair_model(m, "encoder-decoder, sinusoidal, post-LN, ReLU");
}

TEST_CASE("encoder-decoder trainer: reversing a sequence is learnt; the same seed gives the same losses", "[transformer]") {
    TransformerConfig c;
    c.kind = ModelKind::encoder_decoder;
    c.layers = 1;
    c.heads = 2;
    c.d_model = 16;
    c.d_ff = 32;
    c.vocab = 8;
    c.max_tokens = 6;
    c.seed = 3;
    Transformer a, b;
    REQUIRE(Transformer::create(c, a).ok());
    REQUIRE(Transformer::create(c, b).ok());
    TokenData d;
    d.rows = 96;
    d.source_cols = d.target_cols = 5;
    test::Rng rng(9);
    for (std::size_t r = 0; r < d.rows; ++r) {
        std::vector<std::int32_t> s(5);
        for (auto& x : s) x = static_cast<std::int32_t>(1 + rng.below(7));  // 0 is the start id
        d.source.insert(d.source.end(), s.begin(), s.end());
        d.target.insert(d.target.end(), s.rbegin(), s.rend());
    }
    ModelTrainerOptions o;
    o.batch = 16;
    o.learning_rate = 0.01f;
    ModelTrainer ta, tb;
    REQUIRE(ta.init(a, o, d).ok());
    REQUIRE(tb.init(b, o, d).ok());
    ModelEval e0, e1;
    REQUIRE(ta.evaluate(d, e0).ok());
    REQUIRE(ta.step(200).ok());
    REQUIRE(tb.step(200).ok());
    CHECK(ta.losses() == tb.losses());
    REQUIRE(ta.evaluate(d, e1).ok());
    INFO("loss " << e0.loss << " -> " << e1.loss << ", accuracy " << e1.hits << " / " << e1.count);
    CHECK(e1.loss < 0.5 * e0.loss);
    CHECK(e1.hits > e1.count / 2);
    TokenData bad = d;
    bad.target_cols = 4;
    ModelTrainer t;
    CHECK(t.init(a, o, bad).message().find("data.target: expected rows x targetCols") == 0);
}
