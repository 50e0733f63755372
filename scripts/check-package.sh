#!/usr/bin/env bash
# `npm run check:package`: packs the package as it would be published (prepack builds), lints the
# tarball with publint and @arethetypeswrong/cli, then installs it into an empty app (with its
# peers mongoose and express) and checks that `require()` and `import` load every entry point.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"

# The prepack script removes dist/ and builds it, so this is what a fresh clone packs.
echo "==> npm pack (prepack builds)"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
# (grep reads the whole listing: with -q it would stop early, and pipefail fails tar's SIGPIPE.)
if ! tar -tzf "$tarball" | grep -x 'package/dist/index.js' >/dev/null; then
  echo "check:package: the tarball has no dist/index.js" >&2
  exit 1
fi

echo "==> publint"
npx --no-install publint --strict "$tarball"

# The package is ESM only and supports require() through Node's require(esm) (Node >= 22), so a
# CommonJS caller resolving to the ESM build is intended: that one rule is ignored. Every other
# problem fails, including under `moduleResolution: node10` (typesVersions covers the subpaths).
echo "==> attw"
npx --no-install attw "$tarball" --ignore-rules cjs-resolves-to-esm

echo "==> install the tarball into an empty app"
app="$work/app"
mkdir -p "$app"
cp "$root/.npmrc" "$app/.npmrc"
echo '{"name": "check-package-app", "private": true}' >"$app/package.json"
mongoose_range="$(node -p 'require("./package.json").devDependencies.mongoose')"
express_range="$(node -p 'require("./package.json").devDependencies.express')"
(cd "$app" && npm install --no-audit --no-fund --prefer-offline --loglevel=error \
  "$tarball" "mongoose@$mongoose_range" "express@$express_range")

# Entry points whose optional peers the empty app does not have are only checked to resolve.
entries='["terreno-mcp", "terreno-mcp/testing"]'
(cd "$app" && node -e "
  for (const entry of $entries) {
    const exports = require(entry);
    if (Object.keys(exports).length === 0) throw new Error(entry + ': require() gave no exports');
  }
  for (const entry of ['terreno-mcp/ai', 'terreno-mcp/chat', 'terreno-mcp/chat/demo',
    'terreno-mcp/better-auth', 'terreno-mcp/oauth', 'terreno-mcp/react',
    'terreno-mcp/package.json']) require.resolve(entry);
  console.log('require(): ok');
")
(cd "$app" && node --input-type=module -e "
  for (const entry of $entries) await import(entry);
  console.log('import: ok');
")
echo "==> check:package passed"
