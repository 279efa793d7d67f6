#!/bin/sh
# build.sh makes dist/, the h5web page lindi serve embeds, from the versions
# package-lock.json pins: npm ci, then one minified esbuild bundle (no source
# maps). Run it after changing src/ or package.json, and commit dist/.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts; node node_modules/esbuild/install.js
rm -rf dist
mkdir -p dist/assets
node_modules/.bin/esbuild src/main.jsx --bundle --minify --format=iife \
  --target=es2020 --jsx=automatic --legal-comments=none \
  --define:process.env.NODE_ENV='"production"' \
  --loader:.woff=file --loader:.woff2=file --loader:.svg=dataurl \
  --outfile=dist/assets/app.js
cp src/index.html dist/index.html
# The bundle is committed gzipped (the server sends it as is to browsers that
# take gzip, which is every browser); -n keeps the bytes reproducible.
gzip -9n dist/assets/app.js dist/assets/app.css
