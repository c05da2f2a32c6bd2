#!/usr/bin/env bash
# Installs the toolchain from Debian's packages when something is missing, so a fresh Debian 12
# machine needs nothing by hand. Safe to run again: it only installs what is not there.
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v em++ >/dev/null || need+=(emscripten)
[ -f /usr/include/xsimd/xsimd.hpp ] || need+=(libxsimd-dev)
[ -f /usr/include/catch2/catch.hpp ] || need+=(catch2)
command -v wasm-objdump >/dev/null || need+=(wabt)
command -v chromium >/dev/null || need+=(chromium)
command -v clang++ >/dev/null || need+=(clang)                       # libFuzzer targets (scripts/fuzz.sh)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
# The notebook example (examples/notebook.ipynb) is rendered to HTML by nbconvert in the browser tests.
command -v jupyter-nbconvert >/dev/null || need+=(jupyter-nbconvert)
command -v node >/dev/null || need+=(nodejs npm)
# tests/js/python-export.test.mjs runs the PyTorch snippet of docs/imported-attention.md and writes files with numpy.
[ -d /usr/lib/python3/dist-packages/numpy ] || need+=(python3-numpy)
[ -d /usr/lib/python3/dist-packages/torch ] || need+=(python3-torch)
# tests/js/flow.test.mjs checks attention flow against networkx's maximum_flow_value.
[ -d /usr/lib/python3/dist-packages/networkx ] || need+=(python3-networkx)

if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: need root (or sudo) to install: ${need[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "bootstrap: npm ci"
  npm ci --no-audit --no-fund
fi
echo "bootstrap: toolchain ready ($(em++ --version | head -1 | sed 's/ (Emscripten.*//'); node $(node --version))"
