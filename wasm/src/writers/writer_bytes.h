// Little helpers for the fixture writers: append values to a byte vector.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rs {

struct ByteWriter {
  std::vector<uint8_t> bytes;
  bool bigEndian = false;

  void u8(uint8_t v) { bytes.push_back(v); }
  void u16(uint16_t v) {
    if (bigEndian) {
      u8(uint8_t(v >> 8));
      u8(uint8_t(v));
    } else {
      u8(uint8_t(v));
      u8(uint8_t(v >> 8));
    }
  }
  void u32(uint32_t v) {
    if (bigEndian) {
      u16(uint16_t(v >> 16));
      u16(uint16_t(v));
    } else {
      u16(uint16_t(v));
      u16(uint16_t(v >> 16));
    }
  }
  void i32(int32_t v) { u32(uint32_t(v)); }
  void f32(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u32(u);
  }
  void u64(uint64_t v) {
    if (bigEndian) {
      u32(uint32_t(v >> 32));
      u32(uint32_t(v));
    } else {
      u32(uint32_t(v));
      u32(uint32_t(v >> 32));
    }
  }
  // Fixed-width, NUL-padded text field.
  void fixed(const std::string& s, size_t width) {
    for (size_t i = 0; i < width; ++i) u8(i < s.size() ? uint8_t(s[i]) : 0);
  }
  void raw(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  void pad(size_t n, uint8_t v = 0) { bytes.insert(bytes.end(), n, v); }
  size_t size() const { return bytes.size(); }
};

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace rs
