# shellcheck shell=sh
# Results of the shell test suites, in the format of tests/lib/harness.h;
# sourced, never run. POSIX sh: the guest suites run it under dash, the host
# ones under bash (with set -u).
#
#   result_suite=NAME
#   result SUBTEST pass|fail|skip [MESSAGE]
#	prints "PASS NAME/SUBTEST" (or "FAIL NAME/SUBTEST: MESSAGE") and, if
#	$SYNCWAY_TEST_JSON is set, appends the JSON line
#	{"suite","subtest","result","ms","message"} to that file. Its "ms"
#	is the time since the previous result of this shell (or since this
#	file was sourced), setting up included, to 10 ms: where a suite's
#	time goes, without a process forked per result.
#   result_summary
#	prints "NAME: N subtests passed, N failed, N skipped" for the results
#	of this shell; fails if any of them failed.
#   log_lacks LOG 'STRING|STRING...'
#	which of the strings a log does not contain.
#   log_problems LOG
#	what a syncway log reports that its exit status does not.
#   run_problems LOG STATUS 'STRING|STRING...'
#	all that went wrong in a syncway run: its status and both of the above.

result_suite=${result_suite:-}
result_passed=0 result_failed=0 result_skipped=0
# result_now: /proc/uptime in hundredths of a second, in result_cs.
result_now() {
	read -r result_up _ </proc/uptime
	# 1 before the two decimals: "08" alone would read as octal.
	result_cs=$((${result_up%.*} * 100 + 1${result_up#*.} - 100))
}
result_now
result_last_cs=$result_cs

# json_quote STRING: sets json_quoted to STRING as a JSON string. Most
# strings need no escape and cost no exec (each exec is slow in a TCG guest);
# the others go through awk, which is in every root (mawk in the guests).
json_quote() {
	case $1 in
	*[\"\\]* | *[![:print:]]*)
		# One record per line: printf's newline ends the last one, so
		# a trailing newline of STRING is a record of its own.
		json_quoted=\"$(printf '%s\n' "$1" | awk '
			BEGIN {
				for (i = 1; i < 32; i++)
					esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
				esc["\t"] = "\\t"
				esc["\r"] = "\\r"
				esc["\""] = "\\\""
				esc["\\"] = "\\\\"
			}
			{
				s = NR > 1 ? "\\n" : ""
				for (i = 1; i <= length($0); i++) {
					c = substr($0, i, 1)
					s = s ((c in esc) ? esc[c] : c)
				}
				printf "%s", s
			}')\"
		;;
	*)
		json_quoted=\"$1\"
		;;
	esac
}

result() {
	case $2 in
	pass)
		result_passed=$((result_passed + 1))
		printf 'PASS %s/%s\n' "$result_suite" "$1"
		;;
	fail)
		result_failed=$((result_failed + 1))
		printf 'FAIL %s/%s%s\n' "$result_suite" "$1" "${3:+: $3}"
		;;
	skip)
		result_skipped=$((result_skipped + 1))
		printf 'SKIP %s/%s%s\n' "$result_suite" "$1" "${3:+: $3}"
		;;
	*)
		echo "result: '$2' is not pass, fail or skip" >&2
		return 2
		;;
	esac
	[ -n "${SYNCWAY_TEST_JSON:-}" ] || return 0
	json_quote "$result_suite"
	result_json_suite=$json_quoted
	json_quote "$1"
	result_json_subtest=$json_quoted
	json_quote "${3:-}"
	result_now
	printf '{"suite":%s,"subtest":%s,"result":"%s","ms":%d,"message":%s}\n' \
		"$result_json_suite" "$result_json_subtest" "$2" $(((result_cs - result_last_cs) * 10)) \
		"$json_quoted" >>"$SYNCWAY_TEST_JSON"
	result_last_cs=$result_cs
}

# expect NAME STATUS STDERR_REGEX CMD...: CMD must exit with STATUS (or any
# non-zero status for "fail") and its stderr must match the regex. Its
# output is left in $tmp/out and $tmp/err ($tmp: the caller's directory).
expect() {
	local name=$1 want=$2 pattern=$3 got
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	if [ "$want" = fail ] && [ "$got" = 0 ]; then
		result "$name" fail "exit status 0, expected a failure"
	elif [ "$want" != fail ] && [ "$got" != "$want" ]; then
		result "$name" fail "exit status $got, expected $want; stderr: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
	elif ! grep -qE -- "$pattern" "$tmp/err"; then
		result "$name" fail "stderr does not match /$pattern/: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
	else
		result "$name" pass ""
	fi
}

result_summary() {
	echo "$result_suite: $result_passed subtests passed, $result_failed failed," \
		"$result_skipped skipped"
	[ "$result_failed" = 0 ]
}

# log_lacks LOG 'STRING|STRING...': sets log_lacks to "missing 'STRING'" for
# each |-separated STRING that LOG does not contain, "; "-separated. Returns
# 1 if any is missing. The list is cut with parameter expansions: splitting
# it with IFS would also expand glob characters in the strings.
log_lacks() {
	log_lacks=
	result_rest=$2
	while [ -n "$result_rest" ]; do
		result_want=${result_rest%%|*}
		result_rest=${result_rest#"$result_want"}
		result_rest=${result_rest#|}
		grep -qF -- "$result_want" "$1" ||
			log_lacks="${log_lacks:+$log_lacks; }missing '$result_want'"
	done
	[ -z "$log_lacks" ]
}

# log_problems LOG: sets log_problems to what LOG, syncway's output, reports
# beyond its exit status, "; "-separated: an fd its frame statistics think
# leaked ("LEAK?"), an ASan, LSan or UBSan report. Returns 1 if there is any.
log_problems() {
	log_problems=
	grep -q 'LEAK?' "$1" && log_problems="fd leak reported"
	grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$1" &&
		log_problems="${log_problems:+$log_problems; }sanitizer report"
	[ -z "$log_problems" ]
}

# stats_drops_before_first STATS: prints how many commits syncway's --stats
# file STATS has replaced before shown (dropped) that were made before the
# first commit it presented: the only ones a GPU renderer can have released
# before it rendered anything.
stats_drops_before_first() {
	awk '
	function t_ns(   i, v) {
		i = index($0, "\"t_ns\":")
		if (i == 0) return ""
		v = substr($0, i + 7)
		sub(/[,}].*/, "", v)
		return v + 0
	}
	/"type":"commit"/ && /"result":"presented"/ { t = t_ns(); if (!first || t < first) first = t }
	/"type":"commit"/ && /"result":"dropped"/ { dropped[++n] = t_ns() }
	END { c = 0; for (i = 1; i <= n; i++) if (!first || dropped[i] < first) c++; print c + 0 }' "$1"
}

# log_cpu_waits LOG: prints how many of its missed vblanks syncway's output
# slept through for want of a CPU (its summary says so when the host is
# busy: CI runs guests side by side), or nothing if it reported none.
log_cpu_waits() {
	sed -n 's/.*of the missed vblanks, \([0-9][0-9]*\) slept through while syncway waited for a CPU.*/\1/p' "$1" | head -n 1
}

# run_problems LOG STATUS 'STRING|STRING...': sets run_problems to what went
# wrong in a syncway run that exited with STATUS and wrote LOG: the status if
# it is not 0, the strings LOG lacks, what log_problems finds; "; "-separated.
# Returns 1 if anything did.
run_problems() {
	run_problems=
	[ "$2" = 0 ] || run_problems="exit status $2"
	log_lacks "$1" "$3" || run_problems="${run_problems:+$run_problems; }$log_lacks"
	log_problems "$1" || run_problems="${run_problems:+$run_problems; }$log_problems"
	[ -z "$run_problems" ]
}
