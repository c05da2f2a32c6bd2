// A small non-owning view of a row-major float matrix, and the Status type the core returns.
// The core never throws: every public function reports bad input through Status, so the wasm
// build can run with exceptions disabled and the bindings turn a Status into a JS error.
#pragma once

#include <cassert>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attnscope {

// rows x cols, row-major, `stride` floats between the starts of consecutive rows (>= cols).
template <class T>
struct MatrixView {
    T* data = nullptr;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t stride = 0;

    MatrixView() = default;
    MatrixView(T* d, std::size_t r, std::size_t c) : data(d), rows(r), cols(c), stride(c) {}
    MatrixView(T* d, std::size_t r, std::size_t c, std::size_t s) : data(d), rows(r), cols(c), stride(s) {}
    // A mutable view converts to a const one.
    template <class U, class = std::enable_if_t<std::is_same<const U, T>::value>>
    MatrixView(const MatrixView<U>& o) : data(o.data), rows(o.rows), cols(o.cols), stride(o.stride) {}

    T* row(std::size_t i) const { assert(i < rows); return data + i * stride; }
    T& operator()(std::size_t i, std::size_t j) const { assert(i < rows && j < cols); return data[i * stride + j]; }
    bool empty() const { return rows == 0 || cols == 0; }
};
using ConstMatrix = MatrixView<const float>;
using Matrix = MatrixView<float>;

// An owning dense matrix, for results and scratch space.
struct Tensor {
    std::vector<float> values;
    std::size_t rows = 0;
    std::size_t cols = 0;

    Tensor() = default;
    Tensor(std::size_t r, std::size_t c, float fill = 0.0f) : values(r * c, fill), rows(r), cols(c) {}
    Matrix view() { return {values.data(), rows, cols}; }
    ConstMatrix view() const { return {values.data(), rows, cols}; }
    float& operator()(std::size_t i, std::size_t j) { return values[i * cols + j]; }
    float operator()(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
};

// Empty message = success. Messages name the argument and what was expected. [[nodiscard]]: a
// Status nobody looks at is a bug (an error silently dropped).
class [[nodiscard]] Status {
public:
    Status() = default;
    static Status error(std::string message) { Status s; s.message_ = std::move(message); return s; }
    bool ok() const { return message_.empty(); }
    explicit operator bool() const { return ok(); }
    const std::string& message() const { return message_; }
private:
    std::string message_;
};

}  // namespace attnscope
