#!/bin/sh
# security-context-v1 with real clients: what wayland-info, grim, wtype and
# wl-clipboard can do outside and inside tools/syncway-sandbox, nested
# sandboxes, a context that ends with its command or with a killed sandbox,
# and the log line naming a sandboxed client. One syncway for all of it.
#   tools/vm-run -q -- sh compositor/tests/sandbox.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/sandbox/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup sandbox "$1"
sandbox=$build/tools/syncway-sandbox

# What a sandboxed client must not see (compositor/security_context.c), and
# of those what syncway offers whatever else is built: the others are
# checked as soon as their modules add them.
privileged='zwlr_screencopy_manager_v1 zwlr_export_dmabuf_manager_v1
ext_image_copy_capture_manager_v1 zwlr_data_control_manager_v1 ext_data_control_manager_v1
ext_session_lock_manager_v1 zwlr_output_manager_v1 zwlr_output_power_manager_v1
zwlr_gamma_control_manager_v1 zwp_virtual_keyboard_manager_v1 zwlr_virtual_pointer_manager_v1
zwp_input_method_manager_v2 zwlr_foreign_toplevel_manager_v1 ext_foreign_toplevel_list_v1
zwp_keyboard_shortcuts_inhibit_manager_v1 zwlr_layer_shell_v1 wp_security_context_manager_v1'
offered='zwlr_screencopy_manager_v1 zwlr_data_control_manager_v1 zwlr_output_manager_v1
zwp_virtual_keyboard_manager_v1 zwlr_virtual_pointer_manager_v1 zwlr_layer_shell_v1
wp_security_context_manager_v1'
ordinary='wl_compositor wl_shm wl_seat xdg_wm_base wl_output wl_data_device_manager'

# Each step leaves its exit status in $out/NAME.status, its output in
# $out/NAME.out and .err; a client stuck on a global it lacks is stopped.
steps=$out/steps.sh
cat >"$steps" <<EOF
step() {
	name=\$1
	shift
	timeout 20 "\$@" >$out/\$name.out 2>$out/\$name.err </dev/null
	echo \$? >$out/\$name.status
}
step outside-info wayland-info
step inside-info $sandbox --engine org.example.test --app-id test.app --instance-id inst-1 -- wayland-info
step nested $sandbox -- $sandbox -- true
step outside-grim grim -t ppm $out/outside.ppm
step inside-grim $sandbox -- grim -t ppm $out/inside.ppm
step inside-wtype $sandbox -- wtype sandboxed
step inside-wl-copy $sandbox -- env WAYLAND_DEBUG=1 wl-copy sandboxed-text
step outside-wl-paste wl-paste --no-newline
step outside-wl-clear wl-copy --clear
step usage $sandbox
step exit-status $sandbox -- sh -c 'exit 7'
step not-found $sandbox -- /nonexistent/command
step ended $sandbox -- sh -c 'echo "\$WAYLAND_DISPLAY"'
step after-end sh -c 'WAYLAND_DISPLAY=\$(cat $out/ended.out) wayland-info'
# The sandbox killed (it cannot clean up): its command, still running,
# connects again on the socket left behind. The compositor must have
# stopped accepting there when the close fd hung up.
step killed $sandbox -- sh -c 'echo "\$WAYLAND_DISPLAY" >$out/killed.name; kill -9 \$PPID; sleep 0.5;
	wayland-info >$out/after-kill.out 2>$out/after-kill.err; echo \$? >$out/after-kill.status'
i=0
while [ ! -s $out/after-kill.status ] && [ \$i -lt 100 ]; do
	sleep 0.1
	i=\$((i + 1))
done
test -S "\$XDG_RUNTIME_DIR/\$(cat $out/killed.name)"
echo \$? >$out/killed-socket.status
step still-running wayland-info
EOF
timeout 120 "$syncway" -v --report 0 --no-xwayland -x -s "sh $steps" >"$log" 2>&1
status=$?

# interfaces NAME: the interfaces in step NAME's wayland-info listing.
interfaces() {
	sed -n "s/^interface: '\([^']*\)'.*/\1/p" "$out/$1.out"
}
# offers NAME INTERFACE: whether step NAME's listing has INTERFACE.
offers() {
	grep -q "^interface: '$2'" "$out/$1.out"
}
# step_status NAME: step NAME's exit status ("none" if it never ran).
step_status() {
	cat "$out/$1.status" 2>/dev/null || echo none
}
# err NAME: the end of step NAME's stderr, on one line.
err() {
	tail -n 3 "$out/$1.err" 2>/dev/null | tr '\n' ' '
}

missing='' shown=''
for i in $offered; do
	offers outside-info "$i" || missing="$missing $i"
done
for i in $privileged; do
	offers inside-info "$i" && shown="$shown $i"
done
if [ "$(step_status outside-info)" != 0 ] || [ "$(step_status inside-info)" != 0 ]; then
	result sandboxed-client-sees-no-privileged-globals fail \
		"wayland-info exited $(step_status outside-info) outside, $(step_status inside-info) inside: $(err inside-info)"
elif [ -n "$missing" ]; then
	result sandboxed-client-sees-no-privileged-globals fail "outside lacks$missing"
elif [ -n "$shown" ]; then
	result sandboxed-client-sees-no-privileged-globals fail "inside sees$shown"
else
	result sandboxed-client-sees-no-privileged-globals pass
fi

# Whatever is not privileged, the sandbox sees as well.
lost=''
for i in $(interfaces outside-info); do
	for p in $privileged; do
		[ "$i" = "$p" ] && continue 2
	done
	offers inside-info "$i" || lost="$lost $i"
done
for i in $ordinary; do
	offers inside-info "$i" || lost="$lost $i"
done
if [ "$(step_status inside-info)" != 0 ] || [ -n "$lost" ]; then
	result sandboxed-client-keeps-ordinary-globals fail \
		"inside lacks$lost (wayland-info exited $(step_status inside-info))"
else
	result sandboxed-client-keeps-ordinary-globals pass
fi

if [ "$(step_status inside-grim)" = 0 ] || [ -s "$out/inside.ppm" ]; then
	result sandboxed-screencopy-is-refused fail "grim captured in the sandbox"
elif ! grep -q "wlr-screencopy" "$out/inside-grim.err"; then
	result sandboxed-screencopy-is-refused fail "grim failed for another reason: $(err inside-grim)"
else
	result sandboxed-screencopy-is-refused pass
fi

if [ "$(step_status outside-grim)" != 0 ]; then
	result unsandboxed-screencopy-works fail "grim exited $(step_status outside-grim): $(err outside-grim)"
elif [ "$(head -c 15 "$out/outside.ppm" | tr '\n' ' ')" != "P6 1280 720 255" ]; then
	result unsandboxed-screencopy-works fail "not a 1280x720 PPM: $(head -c 15 "$out/outside.ppm" | tr '\n' ' ')"
else
	result unsandboxed-screencopy-works pass
fi

if [ "$(step_status inside-wtype)" = 0 ] || ! grep -q "virtual keyboard" "$out/inside-wtype.err"; then
	result sandboxed-virtual-keyboard-is-refused fail \
		"wtype exited $(step_status inside-wtype): $(err inside-wtype)"
else
	result sandboxed-virtual-keyboard-is-refused pass
fi

# wl-copy without data-control maps a surface of its own and sets the
# selection with the keyboard focus syncway gives a new window: the
# ordinary clipboard of a focused client, which a sandbox keeps.
if [ "$(step_status inside-wl-copy)" != 0 ]; then
	result sandboxed-wl-copy-needs-a-focused-surface fail \
		"wl-copy exited $(step_status inside-wl-copy): $(err inside-wl-copy)"
elif grep -q 'zwlr_data_control_manager_v1' "$out/inside-wl-copy.err"; then
	result sandboxed-wl-copy-needs-a-focused-surface fail "wl-copy used data-control in the sandbox"
elif ! grep -q 'xdg_surface[#@][0-9]*\.get_toplevel' "$out/inside-wl-copy.err" ||
	! grep -q 'wl_data_device[#@][0-9]*\.set_selection' "$out/inside-wl-copy.err"; then
	result sandboxed-wl-copy-needs-a-focused-surface fail \
		"wl-copy did not set the selection through a window and wl_data_device"
elif [ "$(cat "$out/outside-wl-paste.out")" != sandboxed-text ]; then
	result sandboxed-wl-copy-needs-a-focused-surface fail \
		"wl-paste outside got '$(cat "$out/outside-wl-paste.out")' (status $(step_status outside-wl-paste))"
else
	result sandboxed-wl-copy-needs-a-focused-surface pass
fi

# syncway hides the manager rather than answer with the nested error (which
# wlroots would send too): the inner sandbox sees no manager at all.
if [ "$(step_status nested)" != 125 ] ||
	! grep -q 'offers no wp_security_context_manager_v1' "$out/nested.err"; then
	result nested-sandbox-refused fail "inner sandbox: status $(step_status nested): $(err nested)"
else
	result nested-sandbox-refused pass
fi

if log_lacks "$log" "sandboxed client pid|connected: sandbox_engine org.example.test, app_id test.app, instance_id inst-1"; then
	result sandboxed-client-logged-with-its-metadata pass
else
	result sandboxed-client-logged-with-its-metadata fail "$log_lacks"
fi

if [ "$(step_status usage)" != 125 ] || ! grep -q '^usage: syncway-sandbox' "$out/usage.err"; then
	result sandbox-tool-usage-and-exit-status fail "no CMD: status $(step_status usage): $(err usage)"
elif [ "$(step_status exit-status)" != 7 ]; then
	result sandbox-tool-usage-and-exit-status fail "exit 7 in the sandbox gave $(step_status exit-status)"
elif [ "$(step_status not-found)" != 127 ]; then
	result sandbox-tool-usage-and-exit-status fail "a missing command gave $(step_status not-found): $(err not-found)"
else
	result sandbox-tool-usage-and-exit-status pass
fi

name=$(cat "$out/ended.out" 2>/dev/null)
if [ "$(step_status ended)" != 0 ] || [ -z "$name" ]; then
	result sandbox-socket-goes-with-its-command fail "the sandbox exited $(step_status ended): $(err ended)"
elif [ -e "$XDG_RUNTIME_DIR/$name" ]; then
	result sandbox-socket-goes-with-its-command fail "$name is still there"
elif [ "$(step_status after-end)" = 0 ]; then
	result sandbox-socket-goes-with-its-command fail "a client connected on $name after its command exited"
else
	result sandbox-socket-goes-with-its-command pass
fi

if [ "$(step_status killed)" != 137 ]; then
	result killed-sandbox-context-refuses-clients fail "the sandbox was not killed: status $(step_status killed)"
elif [ "$(step_status killed-socket)" != 0 ]; then
	result killed-sandbox-context-refuses-clients fail "no socket left behind to try"
elif [ "$(step_status after-kill)" = 0 ]; then
	result killed-sandbox-context-refuses-clients fail "a client connected on the killed sandbox's socket"
elif [ "$(step_status still-running)" != 0 ]; then
	result killed-sandbox-context-refuses-clients fail "syncway stopped answering: $(err still-running)"
else
	result killed-sandbox-context-refuses-clients pass
fi
rm -f "$XDG_RUNTIME_DIR/$(cat "$out/killed.name" 2>/dev/null)"

# Every context closed, every client gone: the fd counts at exit agree,
# and no socket is left, when a context still open would leave its
# listening socket (LEAK? does not see it: syncway's own is closed by then).
if ! run_problems "$log" $status "syncway: open fds:"; then
	tail -n 6 "$log" | sed 's/^/    /'
	result syncway-exits-cleanly-without-fd-leaks fail "$run_problems"
elif ! grep -q '^syncway: open fds: .*, sockets [0-9]* -> 0)' "$log"; then
	result syncway-exits-cleanly-without-fd-leaks fail "sockets left: $(grep '^syncway: open fds:' "$log")"
else
	result syncway-exits-cleanly-without-fd-leaks pass
fi

result_summary
