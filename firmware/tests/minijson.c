#include "minijson.h"
#include <stdlib.h>
#include <string.h>

static struct mj *pool;
static size_t pool_used, pool_cap;

static struct mj *node(enum mj_kind k)
{
    struct mj *n;
    if (pool_used == pool_cap)
        return NULL; /* fixed pool: reallocating would move the nodes */
    n = &pool[pool_used++];
    memset(n, 0, sizeof *n);
    n->kind = k;
    return n;
}

static char *p;

static void ws(void)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
}

static char *string(void)
{
    char *out, *start;
    if (*p != '"')
        return NULL;
    start = out = ++p;
    while (*p && *p != '"') {
        if (*p == '\\') {
            p++;
            switch (*p) {
            case 'n': *out++ = '\n'; break;
            case 't': *out++ = '\t'; break;
            case 'u': p += 4; *out++ = '?'; break;
            default: *out++ = *p; break;
            }
            p++;
        } else {
            *out++ = *p++;
        }
    }
    if (*p != '"')
        return NULL;
    p++;
    *out = 0;
    return start;
}

static struct mj *value(void);

static struct mj *container(enum mj_kind k, char close)
{
    struct mj *n = node(k), *last = NULL;
    if (!n)
        return NULL;
    p++;
    ws();
    if (*p == close) {
        p++;
        return n;
    }
    for (;;) {
        const char *key = NULL;
        struct mj *v;
        ws();
        if (k == MJ_OBJ) {
            key = string();
            if (!key)
                return NULL;
            ws();
            if (*p++ != ':')
                return NULL;
        }
        v = value();
        if (!v)
            return NULL;
        v->key = key;
        if (last)
            last->next = v;
        else
            n->child = v;
        last = v;
        ws();
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == close) {
            p++;
            return n;
        }
        return NULL;
    }
}

static struct mj *value(void)
{
    struct mj *n;
    ws();
    if (*p == '{')
        return container(MJ_OBJ, '}');
    if (*p == '[')
        return container(MJ_ARR, ']');
    if (*p == '"') {
        n = node(MJ_STR);
        if (n)
            n->str = string();
        return n && n->str ? n : NULL;
    }
    if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
        n = node(MJ_BOOL);
        if (n)
            n->num = *p == 't';
        p += *p == 't' ? 4 : 5;
        return n;
    }
    if (!strncmp(p, "null", 4)) {
        p += 4;
        return node(MJ_NULL);
    }
    n = node(MJ_NUM);
    if (n) {
        char *end;
        n->num = strtod(p, &end);
        if (end == p)
            return NULL;
        p = end;
    }
    return n;
}

struct mj *mj_parse(char *text)
{
    pool_cap = strlen(text) / 2 + 16;
    pool = calloc(pool_cap, sizeof *pool);
    pool_used = 0;
    if (!pool)
        return NULL;
    p = text;
    return value();
}

struct mj *mj_get(const struct mj *obj, const char *key)
{
    struct mj *c;
    for (c = obj ? obj->child : NULL; c; c = c->next)
        if (c->key && !strcmp(c->key, key))
            return c;
    return NULL;
}

const char *mj_str(const struct mj *obj, const char *key)
{
    struct mj *v = mj_get(obj, key);
    return v && v->kind == MJ_STR ? v->str : "";
}

double mj_num(const struct mj *obj, const char *key, double dflt)
{
    struct mj *v = mj_get(obj, key);
    return v && (v->kind == MJ_NUM || v->kind == MJ_BOOL) ? v->num : dflt;
}

void mj_free_all(void)
{
    free(pool);
    pool = NULL;
}
