/*
 * test_monitor.c - gpuscope monitor over a fake NVML (tests/gpu/fake_nvml.h):
 * the log round-trips (every value, unknown stays unknown), --format jsonl
 * prints the log's own lines, a replayed log gives the live table byte for
 * byte, MIG instances through the log, its replay and CSV (hostile entries
 * refused, an older log without them), appending only to a monitor log, a
 * FIFO refused without blocking, a log cut by a crash or holding garbage
 * read up to what is readable, the
 * reading hints (docs/method.md §3.1) from exactly the numbers that call for them, and container /
 * pod ids from every cgroup layout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../gpu/fake_nvml.h"
#include "health/hints.h"
#include "monitor/log.h"
#include "monitor/monitor.h"
#include "monitor/procinfo.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/gs-monitor-XXXXXX");
	assert_non_null(mkdtemp(dir));
	fake_count = 2;
	fake_small_grid(&fake_gpus[0]);
	fake_small_grid(&fake_gpus[1]);
	fake_gpus[1].util = 97;
	fake_gpus[1].gpm_sm = 91;
	fake_gpus[1].gpm_dram = 88;
	fake_gpus[1].n_procs = 0;
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), getenv("KEEP") ? "true %s" : "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return b;
}

/* The two files hold the same bytes. */
static void assert_files_equal(const char *p, const char *q)
{
	size_t a, b;
	char *x = slurp(p, &a), *y = slurp(q, &b);
	assert_int_equal(a, b);
	assert_memory_equal(x, y, a);
	free(x);
	free(y);
}

/* Runs the monitor over the fake into out_path with the given options. */
static int run_live(enum mon_format fmt, const char *log, const char *out_path, long count)
{
	struct gpu_sys sys;
	char err[GS_ERR_LEN];
	struct monitor_opts o;
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	memset(&o, 0, sizeof(o));
	o.interval_s = 0.05;
	o.count = count;
	o.gpu = -1;
	o.format = fmt;
	o.log = log;
	o.sys = &sys;
	o.proc_root = "/nonexistent";
	o.out = fopen(out_path, "w");
	assert_non_null(o.out);
	int rc = monitor_run(&o, err);
	fclose(o.out);
	gpu_sys_close(&sys);
	return rc;
}

/* run_live with the fake's GPU 0 in MIG mode (fake_mig_setup) */
static int run_live_mig(enum mon_format fmt, const char *log, const char *out_path, long count)
{
	fake_mig_setup();
	int rc = run_live(fmt, log, out_path, count);
	fake_mig_ops = 0;
	return rc;
}

static int run_replay(enum mon_format fmt, const char *log, const char *out_path, char *err)
{
	struct monitor_opts o;
	memset(&o, 0, sizeof(o));
	o.gpu = -1;
	o.format = fmt;
	o.replay = log;
	o.out = fopen(out_path, "w");
	assert_non_null(o.out);
	int rc = monitor_run(&o, err);
	fclose(o.out);
	return rc;
}

static void log_round_trip_and_jsonl(void **state)
{
	char log[128], out[128], err[GS_ERR_LEN];
	struct monlog l;
	snprintf(log, sizeof(log), "%s/m.log", dir);
	snprintf(out, sizeof(out), "%s/out.jsonl", dir);
	assert_int_equal(run_live(MON_JSONL, log, out, 3), 0);
	assert_files_equal(log, out); /* jsonl is the log's own lines */

	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_int_equal(l.n_dev, 2);
	assert_int_equal(l.n_rounds, 3);
	assert_int_equal(l.sessions, 1);
	assert_int_equal(l.bad_lines, 0);
	assert_true(l.interval_s == 0.05);
	assert_string_equal(l.st[0].name, "NVIDIA H200");
	assert_int_equal(l.st[1].max_sm_clock_mhz, 1980);
	for (size_t r = 0; r < 3; r++) {
		const struct gpu_sample *s = l.rounds[r].s;
		assert_true(s[0].v[GPU_M_GPU_UTIL] == 100);
		/* the first round's GPM sample is only the baseline of the second
		 * round's window (no wait before the first row): unknown, never 0 */
		if (r == 0) {
			assert_false(gpu_sample_has(&s[0], GPU_M_GPM_SM));
			assert_false(gpu_sample_has(&s[1], GPU_M_GPM_DRAM));
		} else {
			assert_true(s[0].v[GPU_M_GPM_SM] == 2.5);
			assert_true(s[1].v[GPU_M_GPM_DRAM] == 88);
		}
		assert_true(s[0].v[GPU_M_ENERGY] == 123456.789);
		assert_true(s[0].v[GPU_M_VIOL_POWER] == 1.5);
		assert_true(s[0].v[GPU_M_PROCESSES] == 1);
		assert_false(gpu_sample_has(&s[0], GPU_M_XID_LAST)); /* unknown stays unknown */
		assert_false(gpu_sample_has(&s[0], GPU_M_PCIE_REPLAY));
		assert_int_equal(l.rounds[r].procs[0].n, 1);
		assert_int_equal(l.rounds[r].procs[0].p[0].pid, 4242);
		assert_true(l.rounds[r].procs[0].p[0].mem_bytes == 512ULL << 20);
		assert_true(l.rounds[r].procs[1].valid); /* known empty, not unknown */
		assert_int_equal(l.rounds[r].procs[1].n, 0);
	}
	monlog_release(&l);

	/* a second session appends; both are read */
	assert_int_equal(run_live(MON_TABLE, log, out, 2), 0);
	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_int_equal(l.sessions, 2);
	assert_int_equal(l.n_rounds, 5);
	monlog_release(&l);
	(void)state;
}

/* Two live rounds in format fmt with a log named name, then that log
 * replayed: the replay's output (asserted equal to live's), malloc'd.
 * mig: the fake's GPU 0 in MIG mode. */
static char *live_as_replayed(enum mon_format fmt, const char *name, int mig)
{
	char log[128], live[128], replay[128], err[GS_ERR_LEN];
	snprintf(log, sizeof(log), "%s/%s.log", dir, name);
	snprintf(live, sizeof(live), "%s/%s.live", dir, name);
	snprintf(replay, sizeof(replay), "%s/%s.replay", dir, name);
	assert_int_equal((mig ? run_live_mig : run_live)(fmt, log, live, 2), 0);
	assert_int_equal(run_replay(fmt, log, replay, err), 0);
	char *a = slurp(live, NULL), *b = slurp(replay, NULL);
	assert_string_equal(a, b);
	free(a);
	return b;
}

static void replay_gives_the_live_table(void **state)
{
	char log[128], replay[128], err[GS_ERR_LEN];
	snprintf(log, sizeof(log), "%s/t.log", dir);
	char *a = live_as_replayed(MON_TABLE, "t", 0);
	/* the seed's contrast is named, unknown is ?, never 0 */
	assert_non_null(strstr(a, "note: GPU-Util 100% but SM activity 2.5%"));
	assert_non_null(strstr(a, "note: DRAM bandwidth at 88% of its peak"));
	assert_non_null(strstr(a, "process 4242 ?: memory 512 MiB, sm 100%"));
	assert_non_null(strstr(a, "PCIe max gen5 x16"));
	free(a);
	/* csv: every registry metric a column; unknown an empty cell */
	snprintf(replay, sizeof(replay), "%s/replay.csv", dir);
	assert_int_equal(run_replay(MON_CSV, log, replay, err), 0);
	a = slurp(replay, NULL);
	assert_non_null(strstr(a, "ts_ns,gpu,gpu_util,mem_util,"));
	assert_non_null(strstr(a, ",100,1,1980,3201,151,41,"));
	free(a);
	(void)state;
}

/* MIG: the live table has a line per instance of a GPU in MIG mode (its
 * profile, GPU instance, MIG UUID, memory and its own GPM), none for a GPU
 * that is not partitioned */
static void mig_instances_in_the_table(void **state)
{
	char out[128];
	snprintf(out, sizeof(out), "%s/mig.txt", dir);
	assert_int_equal(run_live_mig(MON_TABLE, NULL, out, 2), 0);
	char *a = slurp(out, NULL);
	/* round 1: no GPM window yet; round 2: each instance its own values */
	assert_non_null(strstr(a, "  MIG 3g.71gb GI 1 MIG-aaaaaaaa-fake: memory 1.0/71.0 GiB, "
				  "SM ?, "));
	assert_non_null(strstr(a, "  MIG 3g.71gb GI 1 MIG-aaaaaaaa-fake: memory 1.0/71.0 GiB, "
				  "SM 40.0%, occupancy 1.0%, DRAM 85.0%"));
	assert_non_null(strstr(a, "  MIG 1g.18gb GI 5 MIG-bbbbbbbb-fake: memory 0.5/18.0 GiB, "
				  "SM 3.0%"));
	int n = 0;
	for (char *p = a; (p = strstr(p, "  MIG ")) != NULL; p++)
		n++;
	assert_int_equal(n, 4); /* 2 instances x 2 rounds; GPU 1 has none */
	free(a);
	(void)state;
}

/* the same MIG round the table shows live, written to the log and read
 * back: every instance with its labels and values, unknown stays unknown,
 * none for the GPU not in MIG mode; jsonl is still the log's own lines */
static void mig_log_round_trip(void **state)
{
	char log[128], out[128], err[GS_ERR_LEN], note[256];
	struct monlog l;
	struct gpu_migs mg;
	snprintf(log, sizeof(log), "%s/mig.log", dir);
	snprintf(out, sizeof(out), "%s/mig.jsonl", dir);
	assert_int_equal(run_live_mig(MON_JSONL, log, out, 3), 0);
	assert_files_equal(log, out);
	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_int_equal(l.n_rounds, 3);
	assert_int_equal(l.bad_migs, 0);
	assert_int_equal(l.n_migs, 6);
	assert_string_equal(monlog_note(&l, note, sizeof(note)), "");
	for (size_t r = 0; r < 3; r++) {
		monlog_round_migs(&l, r, 0, &mg);
		assert_true(mg.valid);
		assert_int_equal(mg.n, 2);
		assert_int_equal(mg.m[0].gi_id, 1);
		assert_int_equal(mg.m[0].ci_id, 0);
		assert_string_equal(mg.m[0].profile, "3g.71gb");
		assert_string_equal(mg.m[0].uuid, "MIG-aaaaaaaa-fake");
		assert_int_equal(mg.m[1].gi_id, 5);
		assert_string_equal(mg.m[1].profile, "1g.18gb");
		assert_string_equal(mg.m[1].uuid, "MIG-bbbbbbbb-fake");
		assert_true(mg.m[0].s.v[GPU_M_MEM_TOTAL] == (double)(71ULL << 30));
		assert_true(mg.m[1].s.v[GPU_M_MEM_USED] == (double)(512ULL << 20));
		/* GPM per instance from the second round on, unknown before */
		assert_int_equal(gpu_sample_has(&mg.m[0].s, GPU_M_GPM_SM), r > 0);
		if (r > 0) {
			assert_true(mg.m[0].s.v[GPU_M_GPM_DRAM] == 85);
			assert_true(mg.m[1].s.v[GPU_M_GPM_SM] == 3);
		}
		assert_false(gpu_sample_has(&mg.m[0].s, GPU_M_GPU_UTIL)); /* not an instance's */
		monlog_round_migs(&l, r, 1, &mg);
		assert_false(mg.valid); /* GPU 1 is not in MIG mode */
		/* the GPU's own values and its process's instance beside them */
		assert_true(l.rounds[r].s[0].v[GPU_M_GPU_UTIL] == 100);
		assert_int_equal(l.rounds[r].procs[0].p[0].gpu_instance_id, 5);
	}
	monlog_release(&l);
	(void)state;
}

/* monitor --replay gives the live table's instance lines and the same CSV,
 * a row per instance after its GPU's with the MIG columns last */
static void mig_replay_table_and_csv(void **state)
{
	char *b = live_as_replayed(MON_TABLE, "mt", 1);
	assert_non_null(strstr(b, "  MIG 1g.18gb GI 5 MIG-bbbbbbbb-fake: memory 0.5/18.0 GiB, "
				  "SM 3.0%"));
	free(b);
	b = live_as_replayed(MON_CSV, "mc", 1);
	/* old columns first, in their order; the MIG ones at the end */
	assert_true(strncmp(b, "ts_ns,gpu,gpu_util,", 19) == 0);
	const char *tail = "clock_event_reasons_decoded,hints,profile,gi,ci,mig_uuid\n";
	char *nl = strchr(b, '\n') + 1;
	assert_true(strncmp(nl - strlen(tail), tail, strlen(tail)) == 0);
	/* rows: per round GPU 0, its 2 instances, GPU 1; one cell per column */
	int rows = 0, mig_rows = 0;
	size_t cols = 0;
	for (char *line = b; *line; line = strchr(line, '\n') + 1, rows++) {
		size_t c = 0;
		int quoted = 0;
		for (char *p = line; *p != '\n'; p++) {
			quoted ^= *p == '"';
			c += !quoted && *p == ',';
		}
		if (!cols)
			cols = c;
		assert_int_equal(c, cols);
		mig_rows +=
		    strstr(line, "MIG-") != NULL && strstr(line, "MIG-") < strchr(line, '\n');
	}
	assert_int_equal(rows, 1 + 2 * 4);
	assert_int_equal(mig_rows, 4);
	/* an instance row: its own memory, no GPU-Util, its labels last */
	char *row = strstr(b, ",\"3g.71gb\",1,0,\"MIG-aaaaaaaa-fake\"\n");
	assert_non_null(row);
	while (row[-1] != '\n')
		row--;
	assert_non_null(strstr(row, ",0,")); /* gpu 0 */
	char *cell = strchr(strchr(row, ',') + 1, ',');
	assert_true(cell[1] == ','); /* gpu_util: the whole GPU's, empty here */
	/* a GPU row ends with four empty cells */
	assert_non_null(strstr(b, "\",,,,\n"));
	free(b);
	(void)state;
}

/* a log written before MIG was logged reads as before: no instance, no note */
static void old_log_without_mig(void **state)
{
	struct monlog l;
	struct gpu_migs mg;
	char err[GS_ERR_LEN], note[256];
	assert_int_equal(
	    monlog_read(&l, GPUSCOPE_SOURCE_DIR "/tests/fixtures/monitor/synthetic-2gpu.jsonl",
			err),
	    0);
	assert_int_equal(l.n_rounds, 40);
	for (size_t r = 0; r < l.n_rounds; r++)
		for (unsigned d = 0; d < l.n_dev; d++) {
			monlog_round_migs(&l, r, d, &mg);
			assert_false(mg.valid);
			assert_int_equal(mg.n, 0);
		}
	assert_int_equal(l.n_migs + l.bad_migs + l.bad_lines, 0);
	assert_string_equal(monlog_note(&l, note, sizeof(note)), "");
	monlog_release(&l);
	(void)state;
}

/* hostile MIG entries: each refused and named, the rest of the list and the
 * GPU's own values kept, nothing longer than its field, at most GPU_MAX_MIG */
static void corrupt_mig_entries(void **state)
{
	char log[128], err[GS_ERR_LEN], note[256];
	struct monlog l;
	struct gpu_migs mg;
	snprintf(log, sizeof(log), "%s/bad-mig.log", dir);
	FILE *f = fopen(log, "w");
	fputs("{\"t\":\"header\",\"schema\":\"gpuscope.monitor.v1\",\"host\":\"h\",\"start_ns\":1,"
	      "\"gpus\":1}\n{\"t\":\"gpu\",\"gpu\":0,\"vendor\":\"nvidia\"}\n",
	      f);
	/* round 1: "mig" of the wrong type */
	fputs("{\"t\":\"s\",\"ts\":1,\"gpu\":0,\"v\":{\"gpu_util\":7},\"mig\":{\"gi\":1}}\n", f);
	/* round 2: ten instances: eight kept, two past GPU_MAX_MIG */
	fputs("{\"t\":\"s\",\"ts\":2,\"gpu\":0,\"v\":{\"gpu_util\":8},\"mig\":[", f);
	for (int i = 0; i < 10; i++)
		fprintf(f, "%s{\"gi\":%d,\"v\":{\"mem_used_bytes\":%d}}", i ? "," : "", i, i);
	fputs("]}\n", f);
	/* round 3: one good entry among bad ones */
	fputs("{\"t\":\"s\",\"ts\":3,\"gpu\":0,\"v\":{\"gpu_util\":9},\"mig\":[7,\"x\",null,"
	      "{\"gi\":\"1\"},{\"gi\":-1},{\"gi\":1.5},{\"gi\":1e300},{\"ci\":0},"
	      "{\"gi\":1,\"ci\":-2},{\"gi\":1,\"ci\":\"0\"},{\"gi\":1,\"profile\":5},"
	      "{\"gi\":1,\"mig_uuid\":[]},{\"gi\":1,\"v\":[1]},"
	      "{\"gi\":2,\"ci\":0,\"profile\":\"1g.18gb\",\"mig_uuid\":\"MIG-x\","
	      "\"v\":{\"mem_used_bytes\":5,\"gpm_sm_util\":\"high\",\"nope\":1}},"
	      "{\"gi\":2,\"ci\":1,\"profile\":\"1g.18gb\",\"mig_uuid\":\"MIG-x\"},",
	      f);
	/* a huge profile and a UUID one byte too long: refused, not cut */
	fputs("{\"gi\":3,\"profile\":\"", f);
	for (int i = 0; i < 200000; i++)
		fputc('p', f);
	fputs("\"},{\"gi\":4,\"mig_uuid\":\"", f);
	for (int i = 0; i < 96; i++)
		fputc('u', f);
	fputs("\"}]}\n", f);
	fclose(f);

	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_int_equal(l.n_rounds, 3);
	assert_int_equal(l.bad_lines, 0);
	for (size_t r = 0; r < 3; r++) /* the GPU's values whatever its MIG list */
		assert_true(l.rounds[r].s[0].v[GPU_M_GPU_UTIL] == 7 + (double)r);
	monlog_round_migs(&l, 0, 0, &mg);
	assert_false(mg.valid);
	monlog_round_migs(&l, 1, 0, &mg);
	assert_true(mg.valid);
	assert_int_equal(mg.n, GPU_MAX_MIG);
	assert_int_equal(mg.m[7].gi_id, 7);
	assert_true(mg.m[7].s.v[GPU_M_MEM_USED] == 7);
	assert_int_equal(mg.m[7].ci_id, -1); /* absent: unknown */
	assert_string_equal(mg.m[7].profile, "");
	monlog_round_migs(&l, 2, 0, &mg);
	assert_true(mg.valid);
	assert_int_equal(mg.n, 1);
	assert_int_equal(mg.m[0].gi_id, 2);
	assert_int_equal(mg.m[0].ci_id, 0);
	assert_string_equal(mg.m[0].uuid, "MIG-x");
	assert_true(mg.m[0].s.v[GPU_M_MEM_USED] == 5);
	assert_false(gpu_sample_has(&mg.m[0].s, GPU_M_GPM_SM)); /* a string: not a value */
	/* 1 (wrong type) + 2 (past 8) + 16 in round 3 (15 bad, 1 duplicate series) */
	assert_int_equal(l.bad_migs, 19);
	assert_string_equal(monlog_note(&l, note, sizeof(note)),
			    "19 MIG instance entries unreadable and skipped");
	/* the views of the refused round draw what is left */
	struct mon_frame fr = {1, 0, 1, l.st, 3, l.rounds[2].s, NULL, NULL, "h", 1, &mg};
	struct mon_procs *p = calloc(1, sizeof(*p));
	fr.procs = p;
	FILE *null = fopen("/dev/null", "w");
	mon_table_round(null, &fr);
	mon_csv_round(null, &fr);
	fclose(null);
	free(p);
	monlog_release(&l);
	(void)state;
}

/* a MIG run's log cut by a crash in its last line: the rounds before whole,
 * instances included */
static void mig_log_cut(void **state)
{
	char log[128], out[128], err[GS_ERR_LEN];
	struct monlog l;
	struct gpu_migs mg;
	snprintf(log, sizeof(log), "%s/mcut.log", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(run_live_mig(MON_TABLE, log, out, 2), 0);
	/* gpu 1's line is last: cut into gpu 0's line of round 2, in its "mig" */
	char *x = slurp(log, NULL);
	char *last0 = strstr(strstr(x, "\"mig\":[") + 1, "\"mig\":[");
	assert_non_null(last0);
	assert_int_equal(truncate(log, (off_t)(last0 - x) + 20), 0);
	free(x);
	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_true(l.cut_last_line);
	assert_int_equal(l.bad_lines, 1);
	assert_int_equal(l.n_rounds, 1); /* round 2's line of gpu 0 is the cut one */
	monlog_round_migs(&l, 0, 0, &mg);
	assert_true(mg.valid);
	assert_int_equal(mg.n, 2);
	monlog_release(&l);
	(void)state;
}

static void only_appends_to_a_log(void **state)
{
	char path[128], err[GS_ERR_LEN];
	struct monlog_writer w;
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	FILE *f = fopen(path, "w");
	fputs("my notes\n", f);
	fclose(f);
	assert_int_equal(monlog_open(&w, path, err), -1);
	assert_non_null(strstr(err, "is not a gpuscope monitor log; not appending"));
	char *x = slurp(path, NULL);
	assert_string_equal(x, "my notes\n"); /* untouched */
	free(x);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(monlog_open(&w, path, err), -1); /* and did not block */
	assert_non_null(strstr(err, "not a regular file"));
	struct monlog l;
	assert_int_equal(monlog_read(&l, path, err), -1);
	assert_int_equal(monlog_read(&l, "/dev/zero", err), -1);
	assert_int_equal(monlog_read(&l, dir, err), -1);
	(void)state;
}

static void crash_cut_and_garbage(void **state)
{
	char log[128], bad[128], err[GS_ERR_LEN], note[256];
	struct monlog l;
	snprintf(log, sizeof(log), "%s/c.log", dir);
	snprintf(bad, sizeof(bad), "%s/out", dir);
	assert_int_equal(run_live(MON_TABLE, log, bad, 3), 0);
	size_t n;
	char *x = slurp(log, &n);
	/* a crash mid-write: the last line cut short */
	assert_int_equal(truncate(log, (off_t)n - 15), 0);
	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_int_equal(l.n_rounds, 3);
	assert_int_equal(l.rounds[2].s[1].valid, 0); /* gpu 1's last sample lost */
	assert_true(l.rounds[2].s[0].v[GPU_M_GPU_UTIL] == 100);
	assert_true(l.cut_last_line);
	assert_string_equal(
	    monlog_note(&l, note, sizeof(note)),
	    "1 of 9 lines unreadable and skipped (first: line 9; the last line is cut)");
	monlog_release(&l);
	/* garbage and NUL bytes (a filesystem after power loss) in the middle */
	FILE *f = fopen(log, "w");
	char *third = strchr(strchr(strchr(x, '\n') + 1, '\n') + 1, '\n') + 1;
	fwrite(x, 1, (size_t)(third - x), f);
	fwrite("\0\0\0\0{\"t\":\"s\",\"ts\":\n{not json\n", 1, 28, f);
	fputs(third, f);
	fclose(f);
	assert_int_equal(monlog_read(&l, log, err), 0);
	assert_int_equal(l.n_rounds, 3);
	assert_int_equal(l.bad_lines, 2);
	assert_int_equal(l.first_bad_line, 4);
	assert_false(l.cut_last_line);
	monlog_release(&l);
	free(x);
	/* no header: not a monitor log at all */
	f = fopen(log, "w");
	fputs("{\"t\":\"s\",\"ts\":1,\"gpu\":0,\"v\":{}}\n", f);
	fclose(f);
	assert_int_equal(monlog_read(&l, log, err), -1);
	assert_non_null(strstr(err, "is not a gpuscope monitor log"));
	(void)state;
}

static int hints_of(struct gpu_sample *s, struct gpu_static *st, const struct mon_procs *p,
		    char (*h)[MON_HINT_LEN])
{
	return mon_hints(st, s, p ? &p->g : NULL, h, MON_MAX_HINTS);
}

static void hints_from_the_numbers(void **state)
{
	struct gpu_sample s;
	struct gpu_static st;
	struct mon_procs *p = calloc(1, sizeof(*p));
	char h[MON_MAX_HINTS][MON_HINT_LEN];
	memset(&st, 0, sizeof(st));
	memset(&s, 0, sizeof(s));
	/* nothing known: nothing said */
	assert_int_equal(hints_of(&s, &st, NULL, h), 0);
	/* GPU-Util high but SM activity unknown: no contrast claimed */
	gpu_sample_set(&s, GPU_M_GPU_UTIL, 100);
	assert_int_equal(hints_of(&s, &st, NULL, h), 0);
	gpu_sample_set(&s, GPU_M_GPM_SM, 3);
	assert_int_equal(hints_of(&s, &st, NULL, h), 1);
	assert_string_equal(h[0], "GPU-Util 100% but SM activity 3.0%: a small kernel keeps the "
				  "GPU 'busy' - gpuscope record will show which");
	gpu_sample_set(&s, GPU_M_GPM_SM, 10); /* at the line: not near 0 */
	assert_int_equal(hints_of(&s, &st, NULL, h), 0);
	gpu_sample_set(&s, GPU_M_GPM_DRAM, 79.9);
	assert_int_equal(hints_of(&s, &st, NULL, h), 0);
	gpu_sample_set(&s, GPU_M_GPM_DRAM, 80);
	assert_int_equal(hints_of(&s, &st, NULL, h), 1);
	/* docs/method.md §3.1: util low, memory low, a process running: the GPU waits */
	memset(&s, 0, sizeof(s));
	gpu_sample_set(&s, GPU_M_GPU_UTIL, 20);
	gpu_sample_set(&s, GPU_M_MEM_USED, 10);
	gpu_sample_set(&s, GPU_M_MEM_TOTAL, 100);
	p->g.valid = 1;
	p->g.n = p->g.total = 1;
	assert_int_equal(hints_of(&s, &st, p, h), 1);
	assert_non_null(strstr(h[0], "GPU-Util 20% with memory 10% used: the GPU waits"));
	p->g.n = p->g.total = 0; /* an idle GPU with nothing on it: no advice */
	assert_int_equal(hints_of(&s, &st, p, h), 0);
	gpu_sample_set(&s, GPU_M_MEM_USED, 95); /* util low, memory full */
	p->g.n = p->g.total = 3;
	assert_int_equal(hints_of(&s, &st, p, h), 2);
	assert_non_null(strstr(h[0], "memory 95% full: a large model with sparse compute"));
	assert_string_equal(h[1], "3 processes share this GPU: GPU-Util and memory include all of "
				  "them");
	gpu_sample_set(&s, GPU_M_GPU_UTIL, 0); /* memory full, no kernel: not bandwidth */
	assert_int_equal(hints_of(&s, &st, p, h), 2);
	assert_non_null(strstr(h[0], "memory 95% full: the memory is held but almost no kernel"));
	gpu_sample_set(&s, GPU_M_GPU_UTIL, 20);
	/* clocks, heat, links, errors */
	memset(&s, 0, sizeof(s));
	gpu_sample_set(&s, GPU_M_CLOCK_EVENTS, 0x4 | 0x40);
	gpu_sample_set(&s, GPU_M_TEMP, 91);
	gpu_sample_set(&s, GPU_M_PCIE_WIDTH, 8);
	gpu_sample_set(&s, GPU_M_PCIE_WIDTH_MAX, 16);
	gpu_sample_set(&s, GPU_M_XID_COUNT, 2);
	gpu_sample_set(&s, GPU_M_XID_LAST, 79);
	assert_int_equal(hints_of(&s, &st, NULL, h), 5);
	assert_non_null(strstr(h[0], "clocks held down for power"));
	assert_non_null(strstr(h[1], "clocks held down for temperature"));
	assert_non_null(strstr(h[2], "temperature 91 C"));
	assert_non_null(strstr(h[3], "PCIe link x8 of x16"));
	assert_string_equal(h[4],
			    "2 XID error(s) since start, the last XID 79: gpuscope explain 79");
	free(p);
	(void)state;
}

static void containers_and_pods(void **state)
{
	static const struct {
		const char *cgroup, *container, *pod;
	} cases[] = {
	    {"0::/kubepods.slice/kubepods-besteffort.slice/"
	     "kubepods-besteffort-pod0c4b5f5a_7c8e_4d1e_9d4c_1f2e3a4b5c6d.slice/"
	     "cri-containerd-3f4e5d6c7b8a99887766554433221100ffeeddccbbaa99887766554433221100."
	     "scope\n",
	     "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa99887766554433221100",
	     "0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d"},
	    {"12:memory:/kubepods/burstable/pod0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d/"
	     "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899\n"
	     "11:cpu:/kubepods/burstable/pod0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d/"
	     "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899\n",
	     "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899",
	     "0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d"},
	    {"0::/system.slice/"
	     "docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	     ".scope\n",
	     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ""},
	    {"0::/user.slice/user-1000.slice/session-2.scope\n", "", ""},
	    /* 63 or 65 hex digits are not a container id; "pod" without a UUID is no pod */
	    {"0::/podcast/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", "",
	     ""},
	    {"", "", ""},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proc_meta m;
		memset(&m, 0, sizeof(m));
		proc_meta_from_cgroup(&m, cases[i].cgroup);
		assert_string_equal(m.container_id, cases[i].container);
		assert_string_equal(m.pod_uid, cases[i].pod);
	}
	/* from a /proc-like tree */
	char path[160];
	snprintf(path, sizeof(path), "%s/proc/77", dir);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && printf 'python3\\n' > %s/comm && printf '%s' > %s/cgroup", path,
		 path, cases[0].cgroup, path);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/proc", dir);
	struct proc_meta m;
	proc_meta_read(&m, path, 77);
	assert_string_equal(m.comm, "python3");
	assert_string_equal(m.pod_uid, cases[0].pod);
	proc_meta_read(&m, path, 78); /* gone: nothing, no error */
	assert_string_equal(m.comm, "");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(log_round_trip_and_jsonl, setup, teardown),
	    cmocka_unit_test_setup_teardown(replay_gives_the_live_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(mig_instances_in_the_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(mig_log_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(mig_replay_table_and_csv, setup, teardown),
	    cmocka_unit_test(old_log_without_mig),
	    cmocka_unit_test_setup_teardown(corrupt_mig_entries, setup, teardown),
	    cmocka_unit_test_setup_teardown(mig_log_cut, setup, teardown),
	    cmocka_unit_test_setup_teardown(only_appends_to_a_log, setup, teardown),
	    cmocka_unit_test_setup_teardown(crash_cut_and_garbage, setup, teardown),
	    cmocka_unit_test(hints_from_the_numbers),
	    cmocka_unit_test_setup_teardown(containers_and_pods, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
