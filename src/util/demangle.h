/*
 * demangle.h - readable kernel names. CUPTI gives C++ kernel names mangled
 * (_Z8tiny_addPf); the text report and findings show them demangled
 * (tiny_add(float*)). The demangler is libstdc++'s __cxa_demangle, looked up
 * at run time, so gpuscope has no C++ build dependency; without libstdc++ the
 * name stays as recorded. The stored names (databases, JSON "name") are never
 * changed.
 */
#ifndef GPUSCOPE_DEMANGLE_H
#define GPUSCOPE_DEMANGLE_H

#include <stddef.h>

/* The demangled form of name in buf (size n, truncated if needed), or name
 * itself when it is not a mangled C++ name or cannot be demangled. */
const char *gs_demangle(const char *name, char *buf, size_t n);

#endif
