#!/bin/sh
# Inside a guest (tools/soak boots it): syncway headless, pixman, its vblank
# clock at HZ on one WxH output, with CLIENTS syncway-soak-clients churning
# for the whole run (each seeded by its number) and one more that is killed
# (SIGKILL) every second or two and started again. At every report line of
# syncway (every REPORT seconds) one sample of syncway's process goes to
# OUT/samples.tsv (the live files are kept in the guest's /tmp, copied to
# OUT at the end: the work tree's 9p mount is no place for a file written
# and read at once); the run stops at FRAMES presented frames or after SECS
# seconds, whichever comes first (0: no limit).
#   sh bench/soak-guest.sh BUILD OUT HZ SIZE CLIENTS REPORT FRAMES SECS [SYNCWAY]
# SYNCWAY: the compositor to soak (default BUILD/compositor/syncway); the
# clients are BUILD's.
# samples.tsv columns: guest uptime (s), frames presented so far, VmRSS and
# RssAnon (kB), open fds (sockets included), syncobj handles and the longest
# dispatch in the window (ms) from syncway's report lines when they have
# them ("syncobj handles N", "; longest dispatch X ms"; else "-"), the
# window's FPS, syncway's CPU time so far (clock ticks), RssFile and
# RssShmem (kB), malloc's bytes in use and free from the report lines
# ("heap N B in use, M B free"; else "-"), and the open fds that are
# sockets (the listening ones and the clients' connections), and the Size
# and Rss of syncway's [heap] mapping (kB, /proc/PID/smaps; "-" without
# one): what of VmRSS the heap's pages are, and the most they can be. Also
# syncway's /proc/PID/smaps at the warm-up's end (a tenth of the run) and
# at the stop: OUT/smaps-warm.txt, OUT/smaps-end.txt.
set -u
build=$1 out=$2 hz=$3 size=$4 clients=$5 report=$6 max_frames=$7 max_secs=$8
syncway=${9:-$build/compositor/syncway}
results=$out
out=$(mktemp -d /tmp/soak.XXXXXX)
mkdir -p "$results" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_BACKENDS=headless WLR_RENDERER=pixman
unset WAYLAND_DISPLAY DISPLAY

client=$build/clients/syncway-soak-client
cat >"$out/clients.sh" <<EOF
#!/bin/sh
# The steady clients run until the sampler asks them to stop; the killed
# one is started again until then.
pids=
for i in \$(seq 1 $clients); do
	$client --seed \$i --session 8 >"$out/client-\$i.log" 2>&1 &
	pids="\$pids \$!"
done
(
	n=0
	while [ ! -e "$out/stop" ]; do
		n=\$((n + 1))
		timeout -s KILL \$((1 + n % 2)) $client --seed \$((1000 + n)) --session 0.5 >/dev/null 2>&1
	done
	echo \$n >"$out/killed-runs"
) &
killer=\$!
while [ ! -e "$out/stop" ]; do sleep 1; done
status=0
for p in \$pids; do
	kill -TERM \$p
	wait \$p || status=1
done
wait \$killer
exit \$status
EOF
echo "soak: $syncway at ${size}@${hz}, $clients clients + 1 killed again and again, report every $report s" >&2
"$syncway" --headless-size "${size}@${hz}" --no-xwayland --report "$report" -x \
	-s "sh $out/clients.sh" >"$out/syncway.log" 2>&1 &
pid=$!

# The sampler: one sample per report line, no process forked per sample
# (the guest has one CPU, shared with syncway and its clients).
tail -n +1 -f --pid=$pid "$out/syncway.log" | {
	frames=0 stopped='' handles=- longest=- heap=- heap_free=-
	read -r start _ </proc/uptime
	while IFS= read -r line; do
		[ -n "$stopped" ] && continue
		# The optional fields, from whichever of syncway's periodic
		# lines has them; a sample takes the last ones seen.
		case $line in *"syncobj handles "*)
			handles=${line#*syncobj handles }
			handles=${handles%%[!0-9]*} ;;
		esac
		case $line in *"; longest dispatch "*)
			longest=${line#*; longest dispatch }
			longest=${longest%% ms*} ;;
		esac
		case $line in *"; heap "*" B in use, "*" B free"*)
			heap=${line#*; heap }
			heap=${heap%% B in use*}
			heap_free=${line#*B in use, }
			heap_free=${heap_free%% B free*} ;;
		esac
		case $line in
		"syncway: HEADLESS-1: "*" frames in "*) ;;
		*) continue ;;
		esac
		read -r now _ </proc/uptime
		n=${line#syncway: HEADLESS-1: }
		n=${n%% *}
		frames=$((frames + n))
		fps=${line#* seconds = }
		fps=${fps%% FPS*}
		rss=- anon=- file=- shmem=-
		while read -r key value _; do
			case $key in
			VmRSS:) rss=$value ;;
			RssAnon:) anon=$value ;;
			RssFile:) file=$value ;;
			RssShmem:) shmem=$value ;;
			esac
		done <"/proc/$pid/status"
		# The heap is among the first mappings: stop at its Rss.
		heap_size=- heap_rss=- in_heap=
		while read -r key value _ _ _ name; do
			case $key in
			Size:) [ -n "$in_heap" ] && heap_size=$value ;;
			Rss:) [ -n "$in_heap" ] && { heap_rss=$value; break; } ;;
			*-*) [ "$name" = "[heap]" ] && in_heap=1 ;;
			esac
		done <"/proc/$pid/smaps"
		read -r stat <"/proc/$pid/stat"
		set -- $stat
		cpu=$((${14} + ${15}))
		set -- /proc/$pid/fd/*
		fds=$#
		sockets=0
		for fd; do
			[ -S "$fd" ] && sockets=$((sockets + 1))
		done
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$now" "$frames" "$rss" \
			"$anon" "$fds" "$handles" "$longest" "$fps" "$cpu" "$file" "$shmem" "$heap" "$heap_free" "$sockets" \
			"$heap_size" "$heap_rss" >>"$out/samples.tsv"
		elapsed=$(( ${now%.*} - ${start%.*} ))
		# syncway's mappings at the warm-up's end and at the stop: which
		# of them the RSS that stays came from (two forks in a run).
		if [ -z "${smaps_warm:-}" ] &&
		   { { [ "$max_frames" -gt 0 ] && [ "$frames" -ge $((max_frames / 10)) ]; } ||
		     { [ "$max_frames" = 0 ] && [ "$elapsed" -ge $((max_secs / 10)) ]; }; }; then
			echo "# at $frames frames" >"$out/smaps-warm.txt"
			cat "/proc/$pid/smaps" >>"$out/smaps-warm.txt"
			smaps_warm=1
		fi
		if { [ "$max_frames" -gt 0 ] && [ "$frames" -ge "$max_frames" ]; } ||
		   { [ "$max_secs" -gt 0 ] && [ "$elapsed" -ge "$max_secs" ]; }; then
			echo "# at $frames frames" >"$out/smaps-end.txt"
			cat "/proc/$pid/smaps" >>"$out/smaps-end.txt"
			touch "$out/stop"
			stopped=1
			echo "soak: stopping at $frames frames after $elapsed s" >&2
		elif [ $((${now%.*} / 30)) != "${last_note:-}" ]; then
			last_note=$((${now%.*} / 30))
			echo "soak: $elapsed s: $frames frames, $fps FPS, VmRSS $rss kB, $fds fds" >&2
		fi
	done
}
wait $pid
status=$?
cp "$out"/* "$results/"
grep -E '^syncway: (HEADLESS-1: [0-9]+ frames presented|open fds: |heap: )' "$out/syncway.log" >&2
cat "$out"/client-*.log >&2
[ -f "$out/killed-runs" ] && echo "soak: the killed client was started $(cat "$out/killed-runs") times" >&2
echo "soak: syncway exited with status $status" >&2
exit $status
