/*
 * xid.c - XID catalogue (NVIDIA "XID Errors", docs.nvidia.com/deploy/xid-errors,
 * and the XID catalog in r5xx driver documentation) and NVRM line parser.
 *
 * Line forms handled (all documented in NVIDIA's XID guide and kernel logs):
 *   NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.
 *   NVRM: Xid (PCI:0000:3b:00 GPU-I:02 GPU-CI:01): 43, pid=..., ...   (MIG)
 *   NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, ... (old)
 *   NVRM: Xid (0000:3b:00): 13, ...                                     (no PCI:)
 * with raw "[ 1234.5678]", dmesg -T "[Wed Dec  2 11:00:00 2026]" or syslog
 * "Dec  2 11:00:00 host kernel: " prefixes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "health/xid.h"

static const struct xid_info xid_catalogue[] = {
    {13, 0, "graphics engine exception",
     "a kernel faulted in the graphics/compute engine (illegal instruction, out-of-range address)",
     "an application bug (out-of-bounds access, bad pointer); rarely driver or hardware",
     "run the program under compute-sanitizer; if many different programs hit it, check the "
     "driver version and the hardware"},
    {31, 0, "gpu memory page fault", "a kernel accessed an address that is not mapped (MMU fault)",
     "an application illegal memory access; less often a driver bug",
     "run under compute-sanitizer --tool memcheck; check for use-after-free of device memory"},
    {32, 1, "invalid or corrupted push buffer stream",
     "the command stream the driver sent to the GPU was corrupted",
     "driver bug, PCIe transfer errors, or system memory corruption",
     "check PCIe errors (replay counter, AER in dmesg), update the driver, test system memory"},
    {38, 1, "driver firmware error", "the driver detected a firmware error",
     "driver/firmware mismatch or a firmware bug",
     "update the driver; collect nvidia-bug-report.sh and contact the vendor if it recurs"},
    {43, 0, "gpu stopped processing",
     "the GPU stopped the offending channel after a fault (the process's context was killed)",
     "an application error such as an illegal access or a software-induced fault",
     "look at the process named in the line; the GPU itself is usually healthy"},
    {45, 0, "preemptive cleanup, due to previous errors",
     "the driver cleaned up a context after an earlier error or the process was killed",
     "a previous XID, or the application was stopped (ctrl-c, OOM killer) while using the GPU",
     "look for the XID logged just before; on its own it needs no action"},
    {48, 1, "double bit ecc error", "an uncorrectable (double-bit) ECC error in GPU memory",
     "GPU memory hardware fault",
     "drain the GPU, reset it (nvidia-smi -r) to retire the page / remap the row; replace the "
     "GPU if it repeats"},
    {61, 1, "internal micro-controller breakpoint/warning",
     "the GPU's internal micro-controller (PMU) hit a breakpoint or warning",
     "firmware or driver problem", "update the driver; reset the GPU if it stops responding"},
    {62, 1, "internal micro-controller halt", "the GPU's internal micro-controller halted",
     "firmware, driver or thermal problem",
     "check temperatures and power; reset the GPU; update the driver"},
    {63, 0, "ecc page retirement or row remapping recording event",
     "the driver recorded a page retirement or a row remap after memory errors",
     "GPU memory errors that the hardware handled",
     "check nvidia-smi -q -d ROW_REMAPPER / PAGE_RETIREMENT; reset the GPU when a remap is "
     "pending"},
    {64, 1, "ecc page retirement or row remapper recording failure",
     "the driver failed to record a page retirement or row remap",
     "GPU memory hardware fault beyond what remapping can repair",
     "drain the GPU and contact the vendor (RMA candidate)"},
    {68, 0, "nvdec0 exception / video processor exception", "the video decoder raised an error",
     "application, driver or hardware", "check the decoding application; update the driver"},
    {69, 0, "graphics engine class error", "an illegal class/method was sent to the engine",
     "application or driver bug", "update the driver; check the application"},
    {74, 1, "nvlink error", "an error was detected on an NVLink connection",
     "NVLink hardware, cable/bridge, or NVSwitch problem",
     "nvidia-smi nvlink -s / -e for error counters; reseat bridges; contact the vendor"},
    {79, 1, "gpu has fallen off the bus",
     "the GPU stopped responding on PCIe and the driver lost it",
     "hardware (PCIe link, riser, power delivery, overheating) or a driver/firmware fault",
     "check power supply and cabling, temperatures, PCIe AER errors in dmesg, reseat the card; "
     "reboot is needed to recover"},
    {92, 0, "high single-bit ecc error rate", "the GPU corrected many single-bit ECC errors",
     "degrading GPU memory",
     "watch ecc counters and remapped rows; plan a replacement if the rate stays high"},
    {94, 0, "contained ecc error",
     "an uncorrectable memory error was contained: only the affected application was stopped",
     "GPU memory error",
     "restart the application; reset the GPU at the next opportunity so the "
     "row remap takes effect"},
    {95, 1, "uncontained ecc error",
     "an uncorrectable memory error could not be contained: every application on the GPU is "
     "affected",
     "GPU memory error", "drain and reset the GPU; replace it if it repeats"},
    {109, 0, "context switch timeout error", "a context switch did not complete in time",
     "an application (long-running kernel, hang), driver or hardware",
     "check the application for hangs; update the driver"},
    {119, 1, "gsp rpc timeout", "the driver timed out waiting for the GPU System Processor",
     "GSP firmware hang, driver bug, or the GPU is stuck",
     "update the driver; reset the GPU; collect nvidia-bug-report.sh"},
    {120, 1, "gsp error", "the GPU System Processor reported an error",
     "GSP firmware or driver problem", "update the driver; reset the GPU if it recurs"},
    {140, 1, "unrecovered ecc error", "an ECC error the GPU could not recover from",
     "GPU memory hardware fault", "reset the GPU; replace it if it repeats"},
    {143, 1, "gpu initialization failure", "the GPU failed to initialise",
     "hardware, firmware or power problem", "reboot; check power and seating; contact the vendor"},
    {144, 1, "nvlink saw error", "an NVLink (SAW/MVB unit) error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
    {145, 1, "nvlink rlw error", "an NVLink RLW unit error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
    {146, 1, "nvlink tlw error", "an NVLink TLW unit error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
    {147, 1, "nvlink trex error", "an NVLink TREX unit error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
    {148, 1, "nvlink nvle error", "an NVLink encryption (NVLE) error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
    {149, 1, "nvlink netir error", "an NVLink network (NETIR) error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
    {150, 1, "nvlink mse error", "an NVLink management (MSE) error", "NVLink hardware or fabric",
     "check nvlink status and the fabric manager; contact the vendor"},
};

const struct xid_info *xid_table(int *n)
{
	*n = (int)(sizeof(xid_catalogue) / sizeof(xid_catalogue[0]));
	return xid_catalogue;
}

const struct xid_info *xid_lookup(int code)
{
	int n;
	const struct xid_info *t = xid_table(&n);
	for (int i = 0; i < n; i++)
		if (t[i].code == code)
			return &t[i];
	return NULL;
}

static void copy_trim(char *dst, size_t cap, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, s, len);
	dst[len] = 0;
}

/* The timestamp text of a line: "[...]" if present, else the syslog prefix. */
static void line_time(const char *line, const char *nvrm, char *dst, size_t cap)
{
	const char *lb = memchr(line, '[', (size_t)(nvrm - line));
	dst[0] = 0;
	if (lb) {
		const char *rb = memchr(lb, ']', (size_t)(nvrm - lb));
		if (rb) {
			copy_trim(dst, cap, lb + 1, (size_t)(rb - lb - 1));
			return;
		}
	}
	const char *k = strstr(line, " kernel:");
	if (k && k < nvrm) {
		/* "Dec  2 11:00:00 host kernel:" or "2026-12-02T11:00:00+00:00 host kernel:" */
		const char *sp = k;
		while (sp > line && sp[-1] != ' ')
			sp--; /* start of host name */
		copy_trim(dst, cap, line, (size_t)(sp - line));
	}
}

int xid_parse_line(const char *line, struct xid_event *ev)
{
	const char *nvrm = strstr(line, "NVRM: Xid (");
	const char *p, *close, *q;
	char *end;
	long code;

	if (!nvrm)
		nvrm = strstr(line, "NVRM: Xid(");
	if (!nvrm)
		return -1;
	memset(ev, 0, sizeof(*ev));
	p = strchr(nvrm, '(') + 1;
	close = strchr(p, ')');
	if (!close)
		return -1;
	/* inside the parentheses: [PCI:]BUS [GPU-I:NN GPU-CI:NN] */
	if (strncmp(p, "PCI:", 4) == 0)
		p += 4;
	q = p;
	while (q < close && *q != ' ')
		q++;
	copy_trim(ev->pci, sizeof(ev->pci), p, (size_t)(q - p));
	if (q < close)
		copy_trim(ev->mig, sizeof(ev->mig), q, (size_t)(close - q));
	p = close + 1;
	if (*p == ':')
		p++;
	code = strtol(p, &end, 10);
	if (end == p || code < 0 || code > 100000)
		return -1;
	ev->code = (int)code;
	p = end;
	while (*p == ',' || *p == ' ')
		p++;
	/* optional "pid=N, name=X, " (old form: pid='<unknown>', name=<unknown>) */
	if (strncmp(p, "pid=", 4) == 0) {
		const char *pe = strchr(p, ',');
		size_t plen = pe ? (size_t)(pe - p) : strlen(p);
		char pid[40];
		copy_trim(pid, sizeof(pid), p + 4, plen - 4);
		p = pe ? pe + 1 : p + plen;
		while (*p == ' ')
			p++;
		if (strncmp(p, "name=", 5) == 0) {
			const char *ne = strchr(p, ',');
			size_t nlen = ne ? (size_t)(ne - p) : strlen(p);
			char name[64];
			copy_trim(name, sizeof(name), p + 5, nlen - 5);
			snprintf(ev->process, sizeof(ev->process), "pid=%s name=%s", pid, name);
			p = ne ? ne + 1 : p + nlen;
		} else {
			snprintf(ev->process, sizeof(ev->process), "pid=%s", pid);
		}
	}
	copy_trim(ev->msg, sizeof(ev->msg), p, strcspn(p, "\r\n"));
	line_time(line, nvrm, ev->time, sizeof(ev->time));
	return 0;
}

#define XID_LINE_MAX 65536

void xid_scan_stream(struct xid_scan *s, FILE *f)
{
	char *buf = malloc(XID_LINE_MAX);
	struct xid_event ev;

	if (!buf)
		return;
	while (fgets(buf, XID_LINE_MAX, f)) {
		size_t len = strlen(buf);
		/* a cut line: drop the rest of it */
		if (len == XID_LINE_MAX - 1 && buf[len - 1] != '\n') {
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		s->lines++;
		if (xid_parse_line(buf, &ev))
			continue;
		s->xid_lines++;
		int i;
		for (i = 0; i < s->n; i++)
			if (s->g[i].first.code == ev.code && strcmp(s->g[i].first.pci, ev.pci) == 0)
				break;
		if (i == s->n) {
			if (s->n == XID_MAX_GROUPS)
				continue;
			s->n++;
			s->g[i].first = ev;
			s->g[i].count = 0;
		}
		s->g[i].last = ev;
		s->g[i].count++;
	}
	free(buf);
}

void xid_scan_findings(const struct xid_scan *s, struct finding_list *l)
{
	for (int i = 0; i < s->n; i++) {
		const struct xid_group *g = &s->g[i];
		const struct xid_info *x = xid_lookup(g->first.code);
		enum severity sev = (!x || x->critical) ? SEV_CRITICAL : SEV_WARNING;
		struct finding *f = finding_add(
		    l, "xid", sev, "XID %d (%s) on GPU %s, %ld time%s in the kernel log",
		    g->first.code, x ? x->name : "not in the catalogue",
		    g->first.pci[0] ? g->first.pci : "unknown", g->count, g->count == 1 ? "" : "s");
		if (!f)
			return;
		finding_num(f, "code", g->first.code);
		finding_str(f, "pci", "%s", g->first.pci);
		finding_num(f, "count", (double)g->count);
		finding_str(f, "first", "%s", g->first.time);
		finding_str(f, "last", "%s", g->last.time);
		if (g->last.process[0])
			finding_str(f, "process", "%s", g->last.process);
		if (g->last.mig[0])
			finding_str(f, "mig", "%s", g->last.mig);
		finding_str(f, "line", "%s", g->last.msg);
		finding_str(f, "meaning", "%s",
			    x ? x->meaning
			      : "not in gpuscope's catalogue; see NVIDIA's XID catalog");
		finding_str(f, "cause", "%s", x ? x->cause : "unknown");
		finding_str(f, "source", "NVIDIA XID Errors, docs.nvidia.com/deploy/xid-errors");
		if (x)
			finding_action(f, "%s", x->action);
		finding_action(f, "run: gpuscope explain %d", g->first.code);
	}
}
