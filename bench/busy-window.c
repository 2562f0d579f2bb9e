/* busy-window: the CPU time of whole processes over a window of guest time,
 * for the virgl frame benchmark (bench/guest-ab.sh virgl, docs/bench.md).
 *
 *   usage: busy-window --warmup S --window S --json FILE PID...
 *
 * Sleeps S seconds of warm-up, then takes a snapshot: CLOCK_MONOTONIC, for
 * each PID the time its threads spent on the CPU in ns, user and kernel (one
 * instruction per ns under -icount shift=0), and the guest's idle time from
 * /proc/stat; sleeps the window and takes another. Writes one JSON line:
 *   {"type":"window","window_start_ns":T0,"window_end_ns":T1,"idle_ns":N,
 *    "procs":[{"pid":P,"comm":"...","threads":N,"busy_ns":N},...]}
 * busy_ns is the growth over the window of the process's CPU-time clock
 * (clock_getcpuclockid(): the sum of every thread's sum_exec_runtime, those
 * that ended included). That is the counter the first field of
 * /proc/PID/schedstat shows per thread, which the guest kernels do not have
 * (no CONFIG_SCHED_INFO); threads is the count at the window's end. The window
 * ends are on the clock of syncway's --stats lines, so that the frames inside
 * it can be counted there. Exits non-zero when a process is gone before the
 * window ends: its time would be missing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 8

struct proc {
	long pid;
	char comm[64];
	int threads;
	unsigned long long ns[2]; /* at the window's start and end */
};

static _Noreturn void die(const char *what, const char *arg)
{
	fprintf(stderr, "busy-window: %s%s\n", what, arg);
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The time p's threads spent on the CPU, ended ones included: the clock
 * clock_getcpuclockid() gives for a process (its thread group's
 * sum_exec_runtime, the counter the first field of schedstat shows per
 * thread); false when p is gone. */
static bool proc_ns(struct proc *p, unsigned long long *out)
{
	clockid_t clock;
	struct timespec ts;
	if (clock_getcpuclockid((pid_t)p->pid, &clock) != 0 || clock_gettime(clock, &ts) != 0)
		return false;
	*out = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/task", p->pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	int threads = 0;
	for (struct dirent *e; (e = readdir(d));)
		threads += e->d_name[0] != '.';
	closedir(d);
	p->threads = threads;
	return true;
}

/* The guest's idle time (idle + iowait of the cpu line), in ns. */
static unsigned long long idle_ns(void)
{
	unsigned long long v[5] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
		die("/proc/stat: ", "no cpu line");
	fclose(f);
	return (v[3] + v[4]) * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "warmup", required_argument, NULL, 'w' },
		{ "window", required_argument, NULL, 'W' },
		{ "json", required_argument, NULL, 'j' },
		{ 0 },
	};
	double warmup = -1, window = -1;
	const char *json = NULL;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'w': warmup = atof(optarg); break;
		case 'W': window = atof(optarg); break;
		case 'j': json = optarg; break;
		default: return 2;
		}
	}
	int n = argc - optind;
	if (warmup < 0 || window <= 0 || !json || n < 1 || n > MAX_PROCS)
		die("usage: busy-window --warmup S --window S --json FILE PID... (at most 8)", "");
	struct proc procs[MAX_PROCS] = { 0 };
	for (int i = 0; i < n; i++) {
		char path[64], *end;
		procs[i].pid = strtol(argv[optind + i], &end, 10);
		if (*end || procs[i].pid <= 0)
			die("not a pid: ", argv[optind + i]);
		snprintf(path, sizeof(path), "/proc/%ld/comm", procs[i].pid);
		FILE *f = fopen(path, "r");
		if (!f || !fgets(procs[i].comm, sizeof(procs[i].comm), f))
			die("no process ", argv[optind + i]);
		fclose(f);
		procs[i].comm[strcspn(procs[i].comm, "\n\"\\")] = 0;
	}
	FILE *out = fopen(json, "w");
	if (!out)
		die("cannot write ", json);

	sleep_s(warmup);
	long long t[2];
	unsigned long long idle[2];
	for (int s = 0; s < 2; s++) {
		if (s)
			sleep_s(window);
		t[s] = now_ns();
		idle[s] = idle_ns();
		for (int i = 0; i < n; i++)
			if (!proc_ns(&procs[i], &procs[i].ns[s]))
				die("gone before the window ended: ", procs[i].comm);
	}
	fprintf(out, "{\"type\":\"window\",\"window_start_ns\":%lld,\"window_end_ns\":%lld,"
		     "\"idle_ns\":%llu,\"procs\":[", t[0], t[1], idle[1] - idle[0]);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s{\"pid\":%ld,\"comm\":\"%s\",\"threads\":%d,\"busy_ns\":%llu}", i ? "," : "",
			procs[i].pid, procs[i].comm, procs[i].threads, procs[i].ns[1] - procs[i].ns[0]);
	fputs("]}\n", out);
	if (fclose(out) != 0)
		die("cannot write ", json);
	return 0;
}
