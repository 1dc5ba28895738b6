"""Run fw_cases under any interpreter (used for the MicroPython unix port).

Prints one line per case, "PASS name" or "FAIL name: error", and a summary "cases: N, failed: M".
"""
import sys

import fw_cases


def main():
    names = sorted(n for n in dir(fw_cases) if n.startswith("case_"))
    failed = 0
    for n in names:
        try:
            getattr(fw_cases, n)()
        except Exception as e:
            failed += 1
            print("FAIL %s: %s %r" % (n, type(e).__name__, e))
            try:
                sys.print_exception(e)
            except AttributeError:
                import traceback
                traceback.print_exc()
        else:
            print("PASS %s" % n)
    print("cases: %d, failed: %d" % (len(names), failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
