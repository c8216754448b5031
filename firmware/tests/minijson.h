/* A very small JSON reader for the test vectors (host tests only): parses a
 * whole document into a node pool; objects and arrays keep their children as
 * a linked list. Enough for test-vectors.json, not a general library. */
#ifndef MINIJSON_H
#define MINIJSON_H
#include <stddef.h>

enum mj_kind { MJ_NULL, MJ_BOOL, MJ_NUM, MJ_STR, MJ_ARR, MJ_OBJ };

struct mj {
    enum mj_kind kind;
    const char *key;      /* member name inside an object */
    char *str;            /* MJ_STR */
    double num;           /* MJ_NUM, MJ_BOOL */
    struct mj *child, *next;
};

/* Parse text (modified in place); returns the root or NULL. */
struct mj *mj_parse(char *text);
struct mj *mj_get(const struct mj *obj, const char *key);
const char *mj_str(const struct mj *obj, const char *key);  /* "" if missing */
double mj_num(const struct mj *obj, const char *key, double dflt);
void mj_free_all(void);
#endif
