// Raw DEFLATE (RFC 1951) decoding and CRC-32, for the members of a numpy.savez_compressed .npz (zip
// method 8). Written here rather than taken from a library because the JS API's loadAttentions() is
// synchronous and ships with no runtime dependency: the browser's DecompressionStream is asynchronous,
// and the npm package copies bindings/scope.mjs unbundled, so a JS inflater would become a runtime
// dependency of every user. In C++ the decoder runs in the same wasm call as the rest of the .npz
// parser, and the truncation and damage tests (native, wasm and ASan) cover it with the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnscope/tensor.hpp"

namespace attnscope {

// Decodes the raw DEFLATE stream in[0, in_size) into out, which is resized to exactly expected_size
// bytes (the zip's stated uncompressed size): a stream that would write more, or stops short, or is
// malformed or truncated, is refused (so a small damaged file can never make a large allocation
// beyond expected_size, which the caller bounds first).
Status inflate_raw(const std::uint8_t* in, std::size_t in_size, std::size_t expected_size,
                   std::vector<std::uint8_t>& out);

// CRC-32 (ISO-HDLC, as in zip and gzip) of bytes[0, size).
std::uint32_t crc32(const std::uint8_t* bytes, std::size_t size);

}  // namespace attnscope
