// The registry of names (attnscope/registry.hpp): every list parses back, names are unique, and the
// JSON the bindings hand to JS carries every entry.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "attnscope/registry.hpp"
#include "attnscope/variant.hpp"
#include "kernels/kernels.hpp"

using namespace attnscope;

TEST_CASE("registry: every name parses back to its entry, names are unique", "[registry]") {
    std::set<std::string> seen;
    for (const ScoreInfo& info : score_infos()) {
        INFO(info.name);
        CHECK(seen.insert(info.name).second);
        Score s;
        REQUIRE(parse_score(info.name, s));
        CHECK(s == info.id);
        CHECK(&score_info(s) == &info);
        for (const char* field : {info.formula, info.latex, info.source, info.description}) CHECK(std::string(field).size() > 0);
        CHECK(score_has_weights(s) == (std::string(info.matrices).size() > 0));
    }
#define ATTNSCOPE_CHECK_NAMED(Enum, parse, name_of)                       \
    [](std::initializer_list<Enum> all) {                                \
        std::set<std::string> names;                                     \
        for (Enum e : all) {                                             \
            Enum back{};                                                 \
            const std::string n = name_of(e);                            \
            INFO(n);                                                     \
            CHECK(names.insert(n).second);                               \
            REQUIRE(parse(n, back));                                     \
            CHECK(back == e);                                            \
        }                                                                \
    }
    ATTNSCOPE_CHECK_NAMED(Mask, parse_mask, mask_name)({Mask::none, Mask::causal});
    ATTNSCOPE_CHECK_NAMED(Projection, parse_projection, projection_name)({Projection::identity, Projection::random, Projection::user});
    ATTNSCOPE_CHECK_NAMED(Variant, parse_variant, variant_name)({Variant::automatic, Variant::scalar, Variant::simd});
#undef ATTNSCOPE_CHECK_NAMED
    CHECK(std::string(token_kind_name(TokenKind::word)) == "word");
    CHECK(std::string(token_kind_name(TokenKind::cjk)) == "cjk");
    CHECK(std::string(variant_name(Variant::automatic)) == "auto");

    Mask m = Mask::causal;
    CHECK_FALSE(parse_mask("Causal", m));
    CHECK(m == Mask::causal);  // untouched on failure
    Projection p = Projection::random;
    CHECK_FALSE(parse_projection("", p));
    CHECK(p == Projection::random);
}

TEST_CASE("registry: the compiled variants are the manifest's tables", "[registry]") {
    for (const kernels::KernelTable* t : kernels::all_variants()) {
        Variant v;
        INFO(t->name);
        REQUIRE(parse_variant(t->name, v));
        CHECK(&kernels_for(v) == t);
    }
}

TEST_CASE("registry: registry_json lists every entry", "[registry]") {
    const std::string json = registry_json();
    CHECK(json.front() == '{');
    CHECK(json.back() == '}');
    for (const ScoreInfo& info : score_infos()) CHECK(json.find(std::string("{\"name\":\"") + info.name + "\"") != std::string::npos);
    for (const char* key : {"\"scores\":", "\"variants\":", "\"masks\":", "\"projections\":", "\"tokenKinds\":"})
        CHECK(json.find(key) != std::string::npos);
    CHECK(json.find("{\"name\":\"additive\"") != std::string::npos);
    CHECK(json.find("\"matrices\":[\"W1\",\"W2\",\"v\"]") != std::string::npos);
    CHECK(json.find("\"matrices\":[]") != std::string::npos);
    CHECK(json.find("{\"name\":\"causal\",\"description\":") != std::string::npos);
    CHECK(json.find("\"tokenKinds\":[\"word\",\"number\",\"punctuation\",\"symbol\",\"cjk\"]") != std::string::npos);
    // Escaping: the LaTeX backslashes arrive as JSON escapes.
    CHECK(json.find("\"latex\":\"q^\\\\top k\"") != std::string::npos);
}
