// write_ue1_fixtures <outdir>: synthetic UE1 vertex meshes for the JavaScript and browser tests.
//
// flag_d.3d / flag_a.3d (packed 11:11:10) + flag.uc + flag.pcx — a waving flag:
//   9 x 5 vertices (8 x 4 quads, 64 triangles, Type 1 = two-sided, TextureNum 0), vertex index
//   v = row * 9 + col (col 0..8, row 0..4). Raw (Unreal) units:
//     y = col * 16 - 64, z = row * 8,
//     x = 0 in frame 0, else W[(f - 1 + col) % 8] * col / 8 with W = {0, 24, 32, 24, 0, -24, -32, -24}.
//   UV bytes: U = min(col * 32, 255), V = min((4 - row) * 64, 255) (V top-down: row 4 is the top).
//   No UV seams: 45 render vertices, render vertex order = first use in the index buffer.
//   flag.uc: MESHMAP SCALE X=0.1 Y=0.1 Z=0.2, origin 0, sequences "Still" (start 0, 1 frame) and
//   "Wave" (start 1, 23 frames), both RATE=12; MESH NOTIFY SEQ=Wave TIME=0.5 FUNCTION=Flap (a notify
//   at 0.5 * 23 / 12 = 0.958333 s of Wave); SETTEXTURE NUM=0 TEXTURE=FlagTex, imported from
//   Textures\flag.pcx.  three = (-y * 0.1, z * 0.2, x * 0.1), so:
//     frame 0, vertex 0 (col 0, row 0)  -> ( 6.4, 0.0, 0.0)
//     frame 3, vertex 44 (col 8, row 4) -> (-6.4, 6.4, 3.2)   (x = W[2] * 8 / 8 = 32)
//     frame 7, vertex 44                -> (-6.4, 6.4, -3.2)  (x = W[6] = -32)
//     frame 3, vertex 22 (col 4, row 2) -> ( 0.0, 3.2, -1.6)  (x = W[6] * 4 / 8 = -16)
//   Frame-0 normals face +Z (three).
//   Two-sided material "tex0_twosided", textureNames ["flag", "FlagTex"].
//
// flag.pcx: 32 x 16, 8-bit palettised RLE. Palette: 0 = (255, 0, 255) magenta, 1 = (200, 16, 32) red,
//   2 = (255, 255, 255) white, 3 = (16, 48, 160) blue. Rows 0..7 (top) are red, rows 8..15 blue,
//   columns 0..3 white on every row, and pixel (31, 15) (bottom right) is index 0.
//
// dx_box_d.3d / dx_box_a.3d (Deus Ex 16-bit, no .uc: scale guess (1, 1, 1) with a warning):
//   a closed box of 8 corners (±3000, ±2000, ±1000 raw; beyond the packed range), 12 triangles,
//   each face UV-mapped to the whole texture, TextureNum = face % 2
//   (faces in order -X, +X, -Y, +Y, -Z, +Z), Type 0; plus a weapon triangle (Type 8) on vertices
//   8 = (3500, -200, 0), 9 = (4500, 0, 0), 10 = (3500, 200, 0). Corner i = 0..7 has
//   x = (i & 1) ? 3000 : -3000, y = (i & 2) ? 2000 : -2000, z = (i & 4) ? 1000 : -1000.
//   Frame 1 doubles z of the corners (±2000). three = (-y, z, x):
//     frame 0, vertex 7 -> (-2000, 1000, 3000); frame 1, vertex 7 -> (-2000, 2000, 3000).
//   Render vertices: 23 (20 box wedges, as corners share a (vertex, U, V) across some faces, + 3
//   weapon). Materials: tex0_normal, weapon (hidden), tex1_normal.
//   Attachment "weapon": translation (0, 0, 3500), rotation (x, y, z, w) = (0.70711, 0, 0.70711, 0).
#include <cstdio>
#include <string>
#include <vector>

#include "writers/ue1_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

static const int kWave[8] = {0, 24, 32, 24, 0, -24, -32, -24};

static bool put(const std::string& dir, const char* name, const std::vector<uint8_t>& bytes) {
  std::string path = dir + "/" + name;
  if (!writeFile(path, bytes)) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("%s (%zu bytes)\n", path.c_str(), bytes.size());
  return true;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_ue1_fixtures <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;

  // ---- flag ----
  {
    const int cols = 9, rows = 5, frames = 24;
    std::vector<Ue1WriteTriangle> tris;
    auto vid = [&](int c, int r) { return uint16_t(r * cols + c); };
    auto uv = [&](int c, int r, uint8_t out[2]) {
      out[0] = uint8_t(c * 32 > 255 ? 255 : c * 32);
      out[1] = uint8_t((4 - r) * 64 > 255 ? 255 : (4 - r) * 64);
    };
    for (int r = 0; r + 1 < rows; ++r) {
      for (int c = 0; c + 1 < cols; ++c) {
        const int corner[4][2] = {{c, r}, {c + 1, r}, {c + 1, r + 1}, {c, r + 1}};
        const int quad[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (const auto& q : quad) {
          Ue1WriteTriangle t;
          t.type = 1;
          for (int k = 0; k < 3; ++k) {
            t.v[k] = vid(corner[q[k]][0], corner[q[k]][1]);
            uv(corner[q[k]][0], corner[q[k]][1], t.uv[k]);
          }
          tris.push_back(t);
        }
      }
    }
    std::vector<int32_t> xyz;
    for (int f = 0; f < frames; ++f) {
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
          int x = f == 0 ? 0 : kWave[(f - 1 + c) % 8] * c / 8;
          xyz.push_back(x);
          xyz.push_back(c * 16 - 64);
          xyz.push_back(r * 8);
        }
      }
    }
    ok &= put(dir, "flag_d.3d", writeUe1Data(tris, uint16_t(cols * rows)));
    ok &= put(dir, "flag_a.3d", writeUe1Anim(xyz, uint16_t(cols * rows), Ue1Encoding::Packed));
    UcBuilder uc("Flag", "Decoration");
    uc.meshImport("flag", "MODELS\\flag_a.3d", "MODELS\\flag_d.3d")
        .origin("flag", 0, 0, 0)
        .sequence("flag", "Still", 0, 1, 12)
        .sequence("flag", "Wave", 1, 23, 12, "Waving")
        .notify("flag", "Wave", 0.5, "Flap")
        .textureImport("FlagTex", "Textures\\flag.pcx")
        .meshmapNew("flag", "flag")
        .scale("flag", 0.1, 0.1, 0.2)
        .setTexture("flag", 0, "FlagTex");
    std::string text = uc.str();
    ok &= put(dir, "flag.uc", std::vector<uint8_t>(text.begin(), text.end()));

    std::vector<uint8_t> pix(32 * 16);
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 32; ++x) pix[size_t(y) * 32 + size_t(x)] = x < 4 ? 2 : (y < 8 ? 1 : 3);
    pix[15 * 32 + 31] = 0;
    std::vector<uint8_t> pal(768, 0);
    const uint8_t colours[4][3] = {{255, 0, 255}, {200, 16, 32}, {255, 255, 255}, {16, 48, 160}};
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 3; ++k) pal[size_t(i) * 3 + size_t(k)] = colours[i][k];
    ok &= put(dir, "flag.pcx", writePcx8(32, 16, pix, pal));
  }

  // ---- dx_box ----
  {
    std::vector<Ue1WriteTriangle> tris;
    auto corner = [](int i, int f, int32_t out[3]) {
      out[0] = (i & 1) ? 3000 : -3000;
      out[1] = (i & 2) ? 2000 : -2000;
      out[2] = ((i & 4) ? 1000 : -1000) * (f == 1 ? 2 : 1);
    };
    // Faces: axis a, side s; corners in CCW order seen from outside in a right-handed reading of
    // the raw coordinates (as every real file is, spec §6), fixed up by the sign of the normal.
    int face = 0;
    for (int a = 0; a < 3; ++a) {
      for (int s = 0; s < 2; ++s, ++face) {
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        int ids[4];
        const int steps[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int k = 0; k < 4; ++k) ids[k] = (s << a) | (steps[k][0] << b) | (steps[k][1] << c);
        // (b, c, a) is a cyclic axis order, so this loop is CCW about +a: reverse for the - side.
        if (s == 0) std::swap(ids[1], ids[3]);
        const uint8_t uvs[4][2] = {{0, 255}, {255, 255}, {255, 0}, {0, 0}};
        const int quad[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (const auto& q : quad) {
          Ue1WriteTriangle t;
          t.textureNum = uint8_t(face % 2);
          for (int k = 0; k < 3; ++k) {
            t.v[k] = uint16_t(ids[q[k]]);
            t.uv[k][0] = uvs[q[k]][0];
            t.uv[k][1] = uvs[q[k]][1];
          }
          tris.push_back(t);
        }
      }
    }
    Ue1WriteTriangle w;
    w.type = 8;
    w.v[0] = 8, w.v[1] = 9, w.v[2] = 10;
    tris.push_back(w);
    std::vector<int32_t> xyz;
    const int32_t weapon[3][3] = {{3500, -200, 0}, {4500, 0, 0}, {3500, 200, 0}};
    for (int f = 0; f < 2; ++f) {
      for (int i = 0; i < 8; ++i) {
        int32_t p[3];
        corner(i, f, p);
        xyz.insert(xyz.end(), p, p + 3);
      }
      for (const auto& p : weapon) xyz.insert(xyz.end(), p, p + 3);
    }
    ok &= put(dir, "dx_box_d.3d", writeUe1Data(tris, 11));
    ok &= put(dir, "dx_box_a.3d", writeUe1Anim(xyz, 11, Ue1Encoding::Dx16));
  }
  return ok ? 0 : 1;
}
