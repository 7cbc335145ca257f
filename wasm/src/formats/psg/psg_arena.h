// RenderWare 4.5.4 arena layer (spec §2–§5): header, sections, dictionary, subreferences and
// base-resource addressing. Only big-endian PS3 arenas are accepted; everything the object
// parsers need (rows, resolved references) is validated here once, so they can index freely
// inside a row's bytes after one bounds check per field block.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/bytes.h"
#include "io/error.h"

namespace rs {
namespace psg {

// Dictionary type ids (spec §6, §7).
enum : uint32_t {
  kVersionData = 0x00EB0008,
  kRenderModelData = 0x00EB0001,
  kRenderMaterialData = 0x00EB0005,
  kRenderOptiMeshData = 0x00EB0023,
  kTableOfContents = 0x00EB000B,
  kInstanceData = 0x00EB000D,
  kBlendShapeData = 0x00EB000E,
  kTexture = 0x000200E8,
  kVertexDescriptor = 0x000200E9,
  kVertexBuffer = 0x000200EA,
  kIndexBuffer = 0x000200EB,
  kMeshHelper = 0x00020081,
  kBaseResourceFirst = 0x00010030,
  kBaseResourceLast = 0x0001003F,
};

constexpr uint32_t kTocTextureType = 0xAC462E4A;  // FNV-1/32 of "Texture"
constexpr size_t kPs3HeaderSize = 0xC0;
constexpr int kPs3Blocks = 6;  // resource descriptors on PS3

inline bool isBaseResource(uint32_t typeId) { return typeId >= kBaseResourceFirst && typeId <= kBaseResourceLast; }

// Readable name of a dictionary type ("RenderModelData"), nullptr when unknown.
const char* typeName(uint32_t typeId);

// One dictionary row, already resolved to a file range.
struct Row {
  uint64_t offset = 0;  // absolute file offset of the object's first byte
  uint32_t size = 0;
  uint32_t align = 0;
  uint32_t typeId = 0;
  uint32_t typeIndex = 0;
  size_t rowOffset = 0;  // file offset of the 24-byte dictionary row (for messages)
};

struct Subref {
  uint32_t object = 0;      // dictionary index
  uint32_t byteOffset = 0;  // inside that object
};

// A resolved arena reference (spec §5.3): a dictionary row, optionally with a byte offset inside it.
struct Ref {
  bool null = true;
  uint32_t row = 0;
  uint32_t inner = 0;  // byte offset inside the row's object (subreferences)
};

struct Arena {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string file;

  uint32_t id = 0;
  uint64_t blockSize[kPs3Blocks] = {};
  uint64_t blockBase[kPs3Blocks] = {};
  size_t dictStart = 0;
  std::vector<uint32_t> types;
  std::vector<Row> rows;
  std::vector<Subref> subrefs;
  size_t subrefRecords = 0;  // file offset of the subreference records

  Status parse(const uint8_t* bytes, size_t length, const std::string& fileName);

  // Resolves the reference `value` read from file offset `at` (field name `field`).
  Status resolve(uint32_t value, size_t at, const char* field, Ref& out) const;
  // As resolve, and requires the target row to have type `typeId` (null allowed when
  // `optional`; a plain 0 pointing at a row of another type counts as null, spec §5.3).
  Status expect(uint32_t value, size_t at, const char* field, uint32_t typeId, bool optional, Ref& out) const;
  // Same, for any base-resource type 0x10030..0x1003F.
  Status expectResource(uint32_t value, size_t at, const char* field, Ref& out) const;

  const uint8_t* bytes(const Row& r) const { return data + r.offset; }

 private:
  // The steps of parse, in file order (spec §5): header, resource blocks, section manifest, types,
  // subreferences, dictionary.
  Status readHeader();
  Status readBlocks(uint32_t& numEntries);
  Status readSections(uint64_t secOff[4]);
  Status readTypes(uint64_t at);
  Status readSubrefs(uint64_t at);
  Status readDictionary(uint32_t numEntries);
  Status readRow(uint32_t i);
  uint64_t mainEnd() const { return blockSize[0]; }
};

// Bounded view of one object. Offsets are object-relative; `has` checks a field block once.
struct Object {
  const uint8_t* p = nullptr;
  uint32_t size = 0;
  uint64_t offset = 0;  // absolute, for messages
  uint32_t row = 0;

  bool has(uint64_t at, uint64_t bytes) const { return at <= size && bytes <= size - at; }
  uint32_t u32(uint32_t at) const { return load_u32be(p + at); }
  uint16_t u16(uint32_t at) const { return load_u16be(p + at); }
  float f32(uint32_t at) const { return load_f32be(p + at); }
  uint64_t u64(uint32_t at) const { return load_u64be(p + at); }
  // NUL-terminated string at an object-relative offset, bounded by the object's end.
  std::string cstr(uint32_t at) const;
};

inline Object object(const Arena& a, uint32_t row) {
  const Row& r = a.rows[row];
  Object o;
  o.p = a.data + r.offset;
  o.size = r.size;
  o.offset = r.offset;
  o.row = row;
  return o;
}

// 16 lowercase hex digits: the GUID text shared by Material.guid and Texture.guid.
std::string guidHex(uint64_t guid);

}  // namespace psg
}  // namespace rs
