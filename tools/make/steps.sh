#!/usr/bin/env bash
# steps.sh runs `make test`'s steps one after another and reports every
# step that failed, not only the first: a failing unit test must not hide
# what the race detector or the fuzzers would have said.
#
# Usage: steps.sh NAME 'COMMAND' [NAME 'COMMAND' ...]
#
# Each COMMAND runs in bash under heartbeat.sh (a progress line every
# HEARTBEAT seconds while it is silent for long, as the Valgrind run and the
# race step are). The last line is the summary, "steps: N passed, N failed",
# and the exit status is 1 when any step failed.
set -uo pipefail
here=$(dirname "$0")
passed=() failed=()
while (($# >= 2)); do
	name=$1 cmd=$2
	shift 2
	printf '=== step %s: %s\n' "$name" "$cmd"
	start=$SECONDS
	"$here/heartbeat.sh" "$name" "$cmd"
	rc=$?
	t=$((SECONDS - start))
	if ((rc == 0)); then
		passed+=("$name")
		printf '=== step %s passed in %dm%02ds\n' "$name" $((t / 60)) $((t % 60))
	else
		failed+=("$name")
		printf '=== step %s FAILED (exit %d) in %dm%02ds\n' "$name" "$rc" $((t / 60)) $((t % 60))
	fi
done
if (($# != 0)); then
	echo "steps.sh: step $1 has no command" >&2
	exit 2
fi
echo
for s in ${passed[@]+"${passed[@]}"}; do printf '  passed  %s\n' "$s"; done
for s in ${failed[@]+"${failed[@]}"}; do printf '  FAILED  %s\n' "$s"; done
printf 'steps: %d passed, %d failed\n' "${#passed[@]}" "${#failed[@]}"
((${#failed[@]} == 0))
