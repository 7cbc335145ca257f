#!/bin/bash
# bounded.sh SECONDS DATA_KB COMMAND...: runs a command of the Rigscope extension under the limits
# MediaWiki's shell cannot set (ServerCommand.php says why): its data memory, and a wall clock whose
# end sends TERM, then KILL 5 s later, to the command's whole process group. Then whatever the
# command left behind, even outside its group (Playwright starts Chromium in a session of its own),
# is killed: every process carrying this run's mark (RIGSCOPE_RUN in its environment). Under
# firejail such a leftover would keep the sandbox, and MediaWiki waiting on it, alive.
set -u
seconds=$1
data_kb=$2
shift 2
ulimit -d "$data_kb" || exit 125
timeout --kill-after=5 "$seconds" "$@"
status=$?
if [ -n "${RIGSCOPE_RUN:-}" ]; then
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [ "$pid" = "$$" ] && continue
    while IFS= read -r -d '' entry; do
      if [ "$entry" = "RIGSCOPE_RUN=$RIGSCOPE_RUN" ]; then
        kill -9 "$pid" 2>/dev/null
        break
      fi
    done 2>/dev/null < "$environ"
  done
fi
exit "$status"
