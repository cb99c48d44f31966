/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-compile: a model -> .axm container, with the schedule and its
 * cycle estimates for one device profile. The model is our JSON graph
 * (already int8), or a trained float model (ONNX, TF.js graph model) that
 * is imported, calibrated on images, quantised to int8 and split into
 * device and host sections.
 *
 *   simnpu-compile models/yolov8n.json -o yolov8n.axm --device torq \
 *     --estimate-only --enable-profiling --dump-profiling=trace.csv \
 *     --debug-info=yolov8n_debug
 *   simnpu-compile blazeface.json -o blazeface.axm --calibration photos/ \
 *     --preprocess scale=1/127.5,mean=1 --outputs Identity,Identity_1
 */

#include "compile-trace.h"
#include "compiler.h"
#include "imageset.h"
#include "simnpu-file.h"
#include "tools-util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "simnpu-compile"
#define EXIT_USAGE SIMNPU_TOOLS_EXIT_USAGE
/* bounds of the video options: a calibration set is a few hundred frames */
#define MAX_VIDEO_FRAMES 100000
#define MAX_FRAME_STRIDE 100000
/* -o, --dump-profiling and the two files of --debug-info */
#define MAX_OUTPUTS 4

/* What the tool reads and what it writes: no output may replace an input
 * (the model, its weights, a calibration image, ...). The inputs grow as
 * they become known: the command line's first, then the files the model
 * names and the images of a calibration folder. */
typedef struct
{
  GPtrArray *inputs;            /* paths, owned */
  unsigned n_outputs;
  const char *output_option[MAX_OUTPUTS];
  char *output[MAX_OUTPUTS];
} io_files;

static void
add_input (io_files * io, const char *path)
{
  if (path != NULL)
    g_ptr_array_add (io->inputs, g_strdup (path));
}

static void
add_output (io_files * io, const char *option, char *path)
{
  g_assert (io->n_outputs < MAX_OUTPUTS);
  io->output_option[io->n_outputs] = option;
  io->output[io->n_outputs++] = path;
}

static int
check_outputs (const io_files * io)
{
  unsigned i;

  for (i = 0; i < io->n_outputs; i++)
    if (simnpu_tools_check_output (TOOL, io->output_option[i],
            io->output[i], (const char *const *) io->inputs->pdata,
            io->inputs->len) < 0)
      return -1;
  return 0;
}

/* The files the model names, once it is read */
static int
check_model_files (io_files * io, char **model_files)
{
  unsigned i;

  for (i = 0; model_files != NULL && model_files[i] != NULL; i++)
    add_input (io, model_files[i]);
  return check_outputs (io);
}

/* ------------------------------------------------------------------ */
/* Trained float models: import, calibrate, quantise */

/* Whose fault an error of the compile is: the model's, breaking its
 * format's rules; the command line's, which lacks an option the model
 * needs (an input shape) or gives a wrong one; or the compiler's, which
 * cannot do it yet. */
static const char *
error_kind (int code)
{
  if (code == SIMNPU_EUNSUPPORTED)
    return "simnpu-compile cannot do this yet";
  if (code == SIMNPU_EINVAL)
    return "an option is missing or wrong";
  return simnpu_strerror (code);
}

typedef struct
{
  gchar **calibration, **validation;
  gchar *preprocess, *outputs, *inputs;
  gchar *labels, *decoder, *logit_outputs, *foreground, *technique;
  gchar *fallback_share_arg, *max_frames_arg, *frame_stride_arg;
  gdouble fallback_share;
  gchar *output_dtype;
  gchar **input_shape, **input_value, **recurrent;
  gint max_frames, frame_stride;
  gboolean quantize_only;
} model_args;

/* Graph input geometry: NHWC or NCHW, height, width, channels. */
static bool
input_geometry (const simnpu__ir_tensor * t, bool *nchw, unsigned *h,
    unsigned *w, unsigned *ch)
{
  if (t->rank != 4 || t->dims[0] != 1)
    return false;
  *nchw = (t->dims[1] == 1 || t->dims[1] == 3) && t->dims[3] != 1
      && t->dims[3] != 3;
  *ch = (unsigned) (*nchw ? t->dims[1] : t->dims[3]);
  *h = (unsigned) (*nchw ? t->dims[2] : t->dims[1]);
  *w = (unsigned) (*nchw ? t->dims[3] : t->dims[2]);
  return *ch == 1 || *ch == 3;
}

/* Decodes the images of a directory, file or video and makes one input
 * tensor of each, as each is decoded (a long video is never held). */
static int
load_inputs (const char *what, const char *path, const simnpu__ir_tensor * t,
    const simnpu__preprocess * pp, const model_args * a, GPtrArray * out,
    io_files * io)
{
  GError *err = NULL;
  bool nchw;
  unsigned h, w, ch;
  int n;

  if (!input_geometry (t, &nchw, &h, &w, &ch)) {
    fprintf (stderr, "simnpu-compile: --%s: input '%s' is not an image "
        "([1,H,W,1|3] or [1,1|3,H,W])\n", what, t->name);
    return -1;
  }
  fprintf (stderr, "simnpu-compile: decoding %s images from %s ...\n", what,
      path);
  n = simnpu_imageset_load_tensors (path, (unsigned) a->max_frames,
      (unsigned) a->frame_stride, pp, w, h, ch, nchw, out, NULL, &err);
  if (n < 0) {
    fprintf (stderr, "simnpu-compile: --%s: %s\n", what, err->message);
    g_error_free (err);
    return -1;
  }
  /* the path itself is an input already; a folder's files are too */
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    GDir *dir = g_dir_open (path, 0, NULL);
    const gchar *name;

    while (dir && (name = g_dir_read_name (dir)) != NULL) {
      gchar *file = g_build_filename (path, name, NULL);

      add_input (io, file);
      g_free (file);
    }
    if (dir)
      g_dir_close (dir);
  }
  fprintf (stderr, "simnpu-compile: %d %s images (%ux%u, %u channel%s)\n",
      n, what, w, h, ch, ch == 1 ? "" : "s");
  return 0;
}

static int
load_labels (const char *path, char ***out)
{
  gchar *text = NULL;
  GError *err = NULL;
  gchar **lines;
  GPtrArray *labels;
  guint i;

  if (!simnpu__file_read (path, "labels file", SIMNPU_FILE_MAX_LABELS_BYTES,
          &text, NULL, &err)) {
    fprintf (stderr, "simnpu-compile: --labels: %s\n", err->message);
    g_error_free (err);
    return -1;
  }
  lines = g_strsplit (text, "\n", -1);
  labels = g_ptr_array_new ();
  for (i = 0; lines[i]; i++) {
    g_strstrip (lines[i]);
    if (lines[i][0] != '\0')
      g_ptr_array_add (labels, g_strdup (lines[i]));
  }
  g_ptr_array_add (labels, NULL);
  *out = (char **) g_ptr_array_free (labels, FALSE);
  g_strfreev (lines);
  g_free (text);
  return 0;
}

/* The model's input names, quoted: "'a', 'b'" */
static GString *
input_names (const simnpu__ir_graph * g)
{
  GString *names = g_string_new (NULL);
  unsigned i;

  for (i = 0; i < g->n_inputs; i++)
    g_string_append_printf (names, "%s'%s'", i ? ", " : "",
        g->tensors[g->inputs[i]].name);
  return names;
}

/* Calibration feeds images to one input, the first whose shape is an
 * image's and that no --recurrent pairs; it becomes input 0 (the others
 * keep their order). False, with the error said, when there is none. */
static bool
pick_image_input (const char *src, simnpu__ir_graph * g,
    char *const *recurrent_inputs)
{
  GString *names;
  bool nchw;
  unsigned i, j, h, w, ch;
  int pick = -1;

  for (i = 0; i < g->n_inputs && pick < 0; i++) {
    const simnpu__ir_tensor *t = &g->tensors[g->inputs[i]];
    bool state = false;
    for (j = 0; recurrent_inputs && recurrent_inputs[j]; j++)
      state |= strcmp (recurrent_inputs[j], t->name) == 0;
    if (!state && input_geometry (t, &nchw, &h, &w, &ch))
      pick = (int) i;
  }
  if (pick >= 0) {
    int t = g->inputs[pick];
    memmove (&g->inputs[1], &g->inputs[0], pick * sizeof g->inputs[0]);
    g->inputs[0] = t;
    return true;
  }
  names = input_names (g);
  fprintf (stderr, "simnpu-compile: %s: the model has %u inputs (%s) and "
      "none is an image ([1,H,W,1|3] or [1,1|3,H,W]) that --recurrent does "
      "not name; calibration feeds images to one input: give the image "
      "input's shape with --input-shape, or start the model at the tensors "
      "an image makes with --inputs\n", src, g->n_inputs, names->str);
  g_string_free (names, TRUE);
  return false;
}

/* --recurrent INPUT=OUTPUT, each into the two NULL-terminated lists */
static bool
parse_recurrent (gchar ** specs, char ***inputs, char ***outputs)
{
  unsigned n = specs ? g_strv_length (specs) : 0, i, j;

  *inputs = g_new0 (char *, n + 1);
  *outputs = g_new0 (char *, n + 1);
  for (i = 0; i < n; i++) {
    const char *eq = strchr (specs[i], '=');
    if (eq == NULL || eq == specs[i] || eq[1] == '\0') {
      fprintf (stderr, "simnpu-compile: --recurrent '%s': expected "
          "INPUT=OUTPUT, a state input and the output that gives its next "
          "value, e.g. r1i=Identity_2\n", specs[i]);
      return false;
    }
    (*inputs)[i] = g_strndup (specs[i], eq - specs[i]);
    (*outputs)[i] = g_strdup (eq + 1);
    for (j = 0; j < i; j++)
      if (strcmp ((*inputs)[j], (*inputs)[i]) == 0) {
        fprintf (stderr, "simnpu-compile: --recurrent %s given twice\n",
            (*inputs)[i]);
        return false;
      }
  }
  return true;
}

static int
compile_model (const char *src, const model_args * a,
    const char *name, const char *device, bool quiet, io_files * io,
    simnpu__graph ** out)
{
  simnpu__compile_options o;
  simnpu__compile_result r = { 0 };
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };
  gchar *decoder = NULL;
  unsigned i, n_shapes = a->input_shape ? g_strv_length (a->input_shape) : 0;
  unsigned n_values = a->input_value ? g_strv_length (a->input_value) : 0;
  simnpu__input_value *value_items = g_new0 (simnpu__input_value,
      MAX (n_values, 1));
  char **labels = NULL, **logits = NULL, **fg = NULL;
  char **rec_in = NULL, **rec_out = NULL;
  simnpu__input_shape *shape_items = g_new0 (simnpu__input_shape,
      MAX (n_shapes, 1));
  simnpu__input_shapes shapes = { 0 };
  bool color_given, nchw;
  unsigned in_h, in_w, in_ch;
  GError *gerr = NULL;
  int ret = -1;

  simnpu__compile_options_init (&o);
  o.name = name;
  o.device = device;
  o.calibration = g_ptr_array_new_with_free_func (g_free);
  o.validation = g_ptr_array_new_with_free_func (g_free);
  if (simnpu_preprocess_parse (a->preprocess, &o.preprocess, &color_given,
          &gerr) < 0) {
    fprintf (stderr, "simnpu-compile: --preprocess %s\n", gerr->message);
    g_clear_error (&gerr);
    goto out;
  }
  o.has_preprocess = true;
  if (n_shapes > SIMNPU_IR_MAX_INPUTS) {
    fprintf (stderr, "simnpu-compile: --input-shape given %u times; a model "
        "has at most %d inputs\n", n_shapes, SIMNPU_IR_MAX_INPUTS);
    goto out;
  }
  for (i = 0; i < n_shapes; i++)
    if (!simnpu__input_shape_parse (a->input_shape[i], &shape_items[i], &error)) {
      fprintf (stderr, "simnpu-compile: %s\n", error.message);
      goto out;
    }
  if (n_values > SIMNPU_IR_MAX_INPUTS) {
    fprintf (stderr, "simnpu-compile: --input-value given %u times; a model "
        "has at most %d inputs\n", n_values, SIMNPU_IR_MAX_INPUTS);
    goto out;
  }
  for (i = 0; i < n_values; i++) {
    unsigned j;
    if (!simnpu__input_value_parse (a->input_value[i], &value_items[i], &error)) {
      fprintf (stderr, "simnpu-compile: %s\n", error.message);
      goto out;
    }
    for (j = 0; j < i; j++)
      if (strcmp (value_items[j].name, value_items[i].name) == 0) {
        fprintf (stderr, "simnpu-compile: --input-value %s given twice\n",
            value_items[i].name);
        goto out;
      }
  }
  shapes.items = shape_items;
  shapes.n = n_shapes;
  shapes.values = value_items;
  shapes.n_values = n_values;
  fprintf (stderr, "simnpu-compile: importing %s\n", src);
  if (simnpu__import_model_shaped (src, a->inputs, a->outputs, &shapes, &g,
          &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s: %s (%s)\n", src, error.message,
        error_kind (error.code));
    goto out;
  }
  if (check_model_files (io, g->model_files) < 0)
    goto out;
  /* a model of several inputs: images go to the one that takes them,
   * made its input 0; simnpu__compile() checks the others */
  if (!parse_recurrent (a->recurrent, &rec_in, &rec_out))
    goto out;
  o.recurrent_inputs = rec_in;
  o.recurrent_outputs = rec_out;
  if (g->n_inputs > 1 && !pick_image_input (src, g, rec_in))
    goto out;
  /* a model file does not record the normalisation it was trained with:
   * an image input without --preprocess gets pixels 0..255 */
  if (a->preprocess == NULL && (a->calibration || a->validation)
      && input_geometry (&g->tensors[g->inputs[0]], &nchw, &in_h, &in_w,
          &in_ch))
    fprintf (stderr, "simnpu-compile: no --preprocess: input '%s' gets "
        "pixels 0..255 as they are, right for a model that takes integer "
        "pixels or normalises them itself; a model trained on [0, 1] or "
        "[-1, 1] needs --preprocess scale=1/255 or scale=1/127.5,mean=1 (a "
        "model file does not record its normalisation)\n",
        g->tensors[g->inputs[0]].name);
  /* a gray model calibrates on colour photos made gray, unless the
   * preprocessing says otherwise (then the image set refuses them) */
  if (input_geometry (&g->tensors[g->inputs[0]], &nchw, &in_h, &in_w, &in_ch)
      && in_ch == 1 && !color_given) {
    o.preprocess.color = SIMNPU_COLOR_GRAY;
    fprintf (stderr, "simnpu-compile: input '%s' has 1 channel: images are "
        "made gray (color=gray; --preprocess color=... overrides)\n",
        g->tensors[g->inputs[0]].name);
  }
  /* the model's layout is its image input's: axletterbox writes it */
  if (input_geometry (&g->tensors[g->inputs[0]], &nchw, &in_h, &in_w, &in_ch))
    o.preprocess.layout = nchw ? SIMNPU_LAYOUT_NCHW : SIMNPU_LAYOUT_NHWC;
  for (i = 0; a->calibration && a->calibration[i]; i++)
    if (load_inputs ("calibration", a->calibration[i],
            &g->tensors[g->inputs[0]], &o.preprocess, a, o.calibration, io) < 0)
      goto out;
  for (i = 0; a->validation && a->validation[i]; i++)
    if (load_inputs ("validation", a->validation[i],
            &g->tensors[g->inputs[0]], &o.preprocess, a, o.validation, io) < 0)
      goto out;
  if (check_outputs (io) < 0)
    goto out;
  if (o.calibration->len == 0)
    fprintf (stderr, "simnpu-compile: WARNING: no --calibration images: "
        "calibrating on random pixels. Accuracy will suffer; give a "
        "folder of representative images.\n");
  if (a->labels && load_labels (a->labels, &labels) < 0)
    goto out;
  o.labels = labels;
  if (a->decoder) {
    GError *err = NULL;
    char msg[SIMNPU_ERROR_MESSAGE_SIZE];
    gsize len = 0;
    if (!simnpu__file_read (a->decoder, "decoder", SIMNPU_FILE_MAX_JSON_BYTES,
            &decoder, &len, &err)) {
      fprintf (stderr, "simnpu-compile: --decoder: %s\n", err->message);
      g_error_free (err);
      goto out;
    }
    /* the model's loader would refuse it: refuse it before compiling */
    if (simnpu__json_find_bad_int (decoder, len, msg, sizeof (msg))) {
      fprintf (stderr, "simnpu-compile: --decoder %s: %s\n", a->decoder, msg);
      goto out;
    }
    o.decoder = decoder;
  }
  if (a->logit_outputs)
    o.logit_outputs = logits = g_strsplit (a->logit_outputs, ",", -1);
  if (a->foreground) {
    /* NAME[,NAME...]:THRESHOLD[:logit] */
    gchar **f = g_strsplit (a->foreground, ":", 3);
    if (f[0] == NULL || f[1] == NULL || !simnpu_parse_fraction (f[1],
            &o.fg_threshold) || (f[2] && strcmp (f[2], "logit") != 0)) {
      fprintf (stderr, "simnpu-compile: --foreground '%s': expected "
          "OUTPUT[,OUTPUT...]:THRESHOLD[:logit]\n", a->foreground);
      g_strfreev (f);
      goto out;
    }
    o.fg_outputs = fg = g_strsplit (f[0], ",", -1);
    o.fg_logit = f[2] != NULL;
    g_strfreev (f);
  }
  o.techniques = SIMNPU_TECHNIQUE_HOST_FALLBACK |
      SIMNPU_TECHNIQUE_EQUALIZATION | SIMNPU_TECHNIQUE_BIAS_CORRECTION |
      SIMNPU_TECHNIQUE_MEASURED_RANGES;
  if (a->technique) {
    gchar **t = g_strsplit (a->technique, ",", -1);
    o.techniques = SIMNPU_TECHNIQUE_NONE;
    for (i = 0; t[i]; i++) {
      if (strcmp (t[i], "host-fallback") == 0)
        o.techniques |= SIMNPU_TECHNIQUE_HOST_FALLBACK;
      else if (strcmp (t[i], "bias-correction") == 0)
        o.techniques |= SIMNPU_TECHNIQUE_BIAS_CORRECTION;
      else if (strcmp (t[i], "equalization") == 0)
        o.techniques |= SIMNPU_TECHNIQUE_EQUALIZATION;
      else if (strcmp (t[i], "mse-ranges") == 0)
        o.techniques |= SIMNPU_TECHNIQUE_MSE_RANGES;
      else if (strcmp (t[i], "measured-ranges") == 0)
        o.techniques |= SIMNPU_TECHNIQUE_MEASURED_RANGES;
      else if (strcmp (t[i], "none") != 0) {
        fprintf (stderr, "simnpu-compile: --technique '%s': expected a "
            "comma-separated list of host-fallback, bias-correction, "
            "equalization, measured-ranges, mse-ranges, or none\n", t[i]);
        g_strfreev (t);
        goto out;
      }
    }
    g_strfreev (t);
  }
  /* range-checked by parse_numeric_options */
  if (a->fallback_share_arg)
    o.fallback_mac_share = a->fallback_share;
  if (a->output_dtype == NULL || strcmp (a->output_dtype, "f32") == 0)
    o.output_dtype = SIMNPU_DTYPE_F32;
  else if (strcmp (a->output_dtype, "i8") == 0)
    o.output_dtype = SIMNPU_DTYPE_I8;
  else {
    fprintf (stderr, "simnpu-compile: --output-dtype '%s': expected f32 or "
        "i8\n", a->output_dtype);
    goto out;
  }
  fprintf (stderr, "simnpu-compile: calibrating and quantising ...\n");
  if (simnpu__compile (g, &o, out, &r, &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s: %s (%s)\n", src, error.message,
        error_kind (error.code));
    goto out;
  }
  if (g->n_inputs > 1) {
    GString *names = input_names (g);
    fprintf (stderr, "simnpu-compile: note: the model has %u inputs (%s): "
        "the simnpu runtime runs it (a job takes a buffer per input, in "
        "the order and with the names simnpu_model_get_input() gives), "
        "but axinference takes models of one input and will refuse it\n",
        g->n_inputs, names->str);
    g_string_free (names, TRUE);
  }
  if (!quiet) {
    /* one technique per line, aligned under the first */
    const char *lead = "technique:      ";
    const char *indent = "                ";
    printf ("%s", r.text->str);
    if (!r.techniques_applied)
      printf ("%snone\n", lead);
    if (r.techniques_applied & SIMNPU_TECHNIQUE_EQUALIZATION) {
      printf ("%scross-layer equalisation of %u conv pairs\n", lead,
          r.n_equalized);
      lead = indent;
    }
    if (r.techniques_applied & SIMNPU_TECHNIQUE_BIAS_CORRECTION) {
      printf ("%sbias correction (analytic, per output channel)\n", lead);
      lead = indent;
    }
    if (r.techniques_applied & SIMNPU_TECHNIQUE_MSE_RANGES) {
      printf ("%sactivation ranges of least int8 error (histograms)\n", lead);
      lead = indent;
    }
    if (r.techniques_applied & SIMNPU_TECHNIQUE_HOST_FALLBACK)
      printf ("%shost fallback of %u layers of low-SQNR outputs\n", lead,
          r.n_fallback);
  }
  ret = 0;

out:
  for (i = 0; i < n_shapes; i++)
    g_free (shape_items[i].name);
  g_free (shape_items);
  for (i = 0; i < n_values; i++)
    g_free (value_items[i].name);
  g_free (value_items);
  simnpu__compile_result_clear (&r);
  simnpu__ir_graph_free (g);
  g_ptr_array_unref (o.calibration);
  g_ptr_array_unref (o.validation);
  g_strfreev (labels);
  g_strfreev (rec_in);
  g_strfreev (rec_out);
  g_strfreev (logits);
  g_strfreev (fg);
  g_free (decoder);
  return ret;
}

/* The model's container, loaded as the runtime loads it (the same
 * validation, the memory limits on the planned arenas among it) on a
 * device of the profile it was compiled for: a model the runtime would
 * refuse is never written. */
static int
check_loads (const GByteArray * axm, const char *device, const char *output)
{
  simnpu_error error = { 0 };
  simnpu_device *dev = NULL;
  simnpu_model *model = NULL;

  if (simnpu_device_open (device, &dev, &error) < 0
      || simnpu_model_load_from_memory (dev, axm->data, axm->len, &model,
          &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s not written: the runtime would "
        "refuse the model: %s (%s)\n", output, error.message,
        simnpu_strerror (error.code));
    simnpu_device_close (dev);
    return -1;
  }
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  return 0;
}

/* The memory the model's arenas take, with the memory plan and without
 * it (every tensor apart, as before the plan). */
static void
print_memory (const simnpu__graph * g)
{
  const simnpu__ir_graph *sec[SIMNPU__N_HOST_SECTIONS] = { g->preamble,
    g->postamble
  };
  const char *sec_name[SIMNPU__N_HOST_SECTIONS] = { "preamble", "postamble" };
  size_t planned = 0, flat = 0, host = 0, host_flat = 0;
  GString *parts = g_string_new (NULL);
  unsigned i;

  simnpu__graph_plan_memory (g, &planned, &flat);
  printf ("device arena:   %.3f MB per core (%.3f MB without the memory "
      "plan)\n", planned / 1e6, flat / 1e6);
  for (i = 0; i < SIMNPU__N_HOST_SECTIONS; i++) {
    size_t p = 0, f = 0;
    if (sec[i] == NULL || simnpu__ir_plan_memory (sec[i], &p, &f, NULL) < 0)
      continue;
    host += p;
    host_flat += f;
    g_string_append_printf (parts, "%s%s %.3f MB", parts->len ? ", " : "",
        sec_name[i], p / 1e6);
  }
  if (parts->len > 0)
    printf ("host arena:     %.3f MB (%.3f MB without the memory plan): "
        "%s\n", host / 1e6, host_flat / 1e6, parts->str);
  else
    printf ("host arena:     none (no host sections)\n");
  g_string_free (parts, TRUE);
}

/* The numeric options, whole and in range (GOption's parsers take nan,
 * inf and any int). */
static int
parse_numeric_options (model_args * ma)
{
  int64_t v;

  if (ma->max_frames_arg) {
    if (simnpu_tools_parse_int (TOOL, "--max-frames", ma->max_frames_arg, 1,
            MAX_VIDEO_FRAMES, &v) < 0)
      return -1;
    ma->max_frames = (gint) v;
  }
  if (ma->frame_stride_arg) {
    if (simnpu_tools_parse_int (TOOL, "--frame-stride", ma->frame_stride_arg,
            1, MAX_FRAME_STRIDE, &v) < 0)
      return -1;
    ma->frame_stride = (gint) v;
  }
  if (ma->fallback_share_arg && simnpu_tools_parse_double (TOOL,
          "--fallback-share", ma->fallback_share_arg, 0.0, 1.0,
          &ma->fallback_share) < 0)
    return -1;
  return 0;
}

int
main (int argc, char **argv)
{
  gchar *output = NULL, *device = NULL, *trace = NULL, *debug_dir = NULL;
  gboolean estimate_only = FALSE, profiling = FALSE, quiet = FALSE;
  gchar *name = NULL;
  model_args ma = { 0 };
  GOptionEntry model_entries[] = {
    {"calibration", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &ma.calibration,
          "Calibration images: a folder of JPEG/PNG, one image, or a video "
          "(repeatable)",
        "PATH"},
    {"validation", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &ma.validation,
        "Held-out images for the accuracy report (repeatable)", "PATH"},
    {"preprocess", 0, 0, G_OPTION_ARG_STRING, &ma.preprocess,
          "How pixels become the input: scale=1/255,mean=M[:M:M],"
          "std=S[:S:S],color=rgb|bgr|gray,resize=letterbox|stretch,"
          "fill=114 (default: RGB 0..255 letterboxed)",
        "SPEC"},
    {"input-shape", 0, 0, G_OPTION_ARG_STRING_ARRAY, &ma.input_shape,
          "The shape to compile an input for whose shape the model leaves "
          "open (dynamic dims, unknown rank), e.g. x=1x3x480x640; NAME= "
          "may be left out for a model of one input (repeatable). "
          "Calibration images are resized to it",
        "[NAME=]DIMS"},
    {"input-value", 0, 0, G_OPTION_ARG_STRING_ARRAY, &ma.input_value,
          "Fix an input to a constant, NUMBER in every element, e.g. "
          "downsample_ratio=0.5: of the shape --input-shape gives it, else "
          "the model's, else a scalar; what it decides (a tf.cond on it) "
          "folds to the branch taken (repeatable)",
        "NAME=NUMBER"},
    {"recurrent", 0, 0, G_OPTION_ARG_STRING_ARRAY, &ma.recurrent,
          "A recurrent state: calibration feeds INPUT, image after image, "
          "what the previous image gave OUTPUT (a graph output of its "
          "shape), zeros for the first, as a video would (repeatable). "
          "Every input but the image must be fixed by --input-value or "
          "paired so",
        "INPUT=OUTPUT"},
    {"outputs", 0, 0, G_OPTION_ARG_STRING, &ma.outputs,
        "Cut the model at these tensors (comma-separated)", "NAMES"},
    {"inputs", 0, 0, G_OPTION_ARG_STRING, &ma.inputs,
        "Start the model at these tensors (comma-separated)", "NAMES"},
    {"labels", 0, 0, G_OPTION_ARG_FILENAME, &ma.labels,
        "Class labels, one per line", "FILE"},
    {"decoder", 0, 0, G_OPTION_ARG_FILENAME, &ma.decoder,
          "Decoder type and parameters (a JSON object) stored in the model",
        "FILE"},
    {"logit-outputs", 0, 0, G_OPTION_ARG_STRING, &ma.logit_outputs,
        "Outputs holding logits that the decoder passes through a sigmoid "
          "(their range is floored)", "NAMES"},
    {"foreground", 0, 0, G_OPTION_ARG_STRING, &ma.foreground,
          "Report SQNR over the positions where OUTPUT (float) exceeds "
          "THRESHOLD, after a sigmoid with :logit",
        "OUTPUTS:THRESHOLD[:logit]"},
    {"technique", 0, 0, G_OPTION_ARG_STRING, &ma.technique,
          "Accuracy techniques: equalization, bias-correction, "
          "host-fallback, measured-ranges (default: these four), "
          "mse-ranges, or none",
        "LIST"},
    {"fallback-share", 0, 0, G_OPTION_ARG_STRING, &ma.fallback_share_arg,
        "Share of the model's MACs (0 to 1) host fallback may move to "
          "the host (default 0.1)", "SHARE"},
    {"output-dtype", 0, 0, G_OPTION_ARG_STRING, &ma.output_dtype,
        "Dtype of the model's outputs, device and postamble (host "
          "fallback) alike: f32 (default) or i8", "DTYPE"},
    {"max-frames", 0, 0, G_OPTION_ARG_STRING, &ma.max_frames_arg,
        "Frames taken from a video, 1 to 100000 (default 16)", "N"},
    {"frame-stride", 0, 0, G_OPTION_ARG_STRING, &ma.frame_stride_arg,
        "Take every Nth frame of a video, 1 to 100000 (default 25)", "N"},
    {"quantize-only", 0, 0, G_OPTION_ARG_NONE, &ma.quantize_only,
        "Stop after the accuracy report; write nothing", NULL},
    {"name", 0, 0, G_OPTION_ARG_STRING, &name,
        "Model name (default: the source's)", "NAME"},
    {NULL}
  };
  GOptionEntry entries[] = {
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
        "Write the compiled model to FILE (.axm)", "FILE"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
          "Device profile, e.g. metis, torq, metis:cores=2 (default metis)",
        "PROFILE"},
    {"estimate-only", 0, 0, G_OPTION_ARG_NONE, &estimate_only,
        "Shape-only graph: compile for estimates, without weights", NULL},
    {"enable-profiling", 0, 0, G_OPTION_ARG_NONE, &profiling,
        "Write the compile-time trace (timeline.csv unless "
          "--dump-profiling is given)", NULL},
    {"dump-profiling", 0, 0, G_OPTION_ARG_FILENAME, &trace,
        "Compile-time trace CSV (ID, Start, End, Location, Op Type)", "FILE"},
    {"debug-info", 0, 0, G_OPTION_ARG_FILENAME, &debug_dir,
        "Write debug information for simnpu-annotate into DIR", "DIR"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing on success",
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("SRC - compile a model "
      "for the simulated NPU");
  GOptionGroup *group;
  simnpu__model_format kind;
  GError *err = NULL;
  simnpu_error error = { 0 };
  simnpu__profile profile;
  simnpu__schedule schedule = { 0 };
  simnpu__graph *g = NULL;
  GByteArray *axm = NULL;
  io_files io = { 0 };
  gchar *debug_files[2] = { NULL, NULL };
  int status = EXIT_FAILURE;
  unsigned i;

  g_option_context_set_summary (ctx, "SRC is our JSON graph (int8, "
      "compiled as is), an ONNX model (.onnx) or a TF.js graph model "
      "(model.json beside its .bin shards), which is calibrated on images, "
      "quantised to int8 and split into device and host sections.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  group = g_option_group_new ("model", "Importing trained float models "
      "(ONNX opsets 7 to 21, TF.js graph models):",
      "Options for ONNX and TF.js models", NULL, NULL);
  g_option_group_add_entries (group, model_entries);
  g_option_context_add_group (ctx, group);
  ma.max_frames = 16;
  ma.fallback_share = -1.0;
  ma.frame_stride = 25;
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "simnpu-compile: %s\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  if (argc != 2 || (output == NULL && !ma.quantize_only)) {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);
    fprintf (stderr, "simnpu-compile: expected one SRC and -o "
        "MODEL.axm\n\n%s", help);
    g_free (help);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (profiling && trace == NULL)
    trace = g_strdup ("timeline.csv");

  io.inputs = g_ptr_array_new_with_free_func (g_free);
  add_input (&io, argv[1]);
  add_input (&io, ma.labels);
  add_input (&io, ma.decoder);
  for (i = 0; ma.calibration && ma.calibration[i]; i++)
    add_input (&io, ma.calibration[i]);
  for (i = 0; ma.validation && ma.validation[i]; i++)
    add_input (&io, ma.validation[i]);
  if (output)
    add_output (&io, "-o", output);
  if (trace)
    add_output (&io, "--dump-profiling", trace);
  if (debug_dir) {
    debug_files[0] = g_build_filename (debug_dir, "device.txt", NULL);
    debug_files[1] = g_build_filename (debug_dir, "actions.csv", NULL);
    add_output (&io, "--debug-info", debug_files[0]);
    add_output (&io, "--debug-info", debug_files[1]);
  }
  if (check_outputs (&io) < 0) {
    status = EXIT_USAGE;
    goto out;
  }

  if (parse_numeric_options (&ma) < 0) {
    status = EXIT_USAGE;
    goto out;
  }
  kind = simnpu__model_format_of (argv[1]);
  if (simnpu__profile_parse (device ? device : "metis", &profile, &error) < 0) {
    fprintf (stderr, "simnpu-compile: --device: %s\n", error.message);
    status = EXIT_USAGE;
    goto out;
  }
  if (kind == SIMNPU_MODEL_FORMAT_ONNX || kind == SIMNPU_MODEL_FORMAT_TFJS) {
    if (estimate_only) {
      fprintf (stderr, "simnpu-compile: --estimate-only applies to JSON "
          "graphs; a trained model is always compiled with its weights\n");
      status = EXIT_USAGE;
      goto out;
    }
    if (compile_model (argv[1], &ma, name, device, quiet, &io, &g) < 0)
      goto out;
    if (ma.quantize_only) {
      status = EXIT_SUCCESS;
      goto out;
    }
  } else if (simnpu__graph_load_json_file (argv[1], estimate_only, &g,
          &error) < 0 || simnpu__graph_prepare (g, &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s: %s (%s)\n", argv[1],
        error.message, simnpu_strerror (error.code));
    goto out;
  } else if (check_model_files (&io, g->model_files) < 0) {
    goto out;
  }
  if (simnpu__schedule_build (g, &profile, &schedule, &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s: %s (%s)\n", argv[1],
        error.message, simnpu_strerror (error.code));
    goto out;
  }
  if (g->estimate_only) {
    /* a shape-only container carries no weights */
    for (i = 0; i < g->n_tensors; i++) {
      g_clear_pointer (&g->tensors[i].data, g_free);
      g->tensors[i].data_bytes = 0;
    }
  }
  axm = simnpu__axm_serialize (g, &schedule);
  if (check_loads (axm, device ? device : "metis", output) < 0)
    goto out;
  if (simnpu__axm_write_data (axm->data, axm->len, output, &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s\n", error.message);
    goto out;
  }
  if (trace
      && simnpu_compile_write_trace (trace, argv[1], g, &schedule,
          &profile) < 0) {
    fprintf (stderr, "simnpu-compile: cannot write '%s'\n", trace);
    goto out;
  }
  if (debug_dir && simnpu_compile_write_debug_info (debug_dir,
          argv[1], g, &schedule, &profile) < 0) {
    fprintf (stderr, "simnpu-compile: cannot write debug info to '%s'\n",
        debug_dir);
    goto out;
  }
  if (!quiet) {
    double us = schedule.device_ns / 1000.0;
    printf ("model:          %s%s\n", g->name,
        g->estimate_only ? " (estimate only)" : "");
    printf ("device:         %s\n", schedule.spec);
    printf ("ops:            %u (%u actions)\n", g->n_ops, schedule.n_actions);
    printf ("MACs per job:   %.3f M\n", g->total_macs / 1e6);
    printf ("weights:        %.3f MB\n", g->weight_bytes / 1e6);
    print_memory (g);
    printf ("device time:    %.1f us per job (%.1f jobs/s per core, "
        "up to %.1f jobs/s on %u cores)\n", us, 1e6 / us,
        profile.cores * 1e6 / us, profile.cores);
    printf ("                (the job's setup, %.1f us, then DMA in, compute "
        "and DMA out: the report's device_ms on an idle device)\n",
        profile.job_overhead_ns / 1000.0);
    printf ("written:        %s\n", output);
  }
  status = EXIT_SUCCESS;

out:
  if (io.inputs)
    g_ptr_array_unref (io.inputs);
  g_free (debug_files[0]);
  g_free (debug_files[1]);
  if (axm)
    g_byte_array_free (axm, TRUE);
  simnpu__schedule_clear (&schedule);
  simnpu__graph_free (g);
  g_free (output);
  g_free (device);
  g_free (trace);
  g_free (debug_dir);
  g_free (name);
  g_strfreev (ma.calibration);
  g_strfreev (ma.validation);
  g_free (ma.preprocess);
  g_free (ma.outputs);
  g_free (ma.inputs);
  g_free (ma.labels);
  g_free (ma.decoder);
  g_free (ma.logit_outputs);
  g_free (ma.foreground);
  g_free (ma.technique);
  g_free (ma.output_dtype);
  g_strfreev (ma.input_shape);
  g_strfreev (ma.input_value);
  g_strfreev (ma.recurrent);
  g_free (ma.fallback_share_arg);
  g_free (ma.max_frames_arg);
  g_free (ma.frame_stride_arg);
  return status;
}
