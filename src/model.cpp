#include "attnscope/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "attnscope/checked.hpp"
#include "attnscope/inflate.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/projection.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "kernels/kernels.hpp"
#include "scores/score_def.hpp"
#include "seeded_head.hpp"

namespace attnscope {

namespace {

constexpr char kMagic[8] = {'A', 'T', 'S', 'M', 'O', 'D', 'E', 'L'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kPreamble = 32;
// Bounds on the configuration (far above USE-Lite's, far below what could overflow anything).
constexpr std::uint64_t kMaxDim = 1u << 16;
constexpr std::uint64_t kMaxLayers = 16;
constexpr std::uint64_t kMaxTensors = 4096;
// SentencePiece's control pieces at the start of the vocabulary (<unk>, <s>, </s>, ...).
constexpr std::uint64_t kReservedPieces = 6;

enum class DType : std::uint8_t { f16 = 1, f32 = 2, u32 = 3, u8 = 4, f64 = 5 };

std::uint64_t dtype_size(DType t) {
    switch (t) {
        case DType::f16: return 2;
        case DType::f32: return 4;
        case DType::u32: return 4;
        case DType::u8: return 1;
        case DType::f64: return 8;
    }
    return 0;
}
const char* dtype_name(DType t) {
    switch (t) {
        case DType::f16: return "f16";
        case DType::f32: return "f32";
        case DType::u32: return "u32";
        case DType::u8: return "u8";
        case DType::f64: return "f64";
    }
    return "?";
}

std::uint32_t rd32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t rd64(const std::uint8_t* p) { return rd32(p) | (static_cast<std::uint64_t>(rd32(p + 4)) << 32); }

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    std::uint32_t bits;
    if (e == 0) {
        if (m == 0) {
            bits = sign;
        } else {  // subnormal: exact in float
            const float v = std::ldexp(static_cast<float>(m), -24);
            std::memcpy(&bits, &v, 4);
            bits |= sign;
        }
    } else if (e == 0x1f) {
        bits = sign | 0x7f800000u | (m << 13);
    } else {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::string shape_text(const std::vector<std::uint64_t>& s) {
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

struct Entry {
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::uint64_t count = 0;  // elements
    const std::uint8_t* data = nullptr;
};

// The directory of a file whose preamble, sizes and CRC were checked: every entry's data lies in the body.
class Directory {
public:
    Status parse(const std::uint8_t* body, std::uint64_t body_size, std::uint64_t dir_size) {
        const std::uint8_t* p = body;
        std::uint64_t left = dir_size;
        auto take = [&](std::uint64_t n, const char* what) -> Status {
            if (n > left) return Status::error(std::string("model file: the tensor directory ends inside ") + what);
            left -= n;
            return {};
        };
        if (Status st = take(4, "its entry count"); !st) return st;
        const std::uint32_t count = rd32(p);
        p += 4;
        if (count > kMaxTensors) return Status::error("model file: the directory lists " + std::to_string(count) + " tensors (at most " + std::to_string(kMaxTensors) + ")");
        for (std::uint32_t e = 0; e < count; ++e) {
            const std::string where = "model file: directory entry " + std::to_string(e);
            if (Status st = take(1, "a name length"); !st) return st;
            const std::size_t len = *p++;
            if (Status st = take(len + 2, "a name"); !st) return st;
            std::string name(reinterpret_cast<const char*>(p), len);
            p += len;
            Entry en;
            const std::uint8_t dt = *p++;
            const std::uint8_t rank = *p++;
            if (dt < 1 || dt > 5) return Status::error(where + " ('" + name + "') has an unknown type " + std::to_string(dt));
            en.dtype = static_cast<DType>(dt);
            if (rank > 4) return Status::error(where + " ('" + name + "') has rank " + std::to_string(rank) + " (at most 4)");
            if (Status st = take(4u * rank + 16u, "a shape"); !st) return st;
            en.count = 1;
            for (std::uint8_t r = 0; r < rank; ++r) {
                en.shape.push_back(rd32(p));
                p += 4;
                if (!checked_mul(en.count, en.shape.back(), en.count))
                    return Status::error(where + " ('" + name + "'): its shape overflows");
            }
            const std::uint64_t offset = rd64(p), nbytes = rd64(p + 8);
            p += 16;
            std::uint64_t expected = 0, end = 0;
            if (!checked_mul(en.count, dtype_size(en.dtype), expected) || expected != nbytes)
                return Status::error(where + " ('" + name + "'): " + shape_text(en.shape) + " " + dtype_name(en.dtype) +
                                     " does not match its size of " + std::to_string(nbytes) + " bytes");
            if (offset < dir_size || !checked_add(offset, nbytes, end) || end > body_size)
                return Status::error(where + " ('" + name + "'): its data (offset " + std::to_string(offset) + ", " +
                                     std::to_string(nbytes) + " bytes) is not inside the file's data area");
            en.data = body + offset;
            if (!entries_.emplace(std::move(name), std::move(en)).second)
                return Status::error(where + ": a second tensor of the same name");
        }
        return {};
    }

    // The tensor `name` of exactly this shape, as float (f16 or f32 in the file).
    Status floats(const std::string& name, const std::vector<std::uint64_t>& shape, std::vector<float>& out) const {
        const Entry* e = nullptr;
        if (Status st = find(name, shape, e); !st) return st;
        if (e->dtype != DType::f16 && e->dtype != DType::f32)
            return Status::error("model file: tensor '" + name + "' is " + dtype_name(e->dtype) + ", expected f16 or f32");
        std::size_t n = 0;
        if (!to_size(e->count, n)) return Status::error("model file: tensor '" + name + "' is too large");
        out.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            if (e->dtype == DType::f16)
                out[i] = half_to_float(static_cast<std::uint16_t>(e->data[2 * i] | (e->data[2 * i + 1] << 8)));
            else {
                const std::uint32_t bits = rd32(e->data + 4 * i);
                std::memcpy(&out[i], &bits, 4);
            }
            if (!std::isfinite(out[i]))
                return Status::error("model file: tensor '" + name + "' holds " + (std::isnan(out[i]) ? "NaN" : "an infinity") +
                                     " at element " + std::to_string(i) + "; a model's weights are finite numbers (the file is damaged or was exported wrongly)");
        }
        return {};
    }
    // Floats the model keeps of every float tensor in the directory (what loading allocates).
    std::uint64_t float_elements() const {
        std::uint64_t total = 0;
        for (const auto& [name, e] : entries_)
            if (e.dtype == DType::f16 || e.dtype == DType::f32) total = Budget::add(total, e.count);
        return total;
    }
    // A float64 tensor of rank 1 and this length.
    Status doubles(const std::string& name, std::uint64_t length, std::vector<double>& out) const {
        const Entry* e = nullptr;
        if (Status st = find(name, {length}, e); !st) return st;
        if (e->dtype != DType::f64) return Status::error("model file: tensor '" + name + "' is " + dtype_name(e->dtype) + ", expected f64");
        std::size_t n = 0;
        if (!to_size(e->count, n)) return Status::error("model file: tensor '" + name + "' is too large");
        out.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t bits = rd64(e->data + 8 * i);
            std::memcpy(&out[i], &bits, 8);
        }
        return {};
    }
    Status scalar(const std::string& name, float& out) const {
        std::vector<float> v;
        if (Status st = floats(name, {1}, v); !st) return st;
        out = v[0];
        if (!std::isfinite(out)) return Status::error("model file: constant '" + name + "' is not a finite number");
        return {};
    }
    // An integer (u32) or byte (u8) tensor of rank 1; `length` 0 = any length.
    template <class T>
    Status ints(const std::string& name, DType dtype, std::uint64_t length, std::vector<T>& out) const {
        auto it = entries_.find(name);
        if (it == entries_.end()) return Status::error("model file: tensor '" + name + "' is missing");
        const Entry& e = it->second;
        if (e.dtype != dtype || e.shape.size() != 1 || (length && e.shape[0] != length))
            return Status::error("model file: tensor '" + name + "' is " + shape_text(e.shape) + " " + dtype_name(e.dtype) +
                                 ", expected [" + (length ? std::to_string(length) : std::string("n")) + "] " + dtype_name(dtype));
        std::size_t n = 0;
        if (!to_size(e.count, n)) return Status::error("model file: tensor '" + name + "' is too large");
        out.resize(n);
        for (std::size_t i = 0; i < n; ++i) out[i] = dtype == DType::u32 ? static_cast<T>(rd32(e.data + 4 * i)) : static_cast<T>(e.data[i]);
        return {};
    }

private:
    Status find(const std::string& name, const std::vector<std::uint64_t>& shape, const Entry*& e) const {
        auto it = entries_.find(name);
        if (it == entries_.end()) return Status::error("model file: tensor '" + name + "' is missing");
        if (it->second.shape != shape)
            return Status::error("model file: tensor '" + name + "' is " + shape_text(it->second.shape) + ", expected " + shape_text(shape));
        e = &it->second;
        return {};
    }
    std::map<std::string, Entry> entries_;
};

}  // namespace

Status Model::from_bytes(const std::uint8_t* bytes, std::size_t size, Model& out) {
    out = Model{};
    if (!bytes || size < kPreamble)
        return Status::error("model file: " + std::to_string(size) + " bytes is shorter than the 32-byte header; is it the model file (use-lite.bin)?");
    if (std::memcmp(bytes, kMagic, 8) != 0) return Status::error("model file: does not start with \"ATSMODEL\"; is it the model file (use-lite.bin)?");
    const std::uint32_t version = rd32(bytes + 8), flags = rd32(bytes + 12);
    if (version != kVersion) return Status::error("model file: version " + std::to_string(version) + ", this build reads version 1; rebuild the file with scripts/build-model.mjs");
    if (flags != 0) return Status::error("model file: unknown flags " + std::to_string(flags));
    const std::uint64_t body_size = rd64(bytes + 16);
    const std::uint32_t crc = rd32(bytes + 24), dir_size = rd32(bytes + 28);
    std::uint64_t total = 0;
    if (!checked_add(body_size, kPreamble, total) || total != static_cast<std::uint64_t>(size))
        return Status::error("model file: the header says " + std::to_string(body_size) + " bytes follow it, the file has " +
                             std::to_string(size - kPreamble) + " (truncated or damaged)");
    if (dir_size > body_size) return Status::error("model file: the tensor directory is larger than the file");
    const std::uint8_t* body = bytes + kPreamble;
    if (crc32(body, size - kPreamble) != crc) return Status::error("model file: CRC-32 mismatch (the file is damaged)");
    Directory dir;
    if (Status st = dir.parse(body, body_size, dir_size); !st) return st;
    // What the model will hold, before any of it is allocated: a heap that cannot grow that far is a
    // clear error, not an abort of the instance (the 76th model loaded in one page aborted).
    Budget load;
    load.floats(dir.float_elements());
    load.floats(body_size / 4 + 1);  // the vocabulary and the rest, generously
    if (Status st = load.check("loading the model (" + std::to_string(size) + " bytes)",
                               "free models you no longer use (model.dispose()) or load a smaller one");
        !st)
        return Status::error("model file: " + st.message());

    // Configuration: [layers, vocab rows, embedding, output width, ffn, heads, max tokens, pieces, d per layer...].
    std::vector<std::uint32_t> cfg;
    if (Status st = dir.ints("config", DType::u32, 0, cfg); !st) return st;
    if (cfg.size() < 8 || cfg[0] == 0 || cfg[0] > kMaxLayers || cfg.size() != 8 + cfg[0])
        return Status::error("model file: 'config' has " + std::to_string(cfg.size()) + " entries, expected 8 + its layer count");
    for (std::size_t i = 1; i < cfg.size(); ++i)
        if (cfg[i] == 0 || cfg[i] > kMaxDim) return Status::error("model file: 'config' entry " + std::to_string(i) + " is " + std::to_string(cfg[i]) + " (expected 1 to 65536)");
    Model m;
    m.vocab_rows_ = cfg[1];
    m.embed_ = cfg[2];
    m.out_ = cfg[3];
    m.ffn_ = cfg[4];
    m.heads_ = cfg[5];
    m.max_tokens_ = cfg[6];
    const std::uint64_t pieces = cfg[7];
    // Every id the tokenizer can give (0 to pieces - 1) indexes an embedding row, and the first six
    // pieces are the control pieces the tokenizer never matches in text (bindings/sentencepiece.mjs).
    if (pieces < kReservedPieces || pieces > m.vocab_rows_)
        return Status::error("model file: the vocabulary has " + std::to_string(pieces) + " pieces and the embedding " +
                             std::to_string(m.vocab_rows_) + " rows; expected " + std::to_string(kReservedPieces) +
                             " (the control pieces) to " + std::to_string(m.vocab_rows_) + " pieces, one embedding row each");
    if (m.embed_ % 2) return Status::error("model file: the embedding width " + std::to_string(m.embed_) + " is odd (the timing signal needs sines and cosines)");
    const std::uint64_t E = m.embed_, O = m.out_, F = m.ffn_;
    if (Status st = dir.floats("embedding", {m.vocab_rows_, E}, m.embedding_); !st) return st;
    if (Status st = dir.floats("timing.inv", {E / 2}, m.inv_timescales_); !st) return st;
    // The timing signal's inverse timescales are 1e4^(-i / (E/2 - 1)): in (0, 1]. Larger ones make
    // position x timescale leave float's range (sin(inf) is NaN) somewhere below max tokens.
    for (std::size_t i = 0; i < m.inv_timescales_.size(); ++i)
        if (!(m.inv_timescales_[i] > 0.0f && m.inv_timescales_[i] <= 1.0f))
            return Status::error("model file: 'timing.inv' element " + std::to_string(i) + " is " + std::to_string(m.inv_timescales_[i]) +
                                 "; the timing signal's inverse timescales lie in (0, 1]");
    if (Status st = dir.floats("pool.w", {O, O}, m.pool_w_); !st) return st;
    if (Status st = dir.floats("pool.b", {O}, m.pool_b_); !st) return st;
    if (Status st = dir.scalar("ln.eps", m.ln_eps_); !st) return st;
    if (Status st = dir.scalar("l2.eps", m.l2_eps_); !st) return st;
    if (!(m.ln_eps_ > 0.0f) || !(m.l2_eps_ > 0.0f)) return Status::error("model file: the epsilons must be > 0");
    std::uint64_t d_in = E;
    for (std::size_t l = 0; l < cfg[0]; ++l) {
        Layer L;
        const std::uint64_t d = cfg[8 + l];
        if (d % m.heads_) return Status::error("model file: layer " + std::to_string(l) + "'s width " + std::to_string(d) + " is not a multiple of " + std::to_string(m.heads_) + " heads");
        L.d_in = static_cast<std::size_t>(d_in);
        L.d = static_cast<std::size_t>(d);
        const std::string p = "l" + std::to_string(l) + ".";
        for (auto [name, shape, dst] : std::initializer_list<std::tuple<const char*, std::vector<std::uint64_t>, std::vector<float>*>>{
                 {"ln1.g", {d_in}, &L.ln1_g}, {"ln1.b", {d_in}, &L.ln1_b}, {"qkv.w", {d_in, 3 * d}, &L.qkv_w},
                 {"qkv.b", {3 * d}, &L.qkv_b}, {"out.w", {d, O}, &L.out_w}, {"out.b", {O}, &L.out_b},
                 {"ln2.g", {O}, &L.ln2_g}, {"ln2.b", {O}, &L.ln2_b}, {"ffn1.w", {O, F}, &L.ffn1_w},
                 {"ffn1.b", {F}, &L.ffn1_b}, {"ffn2.w", {F, O}, &L.ffn2_w}, {"ffn2.b", {O}, &L.ffn2_b}}) {
            if (Status st = dir.floats(p + name, shape, *dst); !st) return st;
        }
        if (d_in != O) {  // the residual is projected to the output width
            if (Status st = dir.floats(p + "res.w", {d_in, O}, L.res_w); !st) return st;
            if (Status st = dir.floats(p + "res.b", {O}, L.res_b); !st) return st;
        }
        if (Status st = dir.scalar(p + "q_scale", L.q_scale); !st) return st;
        // The model scales q by 1/sqrt(head) before q·k: the very number scaled-dot multiplies by, so
        // running every head through compute_scores(scaled-dot) is the model.
        const float scaled_dot = 1.0f / std::sqrt(static_cast<float>(d / m.heads_));
        if (L.q_scale != scaled_dot)
            return Status::error("model file: layer " + std::to_string(l) + " scales q by " + std::to_string(L.q_scale) +
                                 ", not 1/sqrt(head width) as scaled-dot does");
        m.layers_.push_back(std::move(L));
        d_in = O;
    }
    if (Status st = dir.ints("vocab.offsets", DType::u32, pieces + 1, m.piece_offsets_); !st) return st;
    std::vector<std::uint8_t> raw;
    if (Status st = dir.ints("vocab.bytes", DType::u8, 0, raw); !st) return st;
    if (m.piece_offsets_[0] != 0 || m.piece_offsets_.back() != raw.size())
        return Status::error("model file: the vocabulary's offsets do not span its bytes");
    for (std::size_t i = 0; i < pieces; ++i)
        if (m.piece_offsets_[i] > m.piece_offsets_[i + 1]) return Status::error("model file: the vocabulary's offsets decrease at piece " + std::to_string(i));
    m.piece_bytes_.assign(raw.begin(), raw.end());
    if (Status st = dir.doubles("vocab.scores", pieces, m.piece_scores_); !st) return st;
    for (double v : m.piece_scores_)
        if (!std::isfinite(v)) return Status::error("model file: a vocabulary score is not a finite number");
    if (Status st = dir.ints("vocab.null", DType::u8, pieces, m.piece_null_); !st) return st;
    out = std::move(m);
    return {};
}

std::string_view Model::piece(std::size_t i) const {
    return {piece_bytes_.data() + piece_offsets_[i], static_cast<std::size_t>(piece_offsets_[i + 1] - piece_offsets_[i])};
}

namespace {

// Y (n x cols) = X W + b, then the activation: one GEMM and one epilogue kernel.
void dense(const kernels::KernelTable& kt, std::size_t n, std::size_t in, std::size_t cols, const float* X,
           const std::vector<float>& W, const std::vector<float>& b, float* Y, kernels::Activation act) {
    kt.gemm_nn(n, cols, in, X, in, W.data(), cols, Y, cols);
    kt.bias_activation(n, cols, Y, cols, b.data(), act);
}

}  // namespace

Budget Model::encode_budget(std::uint64_t n, const ModelSurgery& s) const {
    Budget b;
    const std::uint64_t L = layers_.size(), H = heads_, E = embed_, O = out_, F = ffn_;
    std::uint64_t widest = std::max(E, O);
    for (const Layer& ly : layers_) widest = std::max<std::uint64_t>(widest, ly.d_in);
    b.floats(L * H, n, n);       // the attentions handed back (a score's S is written into them)
    b.floats(n, widest);         // x
    b.floats(n, widest);         // h (the normalised layer input)
    b.floats(n, 4 * O + F);      // y, g, tmp and f
    b.floats(O, 3);              // pooled, z and the embedding
    b.work(n, E, 2);             // the embedding and its timing signal
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const Layer& ly = layers_[l];
        const std::uint64_t din = ly.d_in, d = ly.d, dh = d / H;
        b.floats(n, 4 * d);      // qkv and the heads' outputs
        b.work(n, din, 3 * d);   // q, k, v
        b.work(n, d, O);         // the output projection
        if (!ly.res_w.empty()) b.work(n, din, O);
        b.work(n, O, 2 * F);     // the feed-forward layers
        b.work(n, din + O, 8);   // the two layer norms
        for (std::size_t hd = 0; hd < H; ++hd) {
            const Score score = s.scores.empty() ? Score::scaled_dot : s.scores[l * heads_ + hd];
            const auto& def = scores::score_def(score);
            // The score's cost beyond S (S is the head's slice of the attentions, counted above), its
            // seeded matrices, the softmax and A V.
            def.cost(b, scores::CostShape{n, n, dh, dh, dh});  // seeded additive: hidden = dh
            if (def.head_floats) b.floats(def.head_floats(ScoreParams{}, dh, n));
            b.work(n, n, limits::kWeightCost);
            b.work(n, n, dh);
        }
    }
    b.work(O, O);
    return b;
}

Status Model::encode(const std::int32_t* ids, std::size_t count, const ModelSurgery& s, ModelResult& out) const {
    out = ModelResult{};
    if (empty()) return Status::error("model: no model is loaded");
    if (count == 0) return Status::error("ids: expected at least one token id");
    const std::size_t L = layers_.size(), H = heads_;
    if (!s.scores.empty() && s.scores.size() != L * H)
        return Status::error("score: expected one scoring function per head (" + std::to_string(L * H) + "), got " + std::to_string(s.scores.size()));
    if (!s.ablate.empty() && s.ablate.size() != L * H)
        return Status::error("ablate: expected one flag per head (" + std::to_string(L * H) + "), got " + std::to_string(s.ablate.size()));
    if (!s.temperatures.empty() && s.temperatures.size() != L * H)
        return Status::error("temperature: expected one temperature per head (" + std::to_string(L * H) + "), got " + std::to_string(s.temperatures.size()));
    // Each head's 1/τ, checked as every softmax's temperature is (inverse_temperature).
    std::vector<float> inv_tau(L * H, 1.0f);
    for (std::size_t i = 0; i < s.temperatures.size(); ++i) {
        if (Status st = inverse_temperature(s.temperatures[i], inv_tau[i]); !st)
            return Status::error("temperature: head " + std::to_string(i / H) + "." + std::to_string(i % H) + ": " +
                                 st.message().substr(std::string("temperature: ").size()));
    }
    const std::size_t n = std::min(count, max_tokens_);
    // Every buffer below is sized from the file's declared shapes and n: their sizes and the call's
    // work are counted in saturating 64-bit arithmetic and checked against the per-call budget before
    // anything is allocated (a wasm size_t has 32 bits: 16 layers x 4 heads x 8192^2 wraps to 0).
    if (Status st = encode_budget(n, s).check_lazily(
            [&] { return "encoding " + std::to_string(n) + " tokens with " + std::to_string(L) + " layers of " +
                         std::to_string(H) + " heads"; },
            "pass fewer ids (the model's maxTokens is a ceiling, not a promise that a call of that length fits)");
        !st)
        return Status::error("ids: " + st.message());
    for (std::size_t i = 0; i < n; ++i)
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= vocab_rows_)
            return Status::error("ids: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                                 " is outside the vocabulary (0 to " + std::to_string(vocab_rows_ - 1) + ")");
    const auto& kt = kernels_for(s.variant);
    const std::size_t E = embed_, O = out_, F = ffn_, half = E / 2;

    // x = embedding + (embedding + timing): the graph adds the embedding twice (the timing layer adds the
    // signal to the embedded tokens, and the stack's input adds the embedded tokens again).
    std::vector<float> x(n * E);
    for (std::size_t i = 0; i < n; ++i) {
        const float* e = embedding_.data() + static_cast<std::size_t>(ids[i]) * E;
        float* xi = x.data() + i * E;
        const float pos = static_cast<float>(i);
        for (std::size_t k = 0; k < half; ++k) {
            const float arg = pos * inv_timescales_[k];
            const float sn = static_cast<float>(std::sin(static_cast<double>(arg)));
            const float cs = static_cast<float>(std::cos(static_cast<double>(arg)));
            xi[k] = e[k] + (e[k] + sn);
            xi[half + k] = e[half + k] + (e[half + k] + cs);
        }
    }

    out.n = n;
    out.truncated = count > n;
    out.attentions.assign(L * H * n * n, 0.0f);
    std::vector<float> h, qkv, heads_out, y(n * O), g(n * O), f(n * F), tmp(n * O);
    std::vector<std::vector<float>> seeded;
    for (std::size_t l = 0; l < L; ++l) {
        const Layer& ly = layers_[l];
        const std::size_t din = ly.d_in, d = ly.d, dh = d / H;
        h.resize(n * din);
        kt.layer_norm(n, din, x.data(), din, ly.ln1_g.data(), ly.ln1_b.data(), ln_eps_, h.data(), din);
        qkv.resize(n * 3 * d);
        dense(kt, n, din, 3 * d, h.data(), ly.qkv_w, ly.qkv_b, qkv.data(), kernels::Activation::none);
        heads_out.assign(n * d, 0.0f);
        for (std::size_t hd = 0; hd < H; ++hd) {
            const std::size_t index = l * H + hd;
            const Score score = s.scores.empty() ? Score::scaled_dot : s.scores[index];
            ConstMatrix Q(qkv.data() + hd * dh, n, dh, 3 * d), K(qkv.data() + d + hd * dh, n, dh, 3 * d);
            const float* V = qkv.data() + 2 * d + hd * dh;
            float* A = out.attentions.data() + index * n * n;
            ScoreParams params;
            seeded.clear();
            // A score with matrices gets them seeded (seed 1, head `index`), as its definition sizes them.
            if (const auto head_params = scores::score_def(score).head_params) {
                SeededHeadMatrices source(index, seeded);
                head_params(params, ScoreParams{}, dh, n, source);
            }
            if (Status st = compute_scores(score, Q, K, params, Matrix(A, n, n), s.variant); !st) return st;
            kt.softmax_rows(n, n, A, n, inv_tau[index], A, n);
            if (!s.ablate.empty() && s.ablate[index]) continue;  // knocked out: its output stays zero
            kt.gemm_nn(n, dh, n, A, n, V, 3 * d, heads_out.data() + hd * dh, d);
        }
        // y = attention output projected + the residual (projected to the output width in layer 0).
        dense(kt, n, d, O, heads_out.data(), ly.out_w, ly.out_b, y.data(), kernels::Activation::none);
        if (!ly.res_w.empty()) {
            dense(kt, n, din, O, x.data(), ly.res_w, ly.res_b, tmp.data(), kernels::Activation::none);
            for (std::size_t i = 0; i < n * O; ++i) y[i] += tmp[i];
        } else {
            for (std::size_t i = 0; i < n * O; ++i) y[i] += x[i];
        }
        // x = y + FFN(LN(y))
        kt.layer_norm(n, O, y.data(), O, ly.ln2_g.data(), ly.ln2_b.data(), ln_eps_, g.data(), O);
        dense(kt, n, O, F, g.data(), ly.ffn1_w, ly.ffn1_b, f.data(), kernels::Activation::relu);
        dense(kt, n, F, O, f.data(), ly.ffn2_w, ly.ffn2_b, tmp.data(), kernels::Activation::none);
        x.resize(n * O);
        for (std::size_t i = 0; i < n * O; ++i) x[i] = tmp[i] + y[i];
    }
    // Mean over the tokens, a tanh layer, L2 normalisation (max(Σz², eps) under the square root).
    std::vector<float> pooled(O, 0.0f), z(O);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < O; ++c) pooled[c] += x[i * O + c];
    const float count_f = static_cast<float>(n);
    for (float& v : pooled) v /= count_f;
    dense(kt, 1, O, O, pooled.data(), pool_w_, pool_b_, z.data(), kernels::Activation::tanh);
    float sq = 0.0f;
    for (float v : z) sq += v * v;
    const float r = 1.0f / std::sqrt(std::max(sq, l2_eps_));
    out.embedding.resize(O);
    for (std::size_t c = 0; c < O; ++c) out.embedding[c] = z[c] * r;
    // Finite weights can still overflow float on the way (a file's values are checked finite, not
    // small): a result with a NaN or an infinity is an error, not numbers to plot.
    const auto finite = [](const std::vector<float>& v) {
        return std::all_of(v.begin(), v.end(), [](float a) { return std::isfinite(a); });
    };
    // (A row of scores that all overflowed to -inf softmaxes to zeros: finite, but no attention.)
    bool rows_sum_to_one = true;
    for (std::size_t row = 0; row < L * H * n && rows_sum_to_one; ++row) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += out.attentions[row * n + j];
        rows_sum_to_one = sum > 0.5;
    }
    if (!finite(out.attentions) || !finite(out.embedding) || !rows_sum_to_one) {
        out = ModelResult{};
        return Status::error("model: its weights overflow float32 on these ids (an attention or the embedding is not a finite number); the model file's values are too large for this model");
    }
    return {};
}

}  // namespace attnscope
