/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Host sections and self-description (.axm 1.2): a model with a float
 * preamble and postamble written, loaded and run end to end through the
 * host-section API against a hand computation; the public tensors and
 * bindings; preprocessing and decoder metadata; corrupt sections and
 * broken bindings refused with the field named. Postamble outputs
 * quantised at its end (.axm 1.3) against a float reference. */

#include "simnpu-test-util.h"
#include "host-model.h"

#define WAIT_NS (G_GINT64_CONSTANT (30) * 1000000000)
#define PROB_TOLERANCE 1e-6

/* .axm layout (see sim-npu/format/axm.c) */
#define AXM_MINOR_OFFSET 10
#define AXM_N_SECTIONS_OFFSET 24
#define AXM_SECTION_TABLE 64
#define AXM_SECTION_BYTES 24
#define SEC_LABELS 7
#define SEC_PREAMBLE 8
#define SEC_POSTAMBLE 9
#define SEC_PREPROCESS 10
#define SEC_DECODER 11
#define N_SECTIONS_V1_2_FULL 11
#define SEC_POSTAMBLE_QUANT 12
#define POSTAMBLE_QUANT_BYTES 12
#define PRE_COLOR 0
#define PRE_SCALE 12
#define PRE_STD 28
#define PRE_LAYOUT 40

static simnpu_device *dev;

static guint32
get_u32 (const guint8 * p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return v;
}

static guint64
get_u64 (const guint8 * p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return v;
}

static void
put_u32 (guint8 * p, guint32 v)
{
  memcpy (p, &v, 4);
}

/* The section table entry of a section type, or NULL. */
static guint8 *
entry_of (guint8 * d, guint32 type)
{
  guint32 n = get_u32 (d + AXM_N_SECTIONS_OFFSET), i;

  for (i = 0; i < n; i++) {
    guint8 *e = d + AXM_SECTION_TABLE + i * AXM_SECTION_BYTES;
    if (get_u32 (e) == type)
      return e;
  }
  return NULL;
}

static guint8 *
section_data (guint8 * d, guint32 type, gsize * bytes)
{
  guint8 *e = entry_of (d, type);

  g_assert_nonnull (e);
  if (bytes)
    *bytes = (gsize) get_u64 (e + 16);
  return d + get_u64 (e + 8);
}

static guint8 *
write_graph (simnpu__graph * g, gsize * len)
{
  simnpu_error error = { 0 };
  gchar *path = NULL, *data = NULL;
  int fd = g_file_open_tmp ("simnpu-host-XXXXXX.axm", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  if (host_model_write_graph (g, path, &error) < 0)
    g_error ("write: %s", error.message);
  g_assert_true (g_file_get_contents (path, &data, len, NULL));
  g_unlink (path);
  g_free (path);
  return (guint8 *) data;
}

static guint8 *
model_bytes (gsize * len)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = host_model_graph (&error);
  guint8 *d;

  if (g == NULL)
    g_error ("build: %s", error.message);
  d = write_graph (g, len);
  simnpu__graph_free (g);
  return d;
}

static simnpu_model *
load (const guint8 * data, gsize len)
{
  simnpu_error error = { 0 };
  simnpu_model *model = NULL;

  if (simnpu_model_load_from_memory (dev, data, len, &model, &error) < 0)
    g_error ("load: %s", error.message);
  return model;
}

static void
expect_load_error (const guint8 * data, gsize len, int code, const char *needle)
{
  simnpu_error error = { 0 };
  simnpu_model *model = NULL;
  int ret = simnpu_model_load_from_memory (dev, data, len, &model, &error);

  if (ret != code || strstr (error.message, needle) == NULL)
    g_error ("expected %s with '%s', got %d: %s", simnpu_strerror (code),
        needle, ret, error.message);
  g_assert_null (model);
}

static void
test_public_tensors (void)
{
  gsize len;
  guint8 *d = model_bytes (&len);
  simnpu_model *model = load (d, len);
  simnpu_model_info info;
  simnpu_tensor_spec spec;
  simnpu_binding b;
  unsigned i;

  g_assert_cmpuint (get_u32 (d + 8) >> 16, ==, 2);      /* minor 2 */
  g_assert_cmpint (simnpu_model_get_info (model, &info), ==, 0);
  g_assert_cmpuint (info.n_inputs, ==, 1);
  g_assert_cmpuint (info.n_outputs, ==, 2);
  g_assert_cmpuint (info.n_device_inputs, ==, 1);
  g_assert_cmpuint (info.n_device_outputs, ==, 2);
  g_assert_true (info.has_preamble);
  g_assert_true (info.has_postamble);

  /* the public input is the preamble's, f32 */
  g_assert_cmpint (simnpu_model_get_input (model, 0, &spec), ==, 0);
  g_assert_cmpstr (spec.name, ==, "image");
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_F32);
  g_assert_cmpint (spec.layout, ==, SIMNPU_LAYOUT_NHWC);
  g_assert_cmpuint (spec.n_dims, ==, 4);
  for (i = 0; i < 4; i++)
    g_assert_cmpint (spec.dims[i], ==, host_model_dims[i]);
  g_assert_cmpuint (spec.size_bytes, ==, HOST_MODEL_ELEMENTS * 4);
  g_assert_cmpint (simnpu_model_get_input (model, 1, &spec), ==, SIMNPU_ENOENT);
  g_assert_cmpint (simnpu_model_get_input_binding (model, 0, &b), ==, 0);
  g_assert_cmpint (b.section, ==, SIMNPU_SECTION_PREAMBLE);
  g_assert_cmpuint (b.index, ==, 0);

  /* the device input is what the preamble feeds, i8 */
  g_assert_cmpint (simnpu_model_get_device_input (model, 0, &spec), ==, 0);
  g_assert_cmpstr (spec.name, ==, "x");
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_I8);
  g_assert_cmpuint (spec.size_bytes, ==, HOST_MODEL_ELEMENTS);

  /* public outputs: the postamble's, then the unconsumed device output */
  g_assert_cmpint (simnpu_model_get_output (model, 0, &spec), ==, 0);
  g_assert_cmpstr (spec.name, ==, "prob");
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_F32);
  g_assert_cmpuint (spec.size_bytes, ==, HOST_MODEL_ELEMENTS * 4);
  g_assert_cmpint (simnpu_model_get_output_binding (model, 0, &b), ==, 0);
  g_assert_cmpint (b.section, ==, SIMNPU_SECTION_POSTAMBLE);
  g_assert_cmpuint (b.index, ==, 0);
  g_assert_cmpint (simnpu_model_get_output (model, 1, &spec), ==, 0);
  g_assert_cmpstr (spec.name, ==, "z");
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_U8);
  g_assert_cmpint (spec.zero_point, ==, HOST_MODEL_U8_ZP);
  g_assert_cmpint (simnpu_model_get_output_binding (model, 1, &b), ==, 0);
  g_assert_cmpint (b.section, ==, SIMNPU_SECTION_DEVICE);
  g_assert_cmpuint (b.index, ==, 1);
  g_assert_cmpint (simnpu_model_get_output (model, 2, &spec), ==,
      SIMNPU_ENOENT);

  simnpu_model_unload (model);
  g_free (d);
}

static void
test_metadata (void)
{
  gsize len;
  guint8 *d = model_bytes (&len);
  simnpu_model *model = load (d, len);
  simnpu_preprocess pp;
  simnpu_host_section *pre, *post;
  simnpu_host_section_info si;
  simnpu_tensor_spec spec;
  unsigned bound, c;

  g_assert_cmpint (simnpu_model_get_preprocess (model, &pp), ==, 0);
  g_assert_cmpint (pp.color, ==, SIMNPU_PREPROCESS_BGR);
  g_assert_cmpint (pp.resize, ==, SIMNPU_PREPROCESS_LETTERBOX);
  g_assert_cmpuint (pp.fill, ==, HOST_MODEL_FILL);
  g_assert_cmpfloat (pp.scale, ==, HOST_MODEL_PIXEL_SCALE);
  g_assert_cmpint (pp.layout, ==, SIMNPU_LAYOUT_NHWC);
  for (c = 0; c < 3; c++) {
    g_assert_cmpfloat (pp.mean[c], ==, 0.1f * (float) c);
    g_assert_cmpfloat (pp.std[c], ==, 1.0f + (float) c);
  }
  g_assert_cmpstr (simnpu_model_get_decoder_json (model), ==,
      HOST_MODEL_DECODER);

  pre = simnpu_model_get_host_section (model, SIMNPU_SECTION_PREAMBLE);
  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  g_assert_nonnull (pre);
  g_assert_nonnull (post);
  g_assert_null (simnpu_model_get_host_section (model, SIMNPU_SECTION_DEVICE));
  g_assert_cmpint (simnpu_host_section_get_info (pre, &si), ==, 0);
  g_assert_cmpint (si.kind, ==, SIMNPU_SECTION_PREAMBLE);
  g_assert_cmpstr (si.name, ==, "pre");
  g_assert_cmpuint (si.n_inputs, ==, 1);
  g_assert_cmpuint (si.n_outputs, ==, 1);
  g_assert_cmpuint (si.n_nodes, ==, 2);
  /* preamble output 0 is device input 0, in its representation */
  g_assert_cmpint (simnpu_host_section_get_output (pre, 0, &spec, &bound),
      ==, 0);
  g_assert_cmpuint (bound, ==, 0);
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_I8);
  g_assert_cmpint (simnpu_host_section_get_output (pre, 1, &spec, NULL), ==,
      SIMNPU_ENOENT);
  /* postamble input 0 is device output 0 ("y") */
  g_assert_cmpint (simnpu_host_section_get_info (post, &si), ==, 0);
  g_assert_cmpint (si.kind, ==, SIMNPU_SECTION_POSTAMBLE);
  g_assert_cmpuint (si.n_nodes, ==, 1);
  g_assert_cmpint (simnpu_host_section_get_input (post, 0, &spec, &bound),
      ==, 0);
  g_assert_cmpuint (bound, ==, 0);
  g_assert_cmpstr (spec.name, ==, "y");
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_I8);
  simnpu_model_unload (model);
  g_free (d);
}

/* preamble -> job -> postamble, against the hand computation */
static void
test_run (void)
{
  gsize len;
  guint8 *d = model_bytes (&len);
  simnpu_model *model = load (d, len);
  simnpu_host_section *pre, *post;
  float image[HOST_MODEL_ELEMENTS], prob[HOST_MODEL_ELEMENTS];
  float want_prob[HOST_MODEL_ELEMENTS];
  int8_t x[HOST_MODEL_ELEMENTS], y[HOST_MODEL_ELEMENTS];
  uint8_t z[HOST_MODEL_ELEMENTS], want_z[HOST_MODEL_ELEMENTS];
  simnpu_input_buffer in = { x, sizeof (x) };
  simnpu_output_buffer out[2] = { {y, sizeof (y)}, {z, sizeof (z)}
  };
  simnpu_error error = { 0 };
  simnpu_job *job;
  unsigned i, round;

  pre = simnpu_model_get_host_section (model, SIMNPU_SECTION_PREAMBLE);
  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  host_model_input (image);
  host_model_expected (image, want_prob, want_z);
  /* twice: the executors are reused */
  for (round = 0; round < 2; round++) {
    const void *pre_in[1] = { image };
    void *pre_out[1] = { x };
    const void *post_in[1] = { y };
    void *post_out[1] = { prob };

    memset (prob, 0, sizeof (prob));
    memset (z, 0, sizeof (z));
    if (simnpu_host_section_run (pre, pre_in, pre_out, &error) < 0)
      g_error ("preamble: %s", error.message);
    g_assert_cmpint (simnpu_job_submit (model, &in, 1, out, 2, NULL, NULL,
            &job, &error), ==, 0);
    g_assert_cmpint (simnpu_job_wait (job, WAIT_NS, NULL), ==, 0);
    simnpu_job_free (job);
    if (simnpu_host_section_run (post, post_in, post_out, &error) < 0)
      g_error ("postamble: %s", error.message);
    for (i = 0; i < HOST_MODEL_ELEMENTS; i++) {
      g_assert_cmpfloat_with_epsilon (prob[i], want_prob[i], PROB_TOLERANCE);
      g_assert_cmpuint (z[i], ==, want_z[i]);
    }
  }
  /* the values cover both sides of the relu and of 0.5 */
  g_assert_cmpfloat (want_prob[0], ==, 0.5f);
  g_assert_cmpfloat (want_prob[HOST_MODEL_ELEMENTS - 1], >, 0.99f);

  /* missing buffers are refused with the tensor named */
  {
    const void *none[1] = { NULL };
    void *pre_out[1] = { x };
    g_assert_cmpint (simnpu_host_section_run (pre, none, pre_out, &error),
        ==, SIMNPU_EINVAL);
    g_assert_nonnull (strstr (error.message, "image"));
  }
  simnpu_model_unload (model);
  g_free (d);
}

#define STEADY_WARMUP 16
#define STEADY_FRAMES 200
#define STEADY_IN_FLIGHT 4
#define CONCURRENT_RUNS 300
/* a float buffer off by this many bytes is not aligned for floats */
#define MISALIGN 1
#define GARBAGE 0xa5

/* One frame in flight through the host-model: its preamble output (the
 * job's input, copied by submit), its device outputs, its job. */
typedef struct
{
  int8_t x[HOST_MODEL_ELEMENTS], y[HOST_MODEL_ELEMENTS];
  uint8_t z[HOST_MODEL_ELEMENTS];
  simnpu_job *job;
} steady_slot;

/* Completes the slot's job, runs the postamble into an output prefilled
 * with garbage (written in place, it must be overwritten whole) and checks
 * the frame's values. */
static void
steady_finish (simnpu_host_section * post, steady_slot * sl,
    const float *want_prob, const uint8_t * want_z)
{
  float prob[HOST_MODEL_ELEMENTS];
  const void *post_in[1] = { sl->y };
  void *post_out[1] = { prob };
  simnpu_error error = { 0 };
  unsigned i;

  g_assert_cmpint (simnpu_job_wait (sl->job, WAIT_NS, NULL), ==, 0);
  simnpu_job_free (sl->job);
  sl->job = NULL;
  memset (prob, GARBAGE, sizeof (prob));
  if (simnpu_host_section_run (post, post_in, post_out, &error) < 0)
    g_error ("postamble: %s", error.message);
  for (i = 0; i < HOST_MODEL_ELEMENTS; i++) {
    g_assert_cmpfloat_with_epsilon (prob[i], want_prob[i], PROB_TOLERANCE);
    g_assert_cmpuint (sl->z[i], ==, want_z[i]);
  }
}

/* A stream of frames with several jobs in flight on a fresh device: the
 * first frames make the job records, their buffers and the executors;
 * after them, the job path allocates nothing however long the stream. */
static void
test_steady_state (void)
{
  gsize len;
  guint8 *d = model_bytes (&len);
  simnpu_device *own;
  simnpu_model *model = NULL;
  simnpu_host_section *pre, *post;
  steady_slot slots[STEADY_IN_FLIGHT];
  float image[HOST_MODEL_ELEMENTS], want_prob[HOST_MODEL_ELEMENTS];
  uint8_t want_z[HOST_MODEL_ELEMENTS];
  simnpu_error error = { 0 };
  unsigned frame, before = simnpu__job_path_allocations (), warm = 0;

  if (simnpu_device_open ("metis", &own, &error) < 0)
    g_error ("open: %s", error.message);
  simnpu_device_set_time_scale (own, 0.0);
  if (simnpu_model_load_from_memory (own, d, len, &model, &error) < 0)
    g_error ("load: %s", error.message);
  pre = simnpu_model_get_host_section (model, SIMNPU_SECTION_PREAMBLE);
  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  host_model_input (image);
  host_model_expected (image, want_prob, want_z);
  memset (slots, 0, sizeof (slots));
  for (frame = 0; frame < STEADY_FRAMES; frame++) {
    steady_slot *sl = &slots[frame % STEADY_IN_FLIGHT];
    const void *pre_in[1] = { image };
    void *pre_out[1] = { sl->x };
    simnpu_input_buffer in = { sl->x, sizeof (sl->x) };
    simnpu_output_buffer out[2] = { {sl->y, sizeof (sl->y)},
    {sl->z, sizeof (sl->z)}
    };

    if (sl->job != NULL)
      steady_finish (post, sl, want_prob, want_z);
    if (frame == STEADY_WARMUP)
      warm = simnpu__job_path_allocations ();
    if (simnpu_host_section_run (pre, pre_in, pre_out, &error) < 0)
      g_error ("preamble: %s", error.message);
    g_assert_cmpint (simnpu_job_submit (model, &in, 1, out, 2, NULL, NULL,
            &sl->job, &error), ==, 0);
  }
  /* the counter counts: the fresh device made its job records */
  g_assert_cmpuint (warm, >, before);
  g_assert_cmpuint (simnpu__job_path_allocations (), ==, warm);
  for (frame = 0; frame < STEADY_IN_FLIGHT; frame++)
    if (slots[frame].job != NULL)
      steady_finish (post, &slots[frame], want_prob, want_z);
  g_assert_cmpuint (simnpu__job_path_allocations (), ==, warm);
  simnpu_model_unload (model);
  simnpu_device_close (own);
  g_free (d);
}

/* Buffers not aligned for floats are copied rather than bound in place:
 * the same bytes come out either way. */
static void
test_unaligned_buffers (void)
{
  gsize len;
  guint8 *d = model_bytes (&len);
  simnpu_model *model = load (d, len);
  simnpu_host_section *pre, *post;
  float image[HOST_MODEL_ELEMENTS], prob[HOST_MODEL_ELEMENTS];
  guint8 image_off[sizeof (image) + MISALIGN];
  guint8 prob_off[sizeof (prob) + MISALIGN];
  int8_t x[HOST_MODEL_ELEMENTS], x_off[HOST_MODEL_ELEMENTS];
  int8_t y[HOST_MODEL_ELEMENTS];
  simnpu_error error = { 0 };
  unsigned i;

  pre = simnpu_model_get_host_section (model, SIMNPU_SECTION_PREAMBLE);
  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  host_model_input (image);
  memcpy (image_off + MISALIGN, image, sizeof (image));
  for (i = 0; i < HOST_MODEL_ELEMENTS; i++)
    y[i] = (int8_t) (i * 19 - 100);
  {
    const void *in[1] = { image }, *in_off[1] = { image_off + MISALIGN };
    void *out[1] = { x }, *out_off[1] = { x_off };
    g_assert_cmpint (simnpu_host_section_run (pre, in, out, &error), ==, 0);
    g_assert_cmpint (simnpu_host_section_run (pre, in_off, out_off, &error),
        ==, 0);
    g_assert_cmpmem (x, sizeof (x), x_off, sizeof (x_off));
  }
  {
    const void *in[1] = { y };
    void *out[1] = { prob }, *out_off[1] = { prob_off + MISALIGN };
    memset (prob_off, GARBAGE, sizeof (prob_off));
    g_assert_cmpint (simnpu_host_section_run (post, in, out, &error), ==, 0);
    g_assert_cmpint (simnpu_host_section_run (post, in, out_off, &error),
        ==, 0);
    g_assert_cmpmem (prob, sizeof (prob), prob_off + MISALIGN, sizeof (prob));
    /* nothing written around it */
    g_assert_cmpuint (prob_off[0], ==, GARBAGE);
  }
  simnpu_model_unload (model);
  g_free (d);
}

typedef struct
{
  simnpu_host_section *post;
  const int8_t *y;
  const float *want;
  unsigned wrong;
} concurrent_arg;

static gpointer
concurrent_main (gpointer data)
{
  concurrent_arg *a = data;
  float prob[HOST_MODEL_ELEMENTS];
  const void *in[1] = { a->y };
  void *out[1] = { prob };
  simnpu_error error = { 0 };
  unsigned r, i;

  for (r = 0; r < CONCURRENT_RUNS; r++) {
    memset (prob, GARBAGE, sizeof (prob));
    if (simnpu_host_section_run (a->post, in, out, &error) < 0)
      a->wrong++;
    for (i = 0; i < HOST_MODEL_ELEMENTS; i++)
      if (prob[i] != a->want[i])
        a->wrong++;
  }
  return NULL;
}

/* Two threads running one section at once, each with its own inputs,
 * get their own results; the section grows its pool at most once per
 * extra caller. */
static void
test_concurrent_runs (void)
{
  gsize len;
  guint8 *d = model_bytes (&len);
  simnpu_model *model = load (d, len);
  simnpu_host_section *post;
  int8_t y[2][HOST_MODEL_ELEMENTS];
  float want[2][HOST_MODEL_ELEMENTS];
  concurrent_arg args[2];
  GThread *threads[2];
  simnpu_error error = { 0 };
  unsigned t, i, before;

  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  for (t = 0; t < 2; t++) {
    const void *in[1] = { y[t] };
    void *out[1] = { want[t] };
    for (i = 0; i < HOST_MODEL_ELEMENTS; i++)
      y[t][i] = (int8_t) (t == 0 ? (int) i * 10 : -(int) i * 10);
    g_assert_cmpint (simnpu_host_section_run (post, in, out, &error), ==, 0);
  }
  g_assert_cmpfloat (want[0][1], !=, want[1][1]);
  before = simnpu__job_path_allocations ();
  for (t = 0; t < 2; t++) {
    args[t].post = post;
    args[t].y = y[t];
    args[t].want = want[t];
    args[t].wrong = 0;
    threads[t] = g_thread_new ("run", concurrent_main, &args[t]);
  }
  for (t = 0; t < 2; t++) {
    g_thread_join (threads[t]);
    g_assert_cmpuint (args[t].wrong, ==, 0);
  }
  g_assert_cmpuint (simnpu__job_path_allocations () - before, <=, 1);
  simnpu_model_unload (model);
  g_free (d);
}

/* A model without host sections: public tensors are the device's. */
static void
test_plain_model (void)
{
  simnpu_error error = { 0 };
  gchar *path = test_compile_json (HOST_MODEL_DEVICE_JSON, "metis", false,
      &error);
  simnpu_model *model = NULL;
  simnpu_model_info info;
  simnpu_preprocess pp;
  simnpu_binding b;

  g_assert_nonnull (path);
  g_assert_cmpint (simnpu_model_load (dev, path, &model, &error), ==, 0);
  g_unlink (path);
  g_free (path);
  simnpu_model_get_info (model, &info);
  g_assert_cmpuint (info.n_inputs, ==, info.n_device_inputs);
  g_assert_cmpuint (info.n_outputs, ==, 2);
  g_assert_cmpuint (info.n_device_outputs, ==, 2);
  g_assert_false (info.has_preamble);
  g_assert_false (info.has_postamble);
  g_assert_null (simnpu_model_get_host_section (model,
          SIMNPU_SECTION_PREAMBLE));
  g_assert_cmpint (simnpu_model_get_preprocess (model, &pp), ==, SIMNPU_ENOENT);
  g_assert_null (simnpu_model_get_decoder_json (model));
  g_assert_cmpint (simnpu_model_get_output_binding (model, 1, &b), ==, 0);
  g_assert_cmpint (b.section, ==, SIMNPU_SECTION_DEVICE);
  g_assert_cmpuint (b.index, ==, 1);
  simnpu_model_unload (model);
}

/* Containers from before 1.2 load as they did: no host sections, no
 * metadata, public tensors = device tensors. */
static void
test_old_versions (void)
{
  static const char *const files[] = { "ball-detector.bin",
    "ball-detector-1.1.bin", "all-ops.bin"
  };
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (files); i++) {
    gchar *path = g_test_build_filename (G_TEST_DIST, "..", "fuzz", "corpus",
        "axm", files[i], NULL);
    simnpu_error error = { 0 };
    simnpu_model *model = NULL;
    simnpu_model_info info;
    simnpu_tensor_spec pub, devspec;
    simnpu_preprocess pp;

    if (simnpu_model_load (dev, path, &model, &error) < 0)
      g_error ("%s: %s", files[i], error.message);
    simnpu_model_get_info (model, &info);
    g_assert_false (info.has_preamble);
    g_assert_false (info.has_postamble);
    g_assert_cmpuint (info.n_inputs, ==, info.n_device_inputs);
    g_assert_cmpuint (info.n_outputs, ==, info.n_device_outputs);
    g_assert_cmpint (simnpu_model_get_input (model, 0, &pub), ==, 0);
    g_assert_cmpint (simnpu_model_get_device_input (model, 0, &devspec), ==, 0);
    g_assert_cmpstr (pub.name, ==, devspec.name);
    g_assert_cmpuint (pub.size_bytes, ==, devspec.size_bytes);
    g_assert_cmpint (simnpu_model_get_preprocess (model, &pp), ==,
        SIMNPU_ENOENT);
    g_assert_null (simnpu_model_get_decoder_json (model));
    simnpu_model_unload (model);
    g_free (path);
  }
}

static void
test_corrupt_sections (void)
{
  gsize len, n;
  guint8 *orig = model_bytes (&len), *d;
  guint8 *p;
  float nan = NAN, zero = 0.0f;

  g_assert_cmpuint (get_u32 (orig + AXM_N_SECTIONS_OFFSET), ==,
      N_SECTIONS_V1_2_FULL);

#define FRESH() (d = g_memdup2 (orig, len))
  FRESH ();
  p = section_data (d, SEC_PREPROCESS, NULL);
  put_u32 (p + PRE_COLOR, 7);
  expect_load_error (d, len, SIMNPU_EFORMAT, "preprocess: color order 7");
  g_free (d);

  FRESH ();
  p = section_data (d, SEC_PREPROCESS, NULL);
  memcpy (p + PRE_STD + 4, &zero, 4);
  expect_load_error (d, len, SIMNPU_EFORMAT, "std[1] is 0");
  g_free (d);

  FRESH ();
  p = section_data (d, SEC_PREPROCESS, NULL);
  memcpy (p + PRE_SCALE, &nan, 4);
  expect_load_error (d, len, SIMNPU_EFORMAT, "scale is nan");
  g_free (d);

  FRESH ();
  p = section_data (d, SEC_PREPROCESS, NULL);
  put_u32 (p + PRE_LAYOUT, 2);
  expect_load_error (d, len, SIMNPU_EFORMAT, "preprocess: layout 2");
  g_free (d);

  /* the layout of the image input is the record's, and so is that of a
   * rank-4 output of the host sections (the model's layout) */
  FRESH ();
  p = section_data (d, SEC_PREPROCESS, NULL);
  put_u32 (p + PRE_LAYOUT, SIMNPU_LAYOUT_NCHW);
  {
    simnpu_model *model = load (d, len);
    simnpu_tensor_spec spec;
    g_assert_cmpint (simnpu_model_get_input (model, 0, &spec), ==, 0);
    g_assert_cmpint (spec.layout, ==, SIMNPU_LAYOUT_NCHW);
    g_assert_cmpint (simnpu_model_get_output (model, 0, &spec), ==, 0);
    g_assert_cmpuint (spec.n_dims, ==, 4);
    g_assert_cmpint (spec.layout, ==, SIMNPU_LAYOUT_NCHW);
    simnpu_model_unload (model);
  }
  g_free (d);

  /* the preprocessing record has one size */
  FRESH ();
  put_u32 (entry_of (d, SEC_PREPROCESS) + 4, 2);
  expect_load_error (d, len, SIMNPU_EFORMAT, "preprocess: 2 records");
  g_free (d);

  FRESH ();
  p = section_data (d, SEC_DECODER, &n);
  p[0] = 'x';
  expect_load_error (d, len, SIMNPU_EFORMAT, "decoder: invalid JSON");
  g_free (d);

  /* valid JSON, not an object */
  FRESH ();
  p = section_data (d, SEC_DECODER, &n);
  memset (p, ' ', n);
  memcpy (p, "[1, 2]", 6);
  expect_load_error (d, len, SIMNPU_EFORMAT, "expected a JSON object");
  g_free (d);

  FRESH ();
  p = section_data (d, SEC_DECODER, &n);
  p[n / 2] = '\0';
  expect_load_error (d, len, SIMNPU_EFORMAT, "NUL");
  g_free (d);

  FRESH ();
  p = section_data (d, SEC_DECODER, &n);
  p[1] = (guint8) 0xff;
  expect_load_error (d, len, SIMNPU_EFORMAT, "UTF-8");
  g_free (d);

  /* the IR reader validates the host sections; its error is prefixed */
  FRESH ();
  p = section_data (d, SEC_PREAMBLE, &n);
  memset (p, 0xff, MIN (n, 16));
  {
    simnpu_error error = { 0 };
    simnpu_model *model = NULL;
    int ret = simnpu_model_load_from_memory (dev, d, len, &model, &error);
    g_assert_cmpint (ret, <, 0);
    g_assert_null (model);
    g_assert_nonnull (strstr (error.message, ".axm preamble: "));
  }
  g_free (d);

  /* a blob section's count is its size */
  FRESH ();
  put_u32 (entry_of (d, SEC_POSTAMBLE) + 4, 3);
  expect_load_error (d, len, SIMNPU_EFORMAT, "postamble: count 3");
  g_free (d);

  /* a 1.1 header cannot list the 1.2 sections */
  FRESH ();
  d[AXM_MINOR_OFFSET] = 1;
  expect_load_error (d, len, SIMNPU_EFORMAT, "n_sections: 11; expected 7");
  g_free (d);

  FRESH ();
  put_u32 (entry_of (d, SEC_LABELS), SEC_DECODER);
  expect_load_error (d, len, SIMNPU_EFORMAT, "decoder: section listed twice");
  g_free (d);
#undef FRESH
  g_free (orig);

  /* the sections up to the labels are not optional */
  {
    simnpu_error error = { 0 };
    gchar *path = test_compile_json (HOST_MODEL_DEVICE_JSON, "metis", false,
        &error);
    gchar *data = NULL;

    g_assert_nonnull (path);
    g_assert_true (g_file_get_contents (path, &data, &len, NULL));
    g_unlink (path);
    g_free (path);
    d = (guint8 *) data;
    g_assert_cmpuint (get_u32 (d + AXM_N_SECTIONS_OFFSET), ==, SEC_LABELS);
    put_u32 (entry_of (d, SEC_LABELS), SEC_PREAMBLE);
    expect_load_error (d, len, SIMNPU_EFORMAT, "labels: section missing");
    g_free (d);
  }
}

/* Postamble outputs quantised at its end (.axm 1.3): per case the dtype,
 * scale and zero point; the scales of the saturating cases put part of the
 * sigmoid's range beyond the dtype's. */
typedef struct
{
  simnpu_dtype dtype;
  float scale;
  int32_t zero_point;
} quant_case;

#define QUANT_U8_MAX 255
#define QUANT_I8_MIN (-128)
#define QUANT_I8_MAX 127
#define SIGMOID_STEPS 255.0f
/* two in-range cases and two that saturate (one at each end) */
static const quant_case quant_cases[] = {
  {SIMNPU_DTYPE_U8, 1.0f / SIGMOID_STEPS, 0},
  {SIMNPU_DTYPE_I8, 1.0f / SIGMOID_STEPS, QUANT_I8_MIN},
  {SIMNPU_DTYPE_U8, 1.0f / 512.0f, 0},
  {SIMNPU_DTYPE_I8, 1.0f / 128.0f, 0},
};

/* The float reference: round half to even of x / scale, plus the zero
 * point, saturated to the dtype. */
static int
quant_reference (const quant_case * qc, float x)
{
  double q = nearbyint ((double) x / (double) qc->scale) + qc->zero_point;
  double lo = qc->dtype == SIMNPU_DTYPE_U8 ? 0 : QUANT_I8_MIN;
  double hi = qc->dtype == SIMNPU_DTYPE_U8 ? QUANT_U8_MAX : QUANT_I8_MAX;

  return (int) CLAMP (q, lo, hi);
}

static guint8 *
quant_model_bytes (const quant_case * qc, gsize * len)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = host_model_graph (&error);
  guint8 *d;

  if (g == NULL)
    g_error ("build: %s", error.message);
  g->has_postamble_quant = true;
  g->postamble_quant[0].dtype = qc->dtype;
  g->postamble_quant[0].scale = qc->scale;
  g->postamble_quant[0].zero_point = qc->zero_point;
  d = write_graph (g, len);
  simnpu__graph_free (g);
  return d;
}

static void
test_quantised_outputs (void)
{
  unsigned c, i, saturated = 0;

  for (c = 0; c < G_N_ELEMENTS (quant_cases); c++) {
    const quant_case *qc = &quant_cases[c];
    gsize len;
    guint8 *d = quant_model_bytes (qc, &len);
    simnpu_model *model = load (d, len);
    simnpu_host_section *pre, *post;
    simnpu_tensor_spec spec;
    float image[HOST_MODEL_ELEMENTS], want_prob[HOST_MODEL_ELEMENTS];
    int8_t x[HOST_MODEL_ELEMENTS], y[HOST_MODEL_ELEMENTS];
    uint8_t z[HOST_MODEL_ELEMENTS], want_z[HOST_MODEL_ELEMENTS];
    uint8_t prob[HOST_MODEL_ELEMENTS];
    simnpu_input_buffer in = { x, sizeof (x) };
    simnpu_output_buffer out[2] = { {y, sizeof (y)}, {z, sizeof (z)}
    };
    const void *pre_in[1] = { image };
    void *pre_out[1] = { x };
    const void *post_in[1] = { y };
    void *post_out[1] = { prob };
    simnpu_error error = { 0 };
    simnpu_job *job;

    g_assert_cmpuint (get_u32 (d + 8) >> 16, ==, 3);    /* minor 3 */
    /* the public output says how it is quantised, the section agrees */
    g_assert_cmpint (simnpu_model_get_output (model, 0, &spec), ==, 0);
    g_assert_cmpstr (spec.name, ==, "prob");
    g_assert_cmpint (spec.dtype, ==, qc->dtype);
    g_assert_cmpfloat (spec.scale, ==, qc->scale);
    g_assert_cmpint (spec.zero_point, ==, qc->zero_point);
    g_assert_cmpuint (spec.size_bytes, ==, HOST_MODEL_ELEMENTS);
    post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
    g_assert_cmpint (simnpu_host_section_get_output (post, 0, &spec, NULL),
        ==, 0);
    g_assert_cmpint (spec.dtype, ==, qc->dtype);
    g_assert_cmpuint (spec.size_bytes, ==, HOST_MODEL_ELEMENTS);
    /* the device output the postamble does not read is untouched */
    g_assert_cmpint (simnpu_model_get_output (model, 1, &spec), ==, 0);
    g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_U8);
    g_assert_cmpint (spec.zero_point, ==, HOST_MODEL_U8_ZP);

    pre = simnpu_model_get_host_section (model, SIMNPU_SECTION_PREAMBLE);
    host_model_input (image);
    host_model_expected (image, want_prob, want_z);
    memset (prob, 0xa5, sizeof (prob));
    if (simnpu_host_section_run (pre, pre_in, pre_out, &error) < 0)
      g_error ("preamble: %s", error.message);
    g_assert_cmpint (simnpu_job_submit (model, &in, 1, out, 2, NULL, NULL,
            &job, &error), ==, 0);
    g_assert_cmpint (simnpu_job_wait (job, WAIT_NS, NULL), ==, 0);
    simnpu_job_free (job);
    if (simnpu_host_section_run (post, post_in, post_out, &error) < 0)
      g_error ("postamble: %s", error.message);
    for (i = 0; i < HOST_MODEL_ELEMENTS; i++) {
      int got = qc->dtype == SIMNPU_DTYPE_U8 ? prob[i] : ((int8_t *) prob)[i];
      int want = quant_reference (qc, want_prob[i]);
      g_assert_cmpint (got, ==, want);
      g_assert_cmpuint (z[i], ==, want_z[i]);
      if (want == (qc->dtype == SIMNPU_DTYPE_U8 ? QUANT_U8_MAX : QUANT_I8_MAX))
        saturated++;
    }
    simnpu_model_unload (model);
    g_free (d);
  }
  /* the saturating cases did saturate */
  g_assert_cmpuint (saturated, >, 0);
}

/* Exact ties and the vector path: a postamble whose output is a constant
 * (y * 0 + c, broadcast to TIE_COPIES copies of y's shape: whole vector
 * blocks and a scalar tail), with c on half steps of a power-of-two scale
 * (so that x / scale is exact), beyond the dtypes' ranges, NaN and
 * infinities, and a spread of other values. */
#define TIE_SCALE (1.0f / 128.0f)
#define TIE_COPIES 9
#define TIE_ELEMENTS (TIE_COPIES * HOST_MODEL_ELEMENTS)
#define TIE_SPREAD_MOD 601
#define TIE_SPREAD_MUL 37
#define TIE_SPREAD_STEP 0.37f
static const float tie_steps[HOST_MODEL_ELEMENTS] = {
  0.5f, 1.5f, 2.5f, 3.5f, 100.5f, 101.5f, 126.5f, -0.5f, -1.5f, -2.5f,
  300.0f, -300.0f
};

/* half to even; saturated */
static const int tie_want_u8[HOST_MODEL_ELEMENTS] = {
  0, 2, 2, 4, 100, 102, 126, 0, 0, 0, QUANT_U8_MAX, 0
};

static const int tie_want_i8[HOST_MODEL_ELEMENTS] = {
  0, 2, 2, 4, 100, 102, 126, 0, -2, -2, QUANT_I8_MAX, QUANT_I8_MIN
};

/* the constant: the ties in the first copy and again in the last (the
 * tail), special values and a spread in between */
static void
tie_values (float *c)
{
  unsigned i;

  for (i = 0; i < TIE_ELEMENTS; i++) {
    int k = (int) ((i * TIE_SPREAD_MUL) % TIE_SPREAD_MOD) - TIE_SPREAD_MOD / 2;
    c[i] = (float) k *TIE_SPREAD_STEP * TIE_SCALE;
  }
  for (i = 0; i < HOST_MODEL_ELEMENTS; i++) {
    c[i] = tie_steps[i] * TIE_SCALE;
    c[TIE_ELEMENTS - HOST_MODEL_ELEMENTS + i] = c[i];
  }
  c[HOST_MODEL_ELEMENTS] = NAN;
  c[HOST_MODEL_ELEMENTS + 1] = INFINITY;
  c[HOST_MODEL_ELEMENTS + 2] = -INFINITY;
}

static simnpu__ir_graph *
tie_postamble (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("post");
  float *c = g_new (float, TIE_ELEMENTS);
  int64_t dims[4];
  int y, zero, ties, t, prob, in_mul[2], in_add[2];

  tie_values (c);
  memcpy (dims, host_model_dims, sizeof (dims));
  dims[0] = TIE_COPIES;
  y = simnpu__ir_add_tensor (g, "y", SIMNPU_IR_F32, 4, host_model_dims);
  zero = host_model_scalar (g, "zero", 0.0f);
  ties = simnpu__ir_add_const (g, "ties", SIMNPU_IR_F32, 4, dims, c);
  t = simnpu__ir_add_tensor (g, "t", SIMNPU_IR_F32, 0, NULL);
  prob = simnpu__ir_add_tensor (g, "prob", SIMNPU_IR_F32, 0, NULL);
  in_mul[0] = y;
  in_mul[1] = zero;
  in_add[0] = t;
  in_add[1] = ties;
  simnpu__ir_add_node (g, SIMNPU_IR_MUL, "mul", 2, in_mul, 1, &t);
  simnpu__ir_add_node (g, SIMNPU_IR_ADD, "add", 2, in_add, 1, &prob);
  g->n_inputs = 1;
  g->inputs[0] = y;
  g->n_outputs = 1;
  g->outputs[0] = prob;
  return g;
}

static void
test_quantised_ties (void)
{
  static const quant_case cases[] = {
    {SIMNPU_DTYPE_U8, TIE_SCALE, 0},
    {SIMNPU_DTYPE_I8, TIE_SCALE, 0},
    {SIMNPU_DTYPE_I8, TIE_SCALE, QUANT_I8_MIN},
  };
  float c_ref[TIE_ELEMENTS];
  unsigned c, i;

  tie_values (c_ref);
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const quant_case *qc = &cases[c];
    simnpu_error error = { 0 };
    simnpu__graph *g = host_model_graph (&error);
    simnpu_model *model;
    simnpu_host_section *post;
    simnpu_tensor_spec spec;
    int8_t y[HOST_MODEL_ELEMENTS] = { 0 };
    uint8_t q[TIE_ELEMENTS];
    const void *post_in[1] = { y };
    void *post_out[1] = { q };
    gsize len;
    guint8 *d;

    if (g == NULL)
      g_error ("build: %s", error.message);
    simnpu__ir_graph_free (g->postamble);
    g->postamble = tie_postamble ();
    if (simnpu__ir_infer_shapes (g->postamble, &error) < 0)
      g_error ("shapes: %s", error.message);
    g->has_postamble_quant = true;
    g->postamble_quant[0].dtype = qc->dtype;
    g->postamble_quant[0].scale = qc->scale;
    g->postamble_quant[0].zero_point = qc->zero_point;
    d = write_graph (g, &len);
    simnpu__graph_free (g);
    model = load (d, len);
    post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
    g_assert_cmpint (simnpu_host_section_get_output (post, 0, &spec, NULL),
        ==, 0);
    g_assert_cmpuint (spec.size_bytes, ==, TIE_ELEMENTS);
    if (simnpu_host_section_run (post, post_in, post_out, &error) < 0)
      g_error ("postamble: %s", error.message);
    for (i = 0; i < TIE_ELEMENTS; i++) {
      int got = qc->dtype == SIMNPU_DTYPE_U8 ? q[i] : ((int8_t *) q)[i];
      int want = isnan (c_ref[i]) ? qc->zero_point :
          quant_reference (qc, c_ref[i]);
      if (got != want)
        g_error ("case %u element %u (%g): %d, expected %d", c, i,
            c_ref[i], got, want);
    }
    /* the ties by hand, in the first copy and in the tail */
    for (i = 0; i < HOST_MODEL_ELEMENTS && qc->zero_point == 0; i++) {
      int want = qc->dtype == SIMNPU_DTYPE_U8 ? tie_want_u8[i] : tie_want_i8[i];
      int last = (int) (TIE_ELEMENTS - HOST_MODEL_ELEMENTS + i);
      g_assert_cmpint (qc->dtype == SIMNPU_DTYPE_U8 ? q[i] :
          ((int8_t *) q)[i], ==, want);
      g_assert_cmpint (qc->dtype == SIMNPU_DTYPE_U8 ? q[last] :
          ((int8_t *) q)[last], ==, want);
    }
    simnpu_model_unload (model);
    g_free (d);
  }
}

/* The fused tail: a postamble ending in a sigmoid over more values than
 * the run's blocks (y * 0 + c, c a spread of logits, then the sigmoid),
 * quantised block by block; against the same postamble with a float
 * output, quantised by the reference (a power-of-two scale: x / scale is
 * exact). */
#define FUSED_COPIES 701
#define FUSED_ELEMENTS (FUSED_COPIES * HOST_MODEL_ELEMENTS)
#define FUSED_SCALE (1.0f / 256.0f)
#define FUSED_LOGIT_MOD 1201
#define FUSED_LOGIT_STEP 0.01f

static simnpu__ir_graph *
fused_postamble (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("post");
  float *c = g_new (float, FUSED_ELEMENTS);
  int64_t dims[4];
  int y, zero, logits, t, u, prob, in_mul[2], in_add[2];
  unsigned i;

  for (i = 0; i < FUSED_ELEMENTS; i++)
    c[i] = (float) ((int) ((i * TIE_SPREAD_MUL) % FUSED_LOGIT_MOD) -
        FUSED_LOGIT_MOD / 2) * FUSED_LOGIT_STEP;
  memcpy (dims, host_model_dims, sizeof (dims));
  dims[0] = FUSED_COPIES;
  y = simnpu__ir_add_tensor (g, "y", SIMNPU_IR_F32, 4, host_model_dims);
  zero = host_model_scalar (g, "zero", 0.0f);
  logits = simnpu__ir_add_const (g, "logits", SIMNPU_IR_F32, 4, dims, c);
  t = simnpu__ir_add_tensor (g, "t", SIMNPU_IR_F32, 0, NULL);
  u = simnpu__ir_add_tensor (g, "u", SIMNPU_IR_F32, 0, NULL);
  prob = simnpu__ir_add_tensor (g, "prob", SIMNPU_IR_F32, 0, NULL);
  in_mul[0] = y;
  in_mul[1] = zero;
  in_add[0] = t;
  in_add[1] = logits;
  simnpu__ir_add_node (g, SIMNPU_IR_MUL, "mul", 2, in_mul, 1, &t);
  simnpu__ir_add_node (g, SIMNPU_IR_ADD, "add", 2, in_add, 1, &u);
  simnpu__ir_add_node (g, SIMNPU_IR_SIGMOID, "sigmoid", 1, &u, 1, &prob);
  g->n_inputs = 1;
  g->inputs[0] = y;
  g->n_outputs = 1;
  g->outputs[0] = prob;
  return g;
}

/* The fused postamble's output, quantised (@qc) or float (@qc NULL). */
static void
run_fused_model (const quant_case * qc, void *out, gsize out_bytes)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = host_model_graph (&error);
  simnpu_model *model;
  simnpu_host_section *post;
  simnpu_tensor_spec spec;
  int8_t y[HOST_MODEL_ELEMENTS] = { 0 };
  const void *post_in[1] = { y };
  void *post_out[1] = { out };
  gsize len;
  guint8 *d;
  unsigned round;

  if (g == NULL)
    g_error ("build: %s", error.message);
  simnpu__ir_graph_free (g->postamble);
  g->postamble = fused_postamble ();
  if (simnpu__ir_infer_shapes (g->postamble, &error) < 0)
    g_error ("shapes: %s", error.message);
  if (qc != NULL) {
    g->has_postamble_quant = true;
    g->postamble_quant[0].dtype = qc->dtype;
    g->postamble_quant[0].scale = qc->scale;
    g->postamble_quant[0].zero_point = qc->zero_point;
  }
  d = write_graph (g, &len);
  simnpu__graph_free (g);
  model = load (d, len);
  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  g_assert_cmpint (simnpu_host_section_get_output (post, 0, &spec, NULL),
      ==, 0);
  g_assert_cmpuint (spec.size_bytes, ==, out_bytes);
  /* twice: the executor and its block are reused */
  for (round = 0; round < 2; round++) {
    memset (out, GARBAGE, out_bytes);
    if (simnpu_host_section_run (post, post_in, post_out, &error) < 0)
      g_error ("postamble: %s", error.message);
  }
  simnpu_model_unload (model);
  g_free (d);
}

static void
test_quantised_fused (void)
{
  static const quant_case cases[] = {
    {SIMNPU_DTYPE_U8, FUSED_SCALE, 0},
    {SIMNPU_DTYPE_I8, FUSED_SCALE, QUANT_I8_MIN},
  };
  float *f = g_new (float, FUSED_ELEMENTS);
  uint8_t *q = g_new (uint8_t, FUSED_ELEMENTS);
  unsigned c, i, top = 0;

  run_fused_model (NULL, f, FUSED_ELEMENTS * sizeof (float));
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const quant_case *qc = &cases[c];
    run_fused_model (qc, q, FUSED_ELEMENTS);
    for (i = 0; i < FUSED_ELEMENTS; i++) {
      int got = qc->dtype == SIMNPU_DTYPE_U8 ? q[i] : ((int8_t *) q)[i];
      int want = quant_reference (qc, f[i]);
      if (got != want)
        g_error ("case %u element %u (%g): %d, expected %d", c, i, f[i],
            got, want);
      top += want == (qc->dtype == SIMNPU_DTYPE_U8 ? QUANT_U8_MAX :
          QUANT_I8_MAX);
    }
  }
  /* sigmoid (6) * 256 rounds to 255.4: the top saturates */
  g_assert_cmpuint (top, >, 0);
  g_free (f);
  g_free (q);
}

/* A corrupt quantisation record is refused with the field named. */
static void
test_quantised_corrupt (void)
{
  gsize len, bytes;
  guint8 *d = quant_model_bytes (&quant_cases[0], &len);
  guint8 *rec = section_data (d, SEC_POSTAMBLE_QUANT, &bytes);
  guint8 orig[POSTAMBLE_QUANT_BYTES];
  const float zero = 0.0f;

  g_assert_cmpuint (bytes, ==, POSTAMBLE_QUANT_BYTES);
  memcpy (orig, rec, sizeof (orig));
  put_u32 (rec, 7);
  expect_load_error (d, len, SIMNPU_EFORMAT, "postamble-quant: output 0: "
      "dtype 7");
  memcpy (rec, orig, sizeof (orig));
  memcpy (rec + 4, &zero, sizeof (zero));
  expect_load_error (d, len, SIMNPU_EFORMAT, "scale 0");
  memcpy (rec, orig, sizeof (orig));
  put_u32 (rec + 8, 300);
  expect_load_error (d, len, SIMNPU_EFORMAT, "zero point 300");
  /* the same file read as 1.2 does not know the section */
  memcpy (rec, orig, sizeof (orig));
  d[AXM_MINOR_OFFSET] = 2;
  expect_load_error (d, len, SIMNPU_EFORMAT, "n_sections");
  g_free (d);
}

typedef void (*graph_edit) (simnpu__graph * g);

static void
rename_preamble_output (simnpu__graph * g)
{
  simnpu__ir_tensor *t = &g->preamble->tensors[g->preamble->outputs[0]];
  g_free (t->name);
  t->name = g_strdup ("nope");
}

static void
rename_postamble_input (simnpu__graph * g)
{
  simnpu__ir_tensor *t = &g->postamble->tensors[g->postamble->inputs[0]];
  g_free (t->name);
  t->name = g_strdup ("w");
}

/* a postamble output named like the device output it leaves public */
static void
clash_public_output (simnpu__graph * g)
{
  simnpu__ir_tensor *t = &g->postamble->tensors[g->postamble->outputs[0]];
  g_free (t->name);
  t->name = g_strdup ("z");
}

static void
unnamed_public_input (simnpu__graph * g)
{
  simnpu__ir_tensor *t = &g->preamble->tensors[g->preamble->inputs[0]];
  g_free (t->name);
  t->name = g_strdup ("");
}

static void
shrink_preamble (simnpu__graph * g)
{
  static const int64_t dims[4] = { 1, 2, 2, 2 };
  simnpu__ir_graph_free (g->preamble);
  g->preamble = host_model_preamble ();
  memcpy (g->preamble->tensors[g->preamble->inputs[0]].dims, dims,
      sizeof (dims));
  g_assert_cmpint (simnpu__ir_infer_shapes (g->preamble, NULL), ==, 0);
}

static void
bad_decoder (simnpu__graph * g)
{
  g_free (g->decoder);
  g->decoder = g_strdup ("\"just a string\"");
}

static void
expect_bad_binding (graph_edit edit, int code, const char *needle)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = host_model_graph (&error);
  guint8 *d;
  gsize len;

  g_assert_nonnull (g);
  edit (g);
  d = write_graph (g, &len);
  simnpu__graph_free (g);
  expect_load_error (d, len, code, needle);
  g_free (d);
}

static void
test_bindings (void)
{
  expect_bad_binding (rename_preamble_output, SIMNPU_EFORMAT,
      "preamble: output 'nope' is not a device input");
  expect_bad_binding (rename_postamble_input, SIMNPU_EFORMAT,
      "postamble: input 'w' is not a device output");
  expect_bad_binding (clash_public_output, SIMNPU_EFORMAT,
      "output 'z' has the name of a device output");
  expect_bad_binding (shrink_preamble, SIMNPU_ESHAPE,
      "output 'x' has 8 elements; the device input has 12");
  expect_bad_binding (bad_decoder, SIMNPU_EFORMAT, "expected a JSON object");
  expect_bad_binding (unnamed_public_input, SIMNPU_EFORMAT,
      "preamble: input 0: name is empty");
}

int
main (int argc, char **argv)
{
  simnpu_error error = { 0 };
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (simnpu_device_open ("metis", &dev, &error) < 0)
    g_error ("open: %s", error.message);
  simnpu_device_set_time_scale (dev, 0.0);
  g_test_add_func ("/simnpu/host/public-tensors", test_public_tensors);
  g_test_add_func ("/simnpu/host/metadata", test_metadata);
  g_test_add_func ("/simnpu/host/run", test_run);
  g_test_add_func ("/simnpu/host/plain-model", test_plain_model);
  g_test_add_func ("/simnpu/host/old-versions", test_old_versions);
  g_test_add_func ("/simnpu/host/corrupt-sections", test_corrupt_sections);
  g_test_add_func ("/simnpu/host/bindings", test_bindings);
  g_test_add_func ("/simnpu/host/steady-state", test_steady_state);
  g_test_add_func ("/simnpu/host/unaligned-buffers", test_unaligned_buffers);
  g_test_add_func ("/simnpu/host/concurrent-runs", test_concurrent_runs);
  g_test_add_func ("/simnpu/host/quantised-outputs", test_quantised_outputs);
  g_test_add_func ("/simnpu/host/quantised-ties", test_quantised_ties);
  g_test_add_func ("/simnpu/host/quantised-fused", test_quantised_fused);
  g_test_add_func ("/simnpu/host/quantised-corrupt", test_quantised_corrupt);
  ret = g_test_run ();
  simnpu_device_close (dev);
  return ret;
}
