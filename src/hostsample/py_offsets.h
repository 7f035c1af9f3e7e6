/*
 * py_offsets.h - where CPython 3.9-3.13 (x86-64, default build) keeps what
 * the out-of-process frame reader (pyframes.c) follows. The rows are
 * printed by scripts/py-offsets.sh, which compiles scripts/py-offsets.c
 * (offsetof on the structs) against each version's installed headers; none
 * is written by hand. Checked equal across the builds listed with each row.
 * 3.13 and later also publish their offsets in the process itself
 * (_Py_DebugOffsets at the start of _PyRuntime); pyframes.c reads those
 * when they are there and keeps this row as the check.
 */
#ifndef GPUSCOPE_HOSTSAMPLE_PY_OFFSETS_H
#define GPUSCOPE_HOSTSAMPLE_PY_OFFSETS_H

#include <stdint.h>

#define PY_OFF_NONE 0xffff

struct py_offsets {
	uint16_t version;	      /* 0x0309: major, minor */
	uint16_t runtime_interp_head; /* _PyRuntimeState.interpreters.head */
	uint16_t runtime_main_thread; /* _PyRuntimeState.main_thread (a pthread_t) */
	uint16_t interp_next;	      /* PyInterpreterState.next */
	uint16_t interp_threads;      /* .tstate_head (3.9, 3.10), .threads.head */
	uint16_t ts_next;	      /* PyThreadState.next */
	uint16_t ts_thread_id;	      /* .thread_id (pthread_t) */
	uint16_t ts_native_tid;	      /* .native_thread_id (3.11+) */
	uint16_t ts_frame;	      /* .frame (3.9, 3.10), .cframe (3.11, 3.12), .current_frame */
	uint16_t cframe_frame;	      /* _PyCFrame.current_frame (3.11, 3.12) */
	uint16_t frame_kind;	      /* 0: PyFrameObject chain, 1: _PyInterpreterFrame chain */
	uint16_t fr_back;	      /* .f_back / .previous */
	uint16_t fr_code;	      /* .f_code / .f_executable (3.13) */
	uint16_t fr_owner;	      /* _PyInterpreterFrame.owner (a char) */
	uint16_t co_name, co_filename, co_qualname, co_firstlineno; /* PyCodeObject */
	uint16_t ascii_size;	 /* sizeof(PyASCIIObject): where compact ASCII data starts */
	uint16_t compact_size;	 /* sizeof(PyCompactUnicodeObject) */
	uint16_t unicode_length; /* PyASCIIObject.length */
};

/* FRAME_OWNED_BY_CSTACK (3.12+): a C entry shim, not a Python frame */
#define PY_FRAME_OWNED_BY_CSTACK 3

static const struct py_offsets py_offsets_table[] = {
    /* 3.9.18 (pyenv) */
    {0x0309, 32, 72,	      0,   8,	8,	     176, PY_OFF_NONE, 24, PY_OFF_NONE, 0,
     24,     32, PY_OFF_NONE, 112, 104, PY_OFF_NONE, 40,  48,	       72, 16},
    /* 3.10.13 (pyenv) */
    {0x030a, 32, 72,	      0,   8,	8,	     176, PY_OFF_NONE, 24, PY_OFF_NONE, 0,
     24,     32, PY_OFF_NONE, 112, 104, PY_OFF_NONE, 40,  48,	       72, 16},
    /* 3.11.7 (pyenv), 3.11.2 (Debian 12) */
    {0x030b, 40, 80, 0, 16, 8, 152, 160, 56, 8, 1, 48, 32, 69, 120, 112, 128, 72, 48, 72, 16},
    /* 3.12.1 (pyenv) */
    {0x030c, 40, 64, 0, 72, 8, 136, 144, 56, 0, 1, 8, 0, 70, 120, 112, 128, 68, 40, 56, 16},
    /* 3.13.0 (pyenv) */
    {0x030d, 632, 656, 7264, 7344, 8,	152, 160, 72, PY_OFF_NONE, 1,
     8,	     0,	  70,  120,  112,  128, 68,  40,  56, 16},
};

#endif
