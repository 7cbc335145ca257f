// Writers for UE1 vertex meshes (_d.3d, _a.3d in both encodings), PCX images and .uc scripts:
// test fixtures, fuzz seeds and the demo. Spec: shared/specs/unreal-vertex-3d.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rs {

struct Ue1WriteTriangle {
  uint16_t v[3] = {0, 0, 0};
  uint8_t type = 0;  // low nibble render type, 0x10 unlit, 0x20 flat, 0x40 environment
  uint8_t color = 0;
  uint8_t uv[3][2] = {{0, 0}, {0, 0}, {0, 0}};  // (U, V) bytes per corner, V top-down
  uint8_t textureNum = 0;
  uint8_t flags = 0;
};

// 48-byte header (NumPolys, NumVertices, zeros or `junk` in the bogus fields) + 16-byte triangles.
std::vector<uint8_t> writeUe1Data(const std::vector<Ue1WriteTriangle>& triangles, uint16_t numVertices,
                                  bool junkHeader = false);

enum class Ue1Encoding { Packed, Dx16 };

// `xyz`: frame-major raw integer positions, 3 per vertex. Packed values are clamped to the
// 11:11:10 ranges (±1023, ±1023, −512..511); DX16 to int16. `padBytes` are appended to each frame
// (FrameSize includes them).
std::vector<uint8_t> writeUe1Anim(const std::vector<int32_t>& xyz, uint16_t numVertices, Ue1Encoding encoding,
                                  uint16_t padBytes = 0);

uint32_t packUe1Vertex(int32_t x, int32_t y, int32_t z);

// 8-bit palettised, RLE, version 5, palette (768 bytes RGB) after 0x0C. `indices`: top row first.
std::vector<uint8_t> writePcx8(uint16_t width, uint16_t height, const std::vector<uint8_t>& indices,
                               const std::vector<uint8_t>& palette);
// 24-bit, 3 planes, RLE. `rgb`: top row first, 3 bytes per pixel.
std::vector<uint8_t> writePcx24(uint16_t width, uint16_t height, const std::vector<uint8_t>& rgb);

// Builds the text of a .uc class with #exec lines, in the order they are added.
class UcBuilder {
 public:
  explicit UcBuilder(const std::string& className = "Thing", const std::string& parent = "Decoration");
  UcBuilder& meshImport(const std::string& mesh, const std::string& animFile, const std::string& dataFile,
                        bool unmirror = false);
  UcBuilder& origin(const std::string& mesh, double x, double y, double z, double pitch = 0, double yaw = 0,
                    double roll = 0);
  UcBuilder& sequence(const std::string& mesh, const std::string& seq, double start, double count,
                      double rate = 0 /* 0 = omit RATE= */, const std::string& group = "");
  UcBuilder& notify(const std::string& mesh, const std::string& seq, double time, const std::string& function);
  UcBuilder& meshmapNew(const std::string& meshmap, const std::string& mesh);
  UcBuilder& scale(const std::string& meshmap, double x, double y, double z);
  UcBuilder& textureImport(const std::string& name, const std::string& file, int flags = -1);
  UcBuilder& setTexture(const std::string& meshmap, int num, const std::string& texture);
  UcBuilder& line(const std::string& raw);  // anything else, verbatim
  UcBuilder& skin(const std::string& texture);
  UcBuilder& multiSkin(int slot, const std::string& texture);
  std::string str() const;

 private:
  std::string head_, body_, defaults_;
};

}  // namespace rs
