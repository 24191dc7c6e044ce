# tests/browser/lib.sh — shared setup for the browser tests (sourced, not run).
# Provides: gp_browser_setup (node + playwright-core, or exit 77 saying why),
# gp_start_ui ARGS... (starts genperf ui on a free loopback port, sets UI_URL
# and UI_PID; the caller's EXIT trap must call gp_stop_ui), gp_check SPEC.json.
PW_VERSION=1.65.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
NODE_DIR="$GP_ROOT/.cache/node-browser"
SHOTS="$GP_ROOT/${BUILD:-build}/test-artifacts"

gp_browser_setup() {
  if [ ! -x "$CHROMIUM" ]; then echo "skip: no chromium at $CHROMIUM (scripts/deps.sh test installs it)"; exit 77; fi
  if ! command -v node >/dev/null 2>&1; then echo "skip: node is not installed (scripts/deps.sh test)"; exit 77; fi
  if [ ! -f "$NODE_DIR/node_modules/playwright-core/package.json" ] ||
     ! grep -q "\"version\": \"$PW_VERSION\"" "$NODE_DIR/node_modules/playwright-core/package.json"; then
    if ! command -v npm >/dev/null 2>&1; then echo "skip: npm is not installed (needed for playwright-core)"; exit 77; fi
    mkdir -p "$NODE_DIR"
    # A lock dir keeps two browser tests from installing at once.
    local i=0
    until mkdir "$NODE_DIR/.lock" 2>/dev/null; do i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.2; done
    if [ ! -f "$NODE_DIR/node_modules/playwright-core/package.json" ]; then
      (cd "$NODE_DIR" && [ -f package.json ] || echo '{"private":true}' > package.json
       timeout 240 npm install --no-audit --no-fund --silent "playwright-core@$PW_VERSION") >"$NODE_DIR/npm.log" 2>&1
    fi
    rmdir "$NODE_DIR/.lock" 2>/dev/null || true
    if [ ! -f "$NODE_DIR/node_modules/playwright-core/package.json" ]; then
      echo "skip: could not npm install playwright-core@$PW_VERSION (registry unreachable? see $NODE_DIR/npm.log)"; exit 77
    fi
  fi
  mkdir -p "$SHOTS"
}

gp_start_ui() {
  rm -f "$TMPDIR/ui.url"
  "$GENPERF" ui "$@" --port 0 --port-file "$TMPDIR/ui.url" 2>"$TMPDIR/ui.err" &
  UI_PID=$!
  for _ in $(seq 1 100); do
    [ -s "$TMPDIR/ui.url" ] && break
    kill -0 "$UI_PID" 2>/dev/null || { echo "genperf ui exited:"; cat "$TMPDIR/ui.err"; return 1; }
    sleep 0.1
  done
  UI_URL=$(cat "$TMPDIR/ui.url")
  [ -n "$UI_URL" ] || { echo "genperf ui wrote no URL"; cat "$TMPDIR/ui.err"; return 1; }
}

# Stops the server; a non-zero exit after SIGTERM or a sanitizer report fails the test.
gp_stop_ui() {
  if [ -n "${UI_PID:-}" ]; then
    local rc=0
    kill "$UI_PID" 2>/dev/null || true
    wait "$UI_PID" 2>/dev/null || rc=$?
    UI_PID=
    if [ "$rc" -ne 0 ] || grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$TMPDIR/ui.err" 2>/dev/null; then
      echo "genperf ui exited with $rc on SIGTERM:"; tail -n 30 "$TMPDIR/ui.err"; exit 1
    fi
  fi
}

gp_check() {
  CHROMIUM="$CHROMIUM" NODE_PATH="$NODE_DIR/node_modules" timeout 120 node "$GP_ROOT/tests/browser/check_page.js" "$1"
}
