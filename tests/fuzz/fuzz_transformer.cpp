// libFuzzer target: a transformer's safetensors file (Transformer::from_safetensors, what scope.loadModel
// reads from model.save() — and from any file a reader drops on the page), then whatever loads is run.
// The seeds (tests/fuzz/corpus/transformer) are a tiny decoder with its tokens and a tiny
// encoder-decoder, saved by model.save(). The promises: a refused file leaves the model empty and says
// why; a file that loads has every parameter finite and tokens one per id (or none); it runs on a few
// ids to results of the declared shapes, or refuses the call; and it saves to a file that loads back to
// the same model, byte for byte.
#include <cmath>
#include <cstdint>
#include <vector>

#include "attnscope/transformer.hpp"
#include "fuzz_input.hpp"   // FUZZ_ASSERT

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::uint8_t> bytes(data, data + size);   // exactly sized: ASan sees a read past the end
    Transformer m;
    const Status st = Transformer::from_safetensors(bytes.data(), bytes.size(), m);
    if (!st) {
        FUZZ_ASSERT(m.empty());
        FUZZ_ASSERT(!st.message().empty());
        return 0;
    }
    const TransformerConfig& c = m.config();
    for (float x : m.params()) FUZZ_ASSERT(std::isfinite(x));
    FUZZ_ASSERT(m.tokens().empty() || m.tokens().size() == c.vocab);

    // A few ids through the model: results of the declared shapes, or a refusal with a message.
    const std::size_t n = c.max_tokens < 4 ? c.max_tokens : 4;
    std::vector<std::int32_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<std::int32_t>(i % c.vocab);
    TransformerRun r;
    const bool pairs = c.kind == ModelKind::encoder_decoder;
    const Status run = pairs ? m.encode_pair(ids.data(), n, ids.data(), n, TransformerSurgery{}, r)
                             : m.encode(ids.data(), n, TransformerSurgery{}, r);
    if (run) {
        FUZZ_ASSERT(r.n == n);
        FUZZ_ASSERT(r.attentions.size() == c.layers * c.heads * n * n);
        FUZZ_ASSERT(r.logits.size() == n * c.vocab);
        if (pairs) FUZZ_ASSERT(r.cross.size() == c.layers * c.heads * n * n && r.encoder_attentions.size() == c.layers * c.heads * n * n);
    } else {
        FUZZ_ASSERT(!run.message().empty());
    }

    // Saved and read back: the same model.
    std::vector<std::uint8_t> again;
    FUZZ_ASSERT(m.save_safetensors(again).ok());
    Transformer back;
    FUZZ_ASSERT(Transformer::from_safetensors(again.data(), again.size(), back).ok());
    FUZZ_ASSERT(back.params() == m.params());
    FUZZ_ASSERT(back.tokens() == m.tokens());
    FUZZ_ASSERT(back.config_json() == m.config_json());
    return 0;
}
