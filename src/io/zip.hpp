// The zip container of .npz files, read through its central directory (stored and deflated members).
// Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/tensor.hpp"

namespace attnscope::io {

struct ZipMember {
    std::string name;
    const std::uint8_t* data = nullptr;   // the member's bytes as stored in the file
    std::size_t size = 0;                 // stored size
    unsigned method = 0;                  // 0 stored, 8 deflated (numpy.savez_compressed)
    std::uint64_t usize = 0;              // uncompressed size
    std::uint32_t crc = 0;
};

// The members listed in the central directory of the zip file b (size bytes).
Status zip_members(const std::uint8_t* b, std::size_t size, std::vector<ZipMember>& out);
// A member's uncompressed bytes: the stored ones in place, or deflated ones inflated into `storage`
// (bounded before anything is allocated, checked against the member's CRC-32).
Status member_bytes(const ZipMember& m, std::vector<std::uint8_t>& storage, const std::uint8_t*& data, std::size_t& size);

}  // namespace attnscope::io
