#include "engine/draws/normal_source.hpp"

#include "engine/draws/draw_transform.hpp"
#include "kernels/draw_layout.hpp"
#include "base/error.hpp"

namespace pfmc::engine {

namespace {

curandRngType_t curand_type(config::RngType type) {
  switch (type) {
  case config::RngType::mrg32k3a:
    return CURAND_RNG_PSEUDO_MRG32K3A;
  case config::RngType::sobol:
    return CURAND_RNG_QUASI_SOBOL32;
  case config::RngType::scrambled_sobol:
    return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
  case config::RngType::philox:
    break; // computed where it is used (kernels/counter_draws.cuh), never through cuRAND
  }
  PFMC_EXPECTS(false, "no cuRAND generator for this rng");
  return CURAND_RNG_PSEUDO_MRG32K3A;
}

curandStatus_t generate_normal(curandGenerator_t g, float* out, std::size_t n) {
  return curandGenerateNormal(g, out, n, 0.0f, 1.0f);
}
curandStatus_t generate_normal(curandGenerator_t g, double* out, std::size_t n) {
  return curandGenerateNormalDouble(g, out, n, 0.0, 1.0);
}

} // namespace

NormalSource::NormalSource(config::RngType type, std::uint64_t seed, Memory memory,
                           int quasi_dimensions, int replicate)
    : type_(type), memory_(memory), seed_(seed), replicate_(replicate),
      dimensions_(quasi_dimensions),
      quasi_(type == config::RngType::sobol || type == config::RngType::scrambled_sobol) {
  PFMC_EXPECTS(!quasi_ || (quasi_dimensions > 0 && quasi_dimensions <= kMaxSobolDimensions),
               "a Sobol generator needs 1..20000 dimensions (steps x factors)");
  PFMC_EXPECTS(replicate >= 0, "replicates are numbered from 0");
  PFMC_EXPECTS(type != config::RngType::philox,
               "Philox draws are counter-based (kernels/counter_draws.cuh), not cuRAND's");
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
  stream_ = stream;
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
    if (type_ == config::RngType::scrambled_sobol) {
      shifted_tile(out + t * tile_size, tile_size);
    } else {
      PFMC_CURAND_TRY(generate_normal(generator_, out + t * tile_size, tile_size));
    }
  }
}

template <class Real>
void NormalSource::shifted_tile(Real* out, std::size_t tile_size) {
  // cuRAND's 32-bit integers, then the digital shift and Φ⁻¹. Float converts in place (each
  // element is read before it is written, at the same address); a double tile would overwrite
  // integers that other threads have yet to read, so its integers go to a scratch tile.
  constexpr bool in_place = sizeof(Real) == sizeof(std::uint32_t);
  const std::size_t points = kernels::kDrawTilePaths;
  if (memory_ == Memory::device) {
    std::uint32_t* integers = reinterpret_cast<std::uint32_t*>(out);
    if (!in_place) {
      if (device_integers_.size() < tile_size)
        device_integers_ = DeviceBuffer<std::uint32_t>(tile_size, stream_);
      integers = device_integers_.data();
    }
    PFMC_CURAND_TRY(curandGenerate(generator_, integers, tile_size));
    digital_shift_to_normal(integers, out, tile_size, points, seed_, replicate_, stream_);
  } else {
    host_integers_.resize(tile_size);
    PFMC_CURAND_TRY(curandGenerate(generator_, host_integers_.data(), tile_size));
    digital_shift_to_normal_host(host_integers_.data(), out, tile_size, points, seed_, replicate_);
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
