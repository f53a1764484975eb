#!/usr/bin/env bash
# Rebuilds src/output/vendor/three.min.js: the parts of three.js that the viewer's solids
# renderer (src/output/viewer_solids.js) uses, bundled by esbuild into one minified classic
# script that defines the global THREE (three.js ships ES modules only, and the page must work
# offline from one file). Needs node and npm; fetches three and esbuild from the npm registry.
# Change THREE_VERSION, run it, and note the version in src/output/vendor/README.md.
set -euo pipefail
THREE_VERSION=0.187.0
ESBUILD_VERSION=0.28.2
out="$(cd "$(dirname "$0")/.." && pwd)/src/output/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "three@$THREE_VERSION" "esbuild@$ESBUILD_VERSION"
cat > entry.js <<'JS'
export {
  BoxGeometry, BufferAttribute, BufferGeometry, CapsuleGeometry, CylinderGeometry, DoubleSide,
  FrontSide, Group, Mesh, PerspectiveCamera, Scene, ShaderMaterial, SphereGeometry, WebGLRenderer
} from 'three';
JS
node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=THREE \
  --legal-comments=inline --outfile="$out/three.min.js" \
  --banner:js="/* three.js $THREE_VERSION (npm), parts used by vito's viewer, bundled by esbuild $ESBUILD_VERSION. MIT licence: see LICENSE-three. */"
cp node_modules/three/LICENSE "$out/LICENSE-three"
sha256sum "$out/three.min.js"
