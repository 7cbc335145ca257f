#!/bin/bash
# bounded.sh SECONDS DATA_KB COMMAND...: runs a command of the Rigscope extension under the limits
# MediaWiki's shell cannot set (ServerCommand.php says why): its data memory, and a wall clock whose
# end sends TERM, then KILL 5 s later, to the command's whole process group.
set -u
seconds=$1
data_kb=$2
shift 2
ulimit -d "$data_kb" || exit 125
exec timeout --kill-after=5 "$seconds" "$@"
