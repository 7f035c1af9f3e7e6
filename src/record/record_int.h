/*
 * record_int.h - what the parts of record share (record.c runs the phases,
 * launch.c starts and waits for CMD, finish.c writes the database,
 * signals.c holds the one piece of process-wide state: what the signal
 * handler saw). Not for use outside src/record/.
 */
#ifndef GPUSCOPE_RECORD_INT_H
#define GPUSCOPE_RECORD_INT_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/record.h"
#include "record/sampler.h"
#include "util/error.h"

struct rec_state {
	const struct record_opts *o;
	char spool[PATH_MAX];		   /* OUTPUT.spool-PID */
	char inject[PATH_MAX + 32];	   /* libgpuscope-inject.so, "" when absent */
	char *preload;			   /* LD_PRELOAD for CMD, NULL to leave it alone */
	char untraced[3 * PATH_MAX + 256]; /* why CUDA is not traced (--allow-untraced); "" */
	pid_t pid;			   /* CMD */
	int64_t start_real;		   /* CLOCK_REALTIME when CMD started */
	struct sampler smp;
	int sampling;
	struct host_sampler *hs; /* host stacks (src/hostsample), NULL when off */
};

/* printf into o->say (no-op when it is NULL) */
void rec_say(const struct record_opts *o, enum record_say kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int64_t rec_real_now(void);
long long rec_mono_ms(void);
int64_t rec_mono_ns(void);
void rec_sleep_ms(long ms);

/* launch.c: finds the libraries and builds CMD's environment (into s).
 * Without the injection library: -1 with err (where it looked, how to fix
 * it), or with o->allow_untraced 0 and the reason in s->untraced. */
int rec_find_libs(struct rec_state *s, char *err);
/* launch.c: runs CMD to its end, forwarding signals (phase 1). Returns 0
 * with r->child_rc set, or -1 with err (r->exec_failed when exec failed). */
int rec_run_child(struct rec_state *s, struct record_result *r, char *err);

/* finish.c: phase 2: merges, writes, renames onto o->output. 0 or -1 + err. */
int rec_finish(struct rec_state *s, struct record_result *r, char *err);
/* finish.c: refuses an output that is not a regular file, or not a gpuscope
 * database without force; *is_db set when it is one. 0 or -1 + err. */
int rec_check_output(const char *path, int force, int *is_db, char *err);
/* finish.c: removes the spool directory and every file in it. */
void rec_remove_spool_dir(const char *dir);

/* signals.c: the handler for SIGINT, SIGTERM, SIGHUP and SIGQUIT. */
void rec_signals_install(void);
void rec_signals_restore(void);
/* In a forked child: the signals as they were before install (CMD), or
 * ignored (the finishing writer, which only the parent may stop). */
void rec_signals_child_default(void);
void rec_signals_child_ignore(void);
/* phase 1: the child to forward to (0: none yet) and the held signal */
void rec_signals_set_child(pid_t pid);
int rec_signals_take_pending(void);
void rec_signals_handshake_done(void);
/* phase 2: from now on signals are counted, not forwarded */
void rec_signals_finishing(void);
/* how many signals came since rec_signals_finishing; the one that abandons
 * the write (0: none) */
int rec_signals_since_finishing(void);
int rec_signals_abandon(void);
/* the last signal that came (0: none yet) */
int rec_signals_last(void);

#endif
