#!/usr/bin/env bash
# analyze, search, config, selftest, process-export-files and create-template parse with core/argv's table
# (issue 25 item 3). Their usage errors: a flag given last without its value is refused with exit 2
# and a line naming the flag as typed (the hand loops before ignored it and ran on), and config's
# --override-config, which takes no value, refuses one given with '='. No server is started: every
# case fails before any request.
set -u
cd "$TMPDIR" || exit 1
expect() { # expect CODE 'message fragment' ARGS...
  local code=$1 msg=$2; shift 2
  "$GENPERF" "$@" >out 2>err; local rc=$?
  [ $rc -eq "$code" ] || { echo "genperf $*: exit $rc, want $code"; cat err; exit 1; }
  grep -qF -- "$msg" err || { echo "genperf $*: stderr lacks '$msg':"; cat err; exit 1; }
}
expect 2 "genperf analyze: error: --sweep-list needs a value" analyze -m x --sweep-list
expect 2 "genperf analyze: error: --sweep-type needs a value" analyze -m x --sweep-type
expect 2 "genperf search: error: --goodput-target needs a value" search -m x --goodput-target
expect 2 "genperf search: error: --search-start needs a value" search -m x --search-start
expect 2 "genperf config: error: --override-config takes no value" config --override-config=x
expect 2 "usage: genperf config" config --override-config=x
# named as typed: the long spelling of a two-spelling flag was reported by its short one ("-d needs a value")
expect 2 "genperf process-export-files: --input-directory needs a value" process-export-files --input-directory
expect 2 "genperf process-export-files: -d needs a value" process-export-files -d
expect 2 "genperf create-template: -f needs a value" create-template -f
# selftest: its two flags on the table, the profile flags passed on; a URL in any spelling refused
expect 2 "genperf selftest: --serve-ttft-ms needs a value" selftest --concurrency 2 --serve-ttft-ms
expect 2 "--url is not accepted" selftest --urls=http://127.0.0.1:1
expect 2 "--url is not accepted" selftest --concurrency 2 -u http://127.0.0.1:1
expect 2 "take a number of ms >= 0, got '30' and '-1'" selftest --serve-itl-ms=-1
[ ! -e artifacts ] || { echo "a usage error left artifacts/"; ls -R artifacts; exit 1; }
echo ok
