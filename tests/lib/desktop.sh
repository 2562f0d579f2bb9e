# shellcheck shell=sh
# What the desktop suites (compositor/tests/*.sh) share, in the guest;
# sourced after result.sh, never run. POSIX sh (dash).
#
#   desktop_setup SUITE [BUILD_DIR]
#	sets result_suite; build (BUILD_DIR, default build); syncway
#	($SYNCWAY, default the one in build); tmp (a new scratch directory);
#	out (the logs, in tmp); log ($out/syncway.log); pixel_log
#	($out/grim.log). The environment of a headless syncway on pixman,
#	without a display of its own; an EXIT trap that kills $pids (the
#	suite adds its background processes there), undoes guest_login,
#	copies out to /results/SUITE and removes tmp. The logs the suites
#	poll while they grow live on the guest's tmpfs, not on the 9p share
#	/results: under load a syncway log written there while polled once
#	came back with a hole of NULs where its lines had been.
#   give_up SUBTEST MESSAGE
#	reports SUBTEST failed with MESSAGE, then the summary, and exits:
#	for a set-up the rest of the suite cannot do without.
#   syncway_start LOG ARG...
#	starts $syncway ARG... in the background, its output in LOG, its pid
#	in syncway_pid (and pids); fails when it makes no Wayland socket
#	within 30 s (the end of LOG shown), else exports WAYLAND_DISPLAY.
#	Environment for it: assignments before the call.
#   syncway_stop SUBTEST 'STRING|STRING...'
#	stops it (SIGTERM, 30 s to exit) and checks the run, as check_exit.
#   check_exit SUBTEST LOG STATUS 'STRING|STRING...'
#	passes SUBTEST when run_problems (result.sh) finds nothing wrong with
#	the syncway run that wrote LOG and exited with STATUS; else fails it
#	with them, the end of LOG shown.
#   wait_until SECONDS CMD...
#	whether CMD succeeds within SECONDS, tried every 0.1 s.
#   has FILE STRING
#	whether FILE has a line with STRING (for wait_until).
#   lines FILE REGEX
#	how many lines of FILE match the extended REGEX (0 without FILE).
#   has_lines FILE REGEX N / wait_count FILE REGEX N SECONDS
#	whether FILE has N such lines; whether it gets them within SECONDS.
#   wait_for FILE REGEX SECONDS
#	whether FILE gets one such line within SECONDS.
#   after FILE STRING
#	FILE's lines after the last line STRING (all of them without one):
#	what a client printed after a mark the suite appended.
#   stop PID...
#	ends the PIDs (SIGTERM) and waits for them.
#   not_running PID / exited PID SECONDS
#	whether PID is gone; whether it ends within SECONDS, its status in
#	exit_status ("timeout" when it does not).
#   pixel X Y
#	the colour at logical X,Y of the layout as "R G B", from a 1x1
#	screencopy (grim); empty when grim fails (its stderr goes to
#	$pixel_log, default /dev/null).
#   wait_pixel SECONDS X Y 'R G B'
#	whether that pixel becomes that colour within SECONDS; colour has
#	the last one seen.
#   ppm_size FILE
#	"W H" of a binary PPM, as grim writes them ("P6\nW H\n255\n").
#   colours [OUTPUT] / wait_colours OUTPUT|'' 'COLOURS' SECONDS
#	sets colours to the distinct colours of a screencopy of OUTPUT (of
#	the whole layout without one), as sorted "rrggbb" words; whether
#	they become exactly COLOURS within SECONDS (colours has the last).
#   guest_login PASSWORD DIR
#	gives root PASSWORD for PAM, as lockers (swaylock) check it. The
#	guest's root file system is read-only and has no password and no
#	/etc/pam.d/login (which Debian's swaylock PAM file includes): copies
#	of /etc/shadow and /etc/pam.d with both, in the scratch directory
#	DIR, are bind-mounted over them. Fails when openssl or a mount does.
#   guest_login_undo
#	unmounts them again (the EXIT trap of desktop_setup does).

# shellcheck disable=SC2034 # what it sets is for the suites
desktop_setup() {
	result_suite=$1
	build=${2:-build}
	syncway=${SYNCWAY:-$build/compositor/syncway}
	desktop_results=/results/$1
	rm -rf "$desktop_results"
	tmp=$(mktemp -d)
	out=$tmp/out
	log=$out/syncway.log
	pixel_log=$out/grim.log
	mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
	chmod 700 "$XDG_RUNTIME_DIR"
	export XDG_RUNTIME_DIR WLR_RENDERER=pixman WLR_BACKENDS=headless
	unset WAYLAND_DISPLAY DISPLAY
	pids=
	trap desktop_cleanup EXIT
}

desktop_cleanup() {
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$pids" ] || kill $pids 2>/dev/null
	[ -z "${guest_login_hash:-}" ] || guest_login_undo
	cp -r "$out" "$desktop_results"
	rm -rf "$tmp"
}

give_up() {
	result "$1" fail "$2"
	result_summary
	exit
}

syncway_start() {
	syncway_log=$1
	shift
	"$syncway" "$@" >"$syncway_log" 2>&1 &
	syncway_pid=$!
	pids="$pids $syncway_pid"
	if ! wait_until 30 has "$syncway_log" "running on WAYLAND_DISPLAY="; then
		tail -n 20 "$syncway_log" | sed 's/^/    /'
		return 1
	fi
	WAYLAND_DISPLAY=$(sed -n 's/^syncway: running on WAYLAND_DISPLAY=//p' "$syncway_log")
	export WAYLAND_DISPLAY
}

syncway_stop() {
	kill -TERM "$syncway_pid"
	exited "$syncway_pid" 30 || kill -KILL "$syncway_pid"
	syncway_stop_pids=" $pids "
	pids="${syncway_stop_pids%% "$syncway_pid" *} ${syncway_stop_pids#* "$syncway_pid" }"
	check_exit "$1" "$syncway_log" "$exit_status" "$2"
}

# shellcheck disable=SC2154 # run_problems: result.sh
check_exit() {
	if run_problems "$2" "$3" "$4"; then
		result "$1" pass
	else
		tail -n 6 "$2" | sed 's/^/    /'
		result "$1" fail "$run_problems"
	fi
}

wait_until() {
	wait_left=$(($1 * 10))
	shift
	until "$@"; do
		wait_left=$((wait_left - 1))
		[ $wait_left -gt 0 ] || return 1
		sleep 0.1
	done
}

has() {
	grep -qF -- "$2" "$1" 2>/dev/null
}

lines() {
	lines_n=$(grep -cE -- "$2" "$1" 2>/dev/null)
	echo "${lines_n:-0}"
}

has_lines() {
	[ "$(lines "$1" "$2")" -ge "$3" ]
}

wait_count() {
	wait_until "$4" has_lines "$1" "$2" "$3"
}

wait_for() {
	wait_count "$1" "$2" 1 "$3"
}

after() {
	awk -v s="$2" '{ l[NR] = $0 } $0 == s { n = NR }
		END { for (i = n + 1; i <= NR; i++) print l[i] }' "$1"
}

stop() {
	kill "$@" 2>/dev/null
	wait "$@" 2>/dev/null
}

not_running() {
	! kill -0 "$1" 2>/dev/null
}

exited() {
	exit_status=timeout
	wait_until "$2" not_running "$1" || return 1
	wait "$1"
	exit_status=$?
}

pixel() {
	pixel_ppm=${TMPDIR:-/tmp}/pixel.$$.ppm
	# grim writes "P6\n1 1\n255\n" and three bytes.
	grim -s 1 -g "$1,$2 1x1" -t ppm "$pixel_ppm" 2>>"${pixel_log:-/dev/null}" &&
		od -An -tu1 -j11 -N3 "$pixel_ppm" | tr -s ' ' | sed 's/^ //'
	rm -f "$pixel_ppm"
}

wait_pixel() {
	wait_until "$1" pixel_is "$2" "$3" "$4"
}

pixel_is() {
	colour=$(pixel "$1" "$2")
	[ "$colour" = "$3" ]
}

ppm_size() {
	head -c 20 "$1" | sed -n 2p
}

colours() {
	colours_ppm=${TMPDIR:-/tmp}/colours.$$.ppm
	grim ${1:+-o "$1"} -t ppm "$colours_ppm" 2>>"${pixel_log:-/dev/null}" || {
		colours="nothing (grim failed)"
		return
	}
	# shellcheck disable=SC2046 # W and H
	set -- $(ppm_size "$colours_ppm")
	colours=$(tail -c $(($1 * $2 * 3)) "$colours_ppm" | od -An -v -tx1 -w3 | tr -d ' ' |
		sort -u | tr '\n' ' ')
	colours=${colours% }
	rm -f "$colours_ppm"
}

wait_colours() {
	wait_left=$(($3 * 4))
	while :; do
		colours "$1"
		[ "$colours" = "$2" ] && return 0
		wait_left=$((wait_left - 1))
		[ $wait_left -gt 0 ] || return 1
		sleep 0.25
	done
}

guest_login() {
	guest_login_hash=$(openssl passwd -6 "$1") && [ -n "$guest_login_hash" ] || return 1
	cp -a /etc/pam.d "$2/pam.d" || return 1
	[ -e "$2/pam.d/login" ] || echo '@include common-auth' >"$2/pam.d/login"
	awk -F: -v OFS=: -v h="$guest_login_hash" '$1 == "root" { $2 = h } { print }' \
		/etc/shadow >"$2/shadow" || return 1
	mount --bind "$2/shadow" /etc/shadow && mount --bind "$2/pam.d" /etc/pam.d
}

guest_login_undo() {
	umount /etc/shadow /etc/pam.d 2>/dev/null
}
