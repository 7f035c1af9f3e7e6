/*
 * xid.c - the NVRM Xid line parser, the kernel-log scan and doctor's `xid`
 * findings (the catalogue itself is data: xid_catalogue.c).
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
#include "util/i18n.h"

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
	/* a field of the kernel log is shown on a terminal: no control
	 * characters (ESC, BEL, CR) reach it */
	for (size_t i = 0; i < len; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
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
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	code = strtol(p, &end, 10);
	/* the code is a decimal number on its own: "0x4f", "1e3", "79abc" are not */
	if (end == p || code < 0 || code > 100000 ||
	    (*end && *end != ',' && !isspace((unsigned char)*end)))
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

static void scan_line(struct xid_scan *s, const char *line)
{
	struct xid_event ev;
	s->lines++;
	if (xid_parse_line(line, &ev))
		return;
	s->xid_lines++;
	int i;
	for (i = 0; i < s->n; i++)
		if (s->g[i].first.code == ev.code && strcmp(s->g[i].first.pci, ev.pci) == 0)
			break;
	if (i == s->n) {
		if (s->n == XID_MAX_GROUPS)
			return;
		s->n++;
		s->g[i].first = ev;
		s->g[i].count = 0;
	}
	s->g[i].last = ev;
	s->g[i].count++;
}

/*
 * Reads in chunks and splits at '\n' itself: bytes are counted as read, so a
 * stream of NULs with no newline (/dev/zero) still reaches max_bytes; a line
 * keeps its first XID_LINE_MAX - 1 bytes and the rest is skipped.
 */
void xid_scan_stream(struct xid_scan *s, FILE *f, long long max_bytes)
{
	char *line = malloc(XID_LINE_MAX), *chunk = malloc(XID_LINE_MAX);
	size_t used = 0, n;
	int open_line = 0;

	if (!line || !chunk) {
		free(line);
		free(chunk);
		return;
	}
	while ((n = fread(chunk, 1, XID_LINE_MAX, f)) > 0) {
		size_t pos = 0;
		s->bytes += (long long)n;
		while (pos < n) {
			/* a NUL ends a line too: after a hard crash syslog holds a run
			 * of NULs, and the first line written after it follows them */
			size_t end = pos;
			while (end < n && chunk[end] != '\n' && chunk[end])
				end++;
			const char *nl = end < n ? chunk + end : NULL;
			size_t take = end - pos;
			if (nl && !*nl && !used && !take) {
				pos = end + 1; /* NULs between lines */
				continue;
			}
			if (used + take > XID_LINE_MAX - 1)
				take = XID_LINE_MAX - 1 - used; /* a cut line */
			memcpy(line + used, chunk + pos, take);
			used += take;
			open_line = 1;
			if (!nl)
				break;
			line[used] = 0;
			scan_line(s, line);
			used = 0;
			open_line = 0;
			pos = end + 1;
		}
		if (max_bytes && s->bytes >= max_bytes) {
			s->capped = 1;
			break;
		}
	}
	if (open_line) {
		line[used] = 0;
		scan_line(s, line);
	}
	free(line);
	free(chunk);
}

void xid_scan_findings(const struct xid_scan *s, struct finding_list *l)
{
	for (int i = 0; i < s->n; i++) {
		const struct xid_group *g = &s->g[i];
		const struct xid_info *x = xid_lookup(g->first.code);
		/* an uncatalogued code is unknown to us: treat it as the worst */
		enum severity sev = !x ? SEV_CRITICAL : x->sev < SEV_WARNING ? SEV_WARNING : x->sev;
		const char *pci = g->first.pci[0] ? g->first.pci : _("unknown");
		const char *name = x ? _(x->text->title) : _("not in the catalogue");
		struct finding *f =
		    finding_add(l, "xid", sev,
				NG_("XID %d (%s) on GPU %s, %ld time in the kernel log",
				    "XID %d (%s) on GPU %s, %ld times in the kernel log",
				    (unsigned long)g->count),
				g->first.code, name, pci, g->count);
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
		if (x) {
			finding_str(f, "mnemonic", "%s", x->mnemonic);
			finding_str(f, "meaning", "%s", _(x->text->meaning));
			finding_str(f, "cause", "%s", _(x->text->causes[0]));
			finding_str(f, "nvidia_action", "%s", xid_bucket_name(x->immediate));
			finding_action(f, "%s", _(xid_bucket_action(x->immediate)));
			/* the first fix, unless it only repeats NVIDIA's action */
			if (x->text->fixes[0] &&
			    strcmp(x->text->fixes[0], xid_bucket_action(x->immediate)))
				finding_action(f, "%s", _(x->text->fixes[0]));
			finding_action(f, _("run: gpuscope explain %d"), g->first.code);
		} else {
			finding_str(f, "meaning", "%s",
				    _("not in the XID catalogue gpuscope carries (XIDs 1-172)"));
			finding_action(f, "%s",
				       _("look the code up in NVIDIA's Xid Catalog "
					 "(docs.nvidia.com/deploy/xid-errors); a newer driver may "
					 "have added it"));
		}
		finding_str(f, "source", "%s", xid_catalogue_source);
	}
}
