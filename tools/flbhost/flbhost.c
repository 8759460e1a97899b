/*
 * flbhost: loads a Fluent Bit Go output plugin (.so) the way Fluent Bit's
 * Go proxy does (src/flb_plugin_proxy.c, src/proxy/go/go.c) and drives it
 * from a small line-based script, so tests can exercise the real cgo layer
 * without a Fluent Bit binary.
 *
 *   flbhost PLUGIN.so [SCRIPT]      (no SCRIPT or "-": read stdin)
 *
 * Build (headers from the fluent-bit-go module, not copied here):
 *   gcc -O1 -Wall -Werror -pthread -o flbhost tools/flbhost/flbhost.c -ldl \
 *       -I"$(go list -m -f '{{.Dir}}' github.com/fluent/fluent-bit-go)/output"
 *
 * Script: one command a line, '#' starts a comment (at line start or after
 * a blank). Commands that call the plugin print "<cmd> [name] rc=<n>" and
 * take an optional trailing "expect <n>": a different rc fails the run.
 *   instance NAME                       declare an [OUTPUT] instance
 *   set NAME KEY VALUE...               set a property (value = rest of line)
 *   init NAME [expect N]                FLBPluginInit
 *   flush NAME FILE TAG [expect N]      FLBPluginFlushCtx with FILE's bytes
 *   flushbg NAME FILE TAG [expect N]    same, on a new thread
 *   wait                                join background flushes, print rcs
 *   exit NAME [expect N]                FLBPluginExitCtx (FLBPluginExit if
 *                                       the plugin has no ExitCtx)
 *   legacyflush FILE TAG [expect N]     FLBPluginFlush (pre-1.1 Fluent Bit)
 *   legacyexit [expect N]               FLBPluginExit (pre-1.4 Fluent Bit)
 *   unregister                          FLBPluginUnregister
 * At end of script (or after a failure) the host finishes like Fluent Bit:
 * waits, exits the instances not yet exited, unregisters, dlcloses.
 * stdout: "register rc=0 name=journalship", then one line per call as
 * above ("flushbg" lines come at "wait", in launch order), "unregister",
 * and last "closed failed=<0|1>".
 * Exit status: 0 ok, 1 failed expectation or script error, 2 load error.
 *
 * Like Fluent Bit: ONE struct flbgo_output_plugin is shared by every
 * instance and overwritten before each FLBPluginInit; properties are
 * looked up case-insensitively and unset ones are NULL. Stricter than
 * Fluent Bit: a property lookup outside FLBPluginInit fails the run, and
 * each chunk buffer and tag is poisoned then freed right after the call,
 * so a plugin that keeps them reads junk (and Valgrind reports it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flb_plugin.h"
#include "flb_output.h" /* defines output_get_property(), as Fluent Bit's own headers do */

#define EXPECTED_NAME "journalship"
#define MAX_INSTANCES 16
#define MAX_BG 64
#define MAX_TOKENS 8
#define NO_EXPECT (-1000)

struct prop {
    char *key;
    char *value;
    struct prop *next;
};

struct instance {
    char *name;
    struct prop *props;
    struct flb_plugin_proxy_context ctx; /* the per-instance o_ins->context */
    int inited;
    int exited;
};

struct bgflush {
    pthread_t thread;
    struct instance *ins;
    unsigned char *data;
    size_t len;
    char *tag;
    int expect;
    int rc;
};

struct host {
    void *dso;
    int (*cb_register)(struct flb_plugin_proxy_def *);
    int (*cb_init)(struct flbgo_output_plugin *);
    int (*cb_flush)(const void *, size_t, const char *);
    int (*cb_flush_ctx)(void *, const void *, size_t, char *);
    int (*cb_exit)(void);
    int (*cb_exit_ctx)(void *);
    void (*cb_unregister)(struct flb_plugin_proxy_def *);
    struct flb_plugin_proxy_def *def;
    struct flb_api api;
    struct flbgo_output_plugin plugin; /* ONE per .so, as in go.c */
    struct instance ins[MAX_INSTANCES];
    int n_ins;
    struct bgflush bg[MAX_BG];
    int n_bg;
    int unregistered;
    int failed;
};

static struct host H;

/* Like flb_output_get_property: case-insensitive key, NULL when unset. */
static char *get_property(char *key, void *o_ins)
{
    struct instance *ins = o_ins;
    struct prop *p;

    if (ins == NULL) {
        fprintf(stderr, "flbhost: output_get_property(%s) called outside FLBPluginInit\n", key);
        H.failed = 1;
        return NULL;
    }
    for (p = ins->props; p != NULL; p = p->next) {
        if (strcasecmp(p->key, key) == 0) {
            return p->value;
        }
    }
    return NULL;
}

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "flbhost: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    H.failed = 1;
    return -1;
}

static int check(const char *cmd, const char *name, int rc, int expect)
{
    printf("%s%s%s rc=%d\n", cmd, name ? " " : "", name ? name : "", rc);
    fflush(stdout);
    if (expect != NO_EXPECT && rc != expect) {
        fprintf(stderr, "flbhost: %s %s: rc=%d, expected %d\n", cmd, name ? name : "", rc, expect);
        H.failed = 1;
        return -1;
    }
    return 0;
}

static void *sym(const char *name)
{
    void *s;

    dlerror();
    s = dlsym(H.dso, name);
    return dlerror() ? NULL : s;
}

static int load(const char *path)
{
    int rc;

    H.dso = dlopen(path, RTLD_LAZY);
    if (H.dso == NULL) {
        fprintf(stderr, "flbhost: dlopen: %s\n", dlerror());
        return -1;
    }
    H.cb_register = (int (*)(struct flb_plugin_proxy_def *)) sym("FLBPluginRegister");
    H.cb_init = (int (*)(struct flbgo_output_plugin *)) sym("FLBPluginInit");
    H.cb_flush = (int (*)(const void *, size_t, const char *)) sym("FLBPluginFlush");
    H.cb_flush_ctx = (int (*)(void *, const void *, size_t, char *)) sym("FLBPluginFlushCtx");
    H.cb_exit = (int (*)(void)) sym("FLBPluginExit");
    H.cb_exit_ctx = (int (*)(void *)) sym("FLBPluginExitCtx");
    H.cb_unregister = (void (*)(struct flb_plugin_proxy_def *)) sym("FLBPluginUnregister");
    if (H.cb_register == NULL || H.cb_init == NULL) {
        fprintf(stderr, "flbhost: FLBPluginRegister or FLBPluginInit missing\n");
        return -1;
    }
    H.def = calloc(1, sizeof(*H.def));
    if (H.def == NULL) {
        return -1;
    }
    rc = H.cb_register(H.def);
    printf("register rc=%d name=%s\n", rc, H.def->name ? H.def->name : "(null)");
    fflush(stdout);
    if (rc == -1 || H.def->type != FLB_PROXY_OUTPUT_PLUGIN || H.def->proxy != FLB_PROXY_GOLANG ||
        H.def->name == NULL || strcmp(H.def->name, EXPECTED_NAME) != 0 ||
        H.def->description == NULL || H.def->description[0] == '\0') {
        fprintf(stderr, "flbhost: bad registration: type=%d proxy=%d\n", H.def->type, H.def->proxy);
        return -1;
    }
    H.api.output_get_property = get_property;
    H.plugin._ = H.def->name;
    H.plugin.api = &H.api;
    return 0;
}

static struct instance *find(const char *name)
{
    int i;

    for (i = 0; i < H.n_ins; i++) {
        if (strcmp(H.ins[i].name, name) == 0) {
            return &H.ins[i];
        }
    }
    fail("no such instance", name);
    return NULL;
}

static int read_file(const char *path, unsigned char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        return fail(path, strerror(errno));
    }
    *data = malloc(n > 0 ? (size_t) n : 1);
    if (*data == NULL || fread(*data, 1, (size_t) n, f) != (size_t) n) {
        free(*data);
        fclose(f);
        return fail("read", path);
    }
    fclose(f);
    *len = (size_t) n;
    return 0;
}

/* Poison, then free: a plugin that kept the buffer past the call reads junk
 * (and valgrind reports the use after free). */
static void release(unsigned char *data, size_t len, char *tag)
{
    memset(data, 0xA5, len);
    memset(tag, 'X', strlen(tag));
    free(data);
    free(tag);
}

static int set_prop(struct instance *ins, const char *key, const char *value)
{
    struct prop *p;

    for (p = ins->props; p != NULL; p = p->next) {
        if (strcasecmp(p->key, key) == 0) {
            char *v = strdup(value);
            if (v == NULL) return fail("out of memory", NULL);
            free(p->value);
            p->value = v;
            return 0;
        }
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL || (p->key = strdup(key)) == NULL || (p->value = strdup(value)) == NULL) {
        if (p) free(p->key);
        free(p);
        return fail("out of memory", NULL);
    }
    p->next = ins->props;
    ins->props = p;
    return 0;
}

static int do_init(struct instance *ins, int expect)
{
    int rc;

    if (ins->inited || ins->exited) return fail("init twice", ins->name);
    /* go.c overwrites the shared plugin struct before each instance's init */
    H.plugin.o_ins = (struct flb_output_instance *) ins;
    H.plugin.context = &ins->ctx;
    rc = H.cb_init(&H.plugin);
    H.plugin.o_ins = NULL;
    H.plugin.context = NULL;
    ins->inited = rc > 0;
    if (rc > 0 && ins->ctx.remote_context == NULL) {
        fail("init returned OK without setting a context", ins->name);
    }
    return check("init", ins->name, rc, expect);
}

static int flush_now(struct instance *ins, const char *path, const char *tag, int expect)
{
    unsigned char *data;
    size_t len;
    char *t;
    int rc;

    if (!ins->inited || ins->exited || H.cb_flush_ctx == NULL) return fail("flush: not running", ins->name);
    if (read_file(path, &data, &len) != 0) return -1;
    if ((t = strdup(tag)) == NULL) {
        free(data);
        return fail("out of memory", NULL);
    }
    rc = H.cb_flush_ctx(ins->ctx.remote_context, data, len, t);
    release(data, len, t);
    return check("flush", ins->name, rc, expect);
}

static void *bg_main(void *arg)
{
    struct bgflush *b = arg;

    b->rc = H.cb_flush_ctx(b->ins->ctx.remote_context, b->data, b->len, b->tag);
    return NULL;
}

static int flush_bg(struct instance *ins, const char *path, const char *tag, int expect)
{
    struct bgflush *b;

    if (!ins->inited || ins->exited || H.cb_flush_ctx == NULL) return fail("flushbg: not running", ins->name);
    if (H.n_bg == MAX_BG) return fail("too many background flushes", NULL);
    b = &H.bg[H.n_bg];
    memset(b, 0, sizeof(*b));
    b->ins = ins;
    b->expect = expect;
    if (read_file(path, &b->data, &b->len) != 0) return -1;
    if ((b->tag = strdup(tag)) == NULL) {
        free(b->data);
        return fail("out of memory", NULL);
    }
    if (pthread_create(&b->thread, NULL, bg_main, b) != 0) {
        free(b->data);
        free(b->tag);
        return fail("pthread_create", strerror(errno));
    }
    H.n_bg++;
    return 0;
}

static int wait_bg(void)
{
    int i, ret = 0;

    for (i = 0; i < H.n_bg; i++) {
        struct bgflush *b = &H.bg[i];
        pthread_join(b->thread, NULL);
        release(b->data, b->len, b->tag);
        if (check("flushbg", b->ins->name, b->rc, b->expect) != 0) ret = -1;
    }
    H.n_bg = 0;
    return ret;
}

static int do_exit(struct instance *ins, int expect)
{
    int rc = 0;

    if (ins->exited) return fail("exit twice", ins->name);
    if (wait_bg() != 0) return -1;
    ins->exited = 1;
    if (H.cb_exit_ctx) {
        rc = H.cb_exit_ctx(ins->ctx.remote_context);
    } else if (H.cb_exit) {
        rc = H.cb_exit();
    }
    return check("exit", ins->name, rc, expect);
}

static int do_unregister(void)
{
    int i;

    if (H.unregistered) return fail("unregister twice", NULL);
    if (wait_bg() != 0) return -1;
    for (i = 0; i < H.n_ins; i++) {
        if (!H.ins[i].exited) return fail("unregister before exit", H.ins[i].name);
    }
    H.unregistered = 1;
    if (H.cb_unregister) H.cb_unregister(H.def);
    printf("unregister\n");
    fflush(stdout);
    return 0;
}

static int do_legacy_flush(const char *path, const char *tag, int expect)
{
    unsigned char *data;
    size_t len;
    char *t;
    int rc;

    if (H.cb_flush == NULL) return fail("plugin has no FLBPluginFlush", NULL);
    if (read_file(path, &data, &len) != 0) return -1;
    if ((t = strdup(tag)) == NULL) {
        free(data);
        return fail("out of memory", NULL);
    }
    rc = H.cb_flush(data, len, t);
    release(data, len, t);
    return check("legacyflush", NULL, rc, expect);
}

/* Returns the next blank-separated word of *p (NUL-terminated in place). */
static char *next_word(char **p)
{
    char *w = *p;

    while (*w == ' ' || *w == '\t') w++;
    if (*w == '\0' || *w == '#' || *w == '\n' || *w == '\r') return NULL;
    *p = w + strcspn(w, " \t\r\n");
    if (**p) *(*p)++ = '\0';
    return w;
}

/* Splits line in place into at most MAX_TOKENS words; a '#' at line start
 * or after a blank starts a comment. Returns the count, -1 past the limit. */
static int tokenize(char *line, char **tok)
{
    char *p = line, *w;
    int n = 0;

    while ((w = next_word(&p)) != NULL) {
        if (n == MAX_TOKENS) return -1;
        tok[n++] = w;
    }
    return n;
}

static int strip_expect(char **tok, int *n, int *expect)
{
    char *end;

    *expect = NO_EXPECT;
    if (*n >= 3 && strcmp(tok[*n - 2], "expect") == 0) {
        *expect = (int) strtol(tok[*n - 1], &end, 10);
        if (*end != '\0') return fail("bad expect value", tok[*n - 1]);
        *n -= 2;
    }
    return 0;
}

/* set NAME KEY VALUE...: the value is the rest of the line, less a
 * trailing comment and blanks. */
static int run_set(char *line)
{
    char *p = line, *name, *key, *value, *c;
    struct instance *ins;
    size_t len;

    next_word(&p); /* "set" */
    name = next_word(&p);
    key = next_word(&p);
    while (*p == ' ' || *p == '\t') p++;
    value = p;
    for (c = value; (c = strchr(c, '#')) != NULL; c++) {
        if (c == value || c[-1] == ' ' || c[-1] == '\t') {
            *c = '\0';
            break;
        }
    }
    len = strlen(value);
    while (len > 0 && strchr(" \t\r\n", value[len - 1])) value[--len] = '\0';
    if (name == NULL || key == NULL || len == 0) return fail("usage", "set NAME KEY VALUE...");
    if ((ins = find(name)) == NULL) return -1;
    return set_prop(ins, key, value);
}

static int run_line(char *line)
{
    char orig[4096];
    char *tok[MAX_TOKENS];
    struct instance *ins = NULL;
    int n, expect;

    if (strlen(line) >= sizeof(orig)) return fail("line too long", NULL);
    strcpy(orig, line);
    n = tokenize(line, tok);
    if (n == 0) return 0;
    if (n != 0 && strcmp(tok[0], "set") == 0) return run_set(orig);
    if (n < 0) return fail("too many words", orig);
    if (strip_expect(tok, &n, &expect) != 0) return -1;
    if (H.unregistered) return fail("command after unregister", tok[0]);
    if (strcmp(tok[0], "instance") == 0 && n == 2) {
        if (H.n_ins == MAX_INSTANCES) return fail("too many instances", NULL);
        for (n = 0; n < H.n_ins; n++) {
            if (strcmp(H.ins[n].name, tok[1]) == 0) return fail("instance declared twice", tok[1]);
        }
        ins = &H.ins[H.n_ins];
        memset(ins, 0, sizeof(*ins));
        if ((ins->name = strdup(tok[1])) == NULL) return fail("out of memory", NULL);
        H.n_ins++;
        return 0;
    }
    if (strcmp(tok[0], "init") == 0 && n == 2) {
        return (ins = find(tok[1])) ? do_init(ins, expect) : -1;
    }
    if (strcmp(tok[0], "exit") == 0 && n == 2) {
        return (ins = find(tok[1])) ? do_exit(ins, expect) : -1;
    }
    if (strcmp(tok[0], "flush") == 0 && n == 4) {
        return (ins = find(tok[1])) ? flush_now(ins, tok[2], tok[3], expect) : -1;
    }
    if (strcmp(tok[0], "flushbg") == 0 && n == 4) {
        return (ins = find(tok[1])) ? flush_bg(ins, tok[2], tok[3], expect) : -1;
    }
    if (strcmp(tok[0], "wait") == 0 && n == 1) return wait_bg();
    if (strcmp(tok[0], "legacyflush") == 0 && n == 3) return do_legacy_flush(tok[1], tok[2], expect);
    if (strcmp(tok[0], "legacyexit") == 0 && n == 1) {
        if (H.cb_exit == NULL) return fail("plugin has no FLBPluginExit", NULL);
        return check("legacyexit", NULL, H.cb_exit(), expect);
    }
    if (strcmp(tok[0], "unregister") == 0 && n == 1) return do_unregister();
    return fail("bad command", orig);
}

static void run_script(FILE *in)
{
    char *line = NULL;
    size_t cap = 0;

    while (getline(&line, &cap, in) != -1) {
        if (run_line(line) != 0) break;
    }
    free(line);
}

/* Finish like Fluent Bit's shutdown, then free everything. */
static void finish(void)
{
    int i;

    wait_bg();
    for (i = 0; i < H.n_ins; i++) {
        if (!H.ins[i].exited && !H.unregistered) do_exit(&H.ins[i], NO_EXPECT);
    }
    if (!H.unregistered) do_unregister();
    for (i = 0; i < H.n_ins; i++) {
        struct prop *p = H.ins[i].props, *next;
        for (; p != NULL; p = next) {
            next = p->next;
            free(p->key);
            free(p->value);
            free(p);
        }
        free(H.ins[i].name);
    }
}

int main(int argc, char **argv)
{
    FILE *in = stdin;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s PLUGIN.so [SCRIPT|-]\n", argv[0]);
        return 2;
    }
    if (argc == 3 && strcmp(argv[2], "-") != 0 && (in = fopen(argv[2], "r")) == NULL) {
        fprintf(stderr, "flbhost: %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    if (load(argv[1]) != 0) {
        if (in != stdin) fclose(in);
        if (H.dso) dlclose(H.dso);
        free(H.def);
        return 2;
    }
    run_script(in);
    if (in != stdin) fclose(in);
    finish();
    free(H.def);
    dlclose(H.dso);
    printf("closed failed=%d\n", H.failed);
    return H.failed ? 1 : 0;
}
