// zarrita_bench.mjs times zarrita.js (npm zarrita 0.7.5) on the stores of
// `lindi-bench zarr3`, for the comparison its rows are held to. The bench
// runs it itself against its own server with `-zarrita DIR`; by hand, on the
// stores of `lindi-bench zarr3 -write DIR` served with latency (for example
// ../shared/bench/slowserve -dir DIR -latency 20ms -mbps 100):
//
//   npm install zarrita@0.7.5   # in a scratch directory; run this file from there
//   node zarrita_bench.mjs http://HOST:PORT/end.zarr full|strided|box [runs]
//
// zarrita always reads a shard's index from the end, so only end.zarr is
// read. Each run opens the array afresh (data/zarr.json) and reads the
// selection; it prints the median time and the sum of the values, to check
// against `lindi cat -o x.npy URL data SEL`.
import * as zarr from "zarrita";
const [url, sel, runs] = [process.argv[2], process.argv[3], Number(process.argv[4] || 3)];
const sels = {
  full: null,
  strided: [zarr.slice(null, null, 1024), zarr.slice(null, null, 1024)],
  box: [zarr.slice(300, 340), zarr.slice(700, 760)],
};
const times = [];
let sum = 0;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const store = new zarr.FetchStore(url);
  const arr = await zarr.open.v3(zarr.root(store).resolve("data"), { kind: "array" });
  const out = await zarr.get(arr, sels[sel]);
  times.push(performance.now() - t0);
  sum = 0;
  for (const v of out.data) sum += v;
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ sel, median_ms: times[Math.floor(times.length / 2)], checksum: sum }));
