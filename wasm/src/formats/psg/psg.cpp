// Skate 3 (PS3) RenderWare 4 arena decoder: entry point. The arena layer (psg_arena.cpp) validates
// header, sections and dictionary; then every RenderModelData row is decoded with its meshes
// (psg_model.cpp) and every Texture row with its payload (psg_texture.cpp).
#include "formats/psg/psg.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "formats/psg/psg_internal.h"

namespace rs {

Status decodePsg(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  psg::Arena arena;
  Status s = arena.parse(data, size, file);
  if (!s.ok()) return s;
  out.format = "psg";
  out.bindBy = "guid";
  psg::Context ctx(arena, out);

  // Object list by type, in order of first appearance.
  std::vector<std::pair<uint32_t, uint32_t>> byType;
  std::unordered_map<uint32_t, size_t> typeAt;  // a hostile arena may hold thousands of types
  for (const psg::Row& r : arena.rows) {
    const uint32_t key = psg::isBaseResource(r.typeId) ? psg::kBaseResourceFirst : r.typeId;
    const auto at = typeAt.emplace(key, byType.size());
    if (at.second) byType.emplace_back(key, 0);
    ++byType[at.first->second].second;
  }
  std::string objects;
  for (const auto& t : byType) {
    const char* name = psg::typeName(t.first);
    if (!objects.empty()) objects += ", ";
    objects += name ? format("%s\xC3\x97%u", name, t.second) : format("0x%08X\xC3\x97%u", t.first, t.second);
  }
  out.info.emplace_back("objects", objects);

  for (uint32_t i = 0; i < arena.rows.size(); ++i)
    if (arena.rows[i].typeId == psg::kTableOfContents && !(s = psg::readToc(ctx, i)).ok()) return s;
  uint32_t models = 0, textureObjects = 0;
  for (uint32_t i = 0; i < arena.rows.size(); ++i) {
    if (arena.rows[i].typeId == psg::kRenderModelData) {
      ++models;
      if (!(s = psg::decodeModelData(ctx, i)).ok()) return s;
    }
  }
  for (uint32_t i = 0; i < arena.rows.size(); ++i) {
    if (arena.rows[i].typeId == psg::kTexture) {
      ++textureObjects;
      if (!(s = psg::decodeTexture(ctx, i)).ok()) return s;
    }
  }
  if (models == 0 && textureObjects == 0)
    return fail("PSG", file, arena.dictStart, "arena holds no RenderModelData and no Texture objects (%zu objects: %s)",
                arena.rows.size(), objects.c_str());
  if (out.name.empty()) {  // texture arenas: the file name without folder and extension
    out.name = file.substr(file.find_last_of("/\\") + 1);
    if (out.name.find('.') != std::string::npos) out.name.erase(out.name.find_last_of('.'));
  }

  // restScale is optional in the contract: keep it only when some bone is scaled or mirrored.
  bool scaled = false;
  for (float v : out.skeleton.restScale) scaled |= std::fabs(v - 1.0f) > 1e-4f;
  if (!scaled) out.skeleton.restScale.clear();

  out.count("objects", double(arena.rows.size()));
  out.count("subreferences", double(arena.subrefs.size()));
  out.count("bones", double(out.skeleton.names.size()));
  out.count("meshes", double(out.meshes.size()));
  out.count("vertices", double(ctx.vertices));
  out.count("triangles", double(ctx.triangles));
  out.count("indices", double(ctx.indices));
  out.count("islands", double(ctx.islands));
  out.count("materials", double(out.materials.size()));
  out.count("textures", double(out.textures.size()));
  return Status();
}

}  // namespace rs
