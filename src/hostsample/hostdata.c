/*
 * hostdata.c - interning and walking host stacks, frameworks lookups
 * (hostdata.h).
 */
#include "hostsample/hostdata.h"

#include <string.h>

struct frame_key {
	const struct trace *t;
	struct trace_host_frame f;
};

static uint64_t frame_hash(const struct trace_host_frame *f)
{
	uint64_t h = hash_u64((uint64_t)f->kind << 32 | f->name_id);
	h = hash_u64(h ^ ((uint64_t)f->module_id << 32 | f->file_id));
	return hash_u64(h ^ f->line);
}

static int frame_eq(const void *ctx, uint32_t i)
{
	const struct frame_key *k = ctx;
	const struct trace_host_frame *f = &k->t->host_frames[i];
	return f->kind == k->f.kind && f->name_id == k->f.name_id &&
	       f->module_id == k->f.module_id && f->file_id == k->f.file_id && f->line == k->f.line;
}

int host_intern_init(struct host_intern *h, struct trace *t)
{
	memset(h, 0, sizeof(*h));
	h->t = t;
	if (u64map_init(&h->nodes, t->n_host_stacks) < 0)
		return -1;
	for (size_t i = 0; i < t->n_host_frames; i++)
		if (hindex_add(&h->frames, frame_hash(&t->host_frames[i]), (uint32_t)i) < 0)
			goto oom;
	for (size_t i = 0; i < t->n_host_stacks; i++) {
		const struct trace_host_stack *s = &t->host_stacks[i];
		if (u64map_put(&h->nodes, (uint64_t)s->parent_id << 32 | s->frame_id, s->id) < 0)
			goto oom;
	}
	return 0;
oom:
	host_intern_release(h);
	return -1;
}

void host_intern_release(struct host_intern *h)
{
	hindex_release(&h->frames);
	u64map_release(&h->nodes);
}

uint32_t host_frame(struct host_intern *h, enum host_frame_kind kind, const char *name,
		    const char *module, const char *file, uint32_t line)
{
	struct trace *t = h->t;
	struct frame_key k = {t,
			      {0, (uint8_t)kind, trace_intern(t, name ? name : ""),
			       trace_intern(t, module ? module : ""),
			       trace_intern(t, file ? file : ""), line}};
	if (k.f.name_id == UINT32_MAX || k.f.module_id == UINT32_MAX || k.f.file_id == UINT32_MAX)
		return 0;
	uint64_t hash = frame_hash(&k.f);
	int64_t at = hindex_find(&h->frames, hash, frame_eq, &k);
	if (at >= 0)
		return t->host_frames[at].id;
	size_t idx = t->n_host_frames;
	struct trace_host_frame *f = trace_add_host_frame(t);
	if (!f)
		return 0;
	*f = k.f;
	f->id = (uint32_t)idx + 1;
	if (hindex_add(&h->frames, hash, (uint32_t)idx) < 0) {
		t->n_host_frames--;
		return 0;
	}
	return f->id;
}

uint32_t host_stack(struct host_intern *h, const uint32_t *frames, size_t n)
{
	struct trace *t = h->t;
	uint32_t parent = 0;
	for (size_t i = n; i-- > 0;) {
		uint64_t key = (uint64_t)parent << 32 | frames[i], id;
		if (u64map_get(&h->nodes, key, &id)) {
			parent = (uint32_t)id;
			continue;
		}
		size_t idx = t->n_host_stacks;
		struct trace_host_stack *s = trace_add_host_stack(t);
		if (!s)
			return 0;
		*s = (struct trace_host_stack){(uint32_t)idx + 1, parent, frames[i]};
		if (u64map_put(&h->nodes, key, s->id) < 0) {
			t->n_host_stacks--;
			return 0;
		}
		parent = s->id;
	}
	return parent;
}

static const struct trace_host_stack *stack_row(const struct trace *t, uint32_t id)
{
	if (id == 0 || id > t->n_host_stacks || t->host_stacks[id - 1].id != id)
		return NULL;
	return &t->host_stacks[id - 1];
}

size_t host_stack_frames(const struct trace *t, uint32_t stack_id, uint32_t *frames, size_t cap)
{
	size_t n = 0;
	const struct trace_host_stack *s = stack_row(t, stack_id);
	while (s && n < cap) {
		frames[n++] = s->frame_id;
		if (s->parent_id >= s->id)
			break; /* invariant 1 broken: stop here */
		s = stack_row(t, s->parent_id);
	}
	return n;
}

const struct trace_host_frame *host_frame_row(const struct trace *t, uint32_t frame_id)
{
	if (frame_id == 0 || frame_id > t->n_host_frames ||
	    t->host_frames[frame_id - 1].id != frame_id)
		return NULL;
	return &t->host_frames[frame_id - 1];
}

const char *host_framework_version(const struct trace *t, uint32_t pid, const char *name)
{
	for (size_t i = 0; i < t->n_frameworks; i++) {
		const struct trace_framework *f = &t->frameworks[i];
		if ((pid == 0 || f->pid == pid) && strcmp(trace_str(t, f->name_id), name) == 0)
			return trace_str(t, f->version_id);
	}
	return NULL;
}

const char *host_sampling_status(const struct trace *t, uint32_t pid)
{
	for (size_t i = 0; i < t->n_host_sampling; i++)
		if (t->host_sampling[i].pid == pid)
			return trace_str(t, t->host_sampling[i].status_id);
	return NULL;
}
