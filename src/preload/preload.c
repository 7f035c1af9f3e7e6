/*
 * preload.c - libgpuscope-preload.so, the shim `gpuscope record` puts in
 * LD_PRELOAD so that a recorded process that ends with _exit or _Exit
 * (Python's os._exit: multiprocessing's fork-started workers always end so)
 * still gets gpuscope's last flush. Those calls run no atexit handler, so
 * without the shim everything since the last periodic flush is lost: all of
 * it, for a worker that lives less than a flush period (seen on the H200:
 * two fork-started PyTorch workers, 1001 and 2001 kernels, 0 recorded).
 *
 * It is loaded into every process record starts, most of which never use
 * CUDA, so it does nothing on its own: no constructor, no allocation, no
 * dependency beyond the C library. The injection library, once CUDA has
 * loaded it, registers its hook here (gpuscope_preload_register); _exit
 * and _Exit call that hook only in the process that registered it (a fork
 * or vfork child has another pid and exits at once), then end the process
 * with the exit_group system call, which is what glibc's _exit does.
 *
 * Invariants:
 *  1. Without a registered hook, _exit(n) and _Exit(n) behave as glibc's.
 *  2. The hook runs at most once per call and only when getpid() equals the
 *     pid that registered it (read with a system call: a vfork child shares
 *     this memory but not the pid).
 *  3. The hook bounds its own wait (inject/flush.c, quick_exit_hook: 1 s at most);
 *     nothing here blocks.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static _Atomic(void (*)(int)) hook;
static atomic_long hook_pid;

/* called by the injection library (inject/flush.c, register_quick_exit) */
EXPORT void gpuscope_preload_register(void (*fn)(int))
{
	atomic_store(&hook_pid, (long)syscall(SYS_getpid));
	atomic_store(&hook, fn);
}

static _Noreturn void end_process(int status)
{
	void (*fn)(int) = atomic_load(&hook);
	if (fn && atomic_load(&hook_pid) == (long)syscall(SYS_getpid))
		fn(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _exit(int status)
{
	end_process(status);
}

EXPORT void _Exit(int status)
{
	end_process(status);
}
