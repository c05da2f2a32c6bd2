// The zip reader (zip.hpp) and parse_npz (imported.hpp): a zip of .npy members.
#include "io/zip.hpp"

#include "attnscope/inflate.hpp"
#include "io/common.hpp"
#include "io/npy.hpp"

namespace attnscope {
namespace io {

// A member's uncompressed bytes: the stored ones in place, or deflated ones inflated into `storage`.
// The stated size is bounded before anything is allocated.
Status member_bytes(const ZipMember& m, std::vector<std::uint8_t>& storage, const std::uint8_t*& data, std::size_t& size) {
    if (m.method == 0) {
        data = m.data;
        size = m.size;
        return {};
    }
    const std::uint64_t most = kMaxAttentionValues * 4 + (std::uint64_t{1} << 20);
    if (m.usize > most)
        return Status::error("npz: member '" + m.name + "' is " + std::to_string(m.usize) + " bytes uncompressed, over the limit of " +
                             std::to_string(kMaxAttentionValues) + " numbers; save fewer layers, heads or tokens");
    if (Status st = reserve_floats(m.usize / 4 + 1, "npz: member '" + m.name + "'"); !st) return st;
    Status st = inflate_raw(m.data, m.size, static_cast<std::size_t>(m.usize), storage);
    if (!st) return Status::error("npz: member '" + m.name + "': " + st.message());
    if (crc32(storage.data(), storage.size()) != m.crc)
        return Status::error("npz: member '" + m.name + "' fails its CRC-32 check; the file is corrupt");
    data = storage.data();
    size = storage.size();
    return {};
}

Status zip_members(const std::uint8_t* b, std::size_t size, std::vector<ZipMember>& out) {
    const Status corrupt = Status::error("npz: the zip structure is truncated or corrupt; save it again with numpy.savez");
    if (size < 22) return corrupt;
    // The end-of-central-directory record: the last "PK\5\6" within the last 64 KiB + 22 bytes.
    std::size_t eocd = size - 22;
    const std::size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
    while (!(b[eocd] == 'P' && b[eocd + 1] == 'K' && b[eocd + 2] == 5 && b[eocd + 3] == 6)) {
        if (eocd == lowest) return corrupt;
        --eocd;
    }
    std::uint64_t entries = le16(b + eocd + 10), cd_size = le32(b + eocd + 12), cd_offset = le32(b + eocd + 16);
    if (entries == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
        // zip64: a locator (20 bytes) just before the record points at the zip64 end record.
        if (eocd < 20) return corrupt;
        const std::uint8_t* loc = b + eocd - 20;
        if (le32(loc) != 0x07064b50u) return corrupt;
        const std::uint64_t z = le64(loc + 8);
        if (z > size || size - z < 56 || le32(b + z) != 0x06064b50u) return corrupt;
        entries = le64(b + z + 32);
        cd_size = le64(b + z + 40);
        cd_offset = le64(b + z + 48);
    }
    if (cd_offset > size || cd_size > size - cd_offset || entries > 4096) return corrupt;
    std::size_t at = static_cast<std::size_t>(cd_offset);
    const std::size_t cd_end = static_cast<std::size_t>(cd_offset + cd_size);
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (cd_end - at < 46 || le32(b + at) != 0x02014b50u) return corrupt;
        const unsigned method = le16(b + at + 10);
        const std::uint32_t crc = le32(b + at + 16);
        std::uint64_t csize = le32(b + at + 20), usize = le32(b + at + 24), local = le32(b + at + 42);
        const std::size_t name_len = le16(b + at + 28), extra_len = le16(b + at + 30), comment_len = le16(b + at + 32);
        if (cd_end - at - 46 < name_len + extra_len + comment_len) return corrupt;
        ZipMember m;
        m.name.assign(reinterpret_cast<const char*>(b + at + 46), name_len);
        // zip64 extended information: the 0xffffffff fields, in order usize, csize, local offset.
        const std::uint8_t* x = b + at + 46 + name_len;
        const std::uint8_t* x_end = x + extra_len;
        while (x_end - x >= 4) {
            const std::size_t id = le16(x), len = le16(x + 2);
            if (static_cast<std::size_t>(x_end - x - 4) < len) return corrupt;
            if (id == 1) {
                const std::uint8_t* f = x + 4;
                std::size_t left = len;
                auto take = [&](std::uint64_t& v) {
                    if (v != 0xffffffffu) return true;
                    if (left < 8) return false;
                    v = le64(f);
                    f += 8;
                    left -= 8;
                    return true;
                };
                if (!take(usize) || !take(csize) || !take(local)) return corrupt;
            }
            x += 4 + len;
        }
        if (method != 0 && method != 8)
            return Status::error("npz: member '" + m.name + "' uses zip compression method " + std::to_string(method) +
                                 "; save with numpy.savez or numpy.savez_compressed (deflate)");
        if (method == 0 && csize != usize) return corrupt;
        if (local > size || size - local < 30 || le32(b + local) != 0x04034b50u) return corrupt;
        const std::size_t lname = le16(b + local + 26), lextra = le16(b + local + 28);
        const std::uint64_t start = local + 30 + lname + lextra;
        if (start > size || csize > size - start) return corrupt;
        m.data = b + start;
        m.size = static_cast<std::size_t>(csize);
        m.method = method;
        m.usize = usize;
        m.crc = crc;
        out.push_back(std::move(m));
        at += 46 + name_len + extra_len + comment_len;
    }
    return {};
}

}  // namespace io

using io::ZipMember;

Status parse_npz(const std::uint8_t* bytes, std::size_t size, FloatArray& out, std::vector<std::string>& tokens,
                 std::vector<std::string>& key_tokens) {
    std::vector<ZipMember> members;
    Status st = io::zip_members(bytes, size, members);
    if (!st) return st;
    const ZipMember* att = nullptr;
    const ZipMember* tok = nullptr;
    const ZipMember* ktok = nullptr;
    std::string names;
    for (const ZipMember& m : members) {
        names += (names.empty() ? "'" : ", '") + m.name + "'";
        if (m.name == "attentions.npy") att = &m;
        else if (m.name == "tokens.npy") tok = &m;
        else if (m.name == "key_tokens.npy") ktok = &m;
    }
    if (!att && members.size() == 1) att = &members[0];
    if (!att)
        return Status::error("npz: no member named 'attentions' (found " + (names.empty() ? std::string("none") : names) +
                             "); save with numpy.savez(f, attentions=a, tokens=numpy.array(tokens))");
    std::vector<std::uint8_t> storage;
    const std::uint8_t* data = nullptr;
    std::size_t data_size = 0;
    if (!(st = io::member_bytes(*att, storage, data, data_size))) return st;
    st = parse_npy(data, data_size, out);
    if (!st) return Status::error("npz: attentions: " + st.message());
    if (tok) {
        if (!(st = io::member_bytes(*tok, storage, data, data_size))) return st;
        if (!(st = io::npy_strings(data, data_size, "npz: tokens", tokens))) return st;
    }
    if (ktok) {
        if (!(st = io::member_bytes(*ktok, storage, data, data_size))) return st;
        if (!(st = io::npy_strings(data, data_size, "npz: key_tokens", key_tokens))) return st;
    }
    return {};
}

}  // namespace attnscope
