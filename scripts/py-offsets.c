/*
 * py-offsets.c - prints one row of src/hostsample/py_offsets.h for the
 * CPython whose headers it is compiled against (scripts/py-offsets.sh):
 * the offsets the out-of-process frame reader needs, taken with offsetof
 * from the installed headers (Include/ and Include/internal/), so that no
 * layout is written by hand.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#endif
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"
#if PY_VERSION_HEX < 0x030B0000
#include "frameobject.h"
#endif

#define NONE 0xffff
#define O(t, f) ((unsigned)offsetof(t, f))

int main(void)
{
	unsigned ts_frame, cframe_frame = NONE, fr_back, fr_code, fr_owner = NONE, frame_kind;
	unsigned native_tid = NONE, co_qualname = NONE, interp_threads;
#if PY_VERSION_HEX >= 0x030D0000
	ts_frame = O(PyThreadState, current_frame);
#elif PY_VERSION_HEX >= 0x030B0000
	ts_frame = O(PyThreadState, cframe);
	cframe_frame = O(_PyCFrame, current_frame);
#else
	ts_frame = O(PyThreadState, frame);
#endif
#if PY_VERSION_HEX >= 0x030B0000
	frame_kind = 1;
	fr_back = O(_PyInterpreterFrame, previous);
#if PY_VERSION_HEX >= 0x030D0000
	fr_code = O(_PyInterpreterFrame, f_executable);
#else
	fr_code = O(_PyInterpreterFrame, f_code);
#endif
	fr_owner = O(_PyInterpreterFrame, owner);
	native_tid = O(PyThreadState, native_thread_id);
	co_qualname = O(PyCodeObject, co_qualname);
#else
	frame_kind = 0;
	fr_back = O(PyFrameObject, f_back);
	fr_code = O(PyFrameObject, f_code);
#endif
#if PY_VERSION_HEX >= 0x030B0000
	interp_threads = O(PyInterpreterState, threads.head);
#else
	interp_threads = O(PyInterpreterState, tstate_head);
#endif
	printf("\t{0x%02x%02x, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, "
	       "%u, %u, %u},\n",
	       PY_MAJOR_VERSION, PY_MINOR_VERSION, O(_PyRuntimeState, interpreters.head),
	       O(_PyRuntimeState, main_thread), O(PyInterpreterState, next), interp_threads,
	       O(PyThreadState, next), O(PyThreadState, thread_id), native_tid, ts_frame,
	       cframe_frame, frame_kind, fr_back, fr_code, fr_owner, O(PyCodeObject, co_name),
	       O(PyCodeObject, co_filename), co_qualname, O(PyCodeObject, co_firstlineno),
	       (unsigned)sizeof(PyASCIIObject), (unsigned)sizeof(PyCompactUnicodeObject),
	       O(PyASCIIObject, length));
	return 0;
}
