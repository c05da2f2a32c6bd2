// Word tokenizer: UTF-8 text in, tokens with their spans out, split the way GloVe 6B's vocabulary
// (lower-cased, Stanford-tokenizer style) expects, so most words of a typed sentence are found.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/registry.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope {

// word: letters of any script, with digits, inner hyphens and apostrophes ("well-known",
//       "o'clock", "mp3"); also clitics ("n't", "'s"), abbreviations ("mr.", "u.s."), URLs, e-mails.
// number: starts with a digit (or "." and a digit): "3.14", "1,000", "10:30", "1990s".
// punctuation: one mark each, except runs of "." or "-" ("...", "--"). "50%" is "50" "%".
// symbol: emoji (a ZWJ sequence, flag, keycap or skin-toned emoji is one token), currency, math.
// cjk: one CJK ideograph (kana and hangul are words).
// (TokenKind: word, number, punctuation, symbol, cjk, listed in attnscope/registry.hpp.)

struct Token {
    std::string text;    // the surface form exactly as typed (UTF-8)
    std::string lookup;  // the normalised form looked up in the vocabulary: lower-cased (option),
                         // ’ and ʼ -> ' and ‐ -> - inside words, base + combining mark composed,
                         // soft hyphens and variation selectors dropped; accents are kept
    std::size_t byte_begin = 0, byte_end = 0;  // span in the input's UTF-8 bytes, [begin, end)
    std::size_t utf16_begin = 0, utf16_end = 0;  // the same span in UTF-16 code units (JS string indices)
    TokenKind kind = TokenKind::word;
};

struct TokenizerOptions {
    std::size_t max_tokens = 512;  // more tokens than this is an error, not a silent cut
    bool lowercase = true;         // lower-case `lookup` (GloVe 6B is uncased)
};

// Splits `text` into tokens. Errors: invalid UTF-8 (names the byte offset), more than max_tokens.
// Empty or whitespace-only text gives zero tokens and OK (callers that need text say so).
Status tokenize(std::string_view text, const TokenizerOptions& options, std::vector<Token>& out);


}  // namespace attnscope
