#pragma once
// NVRTC only (kernels/rtc/README.md): first in every runtime-compiled source. nvcc's device pass
// defines __GNUC__, so Random123 configures itself from features/gccfeatures.h there; NVRTC does
// not, and these are the values that file gives nvcc's device pass (no SSE, no x86 intrinsics,
// C++11 throughout), so that both compile the same generator code.
#define R123_STATIC_INLINE static __inline__
#define R123_FORCE_INLINE(decl) decl __attribute__((always_inline))
#define R123_USE_CXX11_UNRESTRICTED_UNIONS 1
#define R123_USE_CXX11_STATIC_ASSERT 1
#define R123_USE_CXX11_CONSTEXPR 1
#define R123_USE_CXX11_EXPLICIT_CONVERSIONS 1
#define R123_USE_CXX11_RANDOM 0
#define R123_USE_CXX11_TYPE_TRAITS 1
#define R123_USE_CXX11_STD_ARRAY 1
#define R123_USE_CXX11_LONG_LONG 1
#define R123_USE_ASM_GNU 0
#define R123_USE_X86INTRIN_H 0
#define R123_USE_CPUID_MSVC 0
#define R123_USE_IA32INTRIN_H 0
#define R123_USE_XMMINTRIN_H 0
#define R123_USE_EMMINTRIN_H 0
#define R123_USE_SMMINTRIN_H 0
#define R123_USE_WMMINTRIN_H 0
#define R123_USE_INTRIN_H 0
#define R123_USE_MULHILO32_ASM 0
#define R123_USE_MULHILO64_MSVC_INTRIN 0
#define R123_USE_AES_OPENSSL 0
