// Saving and loading a Transformer as safetensors (attnscope/transformer.hpp).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/checked.hpp"
#include "attnscope/transformer.hpp"
#include "io/common.hpp"
#include "io/json.hpp"

namespace attnscope {

namespace {

// A JSON string literal (a token may be a newline: io's writer escapes control characters).
std::string json_string(const std::string& s) {
    std::string out;
    io::append_json_string(out, s);
    return out;
}

std::string float_text(float x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));  // round-trips a float
    return buf;
}

void put_le64(std::vector<std::uint8_t>& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

constexpr std::uint64_t kMaxHeader = std::uint64_t{100} << 20;

const char* kind_name(ModelKind k) {
    switch (k) {
        case ModelKind::decoder: return "decoder";
        case ModelKind::encoder_decoder: return "encoder-decoder";
    }
    return "";
}

}  // namespace

std::string Transformer::config_json() const {
    std::string s = "{\"kind\":\"" + std::string(kind_name(c_.kind)) + "\",\"layers\":" + std::to_string(c_.layers) + ",\"heads\":" + std::to_string(c_.heads) +
                    ",\"dModel\":" + std::to_string(c_.d_model) + ",\"dFF\":" + std::to_string(c_.d_ff) + ",\"vocab\":" +
                    std::to_string(c_.vocab) + ",\"maxTokens\":" + std::to_string(c_.max_tokens) + ",\"score\":[";
    for (std::size_t i = 0; i < c_.scores.size(); ++i) s += (i ? "," : "") + json_string(score_info(c_.scores[i]).name);
    s += "],\"temperature\":" + (c_.learned_temperature ? std::string("\"learned\"") : float_text(c_.temperature));
    s += ",\"seed\":" + std::to_string(c_.seed);
    // Written only when not the default, so a default model's file is what it was before these options.
    if (c_.positions != Positions::learned) s += ",\"positions\":\"sinusoidal\"";
    if (c_.norm != Norm::pre) s += ",\"norm\":\"post\"";
    if (c_.activation != MlpActivation::gelu) s += ",\"activation\":" + json_string(c_.activation == MlpActivation::relu ? "relu" : "tanh");
    return s + "}";
}

Status Transformer::check_tokens(const std::vector<std::string>& tokens) const {
    if (tokens.empty()) return {};
    if (tokens.size() != c_.vocab)
        return Status::error("tokens: " + std::to_string(tokens.size()) + " of them for a vocabulary of " + std::to_string(c_.vocab) +
                             "; give one text per id, in id order");
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].empty()) return Status::error("tokens[" + std::to_string(i) + "]: empty; give each id the text it stands for");
        if (tokens[i].size() > kMaxTokenBytes)
            return Status::error("tokens[" + std::to_string(i) + "]: " + std::to_string(tokens[i].size()) + " bytes, over the limit of " +
                                 std::to_string(kMaxTokenBytes));
    }
    return {};
}

Status Transformer::set_tokens(std::vector<std::string> tokens) {
    if (Status st = check_tokens(tokens); !st) return st;
    tokens_ = std::move(tokens);
    return {};
}

Status Transformer::save_safetensors(std::vector<std::uint8_t>& out) const {
    out.clear();
    if (empty()) return Status::error("model: no model was created");
    std::string h = "{\"__metadata__\":{\"format\":\"pt\",\"attnscope.architecture\":\"" + std::string(kind_name(c_.kind)) + "\",\"attnscope.config\":" +
                    json_string(config_json());
    if (!tokens_.empty()) {
        std::string list = "[";
        for (std::size_t i = 0; i < tokens_.size(); ++i) list += (i ? "," : "") + json_string(tokens_[i]);
        h += ",\"attnscope.tokens\":" + json_string(list + "]");
    }
    h += "}";
    for (const TensorInfo& t : tensors_) {
        h += "," + json_string(t.name) + ":{\"dtype\":\"F32\",\"shape\":[";
        for (std::size_t k = 0; k < t.shape.size(); ++k) h += (k ? "," : "") + std::to_string(t.shape[k]);
        h += "],\"data_offsets\":[" + std::to_string(std::uint64_t{4} * t.offset) + "," + std::to_string(std::uint64_t{4} * (t.offset + t.size)) + "]}";
    }
    h += "}";
    while (h.size() % 8 != 0) h += ' ';  // the data starts 8-byte aligned
    out.reserve(8 + h.size() + 4 * params_.size());
    put_le64(out, h.size());
    out.insert(out.end(), h.begin(), h.end());
    for (float x : params_) {
        std::uint32_t bits;
        std::memcpy(&bits, &x, 4);
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    }
    return {};
}

Status Transformer::from_safetensors(const std::uint8_t* bytes, std::size_t size, Transformer& out) {
    using io::Json;
    out = Transformer{};
    if (size < 8) return Status::error("model: file truncated (shorter than a safetensors header's 8-byte length)");
    const std::uint64_t n = io::le64(bytes);
    if (n > kMaxHeader || n > size - 8)
        return Status::error("model: safetensors header length " + std::to_string(n) + " is past the end of the file (" + std::to_string(size) +
                             " bytes) or over 100 MiB; the file is truncated or not a safetensors file");
    Json header;
    std::string err;
    if (!io::parse_json(reinterpret_cast<const char*>(bytes + 8), static_cast<std::size_t>(n), header, err) || header.kind != Json::object)
        return Status::error("model: corrupt safetensors header (" + (err.empty() ? std::string("not a JSON object") : err) + ")");
    const Json* meta = header.find("__metadata__");
    const Json* arch = meta && meta->kind == Json::object ? meta->find("attnscope.architecture") : nullptr;
    const Json* cj = meta && meta->kind == Json::object ? meta->find("attnscope.config") : nullptr;
    if (!arch || arch->kind != Json::string || !cj || cj->kind != Json::string)
        return Status::error("model: the safetensors file has no attnscope.architecture and attnscope.config in its __metadata__; "
                             "save it with model.save(), or add metadata={'attnscope.architecture': 'decoder', 'attnscope.config': json.dumps(config)}");
    TransformerConfig cfg;
    if (arch->str == "decoder") cfg.kind = ModelKind::decoder;
    else if (arch->str == "encoder-decoder") cfg.kind = ModelKind::encoder_decoder;
    else return Status::error("model: architecture '" + io::clip_text(arch->str) + "' is not one this version runs ('decoder' or 'encoder-decoder')");
    Json c;
    if (!io::parse_json(cj->str.data(), cj->str.size(), c, err) || c.kind != Json::object)
        return Status::error("model: attnscope.config is not a JSON object (" + err + ")");
    auto size_field = [&](const char* key, std::size_t& field) -> Status {
        const Json* v = c.find(key);
        if (!v || v->kind != Json::number || v->num < 0 || v->num > 1e9 || v->num != std::floor(v->num))
            return Status::error(std::string("model: attnscope.config.") + key + " is missing or not a whole number");
        field = static_cast<std::size_t>(v->num);
        return {};
    };
    for (auto [key, field] : {std::pair<const char*, std::size_t*>{"layers", &cfg.layers}, {"heads", &cfg.heads}, {"dModel", &cfg.d_model},
                              {"dFF", &cfg.d_ff}, {"vocab", &cfg.vocab}, {"maxTokens", &cfg.max_tokens}})
        if (Status st = size_field(key, *field); !st) return st;
    std::size_t seed = 0;
    if (Status st = size_field("seed", seed); !st) return st;
    if (seed > 0xffffffffu) return Status::error("model: attnscope.config.seed is over 2^32 - 1");
    cfg.seed = static_cast<std::uint32_t>(seed);
    std::vector<std::string> names;
    const Json* sc = c.find("score");
    if (!sc || !io::json_string_array(*sc, names)) return Status::error("model: attnscope.config.score is not an array of scoring function names");
    for (const std::string& name : names) {
        Score s;
        if (!parse_score(name, s)) return Status::error("model: attnscope.config.score names an unknown scoring function '" + io::clip_text(name) + "'");
        cfg.scores.push_back(s);
    }
    const Json* tau = c.find("temperature");
    if (tau && tau->kind == Json::string && tau->str == "learned") {
        cfg.learned_temperature = true;
    } else if (tau && tau->kind == Json::number) {
        cfg.temperature = static_cast<float>(tau->num);
    } else {
        return Status::error("model: attnscope.config.temperature is neither a number nor \"learned\"");
    }
    // The options added later: absent = the default (files written before them).
    auto option = [&](const char* key, std::initializer_list<const char*> choices, int& index) -> Status {
        index = 0;
        const Json* v = c.find(key);
        if (!v) return {};
        int i = 0;
        for (const char* name : choices) {
            if (v->kind == Json::string && v->str == name) {
                index = i;
                return {};
            }
            ++i;
        }
        std::string expected;
        for (const char* name : choices) expected += (expected.empty() ? "\"" : ", \"") + std::string(name) + "\"";
        return Status::error(std::string("model: attnscope.config.") + key + " is not one of " + expected);
    };
    int positions = 0, norm = 0, activation = 0;
    if (Status st = option("positions", {"learned", "sinusoidal"}, positions); !st) return st;
    if (Status st = option("norm", {"pre", "post"}, norm); !st) return st;
    if (Status st = option("activation", {"gelu", "relu", "tanh"}, activation); !st) return st;
    cfg.positions = static_cast<Positions>(positions);
    cfg.norm = static_cast<Norm>(norm);
    cfg.activation = static_cast<MlpActivation>(activation);
    // The tensors the config implies, laid out but not allocated: the file's header must place every
    // one of them inside its data before the parameters take any memory (a small file may claim a
    // large model), and they are read from the file, not initialised.
    Transformer t;
    if (Status st = layout(cfg, t); !st) return Status::error("model: attnscope.config: " + st.message());
    // The text of each id (optional): a JSON array of strings, one per id of the vocabulary.
    if (const Json* tj = meta->find("attnscope.tokens")) {
        Json list;
        std::vector<std::string> tokens;
        if (tj->kind != Json::string || !io::parse_json(tj->str.data(), tj->str.size(), list, err) || !io::json_string_array(list, tokens))
            return Status::error("model: attnscope.tokens is not a JSON array of strings" + (err.empty() ? std::string() : " (" + err + ")"));
        if (Status st = t.set_tokens(std::move(tokens)); !st) return Status::error("model: attnscope." + st.message());
    }
    const std::uint64_t data_size = size - 8 - n;
    const std::uint8_t* data = bytes + 8 + n;
    for (const auto& m : header.members) {
        if (m.first == "__metadata__" || m.first == "lm_head.weight") continue;
        if (t.find(m.first) < 0)
            return Status::error("model: tensor '" + io::clip_text(m.first) + "' is not a parameter of the model its config describes");
    }
    std::vector<std::uint64_t> begins(t.tensors_.size());
    for (std::size_t i = 0; i < t.tensors_.size(); ++i) {
        const TensorInfo& ti = t.tensors_[i];
        const Json* e = header.find(ti.name);
        if (!e) return Status::error("model: tensor '" + ti.name + "' is missing from the file");
        const Json* dtype = e->find("dtype");
        const Json* shape = e->find("shape");
        const Json* offsets = e->find("data_offsets");
        if (!dtype || dtype->kind != Json::string || !shape || shape->kind != Json::array || !offsets || offsets->kind != Json::array ||
            offsets->items.size() != 2)
            return Status::error("model: corrupt entry for '" + ti.name + "' (needs dtype, shape and data_offsets)");
        if (dtype->str != "F32") return Status::error("model: '" + ti.name + "' is " + io::clip_text(dtype->str) + "; save float32 tensors");
        bool same = shape->items.size() == ti.shape.size();
        for (std::size_t k = 0; same && k < ti.shape.size(); ++k)
            same = shape->items[k].kind == Json::number && shape->items[k].num == static_cast<double>(ti.shape[k]);
        if (!same) return Status::error("model: '" + ti.name + "' has another shape than " + io::shape_text(ti.shape) + ", which the config implies");
        for (const Json& o : offsets->items)
            if (o.kind != Json::number || o.num < 0 || o.num != std::floor(o.num) || o.num > 1e15)
                return Status::error("model: corrupt data_offsets for '" + ti.name + "'");
        const auto begin = static_cast<std::uint64_t>(offsets->items[0].num), end = static_cast<std::uint64_t>(offsets->items[1].num);
        std::uint64_t bytes_needed = 0;
        if (!checked_mul(ti.size, 4, bytes_needed) || begin > end || end - begin != bytes_needed)
            return Status::error("model: data_offsets of '" + ti.name + "' do not match its shape; the file is corrupt");
        if (end > data_size)
            return Status::error("model: file truncated: '" + ti.name + "' ends at byte " + std::to_string(end) + " of the data, the file has " +
                                 std::to_string(data_size));
        begins[i] = begin;
    }
    const TensorInfo& last = t.tensors_.back();
    t.params_.assign(last.offset + last.size, 0.0f);
    std::vector<float> v;
    for (std::size_t i = 0; i < t.tensors_.size(); ++i) {
        const TensorInfo& ti = t.tensors_[i];
        v.resize(ti.size);
        for (std::size_t k = 0; k < ti.size; ++k) v[k] = io::bits_to_float(io::le32(data + begins[i] + 4 * k));
        if (Status st = t.set_tensor(i, v.data(), v.size()); !st) return Status::error("model: " + st.message());
    }
    out = std::move(t);
    return {};
}

}  // namespace attnscope
