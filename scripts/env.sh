# Sourced by the build scripts. Debian's emscripten runs its JS optimizer with the machine's node,
# which does not search /usr/share/nodejs for 'acorn' unless told to.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
export ATTNSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ATTNSCOPE_JOBS="${ATTNSCOPE_JOBS:-$(nproc)}"
