#!/usr/bin/env bash
# Runs the whole suite on Mongoose 8, with the mongodb driver that Mongoose 8 ships with, in a
# temporary copy of the tracked files, so "Mongoose 8 keeps working" is checked, not assumed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$work")
cd "$work"
npm ci --no-audit --no-fund
npm install --no-save --no-audit --no-fund mongoose@8
# Better Auth shares Mongoose's connection, so the top-level driver must be Mongoose's own.
driver="$(node -p 'require("./node_modules/mongoose/package.json").dependencies.mongodb')"
npm install --no-save --no-audit --no-fund "mongoose@8" "mongodb@${driver}"
echo "==> mongoose $(node -p 'require("mongoose/package.json").version'), mongodb $(node -p 'require("mongodb/package.json").version')"

# The FerretDB binary the main run built is reused from the per-user cache (~/.cache/terreno-mcp).
npm test
