/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-onnx-test: runs ONNX backend test cases (model.onnx and
 * test_data_set_N/{input,output}_K.pb) through the ONNX front-end and the
 * float reference executor.
 *
 *   simnpu-onnx-test [--expected FILE] [--verbose] [--no-fork]
 *       [--cancel-transposes] [--passes] [--bake-weights] DIR...
 *
 * A DIR is one case or a folder of cases. Each case runs in a child
 * process (unless --no-fork) so that a crash or hang is reported as that
 * case's failure. Exit status 0 iff no case failed and every case listed
 * in FILE passed. --cancel-transposes runs the transpose cancellation pass
 * on each graph before executing it, --passes the passes simnpu-compile
 * runs after import (cancel transposes, fold constants, fuse, prune).
 * --bake-weights imports every input but the first as an initializer,
 * as a real model's weights are. */

#include "compiler.h"
#include "onnx.pb-c.h"
#include "simnpu-file.h"

#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define RTOL 1e-3
#define ATOL 1e-5
/* a case that takes longer is reported as hung */
#define CASE_TIMEOUT_S 120
#define MAX_TEST_FILE_SIZE (G_GINT64_CONSTANT (1) << 30)
/* inputs baked as initializers: the bits of a guint64 mask */
#define MAX_BAKED_INPUTS 64
#define SHAPE_STR_SIZE 128

typedef enum
{
  CASE_PASS = 0,
  CASE_FAIL = 1,
  CASE_UNSUPPORTED = 2,
} case_result;

static bool verbose;
/* run simnpu__ir_cancel_transposes() on each imported graph */
static bool cancel;
/* run simnpu-compile's passes (fold, cancel transposes, fuse, prune) */
static bool pipeline;
/* bake every input but the first as an initializer before import: the
 * weights of convolutions constant, as in real models */
static bool bake_weights;

typedef struct
{
  char *name;
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  void *data;
} pb_tensor;

static void
pb_clear (pb_tensor * t)
{
  g_free (t->name);
  g_free (t->data);
  memset (t, 0, sizeof *t);
}

static int
pb_read (const char *path, pb_tensor * t, simnpu_error * error)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *gerr = NULL;
  int ret;

  memset (t, 0, sizeof *t);
  if (!simnpu__file_read (path, "test tensor", MAX_TEST_FILE_SIZE, &data,
          &len, &gerr)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s", gerr->message);
    g_error_free (gerr);
    return ret;
  }
  ret = simnpu__onnx_read_tensor (data, len, &t->name, &t->dtype, &t->rank,
      t->dims, &t->data, error);
  g_free (data);
  if (ret < 0) {
    gchar *msg = g_strdup (error->message);
    simnpu__set_error (error, ret, "%s: %s", path, msg);
    g_free (msg);
  }
  return ret;
}

static void
format_shape (char *buf, size_t size, unsigned rank, const int64_t * dims)
{
  size_t off = 0;
  unsigned i;

  off += g_snprintf (buf + off, size - off, "[");
  for (i = 0; i < rank && off < size; i++)
    off += g_snprintf (buf + off, size - off, "%s%" G_GINT64_FORMAT,
        i ? "," : "", dims[i]);
  if (off < size)
    g_snprintf (buf + off, size - off, "]");
}

static double
element (simnpu__ir_dtype dtype, const void *data, int64_t i)
{
  switch (dtype) {
    case SIMNPU_IR_F32:
      return ((const float *) data)[i];
    case SIMNPU_IR_I64:
      return (double) ((const int64_t *) data)[i];
    case SIMNPU_IR_I32:
      return ((const int32_t *) data)[i];
    case SIMNPU_IR_I8:
      return ((const int8_t *) data)[i];
    default:
      return ((const uint8_t *) data)[i];
  }
}

/* compares output k; fills msg on mismatch */
static bool
compare (unsigned k, const simnpu__ir_tensor * got_t, const void *got,
    const pb_tensor * exp, char *msg, size_t size)
{
  char shape[SHAPE_STR_SIZE];
  int64_t n, i;
  unsigned d;

  format_shape (shape, sizeof shape, exp->rank, exp->dims);
  if (got_t->dtype != exp->dtype) {
    g_snprintf (msg, size, "output %u %s: dtype %s, expected %s", k, shape,
        simnpu__ir_dtype_name (got_t->dtype),
        simnpu__ir_dtype_name (exp->dtype));
    return false;
  }
  if (got_t->rank != exp->rank
      || memcmp (got_t->dims, exp->dims, exp->rank * sizeof exp->dims[0])) {
    char gs[SHAPE_STR_SIZE];
    format_shape (gs, sizeof gs, got_t->rank, got_t->dims);
    g_snprintf (msg, size, "output %u: shape %s, expected %s", k, gs, shape);
    return false;
  }
  n = 1;
  for (d = 0; d < exp->rank; d++)
    n *= exp->dims[d];
  for (i = 0; i < n; i++) {
    double g, e;
    bool ok;
    if (exp->dtype == SIMNPU_IR_I64) {
      /* exact, and beyond double's 53 bits */
      int64_t gi = ((const int64_t *) got)[i];
      int64_t ei = ((const int64_t *) exp->data)[i];
      if (gi != ei) {
        g_snprintf (msg, size, "output %u %s element %" G_GINT64_FORMAT
            ": got %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT, k,
            shape, i, gi, ei);
        return false;
      }
      continue;
    }
    g = element (exp->dtype, got, i);
    e = element (exp->dtype, exp->data, i);
    if (exp->dtype != SIMNPU_IR_F32)
      ok = g == e;
    else if (isnan (e))
      ok = isnan (g);
    else if (isinf (e))
      ok = g == e;
    else
      ok = fabs (g - e) <= ATOL + RTOL * fabs (e);
    if (!ok) {
      g_snprintf (msg, size, "output %u %s element %" G_GINT64_FORMAT
          ": got %.9g, expected %.9g", k, shape, i, g, e);
      return false;
    }
  }
  return true;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* sorted names of the entries of dir starting with prefix */
static GPtrArray *
list_dir (const char *dir, const char *prefix)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return names;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, cmp_str);
  return names;
}

/* runs one data set; returns CASE_* with msg filled when not a pass */
static case_result
run_data_set (simnpu__ir_graph * g, const char *set_dir, guint64 baked,
    char *msg, size_t size)
{
  simnpu_error error = { 0 };
  pb_tensor ins[SIMNPU_IR_MAX_INPUTS] = { 0 };
  pb_tensor exp = { 0 };
  simnpu__ir_exec *x = NULL;
  case_result res = CASE_FAIL;
  unsigned n_in = 0, f, i, k;
  bool reshape = false;
  int ret;

  /* input_F.pb for file F; those baked into the model are not inputs */
  for (f = 0; f < SIMNPU_IR_MAX_INPUTS + MAX_BAKED_INPUTS; f++) {
    gchar *p = g_strdup_printf ("%s/input_%u.pb", set_dir, f);
    if (!g_file_test (p, G_FILE_TEST_EXISTS)) {
      g_free (p);
      break;
    }
    if (f < MAX_BAKED_INPUTS && (baked & (G_GUINT64_CONSTANT (1) << f))) {
      g_free (p);
      continue;
    }
    if (n_in == SIMNPU_IR_MAX_INPUTS) {
      g_snprintf (msg, size, "more than %d inputs", SIMNPU_IR_MAX_INPUTS);
      g_free (p);
      goto out;
    }
    ret = pb_read (p, &ins[n_in], &error);
    g_free (p);
    if (ret < 0) {
      g_snprintf (msg, size, "%s", error.message);
      res = ret == SIMNPU_EUNSUPPORTED ? CASE_UNSUPPORTED : CASE_FAIL;
      goto out;
    }
    n_in++;
  }
  if (n_in != g->n_inputs) {
    g_snprintf (msg, size, "%u input files for %u graph inputs", n_in,
        g->n_inputs);
    goto out;
  }
  for (i = 0; i < n_in; i++) {
    simnpu__ir_tensor *t = &g->tensors[g->inputs[i]];
    /* by name when the file names one of the inputs, else by position */
    for (k = 0; k < g->n_inputs; k++)
      if (ins[i].name[0]
          && strcmp (g->tensors[g->inputs[k]].name, ins[i].name) == 0)
        t = &g->tensors[g->inputs[k]];
    if (t->dtype != ins[i].dtype) {
      g_snprintf (msg, size, "input '%s': file has %s, model %s", t->name,
          simnpu__ir_dtype_name (ins[i].dtype),
          simnpu__ir_dtype_name (t->dtype));
      goto out;
    }
    if (t->rank != ins[i].rank
        || memcmp (t->dims, ins[i].dims, t->rank * sizeof t->dims[0])) {
      t->rank = ins[i].rank;
      memcpy (t->dims, ins[i].dims, sizeof t->dims);
      reshape = true;
    }
  }
  if (reshape && (ret = simnpu__ir_infer_shapes (g, &error)) < 0) {
    g_snprintf (msg, size, "%s", error.message);
    goto out;
  }
  x = simnpu__ir_exec_new (g, &error);
  if (x == NULL) {
    g_snprintf (msg, size, "%s", error.message);
    res = error.code == SIMNPU_EUNSUPPORTED ? CASE_UNSUPPORTED : CASE_FAIL;
    goto out;
  }
  for (i = 0; i < n_in; i++) {
    int t = g->inputs[i];
    for (k = 0; k < g->n_inputs; k++)
      if (ins[i].name[0]
          && strcmp (g->tensors[g->inputs[k]].name, ins[i].name) == 0)
        t = g->inputs[k];
    memcpy (simnpu__ir_exec_data (x, t), ins[i].data,
        simnpu__ir_tensor_bytes (&g->tensors[t]));
  }
  ret = simnpu__ir_exec_run (x, 0, g->n_nodes, &error);
  if (ret < 0) {
    g_snprintf (msg, size, "%s", error.message);
    res = ret == SIMNPU_EUNSUPPORTED ? CASE_UNSUPPORTED : CASE_FAIL;
    goto out;
  }
  for (k = 0; k < g->n_outputs; k++) {
    gchar *p = g_strdup_printf ("%s/output_%u.pb", set_dir, k);
    int t = g->outputs[k];
    bool ok;
    ret = pb_read (p, &exp, &error);
    g_free (p);
    if (ret < 0) {
      g_snprintf (msg, size, "%s", error.message);
      res = ret == SIMNPU_EUNSUPPORTED ? CASE_UNSUPPORTED : CASE_FAIL;
      goto out;
    }
    ok = compare (k, &g->tensors[t], simnpu__ir_exec_data (x, t), &exp, msg,
        size);
    pb_clear (&exp);
    if (!ok)
      goto out;
  }
  res = CASE_PASS;
out:
  for (i = 0; i < G_N_ELEMENTS (ins); i++)
    pb_clear (&ins[i]);
  if (x != NULL)
    simnpu__ir_exec_free (x);
  return res;
}

static void
dump_graph (const char *dir, const simnpu__ir_graph * g)
{
  char shape[SHAPE_STR_SIZE];
  unsigned i, j;

  fprintf (stderr, "%s: %u nodes, %u tensors\n", dir, g->n_nodes, g->n_tensors);
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    fprintf (stderr, "  %s '%s':", simnpu__ir_op_name (n->op), n->name);
    for (j = 0; j < n->n_inputs + n->n_outputs; j++) {
      int t = j < n->n_inputs ? n->inputs[j] : n->outputs[j - n->n_inputs];
      if (j == n->n_inputs)
        fprintf (stderr, " ->");
      if (t == SIMNPU_IR_NONE) {
        fprintf (stderr, " -");
        continue;
      }
      format_shape (shape, sizeof shape, g->tensors[t].rank,
          g->tensors[t].dims);
      fprintf (stderr, " %s%s%s", g->tensors[t].name, shape,
          g->tensors[t].is_const ? "(const)" : "");
    }
    fprintf (stderr, "\n");
  }
}

/* Rewrites the model with the values of its graph inputs 1.. from
 * set_dir as initializers: ONNX's node tests feed shape-valued inputs
 * (Reshape's shape, Slice's starts, ...) as graph inputs, which the
 * front-end needs as constants. */
static int
bake_inputs (const gchar * model, gsize len, const char *set_dir,
    unsigned first, guint8 ** out, gsize * out_len, guint64 * baked)
{
  Onnx__ModelProto *m = onnx__model_proto__unpack (NULL, len,
      (const uint8_t *) model);
  Onnx__GraphProto *gp;
  GHashTable *inits;
  size_t i, k = 0;

  *baked = 0;
  if (m == NULL || m->graph == NULL) {
    if (m != NULL)
      onnx__model_proto__free_unpacked (m, NULL);
    return -1;
  }
  gp = m->graph;
  inits = g_hash_table_new (g_str_hash, g_str_equal);
  for (i = 0; i < gp->n_initializer; i++)
    if (gp->initializer[i]->name != NULL)
      g_hash_table_add (inits, gp->initializer[i]->name);
  for (i = 0; i < gp->n_input && k < MAX_BAKED_INPUTS; i++) {
    const char *name = gp->input[i]->name;
    gchar *p, *data = NULL;
    gsize dlen = 0;
    Onnx__TensorProto *t;
    if (name == NULL || g_hash_table_contains (inits, name))
      continue;
    if (k++ < first)
      continue;
    p = g_strdup_printf ("%s/input_%zu.pb", set_dir, k - 1);
    if (!simnpu__file_read (p, "test input", MAX_TEST_FILE_SIZE, &data,
            &dlen, NULL)) {
      g_free (p);
      continue;
    }
    g_free (p);
    t = onnx__tensor_proto__unpack (NULL, dlen, (const uint8_t *) data);
    g_free (data);
    if (t == NULL)
      continue;
    free (t->name);
    t->name = strdup (name);
    gp->initializer = realloc (gp->initializer,
        (gp->n_initializer + 1) * sizeof gp->initializer[0]);
    gp->initializer[gp->n_initializer++] = t;
    *baked |= G_GUINT64_CONSTANT (1) << (k - 1);
  }
  g_hash_table_unref (inits);
  *out_len = onnx__model_proto__get_packed_size (m);
  *out = g_malloc (MAX (*out_len, 1));
  onnx__model_proto__pack (m, *out);
  onnx__model_proto__free_unpacked (m, NULL);
  return 0;
}

/* Whether the graph has the model's outputs: a graph cut before its
 * control flow (Loop, If, Scan) has others, and its case is unsupported */
static bool
same_outputs (const void *bytes, size_t len, const simnpu__ir_graph * g)
{
  Onnx__ModelProto *m = onnx__model_proto__unpack (NULL, len, bytes);
  bool same = m != NULL && m->graph != NULL
      && m->graph->n_output == g->n_outputs;
  size_t i;

  for (i = 0; same && i < g->n_outputs; i++)
    same = m->graph->output[i]->name != NULL
        && strcmp (m->graph->output[i]->name,
        g->tensors[g->outputs[i]].name) == 0;
  if (m)
    onnx__model_proto__free_unpacked (m, NULL);
  return same;
}

static case_result
run_case (const char *dir, char *msg, size_t size)
{
  gchar *model = g_build_filename (dir, "model.onnx", NULL);
  gchar *bytes = NULL;
  gsize len = 0;
  GPtrArray *sets;
  case_result res = CASE_PASS;
  unsigned i;
  int ret;

  if (!simnpu__file_read (model, "model", MAX_TEST_FILE_SIZE, &bytes, &len,
          NULL)) {
    g_snprintf (msg, size, "cannot read %s", model);
    g_free (model);
    return CASE_FAIL;
  }
  sets = list_dir (dir, "test_data_set_");
  if (sets->len == 0) {
    g_snprintf (msg, size, "no test_data_set_N folder");
    res = CASE_FAIL;
  }
  for (i = 0; i < sets->len && res == CASE_PASS; i++) {
    simnpu_error error = { 0 };
    simnpu__ir_graph *g = NULL;
    gchar *p = g_build_filename (dir, g_ptr_array_index (sets, i), NULL);
    guint64 baked = 0;
    int first;

    if (bake_weights) {
      guint8 *b2 = NULL;
      gsize len2 = 0;
      ret = bake_inputs (bytes, len, p, 1, &b2, &len2, &baked);
      if (ret == 0)
        ret = simnpu__onnx_load_data (b2, len2, &g, &error);
      else
        ret = simnpu__set_error (&error, SIMNPU_EFORMAT, "%s: cannot bake "
            "the inputs after the first", dir);
      g_free (b2);
    } else {
      ret = simnpu__onnx_load_data (bytes, len, &g, &error);
    }
    /* first all inputs but the first, then all */
    for (first = 1; first + 1 > 0 && ret == SIMNPU_EUNSUPPORTED
        && strstr (error.message, "must be constant") != NULL; first--) {
      guint8 *b2 = NULL;
      gsize len2 = 0;
      if (bake_inputs (bytes, len, p, first, &b2, &len2, &baked) == 0) {
        if (verbose)
          fprintf (stderr, "%s: inputs 0x%" G_GINT64_MODIFIER "x as "
              "constants\n", dir, baked);
        memset (&error, 0, sizeof error);
        ret = simnpu__onnx_load_data (b2, len2, &g, &error);
      }
      g_free (b2);
    }
    if (ret == 0 && (cancel || pipeline))
      ret = simnpu__ir_cancel_transposes (g, &error);
    if (ret == 0 && pipeline)
      ret = simnpu__ir_fold_constants (g, &error);
    if (ret == 0 && pipeline)
      ret = simnpu__ir_fuse (g, &error);
    if (ret == 0 && pipeline)
      ret = simnpu__ir_prune (g, &error);
    if (ret == 0 && !same_outputs (bytes, len, g)) {
      g_snprintf (msg, size, "the graph is cut before its control flow");
      res = CASE_UNSUPPORTED;
    } else if (ret < 0) {
      g_snprintf (msg, size, "%s", error.message);
      res = ret == SIMNPU_EUNSUPPORTED ? CASE_UNSUPPORTED : CASE_FAIL;
    } else {
      if (verbose)
        dump_graph (dir, g);
      res = run_data_set (g, p, baked, msg, size);
    }
    simnpu__ir_graph_free (g);
    g_free (p);
  }
  g_ptr_array_unref (sets);
  g_free (bytes);
  g_free (model);
  return res;
}

typedef struct
{
  unsigned passed, failed, unsupported;
  GHashTable *passed_names;
  bool fork;
} totals;

static void
report (totals * tot, const char *name, case_result r, const char *msg)
{
  switch (r) {
    case CASE_PASS:
      printf ("PASS %s\n", name);
      tot->passed++;
      g_hash_table_add (tot->passed_names, g_strdup (name));
      break;
    case CASE_UNSUPPORTED:
      printf ("UNSUPPORTED %s: %s\n", name, msg);
      tot->unsupported++;
      break;
    default:
      printf ("FAIL %s: %s\n", name, msg);
      tot->failed++;
      break;
  }
  fflush (stdout);
}

#define MSG_SIZE 1024

static void
do_case (totals * tot, const char *dir)
{
  gchar *name = g_path_get_basename (dir);
  char msg[MSG_SIZE] = "";
  case_result r;
  int fds[2];
  pid_t pid;
  int status;

  if (!tot->fork) {
    r = run_case (dir, msg, sizeof msg);
    report (tot, name, r, msg);
    g_free (name);
    return;
  }
  fflush (stdout);
  fflush (stderr);
  if (pipe (fds) < 0) {
    report (tot, name, CASE_FAIL, "pipe failed");
    g_free (name);
    return;
  }
  pid = fork ();
  if (pid < 0) {
    close (fds[0]);
    close (fds[1]);
    report (tot, name, CASE_FAIL, "fork failed");
    g_free (name);
    return;
  }
  if (pid == 0) {
    ssize_t w;
    close (fds[0]);
    alarm (CASE_TIMEOUT_S);
    r = run_case (dir, msg, sizeof msg);
    w = write (fds[1], msg, strlen (msg));
    (void) w;
    close (fds[1]);
    _exit ((int) r);
  }
  close (fds[1]);
  {
    size_t off = 0;
    ssize_t got;
    while (off + 1 < sizeof msg
        && (got = read (fds[0], msg + off, sizeof msg - 1 - off)) > 0)
      off += got;
    msg[off] = '\0';
  }
  close (fds[0]);
  while (waitpid (pid, &status, 0) < 0) {
  }
  if (WIFSIGNALED (status)) {
    g_snprintf (msg, sizeof msg, "%s (signal %d)",
        WTERMSIG (status) == SIGALRM ? "timed out" : "crashed",
        WTERMSIG (status));
    r = CASE_FAIL;
  } else if (WEXITSTATUS (status) <= CASE_UNSUPPORTED) {
    r = (case_result) WEXITSTATUS (status);
  } else {
    g_snprintf (msg, sizeof msg, "exited with status %d", WEXITSTATUS (status));
    r = CASE_FAIL;
  }
  report (tot, name, r, msg);
  g_free (name);
}

static int
read_expected (const char *path, GPtrArray * out)
{
  gchar *text = NULL;
  gchar **lines;
  unsigned i;

  if (!simnpu__file_read (path, "list of expected results",
          SIMNPU_FILE_MAX_JSON_BYTES, &text, NULL, NULL))
    return -1;
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] != NULL; i++) {
    gchar *hash = strchr (lines[i], '#');
    if (hash != NULL)
      *hash = '\0';
    g_strstrip (lines[i]);
    if (lines[i][0] != '\0')
      g_ptr_array_add (out, g_strdup (lines[i]));
  }
  g_strfreev (lines);
  g_free (text);
  return 0;
}

static void
usage (void)
{
  fprintf (stderr, "usage: simnpu-onnx-test [--expected FILE] [--verbose] "
      "[--no-fork] [--cancel-transposes] [--passes] [--bake-weights] "
      "DIR...\n");
}

int
main (int argc, char **argv)
{
  const char *expected = NULL;
  GPtrArray *dirs = g_ptr_array_new ();
  GPtrArray *listed = g_ptr_array_new_with_free_func (g_free);
  totals tot = { 0 };
  unsigned i, j, missing = 0;
  int ret;

  tot.fork = true;
  for (i = 1; i < (unsigned) argc; i++) {
    if (strcmp (argv[i], "--expected") == 0 && i + 1 < (unsigned) argc)
      expected = argv[++i];
    else if (strcmp (argv[i], "--verbose") == 0)
      verbose = true;
    else if (strcmp (argv[i], "--cancel-transposes") == 0)
      cancel = true;
    else if (strcmp (argv[i], "--bake-weights") == 0)
      bake_weights = true;
    else if (strcmp (argv[i], "--passes") == 0)
      pipeline = true;
    else if (strcmp (argv[i], "--no-fork") == 0)
      tot.fork = false;
    else if (argv[i][0] == '-') {
      usage ();
      return EXIT_USAGE;
    } else
      g_ptr_array_add (dirs, argv[i]);
  }
  if (dirs->len == 0) {
    usage ();
    return EXIT_USAGE;
  }
  if (expected != NULL && read_expected (expected, listed) < 0) {
    fprintf (stderr, "simnpu-onnx-test: cannot read '%s'\n", expected);
    return EXIT_USAGE;
  }
  tot.passed_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  for (i = 0; i < dirs->len; i++) {
    const char *dir = g_ptr_array_index (dirs, i);
    gchar *model = g_build_filename (dir, "model.onnx", NULL);
    if (g_file_test (model, G_FILE_TEST_EXISTS)) {
      do_case (&tot, dir);
    } else if (g_file_test (dir, G_FILE_TEST_IS_DIR)) {
      GPtrArray *cases = list_dir (dir, "");
      for (j = 0; j < cases->len; j++) {
        gchar *sub = g_build_filename (dir, g_ptr_array_index (cases, j),
            NULL);
        gchar *m = g_build_filename (sub, "model.onnx", NULL);
        if (g_file_test (m, G_FILE_TEST_EXISTS))
          do_case (&tot, sub);
        g_free (m);
        g_free (sub);
      }
      g_ptr_array_unref (cases);
    } else {
      fprintf (stderr, "simnpu-onnx-test: '%s' is not a test case or a "
          "folder of them\n", dir);
      tot.failed++;
    }
    g_free (model);
  }
  for (i = 0; i < listed->len; i++) {
    const char *name = g_ptr_array_index (listed, i);
    if (!g_hash_table_contains (tot.passed_names, name)) {
      printf ("FAIL %s: listed in %s but did not pass\n", name, expected);
      missing++;
    }
  }
  printf ("%u passed, %u failed, %u unsupported\n", tot.passed,
      tot.failed + missing, tot.unsupported);
  ret = tot.failed == 0 && missing == 0 ? 0 : 1;
  g_hash_table_unref (tot.passed_names);
  g_ptr_array_unref (listed);
  g_ptr_array_unref (dirs);
  return ret;
}
