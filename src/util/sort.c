/*
 * sort.c - sort_stable (sort.h): a natural merge sort with galloping, after
 * Tim Peters' listsort (CPython's Objects/listsort.txt), simplified: runs
 * are merged pairwise, level by level, and the galloping threshold is
 * fixed.
 */
#include "util/sort.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MINRUN 32 /* shorter runs are extended by insertion (listsort.txt) */
#define GALLOP 7  /* wins in a row before a merge searches for the rest */

struct srt {
	char *a;
	size_t sz;
	sort_cmp_fn cmp;
	void *arg;
	char *tmp;		 /* the smaller side of a merge */
	size_t cap_tmp, max_tmp; /* elements: allocated, allowed */
	char *one;		 /* one element, for insertion and swaps */
};

static inline char *at(const struct srt *s, char *base, size_t i)
{
	return base + i * s->sz;
}

static inline int lt(const struct srt *s, const void *x, const void *y)
{
	return s->cmp(x, y, s->arg) < 0;
}

/* Whether x goes before key: x < key, or x <= key when upper. */
static inline int before(const struct srt *s, const void *x, const void *key, int upper)
{
	return upper ? !lt(s, key, x) : lt(s, x, key);
}

/* The first i in [lo, hi) of base whose element does not go before key,
 * probing from lo (or from hi when from_hi) in steps of 1, 2, 4, ...: about
 * 2 log2(d) compares for an answer d elements from that end. */
static size_t gallop(const struct srt *s, char *base, const void *key, size_t lo, size_t hi,
		     int upper, int from_hi)
{
	size_t l = lo, r = hi, step = 1;
	if (from_hi) {
		while (r > l) {
			size_t p = r - l > step ? r - step : l;
			if (before(s, at(s, base, p), key, upper)) {
				l = p + 1;
				break;
			}
			r = p;
			step *= 2;
		}
	} else {
		while (l < r) {
			size_t p = r - l > step ? l + step - 1 : r - 1;
			if (!before(s, at(s, base, p), key, upper)) {
				r = p;
				break;
			}
			l = p + 1;
			step *= 2;
		}
	}
	while (l < r) {
		size_t m = l + (r - l) / 2;
		if (before(s, at(s, base, m), key, upper))
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* [lo, mid) is sorted; inserts each of [mid, hi) after its equals. */
static void insertion(struct srt *s, size_t lo, size_t mid, size_t hi)
{
	for (size_t i = mid; i < hi; i++) {
		char *x = at(s, s->a, i);
		size_t p = gallop(s, s->a, x, lo, i, 1, 1);
		if (p == i)
			continue;
		memcpy(s->one, x, s->sz);
		memmove(at(s, s->a, p + 1), at(s, s->a, p), (i - p) * s->sz);
		memcpy(at(s, s->a, p), s->one, s->sz);
	}
}

static int tmp_for(struct srt *s, size_t n)
{
	if (n <= s->cap_tmp)
		return 0;
	free(s->tmp);
	s->tmp = malloc(n * s->sz);
	s->cap_tmp = s->tmp ? n : 0;
	return s->tmp ? 0 : -1;
}

/* Merges a[k, mid) (copied to tmp) and a[mid, m) into a[k, m), front to
 * back; ties take the left side. */
static void merge_lo(struct srt *s, size_t k, size_t mid, size_t m)
{
	size_t sz = s->sz, na = mid - k, i = 0, j = mid, d = k;
	memcpy(s->tmp, at(s, s->a, k), na * sz);
	int wa = 0, wb = 0;
	while (i < na && j < m) {
		if (lt(s, at(s, s->a, j), at(s, s->tmp, i))) {
			memcpy(at(s, s->a, d++), at(s, s->a, j++), sz);
			wa = 0;
			if (++wb < GALLOP || j == m)
				continue;
			/* the right side's elements below tmp[i], at once */
			size_t e = gallop(s, s->a, at(s, s->tmp, i), j, m, 0, 0);
			memmove(at(s, s->a, d), at(s, s->a, j), (e - j) * sz);
			d += e - j;
			j = e;
			wb = 0;
		} else {
			memcpy(at(s, s->a, d++), at(s, s->tmp, i++), sz);
			wb = 0;
			if (++wa < GALLOP || i == na)
				continue;
			/* tmp's elements up to a[j] (equals first), at once */
			size_t e = gallop(s, s->tmp, at(s, s->a, j), i, na, 1, 0);
			memcpy(at(s, s->a, d), at(s, s->tmp, i), (e - i) * sz);
			d += e - i;
			i = e;
			wa = 0;
		}
	}
	/* what is left of the right side is in place (d == j) */
	memcpy(at(s, s->a, d), at(s, s->tmp, i), (na - i) * sz);
}

/* Merges a[k, mid) and a[mid, m) (copied to tmp) into a[k, m), back to
 * front; of equals, the right side's go last. */
static void merge_hi(struct srt *s, size_t k, size_t mid, size_t m)
{
	size_t sz = s->sz, nb = m - mid, i = mid, j = nb, d = m;
	memcpy(s->tmp, at(s, s->a, mid), nb * sz);
	int wa = 0, wb = 0;
	while (i > k && j > 0) {
		if (lt(s, at(s, s->tmp, j - 1), at(s, s->a, i - 1))) {
			memcpy(at(s, s->a, --d), at(s, s->a, --i), sz);
			wb = 0;
			if (++wa < GALLOP || i == k)
				continue;
			/* the left side's elements above tmp[j - 1], at once */
			size_t e = gallop(s, s->a, at(s, s->tmp, j - 1), k, i, 1, 1);
			d -= i - e;
			memmove(at(s, s->a, d), at(s, s->a, e), (i - e) * sz);
			i = e;
			wa = 0;
		} else {
			memcpy(at(s, s->a, --d), at(s, s->tmp, --j), sz);
			wa = 0;
			if (++wb < GALLOP || j == 0)
				continue;
			/* tmp's elements not below a[i - 1], at once */
			size_t e = gallop(s, s->tmp, at(s, s->a, i - 1), 0, j, 0, 1);
			d -= j - e;
			memcpy(at(s, s->a, d), at(s, s->tmp, e), (j - e) * sz);
			j = e;
			wb = 0;
		}
	}
	/* what is left of the left side is in place (d == i) */
	memcpy(at(s, s->a, k), s->tmp, j * sz);
}

static void swap(struct srt *s, size_t i, size_t j)
{
	memcpy(s->one, at(s, s->a, i), s->sz);
	memcpy(at(s, s->a, i), at(s, s->a, j), s->sz);
	memcpy(at(s, s->a, j), s->one, s->sz);
}

/* Swaps the blocks a[lo, mid) and a[mid, hi): through the buffer when the
 * smaller one fits in it, else by three reversals. */
static void rotate(struct srt *s, size_t lo, size_t mid, size_t hi)
{
	size_t sz = s->sz, na = mid - lo, nb = hi - mid;
	if (!na || !nb)
		return;
	if ((na < nb ? na : nb) <= s->max_tmp && tmp_for(s, na < nb ? na : nb) == 0) {
		if (na <= nb) {
			memcpy(s->tmp, at(s, s->a, lo), na * sz);
			memmove(at(s, s->a, lo), at(s, s->a, mid), nb * sz);
			memcpy(at(s, s->a, lo + nb), s->tmp, na * sz);
		} else {
			memcpy(s->tmp, at(s, s->a, mid), nb * sz);
			memmove(at(s, s->a, lo + nb), at(s, s->a, lo), na * sz);
			memcpy(at(s, s->a, lo), s->tmp, nb * sz);
		}
		return;
	}
	for (size_t i = lo, j = mid - 1; i < j; i++, j--)
		swap(s, i, j);
	for (size_t i = mid, j = hi - 1; i < j; i++, j--)
		swap(s, i, j);
	for (size_t i = lo, j = hi - 1; i < j; i++, j--)
		swap(s, i, j);
}

/* Merges the sorted runs a[lo, mid) and a[mid, hi); -1 when the buffer
 * cannot be had. A merge whose smaller side is larger than the buffer may
 * be is split in two (the larger side at its middle, the other where that
 * element goes, the blocks between swapped), each merged alone: the
 * scheme of libstdc++'s __merge_adaptive, stable the same way. */
static int merge(struct srt *s, size_t lo, size_t mid, size_t hi)
{
	if (lo == mid || mid == hi || !lt(s, at(s, s->a, mid), at(s, s->a, mid - 1)))
		return 0; /* in order already */
	/* a[lo, k) are not above a[mid], a[m, hi) not below a[mid - 1]: in place */
	size_t k = gallop(s, s->a, at(s, s->a, mid), lo, mid, 1, 1);
	size_t m = gallop(s, s->a, at(s, s->a, mid - 1), mid, hi, 0, 0);
	size_t na = mid - k, nb = m - mid, ac, bc;
	if ((na < nb ? na : nb) <= s->max_tmp) {
		if (tmp_for(s, na < nb ? na : nb) < 0)
			return -1;
		if (na <= nb)
			merge_lo(s, k, mid, m);
		else
			merge_hi(s, k, mid, m);
		return 0;
	}
	if (na >= nb) { /* the right side's elements below a[ac] go before it */
		ac = k + na / 2;
		bc = gallop(s, s->a, at(s, s->a, ac), mid, m, 0, 0);
	} else { /* the left side's elements up to a[bc] go before it */
		bc = mid + nb / 2;
		ac = gallop(s, s->a, at(s, s->a, bc), k, mid, 1, 0);
	}
	rotate(s, ac, mid, bc);
	size_t nm = ac + (bc - mid);
	return merge(s, k, ac, nm) < 0 || merge(s, nm, bc, m) < 0 ? -1 : 0;
}

int sort_stable(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg)
{
	/* glibc's qsort: a copy of the array, or two pointers per element
	 * and one element for elements over 32 bytes */
	size_t most = size > 32 ? 2 * n * sizeof(void *) + size : n * size;
	return sort_stable_buf(base, n, size, cmp, arg, most);
}

int sort_stable_buf(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg, size_t max_buf)
{
	if (n < 2 || !size)
		return 0;
	struct srt s = {base, size, cmp, arg, NULL, 0, max_buf / size, malloc(size)};
	if (!s.max_tmp)
		s.max_tmp = 1;
	size_t *b = NULL, nb = 0, cap = 0; /* run boundaries: run r is [b[r], b[r + 1]) */
	int rc = 0;
	if (!s.one)
		goto fallback;
	for (size_t i = 0; i < n;) {
		if (nb + 2 > cap) {
			size_t c = cap ? 2 * cap : 64;
			size_t *nbv = realloc(b, c * sizeof(*b));
			if (!nbv)
				goto fallback;
			b = nbv;
			cap = c;
		}
		if (!nb)
			b[nb++] = 0;
		size_t e = i + 1;
		while (e < n && !lt(&s, at(&s, s.a, e), at(&s, s.a, e - 1)))
			e++;
		if (e - i < MINRUN && e < n) {
			size_t f = n - i > MINRUN ? i + MINRUN : n;
			insertion(&s, i, e, f);
			e = f;
		}
		b[nb++] = e;
		i = e;
	}
	/* runs: nb - 1; merged pairwise, level by level */
	for (size_t runs = nb - 1; runs > 1;) {
		size_t w = 0, r = 0;
		for (; r + 2 <= runs; r += 2) {
			if (merge(&s, b[r], b[r + 1], b[r + 2]) < 0)
				goto fallback;
			b[w++] = b[r];
		}
		if (r < runs)
			b[w++] = b[r];
		b[w] = n;
		runs = w;
	}
	goto out;
fallback:
	qsort_r(base, n, size, cmp, arg);
	rc = -1;
out:
	free(b);
	free(s.tmp);
	free(s.one);
	return rc;
}

/* one half of sort_stable_two's array, on its own thread */
struct half {
	void *base;
	size_t n, size;
	sort_cmp_fn cmp;
	void *arg;
	int rc;
};

static void *half_thread(void *arg)
{
	struct half *h = arg;
	h->rc = sort_stable(h->base, h->n, h->size, h->cmp, h->arg);
	return NULL;
}

int sort_stable_two(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg)
{
	if (n < 4 * MINRUN || !size)
		return sort_stable(base, n, size, cmp, arg);
	size_t m = n / 2;
	struct half h = {(char *)base + m * size, n - m, size, cmp, arg, 0};
	pthread_t th;
	int two = pthread_create(&th, NULL, half_thread, &h) == 0;
	int rc = sort_stable(base, m, size, cmp, arg);
	if (two)
		pthread_join(th, NULL);
	else
		half_thread(&h);
	/* the halves' stable orders merged stably (ties from the first half
	 * first): the one stable order, as sort_stable's; its buffer as
	 * sort_stable's (the halves' at once are one array's) */
	size_t most = size > 32 ? 2 * n * sizeof(void *) + size : n * size;
	struct srt s = {base, size, cmp, arg, NULL, 0, most / size, malloc(size)};
	if (rc < 0 || h.rc < 0 || !s.one || merge(&s, 0, m, n) < 0) {
		qsort_r(base, n, size, cmp, arg);
		rc = -1;
	}
	free(s.tmp);
	free(s.one);
	return rc;
}

int sort_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int64_t sort_median_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), sort_cmp_i64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}
