// The one list of kernel variants and kernel operations. The dispatch table (kernels.hpp, dispatch.cpp),
// the kernel declarations, the Catch2 tests and the benchmarks all iterate over these lists. Adding a
// variant is one line of ATTNSCOPE_ALL_KERNEL_VARIANTS plus its kernel bodies (a file like simd.cpp
// defining table_<variant>) and its build flags in CMakeLists.txt; the registry (attnscope/registry.hpp)
// takes the variant's name from here. Adding an operation is one line of ATTNSCOPE_KERNEL_OPS, its
// <op>_fn type in kernels.hpp, and one body per variant.
//
//   X(identifier, "name shown to users")
#pragma once

// Every variant the API knows by name (JS may ask for any of them).
#define ATTNSCOPE_ALL_KERNEL_VARIANTS(X) \
    X(scalar, "scalar")                  \
    X(simd, "simd")

#ifdef ATTNSCOPE_NO_SIMD
// The scalar-only build (for engines without wasm SIMD): `simd` and `auto` fall back to scalar.
#define ATTNSCOPE_KERNEL_VARIANTS(X) X(scalar, "scalar")
#else
// The variants compiled into this build.
#define ATTNSCOPE_KERNEL_VARIANTS(X) ATTNSCOPE_ALL_KERNEL_VARIANTS(X)
#endif

// Every hot operation, each implemented once per variant as f32_<op>__<variant>.
#define ATTNSCOPE_KERNEL_OPS(X) \
    X(gemm_nt)                  \
    X(gemm_nn)                  \
    X(row_sumsq)                \
    X(cosine_epilogue)          \
    X(sq_euclidean_epilogue)    \
    X(euclidean_epilogue)       \
    X(idw_epilogue)             \
    X(additive)                 \
    X(softmax_rows)
