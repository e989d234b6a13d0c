// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Python side of `patchsite script`: Debian's libpython, opened with
 * dlopen by this verb only, so that the patchsite command and the runtime
 * link no Python (the command runs where Python is not installed; only this
 * verb needs it).  dlopen rather than a second executable: one program to
 * install and find, the library's absence said by name in one line, and
 * the reader objects linked once.
 *
 * Each callback's ctx is a dict written through script_ctx.h's calls, the
 * ones `script --json` prints with (script.c says what is in a ctx, once);
 * a small bootstrap in Python (below) picks the script's function
 * (patchsite's name or uftrace's) and says a failure in one line naming the
 * script.  Only stable C API functions are called, through the table below
 * (no macro that needs libpython at link time).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "script.h"
#include "script_ctx.h"

/* Debian 12's (libpython3.11); PATCHSITE_LIBPYTHON names another. */
#define LIBPYTHON "libpython3.11.so.1.0"
#define PY_FILE_INPUT 257	/* Python.h's Py_file_input */

typedef struct py_object py_object;

static struct {
	void (*Py_InitializeEx)(int);
	int (*Py_FinalizeEx)(void);
	py_object *(*PyImport_AddModule)(const char *);
	py_object *(*PyModule_GetDict)(py_object *);
	py_object *(*PyRun_StringFlags)(const char *, int, py_object *, py_object *, void *);
	py_object *(*PyDict_GetItemString)(py_object *, const char *);
	py_object *(*Py_BuildValue)(const char *, ...);
	py_object *(*PyObject_CallObject)(py_object *, py_object *);
	long (*PyLong_AsLong)(py_object *);
	void (*Py_DecRef)(py_object *);
	void (*PyErr_Print)(void);
	py_object *(*PyList_New)(ssize_t);
	int (*PyList_SetItem)(py_object *, ssize_t, py_object *);
	py_object *(*PyUnicode_DecodeFSDefault)(const char *);
	py_object *(*PyUnicode_DecodeLatin1)(const char *, ssize_t, const char *);
	py_object *(*PyDict_New)(void);
	int (*PyDict_SetItemString)(py_object *, const char *, py_object *);
	int (*PyList_Append)(py_object *, py_object *);
	py_object *(*PyLong_FromLongLong)(long long);
	py_object *(*PyLong_FromUnsignedLongLong)(unsigned long long);
	py_object *(*PyFloat_FromDouble)(double);
	py_object *(*PyBool_FromLong)(long);
} py;

#define PY_SYM(name) { #name, (void **)&py.name }
static const struct { const char *name; void **fn; } py_syms[] = {
	PY_SYM(Py_InitializeEx), PY_SYM(Py_FinalizeEx), PY_SYM(PyImport_AddModule),
	PY_SYM(PyModule_GetDict), PY_SYM(PyRun_StringFlags), PY_SYM(PyDict_GetItemString),
	PY_SYM(Py_BuildValue), PY_SYM(PyObject_CallObject), PY_SYM(PyLong_AsLong),
	PY_SYM(Py_DecRef), PY_SYM(PyErr_Print), PY_SYM(PyList_New), PY_SYM(PyList_SetItem),
	PY_SYM(PyUnicode_DecodeFSDefault), PY_SYM(PyUnicode_DecodeLatin1), PY_SYM(PyDict_New),
	PY_SYM(PyDict_SetItemString), PY_SYM(PyList_Append), PY_SYM(PyLong_FromLongLong),
	PY_SYM(PyLong_FromUnsignedLongLong), PY_SYM(PyFloat_FromDouble), PY_SYM(PyBool_FromLong),
};

/*
 * _ps_load(path, argv): runs the script as __main__ would, keeps its
 * callbacks; _ps_wants(cb): 1 when it has cb; _ps_call(ctx): one callback.  Both answer 0 to go on, 1 after
 * saying why the script failed, 2 + N for sys.exit(N) (stop, exit status N).
 */
static const char bootstrap[] =
	"import os as _os, re as _re, sys as _sys, traceback as _tb\n"
	"_NAMES = (('begin', 'uftrace_begin'), ('entry', 'uftrace_entry'),\n"
	"          ('exit', 'uftrace_exit'), ('event', 'uftrace_event'), ('end', 'uftrace_end'))\n"
	"_ps = {}\n"
	"def _ps_say(what):\n"
	"    _sys.stdout.flush()\n"
	"    print('patchsite script: ' + what, file=_sys.stderr, flush=True)\n"
	"def _ps_failed(path, where, e):\n"
	"    if isinstance(e, SystemExit):\n"
	"        c = e.code\n"
	"        if c is None or isinstance(c, int):\n"
	"            return 2 + (c or 0)\n"
	"        _ps_say('%s: %s: exit(%s)' % (path, where, c))\n"
	"        return 1\n"
	"    line = '?'\n"
	"    for f in _tb.extract_tb(e.__traceback__):\n"
	"        if f.filename == path:\n"
	"            line = f.lineno\n"
	"    msg = str(e).splitlines()[0] if str(e) else ''\n"
	"    _ps_say('%s:%s: %s: %s%s' % (path, line, where, type(e).__name__,\n"
	"            ': ' + msg if msg else ''))\n"
	"    return 1\n"
	"def _ps_load(path, argv):\n"
	"    _sys.argv = [path] + argv\n"
	"    _sys.path.insert(0, _os.path.dirname(_os.path.abspath(path)))\n"
	"    g = {'__name__': '__main__', '__file__': path, '__builtins__': __builtins__}\n"
	"    try:\n"
	"        with open(path, 'rb') as f:\n"
	"            src = f.read()\n"
	"    except OSError as e:\n"
	"        _ps_say('%s: %s' % (path, e.strerror))\n"
	"        return 1\n"
	"    try:\n"
	"        code = compile(src, path, 'exec')\n"
	"    except (SyntaxError, ValueError) as e:\n"
	"        _ps_say('%s:%s: %s: %s' % (path, getattr(e, 'lineno', '?'), type(e).__name__,\n"
	"                getattr(e, 'msg', str(e))))\n"
	"        return 1\n"
	"    try:\n"
	"        exec(code, g)\n"
	"    except BaseException as e:\n"
	"        return _ps_failed(path, 'running the script', e)\n"
	"    for ours, theirs in _NAMES:\n"
	"        f = g.get(ours) if callable(g.get(ours)) else g.get(theirs)\n"
	"        if f is not None and not callable(f):\n"
	"            _ps_say('%s: %s is not a function' % (path, theirs))\n"
	"            return 1\n"
	"        _ps[ours] = (f, ours if f is g.get(ours) else theirs)\n"
	"    if not any(f for f, _ in _ps.values()):\n"
	"        _ps_say('%s: defines none of begin, entry, exit, event, end '\n"
	"                '(nor uftrace_begin ... uftrace_end)' % path)\n"
	"        return 1\n"
	"    funcs = g.get('UFTRACE_FUNCS')\n"
	"    _ps['match'] = [_re.compile(p) for p in funcs] if funcs is not None else None\n"
	"    _ps['path'] = path\n"
	"    return 0\n"
	"def _ps_wants(cb):\n"
	"    return int(_ps[cb][0] is not None)\n"
	"def _ps_call(ctx):\n"
	"    cb = ctx.pop('cb')\n"
	"    f, name = _ps[cb]\n"
	"    if f is None:\n"
	"        return 0\n"
	"    m = _ps['match']\n"
	"    if m is not None and cb in ('entry', 'exit') and not any(r.search(ctx['name']) for r in m):\n"
	"        return 0\n"
	"    try:\n"
	"        f() if cb == 'end' else f(ctx)\n"
	"    except BaseException as e:\n"
	"        return _ps_failed(_ps['path'], 'in ' + name + '()', e)\n"
	"    return 0\n";

static py_object *py_main;	/* __main__'s dict (borrowed) */
static bool started;

/* Every symbol of the table from the library: false (said) when it cannot be opened. */
static bool lib_open(void)
{
	const char *lib = getenv("PATCHSITE_LIBPYTHON");
	void *h;

	if (!lib || !*lib)
		lib = LIBPYTHON;
	h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);	/* global: Python's own C modules need it */
	if (!h) {
		fprintf(stderr, "patchsite script: %s (Python 3, Debian's libpython3.11): %s\n", lib,
			dlerror());
		return false;
	}
	for (size_t i = 0; i < sizeof(py_syms) / sizeof(py_syms[0]); i++)
		if (!(*py_syms[i].fn = dlsym(h, py_syms[i].name))) {
			fprintf(stderr, "patchsite script: %s: no %s: not a Python 3 library\n", lib,
				py_syms[i].name);
			return false;
		}
	return true;	/* never closed: Python cannot be unloaded */
}

/* fn(args) of the bootstrap; its answer (0, 1 said, 2 + N), 1 after printing Python's error. */
static int py_run(const char *fn, py_object *args)
{
	py_object *f = py.PyDict_GetItemString(py_main, fn), *r;
	long n;

	if (!args || !f) {
		py.PyErr_Print();
		return 1;
	}
	r = py.PyObject_CallObject(f, args);
	py.Py_DecRef(args);
	if (!r) {
		py.PyErr_Print();
		return 1;
	}
	n = py.PyLong_AsLong(r);
	py.Py_DecRef(r);
	return n < 0 || n > 257 ? 1 : (int)n;
}

int script_py_load(const char *file, int argc, char **argv)
{
	py_object *r, *list;

	if (!lib_open())
		return 1;
	py.Py_InitializeEx(0);	/* 0: no signal handlers; ^C stops patchsite as before */
	started = true;
	py_main = py.PyModule_GetDict(py.PyImport_AddModule("__main__"));
	r = py.PyRun_StringFlags(bootstrap, PY_FILE_INPUT, py_main, py_main, NULL);
	if (!r) {
		py.PyErr_Print();
		return 1;
	}
	py.Py_DecRef(r);
	list = py.PyList_New(argc);
	for (int i = 0; list && i < argc; i++)
		py.PyList_SetItem(list, i, py.PyUnicode_DecodeFSDefault(argv[i]));
	return py_run("_ps_load", list ? py.Py_BuildValue("(NN)", py.PyUnicode_DecodeFSDefault(file),
							 list) : NULL);
}

bool script_py_wants(const char *cb)
{
	return py_run("_ps_wants", py.Py_BuildValue("(s)", cb)) == 1;
}

/* The ctx being written: its containers, the outermost owned, the others held by it. */
static struct {
	struct ctx_out out;
	py_object *in[CTX_MAX_DEPTH];
	bool list[CTX_MAX_DEPTH];
	bool failed;		/* a value could not be made: Python's error is set */
} ctx;

/* v (a new reference, or NULL after an error) into the open container. */
static void ctx_put(struct ctx_out *o, const char *key, py_object *v)
{
	py_object *in = ctx.in[o->depth - 1];

	/* once failed, a container may be missing: nothing more is put, the ctx is not given */
	if (!ctx.failed && (!v || (ctx.list[o->depth - 1] ? py.PyList_Append(in, v) :
				   py.PyDict_SetItemString(in, key, v))))
		ctx.failed = true;
	if (v)
		py.Py_DecRef(v);
}

static void ctx_open(struct ctx_out *o, const char *key, bool list)
{
	py_object *v = list ? py.PyList_New(0) : py.PyDict_New();

	if (o->depth)
		ctx_put(o, key, v);	/* v stays alive in its container */
	else if (!(ctx.in[0] = v))
		ctx.failed = true;
	ctx.in[o->depth] = v;
	ctx.list[o->depth++] = list;
}

static void ctx_close(struct ctx_out *o, bool list)
{
	(void)list;
	o->depth--;
}

static void py_i64(struct ctx_out *o, const char *key, long long v)
{
	ctx_put(o, key, py.PyLong_FromLongLong(v));
}

static void py_u64(struct ctx_out *o, const char *key, unsigned long long v)
{
	ctx_put(o, key, py.PyLong_FromUnsignedLongLong(v));
}

static void py_f64(struct ctx_out *o, const char *key, double v)
{
	ctx_put(o, key, py.PyFloat_FromDouble(v));
}

static void py_str(struct ctx_out *o, const char *key, const char *s)
{
	ctx_put(o, key, py.PyUnicode_DecodeLatin1(s, (ssize_t)strlen(s), NULL));
}

static void py_atom(struct ctx_out *o, const char *key, int v)
{
	ctx_put(o, key, v < 0 ? py.Py_BuildValue("") : py.PyBool_FromLong(v));
}

static const struct ctx_ops py_ops = {
	.open = ctx_open, .close = ctx_close, .i64 = py_i64, .u64 = py_u64, .f64 = py_f64,
	.str = py_str, .atom = py_atom,
};

struct ctx_out *script_py_ctx(void)
{
	memset(&ctx, 0, sizeof(ctx));
	ctx.out.ops = &py_ops;
	return &ctx.out;
}

int script_py_call(void)
{
	/* any container made is in in[0]; a value not made leaves Python's error set */
	if (ctx.failed || !ctx.in[0]) {
		if (ctx.in[0])
			py.Py_DecRef(ctx.in[0]);
		py.PyErr_Print();
		return 1;
	}
	return py_run("_ps_call", py.Py_BuildValue("(N)", ctx.in[0]));	/* N: the ctx given */
}

int script_py_end(void)
{
	return started && py.Py_FinalizeEx() < 0;	/* flushes the script's stdout: -1 when it could not */
}
