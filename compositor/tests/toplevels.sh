#!/bin/sh
# The windows as other clients see them, in one syncway run: task bars
# (wlr-foreign-toplevel-management through wlrctl, ext-foreign-toplevel-list
# through toplevel-client) list, activate, maximize and close windows of
# weston-simple-shm and toplevel-client; xdg-activation tokens focus a
# window only when the client with keyboard focus made them; a client that
# inhibits keyboard shortcuts gets the compositor's key bindings, but not
# the VT switch.
#   tools/vm-run -q -- sh compositor/tests/toplevels.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/toplevels/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"

# What runs inside syncway (-s): the clients and the checks, which write
# "SUBTEST pass|fail [MESSAGE]" lines to $out/results.txt (OUT, the
# suite's log directory of desktop_setup).
if [ "${1:-}" = --inside ]; then
	build=$2 log=$3 out=$4
	client=$build/compositor/tests/toplevel-client
	results=$out/results.txt
	fifos=$(mktemp -d)
	# A client that died must not take the checks with it.
	trap '' PIPE
	# Each wait is 15 s at most: a slow guest.
	report() {
		echo "$1 $2 ${3:-}" >>"$results"
	}
	# lacks FILE 'LINE|LINE...': true when the listing FILE lacks any of the
	# LINEs; missing names them.
	lacks() {
		missing=
		rest=$2
		while [ -n "$rest" ]; do
			want=${rest%%|*}
			rest=${rest#"$want"}
			rest=${rest#|}
			grep -qxF -- "toplevel $want" "$1" || missing="${missing:+$missing, }'$want'"
		done
		[ -n "$missing" ]
	}
	a=$out/alpha.log b=$out/beta.log

	# Three windows: simple-shm, then alpha, then beta, which has focus.
	weston-simple-shm >"$out/simple-shm.log" 2>&1 &
	shm_pid=$!
	timeout 15 wlrctl toplevel waitfor title:simple-shm >/dev/null 2>&1 ||
		echo "weston-simple-shm's window never appeared" >>"$out/setup.txt"
	mkfifo "$fifos/alpha" "$fifos/beta"
	"$client" window sw.alpha "Alpha window" <"$fifos/alpha" >"$a" 2>&1 &
	exec 3>"$fifos/alpha"
	wait_count "$a" '^focus-in' 1 15 || echo "alpha never had focus" >>"$out/setup.txt"
	"$client" window sw.beta "Beta window" <"$fifos/beta" >"$b" 2>&1 &
	exec 4>"$fifos/beta"
	wait_count "$b" '^focus-in' 1 15 || echo "beta never had focus" >>"$out/setup.txt"

	name='wlrctl-finds-windows-by-app-id-and-title'
	if ! wlrctl toplevel find app_id:sw.alpha "title:Alpha window"; then
		report $name fail "no window app_id:sw.alpha 'title:Alpha window'"
	elif ! wlrctl toplevel find title:simple-shm; then
		report $name fail "no window title:simple-shm"
	elif wlrctl toplevel find app_id:sw.nowhere; then
		report $name fail "found a window app_id:sw.nowhere"
	else
		report $name pass
	fi

	name='toplevel-list-shows-titles-and-app-ids'
	"$client" list >"$out/list-1.txt" 2>&1
	if lacks "$out/list-1.txt" "app_id=sw.alpha title=Alpha window|app_id=sw.beta title=Beta window"; then
		report $name fail "the list lacks $missing: $(tr '\n' ';' <"$out/list-1.txt")"
	elif ! grep -q '^toplevel app_id=.* title=simple-shm$' "$out/list-1.txt"; then
		report $name fail "simple-shm is not listed: $(tr '\n' ';' <"$out/list-1.txt")"
	else
		report $name pass
	fi

	name='title-change-reaches-both-lists'
	echo "title Alpha renamed" >&3
	if ! timeout 15 wlrctl toplevel waitfor "title:Alpha renamed" >/dev/null 2>&1; then
		report $name fail "wlrctl never saw the title 'Alpha renamed'"
	else
		"$client" list >"$out/list-2.txt" 2>&1
		if lacks "$out/list-2.txt" "app_id=sw.alpha title=Alpha renamed"; then
			report $name fail "the list lacks $missing: $(tr '\n' ';' <"$out/list-2.txt")"
		else
			report $name pass
		fi
	fi

	name='activate-request-focuses-window'
	wlrctl toplevel focus app_id:sw.alpha
	if wait_count "$a" '^focus-in' 2 15; then
		report $name pass
	else
		report $name fail "alpha got no keyboard focus after 'wlrctl toplevel focus app_id:sw.alpha'"
	fi

	name='activated-state-follows-focus'
	if ! wlrctl toplevel find app_id:sw.alpha state:active; then
		report $name fail "alpha has focus and is not active"
	elif ! wlrctl toplevel find app_id:sw.beta state:inactive; then
		report $name fail "beta lost focus and is still active"
	else
		report $name pass
	fi

	# Alpha has focus and vouches for beta, as a launcher would.
	name='activation-token-focuses-window'
	echo token >&3
	if ! wait_count "$a" '^token ' 1 15; then
		report $name fail "alpha got no activation token"
	else
		token=$(sed -n 's/^token //p' "$a" | tail -n 1)
		echo "activate $token" >&4
		if wait_count "$b" '^focus-in' 2 15; then
			report $name pass
		else
			report $name fail "beta got no keyboard focus with alpha's token"
		fi
	fi

	# Now beta has focus; alpha tries its own tokens: one made with
	# nothing, one with its last serial but no surface (wlroots takes both),
	# one with its serial and surface (wlroots makes it worthless: the
	# surface has no focus).
	name='token-without-focus-does-not-steal-focus'
	for kind in token-bare token-serial token; do
		n=$(lines "$a" '^token ')
		echo "$kind" >&3
		wait_count "$a" '^token ' $((n + 1)) 15 || break
		echo "activate $(sed -n 's/^token //p' "$a" | tail -n 1)" >&3
	done
	if [ "$(lines "$a" '^token ')" -lt 4 ]; then
		report $name fail "alpha got no token for $kind"
	elif ! wait_count "$log" 'xdg-activation: "Alpha renamed" not activated' 2 15; then
		report $name fail "syncway did not refuse both tokens it knew: $(grep 'xdg-activation' "$log" | tr '\n' ';')"
	elif [ "$(lines "$a" '^focus-in')" != 2 ] || [ "$(lines "$b" '^focus-out')" != 1 ]; then
		report $name fail "focus moved: alpha has $(lines "$a" '^focus-in') focus-in, beta $(lines "$b" '^focus-out') focus-out"
	else
		report $name pass
	fi

	# Beta (focused) inhibits shortcuts: Alt+F1 is its key, not the
	# compositor's window cycling.
	name='shortcuts-inhibitor-gets-compositor-keys'
	echo inhibit >&4
	if ! wait_count "$b" '^inhibitor active' 1 15; then
		report $name fail "beta's inhibitor never became active"
	else
		wtype -M alt -k F1 -m alt
		if ! wait_count "$b" '^key F1 alt$' 1 15; then
			report $name fail "Alt+F1 did not reach beta"
		elif [ "$(lines "$b" '^focus-out')" != 1 ]; then
			report $name fail "Alt+F1 took the focus from beta"
		else
			report $name pass
		fi
	fi

	name='vt-switch-works-despite-inhibitor'
	wtype -k XF86Switch_VT_1
	if [ "$(lines "$b" '^inhibitor active')" != 1 ] || [ "$(lines "$b" '^inhibitor inactive')" != 0 ]; then
		report $name fail "beta has no active inhibitor to test against"
	elif ! wait_count "$log" 'VT 1: no session to switch' 1 15; then
		report $name fail "syncway did not take XF86Switch_VT_1 while beta inhibits shortcuts"
	elif grep -q '^key XF86Switch_VT_1' "$b"; then
		report $name fail "XF86Switch_VT_1 reached beta"
	else
		report $name pass
	fi

	# Focus away from beta: its inhibitor goes inactive and Alt+F1 cycles
	# windows again; back to beta, it is active again.
	name='shortcuts-inhibitor-follows-keyboard-focus'
	wlrctl toplevel focus app_id:sw.alpha
	if ! wait_count "$b" '^inhibitor inactive' 1 15; then
		report $name fail "beta's inhibitor stayed active without focus"
	else
		wtype -M alt -k F1 -m alt
		if ! wait_count "$a" '^focus-out' 3 15; then
			report $name fail "Alt+F1 did not cycle focus away from alpha"
		else
			wlrctl toplevel focus app_id:sw.beta
			if wait_count "$b" '^inhibitor active' 2 15; then
				report $name pass
			else
				report $name fail "beta's inhibitor did not come back with focus"
			fi
		fi
	fi

	# wlrctl 0.2.2 cannot match state:maximized (it takes the state's value,
	# 0, for none) and crashes after asking for maximize or fullscreen
	# (it frees its handles before their last events): only what the
	# window is told counts here, and wlrctl's status does not.
	name='maximize-request-maximizes-window'
	wlrctl toplevel maximize app_id:sw.alpha 2>/dev/null
	if wait_count "$a" '^configure maximized' 1 15; then
		report $name pass
	else
		report $name fail "alpha was not configured maximized"
	fi

	name='fullscreen-request-fullscreens-window'
	wlrctl toplevel fullscreen app_id:sw.beta 2>/dev/null
	if ! wait_count "$b" '^configure.* fullscreen' 1 15; then
		report $name fail "beta was not configured fullscreen"
	elif ! wlrctl toplevel find app_id:sw.beta state:fullscreen; then
		report $name fail "beta is fullscreen and not said to be"
	else
		report $name pass
	fi

	name='close-request-closes-window'
	wlrctl toplevel close title:simple-shm
	if wait_until 15 not_running $shm_pid; then
		report $name pass
	else
		report $name fail "weston-simple-shm still runs after 'wlrctl toplevel close title:simple-shm'"
		kill $shm_pid
	fi

	name='closed-window-leaves-both-lists'
	"$client" list >"$out/list-3.txt" 2>&1
	if wlrctl toplevel find title:simple-shm; then
		report $name fail "wlrctl still finds title:simple-shm"
	elif grep -q 'title=simple-shm$' "$out/list-3.txt"; then
		report $name fail "simple-shm is still listed: $(tr '\n' ';' <"$out/list-3.txt")"
	elif lacks "$out/list-3.txt" "app_id=sw.alpha title=Alpha renamed|app_id=sw.beta title=Beta window"; then
		report $name fail "the list lacks $missing: $(tr '\n' ';' <"$out/list-3.txt")"
	else
		report $name pass
	fi

	echo quit >&3
	echo quit >&4
	exec 3>&- 4>&-
	wait
	rm -r "$fifos"
	exit 0
fi

desktop_setup toplevels "$1"

timeout 150 "$syncway" -v --report 0 --no-xwayland -x -s "sh $0 --inside $build $log $out" >"$log" 2>&1
status=$?
setup=
[ -e "$out/setup.txt" ] && setup=" (setup: $(tr '\n' ';' <"$out/setup.txt"))"
for name in wlrctl-finds-windows-by-app-id-and-title toplevel-list-shows-titles-and-app-ids \
	title-change-reaches-both-lists activate-request-focuses-window activated-state-follows-focus \
	activation-token-focuses-window token-without-focus-does-not-steal-focus \
	shortcuts-inhibitor-gets-compositor-keys vt-switch-works-despite-inhibitor \
	shortcuts-inhibitor-follows-keyboard-focus maximize-request-maximizes-window \
	fullscreen-request-fullscreens-window close-request-closes-window closed-window-leaves-both-lists; do
	line=$(grep "^$name " "$out/results.txt" 2>/dev/null)
	verdict=${line#"$name "}
	case $verdict in
	pass*) result "$name" pass ;;
	fail*) result "$name" fail "${verdict#fail }$setup" ;;
	*) result "$name" fail "did not run (syncway exit status $status)$setup" ;;
	esac
done

check_exit compositor-exits-cleanly-after-toplevel-clients "$log" $status \
	"xdg-activation: activating \"Beta window\""

result_summary
