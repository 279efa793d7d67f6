#!/usr/bin/python3
"""Reads of a 20 MB dataset (img: 320 zlib chunks) of the yardstick's bench.h5 from a small server:
Python's ThreadingHTTPServer with its listen backlog of 5, a thread per connection and HTTP/1.0
(a connection per request), as many lab and institutional file servers are. Compares lindi with
its defaults (adaptive concurrency) against fixed concurrencies and h5py + remfile.

usage: bench/backlog.py LINDI [DATA_DIR [RUNS]]
  LINDI     the lindi binary (go build -o /tmp/lindi ./cmd/lindi)
  DATA_DIR  holds bench.h5 (default ~/.cache/lindi-bench/bench, made by ../shared/bench/run)
  RUNS      runs per row, median quoted (default 3)
remfile is taken from ~/.cache/lindi-bench/remfile when present (see ../shared/bench/run)."""
import http.server, os, re, statistics, subprocess, sys, threading, time

lindi = sys.argv[1]
data = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/lindi-bench/bench")
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
blob = open(os.path.join(data, "bench.h5"), "rb").read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection, as http.server serves by default

    def log_message(self, *a):
        pass

    def do_GET(self):
        rng = self.headers.get("Range")
        if self.path != "/bench.h5":
            self.send_error(404)
            return
        start, end = 0, len(blob) - 1
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng or "")
        if m and (m.group(1) or m.group(2)):
            if m.group(1):
                start = int(m.group(1))
                end = min(int(m.group(2)), end) if m.group(2) else end
            else:
                start = max(0, len(blob) - int(m.group(2)))
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(blob)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.wfile.write(blob[start:end + 1])


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a reader that closes a connection early (remfile does) is no error of the read


srv = Server(("127.0.0.1", 0), Handler)  # request_queue_size 5: listen(5)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/bench.h5"
env = dict(os.environ, LINDI_CONCURRENCY="auto")


def lindi_read(conc):
    args = [lindi, "cat", "-f", "npy", url, "img"] + (["--concurrency", str(conc)] if conc else [])
    t0 = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - t0


def remfile_read():
    path = os.path.expanduser("~/.cache/lindi-bench/remfile")
    meta = os.path.join(path, "remfile-0.dist-info")
    if os.path.isfile(os.path.join(path, "remfile", "__init__.py")) and not os.path.isdir(meta):
        os.makedirs(meta)  # as ../shared/bench/run does: remfile asks for its own version
        with open(os.path.join(meta, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: remfile\nVersion: 0\n")
    code = ("import sys, h5py, remfile; f = h5py.File(remfile.File(sys.argv[1]), 'r'); a = f['img'][:]; "
            "assert a.shape == (160, 256, 256)")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, url], check=True, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, PYTHONPATH=path))
    return time.perf_counter() - t0


rows = [("lindi defaults (auto)", lambda: lindi_read(0))]
rows += [(f"lindi --concurrency {n}", lambda n=n: lindi_read(n)) for n in (2, 4, 8, 16, 64)]
rows.append(("h5py + remfile", remfile_read))
times = {name: [] for name, _ in rows}
for _ in range(runs):
    for name, fn in rows:  # interleaved, so that a noisy moment hits every row
        try:
            times[name].append(fn())
        except Exception as e:  # noqa: BLE001 - a row that cannot run is shown, not fatal
            print(f"{name}: failed: {e}", file=sys.stderr)
med = {k: statistics.median(v) for k, v in times.items() if v}
for name, _ in rows:
    if name in med:
        print(f"{name:26s} {med[name]:7.3f} s   (runs: {', '.join(f'{t:.2f}' for t in times[name])})")
fixed = {k: v for k, v in med.items() if "--concurrency" in k}
best = min(fixed, key=fixed.get)
auto = med["lindi defaults (auto)"]
print(f"defaults / best fixed ({best}): {auto / fixed[best]:.2f}", flush=True)
if "h5py + remfile" in med:
    print(f"defaults / h5py + remfile: {auto / med['h5py + remfile']:.2f}")
