/*
 * db_pages.c - reading a rowid table's rows from the b-tree pages of an
 * SQLite file (db_pages.h). Every offset and length read from the file is
 * checked against its page before use; what does not check out is
 * DBP_UNSURE, never a guess.
 */
#include "trace/db_pages.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEAF_TABLE 0x0d
#define INTERIOR_TABLE 0x05
#define MAX_DEPTH 40	      /* SQLite's own trees stay under 20 levels */
#define SCAN_BYTES (1u << 20) /* pages read by one pread when they are consecutive */
/* zero bytes after a scan's pages: dbp_record reads every integer as the 8
 * bytes where it starts */
#define SCAN_PAD 8

static uint32_t be16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An SQLite varint at p (not past end): its length, 0 when it runs past end. */
static int varint_long(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < 8; i++) {
		if (p + i >= end)
			return 0;
		x = x << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	if (p + 8 >= end)
		return 0;
	*v = x << 8 | p[8];
	return 9;
}

static inline int varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	if (p < end && p[0] < 0x80) {
		*v = p[0];
		return 1;
	}
	return varint_long(p, end, v);
}

/* the page header's offset: page 1 starts with the 100-byte file header */
static uint32_t hdr_at(uint32_t page)
{
	return page == 1 ? 100 : 0;
}

static int read_pages(const struct dbp_file *f, uint32_t first, uint32_t n, unsigned char *buf)
{
	if (first < 1 || n > f->n_pages || first > f->n_pages - n + 1)
		return DBP_UNSURE;
	size_t want = (size_t)n * f->page_size, got = 0;
	off_t at = (off_t)(first - 1) * f->page_size;
	while (got < want) {
		ssize_t r = pread(f->fd, buf + got, want - got, at + (off_t)got);
		if (r <= 0)
			return DBP_UNSURE;
		got += (size_t)r;
	}
	return 0;
}

int dbp_open(struct dbp_file *f, const char *path)
{
	unsigned char h[100];
	struct stat st;
	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return DBP_UNSURE;
	if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode) || pread(f->fd, h, 100, 0) != 100 ||
	    memcmp(h, "SQLite format 3", 16) != 0 || h[19] > 2)
		goto unsure;
	uint32_t ps = be16(h + 16) == 1 ? 65536 : be16(h + 16);
	if (ps < 512 || (ps & (ps - 1)) || ps - h[20] < 480)
		goto unsure;
	f->page_size = ps;
	f->usable = ps - h[20];
	uint64_t n = (uint64_t)st.st_size / ps;
	/* the in-header size counts when "version-valid-for" matches the change counter */
	if (be32(h + 24) == be32(h + 92) && be32(h + 28) && be32(h + 28) < n)
		n = be32(h + 28);
	if (n == 0 || n > UINT32_MAX - 1)
		goto unsure;
	f->n_pages = (uint32_t)n;
	return 0;
unsure:
	dbp_close(f);
	return DBP_UNSURE;
}

void dbp_close(struct dbp_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

struct walk {
	const struct dbp_file *f;
	struct dbp_table *tb;
	size_t cap;
	int64_t *ub; /* each leaf's upper key bound, INT64_MAX: none */
	unsigned char *seen;
	int leaf_depth; /* where the first leaf was found, -1 before */
};

static int add_leaf(struct walk *w, uint32_t page, int64_t ub)
{
	struct dbp_table *tb = w->tb;
	if (tb->n_leaves == w->cap) {
		size_t c = w->cap ? 2 * w->cap : 256;
		uint32_t *l = realloc(tb->leaves, c * sizeof(*l));
		if (l)
			tb->leaves = l;
		int64_t *u = l ? realloc(w->ub, c * sizeof(*u)) : NULL;
		if (!u)
			return DBP_UNSURE;
		w->ub = u;
		w->cap = c;
	}
	tb->leaves[tb->n_leaves] = page;
	w->ub[tb->n_leaves++] = ub;
	return 0;
}

/* Visits the subtree at page (keys <= ub) in key order. */
static int visit(struct walk *w, uint32_t page, int64_t ub, int depth, unsigned char *buf)
{
	const struct dbp_file *f = w->f;
	if (depth > MAX_DEPTH || page < 1 || page > f->n_pages ||
	    (w->seen[page >> 3] & (1u << (page & 7))))
		return DBP_UNSURE;
	w->seen[page >> 3] |= (unsigned char)(1u << (page & 7));
	/* a b-tree's leaves are all at one depth: below the first leaf's
	 * parent, the pages are not read here (dbp_next checks their type) */
	if (depth == w->leaf_depth)
		return add_leaf(w, page, ub);
	if (read_pages(f, page, 1, buf) < 0)
		return DBP_UNSURE;
	uint32_t h = hdr_at(page);
	if (buf[h] == LEAF_TABLE) {
		if (w->leaf_depth < 0)
			w->leaf_depth = depth;
		return add_leaf(w, page, ub);
	}
	if (buf[h] != INTERIOR_TABLE)
		return DBP_UNSURE;
	uint32_t n = be16(buf + h + 3), right = be32(buf + h + 8);
	if (h + 12 + 2 * n > f->usable)
		return DBP_UNSURE;
	/* the children's pages are read into a buffer of their own, this one
	 * is still being walked */
	unsigned char *child = malloc(f->page_size);
	if (!child)
		return DBP_UNSURE;
	int rc = 0;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		uint32_t off = be16(buf + h + 12 + 2 * i);
		uint64_t key;
		if (off < h + 12 + 2 * n || off + 4 >= f->usable ||
		    !varint(buf + off + 4, buf + f->usable, &key)) {
			rc = DBP_UNSURE;
			break;
		}
		rc = visit(w, be32(buf + off), (int64_t)key, depth + 1, child);
	}
	if (rc == 0)
		rc = visit(w, right, ub, depth + 1, child);
	free(child);
	return rc;
}

/* The cell count in leaf page's header: 0 or DBP_UNSURE. */
static int leaf_cells(const struct dbp_file *f, uint32_t page, uint32_t *n, unsigned char *buf)
{
	if (read_pages(f, page, 1, buf) < 0 || buf[hdr_at(page)] != LEAF_TABLE)
		return DBP_UNSURE;
	*n = be16(buf + hdr_at(page) + 3);
	return 0;
}

int dbp_count_cells(struct dbp_table *tb, const struct dbp_file *f)
{
	unsigned char *buf = malloc(f->page_size);
	if (!buf)
		return DBP_UNSURE;
	tb->n_rows = 0;
	for (size_t i = 0; i < tb->n_leaves; i++) {
		if (leaf_cells(f, tb->leaves[i], &tb->cells[i], buf) < 0) {
			free(buf);
			return DBP_UNSURE;
		}
		tb->n_rows += tb->cells[i];
	}
	free(buf);
	return 0;
}

/* Note 2: dense rowids make a leaf's cells the difference of its bound and
 * the previous leaf's; the first and last leaf are counted. */
static int estimate(struct dbp_table *tb, const struct dbp_file *f, const int64_t *ub)
{
	size_t n = tb->n_leaves;
	uint32_t most = f->usable / 4; /* a cell takes at least 4 bytes with its pointer */
	unsigned char *buf = malloc(f->page_size);
	if (!buf)
		return DBP_UNSURE;
	int rc = leaf_cells(f, tb->leaves[0], &tb->cells[0], buf);
	if (rc == 0 && n > 1)
		rc = leaf_cells(f, tb->leaves[n - 1], &tb->cells[n - 1], buf);
	free(buf);
	if (rc < 0)
		return rc;
	for (size_t i = 1; i + 1 < n; i++) {
		int64_t d;
		if (ub[i] == INT64_MAX || ub[i - 1] == INT64_MAX ||
		    __builtin_sub_overflow(ub[i], ub[i - 1], &d) || d < 0 || d > most)
			return dbp_count_cells(tb, f);
		tb->cells[i] = (uint32_t)d;
	}
	tb->n_rows = 0;
	for (size_t i = 0; i < n; i++)
		tb->n_rows += tb->cells[i];
	return 0;
}

int dbp_table_open(struct dbp_table *tb, const struct dbp_file *f, uint32_t root)
{
	memset(tb, 0, sizeof(*tb));
	struct walk w = {.f = f, .tb = tb, .leaf_depth = -1};
	w.seen = calloc((size_t)f->n_pages / 8 + 1, 1);
	unsigned char *buf = malloc(f->page_size);
	int rc = w.seen && buf ? visit(&w, root, INT64_MAX, 0, buf) : DBP_UNSURE;
	free(buf);
	free(w.seen);
	if (rc == 0 && tb->n_leaves) {
		tb->cells = malloc(tb->n_leaves * sizeof(*tb->cells));
		rc = tb->cells ? estimate(tb, f, w.ub) : DBP_UNSURE;
	}
	free(w.ub);
	if (rc < 0)
		dbp_table_release(tb);
	return rc;
}

void dbp_table_release(struct dbp_table *tb)
{
	free(tb->leaves);
	free(tb->cells);
	memset(tb, 0, sizeof(*tb));
}

int dbp_scan_init(struct dbp_scan *s, const struct dbp_file *f, const struct dbp_table *tb,
		  size_t from, size_t to)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->tb = tb;
	s->leaf = from;
	s->end = to;
	s->cap_pages = SCAN_BYTES / f->page_size ? SCAN_BYTES / f->page_size : 1;
	s->buf = malloc((size_t)s->cap_pages * f->page_size + SCAN_PAD);
	if (!s->buf)
		return DBP_UNSURE;
	memset(s->buf + (size_t)s->cap_pages * f->page_size, 0, SCAN_PAD);
	return 0;
}

void dbp_scan_release(struct dbp_scan *s)
{
	free(s->buf);
	s->buf = NULL;
}

/* The leaf's cell content area, from its start to the usable end, is
 * exactly its cells, its free blocks and its fragmented bytes, none of them
 * overlapping: SQLite reports a page that is not as malformed, and the
 * cells of such a page cannot be trusted. Cells are taken in the order
 * SQLite appends them (each below the previous one); a page in any other
 * order (rows updated or deleted in place) is left to SQLite, as is one
 * whose cells spill to overflow pages (dbp_next). */
static int leaf_layout_ok(const unsigned char *p, uint32_t h, uint32_t n, uint32_t usable)
{
	const unsigned char *end = p + usable;
	uint32_t top = be16(p + h + 5) ? be16(p + h + 5) : 65536;
	uint32_t first = h + 8 + 2 * n, below = usable;
	uint64_t used = p[h + 7];
	if (top < first || top > usable)
		return DBP_UNSURE;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = be16(p + h + 8 + 2 * i);
		uint64_t size, rowid;
		int a = off >= top && off < usable ? varint(p + off, end, &size) : 0;
		int b = a ? varint(p + off + a, end, &rowid) : 0;
		if (!b || size > usable - 35)
			return DBP_UNSURE;
		uint64_t len = (uint64_t)a + (uint64_t)b + size;
		if (len < 4)
			len = 4; /* SQLite's smallest cell */
		if (off + len > below)
			return DBP_UNSURE;
		below = off;
		used += len;
	}
	/* the free blocks: ascending, inside the area, at least 4 bytes each,
	 * the chain bounded by the page's size */
	uint32_t fb = be16(p + h + 1), prev = 0;
	for (uint32_t k = 0; fb; k++) {
		if (k > usable / 4 || fb < top || fb <= prev || fb > usable - 4)
			return DBP_UNSURE;
		uint32_t size = be16(p + fb + 2);
		if (size < 4 || fb + size > usable)
			return DBP_UNSURE;
		used += size;
		prev = fb;
		fb = be16(p + fb);
		if (fb && fb < prev + size)
			return DBP_UNSURE;
	}
	return used == usable - top ? 0 : DBP_UNSURE;
}

/* Makes leaf s->leaf the current page, reading it and the consecutive
 * leaves after it when it is not in the buffer. */
static int load_leaf(struct dbp_scan *s)
{
	const struct dbp_file *f = s->f;
	uint32_t page = s->tb->leaves[s->leaf];
	if (page < s->p0 || page - s->p0 >= s->n_buf) {
		uint32_t n = 1;
		while (n < s->cap_pages && s->leaf + n < s->end &&
		       s->tb->leaves[s->leaf + n] == page + n)
			n++;
		s->n_buf = 0;
		if (read_pages(f, page, n, s->buf) < 0)
			return DBP_UNSURE;
		s->p0 = page;
		s->n_buf = n;
	}
	const unsigned char *p = s->buf + (size_t)(page - s->p0) * f->page_size;
	uint32_t h = hdr_at(page), n = be16(p + h + 3);
	if (p[h] != LEAF_TABLE || h + 8 + 2 * n > f->usable)
		return DBP_UNSURE;
	if (n != s->tb->cells[s->leaf])
		return DBP_MISCOUNT;
	if (leaf_layout_ok(p, h, n, f->usable) < 0)
		return DBP_UNSURE;
	s->page = p;
	s->cell = 0;
	s->n_cells = n;
	return 0;
}

int dbp_next(struct dbp_scan *s, const unsigned char **rec, uint32_t *len)
{
	while (!s->page || s->cell == s->n_cells) {
		if (s->leaf >= s->end)
			return 0;
		int rc = load_leaf(s);
		if (rc < 0)
			return rc;
		s->leaf++;
	}
	const unsigned char *p = s->page, *end = p + s->f->usable;
	uint32_t h = hdr_at(s->tb->leaves[s->leaf - 1]);
	uint32_t off = be16(p + h + 8 + 2 * s->cell++);
	if (off < h + 8 + 2 * s->n_cells || off >= s->f->usable)
		return DBP_UNSURE;
	const unsigned char *c = p + off;
	uint64_t size, rowid;
	int a = varint(c, end, &size), b = a ? varint(c + a, end, &rowid) : 0;
	/* a payload over the page's local limit continues on overflow pages */
	if (!b || size > s->f->usable - 35 || size > (uint64_t)(end - (c + a + b)))
		return DBP_UNSURE;
	*rec = c + a + b;
	*len = (uint32_t)size;
	return 1;
}

/* the 8 bytes at p, big-endian */
static inline uint64_t be64(const unsigned char *p)
{
	uint64_t x;
	memcpy(&x, p, sizeof(x));
	return __builtin_bswap64(x);
}

int dbp_record(const unsigned char *rec, uint32_t len, const int8_t *slot, int n_slot,
	       struct dbp_value *out, int *reals)
{
	/* per serial type below 10: the value's size, and the shift that takes an
	 * integer of that size (with its sign) from the top of 8 big-endian
	 * bytes; an integer's size varies from row to row, so the value is taken
	 * without a branch on it (a switch on it mispredicted) */
	static const unsigned char size_of[10] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
	static const unsigned char shift_of[10] = {0, 56, 48, 40, 32, 16, 0, 0, 0, 0};
	const unsigned char *end = rec + len;
	uint64_t hl;
	int k = varint(rec, end, &hl);
	if (!k || hl < (uint64_t)k || hl > len)
		return DBP_UNSURE;
	const unsigned char *hp = rec + k, *hend = rec + hl, *body = hend;
	int f = 0, nreal = 0;
	for (; hp < hend; f++) {
		uint64_t st;
		if (!(k = varint(hp, hend, &st)))
			return DBP_UNSURE;
		hp += k;
		int want = f < n_slot && slot[f] >= 0;
		uint64_t sz;
		if (st < 10)
			sz = size_of[st];
		else if (st < 12 || want)
			return DBP_UNSURE; /* reserved, or a text or blob where a number is read */
		else
			sz = (st - 12) / 2;
		if (sz > (uint64_t)(end - body))
			return DBP_UNSURE;
		if (want) {
			/* types 0, 8 and 9 (NULL, 0 and 1) have no bytes: raw is 0 */
			uint64_t raw = be64(body) & -(uint64_t)(sz != 0);
			struct dbp_value *v = &out[slot[f]];
			v->real = st == 7;
			nreal += st == 7;
			v->i = ((int64_t)raw >> shift_of[st]) + (st == 9);
			memcpy(&v->d, &raw, sizeof(v->d)); /* read only when real */
		}
		body += sz;
	}
	*reals = nreal;
	return f;
}
