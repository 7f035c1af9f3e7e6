/*
 * spool_writer.c - the injection library's spool file (trace/spool.h): the
 * file and its header, the string table (each name written once, as a
 * STRING record before its first use), status and stats records, and the
 * write(2) under them. Invariant 1 of inject.c: the string table lock is
 * held only while looking up or adding one name, never across write(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject/inject_int.h"
#include "util/vec.h"

struct inject_state inj = {.fd = -1,
			   .str_lock = PTHREAD_MUTEX_INITIALIZER,
			   .pool_lock = PTHREAD_MUTEX_INITIALIZER,
			   .capture_lock = PTHREAD_MUTEX_INITIALIZER};

void dbg(const char *fmt, ...)
{
	if (!inj.debug)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gpuscope-inject: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int64_t cupti_now(void)
{
	uint64_t ts = 0;
	if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS)
		return 0;
	return (int64_t)ts;
}

void write_all(const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(inj.fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			dbg("write to spool failed: %s; stopping", strerror(errno));
			atomic_store(&inj.quiet, 1);
			return;
		}
		p += w;
		len -= (size_t)w;
		atomic_fetch_add(&inj.bytes_written, (unsigned long long)w);
	}
}

void status(int fatal, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	dbg("%s", msg);
	if (!mine())
		return;
	struct spool_status st = {cupti_now(), code, (uint32_t)fatal};
	char buf[sizeof(struct spool_frame) + sizeof(st) + sizeof(msg)];
	size_t pos = 0;
	if (spool_put(buf, sizeof(buf), &pos, SPOOL_STATUS, &st, sizeof(st), msg, (uint32_t)n) == 0)
		write_all(buf, pos);
	if (fatal)
		atomic_store(&inj.quiet, 1);
}

const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown cupti error";
	return s;
}

int env_is(const char *name, const char *value)
{
	const char *v = getenv(name);
	return v && strcmp(v, value) == 0;
}
struct str_probe {
	const char *s;
	size_t n;
};

static int str_eq(const void *ctx, uint32_t i)
{
	const struct str_probe *p = ctx;
	const char *c = inj.strs[i];
	return strncmp(c, p->s, p->n) == 0 && c[p->n] == '\0';
}

uint32_t intern(struct out *o, const char *s)
{
	if (!s || !*s)
		return 0;
	size_t n = strnlen(s, SPOOL_MAX_STRING);
	uint64_t h = hash_bytes(s, n);
	struct str_probe probe = {s, n};
	uint32_t id = 0;
	int fresh = 0;
	pthread_mutex_lock(&inj.str_lock);
	int64_t found = hindex_find(&inj.str_index, h, str_eq, &probe);
	if (found >= 0) {
		id = (uint32_t)found + 1;
		goto out_unlock;
	}
	char *copy = strndup(s, n);
	if (!copy ||
	    vec_reserve((void **)&inj.strs, &inj.cap_strs, inj.n_strs + 1, sizeof(*inj.strs)) < 0 ||
	    hindex_add(&inj.str_index, h, (uint32_t)inj.n_strs) < 0) {
		free(copy);
		goto out_unlock;
	}
	inj.strs[inj.n_strs++] = copy;
	id = (uint32_t)inj.n_strs;
	fresh = 1;
out_unlock:
	pthread_mutex_unlock(&inj.str_lock);
	if (fresh) {
		struct spool_string ss = {id};
		put(o, SPOOL_STRING, &ss, sizeof(ss), s, (uint32_t)n);
	}
	return id;
}

uint32_t api_name(struct out *o, int driver, uint32_t cbid)
{
	if (cbid < MAX_CBID) {
		uint32_t id = atomic_load(&inj.api_ids[driver][cbid]);
		if (id)
			return id;
	}
	const char *name = NULL;
	char tmp[32];
	CUpti_CallbackDomain d = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	if (cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS || !name) {
		snprintf(tmp, sizeof(tmp), "%s_cbid_%u", driver ? "cu" : "cuda", cbid);
		name = tmp;
	}
	uint32_t id = intern(o, name);
	if (cbid < MAX_CBID)
		atomic_store(&inj.api_ids[driver][cbid], id);
	return id;
}

void write_stats(struct out *o)
{
	struct spool_stats s = {atomic_load(&inj.dropped),	 atomic_load(&inj.overhead_ns),
				atomic_load(&inj.buffers),	 atomic_load(&inj.records),
				atomic_load(&inj.launches),	 atomic_load(&inj.kernel_records),
				atomic_load(&inj.bytes_written), cupti_now()};
	put(o, SPOOL_STATS, &s, sizeof(s), NULL, 0);
}

/* The rank variables of this process (spool.h SPOOL_ENV_*), as one
 * SPOOL_ENV frame; nothing when none is set. */
static void write_env(void)
{
	static const char *const names[] = {SPOOL_ENV_RANK, SPOOL_ENV_LOCAL_RANK,
					    SPOOL_ENV_WORLD_SIZE};
	char text[1024];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = getenv(names[i]);
		if (!v || strlen(v) > 64)
			continue;
		int w = snprintf(text + n, sizeof(text) - n, "%s=%s", names[i], v);
		if (w < 0 || (size_t)w + 1 >= sizeof(text) - n)
			break;
		n += (size_t)w + 1; /* keeps the NUL */
	}
	char buf[sizeof(struct spool_frame) + sizeof(text)];
	size_t pos = 0;
	if (n && spool_put(buf, sizeof(buf), &pos, SPOOL_ENV, text, (uint32_t)n, NULL, 0) == 0)
		write_all(buf, pos);
}

/* CUDA_LAUNCH_BLOCKING as the driver saw it when CUDA initialised (the
 * injection loads inside cuInit, after a script's os.environ change), as a
 * SPOOL_NOTE: report says why every launch waited (diagnose/warnings.c).
 * Nothing when unset or "0"; the value is cut at 16 bytes. */
static void write_launch_blocking(void)
{
	const char *v = getenv("CUDA_LAUNCH_BLOCKING");
	if (!v || !*v || !strcmp(v, "0"))
		return;
	char text[sizeof(SPOOL_NOTE_LAUNCH_BLOCKING) + 17];
	size_t kl = sizeof(SPOOL_NOTE_LAUNCH_BLOCKING); /* with its NUL */
	size_t vl = strnlen(v, 16);
	memcpy(text, SPOOL_NOTE_LAUNCH_BLOCKING, kl);
	memcpy(text + kl, v, vl);
	char buf[sizeof(struct spool_frame) + sizeof(text)];
	size_t pos = 0;
	if (spool_put(buf, sizeof(buf), &pos, SPOOL_NOTE, text, (uint32_t)(kl + vl), NULL, 0) == 0)
		write_all(buf, pos);
}

int open_spool(void)
{
	const char *dir = getenv(KNOB(SPOOL_DIR));
	if (!dir || !*dir) {
		dbg("GPUSCOPE_SPOOL_DIR is not set; not recording");
		return -1;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/spool-%d.bin", dir, (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		dbg("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	char cmd[SPOOL_MAX_CMDLINE];
	ssize_t n = 0;
	int cf = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (cf >= 0) {
		n = read(cf, cmd, sizeof(cmd));
		close(cf);
	}
	if (n < 0)
		n = 0;
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, sizeof(h.magic));
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = (uint32_t)getpid();
	h.ppid = (uint32_t)getppid();
	h.cmdline_len = (uint32_t)n;
	h.clock_cupti_ns = cupti_now();
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	h.clock_real_ns = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	inj.fd = fd;
	inj.pid = getpid();
	if ((size_t)snprintf(inj.request_path, sizeof(inj.request_path), "%s/%s", dir,
			     SPOOL_FLUSH_REQUEST) >= sizeof(inj.request_path) ||
	    (size_t)snprintf(inj.answer_path, sizeof(inj.answer_path), "%s/%s%d", dir,
			     SPOOL_FLUSHED_PREFIX, (int)getpid()) >= sizeof(inj.answer_path))
		inj.request_path[0] = 0; /* too long: no handshake, the periodic flush only */
	write_all(&h, sizeof(h));
	write_all(cmd, (size_t)n);
	write_env();
	write_launch_blocking();
	return 0;
}
