// How the Embind glue reads a call's surgery, shared by embind-model.cpp (USE-Lite's ModelState) and
// embind-transformer.cpp (TransformerState): the JS layer (bindings/scope-surgery.mjs) has checked the
// options and passes them as strings, `scores` "" (the model's own) or one registry name per head,
// comma separated, layer-major, and `ablate` "" or one '0' / '1' per head.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/variant.hpp"

namespace attnscope::glue {

// "" (none given) or registry names, comma separated; false and the message if a name is unknown.
inline bool parse_scores(const std::string& csv, std::vector<Score>& out, std::string& error) {
    out.clear();
    for (std::size_t start = 0; !csv.empty() && start <= csv.size();) {
        const std::size_t end = std::min(csv.find(',', start), csv.size());
        Score s;
        if (!parse_score(csv.substr(start, end - start), s)) {
            error = "score: unknown name '" + csv.substr(start, end - start) + "'";
            return false;
        }
        out.push_back(s);
        start = end + 1;
    }
    return true;
}

// A surgery (ModelSurgery or TransformerSurgery: scores, ablate and variant) from the strings;
// false and the message if a name is unknown.
template <class Surgery>
bool parse_surgery(const std::string& scores, const std::string& ablate, Variant variant, Surgery& s, std::string& error) {
    s = Surgery{};
    s.variant = variant;
    if (!parse_scores(scores, s.scores, error)) return false;
    for (char c : ablate) s.ablate.push_back(c == '1' ? 1 : 0);
    return true;
}

// "" (the model's own τ = 1) or one number per head, comma separated (the JS layer checked them; the
// core checks the count and that each is a usable τ); false and the message if one is not a number.
inline bool parse_temperatures(const std::string& csv, std::vector<float>& out, std::string& error) {
    out.clear();
    for (std::size_t start = 0; !csv.empty() && start <= csv.size();) {
        const std::size_t end = std::min(csv.find(',', start), csv.size());
        const std::string item = csv.substr(start, end - start);
        char* stop = nullptr;
        const float t = std::strtof(item.c_str(), &stop);
        if (item.empty() || stop != item.c_str() + item.size()) {
            error = "temperature: '" + item + "' is not a number";
            return false;
        }
        out.push_back(t);
        start = end + 1;
    }
    return true;
}

}  // namespace attnscope::glue
