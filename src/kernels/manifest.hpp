// The one list of kernel variants. The dispatch table, the Catch2 tests and the benchmarks all
// iterate over it: adding a variant is one line here plus its kernel bodies.
//
//   X(identifier, "name shown to users")
#pragma once

#ifdef ATTNSCOPE_NO_SIMD
// The scalar-only build (for engines without wasm SIMD): `simd` and `auto` fall back to scalar.
#define ATTNSCOPE_KERNEL_VARIANTS(X) X(scalar, "scalar")
#else
#define ATTNSCOPE_KERNEL_VARIANTS(X) \
    X(scalar, "scalar")              \
    X(simd, "simd")
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
    X(softmax_rows)             \
    X(attention_fused)
