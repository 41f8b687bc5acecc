//===- TFRecord.cpp - TFRecord framing and CRC32C ------------------------===//

#include "TFRecord.h"

#include <array>
#include <bit>

namespace ember::detail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "TFRecord framing copies little-endian integers verbatim");

// Slicing-by-8: table[k][b] is the CRC of byte b followed by k zero bytes, so
// eight bytes are folded in with eight lookups instead of eight dependent ones.
constexpr std::array<std::array<uint32_t, 256>, 8> makeTables() {
  std::array<std::array<uint32_t, 256>, 8> tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0u);
    tables[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k)
    for (uint32_t b = 0; b < 256; ++b)
      tables[k][b] = (tables[k - 1][b] >> 8) ^ tables[0][tables[k - 1][b] & 0xff];
  return tables;
}

constexpr auto kTables = makeTables();

uint32_t load32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void appendLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
}

} // namespace

uint32_t crc32c(std::string_view data, uint32_t crc) {
  const auto *p = reinterpret_cast<const unsigned char *>(data.data());
  size_t n = data.size();
  crc = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint32_t lo = load32(p) ^ crc, hi = load32(p + 4);
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
          kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
          kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; ++p, --n)
    crc = (crc >> 8) ^ kTables[0][(crc ^ *p) & 0xff];
  return ~crc;
}

void appendTFRecord(std::string &out, std::string_view data) {
  std::string length;
  appendLE(length, data.size(), 8);
  out += length;
  appendLE(out, maskCrc(crc32c(length)), 4);
  out += data;
  appendLE(out, maskCrc(crc32c(data)), 4);
}

} // namespace ember::detail
