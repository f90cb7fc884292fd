#include "engine/normal_source.hpp"

#include "engine/error.hpp"
#include "kernels/draw_layout.hpp"

namespace pfmc::engine {

namespace {

curandRngType_t curand_type(config::RngType type) {
  switch (type) {
  case config::RngType::philox:
    return CURAND_RNG_PSEUDO_PHILOX4_32_10;
  case config::RngType::mrg32k3a:
    return CURAND_RNG_PSEUDO_MRG32K3A;
  case config::RngType::sobol:
    return CURAND_RNG_QUASI_SOBOL32;
  case config::RngType::scrambled_sobol:
    return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
  }
  return CURAND_RNG_PSEUDO_PHILOX4_32_10;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

curandStatus_t generate_normal(curandGenerator_t g, float* out, std::size_t n) {
  return curandGenerateNormal(g, out, n, 0.0f, 1.0f);
}
curandStatus_t generate_normal(curandGenerator_t g, double* out, std::size_t n) {
  return curandGenerateNormalDouble(g, out, n, 0.0, 1.0);
}

} // namespace

NormalSource::NormalSource(config::RngType type, std::uint64_t seed, Memory memory, int rows)
    : type_(type), rows_(rows),
      quasi_(type == config::RngType::sobol || type == config::RngType::scrambled_sobol) {
  PFMC_EXPECTS(rows > 0, "a normal source needs at least one row");
  PFMC_EXPECTS(!quasi_ || rows <= kMaxSobolDimensions,
               "Sobol supports at most 20000 dimensions (steps x factors)");
  if (memory == Memory::device) {
    PFMC_CURAND_TRY(curandCreateGenerator(&generator_, curand_type(type)));
  } else {
    PFMC_CURAND_TRY(curandCreateGeneratorHost(&generator_, curand_type(type)));
  }
  if (quasi_) {
    PFMC_CURAND_TRY(
        curandSetQuasiRandomGeneratorDimensions(generator_, static_cast<unsigned int>(rows)));
  } else {
    PFMC_CURAND_TRY(curandSetPseudoRandomGeneratorSeed(generator_, seed));
  }
}

NormalSource::~NormalSource() {
  if (generator_ != nullptr)
    (void)curandDestroyGenerator(generator_);
}

void NormalSource::set_stream(cudaStream_t stream) {
  PFMC_CURAND_TRY(curandSetStream(generator_, stream));
}

std::uint64_t NormalSource::group_seed(std::uint64_t seed, const std::string& model_name) {
  std::uint64_t hash = 0xcbf29ce484222325ULL; // FNV-1a
  for (unsigned char c : model_name)
    hash = (hash ^ c) * 0x100000001b3ULL;
  return splitmix64(seed ^ hash);
}

std::size_t NormalSource::tile_size() const {
  return static_cast<std::size_t>(rows_) * kernels::kDrawTilePaths;
}

template <class Real>
void NormalSource::next_tiles_impl(Real* out, std::uint64_t tiles) {
  for (std::uint64_t t = 0; t < tiles; ++t, ++tiles_done_) {
    if (quasi_) {
      // Points are addressable: tile k is points k·G .. (k+1)·G − 1 of every dimension, laid
      // out dimension-major, which is the tile's [row][path] layout.
      const std::uint64_t skip = type_ == config::RngType::sobol ? 1 : 0;
      PFMC_CURAND_TRY(
          curandSetGeneratorOffset(generator_, tiles_done_ * kernels::kDrawTilePaths + skip));
    }
    PFMC_CURAND_TRY(generate_normal(generator_, out + t * tile_size(), tile_size()));
  }
}

void NormalSource::next_tiles(float* out, std::uint64_t tiles) {
  next_tiles_impl(out, tiles);
}
void NormalSource::next_tiles(double* out, std::uint64_t tiles) {
  next_tiles_impl(out, tiles);
}

} // namespace pfmc::engine
