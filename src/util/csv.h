/*
 * csv.h - CSV cells (RFC 4180: a quoted cell doubles its quotes), shared by
 * export's CSV files and monitor's CSV view.
 */
#ifndef GPUSCOPE_CSV_H
#define GPUSCOPE_CSV_H

#include <stdio.h>

/* s as a quoted cell, '"' doubled. */
void csv_quoted(FILE *f, const char *s);
/* s as is, or quoted when it holds a comma, quote, CR or LF. */
void csv_field(FILE *f, const char *s);

#endif
