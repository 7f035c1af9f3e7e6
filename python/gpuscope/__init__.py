"""gpuscope, as installed by pip: the C binary and its libraries live in this package
(bin/gpuscope, lib/gpuscope/, share/locale/); `gpuscope` and `python -m gpuscope` run it."""
import os

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "gpuscope")
