// 0 A.D. model (.pmd, magic PSMD, versions 1-4). Spec: shared/specs/zeroad-pmd-psa.md.
//
// Output: one mesh in three.js space (z mirrored, spec §5), v1/v2 bone-relative vertices
// pre-skinned with the rest pose as the engine does at load, a flat skeleton (bone_<i>, parent -1,
// rest = absolute model-space state) plus a last identity bone "bind shape" when any vertex uses
// the bind-shape index (== bone count), and the prop points as attachments (bone -1 = model root).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

Status decodePmd(const uint8_t* data, size_t size, const std::string& file, Model& out);

// The engine binds an animation to a model by bone count alone and refuses a mismatch.
// Returns "" when `pssa` (from decodePssa) can play on `pmd` (from decodePmd), else e.g.
// "animation rich-man_idle.psa has 29 bones, model rich-man.pmd has 25".
std::string zeroadPairingError(const Model& pmd, const Model& pssa);

}  // namespace rs
