// A fingerprint of everything a decoder returns: every output array byte for byte, every name,
// count, flag, info line and warning, or the error message. Pins the decoders' output while their
// code is restructured (digest_test.cpp): one FNV-1a 64 per part of the Model, so a mismatch says
// which part changed.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "formats/ue1/ue1.h"
#include "io/error.h"
#include "model/model.h"

namespace rs {
namespace test {

class Fnv {
 public:
  void bytes(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) h_ = (h_ ^ p[i]) * 0x100000001B3ull;
  }
  template <typename T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    bytes(&v, sizeof v);
  }
  void u64(uint64_t v) { pod(v); }
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    u64(v.size());
    if (!v.empty()) bytes(v.data(), v.size() * sizeof(T));
  }
  void strings(const std::vector<std::string>& v) {
    u64(v.size());
    for (const std::string& s : v) str(s);
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xCBF29CE484222325ull;
};

struct Digest {
  std::vector<std::pair<std::string, uint64_t>> parts;  // name -> hash, in a fixed order
  uint64_t total() const {
    Fnv f;
    for (const auto& p : parts) {
      f.str(p.first);
      f.u64(p.second);
    }
    return f.value();
  }
  // "0123456789abcdef meta=01234567 meshes=..." (parts folded to 32 bits to keep lines short).
  std::string line() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(total()));
    std::string s = buf;
    for (const auto& p : parts) {
      std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(p.second ^ (p.second >> 32)));
      s += " " + p.first + "=" + buf;
    }
    return s;
  }
};

inline void hashNotifies(Fnv& f, const std::vector<Notify>& notifies) {
  f.u64(notifies.size());
  for (const Notify& n : notifies) {
    f.pod(n.time);
    f.str(n.name);
  }
}

inline Digest digestOf(const Status& status, const Model& m, const Ue1Details* details = nullptr) {
  Digest d;
  if (!status.ok()) {
    Fnv f;
    f.str(status.error);
    d.parts.emplace_back("error", f.value());
  }
  {
    Fnv f;
    f.str(m.format);
    f.str(m.name);
    f.str(m.bindBy);
    f.strings(m.warnings);
    f.u64(m.counts.size());
    for (const auto& c : m.counts) {
      f.str(c.first);
      f.pod(c.second);
    }
    f.u64(m.info.size());
    for (const auto& c : m.info) {
      f.str(c.first);
      f.str(c.second);
    }
    f.pod(m.hasSkeleton);
    f.pod(m.hasVertexAnimation);
    d.parts.emplace_back("meta", f.value());
  }
  {
    Fnv f;
    f.u64(m.meshes.size());
    for (const Mesh& mesh : m.meshes) {
      f.str(mesh.name);
      f.vec(mesh.positions);
      f.vec(mesh.normals);
      f.u64(mesh.uvs.size());
      for (const auto& uv : mesh.uvs) f.vec(uv);
      f.vec(mesh.colors);
      f.vec(mesh.indices);
      f.u64(mesh.groups.size());
      for (const Group& g : mesh.groups) {
        f.pod(g.start);
        f.pod(g.count);
        f.pod(g.material);
      }
      f.vec(mesh.skinIndex);
      f.vec(mesh.skinWeight);
      f.u64(mesh.morphs.size());
      for (const Morph& morph : mesh.morphs) {
        f.str(morph.name);
        f.vec(morph.positions);
        f.vec(morph.normals);
      }
    }
    d.parts.emplace_back("meshes", f.value());
  }
  {
    Fnv f;
    f.u64(m.materials.size());
    for (const Material& mat : m.materials) {
      f.str(mat.name);
      f.strings(mat.textureNames);
      f.pod(mat.twoSided);
      f.pod(mat.blend);
      f.pod(mat.unlit);
      f.pod(mat.hidden);
      f.pod(mat.environment);
      f.pod(mat.flat);
      f.str(mat.guid);
    }
    d.parts.emplace_back("materials", f.value());
  }
  {
    Fnv f;
    const Skeleton& s = m.skeleton;
    f.strings(s.names);
    f.vec(s.parents);
    f.vec(s.restTranslation);
    f.vec(s.restRotation);
    f.vec(s.restScale);
    f.pod(s.flat);
    f.pod(s.helper);
    d.parts.emplace_back("skeleton", f.value());
  }
  {
    Fnv f;
    f.u64(m.clips.size());
    for (const Clip& c : m.clips) {
      f.str(c.name);
      f.pod(c.fps);
      f.pod(c.frameCount);
      f.pod(c.duration);
      f.pod(c.loop);
      f.u64(c.tracks.size());
      for (const Track& t : c.tracks) {
        f.pod(t.bone);
        f.vec(t.times);
        f.vec(t.translation);
        f.vec(t.rotation);
        f.vec(t.scale);
      }
      hashNotifies(f, c.notifies);
    }
    d.parts.emplace_back("clips", f.value());
  }
  {
    Fnv f;
    const VertexAnimation& v = m.vertexAnimation;
    f.pod(v.frameCount);
    f.pod(v.vertexCount);
    f.vec(v.frames);
    f.vec(v.normals);
    f.u64(v.sequences.size());
    for (const VertexSequence& s : v.sequences) {
      f.str(s.name);
      f.str(s.group);
      f.pod(s.startFrame);
      f.pod(s.frameCount);
      f.pod(s.rate);
      hashNotifies(f, s.notifies);
    }
    d.parts.emplace_back("vertexAnimation", f.value());
  }
  {
    Fnv f;
    f.u64(m.attachments.size());
    for (const Attachment& a : m.attachments) {
      f.str(a.name);
      f.pod(a.bone);
      f.pod(a.translation);
      f.pod(a.rotation);
    }
    d.parts.emplace_back("attachments", f.value());
  }
  {
    Fnv f;
    f.u64(m.textures.size());
    for (const Texture& t : m.textures) {
      f.str(t.name);
      f.str(t.guid);
      f.pod(t.width);
      f.pod(t.height);
      f.str(t.format);
      f.pod(t.cube);
      f.u64(t.mips.size());
      for (const auto& mip : t.mips) f.vec(mip);
    }
    d.parts.emplace_back("textures", f.value());
  }
  if (details) {
    Fnv f;
    f.vec(details->renderToVertex);
    f.pod(details->dx16);
    f.pod(details->frameBytesSkipped);
    d.parts.emplace_back("ue1Details", f.value());
  }
  return d;
}

// The .uc parser's whole result (fuzz_uc inputs and sample scripts).
inline Digest digestOf(const UcScript& s) {
  Fnv f;
  f.u64(s.meshes.size());
  for (const UcMesh& m : s.meshes) {
    f.str(m.name);
    f.str(m.dataFile);
    f.str(m.animFile);
    f.pod(m.imported);
    f.pod(m.unmirror);
    f.pod(m.unmirrorTex);
    f.pod(m.zeroTex);
    f.pod(m.origin);
    f.pod(m.rotation);
    f.pod(m.hasScale);
    f.pod(m.scale);
    f.u64(m.sequences.size());
    for (const UcSequence& q : m.sequences) {
      f.str(q.name);
      f.str(q.group);
      f.pod(q.startFrame);
      f.pod(q.numFrames);
      f.pod(q.rate);
      f.u64(q.notifies.size());
      for (const UcNotify& n : q.notifies) {
        f.pod(n.time);
        f.str(n.function);
      }
    }
    f.u64(m.textures.size());
    for (const auto& t : m.textures) {
      f.pod(t.first);
      f.str(t.second);
    }
  }
  f.u64(s.textureImports.size());
  for (const UcTextureImport& t : s.textureImports) {
    f.str(t.name);
    f.str(t.file);
    f.pod(t.flags);
  }
  f.str(s.skin);
  f.u64(s.multiSkins.size());
  for (const auto& t : s.multiSkins) {
    f.pod(t.first);
    f.str(t.second);
  }
  f.strings(s.warnings);
  f.u64(s.execLines);
  Digest d;
  d.parts.emplace_back("uc", f.value());
  return d;
}

}  // namespace test
}  // namespace rs
