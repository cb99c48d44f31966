/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The shipped real models (compiled by the build from the TF.js graph
 * models of @vladmandic/human, see models/meson.build) against their float
 * reference, on held-out images and video frames:
 * - the float executor against TensorFlow.js itself (the oracle: a
 *   different runtime, so wrong padding, layout or activation conventions
 *   show), within 1e-3 of each output's largest magnitude;
 * - the int8 device model (run through the public runtime, as
 *   axinference does) against the float executor, decoded with plain
 *   reference decoders written here: BlazeFace faces, CenterNet objects,
 *   emotion classes.
 * Skips when the data dir (GST_AX_DATA_DIR) is absent. */

#include "compiler.h"
#include "imageset.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define JOB_TIMEOUT_NS (G_GINT64_CONSTANT (60) * 1000000000)
#define ORACLE_TOLERANCE 1e-3
#define FACE_SCORE 0.5f
#define FACE_NMS_IOU 0.3f
#define FACE_MATCH_IOU 0.8f
#define FACE_EXTRA_IOU 0.5f
#define OBJECT_SCORE 0.4f
/* int8 candidates considered when matching float objects */
#define OBJECT_CANDIDATE_SCORE 0.3f
#define OBJECT_NMS_IOU 0.5f
#define OBJECT_MATCH_IOU 0.5f
#define OBJECT_MATCH_SHARE 0.9
#define CENTERNET_STRIDE 4
#define CENTERNET_TOP_K 100
#define EMOTION_MARGIN 0.1f
#define EMOTION_AGREEMENT 0.9
/* held-out video frames: the calibration takes frames 0, 25, ... 375 */
#define VIDEO_STRIDE 25
#define VIDEO_SKIP 16
#define VIDEO_FRAMES 32

typedef struct
{
  float x1, y1, x2, y2, score;
  int label;
} box;

static const char *
data_dir (void)
{
  return g_getenv ("GST_AX_DATA_DIR");
}

static gchar *
model_source (const char *name)
{
  return g_build_filename (data_dir (), "human", name, NULL);
}

static gchar *
compiled_model (const char *name)
{
  const char *dir = g_getenv ("GST_AX_MODEL_PATH");
  return g_build_filename (dir ? dir : ".", name, NULL);
}

static bool
have_data (void)
{
  gchar *p;
  bool ok;

  if (data_dir () == NULL) {
    g_test_skip ("GST_AX_DATA_DIR is not set (run scripts/fetch-data.sh)");
    return false;
  }
  p = model_source ("blazeface.json");
  ok = g_file_test (p, G_FILE_TEST_EXISTS);
  g_free (p);
  if (!ok)
    g_test_skip ("the real models are not in GST_AX_DATA_DIR");
  return ok;
}

static GPtrArray *
load_images (const char *rel, unsigned max_frames, unsigned stride)
{
  GPtrArray *images = g_ptr_array_new_with_free_func ((GDestroyNotify)
      simnpu_image_free);
  gchar *path = g_build_filename (data_dir (), rel, NULL);
  GError *err = NULL;

  if (simnpu_imageset_load (path, max_frames, stride, images, &err) < 0)
    g_error ("%s: %s", path, err->message);
  g_free (path);
  return images;
}

/* ------------------------------------------------------------------ */
/* One model: its float graph and executor, its int8 compiled model */

typedef struct
{
  simnpu__ir_graph *g;
  simnpu__ir_exec *x;
  simnpu_device *dev;
  simnpu_model *m;
  simnpu__preprocess pp;
  unsigned w, h, ch;
  uint8_t *pixels;              /* the u8 image both paths see */
  float *input;
} model;

static void
model_open (model * md, const char *source, const char *outputs,
    const char *axm, const simnpu__preprocess * pp)
{
  gchar *src = model_source (source), *path = compiled_model (axm);
  simnpu_error error = { 0 };
  const simnpu__ir_tensor *in;

  memset (md, 0, sizeof (*md));
  g_assert_cmpint (simnpu__import_model (src, NULL, outputs, &md->g,
          &error), ==, 0);
  md->x = simnpu__ir_exec_new (md->g, &error);
  g_assert_nonnull (md->x);
  in = &md->g->tensors[md->g->inputs[0]];
  g_assert_cmpuint (in->rank, ==, 4);
  md->h = (unsigned) in->dims[1];
  md->w = (unsigned) in->dims[2];
  md->ch = (unsigned) in->dims[3];
  md->pp = *pp;
  md->pixels = g_malloc ((size_t) md->w * md->h * md->ch);
  md->input = g_new (float, (size_t) md->w * md->h * md->ch);
  if (axm) {
    g_assert_cmpint (simnpu_device_open ("metis", &md->dev, &error), ==, 0);
    g_assert_cmpint (simnpu_device_set_time_scale (md->dev, 0.0), ==, 0);
    if (simnpu_model_load (md->dev, path, &md->m, &error) != 0)
      g_error ("%s: %s", path, error.message);
  }
  g_free (src);
  g_free (path);
}

static void
model_close (model * md)
{
  if (md->m)
    simnpu_model_unload (md->m);
  if (md->dev)
    simnpu_device_close (md->dev);
  simnpu__ir_exec_free (md->x);
  simnpu__ir_graph_free (md->g);
  g_free (md->pixels);
  g_free (md->input);
}

/* The image as u8 pixels (letterboxed or stretched, rounded), then the
 * float input computed from those same pixels. */
static void
model_set_image (model * md, const simnpu_image * img, float *scale,
    int *pad_x, int *pad_y)
{
  simnpu__preprocess raw = md->pp;
  size_t n = (size_t) md->w * md->h * md->ch, i;
  unsigned c;

  raw.scale = 1.0f;
  for (c = 0; c < 3; c++) {
    raw.mean[c] = 0.0f;
    raw.std[c] = 1.0f;
  }
  g_assert_cmpint (simnpu_image_to_tensor (img, &raw, md->w, md->h, md->ch,
          md->input, scale, pad_x, pad_y), ==, 0);
  for (i = 0; i < n; i++) {
    float p = roundf (md->input[i]);
    md->pixels[i] = (uint8_t) CLAMP (p, 0.0f, 255.0f);
  }
  for (i = 0; i < n; i++) {
    c = (unsigned) (i % md->ch);
    md->input[i] = ((float) md->pixels[i] * md->pp.scale - md->pp.mean[c]) /
        md->pp.std[c];
  }
}

static void
model_run_float (model * md)
{
  simnpu_error error = { 0 };

  memcpy (simnpu__ir_exec_data (md->x, md->g->inputs[0]), md->input,
      (size_t) md->w * md->h * md->ch * sizeof (float));
  g_assert_cmpint (simnpu__ir_exec_run (md->x, 0, md->g->n_nodes, &error),
      ==, 0);
}

static const float *
float_output (model * md, const char *name)
{
  int t = simnpu__ir_find_tensor (md->g, name);
  g_assert_cmpint (t, >=, 0);
  return simnpu__ir_exec_data (md->x, t);
}

/* a float buffer off by this many bytes is not aligned for floats */
#define MISALIGN 1

/* The postamble reads and writes float buffers in place; with buffers not
 * aligned for floats it copies them in and out instead: the outputs must
 * be the same bytes. */
static void
postamble_copied_same (simnpu_host_section * post,
    const simnpu_host_section_info * pi, const void *const *pin,
    void *const *pbufs)
{
  guint8 *in_off[SIMNPU_MAX_IO * 2], *out_off[SIMNPU_MAX_IO * 2];
  const void *cin[SIMNPU_MAX_IO * 2];
  void *cout[SIMNPU_MAX_IO * 2];
  simnpu_tensor_spec spec;
  simnpu_error error = { 0 };
  unsigned i;

  for (i = 0; i < pi->n_inputs; i++) {
    g_assert_cmpint (simnpu_host_section_get_input (post, i, &spec, NULL),
        ==, 0);
    in_off[i] = g_malloc (spec.size_bytes + MISALIGN);
    memcpy (in_off[i] + MISALIGN, pin[i], spec.size_bytes);
    cin[i] = in_off[i] + MISALIGN;
  }
  for (i = 0; i < pi->n_outputs; i++) {
    g_assert_cmpint (simnpu_host_section_get_output (post, i, &spec, NULL),
        ==, 0);
    out_off[i] = g_malloc0 (spec.size_bytes + MISALIGN);
    cout[i] = out_off[i] + MISALIGN;
  }
  if (simnpu_host_section_run (post, cin, cout, &error) != 0)
    g_error ("postamble (copied): %s", error.message);
  for (i = 0; i < pi->n_outputs; i++) {
    g_assert_cmpint (simnpu_host_section_get_output (post, i, &spec, NULL),
        ==, 0);
    g_assert_cmpmem (cout[i], spec.size_bytes, pbufs[i], spec.size_bytes);
    g_free (out_off[i]);
  }
  for (i = 0; i < pi->n_inputs; i++)
    g_free (in_off[i]);
}

/* A public output as float: f32 as it is, u8 / i8 (a model compiled with
 * quantised outputs) dequantised as a decoder would. */
static float *
output_to_float (const simnpu_tensor_spec * spec, const void *data)
{
  size_t n = spec->size_bytes / simnpu_dtype_size (spec->dtype), j;
  float *f;

  if (spec->dtype == SIMNPU_DTYPE_F32)
    return g_memdup2 (data, spec->size_bytes);
  g_assert_true (spec->dtype == SIMNPU_DTYPE_U8
      || spec->dtype == SIMNPU_DTYPE_I8);
  g_assert_cmpfloat (spec->scale, >, 0.0f);
  f = g_new (float, n);
  for (j = 0; j < n; j++) {
    int q = spec->dtype == SIMNPU_DTYPE_U8 ? ((const uint8_t *) data)[j] :
        ((const int8_t *) data)[j];
    f[j] = spec->scale * (float) (q - spec->zero_point);
  }
  return f;
}

/* Runs the int8 model on the pixels as an application would: the
 * preamble on the host when the model has one (on the float input, which
 * is what its public input takes), the device job, then the postamble on
 * the host when the model has one; out[k]
 * receives the public output named names[k] as float (dequantised when
 * the model's outputs are quantised). */
static void
model_run_int8 (model * md, float **out, const char *const *names,
    unsigned n_names)
{
  simnpu_model_info info;
  simnpu_input_buffer in[SIMNPU_MAX_IO];
  void *ibufs[SIMNPU_MAX_IO] = { 0 };
  unsigned n_in = 1;
  simnpu_host_section *pre;
  simnpu_output_buffer douts[SIMNPU_MAX_IO];
  void *dbufs[SIMNPU_MAX_IO] = { 0 };
  void *pbufs[SIMNPU_MAX_IO] = { 0 };
  unsigned n_dout = 0, n_pout = 0;
  simnpu_host_section *post;
  simnpu_tensor_spec spec;
  simnpu_binding bind;
  simnpu_error error = { 0 };
  simnpu_job *job = NULL;
  unsigned i, k;

  g_assert_cmpint (simnpu_model_get_info (md->m, &info), ==, 0);
  memset (in, 0, sizeof (in));
  pre = simnpu_model_get_host_section (md->m, SIMNPU_SECTION_PREAMBLE);
  if (pre) {
    simnpu_host_section_info hi;
    const void *pin[1] = { md->input };
    unsigned bound;
    g_assert_cmpint (simnpu_host_section_get_info (pre, &hi), ==, 0);
    g_assert_cmpuint (hi.n_inputs, ==, 1);
    g_assert_cmpint (simnpu_host_section_get_input (pre, 0, &spec, &bound),
        ==, 0);
    g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_F32);
    g_assert_cmpuint (spec.size_bytes, ==,
        (size_t) md->w * md->h * md->ch * sizeof (float));
    n_in = hi.n_outputs;
    for (i = 0; i < hi.n_outputs; i++) {
      g_assert_cmpint (simnpu_host_section_get_output (pre, i, &spec,
              &bound), ==, 0);
      g_assert_cmpuint (bound, ==, i);
      ibufs[i] = g_malloc (spec.size_bytes);
      in[i].data = ibufs[i];
      in[i].size_bytes = spec.size_bytes;
    }
    if (simnpu_host_section_run (pre, pin, ibufs, &error) != 0)
      g_error ("preamble: %s", error.message);
  } else {
    g_assert_cmpint (simnpu_model_get_device_input (md->m, 0, &spec), ==, 0);
    g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_U8);
    g_assert_cmpuint (spec.size_bytes, ==, (size_t) md->w * md->h * md->ch);
    in[0].data = md->pixels;
    in[0].size_bytes = spec.size_bytes;
  }
  while (simnpu_model_get_device_output (md->m, n_dout, &spec) == 0) {
    dbufs[n_dout] = g_malloc (spec.size_bytes);
    douts[n_dout].data = dbufs[n_dout];
    douts[n_dout].size_bytes = spec.size_bytes;
    n_dout++;
  }
  g_assert_cmpint (simnpu_job_submit (md->m, in, n_in, douts, n_dout, NULL,
          NULL, &job, &error), ==, 0);
  g_assert_cmpint (simnpu_job_wait (job, JOB_TIMEOUT_NS, NULL), ==, 0);
  simnpu_job_free (job);
  post = simnpu_model_get_host_section (md->m, SIMNPU_SECTION_POSTAMBLE);
  if (post) {
    simnpu_host_section_info pi;
    const void *pin[SIMNPU_MAX_IO * 2];
    unsigned bound;
    g_assert_cmpint (simnpu_host_section_get_info (post, &pi), ==, 0);
    for (i = 0; i < pi.n_inputs; i++) {
      g_assert_cmpint (simnpu_host_section_get_input (post, i, &spec,
              &bound), ==, 0);
      g_assert_cmpuint (bound, <, n_dout);
      pin[i] = dbufs[bound];
    }
    for (i = 0; i < pi.n_outputs; i++) {
      g_assert_cmpint (simnpu_host_section_get_output (post, i, &spec,
              &bound), ==, 0);
      pbufs[i] = g_malloc (spec.size_bytes);
    }
    n_pout = pi.n_outputs;
    if (simnpu_host_section_run (post, pin, pbufs, &error) != 0)
      g_error ("postamble: %s", error.message);
    postamble_copied_same (post, &pi, pin, pbufs);
  }
  for (k = 0; k < n_names; k++) {
    out[k] = NULL;
    for (i = 0; i < info.n_outputs && out[k] == NULL; i++) {
      void **slot;
      g_assert_cmpint (simnpu_model_get_output (md->m, i, &spec), ==, 0);
      if (strcmp (spec.name, names[k]) != 0)
        continue;
      g_assert_cmpint (simnpu_model_get_output_binding (md->m, i, &bind),
          ==, 0);
      slot = bind.section == SIMNPU_SECTION_DEVICE ? &dbufs[bind.index] :
          &pbufs[bind.index];
      out[k] = output_to_float (&spec, *slot);
    }
    if (out[k] == NULL)
      g_error ("the compiled model has no output '%s'", names[k]);
  }
  for (i = 0; i < n_dout; i++)
    g_free (dbufs[i]);
  for (i = 0; i < n_pout; i++)
    g_free (pbufs[i]);
  for (i = 0; i < SIMNPU_MAX_IO; i++)
    g_free (ibufs[i]);
}

/* ------------------------------------------------------------------ */
/* Reference decoders */

static float
sigmoid (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

static float
iou (const box * a, const box * b)
{
  float ix = MIN (a->x2, b->x2) - MAX (a->x1, b->x1);
  float iy = MIN (a->y2, b->y2) - MAX (a->y1, b->y1);
  float inter, ua;

  if (ix <= 0.0f || iy <= 0.0f)
    return 0.0f;
  inter = ix * iy;
  ua = (a->x2 - a->x1) * (a->y2 - a->y1) + (b->x2 - b->x1) * (b->y2 - b->y1)
      - inter;
  return ua > 0.0f ? inter / ua : 0.0f;
}

static gint
by_score (gconstpointer a, gconstpointer b)
{
  const box *x = a, *y = b;
  return (x->score < y->score) - (x->score > y->score);
}

/* greedy NMS, per label when by_label */
static GArray *
nms (GArray * cands, float thr, bool by_label)
{
  GArray *keep = g_array_new (FALSE, FALSE, sizeof (box));
  unsigned i, j;

  g_array_sort (cands, by_score);
  for (i = 0; i < cands->len; i++) {
    const box *b = &g_array_index (cands, box, i);
    bool ok = true;
    for (j = 0; j < keep->len && ok; j++) {
      const box *k = &g_array_index (keep, box, j);
      if ((!by_label || k->label == b->label) && iou (k, b) > thr)
        ok = false;
    }
    if (ok)
      g_array_append_val (keep, *b);
  }
  g_array_free (cands, TRUE);
  return keep;
}

/* BlazeFace (256x256): 16x16 cells of 2 anchors then 8x8 cells of 6, the
 * anchor at the cell centre; regressors hold the box centre offset and
 * size in input pixels. */
static const int face_strides[2] = { 16, 32 };
static const int face_per_cell[2] = { 2, 6 };

static GArray *
decode_faces (const float *const *scores, const float *const *regs,
    unsigned input_size)
{
  GArray *c = g_array_new (FALSE, FALSE, sizeof (box));
  unsigned level;

  for (level = 0; level < 2; level++) {
    int grid = (int) input_size / face_strides[level], y, x, k, a = 0;
    for (y = 0; y < grid; y++)
      for (x = 0; x < grid; x++)
        for (k = 0; k < face_per_cell[level]; k++, a++) {
          const float *r = regs[level] + (size_t) a * 16;
          float ax = face_strides[level] * (x + 0.5f);
          float ay = face_strides[level] * (y + 0.5f);
          box b;
          b.score = sigmoid (scores[level][a]);
          if (b.score <= FACE_SCORE)
            continue;
          b.x1 = ax + r[0] - r[2] / 2;
          b.y1 = ay + r[1] - r[3] / 2;
          b.x2 = ax + r[0] + r[2] / 2;
          b.y2 = ay + r[1] + r[3] / 2;
          b.label = 0;
          g_array_append_val (c, b);
        }
  }
  return nms (c, FACE_NMS_IOU, false);
}

/* CenterNet: peaks of the 128x128x80 heat-map (3x3 maximum), the top 100,
 * box edges at the given distances from the cell's point (stride 4). */
static GArray *
decode_objects (const float *heat, const float *wh, int hh, int ww, int nc,
    float min_score)
{
  GArray *c = g_array_new (FALSE, FALSE, sizeof (box));
  int y, x, k;

  for (y = 0; y < hh; y++)
    for (x = 0; x < ww; x++)
      for (k = 0; k < nc; k++) {
        float v = heat[((size_t) y * ww + x) * nc + k];
        bool peak = v >= min_score;
        int dy, dx;
        for (dy = -1; dy <= 1 && peak; dy++)
          for (dx = -1; dx <= 1 && peak; dx++) {
            int yy = y + dy, xx = x + dx;
            if (yy < 0 || xx < 0 || yy >= hh || xx >= ww)
              continue;
            if (heat[((size_t) yy * ww + xx) * nc + k] > v)
              peak = false;
          }
        if (peak) {
          const float *d = wh + ((size_t) y * ww + x) * 4;
          box b;
          b.x1 = CENTERNET_STRIDE * x - d[0];
          b.y1 = CENTERNET_STRIDE * y - d[1];
          b.x2 = CENTERNET_STRIDE * x + d[2];
          b.y2 = CENTERNET_STRIDE * y + d[3];
          b.score = v;
          b.label = k;
          g_array_append_val (c, b);
        }
      }
  g_array_sort (c, by_score);
  if (c->len > CENTERNET_TOP_K)
    g_array_set_size (c, CENTERNET_TOP_K);
  return nms (c, OBJECT_NMS_IOU, true);
}

/* ------------------------------------------------------------------ */
/* The oracle: TensorFlow.js on the same input */

static float **
run_oracle (const char *source, const float *input, size_t n_input,
    const char *outputs, unsigned n_outputs, size_t *sizes)
{
  gchar *dir = g_dir_make_tmp ("gst-ax-oracle-XXXXXX", NULL);
  gchar *in_path = g_build_filename (dir, "input.f32", NULL);
  gchar *src = model_source (source);
  const char *script = g_getenv ("GST_AX_ORACLE_SCRIPT");
  gchar *argv[10];
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *gerr = NULL;
  float **res = g_new0 (float *, n_outputs);
  unsigned i;

  g_assert_nonnull (script);
  g_assert_true (g_file_set_contents (in_path, (const gchar *) input,
          (gssize) (n_input * sizeof (float)), NULL));
  argv[0] = (gchar *) "node";
  argv[1] = (gchar *) script;
  argv[2] = src;
  argv[3] = in_path;
  argv[4] = dir;
  argv[5] = (gchar *) "--outputs";
  argv[6] = (gchar *) outputs;
  argv[7] = NULL;
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
          &err, &status, &gerr))
    g_error ("node: %s", gerr->message);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("the TF.js oracle failed: %s", err);
  for (i = 0; i < n_outputs; i++) {
    gchar *name = g_strdup_printf ("%u.f32", i);
    gchar *path = g_build_filename (dir, name, NULL);
    gchar *data = NULL;
    gsize len = 0;
    g_assert_true (g_file_get_contents (path, &data, &len, NULL));
    sizes[i] = len / sizeof (float);
    res[i] = (float *) data;
    g_unlink (path);
    g_free (path);
    g_free (name);
  }
  {
    gchar *json = g_build_filename (dir, "outputs.json", NULL);
    g_unlink (json);
    g_free (json);
  }
  g_unlink (in_path);
  g_rmdir (dir);
  g_free (in_path);
  g_free (dir);
  g_free (src);
  g_free (out);
  g_free (err);
  return res;
}

/* The float executor's output against TF.js: the largest difference
 * relative to the output's largest magnitude. */
static void
check_oracle_image (const char *source, const char *outputs_ir,
    const char *outputs_tf, const simnpu__preprocess * pp,
    const simnpu_image * image)
{
  gchar **names = g_strsplit (outputs_ir, ",", -1);
  unsigned n = g_strv_length (names), i;
  size_t sizes[8];
  model md;
  float **ref;
  float s;
  int px, py;

  if (g_getenv ("GST_AX_ORACLE_SCRIPT") == NULL) {
    g_test_skip ("GST_AX_ORACLE_SCRIPT is not set");
    g_strfreev (names);
    return;
  }
  model_open (&md, source, outputs_ir, NULL, pp);
  model_set_image (&md, image, &s, &px, &py);
  model_run_float (&md);
  ref = run_oracle (source, md.input, (size_t) md.w * md.h * md.ch,
      outputs_tf, n, sizes);
  for (i = 0; i < n; i++) {
    int t = simnpu__ir_find_tensor (md.g, names[i]);
    const float *v = float_output (&md, names[i]);
    size_t k, count = (size_t) simnpu__ir_tensor_elements (&md.g->tensors[t]);
    double amax = 0.0, dmax = 0.0;
    g_assert_cmpuint (sizes[i], ==, count);
    for (k = 0; k < count; k++) {
      amax = MAX (amax, fabs (ref[i][k]));
      dmax = MAX (dmax, fabs ((double) v[k] - ref[i][k]));
    }
    g_test_message ("%s %s: max |float - tfjs| = %.3g, max |tfjs| = %.3g, "
        "ratio %.3g", source, names[i], dmax, amax, dmax / amax);
    g_assert_cmpfloat (amax, >, 0.0);
    g_assert_cmpfloat (dmax / amax, <=, ORACLE_TOLERANCE);
    g_free (ref[i]);
  }
  g_free (ref);
  model_close (&md);
  g_strfreev (names);
}

static void
check_oracle (const char *source, const char *outputs_ir,
    const char *outputs_tf, const simnpu__preprocess * pp, const char *image)
{
  GPtrArray *images;

  if (!have_data ())
    return;
  images = load_images (image, 1, 1);
  check_oracle_image (source, outputs_ir, outputs_tf, pp, images->pdata[0]);
  g_ptr_array_unref (images);
}

/* ------------------------------------------------------------------ */
/* Preprocessing of each shipped model (as models/meson.build compiles
 * them) */

static void
pp_blazeface (simnpu__preprocess * pp)
{
  unsigned c;
  pp->color = SIMNPU_COLOR_RGB;
  pp->resize = SIMNPU_RESIZE_LETTERBOX;
  pp->fill = 0;
  pp->scale = 1.0f / 127.5f;
  for (c = 0; c < 3; c++) {
    pp->mean[c] = 1.0f;
    pp->std[c] = 1.0f;
  }
}

static void
pp_emotion (simnpu__preprocess * pp)
{
  unsigned c;
  pp->color = SIMNPU_COLOR_GRAY;
  pp->resize = SIMNPU_RESIZE_STRETCH;
  pp->fill = 0;
  pp->scale = 1.0f / 255.0f;
  for (c = 0; c < 3; c++) {
    pp->mean[c] = 0.5f;
    pp->std[c] = 0.5f;
  }
}

static void
pp_centernet (simnpu__preprocess * pp)
{
  unsigned c;
  pp->color = SIMNPU_COLOR_RGB;
  pp->resize = SIMNPU_RESIZE_STRETCH;
  pp->fill = 114;
  pp->scale = 1.0f;
  for (c = 0; c < 3; c++) {
    pp->mean[c] = 0.0f;
    pp->std[c] = 1.0f;
  }
}

#define FACE_OUTPUTS "Identity,Identity_1,Identity_2,Identity_3"
#define OBJECT_OUTPUTS "tower_0/keypoints,tower_0/wh"

static void
test_oracle_blazeface (void)
{
  simnpu__preprocess pp;
  pp_blazeface (&pp);
  check_oracle ("blazeface.json", FACE_OUTPUTS, FACE_OUTPUTS, &pp,
      "face-api/sample5.jpg");
}

static void
test_oracle_emotion (void)
{
  simnpu__preprocess pp;
  pp_emotion (&pp);
  check_oracle ("emotion.json", "Identity", "Identity", &pp,
      "face-api/sample6.jpg");
}

static void
test_oracle_centernet (void)
{
  simnpu__preprocess pp;
  pp_centernet (&pp);
  check_oracle ("centernet.json", OBJECT_OUTPUTS, OBJECT_OUTPUTS, &pp,
      "face-api/sample6.jpg");
}

/* ------------------------------------------------------------------ */
/* int8 against float */

static const char *const face_names[4] = { "Identity", "Identity_1",
  "Identity_2", "Identity_3"
};

/* The float and int8 faces of one image, in model input pixels. */
static void
faces_of (model * md, const simnpu_image * img, GArray ** ffaces,
    GArray ** qfaces, float *scale, int *px, int *py)
{
  const float *fs[2], *fr[2];
  float *q[4];
  unsigned i;

  model_set_image (md, img, scale, px, py);
  model_run_float (md);
  for (i = 0; i < 2; i++) {
    fs[i] = float_output (md, face_names[i]);
    fr[i] = float_output (md, face_names[2 + i]);
  }
  *ffaces = decode_faces (fs, fr, md->w);
  model_run_int8 (md, q, face_names, 4);
  {
    const float *qs[2] = { q[0], q[1] }, *qr[2] = { q[2], q[3] };
    *qfaces = decode_faces (qs, qr, md->w);
  }
  for (i = 0; i < 4; i++)
    g_free (q[i]);
}

static void
test_blazeface (void)
{
  GPtrArray *images;
  simnpu__preprocess pp;
  model md;
  unsigned i, j, total = 0;

  if (!have_data ())
    return;
  pp_blazeface (&pp);
  images = g_ptr_array_new_with_free_func ((GDestroyNotify)
      simnpu_image_free);
  {
    GPtrArray *a = load_images ("face-api/sample5.jpg", 1, 1);
    GPtrArray *b = load_images ("face-api/sample6.jpg", 1, 1);
    g_ptr_array_add (images, g_ptr_array_steal_index (a, 0));
    g_ptr_array_add (images, g_ptr_array_steal_index (b, 0));
    g_ptr_array_unref (a);
    g_ptr_array_unref (b);
  }
  model_open (&md, "blazeface.json", FACE_OUTPUTS, "blazeface.axm", &pp);
  for (i = 0; i < images->len; i++) {
    const simnpu_image *img = images->pdata[i];
    GArray *f, *q;
    float s;
    int px, py;
    faces_of (&md, img, &f, &q, &s, &px, &py);
    g_test_message ("%s: %u faces in float, %u in int8", img->source, f->len,
        q->len);
    for (j = 0; j < f->len; j++) {
      const box *fb = &g_array_index (f, box, j);
      float best = 0.0f;
      unsigned k;
      for (k = 0; k < q->len; k++)
        best = MAX (best, iou (fb, &g_array_index (q, box, k)));
      g_test_message ("  float face %.0f,%.0f-%.0f,%.0f score %.3f: best "
          "int8 IoU %.3f", fb->x1, fb->y1, fb->x2, fb->y2, fb->score, best);
      g_assert_cmpfloat (best, >=, FACE_MATCH_IOU);
    }
    for (j = 0; j < q->len; j++) {
      const box *qb = &g_array_index (q, box, j);
      float best = 0.0f;
      unsigned k;
      for (k = 0; k < f->len; k++)
        best = MAX (best, iou (qb, &g_array_index (f, box, k)));
      if (best < FACE_EXTRA_IOU)
        g_test_message ("  extra int8 face %.0f,%.0f-%.0f,%.0f score %.3f",
            qb->x1, qb->y1, qb->x2, qb->y2, qb->score);
      g_assert_cmpfloat (best, >=, FACE_EXTRA_IOU);
    }
    total += f->len;
    g_array_free (f, TRUE);
    g_array_free (q, TRUE);
  }
  /* the held-out photos show faces: a model that finds none fails */
  g_assert_cmpuint (total, >=, 2);
  model_close (&md);
  g_ptr_array_unref (images);
}

static void
test_centernet (void)
{
  GPtrArray *frames, *photos;
  simnpu__preprocess pp;
  static const char *const names[2] = { "tower_0/keypoints", "tower_0/wh" };
  model md;
  unsigned i, matched = 0, total = 0;

  if (!have_data ())
    return;
  pp_centernet (&pp);
  frames = load_images ("opencv/vtest.avi", VIDEO_FRAMES, VIDEO_STRIDE);
  photos = load_images ("face-api/sample6.jpg", 1, 1);
  g_ptr_array_remove_range (frames, 0, MIN (VIDEO_SKIP, frames->len));
  g_ptr_array_add (frames, g_ptr_array_steal_index (photos, 0));
  model_open (&md, "centernet.json", OBJECT_OUTPUTS, "centernet-coco.axm", &pp);
  for (i = 0; i < frames->len; i++) {
    const simnpu_image *img = frames->pdata[i];
    const simnpu__ir_tensor *ht;
    float *q[2], s;
    int px, py, hh, ww, nc;
    GArray *f, *qd;
    unsigned j, k, here = 0;
    model_set_image (&md, img, &s, &px, &py);
    model_run_float (&md);
    ht = &md.g->tensors[simnpu__ir_find_tensor (md.g, names[0])];
    hh = (int) ht->dims[1];
    ww = (int) ht->dims[2];
    nc = (int) ht->dims[3];
    f = decode_objects (float_output (&md, names[0]),
        float_output (&md, names[1]), hh, ww, nc, OBJECT_SCORE);
    model_run_int8 (&md, q, names, 2);
    qd = decode_objects (q[0], q[1], hh, ww, nc, OBJECT_CANDIDATE_SCORE);
    for (j = 0; j < f->len; j++) {
      const box *fb = &g_array_index (f, box, j);
      bool ok = false;
      for (k = 0; k < qd->len && !ok; k++) {
        const box *qb = &g_array_index (qd, box, k);
        ok = qb->label == fb->label && iou (fb, qb) >= OBJECT_MATCH_IOU;
      }
      here += ok;
    }
    g_test_message ("%s: %u of %u float objects matched in int8",
        img->source, here, f->len);
    matched += here;
    total += f->len;
    g_array_free (f, TRUE);
    g_array_free (qd, TRUE);
    g_free (q[0]);
    g_free (q[1]);
  }
  g_test_message ("CenterNet: %u of %u float detections (score >= %.1f) "
      "matched by label at IoU >= %.1f", matched, total, OBJECT_SCORE,
      OBJECT_MATCH_IOU);
  /* people walk through every held-out frame */
  g_assert_cmpuint (total, >=, frames->len);
  g_assert_cmpfloat ((double) matched / total, >=, OBJECT_MATCH_SHARE);
  model_close (&md);
  g_ptr_array_unref (frames);
  g_ptr_array_unref (photos);
}

/* A face crop of the original image, for the emotion model. */
static simnpu_image *
crop (const simnpu_image * img, const box * b, float scale, int px, int py)
{
  int x1 = (int) floorf ((b->x1 - px) / scale);
  int y1 = (int) floorf ((b->y1 - py) / scale);
  int x2 = (int) ceilf ((b->x2 - px) / scale);
  int y2 = (int) ceilf ((b->y2 - py) / scale);
  simnpu_image *c = g_new0 (simnpu_image, 1);
  int y;

  x1 = CLAMP (x1, 0, (int) img->width - 1);
  y1 = CLAMP (y1, 0, (int) img->height - 1);
  x2 = CLAMP (x2, x1 + 1, (int) img->width);
  y2 = CLAMP (y2, y1 + 1, (int) img->height);
  c->source = g_strdup_printf ("%s@%d,%d", img->source, x1, y1);
  c->width = (unsigned) (x2 - x1);
  c->height = (unsigned) (y2 - y1);
  c->rgb = g_malloc ((size_t) c->width * c->height * 3);
  for (y = y1; y < y2; y++)
    memcpy (c->rgb + (size_t) (y - y1) * c->width * 3,
        img->rgb + ((size_t) y * img->width + x1) * 3, (size_t) c->width * 3);
  return c;
}

static void
test_emotion (void)
{
  GPtrArray *photos;
  simnpu__preprocess fpp, epp;
  model face, emo;
  static const char *const names[1] = { "Identity" };
  unsigned i, j, agree = 0, total = 0;

  if (!have_data ())
    return;
  pp_blazeface (&fpp);
  pp_emotion (&epp);
  photos = load_images ("face-api", 16, 1);
  model_open (&face, "blazeface.json", FACE_OUTPUTS, "blazeface.axm", &fpp);
  model_open (&emo, "emotion.json", "Identity", "emotion.axm", &epp);
  for (i = 0; i < photos->len; i++) {
    const simnpu_image *img = photos->pdata[i];
    GArray *f, *q;
    float s;
    int px, py;
    faces_of (&face, img, &f, &q, &s, &px, &py);
    for (j = 0; j < f->len; j++) {
      simnpu_image *c = crop (img, &g_array_index (f, box, j), s, px, py);
      const float *fp;
      float *qp, s2, first = -1.0f, second = -1.0f;
      int px2, py2, k, n = 7, ftop = 0, qtop = 0;
      model_set_image (&emo, c, &s2, &px2, &py2);
      model_run_float (&emo);
      fp = float_output (&emo, "Identity");
      model_run_int8 (&emo, &qp, names, 1);
      for (k = 0; k < n; k++) {
        if (fp[k] > first) {
          second = first;
          first = fp[k];
          ftop = k;
        } else if (fp[k] > second) {
          second = fp[k];
        }
        if (qp[k] > qp[qtop])
          qtop = k;
      }
      if (first - second > EMOTION_MARGIN) {
        total++;
        agree += ftop == qtop;
      }
      g_free (qp);
      simnpu_image_free (c);
    }
    g_array_free (f, TRUE);
    g_array_free (q, TRUE);
  }
  g_test_message ("emotion: top-1 agrees on %u of %u crops whose float "
      "top-2 are more than %.1f apart", agree, total, EMOTION_MARGIN);
  g_assert_cmpuint (total, >=, 3);
  g_assert_cmpfloat ((double) agree / total, >=, EMOTION_AGREEMENT);
  model_close (&face);
  model_close (&emo);
  g_ptr_array_unref (photos);
}

/* ------------------------------------------------------------------ */
/* FaceRes: gender, age and a face descriptor from a face crop
 *
 * The crops are squares around BlazeFace's float faces (the rule below);
 * models/faceres.crops lists them for the six photos so that the build
 * can cut the calibration crops with GStreamer, and /real/faceres/crops
 * checks that list against BlazeFace again (and prints it, to regenerate
 * it). */

/* the square's side, in box sizes: a loose crop with hair and chin, as
 * human's face crops are */
#define FACERES_CROP_ENLARGE 1.4f
/* pixels a listed crop edge may differ from a new BlazeFace run */
#define FACERES_CROP_SLACK 2
#define FACERES_OUTPUTS "gender_pred/Sigmoid,age_pred/Softmax," \
  "global_pooling/Mean"
#define FACERES_AGE_CLASSES 100
#define FACERES_DESCRIPTOR 1024
/* human's reading: male above 0.5 */
#define FACERES_GENDER_THRESHOLD 0.5f
#define FACERES_GENDER_AGREEMENT 0.9
/* the held-out photos show only women, so agreement alone could not tell
 * a broken int8 gender from a constant: its probability must stay close */
#define FACERES_GENDER_TOLERANCE 0.05f
#define FACERES_AGE_TOLERANCE 5.0f
#define FACERES_AGE_AGREEMENT 0.9
#define FACERES_MIN_COSINE 0.95
#define FACERES_PHOTOS 6
/* the first photos calibrate; the rest are held out */
#define FACERES_CALIBRATION_PHOTOS 4

typedef struct
{
  int x, y, side;
} square;

static gint
by_position (gconstpointer a, gconstpointer b)
{
  const square *p = a, *q = b;
  if (p->x != q->x)
    return (p->x > q->x) - (p->x < q->x);
  return (p->y > q->y) - (p->y < q->y);
}

/* The face squares of one photo in its own pixels, from float BlazeFace:
 * centred on each face, FACERES_CROP_ENLARGE times its longer side, moved
 * (not shrunk) to stay inside the photo; ordered left to right. */
static GArray *
face_squares (model * face, const simnpu_image * img)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (square));
  const float *fs[2], *fr[2];
  GArray *faces;
  float s;
  int px, py, limit = (int) MIN (img->width, img->height);
  unsigned i;

  model_set_image (face, img, &s, &px, &py);
  model_run_float (face);
  for (i = 0; i < 2; i++) {
    fs[i] = float_output (face, face_names[i]);
    fr[i] = float_output (face, face_names[2 + i]);
  }
  faces = decode_faces (fs, fr, face->w);
  for (i = 0; i < faces->len; i++) {
    const box *b = &g_array_index (faces, box, i);
    float cx = ((b->x1 + b->x2) / 2 - px) / s;
    float cy = ((b->y1 + b->y2) / 2 - py) / s;
    float side = FACERES_CROP_ENLARGE * MAX (b->x2 - b->x1, b->y2 - b->y1)
        / s;
    square q;
    q.side = CLAMP ((int) lroundf (side), 1, limit);
    q.x = CLAMP ((int) lroundf (cx - q.side / 2.0f), 0,
        (int) img->width - q.side);
    q.y = CLAMP ((int) lroundf (cy - q.side / 2.0f), 0,
        (int) img->height - q.side);
    g_array_append_val (out, q);
  }
  g_array_free (faces, TRUE);
  g_array_sort (out, by_position);
  return out;
}

static simnpu_image *
crop_square (const simnpu_image * img, const square * q, bool mirror)
{
  simnpu_image *c = g_new0 (simnpu_image, 1);
  int y, x;

  c->source = g_strdup_printf ("%s@%d,%d+%d%s", img->source, q->x, q->y,
      q->side, mirror ? " mirrored" : "");
  c->width = c->height = (unsigned) q->side;
  c->rgb = g_malloc ((size_t) q->side * q->side * 3);
  for (y = 0; y < q->side; y++)
    for (x = 0; x < q->side; x++) {
      int sx = q->x + (mirror ? q->side - 1 - x : x);
      memcpy (c->rgb + ((size_t) y * q->side + x) * 3,
          img->rgb + ((size_t) (q->y + y) * img->width + sx) * 3, 3);
    }
  return c;
}

static void
pp_faceres (simnpu__preprocess * pp)
{
  unsigned c;
  /* human feeds the crop as 0..1 values times 255 */
  pp->color = SIMNPU_COLOR_RGB;
  pp->resize = SIMNPU_RESIZE_STRETCH;
  pp->fill = 114;
  pp->scale = 1.0f;
  for (c = 0; c < 3; c++) {
    pp->mean[c] = 0.0f;
    pp->std[c] = 1.0f;
  }
}

/* The face crops of photos sample<first>.jpg .. sample<last>.jpg, each
 * also mirrored when with_mirror. */
static GPtrArray *
face_crops (unsigned first, unsigned last, bool with_mirror)
{
  GPtrArray *crops = g_ptr_array_new_with_free_func ((GDestroyNotify)
      simnpu_image_free);
  simnpu__preprocess fpp;
  model face;
  unsigned i, j;

  pp_blazeface (&fpp);
  model_open (&face, "blazeface.json", FACE_OUTPUTS, NULL, &fpp);
  for (i = first; i <= last; i++) {
    gchar *rel = g_strdup_printf ("face-api/sample%u.jpg", i);
    GPtrArray *photo = load_images (rel, 1, 1);
    const simnpu_image *img = photo->pdata[0];
    GArray *sq = face_squares (&face, img);
    for (j = 0; j < sq->len; j++) {
      g_ptr_array_add (crops, crop_square (img, &g_array_index (sq, square,
                  j), false));
      if (with_mirror)
        g_ptr_array_add (crops, crop_square (img, &g_array_index (sq,
                    square, j), true));
    }
    g_array_free (sq, TRUE);
    g_ptr_array_unref (photo);
    g_free (rel);
  }
  model_close (&face);
  return crops;
}

/* models/faceres.crops ("PHOTO WIDTH HEIGHT X Y SIDE" lines, '#'
 * comments) against BlazeFace run again; the fresh list is printed first,
 * so that a changed rule can be written back. */
static void
test_faceres_crops (void)
{
  const char *table = g_getenv ("GST_AX_FACERES_CROPS");
  simnpu__preprocess fpp;
  gchar *text = NULL, **lines;
  GString *fresh = g_string_new (NULL);
  GArray *found[FACERES_PHOTOS];
  unsigned width[FACERES_PHOTOS], height[FACERES_PHOTOS];
  model face;
  unsigned i, j, n_listed = 0, n_found = 0;

  if (!have_data ())
    return;
  pp_blazeface (&fpp);
  model_open (&face, "blazeface.json", FACE_OUTPUTS, NULL, &fpp);
  for (i = 0; i < FACERES_PHOTOS; i++) {
    gchar *rel = g_strdup_printf ("face-api/sample%u.jpg", i + 1);
    GPtrArray *photo = load_images (rel, 1, 1);
    const simnpu_image *img = photo->pdata[0];
    found[i] = face_squares (&face, img);
    width[i] = img->width;
    height[i] = img->height;
    for (j = 0; j < found[i]->len; j++) {
      const square *q = &g_array_index (found[i], square, j);
      g_string_append_printf (fresh, "sample%u.jpg %u %u %d %d %d\n", i + 1,
          img->width, img->height, q->x, q->y, q->side);
    }
    n_found += found[i]->len;
    g_ptr_array_unref (photo);
    g_free (rel);
  }
  model_close (&face);
  g_test_message ("faceres crops from float BlazeFace (%u):\n%s", n_found,
      fresh->str);
  g_assert_nonnull (table);
  g_assert_true (g_file_get_contents (table, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; i < FACERES_PHOTOS; i++) {
    gchar *name = g_strdup_printf ("sample%u.jpg", i + 1);
    unsigned k = 0;
    for (j = 0; lines[j]; j++) {
      char photo_name[64];
      unsigned w, h;
      int x, y, side;
      const square *q;
      if (lines[j][0] == '#' || lines[j][0] == '\0')
        continue;
      g_assert_cmpint (sscanf (lines[j], "%63s %u %u %d %d %d", photo_name,
              &w, &h, &x, &y, &side), ==, 6);
      if (strcmp (photo_name, name) != 0)
        continue;
      g_assert_cmpuint (w, ==, width[i]);
      g_assert_cmpuint (h, ==, height[i]);
      g_assert_cmpuint (k, <, found[i]->len);
      q = &g_array_index (found[i], square, k);
      g_assert_cmpint (ABS (x - q->x), <=, FACERES_CROP_SLACK);
      g_assert_cmpint (ABS (y - q->y), <=, FACERES_CROP_SLACK);
      g_assert_cmpint (ABS (side - q->side), <=, FACERES_CROP_SLACK);
      /* the build crops what is listed: it must be inside the photo */
      g_assert_cmpint (x, >=, 0);
      g_assert_cmpint (y, >=, 0);
      g_assert_cmpint (x + side, <=, (int) w);
      g_assert_cmpint (y + side, <=, (int) h);
      k++;
    }
    g_assert_cmpuint (k, ==, found[i]->len);
    n_listed += k;
    g_array_free (found[i], TRUE);
    g_free (name);
  }
  g_assert_cmpuint (n_listed, ==, n_found);
  g_assert_cmpuint (n_found, >=, FACERES_PHOTOS);
  g_strfreev (lines);
  g_free (text);
  g_string_free (fresh, TRUE);
}

static void
test_oracle_faceres (void)
{
  simnpu__preprocess pp;
  GPtrArray *crops;

  if (!have_data ())
    return;
  pp_faceres (&pp);
  crops = face_crops (FACERES_CALIBRATION_PHOTOS + 1, FACERES_PHOTOS, false);
  g_assert_cmpuint (crops->len, >=, 1);
  check_oracle_image ("faceres.json", FACERES_OUTPUTS, FACERES_OUTPUTS, &pp,
      crops->pdata[0]);
  g_ptr_array_unref (crops);
}

/* human's age: the most likely year, moved towards its likelier
 * neighbour by ten times that neighbour's probability */
static float
faceres_age (const float *p)
{
  int a = 0, k;
  float below, above;

  for (k = 1; k < FACERES_AGE_CLASSES; k++)
    if (p[k] > p[a])
      a = k;
  below = a > 0 ? p[a - 1] : 0.0f;
  above = a + 1 < FACERES_AGE_CLASSES ? p[a + 1] : 0.0f;
  return below > above ? a - 10.0f * below : a + 10.0f * above;
}

static double
cosine (const float *a, const float *b, unsigned n)
{
  double ab = 0.0, aa = 0.0, bb = 0.0;
  unsigned i;

  for (i = 0; i < n; i++) {
    ab += (double) a[i] * b[i];
    aa += (double) a[i] * a[i];
    bb += (double) b[i] * b[i];
  }
  return aa > 0.0 && bb > 0.0 ? ab / sqrt (aa * bb) : 0.0;
}

static void
test_faceres (void)
{
  static const char *const names[3] = { "gender_pred/Sigmoid",
    "age_pred/Softmax", "global_pooling/Mean"
  };
  simnpu__preprocess pp;
  GPtrArray *crops;
  model md;
  unsigned i, k, gender_ok = 0, age_ok = 0, female = 0;
  double min_cos = 1.0, sum_cos = 0.0, max_age_err = 0.0, max_gender_err = 0.0;
  gchar *axm;
  bool built;

  if (!have_data ())
    return;
  /* models/meson.build skips it without gst-launch-1.0 to cut the crops */
  axm = compiled_model ("faceres.axm");
  built = g_file_test (axm, G_FILE_TEST_EXISTS);
  g_free (axm);
  if (!built) {
    g_test_skip ("faceres.axm was not built (no gst-launch-1.0)");
    return;
  }
  pp_faceres (&pp);
  crops = face_crops (FACERES_CALIBRATION_PHOTOS + 1, FACERES_PHOTOS, true);
  model_open (&md, "faceres.json", FACERES_OUTPUTS, "faceres.axm", &pp);
  for (i = 0; i < crops->len; i++) {
    const simnpu_image *c = crops->pdata[i];
    const float *fg, *fa, *fd;
    float *q[3], s, fage, qage;
    int px, py;
    double cs;
    bool g_ok;
    model_set_image (&md, c, &s, &px, &py);
    model_run_float (&md);
    fg = float_output (&md, names[0]);
    fa = float_output (&md, names[1]);
    fd = float_output (&md, names[2]);
    model_run_int8 (&md, q, names, 3);
    g_ok = (fg[0] > FACERES_GENDER_THRESHOLD) ==
        (q[0][0] > FACERES_GENDER_THRESHOLD);
    fage = faceres_age (fa);
    qage = faceres_age (q[1]);
    cs = cosine (fd, q[2], FACERES_DESCRIPTOR);
    g_test_message ("%s: gender %.3f / int8 %.3f, age %.1f / %.1f, "
        "descriptor cosine %.4f", c->source, fg[0], q[0][0], fage, qage, cs);
    gender_ok += g_ok;
    female += fg[0] <= FACERES_GENDER_THRESHOLD;
    max_gender_err = MAX (max_gender_err, fabsf (fg[0] - q[0][0]));
    age_ok += fabsf (fage - qage) <= FACERES_AGE_TOLERANCE;
    max_age_err = MAX (max_age_err, fabsf (fage - qage));
    min_cos = MIN (min_cos, cs);
    sum_cos += cs;
    for (k = 0; k < 3; k++)
      g_free (q[k]);
  }
  g_test_message ("faceres on %u held-out crops (sample5, sample6, and "
      "mirrored): gender agrees on %u (float female on %u; worst probability "
      "difference %.3f), age within %.0f years on %u (worst %.1f), "
      "descriptor cosine min %.4f mean %.4f", crops->len, gender_ok, female,
      max_gender_err, FACERES_AGE_TOLERANCE, age_ok, max_age_err, min_cos,
      sum_cos / crops->len);
  g_assert_cmpuint (crops->len, >=, 2);
  /* the float path sees women as women: the preprocessing is the model's */
  g_assert_cmpfloat ((double) female / crops->len, >=,
      FACERES_GENDER_AGREEMENT);
  g_assert_cmpfloat (max_gender_err, <=, FACERES_GENDER_TOLERANCE);
  g_assert_cmpfloat ((double) gender_ok / crops->len, >=,
      FACERES_GENDER_AGREEMENT);
  g_assert_cmpfloat ((double) age_ok / crops->len, >=, FACERES_AGE_AGREEMENT);
  g_assert_cmpfloat (min_cos, >=, FACERES_MIN_COSINE);
  model_close (&md);
  g_ptr_array_unref (crops);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/real/oracle/blazeface", test_oracle_blazeface);
  g_test_add_func ("/real/oracle/emotion", test_oracle_emotion);
  g_test_add_func ("/real/oracle/centernet", test_oracle_centernet);
  g_test_add_func ("/real/blazeface", test_blazeface);
  g_test_add_func ("/real/centernet", test_centernet);
  g_test_add_func ("/real/emotion", test_emotion);
  g_test_add_func ("/real/faceres/crops", test_faceres_crops);
  g_test_add_func ("/real/oracle/faceres", test_oracle_faceres);
  g_test_add_func ("/real/faceres", test_faceres);
  return g_test_run ();
}
