#!/usr/bin/env bash
# heartbeat.sh NAME COMMAND runs COMMAND (in bash, output passed through)
# and, while it runs, prints "... NAME still running (XmYYs)" every
# HEARTBEAT seconds (default 60), so a long silent build or test run shows
# it is alive. Exits with COMMAND's status.
set -uo pipefail
name=$1 cmd=$2 every=${HEARTBEAT:-60}
start=$SECONDS
(
	# The sleep runs in the background so that the TERM below ends it too:
	# a sleep left behind would hold the output pipe open (and make CI
	# wait for it) after the step ended.
	trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	while :; do
		sleep "$every" &
		nap=$!
		wait "$nap"
		t=$((SECONDS - start))
		printf '... %s still running (%dm%02ds)\n' "$name" $((t / 60)) $((t % 60))
	done
) &
beater=$!
bash -c "$cmd"
rc=$?
kill "$beater" 2>/dev/null
wait "$beater" 2>/dev/null
exit "$rc"
