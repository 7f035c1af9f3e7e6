/*
 * wrap.h - printing prose within a column limit, for UTF-8 text in any
 * language: ASCII counts one column, CJK (East Asian wide) characters two;
 * lines break at spaces and between two wide characters, never inside a
 * word or a UTF-8 sequence. A word longer than the line is printed whole.
 */
#ifndef GPUSCOPE_WRAP_H
#define GPUSCOPE_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* Display columns of s (its first len bytes). */
size_t wrap_width(const char *s, size_t len);

/*
 * Prints first (a label, printed as is) then text, continuing on lines that
 * start with indent, so that no line passes cols columns (when the words
 * allow it); ends with a newline.
 */
void wrap_print(FILE *f, const char *first, const char *indent, const char *text, size_t cols);

#endif
