// log(eps + r^p) for r² = d2, in a form that stays finite for every finite d2 > 0 and p > 0:
// r^p overflows float as soon as p·log r > 88.7 (p = 50 at r = 6), but its logarithm
// L = (p/2)·log d2 does not, and log(eps + e^L) = max(L, log eps) + log1p(e^{-|L − log eps|}).
// Shared by the scalar reference (float), the SIMD variant's tail, and the double-precision path.
#pragma once

#include <cmath>
#include <limits>

namespace attnscope::kernels {

template <class T>
inline T idw_log_term(T d2, T p, T eps) {
    if (std::isnan(d2)) return d2;
    if (d2 == T(0)) return std::log(eps);  // r^p = 0 for p > 0; eps = 0 gives -inf (score +inf)
    const T L = T(0.5) * p * std::log(d2);
    if (eps == T(0)) return L;
    const T le = std::log(eps);
    const T hi = L > le ? L : le;
    return hi + std::log1p(std::exp(-std::fabs(L - le)));
}

// The idw score -log(eps + r^p), saturated at ±FLT_MAX: with p up to 3.4e38 the true value can
// pass float's range (-p log r), and -inf would read as "masked". An exact match with eps = 0 stays
// +inf (Shepard's interpolation: all the weight on that key).
inline float idw_score(float d2, float p, float eps) {
    constexpr float big = std::numeric_limits<float>::max();
    const float s = -idw_log_term(d2, p, eps);
    if (d2 == 0.0f && eps == 0.0f) return s;
    return s < -big ? -big : (s > big ? big : s);
}

}  // namespace attnscope::kernels
