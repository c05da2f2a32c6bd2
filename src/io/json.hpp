// A small JSON reader (safetensors headers, token lists). Internal to the core.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope::io {

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

// Parses one JSON document of n bytes at p; on failure `err` says why.
bool parse_json(const char* p, std::size_t n, Json& out, std::string& err);
// A JSON array of strings into `out`; false for anything else.
bool json_string_array(const Json& j, std::vector<std::string>& out);
// `s` as a JSON string literal appended to `out`: quotes and backslashes escaped, \n \r \t by name,
// other control characters as \u00XX, every other byte as it is (UTF-8 stays UTF-8).
void append_json_string(std::string& out, std::string_view s);

}  // namespace attnscope::io
