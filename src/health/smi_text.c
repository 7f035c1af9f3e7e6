/*
 * smi_text.c - a pasted nvidia-smi table read back into numbers
 * (smi_text.h).
 */
#include "health/smi_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 4
#define MAX_TOK 24

/* One line cut at its '|' into cells, each cut at blanks into tokens. */
struct row {
	int n_cells;
	int n_tok[MAX_CELLS];
	char tok[MAX_CELLS][MAX_TOK][48];
};

static void cut(const char *s, const char *end, struct row *r)
{
	memset(r, 0, sizeof(*r));
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s < end && *s == '|')
		s++;
	int c = 0;
	while (s < end && c < MAX_CELLS) {
		const char *e = memchr(s, '|', (size_t)(end - s));
		if (!e)
			e = end;
		int any = 0;
		for (const char *p = s; p < e;) {
			while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
				p++;
			if (p >= e)
				break;
			const char *q = p;
			while (q < e && *q != ' ' && *q != '\t' && *q != '\r')
				q++;
			if (r->n_tok[c] < MAX_TOK) {
				size_t n = (size_t)(q - p) < 47 ? (size_t)(q - p) : 47;
				memcpy(r->tok[c][r->n_tok[c]], p, n);
				r->tok[c][r->n_tok[c]][n] = '\0';
				r->n_tok[c]++;
			}
			any = 1;
			p = q;
		}
		if (any || e < end)
			c++;
		s = e < end ? e + 1 : end;
	}
	r->n_cells = c;
	while (r->n_cells > 0 && r->n_tok[r->n_cells - 1] == 0)
		r->n_cells--;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* "55C" -> 55, "162W" -> 162, "19809MiB" -> 19809, "3%" -> 3: the number
 * before suffix; -1 when the token is not that shape (N/A, ERR!). */
static double with_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n <= k || strcmp(s + n - k, suffix))
		return -1;
	char *e;
	double v = strtod(s, &e);
	/* no reading is 10^15 (MiB, W, C or %): past that it is not one */
	return e == s + n - k && v >= 0 && v < 1e15 ? v : -1;
}

/* A decimal token (all_digits) as a number, saturated at max. */
static long small(const char *s, long max)
{
	long v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v > (max - (*s - '0')) / 10 ? max : v * 10 + (*s - '0');
	return v;
}

static int is_bus_id(const char *s)
{
	/* 00000000:18:00.0 or 0000:02:00.0 */
	const char *a = strchr(s, ':'), *d = strrchr(s, '.');
	return a && d && d > a && strchr(a + 1, ':');
}

static void errs(struct smi_gpu *g, const struct row *r)
{
	for (int c = 0; c < r->n_cells; c++)
		for (int i = 0; i < r->n_tok[c]; i++)
			g->errs += !strcmp(r->tok[c][i], "ERR!");
}

/* The first row of a GPU: "0  NVIDIA H100 80GB HBM3  On | 00000000:18:00.0 Off | 0" */
static int gpu_row(const struct row *r, struct smi_gpu *g)
{
	if (r->n_cells < 3 || r->n_tok[0] < 2 || !all_digits(r->tok[0][0]) || r->n_tok[1] < 1 ||
	    !is_bus_id(r->tok[1][0]))
		return 0;
	memset(g, 0, sizeof(*g));
	g->index = (int)small(r->tok[0][0], 1 << 20);
	g->persistence = -1;
	g->fan_pct = g->temp_c = g->power_w = g->power_cap_w = -1;
	g->mem_used_mib = g->mem_total_mib = g->util_pct = g->ecc_uncorr = -1;
	g->pstate = -1;
	int last = r->n_tok[0] - 1;
	if (!strcmp(r->tok[0][last], "On") || !strcmp(r->tok[0][last], "Off"))
		g->persistence = !strcmp(r->tok[0][last], "On");
	else
		last++;
	size_t k = 0;
	for (int i = 1; i < last && k < sizeof(g->name) - 1; i++)
		k += (size_t)snprintf(g->name + k, sizeof(g->name) - k, "%s%s", i > 1 ? " " : "",
				      r->tok[0][i]);
	if (r->n_tok[2] >= 1 && all_digits(r->tok[2][0]))
		g->ecc_uncorr = (double)small(r->tok[2][0], 1L << 40);
	errs(g, r);
	return 1;
}

/* The second row: "35%  55C  P2  162W / 450W | 19809MiB / 24564MiB | 3%  Default" */
static int stats_row(const struct row *r, struct smi_gpu *g)
{
	if (r->n_cells < 3)
		return 0;
	int got = 0;
	for (int i = 0; i < r->n_tok[0]; i++) {
		const char *t = r->tok[0][i];
		double v;
		if ((v = with_suffix(t, "%")) >= 0)
			g->fan_pct = v, got++;
		else if ((v = with_suffix(t, "C")) >= 0)
			g->temp_c = v, got++;
		else if (t[0] == 'P' && all_digits(t + 1))
			g->pstate = (int)small(t + 1, 99), got++;
		else if ((v = with_suffix(t, "W")) >= 0) {
			/* usage before the '/', the cap after it */
			int after_slash = 0;
			for (int j = 0; j < i; j++)
				after_slash |= !strcmp(r->tok[0][j], "/");
			if (after_slash || (i > 0 && r->tok[0][i - 1][0] == '/'))
				g->power_cap_w = v;
			else
				g->power_w = v;
			got++;
		}
	}
	/* "19809MiB / 24564MiB" */
	int slash = 0;
	for (int i = 0; i < r->n_tok[1]; i++) {
		double v = with_suffix(r->tok[1][i], "MiB");
		if (!strcmp(r->tok[1][i], "/"))
			slash = 1;
		else if (v >= 0 && !slash)
			g->mem_used_mib = v, got++;
		else if (v >= 0)
			g->mem_total_mib = v, got++;
	}
	if (r->n_tok[2] >= 1) {
		double v = with_suffix(r->tok[2][0], "%");
		if (v >= 0)
			g->util_pct = v, got++;
		size_t k = 0;
		for (int i = 1; i < r->n_tok[2] && k < sizeof(g->compute_mode) - 1; i++)
			k += (size_t)snprintf(g->compute_mode + k, sizeof(g->compute_mode) - k,
					      "%s%s", i > 1 ? " " : "", r->tok[2][i]);
	}
	errs(g, r);
	return got > 0 || g->errs > 0;
}

static int is_type(const char *s)
{
	return !strcmp(s, "C") || !strcmp(s, "G") || !strcmp(s, "C+G") || !strcmp(s, "M") ||
	       !strcmp(s, "M+C") || !strcmp(s, "M+G");
}

/* "0  N/A  N/A  1234  C  python  4000MiB" or "0  8351  C  /usr/bin/python3.6  35MiB" */
static int proc_row(const struct row *r, struct smi_proc *p)
{
	if (r->n_cells != 1 || r->n_tok[0] < 4 || !all_digits(r->tok[0][0]))
		return 0;
	int n = r->n_tok[0], t = -1;
	for (int i = 2; i <= 4 && i < n - 1; i++)
		if (is_type(r->tok[0][i]) && all_digits(r->tok[0][i - 1])) {
			t = i;
			break;
		}
	if (t < 0)
		return 0;
	memset(p, 0, sizeof(*p));
	p->gpu = (int)small(r->tok[0][0], 1 << 20);
	p->pid = small(r->tok[0][t - 1], 1L << 40);
	snprintf(p->type, sizeof(p->type), "%.7s", r->tok[0][t]);
	p->mem_mib = with_suffix(r->tok[0][n - 1], "MiB");
	int last = p->mem_mib >= 0 || !strcmp(r->tok[0][n - 1], "N/A") ? n - 1 : n;
	size_t k = 0;
	for (int i = t + 1; i < last && k < sizeof(p->name) - 1; i++)
		k += (size_t)snprintf(p->name + k, sizeof(p->name) - k, "%s%s",
				      i > t + 1 ? " " : "", r->tok[0][i]);
	return 1;
}

static void after_label(const char *s, const char *end, const char *label, char *out, size_t cap)
{
	size_t k = strlen(label);
	const char *q = memmem(s, (size_t)(end - s), label, k);
	out[0] = '\0';
	if (!q)
		return;
	q += k;
	while (q < end && *q == ' ')
		q++;
	size_t n = 0;
	while (q < end && *q != ' ' && *q != '|' && *q != '\n' && n < cap - 1)
		out[n++] = *q++;
	out[n] = '\0';
}

int smi_text_parse(const char *text, size_t len, struct smi_text *t)
{
	const char *s = text, *end = text + len;
	struct row r;
	memset(t, 0, sizeof(*t));
	after_label(s, end, "Driver Version:", t->driver, sizeof(t->driver));
	after_label(s, end, "CUDA Version:", t->cuda, sizeof(t->cuda));
	int in_procs = 0;
	struct smi_gpu *pending = NULL;
	for (const char *ls = s; ls < end;) {
		const char *le = memchr(ls, '\n', (size_t)(end - ls));
		if (!le)
			le = end;
		if (memmem(ls, (size_t)(le - ls), "Processes:", 10))
			in_procs = t->procs_listed = 1;
		if (in_procs && memmem(ls, (size_t)(le - ls), "No running processes found", 26))
			t->no_procs = 1;
		cut(ls, le, &r);
		if (pending) {
			/* the stats row follows the GPU row at once */
			if (!stats_row(&r, pending))
				t->n_gpu--;
			pending = NULL;
		} else if (!in_procs && t->n_gpu < SMI_MAX_GPUS && gpu_row(&r, &t->g[t->n_gpu])) {
			pending = &t->g[t->n_gpu++];
		} else if (in_procs && t->n_proc < SMI_MAX_PROCS &&
			   proc_row(&r, &t->p[t->n_proc])) {
			t->n_proc++;
		}
		ls = le < end ? le + 1 : end;
	}
	if (pending)
		t->n_gpu--;
	return t->n_gpu > 0;
}
