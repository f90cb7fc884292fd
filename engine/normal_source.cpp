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

curandStatus_t generate_normal(curandGenerator_t g, float* out, std::size_t n) {
  return curandGenerateNormal(g, out, n, 0.0f, 1.0f);
}
curandStatus_t generate_normal(curandGenerator_t g, double* out, std::size_t n) {
  return curandGenerateNormalDouble(g, out, n, 0.0, 1.0);
}

} // namespace

NormalSource::NormalSource(config::RngType type, std::uint64_t seed, Memory memory,
                           int quasi_dimensions)
    : type_(type), dimensions_(quasi_dimensions),
      quasi_(type == config::RngType::sobol || type == config::RngType::scrambled_sobol) {
  PFMC_EXPECTS(!quasi_ || (quasi_dimensions > 0 && quasi_dimensions <= kMaxSobolDimensions),
               "a Sobol generator needs 1..20000 dimensions (steps x factors)");
  if (memory == Memory::device) {
    PFMC_CURAND_TRY(curandCreateGenerator(&generator_, curand_type(type)));
  } else {
    PFMC_CURAND_TRY(curandCreateGeneratorHost(&generator_, curand_type(type)));
  }
  if (quasi_) {
    PFMC_CURAND_TRY(curandSetQuasiRandomGeneratorDimensions(
        generator_, static_cast<unsigned int>(quasi_dimensions)));
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

template <class Real>
void NormalSource::generate_impl(Real* out, std::size_t values) {
  PFMC_EXPECTS(!quasi_, "draw batches are pseudo-random");
  PFMC_CURAND_TRY(generate_normal(generator_, out, values));
}

template <class Real>
void NormalSource::next_tiles_impl(Real* out, std::uint64_t tiles, int rows) {
  PFMC_EXPECTS(!quasi_ || rows == dimensions_, "a Sobol generator serves one group");
  const std::size_t tile_size = static_cast<std::size_t>(rows) * kernels::kDrawTilePaths;
  for (std::uint64_t t = 0; t < tiles; ++t, ++tiles_done_) {
    if (quasi_) {
      // Points are addressable: tile k is points k·G .. (k+1)·G − 1 of every dimension, laid
      // out dimension-major, which is the tile's [row][path] layout.
      const std::uint64_t skip = type_ == config::RngType::sobol ? 1 : 0;
      PFMC_CURAND_TRY(
          curandSetGeneratorOffset(generator_, tiles_done_ * kernels::kDrawTilePaths + skip));
    }
    PFMC_CURAND_TRY(generate_normal(generator_, out + t * tile_size, tile_size));
  }
}

void NormalSource::generate(float* out, std::size_t values) {
  generate_impl(out, values);
}
void NormalSource::generate(double* out, std::size_t values) {
  generate_impl(out, values);
}
void NormalSource::next_tiles(float* out, std::uint64_t tiles, int rows) {
  next_tiles_impl(out, tiles, rows);
}
void NormalSource::next_tiles(double* out, std::uint64_t tiles, int rows) {
  next_tiles_impl(out, tiles, rows);
}

} // namespace pfmc::engine
