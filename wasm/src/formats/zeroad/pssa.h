// 0 A.D. animation (.psa, magic PSSA). Spec: shared/specs/zeroad-pmd-psa.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

Status decodePssa(const uint8_t* data, size_t size, const std::string& file, Model& out);

}  // namespace rs
