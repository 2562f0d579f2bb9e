#!/bin/sh
# Inside a guest (tools/pacing-demo boots it): syncway headless at HZ with
# --stats, and side by side on its one output syncway-gears in mailbox,
# frame-callback, fifo-v1 and commit-timing-v1 (HZ/2 FPS) modes and an
# unmodified vkgears (Vulkan FIFO, so fifo-v1 through Mesa's WSI), for SECS
# seconds. Each client's app id tells it apart in the stats.
#   sh bench/pacing-demo-guest.sh BUILD OUT SECS HZ SIZE
set -u
build=$1 out=$2 secs=$3 hz=$4 size=$5
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_BACKENDS=headless WLR_RENDERER=pixman
unset WAYLAND_DISPLAY
# lavapipe compiles vkgears' shaders for seconds in a fresh guest; they are
# kept in the work tree (build/, outside the demo's results) for the next
# boot.
export MESA_SHADER_CACHE_DIR=${MESA_SHADER_CACHE_DIR:-/syncway/build/pacing-shader-cache}

gears="$build/clients/syncway-gears --buffer dmabuf --size $size --duration $secs --report $secs"
cat >"$out/clients.sh" <<EOF
#!/bin/sh
# syncway sets DISPLAY for Xwayland; vkgears would take X11 with it.
unset DISPLAY
$gears --mode mailbox --title gears-mailbox >"$out/gears-mailbox.log" 2>&1 &
$gears --mode frame-callback --title gears-frame-callback >"$out/gears-frame-callback.log" 2>&1 &
$gears --mode fifo --title gears-fifo >"$out/gears-fifo.log" 2>&1 &
$gears --mode mailbox --target-fps $((hz / 2)) --title gears-commit-timing >"$out/gears-commit-timing.log" 2>&1 &
WAYLAND_DEBUG=1 vkgears -size $size >"$out/vkgears.log" 2>&1 &
vk=\$!
sleep $secs
kill -TERM \$vk
wait
EOF
echo "pacing-demo: syncway at $hz Hz, 5 clients for $secs s" >&2
syncway=$build/compositor/syncway
"$syncway" --headless-size "1280x720@$hz" --no-xwayland --report 0 --stats "$out/stats.jsonl" -x \
	-s "sh $out/clients.sh" >"$out/syncway.log" 2>&1
status=$?
grep -E '^syncway: (HEADLESS|commits:|fifo:|commit timing:)' "$out/syncway.log" | grep -v '  ' >&2
exit $status
