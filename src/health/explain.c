/*
 * explain.c - the explain catalogue's accessors and its text and JSON forms
 * (see explain.h). Labels and prose are translated where printed; commands,
 * ids, mnemonics, sources and JSON keys never are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/explain_catalogue.h"
#include "health/explain_paste.h"
#include "util/i18n.h"
#include "util/json_out.h"
#include "util/wrap.h"

#define COLS 100

static const char *const layer_ids[EL_COUNT] = {
    "hardware", "driver", "runtime", "framework", "container", "windows", "desktop", "laptop",
};

static const char *const layer_names[EL_COUNT] = {
    N_("GPU hardware and health"),
    N_("driver and NVML"),
    N_("CUDA runtime"),
    N_("frameworks (PyTorch, JAX, TensorFlow, PaddlePaddle, NCCL, cuDNN, cuBLAS)"),
    N_("containers and Kubernetes"),
    N_("Windows"),
    N_("browsers, desktops and other accelerators"),
    N_("laptops and WSL"),
};

const char *explain_layer_name(enum explain_layer l)
{
	return l < EL_COUNT ? layer_names[l] : "";
}

size_t explain_n_entries(void)
{
	return explain_sys_n + explain_env_n + explain_vendors_n;
}

const struct explain_entry *explain_entry(size_t i)
{
	if (i < explain_sys_n)
		return &explain_sys[i];
	i -= explain_sys_n;
	if (i < explain_env_n)
		return &explain_env[i];
	i -= explain_env_n;
	return i < explain_vendors_n ? &explain_vendors[i] : NULL;
}

const struct explain_entry *explain_find_id(const char *id)
{
	for (size_t i = 0, n = explain_n_entries(); i < n; i++)
		if (strcmp(explain_entry(i)->id, id) == 0)
			return explain_entry(i);
	return NULL;
}

static const char *sev_label(enum severity s)
{
	return s == SEV_CRITICAL ? _("critical") : s == SEV_WARNING ? _("warning") : _("info");
}

static void print_list(FILE *f, const char *heading, const char *const *items)
{
	char num[16];
	if (!items[0])
		return;
	fprintf(f, "%s\n", heading);
	for (int i = 0; i < CAT_MAX && items[i]; i++) {
		snprintf(num, sizeof(num), "  %d. ", i + 1);
		wrap_print(f, num, "     ", _(items[i]), COLS);
	}
}

static void print_check(FILE *f, const struct cat_check *c)
{
	wrap_print(f, "  $ ", "    ", c->cmd, COLS);
	if (c->why)
		wrap_print(f, "      ", "      ", _(c->why), COLS);
}

static void print_body(FILE *f, const struct cat_text *t, const struct cat_check *gs)
{
	wrap_print(f, _("meaning: "), "  ", _(t->meaning), COLS);
	print_list(f, _("likely causes (most likely first):"), t->causes);
	if (t->checks[0].cmd) {
		fprintf(f, "%s\n", _("checks to run:"));
		for (int i = 0; i < CAT_MAX && t->checks[i].cmd; i++)
			print_check(f, &t->checks[i]);
	}
	print_list(f, _("what to do:"), t->fixes);
	if (gs && gs->cmd) {
		fprintf(f, "%s\n", _("gpuscope can help:"));
		print_check(f, gs);
	}
}

static void applies_list(unsigned a, char *buf, size_t cap)
{
	static const char *const names[] = {"A100", "H100", "B100", "GB200"};
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < 4; i++)
		if (a & (1u << i))
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? " " : "",
						 names[i]);
	if (!used)
		snprintf(buf, cap, "%s", _("none of A100, H100, B100, GB200"));
}

static const struct cat_check xid_gs = {"gpuscope doctor",
					N_("XIDs in the kernel log, ECC and remapped rows of every "
					   "GPU")};

static void print_xid(FILE *f, int code)
{
	const struct xid_info *x = xid_lookup(code);
	char head[160], applies[64], line[512];

	if (!x) {
		snprintf(head, sizeof(head), _("XID %d: not in gpuscope's catalogue"), code);
		wrap_print(f, "", "  ", head, COLS);
		wrap_print(f, "", "  ",
			   _("gpuscope carries every code of NVIDIA's Xid Catalog (XIDs 1-172); a "
			     "newer driver may log codes added since: look it up in NVIDIA's "
			     "catalogue (docs.nvidia.com/deploy/xid-errors)"),
			   COLS);
		return;
	}
	snprintf(head, sizeof(head), "XID %d: %s  [%s]", code, _(x->text->title),
		 sev_label(x->sev));
	wrap_print(f, "", "  ", head, COLS);
	applies_list(x->applies, applies, sizeof(applies));
	snprintf(line, sizeof(line), "%s, \"%s\"; %s %s", x->mnemonic, x->description,
		 _("applies to"), applies);
	wrap_print(f, _("NVIDIA: "), "  ", line, COLS);
	print_body(f, x->text, NULL);
	fprintf(f, "%s\n", _("NVIDIA's resolution buckets:"));
	snprintf(line, sizeof(line), _("%s (%s)"), xid_bucket_name(x->immediate),
		 _(xid_bucket_action(x->immediate)));
	wrap_print(f, _("  now: "), "    ", line, COLS);
	if (x->investigate != XB_NONE) {
		snprintf(line, sizeof(line), _("%s (%s)"), xid_bucket_name(x->investigate),
			 _(xid_bucket_action(x->investigate)));
		wrap_print(f, _("  if it repeats: "), "    ", line, COLS);
	}
	fprintf(f, "%s\n", _("gpuscope can help:"));
	print_check(f, &xid_gs);
	wrap_print(f, _("source: "), "  ", xid_catalogue_source, COLS);
}

static void print_entry(FILE *f, const struct explain_entry *e)
{
	char head[512];
	snprintf(head, sizeof(head), "%s: %s  [%s, %s]", e->id, _(e->text.title), sev_label(e->sev),
		 _(layer_names[e->layer]));
	wrap_print(f, "", "  ", head, COLS);
	print_body(f, &e->text, &e->gpuscope);
	wrap_print(f, _("source: "), "  ", e->source, COLS);
}

static void match_title(const struct explain_match *m, char *buf, size_t cap)
{
	if (m->entry) {
		snprintf(buf, cap, "%s (%s)", m->entry->id, _(m->entry->text.title));
		return;
	}
	const struct xid_info *x = xid_lookup(m->xid);
	snprintf(buf, cap, "XID %d (%s)", m->xid, x ? _(x->text->title) : _("not catalogued"));
}

void explain_print_text(FILE *f, const struct explain_result *r, const char *query)
{
	char t[512];
	explain_paste_text(f, r, query);
	/* the best match in full; when it is an XID, every XID found with it too */
	int full = 0;
	while (full < r->n && (full == 0 || (!r->m[full].entry && !r->m[full - 1].entry))) {
		if (full)
			fputc('\n', f);
		if (r->m[full].entry)
			print_entry(f, r->m[full].entry);
		else
			print_xid(f, r->m[full].xid);
		full++;
	}
	if (full < r->n) {
		fprintf(f, "\n%s\n", _("also possible (gpuscope explain ID for the details):"));
		for (int i = full; i < r->n; i++) {
			match_title(&r->m[i], t, sizeof(t));
			wrap_print(f, "  - ", "    ", t, COLS);
		}
	}
}

static void json_strings(struct json_out *j, const char *key, const char *const *items)
{
	json_key(j, key);
	json_begin_array(j);
	for (int i = 0; i < CAT_MAX && items[i]; i++)
		json_string(j, _(items[i]));
	json_end_array(j);
}

static void json_check(struct json_out *j, const struct cat_check *c)
{
	json_begin_object(j);
	json_kv_string(j, "command", c->cmd);
	json_kv_string(j, "shows", c->why ? _(c->why) : "");
	json_end_object(j);
}

static void json_body(struct json_out *j, const struct cat_text *t, const struct cat_check *gs)
{
	json_kv_string(j, "title", _(t->title));
	json_kv_string(j, "meaning", _(t->meaning));
	json_strings(j, "causes", t->causes);
	json_key(j, "checks");
	json_begin_array(j);
	for (int i = 0; i < CAT_MAX && t->checks[i].cmd; i++)
		json_check(j, &t->checks[i]);
	json_end_array(j);
	json_strings(j, "fixes", t->fixes);
	json_key(j, "gpuscope");
	json_check(j, gs);
}

static void json_bucket(struct json_out *j, const char *key, enum xid_bucket b)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_string(j, "bucket", xid_bucket_name(b));
	json_kv_string(j, "action", _(xid_bucket_action(b)));
	json_end_object(j);
}

static void json_xid(struct json_out *j, int code, double score)
{
	const struct xid_info *x = xid_lookup(code);
	static const char *const names[] = {"A100", "H100", "B100", "GB200"};
	char id[32];
	snprintf(id, sizeof(id), "xid%d", code);
	json_begin_object(j);
	json_kv_string(j, "id", id);
	json_kv_string(j, "kind", "xid");
	json_kv_int(j, "xid", code);
	json_kv_bool(j, "catalogued", x != NULL);
	json_kv_double(j, "score", score);
	if (x) {
		json_kv_string(j, "severity", severity_name(x->sev));
		json_kv_string(j, "layer", layer_ids[EL_HARDWARE]);
		json_body(j, x->text, &xid_gs);
		json_key(j, "nvidia");
		json_begin_object(j);
		json_kv_string(j, "mnemonic", x->mnemonic);
		json_kv_string(j, "description", x->description);
		json_key(j, "applies_to");
		json_begin_array(j);
		for (int i = 0; i < 4; i++)
			if (x->applies & (1u << i))
				json_string(j, names[i]);
		json_end_array(j);
		json_bucket(j, "immediate", x->immediate);
		json_bucket(j, "investigatory", x->investigate);
		json_end_object(j);
	}
	json_kv_string(j, "source", xid_catalogue_source);
	json_end_object(j);
}

static void json_entry(struct json_out *j, const struct explain_entry *e, double score)
{
	json_begin_object(j);
	json_kv_string(j, "id", e->id);
	json_kv_string(j, "kind", "text");
	json_kv_double(j, "score", score);
	json_kv_string(j, "severity", severity_name(e->sev));
	json_kv_string(j, "layer", layer_ids[e->layer]);
	json_body(j, &e->text, &e->gpuscope);
	json_kv_string(j, "source", e->source);
	json_end_object(j);
}

void explain_print_json(FILE *f, const struct explain_result *r, const char *query)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.explain.v2");
	json_kv_int(&j, "query_bytes", (int64_t)r->query_bytes);
	explain_paste_json(&j, r, query);
	json_key(&j, "matches");
	json_begin_array(&j);
	for (int i = 0; i < r->n; i++) {
		if (r->m[i].entry)
			json_entry(&j, r->m[i].entry, r->m[i].score);
		else
			json_xid(&j, r->m[i].xid, r->m[i].score);
	}
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', f);
}

void explain_print_list(FILE *f, int json)
{
	size_t n = explain_n_entries();
	int nx;
	const struct xid_info *x = xid_table(&nx);
	char line[512];

	if (json) {
		struct json_out j;
		json_out_init(&j, f, 1);
		json_begin_object(&j);
		json_kv_string(&j, "schema", "gpuscope.explain.v2");
		json_key(&j, "matches");
		json_begin_array(&j);
		for (int i = 0; i < nx; i++)
			json_xid(&j, x[i].code, 0);
		for (size_t i = 0; i < n; i++)
			json_entry(&j, explain_entry(i), 0);
		json_end_array(&j);
		json_end_object(&j);
		fputc('\n', f);
		return;
	}
	for (int l = 0; l < EL_COUNT; l++) {
		fprintf(f, "%s:\n", _(layer_names[l]));
		for (size_t i = 0; i < n; i++) {
			const struct explain_entry *e = explain_entry(i);
			if (e->layer != (enum explain_layer)l)
				continue;
			snprintf(line, sizeof(line), "%-24s %s", e->id, _(e->text.title));
			wrap_print(f, "  ", "                           ", line, COLS);
		}
		fputc('\n', f);
	}
	wrap_print(f, "", "", xid_catalogue_source, COLS);
	for (int i = 0; i < nx; i++) {
		const char *desc = strcmp(x[i].description, "Unused") ? x[i].description : "";
		snprintf(line, sizeof(line), "%3d  %-8s %s%s%s", x[i].code, sev_label(x[i].sev),
			 _(x[i].text->title), *desc ? " - " : "", desc);
		wrap_print(f, "  XID ", "                    ", line, COLS);
	}
}
