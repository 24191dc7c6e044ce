#!/usr/bin/env python3
"""tests/tokenizer/fake_hub.py ROOT PORT_FILE [LOG] — a local stand-in for the HF hub.

Serves GET /<org>/<name>/resolve/<rev>/<file> from ROOT/<org>/<name>/<rev>/<file>
with the headers huggingface_hub relies on (X-Repo-Commit, ETag); 404 otherwise.
Binds 127.0.0.1 on a free port and writes its base URL to PORT_FILE. Each
request is appended to LOG as "path authorization".
"""
import hashlib, http.server, os, sys

root, port_file = sys.argv[1], sys.argv[2]
log = sys.argv[3] if len(sys.argv) > 3 else None


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if log:
            with open(log, "a") as f:
                f.write("%s %s\n" % (self.path, self.headers.get("Authorization", "-")))
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) != 5 or parts[2] != "resolve" or any(p in ("", ".", "..") for p in parts):
            return self.send_error(404)
        org, name, _, rev, fname = parts
        p = os.path.join(root, org, name, rev, fname)
        if not os.path.isfile(p):
            return self.send_error(404, "Entry not found")
        data = open(p, "rb").read()
        commit = hashlib.sha1((org + name + rev).encode()).hexdigest()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", '"%s"' % hashlib.sha256(data).hexdigest())
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), H)
tmp = port_file + ".tmp"
with open(tmp, "w") as f:
    f.write("http://127.0.0.1:%d\n" % srv.server_address[1])
os.rename(tmp, port_file)
srv.serve_forever()
