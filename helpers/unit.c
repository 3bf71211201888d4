/* Start, stop, restart, reload units and read their state over sd-bus. */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "common.h"

#define SD_DEST       "org.freedesktop.systemd1"
#define SD_PATH       "/org/freedesktop/systemd1"
#define SD_MANAGER    "org.freedesktop.systemd1.Manager"
#define LOGIN_DEST    "org.freedesktop.login1"
#define LOGIN_PATH    "/org/freedesktop/login1"
#define LOGIN_MANAGER "org.freedesktop.login1.Manager"

#define DEFAULT_TIMEOUT_S 90

/* One property to read: 's' fills a char * (malloc'd), 'u' a uint32_t, 't' a uint64_t. */
struct prop {
	const char	*name;
	char		 type;
	void		*dest;
};

/* The job a start/stop/restart/reload call queued, filled by JobRemoved. */
struct job {
	const char	*path;		/* NULL until the call has returned */
	bool		 removed;
	char		 result[32];
	uint64_t	 done_ns;
};

/* The user terminate-user waits for, filled by UserRemoved. */
struct user_wait {
	uint32_t	 uid;
	bool		 removed;
	uint64_t	 done_ns;
};

/* What show prints; numbers are UINT64_MAX / UINT32_MAX when unknown. */
struct unit_state {
	char		*load_state;
	char		*active_state;
	char		*sub_state;
	char		*control_group;
	uint32_t	 main_pid;
	uint32_t	 n_restarts;
	uint64_t	 cpu_usage_nsec;
	uint64_t	 tasks_current;
	uint64_t	 memory_current;
};

static const struct {
	const char	*verb;
	const char	*method;
} job_verbs[] = {
	{ "start", "StartUnit" },
	{ "stop", "StopUnit" },
	{ "restart", "RestartUnit" },
	{ "reload", "ReloadUnit" },
};

/* Unit types with a cgroup: their interface holds CPUUsageNSec and friends. */
static const struct {
	const char	*suffix;
	const char	*interface;
} cgroup_types[] = {
	{ ".service", "org.freedesktop.systemd1.Service" },
	{ ".slice", "org.freedesktop.systemd1.Slice" },
	{ ".scope", "org.freedesktop.systemd1.Scope" },
	{ ".socket", "org.freedesktop.systemd1.Socket" },
	{ ".mount", "org.freedesktop.systemd1.Mount" },
	{ ".swap", "org.freedesktop.systemd1.Swap" },
};

static const char *
bus_error_text(const sd_bus_error *error, int r)
{
	if (sd_bus_error_is_set(error) && error->message != NULL)
		return error->message;
	return strerror(-r);
}

static sd_bus *
connect_system(void)
{
	sd_bus *bus;
	int r;

	if (sd_booted() <= 0)
		errx(2, "systemd is not running as PID 1 (sd_booted): "
		    "start sshd directly");
	if ((r = sd_bus_open_system(&bus)) < 0)
		errx(2, "cannot connect to the system bus: %s", strerror(-r));
	return bus;
}

static uint64_t
remaining_usec(uint64_t deadline_ns)
{
	uint64_t now = now_ns();

	/* 0 would mean "the default timeout" to sd_bus_call. */
	return now >= deadline_ns ? 1 : (deadline_ns - now) / 1000 + 1;
}

/*
 * Process bus messages (running match callbacks) until *flag is set or the
 * deadline passes. Returns 0, -ETIMEDOUT or another negative errno.
 */
static int
wait_for_flag(sd_bus *bus, const bool *flag, uint64_t deadline_ns)
{
	uint64_t now;
	int r;

	while (!*flag) {
		if ((r = sd_bus_process(bus, NULL)) < 0)
			return r;
		if (r > 0)
			continue;
		if ((now = now_ns()) >= deadline_ns)
			return -ETIMEDOUT;
		if ((r = sd_bus_wait(bus, (deadline_ns - now) / 1000 + 1)) < 0 &&
		    r != -EINTR)
			return r;
	}
	return 0;
}

/* Call a method with arguments of signature types (NULL: none) by a deadline. */
static int
call_method(sd_bus *bus, const char *dest, const char *path, const char *iface,
    const char *method, uint64_t deadline_ns, sd_bus_error *error,
    sd_bus_message **reply, const char *types, ...)
{
	sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, dest, path, iface, method);
	if (r >= 0 && types != NULL) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(bus, m, remaining_usec(deadline_ns), error, reply);
	sd_bus_message_unref(m);
	return r;
}

static int
read_variant(sd_bus_message *m, const struct prop *p)
{
	const char contents[2] = { p->type, '\0' };
	const char *s;
	int r;

	if ((r = sd_bus_message_enter_container(m, 'v', contents)) < 0)
		return r;
	if (p->type == 's') {
		if ((r = sd_bus_message_read_basic(m, 's', &s)) < 0)
			return r;
		free(*(char **)p->dest);
		if ((*(char **)p->dest = strdup(s)) == NULL)
			return -ENOMEM;
	} else if ((r = sd_bus_message_read_basic(m, p->type, p->dest)) < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

/*
 * Read the listed properties of one interface of a systemd object with one
 * Properties.GetAll call. Properties missing from the answer or of another
 * type keep the value their destination had. Returns 0 or a negative errno
 * (with *error set when the bus said why).
 */
static int
read_properties(sd_bus *bus, const char *path, const char *iface,
    const struct prop *props, size_t n_props, uint64_t deadline_ns,
    sd_bus_error *error)
{
	sd_bus_message *reply = NULL;
	const char *name, *contents;
	char type;
	size_t i;
	int r;

	r = call_method(bus, SD_DEST, path, "org.freedesktop.DBus.Properties",
	    "GetAll", deadline_ns, error, &reply, "s", iface);
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r >= 0 &&
	    (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		if ((r = sd_bus_message_read_basic(reply, 's', &name)) < 0 ||
		    (r = sd_bus_message_peek_type(reply, &type, &contents)) < 0)
			break;
		for (i = 0; i < n_props; i++)
			if (strcmp(props[i].name, name) == 0)
				break;
		if (i < n_props && contents[0] == props[i].type &&
		    contents[1] == '\0')
			r = read_variant(reply, &props[i]);
		else
			r = sd_bus_message_skip(reply, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

/* The object path of a unit: GetUnit if loaded, else LoadUnit. Malloc'd. */
static int
unit_path(sd_bus *bus, const char *unit, uint64_t deadline_ns,
    sd_bus_error *error, char **path)
{
	sd_bus_message *reply = NULL;
	const char *p;
	int r;

	r = call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit",
	    deadline_ns, error, &reply, "s", unit);
	if (r < 0 && sd_bus_error_has_name(error,
	    "org.freedesktop.systemd1.NoSuchUnit")) {
		sd_bus_error_free(error);
		r = call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "LoadUnit",
		    deadline_ns, error, &reply, "s", unit);
	}
	if (r >= 0 && (r = sd_bus_message_read_basic(reply, 'o', &p)) >= 0 &&
	    (*path = strdup(p)) == NULL)
		r = -ENOMEM;
	sd_bus_message_unref(reply);
	return r;
}

static int
on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct job *job = userdata;
	const char *path, *unit, *result;
	uint32_t id;

	(void)error;
	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0 ||
	    job->path == NULL || job->removed || strcmp(path, job->path) != 0)
		return 0;
	job->done_ns = now_ns();
	snprintf(job->result, sizeof(job->result), "%s", result);
	job->removed = true;
	return 0;
}

static int
on_user_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct user_wait *user = userdata;
	const char *path;
	uint32_t uid;

	(void)error;
	if (sd_bus_message_read(m, "uo", &uid, &path) < 0 ||
	    uid != user->uid || user->removed)
		return 0;
	user->done_ns = now_ns();
	user->removed = true;
	return 0;
}

static void
print_u64_or_unknown(const char *key, uint64_t v)
{
	if (v == UINT64_MAX)
		printf("%s=unknown\n", key);
	else
		printf("%s=%" PRIu64 "\n", key, v);
}

/* Queue a job like systemctl and wait for its JobRemoved. */
static int
run_job(const char *verb, const char *method, const char *unit,
    uint64_t timeout_ns)
{
	sd_bus *bus = connect_system();
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus_slot *slot = NULL;
	struct job job = { 0 };
	uint64_t issued_ns, deadline_ns;
	int r;

	/* Before the call: the job may finish before its reply is read. */
	r = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER,
	    "JobRemoved", on_job_removed, &job);
	if (r < 0)
		errx(1, "%s %s: cannot watch for JobRemoved: %s", verb, unit,
		    strerror(-r));
	/* The job gets the whole -t from when it is asked for. */
	issued_ns = now_ns();
	deadline_ns = issued_ns + timeout_ns;
	r = call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, method, deadline_ns,
	    &error, &reply, "ss", unit, "replace");
	if (r >= 0 && (r = sd_bus_message_read_basic(reply, 'o', &job.path)) >= 0)
		r = wait_for_flag(bus, &job.removed, deadline_ns);
	if (r == -ETIMEDOUT) {
		printf("result=timeout\nissued_mono_ns=%" PRIu64
		    "\njob_ms=%.3f\n", issued_ns, ns_to_ms(now_ns() - issued_ns));
		return 1;
	}
	if (r < 0)
		errx(1, "%s %s: %s", verb, unit, bus_error_text(&error, r));
	printf("result=%s\nissued_mono_ns=%" PRIu64 "\ndone_mono_ns=%" PRIu64
	    "\njob_ms=%.3f\n", job.result, issued_ns, job.done_ns,
	    ns_to_ms(job.done_ns - issued_ns));
	r = strcmp(job.result, "done") == 0 ? 0 : 1;
	sd_bus_message_unref(reply);
	sd_bus_slot_unref(slot);
	sd_bus_unref(bus);
	return r;
}

/* Manager.Reload: returns once systemd has reloaded its units. */
static int
daemon_reload(uint64_t timeout_ns)
{
	sd_bus *bus = connect_system();
	sd_bus_error error = SD_BUS_ERROR_NULL;
	uint64_t start_ns = now_ns();
	int r;

	r = call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Reload",
	    start_ns + timeout_ns, &error, NULL, NULL);
	if (r == -ETIMEDOUT) {
		printf("daemon_reload=timeout\n");
		return 1;
	}
	if (r < 0)
		errx(1, "daemon-reload: %s", bus_error_text(&error, r));
	printf("daemon_reload=done\nreload_ms=%.3f\n",
	    ns_to_ms(now_ns() - start_ns));
	sd_bus_unref(bus);
	return 0;
}

static int
show(const char *unit, uint64_t timeout_ns)
{
	sd_bus *bus = connect_system();
	sd_bus_error error = SD_BUS_ERROR_NULL;
	struct unit_state st = {
		.main_pid = 0, .n_restarts = UINT32_MAX,
		.cpu_usage_nsec = UINT64_MAX, .tasks_current = UINT64_MAX,
		.memory_current = UINT64_MAX,
	};
	const struct prop unit_props[] = {
		{ "LoadState", 's', &st.load_state },
		{ "ActiveState", 's', &st.active_state },
		{ "SubState", 's', &st.sub_state },
	};
	const struct prop cgroup_props[] = {
		{ "ControlGroup", 's', &st.control_group },
		{ "CPUUsageNSec", 't', &st.cpu_usage_nsec },
		{ "TasksCurrent", 't', &st.tasks_current },
		{ "MemoryCurrent", 't', &st.memory_current },
		{ "MainPID", 'u', &st.main_pid },	/* services only */
		{ "NRestarts", 'u', &st.n_restarts },	/* services only */
	};
	const char *iface = NULL;
	uint64_t deadline_ns = now_ns() + timeout_ns;
	size_t i, len = strlen(unit), slen;
	char *path = NULL;
	int r;

	for (i = 0; i < sizeof(cgroup_types) / sizeof(cgroup_types[0]); i++) {
		slen = strlen(cgroup_types[i].suffix);
		if (len > slen &&
		    strcmp(unit + len - slen, cgroup_types[i].suffix) == 0)
			iface = cgroup_types[i].interface;
	}
	r = unit_path(bus, unit, deadline_ns, &error, &path);
	if (r >= 0)
		r = read_properties(bus, path, "org.freedesktop.systemd1.Unit",
		    unit_props, sizeof(unit_props) / sizeof(unit_props[0]),
		    deadline_ns, &error);
	if (r >= 0 && iface != NULL)
		r = read_properties(bus, path, iface, cgroup_props,
		    sizeof(cgroup_props) / sizeof(cgroup_props[0]), deadline_ns,
		    &error);
	if (r < 0)
		errx(1, "show %s: %s", unit, bus_error_text(&error, r));

	printf("load_state=%s\nactive_state=%s\nsub_state=%s\n",
	    st.load_state ? st.load_state : "unknown",
	    st.active_state ? st.active_state : "unknown",
	    st.sub_state ? st.sub_state : "unknown");
	printf("main_pid=%" PRIu32 "\n", st.main_pid);
	printf("control_group=%s\n", st.control_group ? st.control_group : "");
	print_u64_or_unknown("cpu_usage_nsec", st.cpu_usage_nsec);
	print_u64_or_unknown("tasks_current", st.tasks_current);
	print_u64_or_unknown("memory_current", st.memory_current);
	print_u64_or_unknown("n_restarts", st.n_restarts == UINT32_MAX ?
	    UINT64_MAX : st.n_restarts);
	free(st.load_state);
	free(st.active_state);
	free(st.sub_state);
	free(st.control_group);
	free(path);
	sd_bus_unref(bus);
	return 0;
}

/* login1 TerminateUser, then wait until logind has dropped the user. */
static int
terminate_user(uint32_t uid, uint64_t timeout_ns)
{
	sd_bus *bus = connect_system();
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_slot *slot = NULL;
	struct user_wait user = { .uid = uid };
	uint64_t start_ns, deadline_ns;
	int r;

	r = sd_bus_match_signal(bus, &slot, LOGIN_DEST, LOGIN_PATH,
	    LOGIN_MANAGER, "UserRemoved", on_user_removed, &user);
	if (r < 0)
		errx(1, "terminate-user %" PRIu32 ": cannot watch for "
		    "UserRemoved: %s", uid, strerror(-r));
	start_ns = now_ns();
	deadline_ns = start_ns + timeout_ns;
	r = call_method(bus, LOGIN_DEST, LOGIN_PATH, LOGIN_MANAGER,
	    "TerminateUser", deadline_ns, &error, NULL, "u", uid);
	if (r < 0 && sd_bus_error_has_name(&error,
	    "org.freedesktop.login1.NoSuchUser")) {
		printf("terminated=no\nreason=no-sessions\n");
		return 0;
	}
	if (r >= 0)
		r = wait_for_flag(bus, &user.removed, deadline_ns);
	if (r == -ETIMEDOUT) {
		printf("terminated=timeout\nterminate_ms=%.3f\n",
		    ns_to_ms(now_ns() - start_ns));
		return 1;
	}
	if (r < 0)
		errx(1, "terminate-user %" PRIu32 ": %s", uid,
		    bus_error_text(&error, r));
	printf("terminated=yes\nterminate_ms=%.3f\n",
	    ns_to_ms(user.done_ns - start_ns));
	sd_bus_slot_unref(slot);
	sd_bus_unref(bus);
	return 0;
}

static void __attribute__((__noreturn__))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-unit booted\n"
	    "       sshperf-unit [-t timeout_s] daemon-reload\n"
	    "       sshperf-unit [-t timeout_s] start | stop | restart | reload unit\n"
	    "       sshperf-unit [-t timeout_s] show unit\n"
	    "       sshperf-unit [-t timeout_s] terminate-user uid\n");
	exit(2);
}

/*
 * sshperf-unit: the kit's systemctl. Queues start/stop/restart/reload jobs
 * through systemd's D-Bus API and waits for each job's JobRemoved signal (as
 * systemctl does), printing the result and how long the job took on
 * CLOCK_MONOTONIC; reloads the manager; shows a unit's state and cgroup
 * counters; ends a user's sessions through logind. Exit 0 ok, 1 the
 * operation failed or timed out, 2 usage error or no systemd.
 */
int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	uint64_t timeout_s = DEFAULT_TIMEOUT_S, uid;
	const char *cmd, *errstr;
	size_t i;
	int ch, booted;

	while ((ch = getopt(argc, argv, "+t:")) != -1) {
		switch (ch) {
		case 't':
			timeout_s = opt_u64("-t", optarg, 1, 86400);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	cmd = argv[0];

	if (strcmp(cmd, "booted") == 0 && argc == 1) {
		booted = sd_booted();
		printf("booted=%s\n", booted > 0 ? "yes" : "no");
		return booted > 0 ? 0 : 1;
	}
	if (strcmp(cmd, "daemon-reload") == 0 && argc == 1)
		return daemon_reload(timeout_s * NS_PER_S);
	if (argc != 2)
		usage();
	for (i = 0; i < sizeof(job_verbs) / sizeof(job_verbs[0]); i++)
		if (strcmp(cmd, job_verbs[i].verb) == 0)
			return run_job(cmd, job_verbs[i].method, argv[1],
			    timeout_s * NS_PER_S);
	if (strcmp(cmd, "show") == 0)
		return show(argv[1], timeout_s * NS_PER_S);
	if (strcmp(cmd, "terminate-user") == 0) {
		if (parse_u64(argv[1], 0, UINT32_MAX - 1, &uid, &errstr) != 0)
			errx(2, "terminate-user: uid %s is %s", argv[1], errstr);
		return terminate_user((uint32_t)uid, timeout_s * NS_PER_S);
	}
	usage();
}
