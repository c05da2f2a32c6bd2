// Parsers and validation of imported attention tensors (see attnscope/imported.hpp). Every read is
// bounds-checked against the buffer's size before it happens: any truncation or corruption of a valid
// file ends in a Status, never in a read past the end (the tests cut every valid file at every length
// under AddressSanitizer).
#include "attnscope/imported.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "io/common.hpp"

namespace attnscope {

using io::clip_text;
using io::element_count;
using io::shape_text;

Status validate_attention(FloatArray array, std::vector<std::string> tokens, std::vector<std::string> key_tokens,
                          const ImportOptions& options, ImportedAttention& out) {
    const auto& s = array.shape;
    std::size_t L, H, nq, nk;
    if (s.size() == 4) { L = s[0]; H = s[1]; nq = s[2]; nk = s[3]; }
    else if (s.size() == 3) { L = 1; H = s[0]; nq = s[1]; nk = s[2]; }
    else if (s.size() == 2) { L = 1; H = 1; nq = s[0]; nk = s[1]; }
    else
        return Status::error("attentions: shape " + shape_text(s) +
                             " has the wrong rank; expected [layers, heads, nq, nk], [heads, n, n] or [n, n] (squeeze the batch axis: a[:, 0])");
    if (L == 0 || H == 0 || nq == 0 || nk == 0) return Status::error("attentions: shape " + shape_text(s) + " has an empty axis");
    if (L > kMaxLayersOrHeads || H > kMaxLayersOrHeads)
        return Status::error("attentions: shape " + shape_text(s) + " has more than " + std::to_string(kMaxLayersOrHeads) + " layers or heads");
    if (nq > kMaxTokens || nk > kMaxTokens)
        return Status::error("attentions: shape " + shape_text(s) + " has more than " + std::to_string(kMaxTokens) + " tokens on an axis");
    std::size_t count;
    if (!element_count(std::vector<std::uint64_t>(s.begin(), s.end()), count))
        return Status::error("attentions: shape " + shape_text(s) + " is over the limit of " + std::to_string(kMaxAttentionValues) + " numbers");
    if (array.values.size() != count)
        return Status::error("attentions: shape " + shape_text(s) + " needs " + std::to_string(count) + " numbers, got " +
                             std::to_string(array.values.size()));
    std::vector<std::string> warnings;
    if (tokens.empty()) {
        for (std::size_t i = 0; i < nq; ++i) tokens.push_back(std::to_string(i));
        warnings.push_back("tokens: none given; positions 0.." + std::to_string(nq - 1) + " stand in for them");
    }
    if (tokens.size() != nq)
        return Status::error("tokens: " + std::to_string(tokens.size()) + " given but the attention " + shape_text(s) + " has " +
                             std::to_string(nq) + " query rows; give one token per row");
    if (key_tokens.empty()) {
        if (nk != nq)
            return Status::error("keyTokens: the attention " + shape_text(s) + " has " + std::to_string(nk) + " keys but " +
                                 std::to_string(nq) + " queries; give keyTokens (one per key)");
        key_tokens = tokens;
    }
    if (key_tokens.size() != nk)
        return Status::error("keyTokens: " + std::to_string(key_tokens.size()) + " given but the attention " + shape_text(s) + " has " +
                             std::to_string(nk) + " keys; give one token per key");
    const std::size_t rows = L * H * nq;
    auto where = [&](std::size_t r) {
        return "layer " + std::to_string(r / (H * nq)) + ", head " + std::to_string(r / nq % H) + ", row " + std::to_string(r % nq) +
               " ('" + clip_text(tokens[r % nq]) + "')";
    };
    std::vector<float>& v = array.values;
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(v[i])) {
            const std::size_t r = i / nk;
            return Status::error("attentions: " + std::string(std::isnan(v[i]) ? "NaN" : "an infinity") + " at " + where(r) + ", column " +
                                 std::to_string(i % nk) + "; every value must be a finite number (fix the export)");
        }
    }
    if (options.apply_softmax) {
        for (std::size_t r = 0; r < rows; ++r) {
            float* row = v.data() + r * nk;
            float m = row[0];
            for (std::size_t j = 1; j < nk; ++j) m = row[j] > m ? row[j] : m;
            double sum = 0;
            for (std::size_t j = 0; j < nk; ++j) sum += std::exp(static_cast<double>(row[j]) - m);
            for (std::size_t j = 0; j < nk; ++j) row[j] = static_cast<float>(std::exp(static_cast<double>(row[j]) - m) / sum);
        }
    }
    double worst = 0;
    std::size_t worst_row = 0, bad_rows = 0, negative = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* row = v.data() + r * nk;
        double sum = 0;
        for (std::size_t j = 0; j < nk; ++j) {
            sum += row[j];
            if (row[j] < 0) ++negative;
        }
        const double off = std::fabs(sum - 1.0);
        if (off > options.row_sum_tolerance) ++bad_rows;
        if (off > worst) { worst = off; worst_row = r; }
    }
    if (bad_rows) {
        double sum = 0;
        for (std::size_t j = 0; j < nk; ++j) sum += v[worst_row * nk + j];
        warnings.push_back("attentions: " + std::to_string(bad_rows) + " of " + std::to_string(rows) +
                           " rows do not sum to 1; the worst is " + where(worst_row) + ", summing to " + std::to_string(sum) +
                           (negative ? " (" + std::to_string(negative) + " negative values)" : std::string()) +
                           "; if these are scores before the softmax, load with the softmax option");
    }
    out.layers = L;
    out.heads = H;
    out.nq = nq;
    out.nk = nk;
    out.values = std::move(v);
    out.tokens = std::move(tokens);
    out.key_tokens = std::move(key_tokens);
    out.warnings = std::move(warnings);
    return {};
}

}  // namespace attnscope
