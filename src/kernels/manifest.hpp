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

// Every hot operation, each implemented once per variant as f32_<op>__<variant>, declared from its
// <op>_fn type (kernels.hpp). ATTNSCOPE_KERNEL_OPS_WITH passes `arg` along to X, for lists nested in
// another (one declaration per op and variant).
#define ATTNSCOPE_KERNEL_OPS_WITH(X, arg) \
    X(gemm_nt, arg)                       \
    X(gemm_nn, arg)                       \
    X(row_sumsq, arg)                     \
    X(cosine_epilogue, arg)               \
    X(sq_euclidean_epilogue, arg)         \
    X(euclidean_epilogue, arg)            \
    X(idw_epilogue, arg)                  \
    X(cancelled_keys, arg)                \
    X(distance_row, arg)                  \
    X(neg_manhattan, arg)                 \
    X(additive, arg)                      \
    X(softmax_rows, arg)                  \
    X(gemm_tn, arg)                       \
    X(softmax_backward_rows, arg)         \
    X(sq_distances, arg)                  \
    X(additive_backward, arg)             \
    X(manhattan_backward, arg)            \
    X(attention_fused, arg)               \
    X(layer_norm, arg)                    \
    X(bias_activation, arg)               \
    X(layer_norm_backward, arg)           \
    X(gelu_backward, arg)
#define ATTNSCOPE_KERNEL_OP_ONLY(op, X) X(op)
#define ATTNSCOPE_KERNEL_OPS(X) ATTNSCOPE_KERNEL_OPS_WITH(ATTNSCOPE_KERNEL_OP_ONLY, X)
