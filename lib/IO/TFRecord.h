//===- TFRecord.h - TFRecord framing and CRC32C ------------------*- C++ -*-===//
//
// A TFRecord file is a sequence of records, each
//   uint64 length, uint32 masked CRC32C of the length, data,
//   uint32 masked CRC32C of the data
// all little-endian. TensorBoard event files are TFRecords of Event protos.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_IO_TFRECORD_H
#define EMBER_LIB_IO_TFRECORD_H

#include <cstdint>
#include <string>
#include <string_view>

namespace ember::detail {

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `data`,
/// continuing from `crc` (the CRC of the bytes before, 0 at the start).
uint32_t crc32c(std::string_view data, uint32_t crc = 0);

/// TFRecord's mask, so that a CRC stored in data does not look like the CRC
/// of that data: rotate right by 15, add 0xa282ead8.
constexpr uint32_t maskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
constexpr uint32_t unmaskCrc(uint32_t masked) {
  uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

/// Appends `data` framed as one TFRecord to `out`.
void appendTFRecord(std::string &out, std::string_view data);

} // namespace ember::detail

#endif // EMBER_LIB_IO_TFRECORD_H
