// The word tokenizer: a table of tricky inputs (lookups and kinds), spans checked against an
// independent UTF-16 conversion, invalid UTF-8, the token limit, and linear time on long inputs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/tokenizer.hpp"

using attnscope::Token;
using attnscope::TokenizerOptions;
using attnscope::TokenKind;

namespace {

// A plain UTF-8 -> UTF-16 conversion (input assumed valid), written separately from the tokenizer.
std::u16string to_utf16(const std::string& s) {
    std::u16string out;
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const std::size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        std::uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1Fu) : len == 3 ? (b & 0x0Fu) : (b & 0x07u);
        for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
        if (cp >= 0x10000) {
            out += static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10));
            out += static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            out += static_cast<char16_t>(cp);
        }
        i += len;
    }
    return out;
}

std::vector<Token> tokenize_ok(const std::string& text, TokenizerOptions options = {}) {
    std::vector<Token> tokens;
    const attnscope::Status st = attnscope::tokenize(text, options, tokens);
    INFO("input: " << text << "\nerror: " << st.message());
    REQUIRE(st.ok());
    return tokens;
}

std::string join_lookups(const std::vector<Token>& tokens) {
    std::string s;
    for (const Token& t : tokens) s += (s.empty() ? "" : " ") + t.lookup;
    return s;
}
std::string join_texts(const std::vector<Token>& tokens) {
    std::string s;
    for (const Token& t : tokens) s += (s.empty() ? "" : " ") + t.text;
    return s;
}
char kind_letter(TokenKind k) {
    switch (k) {
        case TokenKind::word: return 'w';
        case TokenKind::number: return 'n';
        case TokenKind::punctuation: return 'p';
        case TokenKind::symbol: return 's';
        case TokenKind::cjk: return 'c';
    }
    return '?';
}
std::string join_kinds(const std::vector<Token>& tokens) {
    std::string s;
    for (const Token& t : tokens) s += kind_letter(t.kind);
    return s;
}

// Every token's byte span holds exactly its text, its UTF-16 span holds the same characters in the
// UTF-16 form of the input (what JS sees), tokens come in order without overlapping, and what lies
// between them is only white space or invisible format characters.
void check_spans(const std::string& text, const std::vector<Token>& tokens) {
    const std::u16string u16 = to_utf16(text);
    std::vector<std::size_t> u16_at_byte(text.size() + 1, 0);  // UTF-16 offset of each byte offset
    for (std::size_t i = 0, u = 0; i <= text.size(); ++i) {
        u16_at_byte[i] = u;
        if (i < text.size()) {
            const auto b = static_cast<unsigned char>(text[i]);
            if (b >= 0xF0) u += 2;                 // a 4-byte sequence: a surrogate pair
            else if (b < 0x80 || b >= 0xC0) u += 1;  // the lead byte of anything else
        }
    }
    std::size_t prev_byte = 0, prev_u16 = 0;
    for (const Token& t : tokens) {
        INFO("input: " << text << "\ntoken: " << t.text);
        REQUIRE(t.byte_begin < t.byte_end);
        REQUIRE(t.byte_end <= text.size());
        CHECK(text.substr(t.byte_begin, t.byte_end - t.byte_begin) == t.text);
        CHECK(t.utf16_begin == u16_at_byte[t.byte_begin]);
        CHECK(t.utf16_end == u16_at_byte[t.byte_end]);
        REQUIRE(t.utf16_end <= u16.size());
        CHECK(u16.substr(t.utf16_begin, t.utf16_end - t.utf16_begin) == to_utf16(t.text));
        CHECK(t.byte_begin >= prev_byte);
        CHECK(t.utf16_begin >= prev_u16);
        for (char16_t c : u16.substr(prev_u16, t.utf16_begin - prev_u16)) {
            const bool gap = c == u' ' || c == u'\t' || c == u'\n' || c == u'\r' || c == 0x00A0 ||
                             c == 0x3000 || c == 0x200B || c == 0x200E || c == 0x200F || c == 0xFEFF ||
                             c == 0x2060 || c == 0x200D || c == 0xFE0F;
            CHECK(gap);
        }
        CHECK_FALSE(t.lookup.empty());
        prev_byte = t.byte_end;
        prev_u16 = t.utf16_end;
    }
}

struct Case {
    const char* name;
    const char* input;
    const char* lookups;  // the tokens' lookups joined by single spaces
    const char* kinds;    // one letter per token: word, number, punctuation, symbol, cjk
};

// clang-format off
const Case kCases[] = {
    {"empty", "", "", ""},
    {"white space only", " \t\r\n\u00A0\u3000\u200B ", "", ""},
    {"punctuation only", "?!... ,;:()\"", "? ! ... , ; : ( ) \"", "ppppppppp"},
    {"ellipsis and dashes", "wait... no--yes - ok---", "wait ... no -- yes - ok ---", "wpwpwpwp"},
    {"reference sentence", "The animal didn't cross the street because it was too tired.",
     "the animal did n't cross the street because it was too tired .", "wwwwwwwwwwwwp"},
    {"contractions", "I can't, won't; it's we'll they're I'm we've he'd ain't",
     "i ca n't , wo n't ; it 's we 'll they 're i 'm we 've he 'd ai n't", "wwwpwwpwwwwwwwwwwwwww"},
    {"curly apostrophes", "can\u2019t it\u2019s we\u2019ll I\u2019m", "ca n't it 's we 'll i 'm", "wwwwwwww"},
    {"upper-case contractions", "DON'T IT'S", "do n't it 's", "wwww"},
    {"stacked clitics", "I'd've shouldn't've", "i 'd 've should n't 've", "wwwwww"},
    {"possessives", "John's car, the students' books", "john 's car , the students ' books", "wwwpwwpw"},
    {"apostrophes inside words", "O'Neill's o'clock rock'n'roll 'quoted'",
     "o'neill 's o'clock rock'n'roll ' quoted '", "wwwwpwp"},
    {"hyphenated words", "well-known state-of-the-art e-mail x-ray mid-1990s 3-4",
     "well-known state-of-the-art e-mail x-ray mid-1990s 3-4", "wwwwwn"},
    {"hyphen not between letters", "pre- and post-war, -x well--known",
     "pre - and post-war , - x well -- known", "wpwwppwwpw"},
    {"typographic hyphen", "co\u2010operate", "co-operate", "w"},
    {"numbers", "3.14 1,000 1,000,000.50 10:30 1/2 .5 1990s 5pm",
     "3.14 1,000 1,000,000.50 10:30 1/2 .5 1990s 5pm", "nnnnnnnn"},
    {"numbers and signs", "50% of $5 is -7. Or 2,", "50 % of $ 5 is - 7 . or 2 ,", "npwsnwpnpwnp"},
    {"URLs", "see https://en.wikipedia.org/wiki/Foo_(bar), (www.Example.com/x?y=1). google.com!",
     "see https://en.wikipedia.org/wiki/foo_(bar) , ( www.example.com/x?y=1 ) . google.com !",
     "wwppwppwp"},
    {"not URLs", "node.js end.Then e.g. x.y", "node . js end . then e.g. x.y", "wpwwpwww"},
    {"e-mail", "Mail Bob.Smith+tag@mail.example.co.uk. <bob@x.org> mailto:ann@b.io",
     "mail bob.smith+tag@mail.example.co.uk . < bob@x.org > mailto:ann@b.io", "wwpswsw"},
    {"abbreviations", "Mr. Smith, etc. in the U.S. at 3 a.m. vs. U.S.A",
     "mr. smith , etc. in the u.s. at 3 a.m. vs. u.s.a", "wwpwwwwwnwww"},
    {"emoji", "hi\U0001F600there \U0001F600\U0001F600", "hi \U0001F600 there \U0001F600 \U0001F600",
     "wswss"},
    {"emoji ZWJ family", "family \U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466 ok",
     "family \U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466 ok", "wsw"},
    {"emoji skin tone", "\U0001F44D\U0001F3FD\U0001F44D", "\U0001F44D\U0001F3FD \U0001F44D", "ss"},
    {"flags", "\U0001F1FA\U0001F1F8\U0001F1EB\U0001F1F7!", "\U0001F1FA\U0001F1F8 \U0001F1EB\U0001F1F7 !", "ssp"},
    {"subdivision flag",
     "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F",
     "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "s"},
    {"emoji with variation selector", "\u2764\uFE0F \U0001F3F3\uFE0F\u200D\U0001F308 1\uFE0F\u20E3",
     "\u2764 \U0001F3F3\u200D\U0001F308 1\u20E3", "sss"},
    {"CJK ideographs", "\u4E2D\u6587\u6D4B\u8BD5\u3002", "\u4E2D \u6587 \u6D4B \u8BD5 \u3002", "ccccp"},
    {"Japanese", "日本語のテキストです。", "日 本 語 の テキスト です 。", "cccwwwp"},
    {"Korean and Latin", "한국어 Python을", "한국어 python 을", "www"},
    {"combining accent", "cafe\u0301 CAFE\u0301 café", "café café café", "www"},
    {"stacked marks", "Vie\u0323\u0302t", "vi\u1EC7t", "w"},
    {"stray combining mark", "\u0301 a", "\u0301 a", "sw"},
    {"accents are kept", "naïve Zoë crème brûlée", "naïve zoë crème brûlée", "wwww"},
    {"Latin-1 and Extended-A lower case", "ÀÉÎÕÜ ŁÓDŹ ŠKODA ÆØÅ ŒUVRE İSTANBUL",
     "àéîõü łódź škoda æøå œuvre istanbul", "wwwwww"},
    {"Greek, final sigma", "ΟΔΟΣ Σας καλημέρα;", "\u03BF\u03B4\u03BF\u03C2 \u03C3\u03B1\u03C2 καλημέρα ;", "wwwp"},
    {"Cyrillic", "Привет, МИР! Ёлка ЇЖАК", "привет , мир ! ёлка їжак", "wpwpww"},
    {"Arabic", "مرحبا بالعالم، كيف حالك؟ ٣٫١٤", "مرحبا بالعالم ، كيف حالك ؟ ٣٫١٤", "wwpwwpn"},
    {"Hebrew", "שלום עולם! בית־ספר", "שלום עולם ! בית־ספר", "wwpw"},
    {"Devanagari", "नमस्ते दुनिया। १२३", "नमस्ते दुनिया । १२३", "wwpn"},
    {"mixed scripts", "Hello мир 你好 مرحبا!", "hello мир 你 好 مرحبا !", "wwccwp"},
    {"invisible characters", "co\u00ADoperate \uFEFFword\u200F \u2060x", "cooperate word x", "www"},
};
// clang-format on

}  // namespace

TEST_CASE("tokenizer: table of tricky inputs") {
    for (const Case& c : kCases) {
        INFO("case: " << c.name);
        const std::vector<Token> tokens = tokenize_ok(c.input);
        CHECK(join_lookups(tokens) == c.lookups);
        CHECK(join_kinds(tokens) == c.kinds);
        check_spans(c.input, tokens);
    }
}

TEST_CASE("tokenizer: the reference sentence, token by token") {
    const std::string s = "The animal didn't cross the street because it was too tired.";
    const std::vector<Token> t = tokenize_ok(s);
    const std::vector<std::string> expected = {"the", "animal",  "did", "n't", "cross", "the", "street",
                                               "because", "it", "was", "too", "tired", "."};
    REQUIRE(t.size() == expected.size());
    for (std::size_t i = 0; i < t.size(); ++i) CHECK(t[i].lookup == expected[i]);
    CHECK(t[0].text == "The");
    CHECK(t[2].text == "did");
    CHECK(t[3].text == "n't");
    CHECK(t[3].byte_begin == 14);
    CHECK(t[3].byte_end == 17);
    CHECK(t[12].kind == TokenKind::punctuation);
}

TEST_CASE("tokenizer: surface form is kept as typed, lookup is normalised") {
    const std::vector<Token> t = tokenize_ok("It\u2019s CAFE\u0301");
    REQUIRE(t.size() == 3);
    CHECK(t[1].text == "\u2019s");
    CHECK(t[1].lookup == "'s");
    CHECK(t[2].text == "CAFE\u0301");
    CHECK(t[2].lookup == "caf\u00E9");
    CHECK(t[2].utf16_begin == 5);
    CHECK(t[2].utf16_end == 10);
}

TEST_CASE("tokenizer: spans across astral characters") {
    const std::string s = "\U0001F600 a\U0001F468\u200D\U0001F469 b \U00020000c";
    const std::vector<Token> t = tokenize_ok(s);
    CHECK(join_texts(t) == "\U0001F600 a \U0001F468\u200D\U0001F469 b \U00020000 c");
    REQUIRE(t.size() == 6);
    CHECK(t[1].utf16_begin == 3);   // after a surrogate pair and a space
    CHECK(t[2].utf16_begin == 4);
    CHECK(t[2].utf16_end == 9);     // pair + ZWJ + pair
    CHECK(t[4].kind == TokenKind::cjk);
    check_spans(s, t);
}

TEST_CASE("tokenizer: lowercase can be turned off") {
    TokenizerOptions o;
    o.lowercase = false;
    const std::vector<Token> t = tokenize_ok("The DOG Didn\u2019t", o);
    CHECK(join_lookups(t) == "The DOG Did n't");
}

TEST_CASE("tokenizer: invalid UTF-8 names the byte offset") {
    struct Bad { const char* what; std::string bytes; std::size_t offset; };
    const Bad bad[] = {
        {"byte FF", "ab\xFF" "cd", 2},
        {"lone continuation byte", "a\x80", 1},
        {"truncated sequence at the end", "abc\xE2\x82", 3},
        {"truncated sequence before ASCII", "\xE2\x82x", 0},
        {"overlong NUL", "\xC0\x80", 0},
        {"overlong three-byte form", "ok \xE0\x80\xAF", 3},
        {"UTF-16 surrogate", "x\xED\xA0\x80", 1},
        {"above U+10FFFF", "\xF4\x90\x80\x80", 0},
        {"five-byte lead", "\xF8\x88\x80\x80\x80", 0},
        {"after valid multi-byte text", "caf\xC3\xA9 \xC3", 6},
    };
    for (const Bad& b : bad) {
        INFO(b.what);
        std::vector<Token> tokens(3);
        const attnscope::Status st = attnscope::tokenize(b.bytes, {}, tokens);
        CHECK_FALSE(st.ok());
        CHECK(st.message() == "text: invalid UTF-8 at byte " + std::to_string(b.offset));
        CHECK(tokens.empty());
    }
    // and the largest valid code points are fine
    CHECK(tokenize_ok("\xF4\x8F\xBF\xBF \xEF\xBF\xBD").size() == 2);
}

TEST_CASE("tokenizer: 10,000 tokens and the token limit") {
    std::string text;
    for (int i = 0; i < 2000; ++i) text += "One of us didn't go. ";  // 7 tokens each
    const std::size_t expected = 2000 * 7;

    SECTION("within a raised limit") {
        TokenizerOptions o;
        o.max_tokens = 20000;
        const std::vector<Token> t = tokenize_ok(text, o);
        REQUIRE(t.size() == expected);
        CHECK(t[expected - 3].lookup == "n't");
        CHECK(t.back().byte_end == text.size() - 1);
        check_spans(text, t);
    }
    SECTION("over the default limit") {
        std::vector<Token> t;
        const attnscope::Status st = attnscope::tokenize(text, {}, t);
        CHECK_FALSE(st.ok());
        CHECK(st.message() ==
              "text: 14000 tokens is more than the limit of 512; shorten the text or raise max_tokens");
        CHECK(t.empty());
    }
    SECTION("exactly at the limit, and one over") {
        TokenizerOptions o;
        o.max_tokens = 7;
        CHECK(tokenize_ok("One of us didn't go.", o).size() == 7);
        std::vector<Token> t;
        const attnscope::Status st = attnscope::tokenize("One of us didn't go!!", o, t);
        CHECK(st.message() ==
              "text: 8 tokens is more than the limit of 7; shorten the text or raise max_tokens");
    }
}

TEST_CASE("tokenizer: long and adversarial inputs take linear time") {
    // Each input has 300,000+ characters; anything quadratic would take many seconds here.
    const std::size_t n = 100000;
    auto repeat = [](const std::string& s, std::size_t times) {
        std::string out;
        out.reserve(s.size() * times);
        for (std::size_t i = 0; i < times; ++i) out += s;
        return out;
    };
    struct Long { const char* what; std::string text; std::size_t tokens; };
    const Long inputs[] = {
        {"words", repeat("it's a. ", n), 4 * n},
        {"brackets around a URL", repeat("(", n) + "https://x.com/" + repeat(")", n), 2 * n + 1},
        {"dotted letters", repeat("a.", n) + "x", 1},  // one long "acronym"
        {"hyphen chain", repeat("ab-", n) + "c", 1},
        {"at signs", repeat("x@", n), 2 * n},
        {"number separators", repeat("1,", n) + "1", 1},
        {"emoji ZWJ chain", repeat("\U0001F468\u200D", n), 1},
        {"combining marks", "e" + repeat("\u0301", n), 1},
        {"host labels", "www" + repeat(".ab", n), 1},
    };
    TokenizerOptions o;
    o.max_tokens = 10 * n;
    // No duration is asserted (the machine is shared and noisy): a quadratic pass over these inputs
    // would be ~1e11 steps each and run for hours, which the test runner's time limit reports.
    for (const Long& in : inputs) {
        INFO(in.what);
        std::vector<Token> t;
        REQUIRE(attnscope::tokenize(in.text, o, t).ok());
        CHECK(t.size() == in.tokens);
    }
}

TEST_CASE("tokenizer: token kind names") {
    CHECK(std::string(attnscope::token_kind_name(TokenKind::word)) == "word");
    CHECK(std::string(attnscope::token_kind_name(TokenKind::number)) == "number");
    CHECK(std::string(attnscope::token_kind_name(TokenKind::punctuation)) == "punctuation");
    CHECK(std::string(attnscope::token_kind_name(TokenKind::symbol)) == "symbol");
    CHECK(std::string(attnscope::token_kind_name(TokenKind::cjk)) == "cjk");
}
