/*
 * csv.c - CSV cells (csv.h).
 */
#include "util/csv.h"

#include <string.h>

void csv_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n"))
		csv_quoted(f, s);
	else
		fputs(s, f);
}
