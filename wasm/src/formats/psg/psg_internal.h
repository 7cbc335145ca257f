// Shared between the PSG object decoders (model, texture) and the entry point in psg.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/psg/psg_arena.h"
#include "model/model.h"

namespace rs {
namespace psg {

// A TableOfContents entry (spec §7.2), its reference already resolved to a row.
struct TocEntry {
  uint32_t row = 0;
  uint64_t guid = 0;
  uint32_t type = 0;
  std::string name;
};

struct Context {
  const Arena& arena;
  Model& out;
  std::vector<TocEntry> toc;
  std::unordered_map<uint32_t, size_t> tocOfRow;  // row -> its first entry in toc
  // Materials already emitted: (RenderMaterialData row, tRMaterial index) -> Model.materials index.
  std::unordered_map<uint64_t, uint32_t> materialOfKey;
  uint64_t vertices = 0, triangles = 0, indices = 0, islands = 0;
  // Bytes of objects and buffers decoded so far. Rows may share an object, so without this count a
  // small arena naming one big buffer from thousands of mesh-table entries or Texture rows would
  // decode it thousands of times.
  uint64_t decodedBytes = 0;
  Context(const Arena& a, Model& m) : arena(a), out(m) {}
  const TocEntry* tocFor(uint32_t row) const {
    const auto at = tocOfRow.find(row);
    return at == tocOfRow.end() ? nullptr : &toc[at->second];
  }
  // Counts `bytes` more as decoded (for `what`, at file offset `at`); fails past 4 times the file.
  Status spend(uint64_t bytes, uint64_t at, const char* what) {
    decodedBytes += bytes;
    const uint64_t limit = 4 * uint64_t(arena.size) + (1u << 20);
    if (decodedBytes <= limit) return Status();
    return fail("PSG", arena.file, size_t(at),
                "%s brings the bytes decoded from this arena to %llu, more than 4 times its %zu bytes (+1 MB): "
                "its rows share the same objects too often",
                what, (unsigned long long)decodedBytes, arena.size);
  }
};

Status readToc(Context& ctx, uint32_t row);
Status decodeModelData(Context& ctx, uint32_t row);
Status decodeTexture(Context& ctx, uint32_t row);

// Parents from the Skate 3 skater rig table (spec §7.4); returns how many names were found.
size_t skaterParents(const std::vector<std::string>& names, std::vector<int32_t>& parents,
                     std::vector<std::string>& unmatched);

}  // namespace psg
}  // namespace rs
