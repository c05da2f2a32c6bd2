// The JSON reader of the attention-file formats (json.hpp) and parse_string_array (imported.hpp), and the
// writer of a JSON string literal (append_json_string) that the model files and the glue use.
#include "io/json.hpp"

#include <cstdio>
#include <iterator>

#include "io/common.hpp"

namespace attnscope {
namespace io {
namespace {

// JSON's two-character escapes: the letter after the backslash and the character it stands for. The
// reader takes all eight; the writer writes the first kWrittenEscapes so ('/' needs no escape, and \b
// and \f go out as \u0008 and \u000c, as every other control character does).
struct ShortEscape {
    char letter, value;
};
constexpr ShortEscape kShortEscapes[] = {{'"', '"'},  {'\\', '\\'}, {'n', '\n'}, {'r', '\r'},
                                         {'t', '\t'}, {'/', '/'},   {'b', '\b'}, {'f', '\f'}};
constexpr std::size_t kWrittenEscapes = 5;

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
            if (e == 'u') {
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
                continue;
            }
            const ShortEscape* x = std::begin(kShortEscapes);
            while (x != std::end(kShortEscapes) && x->letter != e) ++x;
            if (x == std::end(kShortEscapes)) return fail("invalid escape in a string");
            s += x->value;
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
    // An object's or array's elements, from its opening bracket (at p_) to `close`: element() reads one
    // (a member or an item), then a ',' asks for another and `close` ends them.
    template <class Element>
    bool elements(char close, Element element) {
        ++p_;
        ws();
        if (p_ < end_ && *p_ == close) { ++p_; return true; }
        while (true) {
            if (!element()) return false;
            ws();
            if (p_ >= end_) return fail("unexpected end");
            if (*p_ == ',') { ++p_; continue; }
            if (*p_ == close) { ++p_; return true; }
            return fail(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    bool value(Json& out, int depth) {
        if (depth > 64) return fail("nested too deeply");
        if (++values_ > kMaxJsonValues) return fail("more than 262144 values (a header lists a few per tensor)");
        ws();
        if (p_ >= end_) return fail("unexpected end");
        const char c = *p_;
        if (c == '{') {
            out.kind = Json::object;
            return elements('}', [&] {
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
                return true;
            });
        }
        if (c == '[') {
            out.kind = Json::array;
            return elements(']', [&] {
                Json v;
                if (!value(v, depth + 1)) return false;
                out.items.push_back(std::move(v));
                return true;
            });
        }
        if (c == '"') { out.kind = Json::string; return string(out.str); }
        if (c == 't') { out.kind = Json::boolean; out.b = true; return literal("true"); }
        if (c == 'f') { out.kind = Json::boolean; return literal("false"); }
        if (c == 'n') { out.kind = Json::null; return literal("null"); }
        out.kind = Json::number;
        return number(out.num);
    }
};

}  // namespace

bool parse_json(const char* p, std::size_t n, Json& out, std::string& err) { return JsonReader(p, n).parse(out, err); }

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (unsigned char c : s) {
        const ShortEscape* x = std::begin(kShortEscapes);
        while (x != kShortEscapes + kWrittenEscapes && static_cast<unsigned char>(x->value) != c) ++x;
        if (x != kShortEscapes + kWrittenEscapes) {
            out += '\\';
            out += x->letter;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);  // UTF-8 bytes pass through: JSON is UTF-8
        }
    }
    out += '"';
}

bool json_string_array(const Json& j, std::vector<std::string>& out) {
    if (j.kind != Json::array) return false;
    out.clear();
    for (const Json& item : j.items) {
        if (item.kind != Json::string) return false;
        out.push_back(item.str);
    }
    return true;
}

}  // namespace io

Status parse_string_array(const std::string& json, std::vector<std::string>& out) {
    io::Json j;
    std::string err;
    if (!io::parse_json(json.data(), json.size(), j, err)) return Status::error("invalid JSON (" + err + ")");
    if (!io::json_string_array(j, out)) return Status::error("expected a JSON array of strings");
    if (out.size() > kMaxTokens) return Status::error(std::to_string(out.size()) + " tokens, over the limit of " + std::to_string(kMaxTokens));
    return {};
}

}  // namespace attnscope
