#include "attnscope/registry.hpp"

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace attnscope {

namespace {

struct Named {
    const char* name;
    const char* description;
};

#define ATTNSCOPE_NAMED_ROW(id, name, description) {name, description},
const Named kMasks[] = {ATTNSCOPE_MASKS(ATTNSCOPE_NAMED_ROW)};
const Named kProjections[] = {ATTNSCOPE_PROJECTIONS(ATTNSCOPE_NAMED_ROW)};
#undef ATTNSCOPE_NAMED_ROW
#define ATTNSCOPE_NAME_ONLY(id, name) name,
const char* const kTokenKinds[] = {ATTNSCOPE_TOKEN_KINDS(ATTNSCOPE_NAME_ONLY)};
const char* const kVariants[] = {"auto", ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_NAME_ONLY)};
const char* const kCompiledVariants[] = {ATTNSCOPE_KERNEL_VARIANTS(ATTNSCOPE_NAME_ONLY)};
#undef ATTNSCOPE_NAME_ONLY

template <class Enum, std::size_t N>
bool parse_in(const Named (&list)[N], const std::string& name, Enum& out) {
    for (std::size_t i = 0; i < N; ++i) {
        if (name == list[i].name) {
            out = static_cast<Enum>(i);
            return true;
        }
    }
    return false;
}

void json_string(std::string& out, const char* s) {
    out += '"';
    for (const char* c = s; *c; ++c) {
        const auto u = static_cast<unsigned char>(*c);
        if (u == '"' || u == '\\') {
            out += '\\';
            out += *c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += *c;  // UTF-8 bytes pass through: JSON is UTF-8
        }
    }
    out += '"';
}

// `lead` (',' or '{'), then "key":"text".
void json_field(std::string& out, char lead, const char* key, const char* text) {
    out += lead;
    out += '"';
    out += key;
    out += "\":";
    json_string(out, text);
}

// "W1 W2 v" -> ["W1","W2","v"]
void json_words(std::string& out, const char* words) {
    out += '[';
    std::string word;
    bool first = true;
    for (const char* c = words;; ++c) {
        if (*c == ' ' || *c == '\0') {
            if (!word.empty()) {
                if (!first) out += ',';
                json_string(out, word.c_str());
                first = false;
                word.clear();
            }
            if (*c == '\0') break;
        } else {
            word += *c;
        }
    }
    out += ']';
}

template <std::size_t N>
void json_named(std::string& out, const char* key, const Named (&list)[N]) {
    out += ",\"";
    out += key;
    out += "\":[";
    for (std::size_t i = 0; i < N; ++i) {
        if (i) out += ',';
        json_field(out, '{', "name", list[i].name);
        json_field(out, ',', "description", list[i].description);
        out += '}';
    }
    out += ']';
}

}  // namespace

const std::vector<ScoreInfo>& score_infos() {
#define ATTNSCOPE_SCORE_INFO(id, name, formula, latex, source, description, matrices) \
    {Score::id, name, formula, latex, source, description, matrices},
    static const std::vector<ScoreInfo> infos = {ATTNSCOPE_SCORES(ATTNSCOPE_SCORE_INFO)};
#undef ATTNSCOPE_SCORE_INFO
    return infos;
}

const ScoreInfo& score_info(Score s) { return score_infos()[static_cast<std::size_t>(s)]; }

bool score_has_weights(Score s) { return score_info(s).matrices[0] != '\0'; }

bool parse_score(const std::string& name, Score& out) {
    for (const auto& info : score_infos()) {
        if (name == info.name) {
            out = info.id;
            return true;
        }
    }
    return false;
}

bool parse_mask(const std::string& name, Mask& out) { return parse_in(kMasks, name, out); }
bool parse_projection(const std::string& name, Projection& out) { return parse_in(kProjections, name, out); }

bool parse_variant(const std::string& name, Variant& out) {
    for (std::size_t i = 0; i < sizeof kVariants / sizeof kVariants[0]; ++i) {
        if (name == kVariants[i]) {
            out = static_cast<Variant>(i);
            return true;
        }
    }
    return false;
}

const char* mask_name(Mask m) { return kMasks[static_cast<std::size_t>(m)].name; }
const char* projection_name(Projection p) { return kProjections[static_cast<std::size_t>(p)].name; }
const char* token_kind_name(TokenKind k) { return kTokenKinds[static_cast<std::size_t>(k)]; }
const char* variant_name(Variant v) { return kVariants[static_cast<std::size_t>(v)]; }

std::string registry_json() {
    std::string out = "{\"scores\":[";
    bool first = true;
    for (const auto& info : score_infos()) {
        if (!first) out += ',';
        first = false;
        json_field(out, '{', "name", info.name);
        json_field(out, ',', "formula", info.formula);
        json_field(out, ',', "latex", info.latex);
        json_field(out, ',', "source", info.source);
        json_field(out, ',', "description", info.description);
        out += ",\"matrices\":";
        json_words(out, info.matrices);
        out += ",\"needsWeights\":";
        out += score_has_weights(info.id) ? "true" : "false";
        out += '}';
    }
    out += "],\"variants\":[";
    for (std::size_t i = 0; i < sizeof kVariants / sizeof kVariants[0]; ++i) {
        bool compiled = i == 0;  // auto always runs (it falls back to scalar)
        for (const char* c : kCompiledVariants) compiled = compiled || std::string(c) == kVariants[i];
        if (i) out += ',';
        json_field(out, '{', "name", kVariants[i]);
        out += ",\"compiled\":";
        out += compiled ? "true" : "false";
        out += '}';
    }
    out += ']';
    json_named(out, "masks", kMasks);
    json_named(out, "projections", kProjections);
    out += ",\"tokenKinds\":[";
    for (std::size_t i = 0; i < sizeof kTokenKinds / sizeof kTokenKinds[0]; ++i) {
        if (i) out += ',';
        json_string(out, kTokenKinds[i]);
    }
    return out + "]}";
}

}  // namespace attnscope
