// Bounds-checked sequential reader. Decoders check a whole record block once with `has(n)` and
// then load records with the unchecked helpers in bytes.h, so the hot loops stay branch-free.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/bytes.h"

namespace rs {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t offset() const { return pos_; }
  size_t size() const { return size_; }
  size_t remaining() const { return size_ - pos_; }
  const uint8_t* here() const { return data_ + pos_; }
  const uint8_t* data() const { return data_; }

  // True when `count` records of `stride` bytes fit in what remains, computed without overflow.
  bool has(uint64_t count, uint64_t stride = 1) const {
    if (stride != 0 && count > uint64_t(remaining()) / stride) return false;
    return count * stride <= remaining();
  }
  bool skip(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  bool seek(size_t at) {
    if (at > size_) return false;
    pos_ = at;
    return true;
  }

  bool u8(uint8_t& v) { return take(1) ? (v = data_[pos_ - 1], true) : false; }
  bool u16le(uint16_t& v) { return take(2) ? (v = load_u16le(data_ + pos_ - 2), true) : false; }
  bool u32le(uint32_t& v) { return take(4) ? (v = load_u32le(data_ + pos_ - 4), true) : false; }
  bool i32le(int32_t& v) { return take(4) ? (v = load_i32le(data_ + pos_ - 4), true) : false; }
  bool f32le(float& v) { return take(4) ? (v = load_f32le(data_ + pos_ - 4), true) : false; }
  bool u16be(uint16_t& v) { return take(2) ? (v = load_u16be(data_ + pos_ - 2), true) : false; }
  bool u32be(uint32_t& v) { return take(4) ? (v = load_u32be(data_ + pos_ - 4), true) : false; }
  bool f32be(float& v) { return take(4) ? (v = load_f32be(data_ + pos_ - 4), true) : false; }
  bool bytes(size_t n, std::string& out) {
    if (!take(n)) return false;
    out.assign(reinterpret_cast<const char*>(data_ + pos_ - n), n);
    return true;
  }

 private:
  bool take(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A fixed-width name field: up to the first NUL, trailing spaces trimmed, bytes kept as they are
// (cp1252 in old files). Names are untrusted text; the front end renders them as text only.
std::string fixedName(const uint8_t* p, size_t width);

}  // namespace rs
