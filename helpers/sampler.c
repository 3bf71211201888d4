/*
 * sshperf-sampler: the test server's own cost. CPU time (user and system)
 * including processes that already ended, and PSS / RSS summed over every
 * process of the server and of the commands its sessions run. Also the
 * kit's one reader of process lists (tree, group, ps): the shell asks it
 * instead of parsing /proc itself.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "common.h"

#define SD_DEST		"org.freedesktop.systemd1"
#define UNIT_PREFIX	"/org/freedesktop/systemd1/unit"
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define UNKNOWN		UINT64_MAX
#define MAX_DEPTH	64		/* cgroup and process tree depth */

/* What a sampler looks at, from the options. */
struct config {
	const char	*unit;		/* -u: systemd unit, or NULL */
	uint32_t	 uid;		/* -U: the test user (user-UID.slice) */
	int		 have_uid;
	pid_t		 pid;		/* -p: the listener (direct mode) */
	const char	*cgroup;	/* -g: its own cgroup, e.g. "/sshd-perf-test" */
	int		 per_process;	/* -P */
};

/* The fields of /proc/PID/stat that the sampler uses. */
struct pstat {
	char		 comm[64];
	char		 state;
	pid_t		 ppid;
	pid_t		 pgid;
	uint64_t	 utime, stime, cutime, cstime;	/* clock ticks */
	uint64_t	 threads;
	uint64_t	 start;		/* clock ticks after boot */
};

/* CPU of one thing (a cgroup or a process tree), ns; UNKNOWN when not read. */
struct cpu {
	uint64_t	 user_ns;
	uint64_t	 system_ns;
	uint64_t	 total_ns;
	const char	*total_from;	/* "CPUUsageNSec", "cgroup2 cpu.stat", ... */
	const char	*split_from;
};

struct pidlist {
	pid_t		*v;
	size_t		 n;
	size_t		 cap;
};

/*
 * Whose a process is, for the memory split ("once" only): the listener
 * (the unit's MainPID or -p), the test user's manager (every process in
 * the cgroup of user@UID.service: systemd --user, (sd-pam) and what it
 * started; one per user, shared by all of the user's sessions), or
 * anything else (per-connection sshd processes, the sessions' commands).
 * Told apart by pid and cgroup, never by a process's name.
 */
enum role { ROLE_LISTENER, ROLE_MANAGER, ROLE_OTHER, ROLES };
static const char *const role_names[ROLES] = {
	"listener", "manager", "other"
};

struct part {
	uint64_t	 pss_kb, rss_kb;
	size_t		 processes;
};

struct sample {
	uint64_t	 mono_ns;
	const char	*cpu_source;	/* "cgroup" or "proc" */
	struct cpu	 server;
	struct cpu	 session;	/* user-UID.slice; 0 in direct mode */
	uint64_t	 pss_kb, rss_kb;
	size_t		 processes;
	struct part	 part[ROLES];	/* the same, split by role ("once") */
	uint64_t	 manager_cpu_ns;	/* user@UID.service; 0 when not running */
	/* The whole machine (all CPUs, /proc/stat): busy, steal, total. */
	uint64_t	 machine_busy_ns, machine_steal_ns, machine_total_ns;
};

/* The state kept between samples. */
struct sampler {
	const struct config *cf;
	sd_bus		*bus;
	char		*unit_cgroup;	/* ControlGroup of the unit */
	char		 slice[64];	/* "user-UID.slice" or "" */
	char		 manager[64];	/* "user@UID.service" or "" */
	int		 roles;		/* split memory by role ("once") */
	pid_t		 listener;	/* for the split */
	long		 clk_tck;
	struct pidlist	 pids;
	FILE		*rows;		/* -P: per-process rows, or NULL */
};

/*
 * Reads a small /proc or /sys file into buf (NUL-terminated). Returns the
 * length, or -1 with errno set (ENOENT / ESRCH when a process vanished).
 * These files fill a read as far as it can hold, so a short read is the
 * end: that saves a read per file, and syscalls are what a sample costs.
 */
static ssize_t
read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len < size / 2)
			break;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/*
 * Parses one /proc/PID/stat line. The command name sits between the first
 * '(' and the LAST ')' and may hold spaces and parentheses, so the numbered
 * fields are counted from after the last ')'. Returns 0, or -1 when the
 * line is malformed.
 */
static int
parse_stat(const char *line, struct pstat *ps)
{
	const char *open_paren, *close_paren, *p;
	unsigned long long v[22];
	size_t len;
	int field;
	char *end;

	memset(ps, 0, sizeof(*ps));
	if ((open_paren = strchr(line, '(')) == NULL ||
	    (close_paren = strrchr(line, ')')) == NULL ||
	    close_paren < open_paren)
		return -1;
	len = (size_t)(close_paren - open_paren - 1);
	if (len >= sizeof(ps->comm))
		len = sizeof(ps->comm) - 1;
	memcpy(ps->comm, open_paren + 1, len);
	ps->comm[len] = '\0';

	/* Field 3 (state) follows ") "; fields 4..22 are numbers. */
	p = close_paren + 1;
	while (*p == ' ')
		p++;
	if (*p == '\0')
		return -1;
	ps->state = *p++;
	for (field = 4; field <= 22; field++) {
		while (*p == ' ')
			p++;
		/* Some fields are signed in the kernel (tty, priority). */
		if (*p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v[field - 1] = strtoull(p, &end, 10);
		if (errno != 0 || end == p)
			return -1;
		p = end;
	}
	ps->ppid = (pid_t)v[3];
	ps->pgid = (pid_t)v[4];
	ps->utime = v[13];
	ps->stime = v[14];
	ps->cutime = v[15];
	ps->cstime = v[16];
	ps->threads = v[19];
	ps->start = v[21];
	return 0;
}

/* Reads /proc/PID/stat; -1 when the process is gone (not an error). */
static int
read_pstat(pid_t pid, struct pstat *ps)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	return parse_stat(buf, ps);
}

/*
 * The value in kB of the line starting with key ("Pss:") in a
 * /proc/PID/smaps_rollup or status text, or UNKNOWN.
 */
static uint64_t
field_kb(const char *text, const char *key)
{
	const char *p = text;
	size_t klen = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, klen) == 0)
			return strtoull(p + klen, NULL, 10);
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return UNKNOWN;
}

/*
 * PSS and RSS of one process in kB: smaps_rollup, or status (VmRSS, no
 * PSS) on kernels without it. Returns -1 when the process is gone or is a
 * kernel thread (no memory of its own).
 */
static int
read_memory(pid_t pid, uint64_t *pss_kb, uint64_t *rss_kb)
{
	char path[64], buf[4096];
	uint64_t pss, rss;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if (read_small(path, buf, sizeof(buf)) > 0 &&
	    (pss = field_kb(buf, "Pss:")) != UNKNOWN &&
	    (rss = field_kb(buf, "Rss:")) != UNKNOWN) {
		*pss_kb = pss;
		*rss_kb = rss;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 ||
	    (rss = field_kb(buf, "VmRSS:")) == UNKNOWN)
		return -1;
	*pss_kb = 0;
	*rss_kb = rss;
	return 0;
}

static void
pidlist_add(struct pidlist *l, pid_t pid)
{
	pid_t *nv;
	size_t ncap;

	if (l->n == l->cap) {
		ncap = l->cap ? l->cap * 2 : 64;
		if ((nv = reallocarray(l->v, ncap, sizeof(*nv))) == NULL)
			err(2, "reallocarray");
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n++] = pid;
}

/* Adds the pids listed one per line in text. */
static void
pidlist_add_text(struct pidlist *l, const char *text)
{
	const char *p = text;
	unsigned long v;
	char *end;

	while (*p != '\0') {
		v = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (v > 0 && v <= INT_MAX)
			pidlist_add(l, (pid_t)v);
		p = end;
		while (*p == ' ' || *p == '\n')
			p++;
	}
}

/*
 * Adds the children of pid from /proc/PID/task/TID/children, which lists
 * the children of one thread: only the main thread's for a process with
 * one thread (sshd, shells), every thread's otherwise.
 */
static void
add_children(struct pidlist *l, pid_t pid, uint64_t threads)
{
	char path[PATH_MAX], buf[16384];
	struct dirent *de;
	DIR *d;

	if (threads <= 1) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
		    (int)pid, (int)pid);
		if (read_small(path, buf, sizeof(buf)) > 0)
			pidlist_add_text(l, buf);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return;		/* gone meanwhile */
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
		    (int)pid, de->d_name);
		if (read_small(path, buf, sizeof(buf)) > 0)
			pidlist_add_text(l, buf);
	}
	closedir(d);
}

/* Adds the pids of the cgroup folder dir and of every cgroup below it. */
static void
add_cgroup_procs(struct pidlist *l, const char *dir, int depth)
{
	char path[PATH_MAX], *buf;
	struct dirent *de;
	DIR *d;

	if (depth > MAX_DEPTH || (d = opendir(dir)) == NULL)
		return;
	if ((buf = malloc(65536)) == NULL)
		err(2, "malloc");
	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) <
	    (int)sizeof(path) && read_small(path, buf, 65536) > 0)
		pidlist_add_text(l, buf);
	free(buf);
	while ((de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			add_cgroup_procs(l, path, depth + 1);
	}
	closedir(d);
}

/* The folder that holds the whole systemd cgroup tree (v2, hybrid or v1). */
static const char *
cgroup_tree_root(void)
{
	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) == 0)
		return CGROUP_ROOT;
	if (access(CGROUP_ROOT "/systemd", F_OK) == 0)
		return CGROUP_ROOT "/systemd";
	return CGROUP_ROOT "/unified";
}

/*
 * User and system CPU of the cgroup cg (a ControlGroup path such as
 * "/system.slice/x.service"): cgroup v2 cpu.stat (also the unified
 * hierarchy of a hybrid setup), else v1 cpuacct.stat. Fills c->user_ns,
 * system_ns and split_from; leaves them UNKNOWN when there is no file.
 */
static void
cgroup_cpu_split(const char *cg, long clk_tck, struct cpu *c)
{
	static const char *const v2_roots[] = {
		CGROUP_ROOT, CGROUP_ROOT "/unified"
	};
	static const char *const v1_roots[] = {
		CGROUP_ROOT "/cpuacct", CGROUP_ROOT "/cpu,cpuacct",
		CGROUP_ROOT "/cpuacct,cpu"
	};
	char path[PATH_MAX], buf[2048];
	uint64_t user, sys;
	size_t i;

	c->user_ns = c->system_ns = UNKNOWN;
	c->split_from = "none";
	for (i = 0; i < sizeof(v2_roots) / sizeof(v2_roots[0]); i++) {
		snprintf(path, sizeof(path), "%s%s/cpu.stat", v2_roots[i], cg);
		if (read_small(path, buf, sizeof(buf)) > 0 &&
		    (user = field_kb(buf, "user_usec ")) != UNKNOWN &&
		    (sys = field_kb(buf, "system_usec ")) != UNKNOWN) {
			c->user_ns = user * 1000;
			c->system_ns = sys * 1000;
			c->split_from = "cgroup2 cpu.stat";
			return;
		}
	}
	for (i = 0; i < sizeof(v1_roots) / sizeof(v1_roots[0]); i++) {
		snprintf(path, sizeof(path), "%s%s/cpuacct.stat", v1_roots[i],
		    cg);
		if (read_small(path, buf, sizeof(buf)) > 0 &&
		    (user = field_kb(buf, "user ")) != UNKNOWN &&
		    (sys = field_kb(buf, "system ")) != UNKNOWN) {
			c->user_ns = user * (NS_PER_S / (uint64_t)clk_tck);
			c->system_ns = sys * (NS_PER_S / (uint64_t)clk_tck);
			c->split_from = "cgroup1 cpuacct.stat";
			return;
		}
	}
}

/*
 * The CPU of a unit: CPUUsageNSec over sd-bus (systemd counts processes
 * that ended), split into user and system from its cgroup. Without
 * CPUUsageNSec (accounting off on cgroup v1) the total is the split's sum.
 * Returns the unit's ControlGroup (malloc'd, "" when it has none).
 */
static char *
unit_cpu(struct sampler *s, const char *unit, struct cpu *c)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *iface;
	char *path = NULL, *cg = NULL;
	uint64_t nsec = UNKNOWN;
	size_t len = strlen(unit);

	iface = len > 6 && strcmp(unit + len - 6, ".slice") == 0 ?
	    "org.freedesktop.systemd1.Slice" :
	    len > 6 && strcmp(unit + len - 6, ".scope") == 0 ?
	    "org.freedesktop.systemd1.Scope" :
	    "org.freedesktop.systemd1.Service";
	if (sd_bus_path_encode(UNIT_PREFIX, unit, &path) < 0)
		errx(2, "sd_bus_path_encode %s", unit);
	if (sd_bus_get_property_trivial(s->bus, SD_DEST, path, iface,
	    "CPUUsageNSec", &error, 't', &nsec) < 0)
		nsec = UNKNOWN;
	sd_bus_error_free(&error);
	if (sd_bus_get_property_string(s->bus, SD_DEST, path, iface,
	    "ControlGroup", &error, &cg) < 0 || cg == NULL) {
		free(cg);
		if ((cg = strdup("")) == NULL)
			err(2, "strdup");
	}
	sd_bus_error_free(&error);
	free(path);

	c->total_ns = nsec;
	c->total_from = "CPUUsageNSec";
	if (*cg != '\0')
		cgroup_cpu_split(cg, s->clk_tck, c);
	else {
		c->user_ns = c->system_ns = UNKNOWN;
		c->split_from = "none";
	}
	if (c->total_ns == UNKNOWN && c->user_ns != UNKNOWN) {
		c->total_ns = c->user_ns + c->system_ns;
		c->total_from = c->split_from;
	}
	return cg;
}

/*
 * CPU of a directly started server from the cgroup the kit put it in: every
 * process it started is counted, also one that ended after its parent had
 * gone (init reaps it, so the listener's cutime never sees it). v1 cpuacct
 * gives the exact total in cpuacct.usage. Adds the cgroup's processes to
 * s->pids. Returns -1 when the cgroup cannot be read.
 */
static int
direct_cgroup_cpu(struct sampler *s, struct cpu *c)
{
	static const char *const roots[] = {
		CGROUP_ROOT, CGROUP_ROOT "/unified", CGROUP_ROOT "/cpuacct",
		CGROUP_ROOT "/cpu,cpuacct", CGROUP_ROOT "/cpuacct,cpu"
	};
	char dir[PATH_MAX], path[PATH_MAX], buf[64];
	const char *errstr;
	uint64_t usage;
	size_t i;

	cgroup_cpu_split(s->cf->cgroup, s->clk_tck, c);
	if (c->user_ns == UNKNOWN)
		return -1;
	c->total_ns = c->user_ns + c->system_ns;
	c->total_from = c->split_from;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (snprintf(dir, sizeof(dir), "%s%s", roots[i],
		    s->cf->cgroup) >= (int)sizeof(dir) - 32)
			continue;
		snprintf(path, sizeof(path), "%.*s/cgroup.procs",
		    (int)sizeof(dir) - 32, dir);
		if (access(path, R_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%.*s/cpuacct.usage",
		    (int)sizeof(dir) - 32, dir);
		if (read_small(path, buf, sizeof(buf)) > 0) {
			buf[strcspn(buf, "\n")] = '\0';
			if (parse_u64(buf, 0, UINT64_MAX - 1, &usage,
			    &errstr) == 0) {
				c->total_ns = usage;
				c->total_from = "cgroup1 cpuacct.usage";
			}
		}
		add_cgroup_procs(&s->pids, dir, 0);
		return 0;
	}
	return -1;
}

/*
 * CPU of a process tree from /proc: the root's utime+stime+cutime+cstime
 * (cutime/cstime hold the children it has reaped, with their own reaped
 * children), plus the same four of every live descendant. Walked breadth
 * first, each process's stat read before its children are listed: a child
 * reaped after its parent was read is missed for this one sample, never
 * counted twice. Fills s->pids with the root and its descendants.
 * Returns -1 when the root is gone.
 */
static int
tree_cpu(struct sampler *s, pid_t root, struct cpu *c)
{
	struct pstat ps;
	uint64_t user = 0, sys = 0, tick_ns = NS_PER_S / (uint64_t)s->clk_tck;
	size_t i, first = s->pids.n;

	pidlist_add(&s->pids, root);
	for (i = first; i < s->pids.n; i++) {
		if (read_pstat(s->pids.v[i], &ps) != 0) {
			if (i == first)
				return -1;
			continue;	/* ended meanwhile: normal */
		}
		user += ps.utime + ps.cutime;
		sys += ps.stime + ps.cstime;
		add_children(&s->pids, s->pids.v[i], ps.threads);
	}
	c->user_ns = user * tick_ns;
	c->system_ns = sys * tick_ns;
	c->total_ns = c->user_ns + c->system_ns;
	c->total_from = c->split_from = "proc";
	return 0;
}

/* The listener of a unit (MainPID), or 0. */
static pid_t
unit_main_pid(struct sampler *s)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	uint32_t pid = 0;
	char *path = NULL;

	if (sd_bus_path_encode(UNIT_PREFIX, s->cf->unit, &path) < 0)
		errx(2, "sd_bus_path_encode");
	if (sd_bus_get_property_trivial(s->bus, SD_DEST, path,
	    "org.freedesktop.systemd1.Service", "MainPID", &error, 'u',
	    &pid) < 0)
		pid = 0;
	sd_bus_error_free(&error);
	free(path);
	return (pid_t)pid;
}

/*
 * True when a cgroup path in buf, the text of a /proc/PID/cgroup, has the
 * component name (e.g. "user@1000.service"): cgroup v2's "0::" line, or
 * the name=systemd line of v1 / hybrid. Changes buf.
 */
static int
cgroup_text_has(char *buf, const char *name)
{
	char *p, *line, *next;
	size_t len = strlen(name);

	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* hierarchy-ID:controllers:path */
		if ((p = strchr(line, ':')) == NULL ||
		    (p = strchr(p + 1, ':')) == NULL)
			continue;
		while ((p = strchr(p, '/')) != NULL) {
			p++;
			if (strncmp(p, name, len) == 0 &&
			    (p[len] == '/' || p[len] == '\0'))
				return 1;
		}
	}
	return 0;
}

/* True when process pid is in a cgroup with the component name. */
static int
in_cgroup_named(pid_t pid, const char *name)
{
	char path[64], buf[8192];

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	return cgroup_text_has(buf, name);
}

static enum role
role_of(struct sampler *s, pid_t pid)
{
	if (pid == s->listener)
		return ROLE_LISTENER;
	if (*s->manager != '\0' && in_cgroup_named(pid, s->manager))
		return ROLE_MANAGER;
	return ROLE_OTHER;
}

/* Sums PSS and RSS over s->pids (duplicates counted once). */
static void
sum_memory(struct sampler *s, struct sample *out)
{
	struct pstat ps;
	uint64_t pss, rss;
	enum role r = ROLE_OTHER;
	size_t i, j;
	int dup;

	out->pss_kb = out->rss_kb = 0;
	out->processes = 0;
	memset(out->part, 0, sizeof(out->part));
	for (i = 0; i < s->pids.n; i++) {
		for (dup = 0, j = 0; j < i && !dup; j++)
			dup = s->pids.v[j] == s->pids.v[i];
		if (dup || read_memory(s->pids.v[i], &pss, &rss) != 0)
			continue;	/* kernel thread, or gone: normal */
		out->pss_kb += pss;
		out->rss_kb += rss;
		out->processes++;
		if (s->roles) {
			r = role_of(s, s->pids.v[i]);
			out->part[r].pss_kb += pss;
			out->part[r].rss_kb += rss;
			out->part[r].processes++;
		}
		if (s->rows != NULL) {
			if (read_pstat(s->pids.v[i], &ps) != 0)
				snprintf(ps.comm, sizeof(ps.comm), "?");
			fprintf(s->rows, "%d\t%s\t%" PRIu64 "\t%" PRIu64
			    "\t%s\n", (int)s->pids.v[i], ps.comm, pss, rss,
			    role_names[r]);
		}
	}
}

/* Takes one sample. Returns 0, or -1 when the server is gone. */
static int
take_sample(struct sampler *s, struct sample *out)
{
	char dir[PATH_MAX];
	struct machine_cpu m;
	struct cpu mc;
	pid_t main_pid;
	char *cg;

	memset(out, 0, sizeof(*out));
	out->session.total_from = out->session.split_from = "none";
	s->pids.n = 0;
	if (s->roles) {
		s->listener = s->cf->unit ? unit_main_pid(s) : s->cf->pid;
		/*
		 * The manager's CPU is also in the slice's: a unit that is
		 * not running (CPUUsageNSec unset) counts 0, as the slice.
		 */
		if (*s->manager != '\0') {
			free(unit_cpu(s, s->manager, &mc));
			out->manager_cpu_ns =
			    mc.total_ns == UNKNOWN ? 0 : mc.total_ns;
		}
	}
	if (s->cf->unit == NULL) {
		out->cpu_source = "cgroup";
		if (s->cf->cgroup == NULL ||
		    direct_cgroup_cpu(s, &out->server) != 0) {
			s->pids.n = 0;
			out->cpu_source = "proc";
			if (tree_cpu(s, s->cf->pid, &out->server) != 0)
				return -1;
		} else if (kill(s->cf->pid, 0) != 0 && errno == ESRCH)
			return -1;
	} else {
		out->cpu_source = "cgroup";
		cg = unit_cpu(s, s->cf->unit, &out->server);
		free(s->unit_cgroup);
		s->unit_cgroup = cg;
		if (*s->slice != '\0') {
			cg = unit_cpu(s, s->slice, &out->session);
			if (*cg != '\0' && snprintf(dir, sizeof(dir), "%s%s",
			    cgroup_tree_root(), cg) < (int)sizeof(dir))
				add_cgroup_procs(&s->pids, dir, 0);
			free(cg);
			/* A slice that is gone (no sessions) costs nothing now. */
			if (out->session.total_ns == UNKNOWN)
				out->session.total_ns = 0;
		}
		if (out->server.total_ns == UNKNOWN) {
			/* No cgroup accounting: the process tree instead. */
			if ((main_pid = unit_main_pid(s)) == 0)
				return -1;
			s->pids.n = 0;
			out->cpu_source = "proc";
			if (tree_cpu(s, main_pid, &out->server) != 0)
				return -1;
			memset(&out->session, 0, sizeof(out->session));
			out->session.total_from = out->session.split_from =
			    "included in proc";
		} else if (*s->unit_cgroup != '\0' &&
		    snprintf(dir, sizeof(dir), "%s%s", cgroup_tree_root(),
		    s->unit_cgroup) < (int)sizeof(dir))
			add_cgroup_procs(&s->pids, dir, 0);
	}
	sum_memory(s, out);
	out->mono_ns = now_ns();
	read_machine_cpu(&m);
	out->machine_busy_ns = m.busy * (NS_PER_S / (uint64_t)s->clk_tck);
	out->machine_steal_ns = m.steal * (NS_PER_S / (uint64_t)s->clk_tck);
	out->machine_total_ns = m.total * (NS_PER_S / (uint64_t)s->clk_tck);
	return 0;
}

static void
print_ms(FILE *f, const char *sep, uint64_t ns)
{
	if (ns == UNKNOWN)
		fprintf(f, "%s-", sep);
	else
		fprintf(f, "%s%.3f", sep, ns_to_ms(ns));
}

static void
print_keys(const struct sample *x)
{
	printf("mono_ns=%" PRIu64 "\n", x->mono_ns);
	printf("cpu_source=%s\n", x->cpu_source);
	printf("cpu_total_from=%s\n", x->server.total_from);
	printf("cpu_split_from=%s\n", x->server.split_from);
	print_ms(stdout, "cpu_user_ms=", x->server.user_ns);
	print_ms(stdout, "\ncpu_system_ms=", x->server.system_ns);
	print_ms(stdout, "\ncpu_total_ms=", x->server.total_ns);
	print_ms(stdout, "\nsession_cpu_ms=", x->session.total_ns);
	print_ms(stdout, "\nsession_user_ms=", x->session.user_ns);
	print_ms(stdout, "\nsession_system_ms=", x->session.system_ns);
	printf("\nsession_cpu_from=%s\n", x->session.total_from);
	printf("pss_kb=%" PRIu64 "\nrss_kb=%" PRIu64 "\nprocesses=%zu\n",
	    x->pss_kb, x->rss_kb, x->processes);
	printf("machine_busy_ms=%.3f\nmachine_steal_ms=%.3f\n"
	    "machine_total_ms=%.3f\n", ns_to_ms(x->machine_busy_ns),
	    ns_to_ms(x->machine_steal_ns), ns_to_ms(x->machine_total_ns));
}

/* The memory split by role, and the manager's CPU ("once"). */
static void
print_roles(const struct sampler *s, const struct sample *x)
{
	int r;

	printf("listener_pid=%d\n", (int)s->listener);
	printf("manager_unit=%s\n", *s->manager ? s->manager : "-");
	for (r = 0; r < ROLES; r++)
		printf("%s_pss_kb=%" PRIu64 "\n%s_rss_kb=%" PRIu64 "\n"
		    "%s_processes=%zu\n", role_names[r], x->part[r].pss_kb,
		    role_names[r], x->part[r].rss_kb, role_names[r],
		    x->part[r].processes);
	if (*s->manager != '\0')
		print_ms(stdout, "manager_cpu_ms=", x->manager_cpu_ns);
	else
		printf("manager_cpu_ms=-");
	printf("\n");
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-sampler [-P] -u unit [-U uid] | -p pid [-g cgroup] "
	    "once\n"
	    "       sshperf-sampler tree pid | group pgid | ps pid ...\n");
	exit(2);
}

/* ---- Process lists ------------------------------------------------------ */

/* One row of a process list (docs/data.md, process rows); 1 if it runs. */
static int
print_process(FILE *f, pid_t pid, const struct pstat *ps)
{
	char comm[sizeof(ps->comm)];
	size_t i;

	/* A name may hold any byte but NUL: no tab or newline in a row. */
	for (i = 0; ps->comm[i] != '\0'; i++)
		comm[i] = (unsigned char)ps->comm[i] < ' ' ||
		    ps->comm[i] == 0x7f ? '?' : ps->comm[i];
	comm[i] = '\0';
	fprintf(f, "%d\t%d\t%d\t%c\t%" PRIu64 "\t%s\n", (int)pid,
	    (int)ps->ppid, (int)ps->pgid, ps->state, ps->start, comm);
	return ps->state != 'Z';
}

/*
 * pid and every process below it, breadth first: how many of them run
 * (zombies are listed, not counted).
 */
static size_t
list_tree(FILE *f, pid_t root)
{
	struct pidlist l = { 0 };
	struct pstat ps;
	size_t i, running = 0;

	pidlist_add(&l, root);
	for (i = 0; i < l.n; i++) {
		if (read_pstat(l.v[i], &ps) != 0)
			continue;	/* ended meanwhile: normal */
		running += print_process(f, l.v[i], &ps);
		add_children(&l, l.v[i], ps.threads);
	}
	free(l.v);
	return running;
}

/* Every process of process group pgid: how many of them run. */
static size_t
list_group(FILE *f, pid_t pgid)
{
	struct dirent *de;
	struct pstat ps;
	size_t running = 0;
	const char *errstr;
	uint64_t pid;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		err(2, "/proc");
	while ((de = readdir(d)) != NULL) {
		if (parse_u64(de->d_name, 1, INT_MAX, &pid, &errstr) != 0)
			continue;
		if (read_pstat((pid_t)pid, &ps) == 0 && ps.pgid == pgid)
			running += print_process(f, (pid_t)pid, &ps);
	}
	closedir(d);
	return running;
}

/*
 * The modes tree PID, group PGID and ps PID...: a process list on stdout
 * (header, then a row per process). Exit 0 when a process of the list
 * runs, 1 when none does (gone, or zombies only).
 */
static int
list_processes(int argc, char *argv[])
{
	struct pstat ps;
	size_t running = 0;
	pid_t pid;
	int i;

	if (argc < 2 || (strcmp(argv[0], "ps") != 0 && argc != 2))
		usage();
	for (i = 1; i < argc; i++)
		(void)opt_u64(argv[0], argv[i], 1, INT_MAX);
	printf("pid\tppid\tpgid\tstate\tstart\tcomm\n");
	for (i = 1; i < argc; i++) {
		pid = (pid_t)opt_u64(argv[0], argv[i], 1, INT_MAX);
		if (strcmp(argv[0], "tree") == 0)
			running += list_tree(stdout, pid);
		else if (strcmp(argv[0], "group") == 0)
			running += list_group(stdout, pid);
		else if (read_pstat(pid, &ps) == 0)
			running += print_process(stdout, pid, &ps);
	}
	if (fflush(stdout) == EOF)
		err(2, "stdout");
	return running > 0 ? 0 : 1;
}

/*
 * Measures what the test server costs. With -u UNIT (systemd): the unit's
 * CPUUsageNSec over sd-bus, split into user and system from its cgroup,
 * plus user-UID.slice of the test user (-U), where pam_systemd moves the
 * sessions. With -p PID (no systemd): the cgroup the kit started it in
 * (-g, a path such as /sshd-perf-test), else the listener's CPU including
 * its reaped children plus its live descendants, from /proc (a lower bound:
 * a process that outlives its parent is reaped by init). Memory: PSS and
 * RSS summed over every process of the server and its sessions, and in
 * "once" also split by role: the listener, the test user's manager
 * (user@UID.service) and everything else.
 * "once" prints key=value lines (-P: one TSV row per process instead,
 * with its role), with the whole machine's busy, steal and total CPU time
 * since boot (machine_*_ms, /proc/stat) taken at the same moment, so that
 * two samples also tell how busy the machine was between them.
 * "tree PID" lists PID and every process below it, "group PGID" the
 * processes of a process group, "ps PID..." those of the pids that exist
 * (list_processes).
 * Exit 0 ok, 1 the server is not running (or went away), 2 usage.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct sampler s;
	struct sample x;
	int ch, rc;

	memset(&cf, 0, sizeof(cf));
	memset(&s, 0, sizeof(s));
	while ((ch = getopt(argc, argv, "+g:p:Pu:U:")) != -1) {
		switch (ch) {
		case 'g':
			if (optarg[0] != '/' || strstr(optarg, "..") != NULL)
				errx(2, "-g %s: give a cgroup path such as "
				    "/sshd-perf-test", optarg);
			cf.cgroup = optarg;
			break;
		case 'p':
			cf.pid = (pid_t)opt_u64("-p pid", optarg, 1, INT_MAX);
			break;
		case 'P':
			cf.per_process = 1;
			break;
		case 'u':
			cf.unit = optarg;
			break;
		case 'U':
			cf.uid = (uint32_t)opt_u64("-U uid", optarg, 0,
			    UINT32_MAX - 1);
			cf.have_uid = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc >= 1 && (strcmp(argv[0], "tree") == 0 ||
	    strcmp(argv[0], "group") == 0 || strcmp(argv[0], "ps") == 0)) {
		if (optind != 1)
			errx(2, "%s takes no options", argv[0]);
		return list_processes(argc, argv);
	}
	if (argc != 1)
		usage();
	if ((cf.unit == NULL) == (cf.pid == 0))
		errx(2, "give either -u unit (systemd) or -p pid (direct)");
	if (cf.have_uid && cf.unit == NULL)
		errx(2, "-U uid needs -u unit: without systemd the sessions "
		    "are below the listener");
	if (strcmp(argv[0], "once") != 0)
		errx(2, "unknown mode \"%s\": use once, tree, group or ps",
		    argv[0]);

	s.cf = &cf;
	if ((s.clk_tck = sysconf(_SC_CLK_TCK)) <= 0)
		errx(2, "sysconf(_SC_CLK_TCK) failed");
	if (cf.unit != NULL) {
		if (sd_booted() <= 0)
			errx(2, "-u %s: systemd is not running as PID 1; use "
			    "-p pid", cf.unit);
		if ((rc = sd_bus_open_system(&s.bus)) < 0)
			errx(2, "cannot connect to the system bus: %s",
			    strerror(-rc));
		if (cf.have_uid) {
			snprintf(s.slice, sizeof(s.slice), "user-%" PRIu32
			    ".slice", cf.uid);
			snprintf(s.manager, sizeof(s.manager), "user@%" PRIu32
			    ".service", cf.uid);
		}
	}
	s.roles = 1;
	if (cf.per_process) {
		s.rows = stdout;
		printf("pid\tcomm\tpss_kb\trss_kb\trole\n");
	}

	if (take_sample(&s, &x) != 0) {
		warnx("the test server is not running (%s)",
		    cf.unit ? cf.unit : "pid gone");
		rc = 1;
	} else {
		if (!cf.per_process) {
			print_keys(&x);
			print_roles(&s, &x);
		}
		rc = 0;
	}
	free(s.pids.v);
	free(s.unit_cgroup);
	sd_bus_unref(s.bus);
	return rc;
}
