// Backward passes: the gradient of a scalar loss L with respect to the inputs and parameters of the
// forward functions (score.hpp, softmax.hpp, attention.hpp, a projection Y = X W), given dL/d(output).
// They follow the forward's conventions: masked keys and fully masked rows get zero gradient; cosine
// with a zero vector scores 0 whatever the other vector, so its gradient there is zero too; the
// distance scores at q = k (where −‖q − k‖ has a kink) use the subgradient 0. Same variants as the
// forward (scalar reference, SIMD); the hot loops are kernels of src/kernels/manifest.hpp.
#pragma once

#include <cstddef>

#include "attnscope/attention.hpp"
#include "attnscope/projection.hpp"
#include "attnscope/score.hpp"
#include "attnscope/softmax.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope {

// dS = dL/dS for A = masked_softmax(S, options), from the forward's weights A and dA = dL/dA:
//   dS = A ⊙ (dA − rowsum(dA ⊙ A)) / τ.
// Entries hidden by options' mask or key padding are set to exactly 0 (so are fully masked rows).
// The derivative is that of finite scores; the forward's +inf / NaN conventions have none (such rows
// get what the formula gives from A). dS may be the same memory as dA.
Status masked_softmax_backward(ConstMatrix A, ConstMatrix dA, const SoftmaxOptions& options, Matrix dS);

// Gradients of a score, each shaped like its forward input; the parameter gradients are empty (0 x 0)
// for scores without that parameter.
struct ScoreGrads {
    Tensor dQ;   // Q.rows x Q.cols
    Tensor dK;   // K.rows x K.cols (zeros for location, which ignores key content)
    Tensor dW;   // general: d_q x d_k
    Tensor dW1;  // additive: hidden x d_q
    Tensor dW2;  // additive: hidden x d_k
    Tensor dv;   // additive: 1 x hidden
    Tensor dWa;  // location: max_keys x d_q (rows of key positions >= K.rows are 0)
};

// Gradients of L through S = compute_scores(score, Q, K, params), given dS = dL/dS (Q.rows x K.rows).
// Checks the same things as compute_scores. Conventions: cosine's gradient is 0 for a zero query or
// key row; neg-euclidean and idw use the subgradient 0 where q = k exactly (idw: for every p; for
// p >= 2 with ε > 0 that is the true gradient); neg-manhattan uses sign(0) = 0 per equal coordinate.
Status compute_scores_backward(Score score, ConstMatrix Q, ConstMatrix K, const ScoreParams& params, ConstMatrix dS,
                               ScoreGrads& out, Variant variant = Variant::automatic);

// A score's own matrices, in this order: general's W, additive's W1, W2 and v, location's Wa. For one
// of them: its place in that order and the member of ScoreGrads that holds its gradient; for the other
// kinds of matrix (the projections, the output's) there is none: index -1, grad null.
struct ScoreMatrixKind {
    int index = -1;
    Tensor ScoreGrads::*grad = nullptr;
};
ScoreMatrixKind score_matrix_kind(MatrixKind kind);

struct AttentionGrads : ScoreGrads {
    Tensor dV;        // V.rows x V.cols
    Tensor dW_extra;  // experimental scaled output: d_v x d_v (empty otherwise)
};

// Gradients of L through O = attention(Q, K, V, options) given dO = dL/dO (Q.rows x V.cols). The
// forward is recomputed inside (scores and weights), so no state is kept between the two calls.
Status attention_backward(ConstMatrix Q, ConstMatrix K, ConstMatrix V, const AttentionOptions& options,
                          ConstMatrix dO, AttentionGrads& out);

// A projection Y = X W (X: n x d_in, W: d_in x d_out), as in the per-head W_q, W_k, W_v and the output
// W_o of multi_head_attention: dX = dY Wᵀ, dW = Xᵀ dY. dX may be empty (rows = 0) to skip it.
Status linear_backward(ConstMatrix X, ConstMatrix W, ConstMatrix dY, Matrix dX, Matrix dW,
                       Variant variant = Variant::automatic);

}  // namespace attnscope
