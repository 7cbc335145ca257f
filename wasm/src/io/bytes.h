// Unaligned little- and big-endian loads. Formats here put floats at odd offsets (PMD faces are
// 6 bytes each), so every load goes through memcpy, never a pointer cast.
#pragma once
#include <cstdint>
#include <cstring>

namespace rs {

inline uint16_t load_u16le(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t load_u32le(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
inline int32_t load_i32le(const uint8_t* p) { return int32_t(load_u32le(p)); }
inline float load_f32le(const uint8_t* p) {
  uint32_t u = load_u32le(p);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t load_u16be(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }
inline uint32_t load_u32be(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}
inline uint64_t load_u64be(const uint8_t* p) { return (uint64_t(load_u32be(p)) << 32) | load_u32be(p + 4); }
inline float load_f32be(const uint8_t* p) {
  uint32_t u = load_u32be(p);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace rs
