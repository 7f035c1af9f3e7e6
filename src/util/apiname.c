/*
 * apiname.c - CUDA API names without CUPTI's version suffixes (apiname.h).
 */
#include <stdio.h>
#include <string.h>

#include "util/apiname.h"

const char *gs_api_name(const char *name, char *buf, size_t n)
{
	if (!name)
		return name;
	size_t len = strlen(name), i = len;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	/* "_v" and at least one digit, after a name of its own */
	if (i == len || i < 3 || name[i - 1] != 'v' || name[i - 2] != '_' || !n)
		return name;
	snprintf(buf, n, "%.*s", (int)(i - 2), name);
	return buf;
}
