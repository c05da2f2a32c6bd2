// Parsers and validation of imported attention tensors (see attnscope/imported.hpp). Every read is
// bounds-checked against the buffer's size before it happens: any truncation or corruption of a valid
// file ends in a Status, never in a read past the end (the tests cut every valid file at every length
// under AddressSanitizer).
#include "attnscope/imported.hpp"
#include "attnscope/checked.hpp"
#include "attnscope/inflate.hpp"
#include "attnscope/limits.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnscope {
namespace {

std::uint32_t le16(const std::uint8_t* p) { return static_cast<std::uint32_t>(p[0] | (p[1] << 8)); }
std::uint32_t le32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t le64(const std::uint8_t* p) { return le32(p) | (static_cast<std::uint64_t>(le32(p + 4)) << 32); }

float half_to_float(std::uint32_t h) {
    const std::uint32_t sign = (h >> 15) & 1u, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float v;
    if (exponent == 0) v = std::ldexp(static_cast<float>(mantissa), -24);  // zero and subnormals
    else if (exponent == 31) v = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    return sign ? -v : v;
}
// Little-endian float32 files can be copied as they are on a little-endian machine (wasm always is).
bool host_is_little_endian() {
    const std::uint32_t one = 1;
    std::uint8_t first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

float bits_to_float(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void append_utf8(std::string& out, std::uint32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xc0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xe0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    }
}

// Product of a declared shape, in checked 64-bit arithmetic (a file's dimensions are 64-bit numbers
// whatever the width of size_t), within the limit of kMaxAttentionValues numbers. Every dimension must
// be within the limit too, even when another one is 0, so that each fits in a size_t afterwards.
bool element_count(const std::vector<std::uint64_t>& shape, std::size_t& count) {
    std::uint64_t c = 1;
    for (std::uint64_t d : shape) {
        if (d > kMaxAttentionValues || !checked_mul(c, d, c) || c > kMaxAttentionValues) return false;
    }
    count = static_cast<std::size_t>(c);
    return true;
}

// Memory for `floats` floats is there before it is allocated: a std::vector that cannot allocate
// aborts the wasm instance, whereas this is a RangeError naming the file's part (Budget::check
// reserves the memory once, so the heap has grown to hold it).
Status reserve_floats(std::uint64_t floats, const std::string& what) {
    Budget b;
    b.floats(floats);
    return b.check(what, "load fewer layers, heads or tokens, or dispose scopes and results you no longer need");
}

// A declared shape as size_t dimensions; call only after element_count() accepted it.
std::vector<std::size_t> narrow_shape(const std::vector<std::uint64_t>& shape) {
    return std::vector<std::size_t>(shape.begin(), shape.end());
}

template <class Int>
std::string shape_text(const std::vector<Int>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// At most `max` bytes of a text from a file for a message (cut at a UTF-8 character boundary): a
// 1 MB token must not become a 1 MB warning.
std::string clip_text(const std::string& t, std::size_t max = 40) {
    if (t.size() <= max) return t;
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xc0) == 0x80) --cut;
    return t.substr(0, cut) + "… (" + std::to_string(t.size()) + " bytes)";
}

// ---- a small JSON reader (safetensors headers, token lists) -------------------------------------

struct Json {
    enum Kind { null, boolean, number, string, array, object } kind = null;
    double num = 0;
    bool b = false;
    std::string str;
    std::vector<Json> items;                            // array
    std::vector<std::pair<std::string, Json>> members;  // object
    const Json* find(const std::string& key) const {
        for (const auto& m : members)
            if (m.first == key) return &m.second;
        return nullptr;
    }
};

// At most this many values in one document: a safetensors header holds a handful per tensor, and a
// token list at most kMaxTokens strings. A header of 30 million zeros would otherwise build a tree of
// gigabytes before anything could refuse it.
constexpr std::size_t kMaxJsonValues = std::size_t{1} << 18;

class JsonReader {
public:
    JsonReader(const char* p, std::size_t n) : p_(p), end_(p + n) {}
    bool parse(Json& out, std::string& err) {
        if (!value(out, 0)) { err = err_.empty() ? "unexpected end" : err_; return false; }
        ws();
        if (p_ != end_) { err = "unexpected text after the JSON value"; return false; }
        return true;
    }

private:
    const char* p_;
    const char* end_;
    std::string err_;
    std::size_t values_ = 0;

    void ws() { while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_; }
    bool fail(const char* m) { if (err_.empty()) err_ = m; return false; }
    bool literal(const char* word) {
        const std::size_t n = std::strlen(word);
        if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return fail("invalid literal");
        p_ += n;
        return true;
    }
    bool hex4(std::uint32_t& v) {
        if (end_ - p_ < 4) return fail("truncated \\u escape");
        v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = *p_++;
            v <<= 4;
            if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
            else return fail("invalid \\u escape");
        }
        return true;
    }
    bool string(std::string& s) {
        ++p_;  // opening quote
        while (true) {
            if (p_ >= end_) return fail("unterminated string");
            const char c = *p_++;
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
            if (c != '\\') { s += c; continue; }
            if (p_ >= end_) return fail("unterminated string");
            const char e = *p_++;
            switch (e) {
                case '"': s += '"'; break;
                case '\\': s += '\\'; break;
                case '/': s += '/'; break;
                case 'b': s += '\b'; break;
                case 'f': s += '\f'; break;
                case 'n': s += '\n'; break;
                case 'r': s += '\r'; break;
                case 't': s += '\t'; break;
                case 'u': {
                    std::uint32_t c1;
                    if (!hex4(c1)) return false;
                    if (c1 >= 0xd800 && c1 <= 0xdbff) {
                        std::uint32_t c2;
                        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return fail("lone surrogate in a string");
                        p_ += 2;
                        if (!hex4(c2) || c2 < 0xdc00 || c2 > 0xdfff) return fail("lone surrogate in a string");
                        c1 = 0x10000 + ((c1 - 0xd800) << 10) + (c2 - 0xdc00);
                    } else if (c1 >= 0xdc00 && c1 <= 0xdfff) {
                        return fail("lone surrogate in a string");
                    }
                    append_utf8(s, c1);
                    break;
                }
                default: return fail("invalid escape in a string");
            }
        }
    }
    bool number(double& v) {
        const char* start = p_;
        while (p_ < end_ && (std::strchr("+-0123456789.eE", *p_) != nullptr) && *p_ != '\0') ++p_;
        if (p_ == start) return fail("invalid value");
        const std::string text(start, p_);
        char* stop = nullptr;
        v = std::strtod(text.c_str(), &stop);
        if (stop != text.c_str() + text.size()) return fail("invalid number");
        return true;
    }
    bool value(Json& out, int depth) {
        if (depth > 64) return fail("nested too deeply");
        if (++values_ > kMaxJsonValues) return fail("more than 262144 values (a header lists a few per tensor)");
        ws();
        if (p_ >= end_) return fail("unexpected end");
        const char c = *p_;
        if (c == '{') {
            out.kind = Json::object;
            ++p_;
            ws();
            if (p_ < end_ && *p_ == '}') { ++p_; return true; }
            while (true) {
                ws();
                if (p_ >= end_ || *p_ != '"') return fail("expected a key");
                std::string key;
                if (!string(key)) return false;
                ws();
                if (p_ >= end_ || *p_ != ':') return fail("expected ':'");
                ++p_;
                Json v;
                if (!value(v, depth + 1)) return false;
                out.members.emplace_back(std::move(key), std::move(v));
                ws();
                if (p_ >= end_) return fail("unexpected end");
                if (*p_ == ',') { ++p_; continue; }
                if (*p_ == '}') { ++p_; return true; }
                return fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            out.kind = Json::array;
            ++p_;
            ws();
            if (p_ < end_ && *p_ == ']') { ++p_; return true; }
            while (true) {
                Json v;
                if (!value(v, depth + 1)) return false;
                out.items.push_back(std::move(v));
                ws();
                if (p_ >= end_) return fail("unexpected end");
                if (*p_ == ',') { ++p_; continue; }
                if (*p_ == ']') { ++p_; return true; }
                return fail("expected ',' or ']'");
            }
        }
        if (c == '"') { out.kind = Json::string; return string(out.str); }
        if (c == 't') { out.kind = Json::boolean; out.b = true; return literal("true"); }
        if (c == 'f') { out.kind = Json::boolean; return literal("false"); }
        if (c == 'n') { out.kind = Json::null; return literal("null"); }
        out.kind = Json::number;
        return number(out.num);
    }
};

bool json_string_array(const Json& j, std::vector<std::string>& out) {
    if (j.kind != Json::array) return false;
    out.clear();
    for (const Json& item : j.items) {
        if (item.kind != Json::string) return false;
        out.push_back(item.str);
    }
    return true;
}

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

// ---- .npz: a zip of .npy members, read through its central directory ----------------------------

struct ZipMember {
    std::string name;
    const std::uint8_t* data = nullptr;   // the member's bytes as stored in the file
    std::size_t size = 0;                 // stored size
    unsigned method = 0;                  // 0 stored, 8 deflated (numpy.savez_compressed)
    std::uint64_t usize = 0;              // uncompressed size
    std::uint32_t crc = 0;
};

// A member's uncompressed bytes: the stored ones in place, or deflated ones inflated into `storage`.
// The stated size is bounded before anything is allocated.
Status member_bytes(const ZipMember& m, std::vector<std::uint8_t>& storage, const std::uint8_t*& data, std::size_t& size) {
    if (m.method == 0) {
        data = m.data;
        size = m.size;
        return {};
    }
    const std::uint64_t most = kMaxAttentionValues * 4 + (std::uint64_t{1} << 20);
    if (m.usize > most)
        return Status::error("npz: member '" + m.name + "' is " + std::to_string(m.usize) + " bytes uncompressed, over the limit of " +
                             std::to_string(kMaxAttentionValues) + " numbers; save fewer layers, heads or tokens");
    if (Status st = reserve_floats(m.usize / 4 + 1, "npz: member '" + m.name + "'"); !st) return st;
    Status st = inflate_raw(m.data, m.size, static_cast<std::size_t>(m.usize), storage);
    if (!st) return Status::error("npz: member '" + m.name + "': " + st.message());
    if (crc32(storage.data(), storage.size()) != m.crc)
        return Status::error("npz: member '" + m.name + "' fails its CRC-32 check; the file is corrupt");
    data = storage.data();
    size = storage.size();
    return {};
}

Status zip_members(const std::uint8_t* b, std::size_t size, std::vector<ZipMember>& out) {
    const Status corrupt = Status::error("npz: the zip structure is truncated or corrupt; save it again with numpy.savez");
    if (size < 22) return corrupt;
    // The end-of-central-directory record: the last "PK\5\6" within the last 64 KiB + 22 bytes.
    std::size_t eocd = size - 22;
    const std::size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
    while (!(b[eocd] == 'P' && b[eocd + 1] == 'K' && b[eocd + 2] == 5 && b[eocd + 3] == 6)) {
        if (eocd == lowest) return corrupt;
        --eocd;
    }
    std::uint64_t entries = le16(b + eocd + 10), cd_size = le32(b + eocd + 12), cd_offset = le32(b + eocd + 16);
    if (entries == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
        // zip64: a locator (20 bytes) just before the record points at the zip64 end record.
        if (eocd < 20) return corrupt;
        const std::uint8_t* loc = b + eocd - 20;
        if (le32(loc) != 0x07064b50u) return corrupt;
        const std::uint64_t z = le64(loc + 8);
        if (z > size || size - z < 56 || le32(b + z) != 0x06064b50u) return corrupt;
        entries = le64(b + z + 32);
        cd_size = le64(b + z + 40);
        cd_offset = le64(b + z + 48);
    }
    if (cd_offset > size || cd_size > size - cd_offset || entries > 4096) return corrupt;
    std::size_t at = static_cast<std::size_t>(cd_offset);
    const std::size_t cd_end = static_cast<std::size_t>(cd_offset + cd_size);
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (cd_end - at < 46 || le32(b + at) != 0x02014b50u) return corrupt;
        const unsigned method = le16(b + at + 10);
        const std::uint32_t crc = le32(b + at + 16);
        std::uint64_t csize = le32(b + at + 20), usize = le32(b + at + 24), local = le32(b + at + 42);
        const std::size_t name_len = le16(b + at + 28), extra_len = le16(b + at + 30), comment_len = le16(b + at + 32);
        if (cd_end - at - 46 < name_len + extra_len + comment_len) return corrupt;
        ZipMember m;
        m.name.assign(reinterpret_cast<const char*>(b + at + 46), name_len);
        // zip64 extended information: the 0xffffffff fields, in order usize, csize, local offset.
        const std::uint8_t* x = b + at + 46 + name_len;
        const std::uint8_t* x_end = x + extra_len;
        while (x_end - x >= 4) {
            const std::size_t id = le16(x), len = le16(x + 2);
            if (static_cast<std::size_t>(x_end - x - 4) < len) return corrupt;
            if (id == 1) {
                const std::uint8_t* f = x + 4;
                std::size_t left = len;
                auto take = [&](std::uint64_t& v) {
                    if (v != 0xffffffffu) return true;
                    if (left < 8) return false;
                    v = le64(f);
                    f += 8;
                    left -= 8;
                    return true;
                };
                if (!take(usize) || !take(csize) || !take(local)) return corrupt;
            }
            x += 4 + len;
        }
        if (method != 0 && method != 8)
            return Status::error("npz: member '" + m.name + "' uses zip compression method " + std::to_string(method) +
                                 "; save with numpy.savez or numpy.savez_compressed (deflate)");
        if (method == 0 && csize != usize) return corrupt;
        if (local > size || size - local < 30 || le32(b + local) != 0x04034b50u) return corrupt;
        const std::size_t lname = le16(b + local + 26), lextra = le16(b + local + 28);
        const std::uint64_t start = local + 30 + lname + lextra;
        if (start > size || csize > size - start) return corrupt;
        m.data = b + start;
        m.size = static_cast<std::size_t>(csize);
        m.method = method;
        m.usize = usize;
        m.crc = crc;
        out.push_back(std::move(m));
        at += 46 + name_len + extra_len + comment_len;
    }
    return {};
}

}  // namespace

Status parse_npy(const std::uint8_t* bytes, std::size_t size, FloatArray& out) {
    NpyHeader h;
    const std::uint8_t* data;
    std::size_t data_size;
    Status st = npy_header(bytes, size, h, data, data_size);
    if (!st) return st;
    return npy_floats(h, data, data_size, out);
}

Status parse_npz(const std::uint8_t* bytes, std::size_t size, FloatArray& out, std::vector<std::string>& tokens,
                 std::vector<std::string>& key_tokens) {
    std::vector<ZipMember> members;
    Status st = zip_members(bytes, size, members);
    if (!st) return st;
    const ZipMember* att = nullptr;
    const ZipMember* tok = nullptr;
    const ZipMember* ktok = nullptr;
    std::string names;
    for (const ZipMember& m : members) {
        names += (names.empty() ? "'" : ", '") + m.name + "'";
        if (m.name == "attentions.npy") att = &m;
        else if (m.name == "tokens.npy") tok = &m;
        else if (m.name == "key_tokens.npy") ktok = &m;
    }
    if (!att && members.size() == 1) att = &members[0];
    if (!att)
        return Status::error("npz: no member named 'attentions' (found " + (names.empty() ? std::string("none") : names) +
                             "); save with numpy.savez(f, attentions=a, tokens=numpy.array(tokens))");
    std::vector<std::uint8_t> storage;
    const std::uint8_t* data = nullptr;
    std::size_t data_size = 0;
    if (!(st = member_bytes(*att, storage, data, data_size))) return st;
    st = parse_npy(data, data_size, out);
    if (!st) return Status::error("npz: attentions: " + st.message());
    if (tok) {
        if (!(st = member_bytes(*tok, storage, data, data_size))) return st;
        if (!(st = npy_strings(data, data_size, "npz: tokens", tokens))) return st;
    }
    if (ktok) {
        if (!(st = member_bytes(*ktok, storage, data, data_size))) return st;
        if (!(st = npy_strings(data, data_size, "npz: key_tokens", key_tokens))) return st;
    }
    return {};
}

Status parse_string_array(const std::string& json, std::vector<std::string>& out) {
    Json j;
    std::string err;
    if (!JsonReader(json.data(), json.size()).parse(j, err)) return Status::error("invalid JSON (" + err + ")");
    if (!json_string_array(j, out)) return Status::error("expected a JSON array of strings");
    if (out.size() > kMaxTokens) return Status::error(std::to_string(out.size()) + " tokens, over the limit of " + std::to_string(kMaxTokens));
    return {};
}

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
    if (!JsonReader(reinterpret_cast<const char*>(bytes + 8), static_cast<std::size_t>(n)).parse(header, err) ||
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

Status validate_attention(FloatArray array, std::vector<std::string> tokens, std::vector<std::string> key_tokens,
                          const ImportOptions& options, ImportedAttention& out) {
    const auto& s = array.shape;
    std::size_t L, H, nq, nk;
    if (s.size() == 4) { L = s[0]; H = s[1]; nq = s[2]; nk = s[3]; }
    else if (s.size() == 3) { L = 1; H = s[0]; nq = s[1]; nk = s[2]; }
    else if (s.size() == 2) { L = 1; H = 1; nq = s[0]; nk = s[1]; }
    else
        return Status::error("attentions: shape " + shape_text(s) +
                             " has the wrong rank; expected [layers, heads, nq, nk], [heads, n, n] or [n, n] (squeeze the batch axis: a[:, 0])");
    if (L == 0 || H == 0 || nq == 0 || nk == 0) return Status::error("attentions: shape " + shape_text(s) + " has an empty axis");
    if (L > kMaxLayersOrHeads || H > kMaxLayersOrHeads)
        return Status::error("attentions: shape " + shape_text(s) + " has more than " + std::to_string(kMaxLayersOrHeads) + " layers or heads");
    if (nq > kMaxTokens || nk > kMaxTokens)
        return Status::error("attentions: shape " + shape_text(s) + " has more than " + std::to_string(kMaxTokens) + " tokens on an axis");
    std::size_t count;
    if (!element_count(std::vector<std::uint64_t>(s.begin(), s.end()), count))
        return Status::error("attentions: shape " + shape_text(s) + " is over the limit of " + std::to_string(kMaxAttentionValues) + " numbers");
    if (array.values.size() != count)
        return Status::error("attentions: shape " + shape_text(s) + " needs " + std::to_string(count) + " numbers, got " +
                             std::to_string(array.values.size()));
    std::vector<std::string> warnings;
    if (tokens.empty()) {
        for (std::size_t i = 0; i < nq; ++i) tokens.push_back(std::to_string(i));
        warnings.push_back("tokens: none given; positions 0.." + std::to_string(nq - 1) + " stand in for them");
    }
    if (tokens.size() != nq)
        return Status::error("tokens: " + std::to_string(tokens.size()) + " given but the attention " + shape_text(s) + " has " +
                             std::to_string(nq) + " query rows; give one token per row");
    if (key_tokens.empty()) {
        if (nk != nq)
            return Status::error("keyTokens: the attention " + shape_text(s) + " has " + std::to_string(nk) + " keys but " +
                                 std::to_string(nq) + " queries; give keyTokens (one per key)");
        key_tokens = tokens;
    }
    if (key_tokens.size() != nk)
        return Status::error("keyTokens: " + std::to_string(key_tokens.size()) + " given but the attention " + shape_text(s) + " has " +
                             std::to_string(nk) + " keys; give one token per key");
    const std::size_t rows = L * H * nq;
    auto where = [&](std::size_t r) {
        return "layer " + std::to_string(r / (H * nq)) + ", head " + std::to_string(r / nq % H) + ", row " + std::to_string(r % nq) +
               " ('" + clip_text(tokens[r % nq]) + "')";
    };
    std::vector<float>& v = array.values;
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(v[i])) {
            const std::size_t r = i / nk;
            return Status::error("attentions: " + std::string(std::isnan(v[i]) ? "NaN" : "an infinity") + " at " + where(r) + ", column " +
                                 std::to_string(i % nk) + "; every value must be a finite number (fix the export)");
        }
    }
    if (options.apply_softmax) {
        for (std::size_t r = 0; r < rows; ++r) {
            float* row = v.data() + r * nk;
            float m = row[0];
            for (std::size_t j = 1; j < nk; ++j) m = row[j] > m ? row[j] : m;
            double sum = 0;
            for (std::size_t j = 0; j < nk; ++j) sum += std::exp(static_cast<double>(row[j]) - m);
            for (std::size_t j = 0; j < nk; ++j) row[j] = static_cast<float>(std::exp(static_cast<double>(row[j]) - m) / sum);
        }
    }
    double worst = 0;
    std::size_t worst_row = 0, bad_rows = 0, negative = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* row = v.data() + r * nk;
        double sum = 0;
        for (std::size_t j = 0; j < nk; ++j) {
            sum += row[j];
            if (row[j] < 0) ++negative;
        }
        const double off = std::fabs(sum - 1.0);
        if (off > options.row_sum_tolerance) ++bad_rows;
        if (off > worst) { worst = off; worst_row = r; }
    }
    if (bad_rows) {
        double sum = 0;
        for (std::size_t j = 0; j < nk; ++j) sum += v[worst_row * nk + j];
        warnings.push_back("attentions: " + std::to_string(bad_rows) + " of " + std::to_string(rows) +
                           " rows do not sum to 1; the worst is " + where(worst_row) + ", summing to " + std::to_string(sum) +
                           (negative ? " (" + std::to_string(negative) + " negative values)" : std::string()) +
                           "; if these are scores before the softmax, load with the softmax option");
    }
    out.layers = L;
    out.heads = H;
    out.nq = nq;
    out.nk = nk;
    out.values = std::move(v);
    out.tokens = std::move(tokens);
    out.key_tokens = std::move(key_tokens);
    out.warnings = std::move(warnings);
    return {};
}

}  // namespace attnscope
