/* A tiny unit-test harness: CHECK records a failure and carries on, so one
 * run lists every broken expectation; main() exits non-zero if any failed. */
#ifndef UNIT_H
#define UNIT_H
#include <stdio.h>

extern int unit_checks, unit_failures;
extern const char *unit_current;

#define CHECK(cond) do { unit_checks++; if (!(cond)) { unit_failures++; \
    fprintf(stderr, "FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, unit_current, #cond); } } while (0)
#define CHECK_EQ(a, b) do { long long _a = (long long)(a), _b = (long long)(b); unit_checks++; \
    if (_a != _b) { unit_failures++; fprintf(stderr, "FAIL %s:%d [%s]: %s == %s (%lld != %lld)\n", \
    __FILE__, __LINE__, unit_current, #a, #b, _a, _b); } } while (0)
#endif
