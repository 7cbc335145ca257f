// ActorX container: a flat run of chunks, each `char id[20]; u32 typeFlag; i32 dataSize; i32 dataCount;`
// followed by dataSize * dataCount bytes. Shared by the PSK and PSA decoders (spec §1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "io/bytes.h"

namespace rs {
namespace actorx {

constexpr size_t kHeaderSize = 32;

struct ChunkHeader {
  char id[21];        // up to the first NUL; non-printable bytes replaced by '?' (ids reach messages)
  uint32_t typeFlag;  // version stamp, never needed for parsing
  int32_t dataSize;   // bytes per record
  int32_t dataCount;  // records
};

inline ChunkHeader loadChunkHeader(const uint8_t* p) {
  ChunkHeader h;
  size_t n = 0;
  while (n < 20 && p[n] != 0) {
    h.id[n] = (p[n] >= 0x20 && p[n] < 0x7F) ? char(p[n]) : '?';
    ++n;
  }
  h.id[n] = 0;
  h.typeFlag = load_u32le(p + 20);
  h.dataSize = load_i32le(p + 24);
  h.dataCount = load_i32le(p + 28);
  return h;
}

inline bool idIs(const ChunkHeader& h, const char* id) { return std::strcmp(h.id, id) == 0; }
inline bool idStarts(const ChunkHeader& h, const char* prefix) {
  return std::strncmp(h.id, prefix, std::strlen(prefix)) == 0;
}

// A validated record block inside the input: `count` records of `stride` bytes at `p`.
struct Span {
  const uint8_t* p = nullptr;
  uint32_t stride = 0;
  uint32_t count = 0;
  size_t offset = 0;  // of the chunk header, for messages
  bool present = false;
};

// Records the block of the chunk at `pos` in `slot`. Returns false, leaving the slot alone, when
// it already holds an earlier chunk: repeated single chunks keep the first (the caller warns).
inline bool keepSpan(Span& slot, const uint8_t* data, const ChunkHeader& h, size_t pos) {
  if (slot.present) return false;
  slot.p = data + pos + kHeaderSize;
  slot.stride = uint32_t(h.dataSize);
  slot.count = uint32_t(h.dataCount);
  slot.offset = pos;
  slot.present = true;
  return true;
}

}  // namespace actorx
}  // namespace rs
