// .safetensors: the "attentions" tensor (F32, F16 or BF16) and the metadata tokens (imported.hpp).
#include "io/common.hpp"
#include "io/json.hpp"

namespace attnscope {

using namespace io;

Status parse_safetensors(const std::uint8_t* bytes, std::size_t size, FloatArray& out,
                         std::vector<std::string>& tokens, std::vector<std::string>& key_tokens) {
    if (size < 8) return Status::error("safetensors: file truncated (shorter than its 8-byte header length)");
    const std::uint64_t n = le64(bytes);
    if (n > (std::uint64_t{100} << 20))
        return Status::error("safetensors: header length " + std::to_string(n) + " is over the limit of 104857600 bytes (100 MiB); the file is corrupt or not a .safetensors file");
    if (n > size - 8)
        return Status::error("safetensors: header length " + std::to_string(n) + " is past the end of the file (" + std::to_string(size) +
                             " bytes); it is truncated or not a .safetensors file");
    Json header;
    std::string err;
    if (!parse_json(reinterpret_cast<const char*>(bytes + 8), static_cast<std::size_t>(n), header, err) ||
        header.kind != Json::object)
        return Status::error("safetensors: corrupt header (" + (err.empty() ? std::string("not a JSON object") : err) + ")");
    const Json* t = header.find("attentions");
    if (!t) {
        std::string names;
        for (const auto& m : header.members)
            if (m.first != "__metadata__") names += (names.empty() ? "'" : ", '") + m.first + "'";
        return Status::error("safetensors: no tensor named 'attentions' (found " + (names.empty() ? std::string("none") : names) +
                             "); save it as save_file({'attentions': a}, path, metadata={'tokens': json.dumps(tokens)})");
    }
    const Json* dtype = t->find("dtype");
    const Json* shape = t->find("shape");
    const Json* offsets = t->find("data_offsets");
    if (!dtype || dtype->kind != Json::string || !shape || shape->kind != Json::array || !offsets ||
        offsets->kind != Json::array || offsets->items.size() != 2)
        return Status::error("safetensors: corrupt entry for 'attentions' (needs dtype, shape and data_offsets)");
    std::size_t item;
    if (dtype->str == "F32") item = 4;
    else if (dtype->str == "F16" || dtype->str == "BF16") item = 2;
    else return Status::error("safetensors: dtype '" + dtype->str + "' is not supported; save float32 or float16: a.float() or a.half()");
    std::vector<std::uint64_t> declared;
    for (const Json& d : shape->items) {
        if (d.kind != Json::number || d.num < 0 || d.num != std::floor(d.num))
            return Status::error("safetensors: corrupt shape for 'attentions' (every dimension must be a whole number >= 0)");
        if (d.num >= 18446744073709551616.0)   // 2^64
            return Status::error("safetensors: a dimension of the shape of 'attentions' is larger than 2^64; the file is corrupt");
        declared.push_back(static_cast<std::uint64_t>(d.num));
    }
    std::size_t count;
    if (!element_count(declared, count))
        return Status::error("safetensors: shape " + shape_text(declared) + " is over the limit of " + std::to_string(kMaxAttentionValues) +
                             " numbers; export fewer layers, heads or tokens");
    out.shape = narrow_shape(declared);
    const std::uint64_t data_size = size - 8 - n;
    for (const Json& o : offsets->items)
        if (o.kind != Json::number || o.num < 0 || o.num != std::floor(o.num) || o.num > 1e15)
            return Status::error("safetensors: corrupt data_offsets for 'attentions'");
    const auto begin = static_cast<std::uint64_t>(offsets->items[0].num), end = static_cast<std::uint64_t>(offsets->items[1].num);
    if (begin > end || end - begin != std::uint64_t{count} * item)
        return Status::error("safetensors: data_offsets of 'attentions' do not match its shape and dtype; the file is corrupt");
    if (end > data_size)
        return Status::error("safetensors: file truncated: 'attentions' ends at byte " + std::to_string(end) + " of the data, the file has " +
                             std::to_string(data_size));
    const std::uint8_t* data = bytes + 8 + n + begin;
    if (Status st = reserve_floats(count, "safetensors: shape " + shape_text(out.shape)); !st) return st;
    out.values.resize(count);
    if (item == 4 && host_is_little_endian()) {
        if (count) std::memcpy(out.values.data(), data, count * 4);
        count = 0;
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (item == 4) out.values[i] = bits_to_float(le32(data + 4 * i));
        else if (dtype->str == "F16") out.values[i] = half_to_float(le16(data + 2 * i));
        else out.values[i] = bits_to_float(le16(data + 2 * i) << 16);
    }
    if (const Json* meta = header.find("__metadata__")) {
        if (meta->kind != Json::object) return Status::error("safetensors: __metadata__ is not an object");
        const Json* tk = meta->find("tokens");
        Status st;
        if (tk && (tk->kind != Json::string || !(st = parse_string_array(tk->str, tokens))))
            return Status::error("safetensors: __metadata__.tokens: " + (st.ok() ? std::string("expected a string") : st.message()) +
                                 "; store json.dumps(tokens)");
        const Json* ktk = meta->find("key_tokens");
        if (ktk && (ktk->kind != Json::string || !(st = parse_string_array(ktk->str, key_tokens))))
            return Status::error("safetensors: __metadata__.key_tokens: " + (st.ok() ? std::string("expected a string") : st.message()) +
                                 "; store json.dumps(key_tokens)");
    }
    return {};
}

}  // namespace attnscope
