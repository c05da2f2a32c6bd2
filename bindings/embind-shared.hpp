// What the files of the Embind glue share (bindings/embind-*.cpp; docs/architecture.md, item 2):
// heap addresses as pointers, JSON strings, the copies and error objects handed to JS, copies out to
// the heap, and the plain exports' reading of the registry's enums and ScoreParams from the numbers
// JS passes. One definition each, inline: the hot calls' plain exports use some of them on every call.
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "attnscope/tensor.hpp"
#include "attnscope/variant.hpp"
#include "io/json.hpp"

namespace attnscope::glue {

inline const float* fptr(std::uintptr_t p) { return reinterpret_cast<const float*>(p); }
inline float* mfptr(std::uintptr_t p) { return reinterpret_cast<float*>(p); }

// Pointer fields of the option structs, read from and written as wasm addresses.
template <class T, const float* T::*M>
std::uintptr_t get_address(const T& o) { return reinterpret_cast<std::uintptr_t>(o.*M); }
template <class T, const float* T::*M>
void set_address(T& o, std::uintptr_t a) { o.*M = fptr(a); }

// ---- Embind registrations that name each member once ------------------------------------------------
// A member's JS name is its C++ name in camelCase (max_tokens → maxTokens, d_head → dHead; Wq stays Wq),
// made when the bindings are registered and kept for the module's lifetime (Embind keeps the pointer it
// is given), so the two spellings of a name cannot drift apart. In the manner of nlohmann/json's
// NLOHMANN_DEFINE_TYPE_INTRUSIVE, a for-each macro over the member names writes the registration calls,
// with `Self` a type alias in scope for the class registered:
//   ATTNSCOPE_JS_METHODS(a, b_c)    .function("a", &Self::a).function("bC", &Self::b_c)
//   ATTNSCOPE_JS_FIELDS(a, b_c)     .field("a", &Self::a).field("bC", &Self::b_c)
//   ATTNSCOPE_JS_ADDRESSES(Wq, Wk)  pointer fields read and written as wasm addresses (get_address)
// A member whose JS name is not the camelCase of its C++ name is registered explicitly.
// Never inlined: the glue is built as one unity file, in which its ~100 calls each took a copy.
[[gnu::noinline]] inline const char* js_name(const char* snake) {
    char* name = new char[std::strlen(snake) + 1];  // never freed: the module keeps its names
    char* out = name;
    bool upper = false;
    for (const char* c = snake; *c; ++c) {
        if (*c == '_') {
            upper = true;
            continue;
        }
        *out++ = upper && *c >= 'a' && *c <= 'z' ? static_cast<char>(*c - 'a' + 'A') : *c;
        upper = false;
    }
    *out = '\0';
    return name;
}
// The for-each: ATTNSCOPE_PP_MAP(f, a, b, c) is f(a) f(b) f(c). Each pass of the preprocessor expands one
// step and leaves the next one to the following pass (ATTNSCOPE_PP_NEXT peeks whether a name follows);
// ATTNSCOPE_PP_EVAL rescans 3^5 = 243 times, more than any list here needs.
#define ATTNSCOPE_PP_EVAL0(...) __VA_ARGS__
#define ATTNSCOPE_PP_EVAL1(...) ATTNSCOPE_PP_EVAL0(ATTNSCOPE_PP_EVAL0(ATTNSCOPE_PP_EVAL0(__VA_ARGS__)))
#define ATTNSCOPE_PP_EVAL2(...) ATTNSCOPE_PP_EVAL1(ATTNSCOPE_PP_EVAL1(ATTNSCOPE_PP_EVAL1(__VA_ARGS__)))
#define ATTNSCOPE_PP_EVAL3(...) ATTNSCOPE_PP_EVAL2(ATTNSCOPE_PP_EVAL2(ATTNSCOPE_PP_EVAL2(__VA_ARGS__)))
#define ATTNSCOPE_PP_EVAL(...) ATTNSCOPE_PP_EVAL3(ATTNSCOPE_PP_EVAL3(ATTNSCOPE_PP_EVAL3(__VA_ARGS__)))
#define ATTNSCOPE_PP_END(...)
#define ATTNSCOPE_PP_OUT
#define ATTNSCOPE_PP_END_MARK2() 0, ATTNSCOPE_PP_END
#define ATTNSCOPE_PP_END_MARK1(...) ATTNSCOPE_PP_END_MARK2
#define ATTNSCOPE_PP_END_MARK(...) ATTNSCOPE_PP_END_MARK1
#define ATTNSCOPE_PP_NEXT0(test, next, ...) next ATTNSCOPE_PP_OUT
#define ATTNSCOPE_PP_NEXT1(test, next) ATTNSCOPE_PP_NEXT0(test, next, 0)
#define ATTNSCOPE_PP_NEXT(test, next) ATTNSCOPE_PP_NEXT1(ATTNSCOPE_PP_END_MARK test, next)
#define ATTNSCOPE_PP_MAP_A(f, x, peek, ...) f(x) ATTNSCOPE_PP_NEXT(peek, ATTNSCOPE_PP_MAP_B)(f, peek, __VA_ARGS__)
#define ATTNSCOPE_PP_MAP_B(f, x, peek, ...) f(x) ATTNSCOPE_PP_NEXT(peek, ATTNSCOPE_PP_MAP_A)(f, peek, __VA_ARGS__)
#define ATTNSCOPE_PP_MAP(f, ...) ATTNSCOPE_PP_EVAL(ATTNSCOPE_PP_MAP_A(f, __VA_ARGS__, ()()(), ()()(), ()()(), 0))

#define ATTNSCOPE_JS_METHOD(m) .function(::attnscope::glue::js_name(#m), &Self::m)
#define ATTNSCOPE_JS_FIELD(m) .field(::attnscope::glue::js_name(#m), &Self::m)
#define ATTNSCOPE_JS_ADDRESS(m) \
    .field(::attnscope::glue::js_name(#m), &::attnscope::glue::get_address<Self, &Self::m>, &::attnscope::glue::set_address<Self, &Self::m>)
#define ATTNSCOPE_JS_METHODS(...) ATTNSCOPE_PP_MAP(ATTNSCOPE_JS_METHOD, __VA_ARGS__)
#define ATTNSCOPE_JS_FIELDS(...) ATTNSCOPE_PP_MAP(ATTNSCOPE_JS_FIELD, __VA_ARGS__)
#define ATTNSCOPE_JS_ADDRESSES(...) ATTNSCOPE_PP_MAP(ATTNSCOPE_JS_ADDRESS, __VA_ARGS__)

// A JSON string literal of s appended to out (the core's writer, the reader's twin in io/json).
inline void json_string(std::string& out, std::string_view s) { io::append_json_string(out, s); }

// A Float32Array holding a copy of n floats (new Float32Array(view) copies them into JS memory, so
// the floats may be freed once it returns).
inline emscripten::val float_copy(const float* p, std::size_t n) {
    return emscripten::val::global("Float32Array").new_(emscripten::typed_memory_view(n, p));
}
inline emscripten::val float_copy(const std::vector<float>& v) { return float_copy(v.data(), v.size()); }

// {error: message}, the failed form of every call that returns an object.
inline emscripten::val error_object(const std::string& message) {
    emscripten::val out = emscripten::val::object();
    out.set("error", message);
    return out;
}

// Copies t's values to the address `to` (nothing when it is 0 or t is empty).
inline void copy_out(const Tensor& t, std::uintptr_t to) {
    if (to && !t.values.empty()) std::memcpy(mfptr(to), t.values.data(), t.values.size() * sizeof(float));
}

// ---- the plain exports' arguments (embind-attention.cpp, embind-scope.cpp) -------------------------
// A message is handed over in a malloc'ed copy that the JS layer frees after decoding it (nothing
// stays allocated between calls; malloc failing gives the generic message below, never an abort).
inline const char* message_or_null(const std::string& m) {
    if (m.empty()) return nullptr;
    char* out = static_cast<char*>(std::malloc(m.size() + 1));
    if (!out) return "memory: the heap could not grow for an error message";
    std::memcpy(out, m.c_str(), m.size() + 1);
    return out;
}

#define ATTNSCOPE_COUNT_ROW(...) +1
constexpr int kScoreCount = 0 ATTNSCOPE_SCORES(ATTNSCOPE_COUNT_ROW);
constexpr int kMaskCount = 0 ATTNSCOPE_MASKS(ATTNSCOPE_COUNT_ROW);
constexpr int kVariantCount = 1 ATTNSCOPE_ALL_KERNEL_VARIANTS(ATTNSCOPE_COUNT_ROW);
constexpr int kProjectionCount = 0 ATTNSCOPE_PROJECTIONS(ATTNSCOPE_COUNT_ROW);
#undef ATTNSCOPE_COUNT_ROW

// The enums and ScoreParams from the integers and fields JS passes; "" or the message.
inline std::string enums_from(int score, int variant, int mask, Score& s, Variant& v, Mask& m) {
    if (score < 0 || score >= kScoreCount) return "score: unknown score index " + std::to_string(score);
    if (variant < 0 || variant >= kVariantCount) return "variant: unknown variant index " + std::to_string(variant);
    if (mask < 0 || mask >= kMaskCount) return "mask: unknown mask index " + std::to_string(mask);
    s = static_cast<Score>(score);
    v = static_cast<Variant>(variant);
    m = static_cast<Mask>(mask);
    return "";
}
inline ScoreParams params_from(double p, double eps, std::uintptr_t W, std::uintptr_t W1, std::uintptr_t W2, std::uintptr_t v,
                               int hidden, std::uintptr_t Wa, int max_keys) {
    ScoreParams sp;
    sp.p = static_cast<float>(p);
    sp.eps = static_cast<float>(eps);
    sp.W = fptr(W);
    sp.W1 = fptr(W1);
    sp.W2 = fptr(W2);
    sp.v = fptr(v);
    sp.hidden = static_cast<std::size_t>(hidden < 0 ? 0 : hidden);
    sp.Wa = fptr(Wa);
    sp.max_keys = static_cast<std::size_t>(max_keys < 0 ? 0 : max_keys);
    return sp;
}

}  // namespace attnscope::glue
