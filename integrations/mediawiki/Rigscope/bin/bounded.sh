#!/bin/bash
# bounded.sh SECONDS DATA_KB COMMAND...: runs a command of the Rigscope extension under the limits
# MediaWiki's shell cannot set (ServerCommand.php says why): its data memory, and a wall clock whose
# end sends TERM, then KILL 5 s later, to the command's whole process group. Then whatever the
# command left behind, even outside its group (Playwright starts Chromium in a session of its own),
# is killed: every process carrying this command's mark (RIGSCOPE_COMMAND, made from the run's
# RIGSCOPE_RUN, in its environment). Under firejail such a leftover would keep the sandbox, and
# MediaWiki waiting on it, alive.
set -u
seconds=$1
data_kb=$2
shift 2
ulimit -d "$data_kb" || exit 125
# The command's own mark, not the run's: the wrappers that started this script carry RIGSCOPE_RUN
# too (firejail hands it to MediaWiki's limit.sh and its timeout), and killing them would end the
# run with their status (137) instead of the command's (124 at the time limit, 1 for a poster
# drawn without some files).
if [ -n "${RIGSCOPE_RUN:-}" ]; then
  export RIGSCOPE_COMMAND="$RIGSCOPE_RUN.$$"
fi
timeout --kill-after=5 "$seconds" "$@"
status=$?
killed=()
if [ -n "${RIGSCOPE_COMMAND:-}" ]; then
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [ "$pid" = "$$" ] && continue
    while IFS= read -r -d '' entry; do
      if [ "$entry" = "RIGSCOPE_COMMAND=$RIGSCOPE_COMMAND" ]; then
        kill -9 "$pid" 2>/dev/null && killed+=("$pid")
        break
      fi
    done 2>/dev/null < "$environ"
  done
fi
# Gone before this script ends (up to 5 s): a leftover lives on as the child of the sandbox's first
# process, and firejail, once MediaWiki's wrapper has ended, waits for any process still in the
# sandbox and ends with that one's status (137) in place of the command's.
for _ in {1..50}; do
  alive=
  for pid in "${killed[@]}"; do
    [ -e "/proc/$pid" ] && alive=$pid
  done
  [ -z "$alive" ] && break
  sleep 0.1
done
exit "$status"
