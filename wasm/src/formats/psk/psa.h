// Unreal ActorX animation (.psa) and UE Viewer's .config sidecar. Spec: shared/specs/psk-psa.md.
// The result is a Model with `skeleton.names` = BONENAMES (no pose) and one clip per sequence
// whose tracks index BONENAMES; the front end matches names to a mesh's bones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

// `config` is the text of the .config sidecar, or empty.
Status decodePsa(const uint8_t* data, size_t size, const std::string& file, const std::string& config, Model& out);

}  // namespace rs
