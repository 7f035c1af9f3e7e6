/*
 * pycmd.h - does a command start a Python program? record decides it before
 * the exec (perf's events sample a Python program at a lower rate:
 * docs/host-sampling.md "The rate of perf's events"), from the command
 * line and the files it names, without running anything.
 *
 * A command runs Python when:
 *  1. the program is a Python interpreter (an executable named python*) or
 *     a script whose "#!" line names python (torchrun, accelerate, a venv's
 *     tools);
 *  2. a wrapper runs one: an argument after the program is such a program
 *     or a file named *.py (nohup python x.py, taskset -c 2 python3 x.py,
 *     env python3, mpirun -n 2 python, uv run train.py, conda run -n e
 *     python, srun torchrun ...);
 *  3. a shell runs one: the program is a shell (sh, bash, dash, zsh, ksh)
 *     or a script whose "#!" line names one, or an argument is such a
 *     script, and its text (-c STRING, or the script's first 64 KiB) has a
 *     word named python* or *.py, or a command word that is a program of
 *     rule 1 (bash train.sh, sh -c "torchrun ...").
 *
 * Scripts a shell script runs are not opened (one level), and what a
 * Python program is started by later (make, a program that forks python)
 * is not seen: those programs keep perf at the full rate.
 *
 * Invariants: reads at most 64 KiB of each of at most 65 files, looks up
 * at most 256 of a script's command words on the path, opens nothing that
 * would block (O_NONBLOCK; only regular files are read), and never fails:
 * what cannot be read does not run Python.
 */
#ifndef GPUSCOPE_PYCMD_H
#define GPUSCOPE_PYCMD_H

/* 1 when argv (NULL-terminated, as execvp takes it, programs found on
 * path, a colon-separated list like $PATH; NULL: /usr/bin:/bin) starts a
 * Python program by the rules above, else 0 */
int cmd_runs_python(char *const *argv, const char *path);

#endif
