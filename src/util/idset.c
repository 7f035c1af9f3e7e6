/*
 * idset.c - a small set of 32-bit ids (idset.h).
 */
#include "util/idset.h"
#include "util/vec.h"

int idset_has(const uint32_t *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return 1;
	return 0;
}

int idset_add(uint32_t **v, size_t *n, size_t *cap, uint32_t id)
{
	if (idset_has(*v, *n, id))
		return 0;
	uint32_t *slot = VEC_PUSH(*v, *n, *cap);
	if (!slot)
		return -1;
	*slot = id;
	return 0;
}
