#!/usr/bin/env python3
# Mutation check of the conformance suite (docs/conformance.md): writes
# syncway's explicit sync code (compositor/explicit_sync.c, acquire_wait.c,
# release.c) with one deliberate bug. Meant for a scratch copy of the tree,
# never the repository itself:
#   cp -a . /tmp/mut && rm -rf /tmp/mut/.git && cd /tmp/mut
#   for f in $(python3 tests/conformance/mutants.py files); do cp $f $f.orig; done
#   for m in $(python3 tests/conformance/mutants.py list); do
#     python3 tests/conformance/mutants.py $m &&
#     tools/in-root ninja -C build compositor/syncway && cp build/compositor/syncway syncway-$m
#   done
#   tools/vm-run -q -- sh -c 'for m in syncway-m*; do echo "== $m";
#     CT_SYNCWAY=$m CT_ROBUST=0 tests/conformance/run-in-guest | grep -E "^(FAIL|[0-9]+ passed)"; done'
# m10 changes only what GPU renderers do: run it with WLR_RENDERER=gles2 too.
# Each edit is an exact text replacement in the file it names; a mutant is
# written from the .orig copies, so every file `files` lists is rewritten
# and the previous mutant's edits are gone. Once a file changes, a mutation
# that no longer applies stops with an assertion (update it).
# `mutants.py check` (a unit test) reads the sources in place and fails when
# any mutation would no longer apply exactly once.
import json
import os
import sys
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..')
name = sys.argv[1] if len(sys.argv) > 1 else 'list'
ES, AW, RE = 'compositor/explicit_sync.c', 'compositor/acquire_wait.c', 'compositor/release.c'
M = {
 'm1-no-conflict-check': [(ES, 'pending->acquire_point >= pending->release_point', 'false && pending->acquire_point >= pending->release_point')],
 'm2-materialize-only': [(AW, 'wait->timeline->handle, wait->point, 0,\n\t\t\t       efd->fd)', 'wait->timeline->handle, wait->point, (1u << 2) /* WAIT_AVAILABLE */,\n\t\t\t       efd->fd)')],
 'm3-no-wait': [(ES, 'if (ready == 1) {', 'if (1) {')],
 'm4-exists-on-wl-surface': [(ES, 'wl_resource_post_error(resource, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS', 'wl_resource_post_error(surface_resource, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS')],
 'm5-32-bit-points': [(ES, 'uint64_t point = (uint64_t)point_hi << 32 | point_lo;', 'uint64_t point = point_lo;')],
 'm6-release-at-commit': [(RE, '''	struct sw_release *release = calloc(1, sizeof(*release));
	if (!release)
		return false;''', '''	{ uint64_t p_ = point; sw_syncobj_timeline_signal(sync->stats, sync->drm_fd, &timeline->handle, &p_, 1); }
	struct sw_release *release = calloc(1, sizeof(*release));
	if (!release)
		return false;''')],
 'm7-points-reused': [(ES, '	*(struct sw_sync_state *)src = (struct sw_sync_state){ 0 };', '	timeline_ref(((struct sw_sync_state *)src)->acquire_timeline); timeline_ref(((struct sw_sync_state *)src)->release_timeline);')],
 'm8-first-set-wins': [(ES, '''	timeline_ref(timeline);
	timeline_unref(*slot);''', '''	if (*slot) return;
	timeline_ref(timeline);
	timeline_unref(*slot);''')],
 'm9-current-buffer-counts': [(ES, 'struct wlr_buffer *buffer = surface->pending.buffer;', 'struct wlr_buffer *buffer = surface->pending.buffer ? surface->pending.buffer : (surface->buffer ? &surface->buffer->base : NULL);')],
 'm10-release-before-render-done': [(RE, 'if (!release->sync->release_after_frames) {', 'if (true || !release->sync->release_after_frames) {')],
}
files = sorted({f for edits in M.values() for f, _, _ in edits})
if name == 'check':
    texts = {f: open(os.path.join(top, f)).read() for f in files}
    stale = [m for m, edits in M.items() if any(texts[f].count(a) != 1 for f, a, _ in edits)]
    message = 'stale: ' + ' '.join(stale) if stale else ''
    print('%s mutants/all-apply%s' % ('FAIL' if stale else 'PASS', ': ' + message if stale else ''))
    if os.environ.get('SYNCWAY_TEST_JSON'):
        with open(os.environ['SYNCWAY_TEST_JSON'], 'a') as f:
            f.write(json.dumps({'suite': 'mutants', 'subtest': 'all-apply',
                                'result': 'fail' if stale else 'pass', 'ms': 0,
                                'message': message}, separators=(',', ':')) + '\n')
    sys.exit(1 if stale else 0)
if name in ('list', 'files'):
    print(' '.join(M if name == 'list' else files))
    sys.exit(0)
if os.path.exists(os.path.join(top, '.git')):
    sys.exit('mutants.py: this is a git work tree; run it in a scratch copy (see the header)')
for path in files:
    s = open(os.path.join(top, path + '.orig')).read()
    for f, a, b in M[name]:
        if f == path:
            assert s.count(a) == 1, (name, path, a)
            s = s.replace(a, b)
    open(os.path.join(top, path), 'w').write(s)
print(name)
