// .npy: the header (versions 1, 2 and 3), float32/float16 data, and arrays of unicode strings.
#include "io/npy.hpp"

#include "io/common.hpp"

namespace attnscope {
namespace io {
namespace {

// ---- .npy ---------------------------------------------------------------------------------------

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
struct NpyHeader {
    std::string descr;
    bool fortran = false;
    std::vector<std::uint64_t> shape;   // as declared: 64-bit whatever the width of size_t
    bool has_descr = false, has_fortran = false, has_shape = false;
    bool shape_too_large = false;       // a dimension does not fit in 64 bits
};

bool parse_npy_dict(const std::string& h, NpyHeader& out) {
    std::size_t i = 0;
    auto ws = [&] { while (i < h.size() && (h[i] == ' ' || h[i] == '\n' || h[i] == '\t')) ++i; };
    auto quoted = [&](std::string& s) {
        if (i >= h.size() || (h[i] != '\'' && h[i] != '"')) return false;
        const char q = h[i++];
        const std::size_t close = h.find(q, i);
        if (close == std::string::npos) return false;
        s = h.substr(i, close - i);
        i = close + 1;
        return true;
    };
    ws();
    if (i >= h.size() || h[i++] != '{') return false;
    while (true) {
        ws();
        if (i >= h.size()) return false;
        if (h[i] == '}') return true;
        std::string key;
        if (!quoted(key)) return false;
        ws();
        if (i >= h.size() || h[i++] != ':') return false;
        ws();
        if (key == "descr") {
            if (!quoted(out.descr)) return false;
            out.has_descr = true;
        } else if (key == "fortran_order") {
            if (h.compare(i, 4, "True") == 0) { out.fortran = true; i += 4; }
            else if (h.compare(i, 5, "False") == 0) { out.fortran = false; i += 5; }
            else return false;
            out.has_fortran = true;
        } else if (key == "shape") {
            if (i >= h.size() || h[i++] != '(') return false;
            while (true) {
                ws();
                if (i >= h.size()) return false;
                if (h[i] == ')') { ++i; break; }
                std::uint64_t v = 0;
                std::size_t digits = 0;
                while (i < h.size() && h[i] >= '0' && h[i] <= '9') {
                    if (!checked_mul(v, 10, v) || !checked_add(v, static_cast<std::uint64_t>(h[i] - '0'), v)) {
                        out.shape_too_large = true;
                        return false;
                    }
                    ++i;
                    ++digits;
                }
                if (digits == 0) return false;
                if (i < h.size() && h[i] == 'L') ++i;  // Python 2 longs
                out.shape.push_back(v);
                ws();
                if (i < h.size() && h[i] == ',') ++i;
            }
            out.has_shape = true;
        } else {
            return false;
        }
        ws();
        if (i < h.size() && h[i] == ',') ++i;
    }
}

constexpr char kNpyMagic[] = "\x93NUMPY";

// Reads the header; on success `data` points at the array's bytes and `data_size` counts them.
Status npy_header(const std::uint8_t* bytes, std::size_t size, NpyHeader& header, const std::uint8_t*& data,
                  std::size_t& data_size) {
    if (size < 10 || std::memcmp(bytes, kNpyMagic, 6) != 0)
        return Status::error("npy: not a .npy file (no \\x93NUMPY magic at the start); save with numpy.save");
    const unsigned major = bytes[6];
    std::size_t header_len, at;
    if (major == 1) {
        header_len = le16(bytes + 8);
        at = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12) return Status::error("npy: file truncated inside the header; save it again");
        header_len = le32(bytes + 8);
        at = 12;
    } else {
        return Status::error("npy: format version " + std::to_string(major) + " is not supported (1, 2 and 3 are)");
    }
    if (header_len > size - at) return Status::error("npy: file truncated inside the header; save it again");
    const std::string text(reinterpret_cast<const char*>(bytes + at), header_len);
    const bool parsed = parse_npy_dict(text, header);
    if (header.shape_too_large)
        return Status::error("npy: a dimension of the shape is larger than 2^64; the header is corrupt or not numpy's; save it again with numpy.save");
    if (!parsed || !header.has_descr || !header.has_fortran || !header.has_shape)
        return Status::error("npy: corrupt header (expected {'descr', 'fortran_order', 'shape'}); save it again with numpy.save");
    data = bytes + at + header_len;
    data_size = size - at - header_len;
    return {};
}

Status npy_floats(const NpyHeader& h, const std::uint8_t* data, std::size_t data_size, FloatArray& out) {
    if (h.fortran)
        return Status::error("npy: the array is in Fortran order; save a C-order copy: numpy.save(f, numpy.ascontiguousarray(a))");
    const std::string& d = h.descr;
    const char order = d.empty() ? '?' : d[0];
    const std::string kind = d.size() > 1 ? d.substr(1) : "";
    if ((order != '<' && order != '>' && order != '=' && order != '|') || (kind != "f4" && kind != "f2"))
        return Status::error("npy: dtype '" + d + "' is not supported; save float32 or float16: a.astype(numpy.float32)");
    const bool big = order == '>';
    const std::size_t item = kind == "f4" ? 4 : 2;
    std::size_t count;
    if (!element_count(h.shape, count))
        return Status::error("npy: shape " + shape_text(h.shape) + " is over the limit of " + std::to_string(kMaxAttentionValues) +
                             " numbers; export fewer layers, heads or tokens");
    const std::uint64_t need = std::uint64_t{count} * item;   // count <= 2^26: no overflow
    if (data_size < need)
        return Status::error("npy: file truncated: shape " + shape_text(h.shape) + " needs " + std::to_string(need) +
                             " bytes of data, the file has " + std::to_string(data_size));
    if (data_size > need)
        return Status::error("npy: " + std::to_string(data_size - need) + " unexpected bytes after the data; the file is corrupt");
    if (Status st = reserve_floats(count, "npy: shape " + shape_text(h.shape)); !st) return st;
    out.shape = narrow_shape(h.shape);
    out.values.resize(count);
    if (item == 4 && !big && host_is_little_endian()) {   // the common case: the bytes are the floats
        if (count) std::memcpy(out.values.data(), data, count * 4);
        return {};
    }
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint8_t* p = data + i * item;
        std::uint8_t b[4];
        for (std::size_t k = 0; k < item; ++k) b[k] = big ? p[item - 1 - k] : p[k];
        out.values[i] = item == 4 ? bits_to_float(le32(b)) : half_to_float(le16(b));
    }
    return {};
}

}  // namespace

// A '<U..' array (numpy's fixed-width UTF-32 strings) as UTF-8 strings, trailing NULs removed.
Status npy_strings(const std::uint8_t* bytes, std::size_t size, const char* name, std::vector<std::string>& out) {
    NpyHeader h;
    const std::uint8_t* data;
    std::size_t data_size;
    Status st = npy_header(bytes, size, h, data, data_size);
    if (!st) return Status::error(std::string(name) + ": " + st.message());
    const std::string& d = h.descr;
    if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=') || d[1] != 'U' || h.shape.size() != 1)
        return Status::error(std::string(name) + ": expected a 1-D array of strings (numpy.array(tokens), dtype '<U'), got dtype '" + d +
                             "' and shape " + shape_text(h.shape));
    // Sizes in checked 64-bit arithmetic: tokens x width x 4 bytes is compared with the data's size,
    // and only then are the characters read.
    std::uint64_t width = 0;
    for (std::size_t i = 2; i < d.size(); ++i) {
        if (d[i] < '0' || d[i] > '9' || !checked_mul(width, 10, width) || !checked_add(width, static_cast<std::uint64_t>(d[i] - '0'), width))
            return Status::error(std::string(name) + ": corrupt dtype '" + d.substr(0, 40) + (d.size() > 40 ? "…" : "") + "'");
    }
    if (h.shape[0] > kMaxTokens)
        return Status::error(std::string(name) + ": " + std::to_string(h.shape[0]) + " tokens, over the limit of " + std::to_string(kMaxTokens));
    const std::size_t n = static_cast<std::size_t>(h.shape[0]);
    std::uint64_t need = 0;
    const bool fits = checked_mul(n, width, need) && checked_mul(need, 4, need);
    if (width == 0 || !fits || need != data_size)
        return Status::error(std::string(name) + ": " + std::to_string(n) + " tokens of " + std::to_string(width) + " characters need " +
                             (fits ? std::to_string(need) + " bytes" : std::string("more than 2^64 bytes")) + " of data, the file has " +
                             std::to_string(data_size) + "; the file is truncated or corrupt");
    const std::size_t w = static_cast<std::size_t>(width);   // width * 4 <= data_size: fits
    out.assign(n, std::string());
    for (std::size_t t = 0; t < n; ++t) {
        for (std::size_t c = 0; c < w; ++c) {
            const std::uint32_t cp = le32(data + (t * w + c) * 4);
            if (cp == 0) break;
            if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return Status::error(std::string(name) + ": invalid character in a token");
            append_utf8(out[t], cp);
        }
    }
    return {};
}

}  // namespace io

Status parse_npy(const std::uint8_t* bytes, std::size_t size, FloatArray& out) {
    io::NpyHeader h;
    const std::uint8_t* data;
    std::size_t data_size;
    Status st = io::npy_header(bytes, size, h, data, data_size);
    if (!st) return st;
    return io::npy_floats(h, data, data_size, out);
}

}  // namespace attnscope
