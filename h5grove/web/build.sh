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
  --metafile=meta.json --outfile=dist/assets/app.js
cp src/index.html dist/index.html
# The licences of the packages the bundle holds, beside it.
node -e '
const fs = require("fs"), path = require("path");
const pkgs = new Set();
for (const f of Object.keys(JSON.parse(fs.readFileSync("meta.json")).inputs)) {
  const m = f.match(/^node_modules\/((@[^/]+\/)?[^/]+)\//);
  if (m) pkgs.add(m[1]);
}
let out = "";
for (const p of [...pkgs].sort()) {
  const dir = path.join("node_modules", p);
  const ver = JSON.parse(fs.readFileSync(path.join(dir, "package.json"))).version;
  const lic = fs.readdirSync(dir).find((n) => /^licen[cs]e/i.test(n));
  out += "== " + p + " " + ver + " ==\n" + (lic ? fs.readFileSync(path.join(dir, lic), "utf8") : "(no licence file; see its package.json)\n") + "\n";
}
fs.writeFileSync("dist/LICENSES.txt", out);
'
rm meta.json
# The bundle is committed gzipped (the server sends it as is to browsers that
# take gzip, which is every browser); -n keeps the bytes reproducible.
gzip -9n dist/assets/app.js dist/assets/app.css
