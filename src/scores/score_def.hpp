// One definition per scoring function. Everything the core does differently for one score lives in
// its ScoreDef: the checks of its parameters, its forward (which kernels compute S), its backward,
// its output-only path (how the fused kernel's epilogue is set up, or a blocked loop), its cost
// model, its counted flops and the per-head matrices it seeds. The rest of the core is written once
// for every score and asks score_def(score).
//
// The definitions are grouped by family, one file each:
//   dot.cpp       dot, scaled-dot, general, location (q·k after an optional projection)
//   cosine.cpp    cosine
//   additive.cpp  additive (Bahdanau)
//   distance.cpp  neg-euclidean, neg-sq-euclidean, idw (functions of ‖q − k‖²)
//   manhattan.cpp neg-manhattan
// A definition named score_def_<identifier> must exist for every row of ATTNSCOPE_SCORES
// (attnscope/registry.hpp): the table below is generated from those rows, so a missing one is a link
// error. docs/architecture.md, "Adding a scoring function", gives the recipe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attnscope/attention.hpp"
#include "attnscope/backward.hpp"
#include "attnscope/limits.hpp"
#include "attnscope/projection.hpp"
#include "attnscope/registry.hpp"
#include "attnscope/score.hpp"
#include "kernels/kernels.hpp"

namespace attnscope::scores {

// The shape of one score computation: nq queries of width dq against nk keys of width dk; hidden is
// ScoreParams::hidden (the additive score's hidden size; 0 or unused by the others).
struct CostShape {
    std::uint64_t nq = 0, nk = 0, dq = 0, dk = 0, hidden = 0;
};

// Where a score's seeded per-head matrices come from (attend() and the pipeline): the caller's
// matrix when `given` is not null, a seeded Xavier matrix of rows x cols for head h otherwise.
class MatrixSource {
public:
    virtual const float* matrix(const float* given, std::size_t rows, std::size_t cols, MatrixKind kind) = 0;

protected:
    ~MatrixSource() = default;
};

struct ScoreDef {
    // --- properties -------------------------------------------------------------------------------
    // A function of q − k alone: shifting q and k by the same vector leaves the score unchanged.
    bool distance_like;
    // Its matrices have a hidden layer of ScoreParams::hidden units (additive): the head trainer checks
    // its options.hidden and counts 2 tanh per hidden unit and pair of tokens.
    bool hidden_layer;

    // --- checks: what compute_scores, attention() and the backward passes refuse -----------------
    // Checks of the score's parameters (the column counts are checked by the caller from the
    // registry's `matrices`). Null: no parameters to check.
    Status (*check)(ConstMatrix Q, ConstMatrix K, const ScoreParams& p);

    // --- forward: S = score(Q, K), input checked, Q.rows and K.rows > 0 ---------------------------
    void (*forward)(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p, Matrix S);

    // --- backward: dS = dL/dS given; out.dQ and out.dK are sized and zero, Q.rows and K.rows > 0 ---
    void (*backward)(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, const ScoreParams& p,
                     ConstMatrix dS, ScoreGrads& out);
    // Sizes the parameter gradients in `out` (zeros), also for 0 queries or keys. Null: none.
    void (*param_grads)(ConstMatrix Q, ConstMatrix K, const ScoreParams& p, ScoreGrads& out);

    // --- output-only path: O = softmax(mask(S) / τ) V without an nq x nk matrix --------------------
    // Input checked, Q.rows and V.cols > 0. Most scores set up the fused kernel (fused_args, then
    // their epilogue's fields); the others call blocked_output.
    Status (*output)(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                     const AttentionOptions& o, float inv_tau, Matrix O);

    // --- cost model (src/limits.cpp adds what every score shares) ----------------------------------
    // compute_scores' floats and multiply-adds beyond S itself.
    void (*cost)(Budget& b, const CostShape& s);
    // attention_output's, beyond O, the packed keys, the norms, P V and the online softmax.
    void (*output_cost)(Budget& b, const CostShape& s);
    // The flops the benchmarks count for compute_scores at this shape (2 per multiply-add).
    double (*flops)(const CostShape& s);

    // --- exact scores in double, for rows whose float result overflowed -------------------------------
    // The score of query row q (dq wide) against key row k (dk wide) at key position j, in double and
    // without saturation. Used where finite input gave a non-finite or saturated float score or output
    // (score.cpp, attention.cpp): q·k of 1e30-sized vectors is 1e60, outside float but a fine double.
    double (*exact)(const float* q, std::size_t dq, const float* k, std::size_t dk, std::size_t j, const ScoreParams& p);
    // An upper bound of |score| for a query row q against any key, given bounds of the keys (computed
    // once per call by key_bounds). The fused output path recomputes rows whose bound reaches
    // kOverflowBound exactly, since its kernel keeps no float score to look at afterwards.
    double (*bound)(const float* q, std::size_t dq, const struct KeyBounds& kb, const ScoreParams& p);

    // --- per-head matrices (attend(), multi-head with seeded weights) ------------------------------
    // Floats of one head's matrices when they are seeded (given: the caller's parameters; nk: keys).
    // Null: the score has no matrices.
    std::uint64_t (*head_floats)(const ScoreParams& given, std::uint64_t d_head, std::uint64_t nk);
    // Sets one head's matrices in sp (sp starts as a copy of `given`). Null: no matrices.
    void (*head_params)(ScoreParams& sp, const ScoreParams& given, std::size_t d_head, std::size_t nk,
                        MatrixSource& source);
};

// What the rest of the core calls unconditionally is there, and the two per-head functions come as a
// pair. tests/cpp/test_score_defs.cpp checks it for every registry row (a static_assert cannot: GCC
// under UBSan does not take a template function's address as a constant).
constexpr bool complete(const ScoreDef& d) {
    return d.forward && d.backward && d.output && d.cost && d.output_cost && d.flops && d.exact && d.bound &&
           (d.head_floats == nullptr) == (d.head_params == nullptr);
}

// The functions every score has, in one call: `constexpr ScoreDef score_def_<id> = score_functions(...);`
// in its family's file (constant-initialised: usable before main). Each argument has its field's
// type, so a misplaced one does not compile, except cost and output_cost (the same type): mind their
// order. The properties start false and the optional functions null; a score sets its own on the result.
constexpr ScoreDef score_functions(decltype(ScoreDef::forward) forward, decltype(ScoreDef::backward) backward,
                                   decltype(ScoreDef::output) output, decltype(ScoreDef::exact) exact,
                                   decltype(ScoreDef::bound) bound, decltype(ScoreDef::cost) cost,
                                   decltype(ScoreDef::output_cost) output_cost, decltype(ScoreDef::flops) flops) {
    ScoreDef d{};
    d.forward = forward;
    d.backward = backward;
    d.output = output;
    d.exact = exact;
    d.bound = bound;
    d.cost = cost;
    d.output_cost = output_cost;
    d.flops = flops;
    return d;
}
// A score with matrices (general, location, additive) adds the check of its parameters, the sizing of
// their gradients and one head's seeded matrices to its functions d.
constexpr ScoreDef with_matrices(ScoreDef d, decltype(ScoreDef::check) check,
                                 decltype(ScoreDef::param_grads) param_grads,
                                 decltype(ScoreDef::head_floats) head_floats,
                                 decltype(ScoreDef::head_params) head_params) {
    d.check = check;
    d.param_grads = param_grads;
    d.head_floats = head_floats;
    d.head_params = head_params;
    return d;
}
#define ATTNSCOPE_SCORE_DEF_DECL(id, ...) extern const ScoreDef score_def_##id;
ATTNSCOPE_SCORES(ATTNSCOPE_SCORE_DEF_DECL)
#undef ATTNSCOPE_SCORE_DEF_DECL

// The definition of a score: one row per registry row, in the registry's order.
inline const ScoreDef& score_def(Score s) {
#define ATTNSCOPE_SCORE_DEF_ROW(id, ...) &score_def_##id,
    static const ScoreDef* const defs[] = {ATTNSCOPE_SCORES(ATTNSCOPE_SCORE_DEF_ROW)};
#undef ATTNSCOPE_SCORE_DEF_ROW
    return *defs[static_cast<std::size_t>(s)];
}

// --- building blocks the definitions share (src/scores/common.cpp) ---------------------------------

// Bounds of the key rows (and of the score's matrices) that the `bound` functions use.
struct KeyBounds {
    double max_l2 = 0;      // largest ‖k‖₂ over the keys (location: over the first nk rows of Wa)
    double max_l1 = 0;      // largest ‖k‖₁
    double w_frobenius = 0; // general: ‖W‖_F; additive: ‖v‖₁
};
KeyBounds key_bounds(Score score, ConstMatrix K, std::size_t dq, const ScoreParams& p);
// Scores at or past this bound may overflow a float somewhere in the float paths (2^125: a quarter of
// FLT_MAX, room for the temperature's division and the kernels' partial sums).
constexpr double kOverflowBound = 4.253529586511731e37;
double l2(const float* x, std::size_t n);
double l1(const float* x, std::size_t n);

// Whether every value of x[0..n) / of X (rows x cols) is finite.
// The bits of a float (what std::bit_cast gives in C++20).
inline std::uint32_t float_bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
bool row_finite(const float* x, std::size_t n);
bool all_finite(ConstMatrix X);
// Row i of attention in double, from the definition's exact scores: S (when s is not null) gets the
// scores saturated at ±FLT_MAX (+inf kept: idw at an exact match with eps = 0), A (when a is not
// null) the softmax of the visible scores / τ, O (when o is not null) Σ a_j V_j, computed in double
// and stored as float (finite whenever the true output is within float's range).
void exact_row(const ScoreDef& def, ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& opt,
               double inv_tau, std::size_t i, float* s, float* a, float* o);

// The fused kernel's arguments for Q, K, V, O and the options' mask and temperature; the score then
// sets its epilogue's fields (score, alpha, qa, kb, p, eps, direct) and calls kt.attention_fused.
kernels::FusedAttentionArgs fused_args(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o,
                                       float inv_tau, Matrix O);
// The output path of a score whose epilogue needs no field but `score` (dot; neg-manhattan, whose
// kernel computes the L1 distances itself: no epilogue, no norms).
template <kernels::FusedScore score>
Status fused_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& o,
                    float inv_tau, Matrix O) {
    kernels::FusedAttentionArgs a = fused_args(Q, K, V, o, inv_tau, O);
    a.score = score;
    kt.attention_fused(a);
    return {};
}
// softmax(mask(compute_scores) / τ) V in blocks of 64 query rows: O(64 nk) scratch, never nq x nk;
// for the scores the fused kernel does not take, and for rows outside the fused kernel's safe range.
Status blocked_output(const kernels::KernelTable& kt, ConstMatrix Q, ConstMatrix K, ConstMatrix V,
                      const AttentionOptions& o, float inv_tau, Matrix O);
// Whether key j is hidden from query row i of this call (row query_offset + i of the sequence) by the
// options' mask or key padding.
inline bool hidden_key(const AttentionOptions& o, std::size_t i, std::size_t j) {
    return (o.mask == Mask::causal && j > o.query_offset + i) || (o.key_padding && o.key_padding[j]);
}
// 1/√x for every x > 0 in place, 0 for 0 (cosine's reciprocal norms from squared norms).
void reciprocal_sqrt(float* x, std::size_t n);

// The flops of S = Q Kᵀ counted by the benchmarks: 2 per multiply-add (dot, cosine, the distances).
double qk_flops(const CostShape& s);
// The fused output path's cost beyond what every score shares (cosine, the distances, neg-manhattan):
// a copy of the query and key rows (rescaled, blocked or packed), a block of 64 rows of scores, and
// one multiply-add (or one L1 step) per query, key and dimension.
void fused_output_cost(Budget& b, const CostShape& s);

}  // namespace attnscope::scores
