#!/bin/sh
# No stalls in syncway's event loop: after start-up, no turn of the loop
# (loop_stats.h) takes syncway longer than a refresh (16.7 ms) while a
# session does what sessions do for the first time, each a step of the
# script:
#   pointer    the first pointer motion over the empty desktop (a virtual
#              pointer: the guest has no input device), which shows the
#              first cursor image;
#   keyboard   a second keyboard (wtype's virtual keyboard) pressing a key;
#   x11        the first X11 client (xmessage), which starts Xwayland;
#   layer      a layer-shell surface (swaybg's wallpaper), and the pointer
#              over it;
#   modeset    the output at a smaller mode, 640x480 (wlr-randr), and the
#              pointer over it: what an output that comes costs the loop
#              (no output can be plugged into a guest, and virtio-gpu has
#              one connector);
#   rescale    the output at a scale not seen yet while the theme's
#              cursor shows, and the pointer over it: the theme at that
#              scale is read off the loop (cursor_theme.c; wlroots would
#              read it in the turn of the output's commit), and the log
#              must say it was;
#   off-on     the output turned off and on again at its preferred mode
#              (larger than 640x480: a new swapchain and a first black
#              frame, output_management.c); output-turned-on-again fails
#              when wlr-randr cannot turn it on.
# On the DRM backend (virtio-gpu's card0, no seat daemon, no input
# devices), with a cursor theme shaped like Adwaita's (57 cursors and 67
# links, sizes 24 to 96, two animated with 60 frames; the guest has no
# theme, and the built-in fallback costs nothing to load), generated here.
# The output runs at 800x600: under plain TCG a whole frame of 1280x800
# with pixman (the wallpaper's first) takes 20-30 ms of CPU, which is the
# emulated CPU's speed, not work done at the wrong time.
#   SYNCWAY_ICOUNT=1 tools/vm-run -q --icount -- sh compositor/tests/stalls.sh [BUILD_DIR]
# syncway -v logs each turn over 16.7 ms with what it noted; each step of
# the script writes a line to the same log first, so every long turn is
# counted against the step it happened in. One subtest per step, and one
# that each step did what it should (exit status, X11 window and layer
# surface mapped, the exit summary).
# A step fails on a turn in which syncway's thread used more than a refresh
# of CPU. A turn longer than a refresh with less CPU than that waited: for
# the guest's one vCPU (Xwayland and the clients share it) or in a system
# call (the root file system is 9p: reading XKB files takes hundreds of
# ms): those are listed, with their CPU time, on "#" lines, not failed.
# CPU times mean something with KVM or under QEMU's instruction clock (as
# above; SYNCWAY_ICOUNT=1 tells this script), where a guest ms is a million
# instructions: a few times slower than a host CPU, and the same numbers
# from run to run (the first cursor image with a lazily loaded theme,
# 51 ms; a keymap compiled, 33 ms). Under plain TCG
# the guest charges whatever the host does meanwhile to the thread that
# was running (tens of ms under load), and full frames with pixman cost
# 15-30 ms there: a step that would fail is a SKIP with its turns.
# Environment: SYNCWAY=PATH another syncway binary.
# PASS/FAIL/SKIP lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/stalls/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=stalls
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
pointer=$build/compositor/tests/pointer-client
out=/results/stalls
steps="pointer keyboard x11 layer modeset rescale off-on"
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman
unset WAYLAND_DISPLAY DISPLAY

# Whether CPU times can be held to the budget (see above).
budget=1
grep -q '^model name.*QEMU TCG CPU' /proc/cpuinfo && [ "${SYNCWAY_ICOUNT:-}" != 1 ] && budget=
[ -n "$budget" ] || echo "# plain TCG (no SYNCWAY_ICOUNT=1): turns over the budget are reported, not failed"

if [ ! -e /dev/dri/card0 ]; then
	for step in $steps session; do
		result "$step" skip "no /dev/dri/card0"
	done
	result_summary
	exit
fi

# The cursor theme: Adwaita's shape (wlroots reads every cursor of a theme
# at the size it loads, links included), with blank images.
icons=$(mktemp -d /tmp/stalls-icons.XXXXXX) || exit 2
trap 'rm -rf "$icons"' EXIT
python3 - "$icons/stalls/cursors" <<'EOF' || exit 2
import os, struct, sys
d = sys.argv[1]
os.makedirs(d)
def cursor(path, frames):
    sizes = [24, 32, 48, 64, 96]
    toc = [(s, f) for s in sizes for f in range(frames)]
    pos = 16 + 12 * len(toc)
    head, chunks = [struct.pack('<4sIII', b'Xcur', 16, 0x10000, len(toc))], []
    for s, f in toc:
        head.append(struct.pack('<III', 0xfffd0002, s, pos))
        chunk = struct.pack('<IIIIIIIII', 36, 0xfffd0002, s, 1, s, s, 1, 1, 50) + bytes(4 * s * s)
        chunks.append(chunk)
        pos += len(chunk)
    with open(path, 'wb') as out:
        out.write(b''.join(head + chunks))
for i in range(57):
    cursor(os.path.join(d, 'default' if i == 0 else 'cursor-%d' % i), 60 if i in (1, 2) else 1)
for i in range(67):
    os.symlink('cursor-%d' % (i % 56 + 1), os.path.join(d, 'link-%d' % i))
EOF
export XCURSOR_PATH="$icons" XCURSOR_THEME=stalls XCURSOR_SIZE=24

# The session: each step's line, then the step, then a second for what it
# set off to settle. The exit status says which step failed to run.
script=$out/session.sh
log=$out/session.log
cat >"$script" <<EOF
#!/bin/sh
step() { echo "stalls: step \$1" >&2; }
sleep 3
step pointer
$pointer 0.5 0.5 0.6 0.55 || exit 11
sleep 1
step keyboard
wtype -k a || exit 12
sleep 1
step x11
# Until syncway has mapped its window: Xwayland's first start reads its
# files over 9p. Under the instruction clock the guest's clock jumps ahead
# whenever it waits for the host, so a read the busy host takes long to
# serve lasts any number of guest seconds. Once Xwayland is ready the
# window comes within a second, or, in 3 of 9 runs on a busy host, not at
# all (not understood yet; the third-party suite's
# xwayland-x11-window-maps is the check of that): 30 s after Xwayland is
# ready (or 5 minutes after xmessage started) the session goes on without
# it, and says so.
xmessage "stalls" >/dev/null 2>&1 & xm=\$!
i=0 ready=0
until grep -q 'xwayland: mapped window .*class Xmessage' "$log"; do
	kill -0 \$xm 2>/dev/null || exit 13
	grep -q 'xwayland: ready on' "$log" && ready=\$((ready + 1))
	if [ \$i -ge 1500 ] || [ \$ready -ge 150 ]; then
		echo "stalls: xmessage not mapped" >&2
		break
	fi
	sleep 0.2
	i=\$((i + 1))
done
sleep 1
kill \$xm
wait \$xm
step layer
swaybg -c '#336699' & bg=\$!
i=0
until grep -q 'layer shell: mapped "wallpaper"' "$log"; do
	[ \$i -lt 30000 ] && kill -0 \$bg 2>/dev/null || exit 14
	sleep 0.2
	i=\$((i + 1))
done
sleep 1
$pointer 0.3 0.3 0.4 0.4 || exit 14
kill \$bg
wait \$bg
sleep 1
step modeset
wlr-randr --output Virtual-1 --mode 640x480 || exit 15
sleep 1
$pointer 0.8 0.8 || exit 16
sleep 1
step rescale
wlr-randr --output Virtual-1 --scale 2 || exit 18
sleep 1
$pointer 0.5 0.5 0.7 0.7 || exit 19
sleep 1
wlr-randr --output Virtual-1 --scale 1 || exit 20
sleep 1
step off-on
wlr-randr --output Virtual-1 --off || exit 21
sleep 1
if wlr-randr --output Virtual-1 --on --preferred; then
	sleep 1
	$pointer 0.2 0.2 || exit 22
	sleep 1
else
	echo "stalls: the output could not be turned on" >&2
fi
step end
EOF
chmod +x "$script"

LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1 WLR_BACKENDS=drm timeout 20000 "$syncway" -v \
	--report 0 --output Virtual-1:800x600 -x -s "$script" >"$log" 2>&1
status=$?

# The long turns of each step: "STEP CPU_MS MSms@Ss(WHAT,cpu:CPU_MSms)" lines.
long=$out/long-turns.txt
awk '
	/^stalls: step / { step = $3; next }
	/event loop: a turn took / && step != "" && step != "end" {
		ms = $0; sub(/.*a turn took /, "", ms); sub(/ ms.*/, "", ms)
		at = $0; sub(/.* ms after /, "", at); sub(/ s .*/, "", at)
		what = $0; sub(/.* s \(/, "", what); sub(/\), [0-9.]* ms of it on a CPU$/, "", what)
		cpu = $0; sub(/.*\), /, "", cpu); sub(/ ms of it on a CPU$/, "", cpu)
		gsub(/ /, "_", what)
		print step, cpu, ms "ms@" at "s(" what ",cpu:" cpu "ms)"
	}' "$log" >"$long"
echo "# long turns before the session (start-up): $(awk '
	/^stalls: step / { exit }
	/event loop: a turn took / { n++ }
	END { print n + 0 }' "$log")"
grep -a '^syncway: event loop:' "$log" | sed 's/^/# /'

for step in $steps; do
	if ! grep -q "^stalls: step $step\$" "$log"; then
		result "$step" fail "the session did not reach this step (syncway status $status)"
		continue
	fi
	own=$(awk -v s="$step" '$1 == s && $2 > 16.7 { printf "%s ", $3 }' "$long")
	other=$(awk -v s="$step" '$1 == s && $2 <= 16.7 { printf "%s ", $3 }' "$long")
	[ -z "$other" ] || echo "# $step: turns over 16.7 ms with less CPU than that: $other"
	if [ "$step" = rescale ] && ! grep -qa 'cursor theme: read at scale 2.00 off the event loop' "$log"; then
		result "$step" fail "the cursor theme at scale 2 was not read off the event loop"
	elif [ -z "$own" ]; then
		result "$step" pass
	elif [ -z "$budget" ]; then
		result "$step" skip "plain TCG: turns with over 16.7 ms of CPU: $own"
	else
		result "$step" fail "turns with over 16.7 ms of syncway's CPU: $own"
	fi
done
if grep -q '^stalls: the output could not be turned on' "$log"; then
	result output-turned-on-again fail "wlr-randr --on failed: $(grep -a 'output management:' "$log" | tail -n 1 | cut -c1-120)"
elif grep -q '^stalls: step end$' "$log"; then
	result output-turned-on-again pass
fi

ok=1 why=
run_problems "$log" "$status" "syncway: output Virtual-1: 800x600@|syncway: event loop: |stalls: step end" ||
	{ ok=0; why=$run_problems; }
# 0 turns: syncway's epoll_wait() did not see the loop's waits.
grep -qE '^syncway: event loop: [1-9][0-9]* turns' "$log" ||
	{ ok=0; why="${why:+$why; }no turns of the event loop measured"; }
if grep -q '^stalls: xmessage not mapped' "$log"; then
	echo "# the xmessage window was not mapped (30 s of guest time after Xwayland was ready): not judged here"
elif ! grep -q 'xwayland: mapped window .*class Xmessage' "$log"; then
	ok=0
	why="${why:+$why; }no xmessage window mapped"
fi
grep -q 'layer shell: mapped "wallpaper" on the background layer' "$log" ||
	{ ok=0; why="${why:+$why; }no wallpaper layer surface mapped"; }
if [ $ok = 1 ]; then
	result session pass
else
	tail -n 8 "$log" | sed 's/^/    /'
	result session fail "$why"
fi

result_summary
