// Shared between the PSG object decoders (model, texture) and the entry point in psg.cpp.
#pragma once
#include <cstdint>
#include <string>
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
  // Materials already emitted: (RenderMaterialData row, tRMaterial index) -> Model.materials index.
  std::vector<uint64_t> materialKeys;
  uint64_t vertices = 0, triangles = 0, indices = 0, islands = 0;
  Context(const Arena& a, Model& m) : arena(a), out(m) {}
  const TocEntry* tocFor(uint32_t row) const {
    for (const TocEntry& e : toc)
      if (e.row == row) return &e;
    return nullptr;
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
