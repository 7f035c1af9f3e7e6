/*
 * diff_json.c - the JSON form of a diff (schema gpuscope.diff.v1,
 * docs/diff.md). A ratio that is not defined is null; a one-sided
 * kernel's missing side is null and its ratio the string "N/A".
 */
#include <math.h>
#include <stdio.h>

#include "render/diff_render.h"
#include "util/json_out.h"

static void side(struct json_out *j, const char *key, const struct diff_side *s)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_string(j, "file", s->path);
	json_kv_string(j, "source", s->source);
	json_kv_int(j, "span_ns", s->span_ns);
	json_kv_double(j, "gpu_busy_pct", s->busy_pct);
	json_kv_int(j, "kernels", (int64_t)s->n_kernels);
	json_key(j, "primary");
	if (s->primary)
		json_string(j, s->primary->id);
	else
		json_null(j);
	json_end_object(j);
}

static void ratio(struct json_out *j, const char *k, double r)
{
	json_key(j, k);
	if (r != r)
		json_null(j);
	else
		json_double(j, r);
}

static void kstat(struct json_out *j, const char *k, const struct diff_kstat *s)
{
	json_key(j, k);
	if (!s->present) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_int(j, "count", (int64_t)s->count);
	json_kv_int(j, "total_ns", s->total_ns);
	json_kv_double(j, "mean_ns", (double)s->total_ns / (double)s->count);
	json_kv_int(j, "median_ns", s->median_ns);
	json_end_object(j);
}

static void finding(struct json_out *j, const struct finding *f)
{
	json_begin_object(j);
	json_kv_string(j, "id", f->id);
	json_kv_string(j, "severity", severity_name(f->severity));
	json_kv_double(j, "impact_pct", f->impact_pct);
	char t[sizeof(f->title)];
	json_kv_string(j, "title", finding_title(t, sizeof(t), f));
	json_end_object(j);
}

static void span(struct json_out *j, const struct diff *d)
{
	json_key(j, "span");
	json_begin_object(j);
	json_kv_int(j, "base_ns", d->base.span_ns);
	json_kv_int(j, "new_ns", d->new_.span_ns);
	json_kv_int(j, "delta_ns", d->new_.span_ns - d->base.span_ns);
	ratio(j, "ratio", d->verdict == DIFF_NO_WORK ? NAN : d->span_ratio);
	json_key(j, "delta_pct");
	if (d->verdict == DIFF_NO_WORK)
		json_null(j);
	else
		json_double(j, d->span_pct);
	json_end_object(j);
	json_key(j, "gpu_busy_pct");
	json_begin_object(j);
	json_kv_double(j, "base", d->base.busy_pct);
	json_kv_double(j, "new", d->new_.busy_pct);
	json_kv_double(j, "delta", d->new_.busy_pct - d->base.busy_pct);
	json_end_object(j);
}

static void categories(struct json_out *j, const struct diff *d)
{
	json_key(j, "categories");
	json_begin_array(j);
	for (int i = 0; i < d->n_cats; i++) {
		const struct diff_cat *c = &d->cats[i];
		json_begin_object(j);
		json_kv_string(j, "name", c->name);
		json_kv_int(j, "base_ns", c->base_ns);
		json_kv_int(j, "new_ns", c->new_ns);
		json_kv_int(j, "delta_ns", c->new_ns - c->base_ns);
		ratio(j, "ratio", diff_ratio((double)c->base_ns, (double)c->new_ns));
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "why");
	if (d->why >= 0) {
		const struct diff_cat *c = &d->cats[d->why];
		json_begin_object(j);
		json_kv_string(j, "category", c->name);
		json_kv_string(j, "words", d->why_words);
		json_kv_int(j, "delta_ns", c->new_ns - c->base_ns);
		json_end_object(j);
	} else {
		json_null(j);
	}
}

static void kernels(struct json_out *j, const struct diff *d)
{
	json_key(j, "kernels");
	json_begin_array(j);
	for (size_t i = 0; i < d->n_kernels && i < DIFF_JSON_KERNELS; i++) {
		const struct diff_kernel *r = &d->kernels[i];
		json_begin_object(j);
		json_kv_string(j, "name", r->name);
		kstat(j, "base", &r->base);
		kstat(j, "new", &r->new_);
		json_kv_int(j, "delta_ns", r->delta_ns);
		if (r->base.present && r->new_.present)
			ratio(j, "ratio",
			      diff_ratio((double)r->base.total_ns, (double)r->new_.total_ns));
		else
			json_kv_string(j, "ratio", "N/A");
		json_end_object(j);
	}
	json_end_array(j);
}

static void findings_of(struct json_out *j, const struct diff *d, const char *key,
			enum diff_change which)
{
	json_key(j, key);
	json_begin_array(j);
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct diff_finding *x = &d->findings[i];
		if (x->change != which)
			continue;
		if (which != DIFF_CHANGED) {
			finding(j, x->base ? x->base : x->new_);
			continue;
		}
		json_begin_object(j);
		json_kv_string(j, "id", x->base->id);
		json_kv_string(j, "base_severity", severity_name(x->base->severity));
		json_kv_string(j, "new_severity", severity_name(x->new_->severity));
		json_kv_double(j, "base_impact_pct", x->base->impact_pct);
		json_kv_double(j, "new_impact_pct", x->new_->impact_pct);
		json_kv_double(j, "delta_impact_pct", x->new_->impact_pct - x->base->impact_pct);
		json_kv_string(j, "status", diff_status_name(x->status));
		json_key(j, "evidence"); /* what moved (#16 item 9) */
		json_begin_array(j);
		for (int m = 0; m < x->n_moved; m++) {
			json_begin_object(j);
			json_kv_string(j, "key", x->moved[m].base->key);
			json_kv_double(j, "base", x->moved[m].base->num);
			json_kv_double(j, "new", x->moved[m].new_->num);
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

static void regression(struct json_out *j, const struct diff *d)
{
	json_key(j, "regression");
	json_begin_object(j);
	json_key(j, "threshold_pct");
	if (d->gate_pct >= 0)
		json_double(j, d->gate_pct);
	else
		json_null(j);
	json_kv_bool(j, "regressed", d->gate == DIFF_GATE_REGRESSED);
	/* only when a side has no GPU work (docs/diff.md): which one(s) */
	if (d->verdict == DIFF_NO_WORK) {
		json_key(j, "no_gpu_work");
		json_begin_array(j);
		if (!d->base.has_gpu_work)
			json_string(j, "base");
		if (!d->new_.has_gpu_work)
			json_string(j, "new");
		json_end_array(j);
	}
	json_end_object(j);
}

void diff_json(FILE *f, const struct diff *d)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.diff.v1");
	side(&j, "base", &d->base);
	side(&j, "new", &d->new_);
	span(&j, d);
	categories(&j, d);
	kernels(&j, d);
	json_key(&j, "findings");
	json_begin_object(&j);
	findings_of(&j, d, "appeared", DIFF_APPEARED);
	findings_of(&j, d, "disappeared", DIFF_DISAPPEARED);
	findings_of(&j, d, "changed", DIFF_CHANGED);
	/* each id by what happened to it: resolved, reduced, unchanged,
	 * increased, new */
	for (int st = DIFF_RESOLVED; st <= DIFF_NEW; st++) {
		json_key(&j, diff_status_name((enum diff_status)st));
		json_begin_array(&j);
		for (size_t i = 0; i < d->n_findings; i++)
			if (d->findings[i].status == (enum diff_status)st)
				json_string(&j, d->findings[i].base ? d->findings[i].base->id
								    : d->findings[i].new_->id);
		json_end_array(&j);
	}
	json_end_object(&j);
	json_kv_bool(&j, "identical", d->identical);
	regression(&j, d);
	json_end_object(&j);
	fputc('\n', f);
}
