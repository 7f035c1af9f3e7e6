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

/* A demangled name s cut to one readable line of at most w columns in buf
 * (size n): no return type, no parameter list, no at::native:: or
 * (anonymous namespace):: qualifiers; the template arguments, which tell
 * kernels apart, are kept first. */
const char *gs_one_line_name(const char *s, char *buf, size_t n, size_t w);

/* The function's own name from a demangled name s, for narrow columns, in
 * buf (size n): "void at::native::vectorized_elementwise_kernel<4, ...>(int,
 * ...)" -> "vectorized_elementwise_kernel<>". Plain names pass through. */
const char *gs_base_name(const char *s, char *buf, size_t n);

#endif
