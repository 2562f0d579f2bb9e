/* uinput-devices: plugs a mouse and a touchpad into the kernel through
 * /dev/uinput, for tests of libinput settings in guests whose only input
 * device is QEMU's PS/2 keyboard (input-config.sh), and moves, scrolls and
 * taps them on command.
 *
 * usage: uinput-devices FIFO
 * Creates both devices and prints, flushed, one line for each and then
 * "ready":
 *	mouse eventN		"syncway test mouse": relative motion, a wheel,
 *				three buttons
 *	touchpad eventM		"syncway test touchpad": a clickpad
 *				(one button under the surface), two-finger
 *				multitouch, 100 x 62 mm
 * Then reads commands from FIFO, one a line (it is opened read-write, so
 * writers may come and go: echo tap >FIFO):
 *	move DX DY	one relative motion of the mouse
 *	wheel N		N detents of the mouse's vertical wheel (up for N > 0)
 *	tap		one finger touches the touchpad's middle and lifts
 *	quit		removes both devices and exits 0
 * Exit status 1 when the devices cannot be made (no /dev/uinput: a kernel
 * without CONFIG_INPUT_UINPUT) or a command is not understood.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The touchpad's axes: 40 units a millimetre over 100 x 62 mm, big enough
 * for libinput to treat it as an ordinary touchpad. */
#define TOUCHPAD_RES 40
#define TOUCHPAD_W (100 * TOUCHPAD_RES)
#define TOUCHPAD_H (62 * TOUCHPAD_RES)

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("uinput-devices: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void set_bit_or_die(int fd, unsigned long request, int bit, const char *what)
{
	if (ioctl(fd, request, bit) < 0)
		die("cannot give the device %s %d: %s", what, bit, strerror(errno));
}

static void abs_setup(int fd, int code, int max, int resolution)
{
	struct uinput_abs_setup abs = {
		.code = code,
		.absinfo = { .maximum = max, .resolution = resolution },
	};
	set_bit_or_die(fd, UI_SET_ABSBIT, code, "axis");
	if (ioctl(fd, UI_ABS_SETUP, &abs) < 0)
		die("cannot set up axis %d: %s", code, strerror(errno));
}

/* Opens /dev/uinput for one device; the caller gives it its events. */
static int device_open(void)
{
	int fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open /dev/uinput: %s (a kernel without CONFIG_INPUT_UINPUT?)",
		    strerror(errno));
	return fd;
}

/* Creates the device set up on fd under name and returns its event node's
 * name (eventN), which the kernel makes under the uinput sysfs device. */
static char *device_create(int fd, const char *name)
{
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x5359 } };
	snprintf(setup.name, sizeof(setup.name), "%s", name);
	if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0)
		die("cannot create %s: %s", name, strerror(errno));
	char sysname[64], dir[128];
	if (ioctl(fd, UI_GET_SYSNAME(sizeof(sysname)), sysname) < 0)
		die("cannot read %s's sysfs name: %s", name, strerror(errno));
	snprintf(dir, sizeof(dir), "/sys/devices/virtual/input/%s", sysname);
	DIR *d = opendir(dir);
	if (!d)
		die("cannot read %s: %s", dir, strerror(errno));
	char *event = NULL;
	struct dirent *e;
	while (!event && (e = readdir(d)))
		if (strncmp(e->d_name, "event", 5) == 0)
			event = strdup(e->d_name);
	closedir(d);
	if (!event)
		die("%s has no event node in %s", name, dir);
	return event;
}

static void emit(int fd, int type, int code, int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };
	if (write(fd, &ev, sizeof(ev)) != (ssize_t)sizeof(ev))
		die("cannot send an event: %s", strerror(errno));
}

static void sync_frame(int fd)
{
	emit(fd, EV_SYN, SYN_REPORT, 0);
}

static int mouse_create(char **event)
{
	int fd = device_open();
	set_bit_or_die(fd, UI_SET_EVBIT, EV_KEY, "event type");
	set_bit_or_die(fd, UI_SET_EVBIT, EV_REL, "event type");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_LEFT, "button");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_RIGHT, "button");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_MIDDLE, "button");
	set_bit_or_die(fd, UI_SET_RELBIT, REL_X, "axis");
	set_bit_or_die(fd, UI_SET_RELBIT, REL_Y, "axis");
	set_bit_or_die(fd, UI_SET_RELBIT, REL_WHEEL, "axis");
	*event = device_create(fd, "syncway test mouse");
	return fd;
}

static int touchpad_create(char **event)
{
	int fd = device_open();
	set_bit_or_die(fd, UI_SET_EVBIT, EV_KEY, "event type");
	set_bit_or_die(fd, UI_SET_EVBIT, EV_ABS, "event type");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_LEFT, "button");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_TOUCH, "key");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_TOOL_FINGER, "key");
	set_bit_or_die(fd, UI_SET_KEYBIT, BTN_TOOL_DOUBLETAP, "key");
	set_bit_or_die(fd, UI_SET_PROPBIT, INPUT_PROP_POINTER, "property");
	set_bit_or_die(fd, UI_SET_PROPBIT, INPUT_PROP_BUTTONPAD, "property");
	abs_setup(fd, ABS_X, TOUCHPAD_W, TOUCHPAD_RES);
	abs_setup(fd, ABS_Y, TOUCHPAD_H, TOUCHPAD_RES);
	abs_setup(fd, ABS_MT_SLOT, 1, 0);
	abs_setup(fd, ABS_MT_TRACKING_ID, 65535, 0);
	abs_setup(fd, ABS_MT_POSITION_X, TOUCHPAD_W, TOUCHPAD_RES);
	abs_setup(fd, ABS_MT_POSITION_Y, TOUCHPAD_H, TOUCHPAD_RES);
	*event = device_create(fd, "syncway test touchpad");
	return fd;
}

/* Both frames in one write(): the input core stamps each frame when its
 * SYN_REPORT arrives, so a guest descheduled between two writes would
 * make the touch last longer than libinput's tap timeout. */
static void tap(int fd)
{
	static int tracking_id;
	const struct input_event frames[] = {
		{ .type = EV_ABS, .code = ABS_MT_SLOT, .value = 0 },
		{ .type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = ++tracking_id },
		{ .type = EV_ABS, .code = ABS_MT_POSITION_X, .value = TOUCHPAD_W / 2 },
		{ .type = EV_ABS, .code = ABS_MT_POSITION_Y, .value = TOUCHPAD_H / 2 },
		{ .type = EV_ABS, .code = ABS_X, .value = TOUCHPAD_W / 2 },
		{ .type = EV_ABS, .code = ABS_Y, .value = TOUCHPAD_H / 2 },
		{ .type = EV_KEY, .code = BTN_TOUCH, .value = 1 },
		{ .type = EV_KEY, .code = BTN_TOOL_FINGER, .value = 1 },
		{ .type = EV_SYN, .code = SYN_REPORT },
		{ .type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = -1 },
		{ .type = EV_KEY, .code = BTN_TOUCH, .value = 0 },
		{ .type = EV_KEY, .code = BTN_TOOL_FINGER, .value = 0 },
		{ .type = EV_SYN, .code = SYN_REPORT },
	};
	if (write(fd, frames, sizeof(frames)) != (ssize_t)sizeof(frames))
		die("cannot send a tap: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: uinput-devices FIFO (commands: move DX DY, wheel N, tap, quit)\n");
		return 1;
	}
	FILE *commands = fopen(argv[1], "r+");
	if (!commands)
		die("cannot open %s: %s", argv[1], strerror(errno));

	char *mouse_event, *touchpad_event;
	int mouse = mouse_create(&mouse_event);
	int touchpad = touchpad_create(&touchpad_event);
	printf("mouse %s\ntouchpad %s\nready\n", mouse_event, touchpad_event);
	fflush(stdout);

	char line[128];
	while (fgets(line, sizeof(line), commands)) {
		int dx, dy, n;
		if (sscanf(line, "move %d %d", &dx, &dy) == 2) {
			emit(mouse, EV_REL, REL_X, dx);
			emit(mouse, EV_REL, REL_Y, dy);
			sync_frame(mouse);
		} else if (sscanf(line, "wheel %d", &n) == 1) {
			emit(mouse, EV_REL, REL_WHEEL, n);
			sync_frame(mouse);
		} else if (strcmp(line, "tap\n") == 0) {
			tap(touchpad);
		} else if (strcmp(line, "quit\n") == 0) {
			break;
		} else {
			die("'%.*s' is not a command (move DX DY, wheel N, tap, quit)",
			    (int)strcspn(line, "\n"), line);
		}
	}
	/* Closing the uinput fds removes the devices. */
	close(mouse);
	close(touchpad);
	free(mouse_event);
	free(touchpad_event);
	return 0;
}
