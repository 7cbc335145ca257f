// UE Viewer's `.config` sidecar for a .psa (spec §3 "Sidecars"): an INI dialect with key-only lines.
//   [AnimSet]                       bAnimRotationOnly=1
//   [UseTranslationBoneNames]       one bone name per line (keeps animated translation anyway)
//   [ForceMeshTranslationBoneNames] one bone name per line (always bind-pose translation)
//   [RemoveTracks]                  <SeqName>.<boneIndex>=trans|rot|all
// Unknown sections and lines are ignored (and counted).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rs {

struct PsaConfig {
  struct Removal {
    std::string sequence;
    int32_t bone = 0;
    bool translation = false;
    bool rotation = false;
  };
  bool rotationOnly = false;
  std::vector<std::string> useTranslation;
  std::vector<std::string> forceMeshTranslation;
  std::vector<Removal> removeTracks;
  size_t ignoredLines = 0;
};

PsaConfig parsePsaConfig(const std::string& text);

// Bone and sequence names compare case-insensitively with trailing spaces trimmed (spec §8).
bool sameActorXName(const std::string& a, const std::string& b);
// The same comparison as a key: equal keys <=> sameActorXName (for hash lookups).
std::string actorXNameKey(const std::string& name);

}  // namespace rs
