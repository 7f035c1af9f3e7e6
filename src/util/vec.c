/*
 * vec.c - the growable array (vec.h).
 */
#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int vec_reserve(void **arr, size_t *cap, size_t want, size_t elem)
{
	if (want <= *cap)
		return 0;
	size_t c = *cap ? *cap : 16;
	while (c < want) {
		if (c > SIZE_MAX / 2)
			return -1;
		c *= 2;
	}
	if (c > SIZE_MAX / elem)
		return -1;
	void *p = realloc(*arr, c * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

void *vec_push(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap && vec_reserve(arr, cap, *n + 1, elem) < 0)
		return NULL;
	char *e = (char *)*arr + (*n)++ * elem;
	memset(e, 0, elem);
	return e;
}
