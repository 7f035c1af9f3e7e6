/*
 * cmd_monitor.c - `gpuscope monitor`: parse options, run src/monitor
 * (docs/monitor.md).
 */
#include <string.h>

#include "cli/cli.h"
#include "cli/signals.h"
#include "monitor/monitor.h"

struct monitor_cli_opts {
	double interval, speed;
	long long count;
	int gpu, progress;
	const char *format, *log, *replay, *root;
};

static const struct cli_option monitor_options[] = {
    OPT_DOUBLE(0, "interval", struct monitor_cli_opts, interval, "S", 0.05, 3600,
	       "seconds between rounds (default 1)"),
    OPT_LLONG(0, "count", struct monitor_cli_opts, count, "N", 1, 1e12,
	      "stop after N rounds (default: until q or Ctrl-C)"),
    OPT_INT(0, "gpu", struct monitor_cli_opts, gpu, "N", 0, GPU_MAX_DEVICES - 1,
	    "show GPU N only (default: every GPU)"),
    OPT_FORMAT(struct monitor_cli_opts, format, "table|csv|jsonl",
	       "table, csv or jsonl (the log's lines); default: the ncurses view on a\n"
	       "terminal, a table otherwise"),
    OPT_STRING(0, "log", struct monitor_cli_opts, log, "FILE",
	       "append every round to FILE (JSON lines, synced each round: readable up\n"
	       "to the last round after a crash; only ever appends to a monitor log)"),
    OPT_STRING(0, "replay", struct monitor_cli_opts, replay, "FILE",
	       "show the rounds of a monitor log instead of the GPUs"),
    OPT_DOUBLE(0, "replay-speed", struct monitor_cli_opts, speed, "X", 0.01, 1000,
	       "with --replay in the ncurses view: X times as fast as recorded (default 1)"),
    OPT_STRING(0, "root", struct monitor_cli_opts, root, "DIR",
	       "read the kernel's GPU files (sys, proc, dev) under DIR instead of /\n(tests: AMD "
	       "and Intel fixture trees)",
	       .flags = CLI_HIDDEN),
    OPT_PROGRESS(struct monitor_cli_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_monitor = {
    .name = "monitor",
    .max_args = 0,
    .options = monitor_options,
    .description =
	"A live per-GPU view with the numbers nvidia-smi hides: GPU-Util beside GPM SM\n"
	"activity, SM occupancy, DRAM bandwidth, tensor and FP pipe activity; memory,\n"
	"clocks, power and temperature against their limits; decoded clock-event reasons;\n"
	"PCIe link current vs max and throughput; ECC and remapped rows; XIDs since start;\n"
	"processes with their container and pod; one-line reading hints. Unknown values\n"
	"show as ?. Read-only.\n",
    .footer = "keys (ncurses view): q quits\n"
	      "exit status: 0 ok, 1 error (no GPU, unreadable log, write error), 2 usage\n",
};

int cmd_monitor(int argc, char **argv)
{
	struct monitor_cli_opts c = {.interval = 1, .gpu = -1, .progress = -1, .speed = 1};
	int n = cli_parse(&cli_spec_monitor, &c, argc, argv);
	if (n < 0)
		return cli_exit(n);
	if (c.log && c.replay)
		return cli_usage_error(&cli_spec_monitor, "--log and --replay do not go together");
	struct monitor_opts o;
	memset(&o, 0, sizeof(o));
	o.interval_s = c.interval;
	o.count = (long)c.count;
	o.gpu = c.gpu;
	o.format = !c.format			    ? MON_AUTO
		   : strcmp(c.format, "csv") == 0   ? MON_CSV
		   : strcmp(c.format, "jsonl") == 0 ? MON_JSONL
						    : MON_TABLE;
	o.log = c.log;
	o.replay = c.replay;
	o.replay_speed = c.speed;
	o.root = c.root;
	o.stop = cli_stop_on_signals();
	o.version = GPUSCOPE_VERSION;
	o.timing = c.progress > 0; /* explicit --progress only: scripts read stderr */
	char err[GS_ERR_LEN];
	if (monitor_run(&o, err) < 0)
		return error_print("%s", err);
	return GS_EXIT_OK;
}
