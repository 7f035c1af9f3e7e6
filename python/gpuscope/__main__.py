"""`gpuscope ARGS` and `python -m gpuscope ARGS`: replaces this process with the binary, so
that its exit code, signals and terminal are the program's own."""
import os
import sys

from gpuscope import BINARY


def main():
    if not os.access(BINARY, os.X_OK):
        sys.stderr.write("gpuscope: %s is missing or not executable; reinstall the wheel\n" % BINARY)
        return 1
    os.execv(BINARY, ["gpuscope"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
